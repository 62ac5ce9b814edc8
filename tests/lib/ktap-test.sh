#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The test output format against the kernel's own KTAP parser: documents
# built the way tests/check.sh builds its output (tests/lib/ktap.sh:
# suites embedded as subtests, guest and KUnit documents nested in them)
# are counted by ktap.sh and by build/linux-6.1/tools/testing/kunit/
# kunit.py parse, and both must find the expected passed, failed and
# skipped tests, kunit.py with no parse error. Cases:
#   checkstyle      a check.sh-like document: a group of suites, a guest
#                   document nested in a suite with one failing test, a
#                   subtest and a test named like their suite, a suite
#                   that dies half-way, one that prints no KTAP, one that
#                   exits non-zero without a failure, one skipped
#   kunit_console   KUnit's KTAP from the e500 guest's boot console (a
#                   recorded capture, ktap-cases/kunit-console.log) with
#                   -d 1: one test per case, a parameterized one too;
#                   and without -d: every parameter, as kunit.py counts
#                   the raw console
#   kunit_failing   the same with a failed case and a failed parameter
#   kunit_debugfs   6.1's debugfs results of a parameterized suite
#                   (ktap-cases/kunit-debugfs.txt), whose case log lost
#                   its header lines
#   guest_transport a guest's document on a serial console ("MMCC "
#                   lines among kernel messages), as qemu/run.sh extracts
#                   it, killed before its end
#   guest_broken_line a guest's document whose failed result a kernel
#                   message broke in two on the console: the document's
#                   "# Totals:" and the results seen disagree, which is a
#                   failure (totals_match) though the failure line is lost
#   unit_logs       the unit group's own suite logs of this run
#                   (build/test-logs/{cardtrace,cardtime,window}.log),
#                   nested as check.sh does (expected: whatever they hold,
#                   the same for both parsers; failed without them)
# Prints KTAP. A few seconds.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cases=$here/ktap-cases
kunit=$top/build/linux-6.1/tools/testing/kunit/kunit.py
# shellcheck source=tests/lib/ktap.sh
. "$here/ktap.sh"
tmp=$(mktemp -d)
trap '[ -n "${KTAP_TEST_KEEP:-}" ] && cp "$tmp"/*.ktap "$KTAP_TEST_KEEP"/; rm -rf "$tmp"' EXIT

# ours FILE: "passed failed skipped" from the document's own last
# top-level "# Totals:" line (what ktap_end counted)
ours() {
	sed -n 's/^# Totals: pass:\([0-9]*\) fail:\([0-9]*\) skip:\([0-9]*\).*/\1 \2 \3/p' "$1" |
		tail -n 1
}

# theirs FILE: "passed failed skipped errors" as kunit.py parse counts
# them (crashed counted as failed)
theirs() {
	python3 "$kunit" parse "$1" 2>&1 | sed -n 's/.*Testing complete\. //p' |
		tail -n 1 | awk '{
			n = split($0, w, /[ :,]+/)
			for (i = 1; i < n; i++)
				c[w[i]] = w[i + 1]
			printf "%d %d %d %d\n", c["passed"], c["failed"] + c["crashed"],
				c["skipped"], c["errors"]
		}'
}

# compare CASE DOC "P F S": ours and kunit.py's counts of DOC against the
# expected ones ("-": only that both agree)
compare() {
	local name=$1 doc=$2 want=$3 got k
	got=$(ours "$doc")
	if [ -z "$got" ]; then
		ko "$name/ktap_sh" "no top-level '# Totals:' line in $doc"
	elif [ "$want" != - ] && [ "$got" != "$want" ]; then
		ko "$name/ktap_sh" "ktap.sh counted '$got' (passed failed skipped), expected '$want'"
	else
		diag "$name: ktap.sh counted $got (passed failed skipped)"
		ok "$name/ktap_sh"
	fi
	[ "$want" = - ] && want=$got
	if [ -z "$kparse" ]; then
		ko "$name/kunit_py" "missing: no python3 or no $kunit (build/linux-6.1 is extracted by the window tests)"
		return
	fi
	k=$(theirs "$doc")
	if [ "$k" = "$want 0" ]; then
		diag "$name: kunit.py parse counted $want, no error"
		ok "$name/kunit_py"
	else
		ko "$name/kunit_py" "kunit.py parse counted '$k' (passed failed skipped errors), expected '$want 0'; see $doc"
		[ -z "${KTAP_TEST_KEEP:-}" ] || cp "$doc" "$KTAP_TEST_KEEP/"
	fi
}

kparse=
command -v python3 >/dev/null && [ -f "$kunit" ] && kparse=1

ktap_begin ktap 18

# --- checkstyle: suites as check.sh runs them
suite_ok() {
	ktap_begin ok
	ok first
	ok second
	skip third "nothing to do here"
	ktap_end
}
# a guest's document (its own failure inside) nested in a host suite
suite_guest() {
	ktap_begin guest
	printf 'KTAP version 1\n# smoke\nok 1 card_detected\n# roundtrip: checksums differ\nnot ok 2 roundtrip\nKV x=1\nok 3 fsck\n# Totals: pass:2 fail:1 skip:0\nDONE\n' >"$tmp/guest.txt"
	ktap_nest -q smoke/stock "$tmp/guest.txt"
	ok smoke/stock/finished
	ktap_end
}
# prints two results, then dies
suite_dies() {
	ktap_begin dies
	ok one
	ok two
	echo "suite_dies: something went wrong" >&2
	return 1
}
suite_silent() {
	echo "not a test result"
}
# says all passed, exits 2
suite_exit() {
	ktap_begin exit
	ok fine
	ktap_end
	return 2
}
# a subtest and a test named like their suite (kunit.py ends a subtest
# without a plan at a result of its name: the test is renamed, the
# subtest not)
suite_same() {
	ktap_begin same
	printf 'KTAP version 1\n# inner\nok 1 x\n# Totals: pass:1 fail:0 skip:0\n' >"$tmp/same.txt"
	ktap_nest same "$tmp/same.txt"
	ok same
	ktap_end
}
suite_skip() {
	ktap_begin blktests
	skip blktests/all "BLKTESTS_DIR not set"
	ktap_end
}
checkstyle() {
	ktap_begin check 5
	ktap_sub_begin unit 3
	ktap_run ok suite_ok
	ktap_run guest suite_guest
	ktap_run same suite_same
	ktap_sub_end
	ktap_run dies suite_dies
	ktap_run silent suite_silent
	ktap_run exit suite_exit
	ktap_run blktests suite_skip
	ktap_end
	echo "$pass passed, $fail failed"
}
# ok: 2 + a skip; guest: 2 + 1 failure + finished; same: 2; dies: 2 +
# incomplete; silent: 1 failure; exit: 1 + exit_status; skipped 2
(checkstyle) >"$tmp/checkstyle.ktap"
compare checkstyle "$tmp/checkstyle.ktap" "10 4 2"
if [ "$(tail -n 1 "$tmp/checkstyle.ktap")" = "10 passed, 4 failed" ]; then
	ok checkstyle/last_line
else
	ko checkstyle/last_line "last line '$(tail -n 1 "$tmp/checkstyle.ktap")'"
fi

# --- KUnit on a console: printk time stamps off, as run-e500.sh does
sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' "$cases/kunit-console.log" >"$tmp/console.txt"
(ktap_begin kunit_console 1; ktap_nest -q -d 1 e500/kunit "$tmp/console.txt"; ktap_end) \
	>"$tmp/kunit_console.ktap"
# 46 cases (20 + 14 + 7 + 5, one of them with 21 parameters)
compare kunit_console "$tmp/kunit_console.ktap" "46 0 0"
(ktap_begin kunit_params 1; ktap_nest -q e500/kunit "$tmp/console.txt"; ktap_end) \
	>"$tmp/kunit_params.ktap"
# every parameter: 45 cases + 21
compare kunit_params "$tmp/kunit_params.ktap" "66 0 0"
# kunit.py on the raw console, time stamps and all, agrees
if [ -n "$kparse" ]; then
	k=$(theirs "$cases/kunit-console.log")
	if [ "$k" = "66 0 0 0" ]; then
		ok kunit_params/raw_console
	else
		ko kunit_params/raw_console "kunit.py parse counted '$k' on the raw console"
	fi
else
	ko kunit_params/raw_console "missing: no kunit.py"
fi

# a failed case and a failed parameter (its case fails with it)
sed -e 's/^    ok 3 esdhc_errata_early_data_end_cmd25/    not ok 3 esdhc_errata_early_data_end_cmd25/' \
	-e 's/^        ok 4 133M_id_v22/        not ok 4 133M_id_v22/' \
	-e 's/^    ok 1 esdhc_clk_pick_table/    not ok 1 esdhc_clk_pick_table/' \
	"$tmp/console.txt" >"$tmp/failing.txt"
(ktap_begin kunit_failing 1; ktap_nest -q -d 1 e500/kunit "$tmp/failing.txt"; ktap_end) \
	>"$tmp/kunit_failing.ktap"
compare kunit_failing "$tmp/kunit_failing.ktap" "44 2 0"

# --- 6.1's debugfs results of a parameterized case
(ktap_begin kunit_debugfs 1; ktap_nest -d 1 kunit/clk "$cases/kunit-debugfs.txt"; ktap_end) \
	>"$tmp/kunit_debugfs.ktap"
compare kunit_debugfs "$tmp/kunit_debugfs.ktap" "4 0 0"

# --- a guest's document on a serial console, cut short by a kill
{
	echo "[    1.000000] Run /init as init process"
	(
		KTAP_PREFIX='MMCC '
		ktap_begin crashfsync
		ok card_detected
		echo "MMCC KV fs=ext4"
		echo "[    2.000000] EXT4-fs (mmcblk0): mounted filesystem"
		ko crash_write "writing f3 failed"
		echo "MMCC FSYNCED f1 0123"
		# killed here: no "# Totals:", no DONE
	)
} >"$tmp/console-guest.log"
# console_case CASE SUBTEST CONSOLE "P F S": the guest's lines of CONSOLE
# as qemu/run.sh takes them, nested as SUBTEST in a document of one test
console_case() {
	grep -a '^MMCC ' "$3" | sed 's/^MMCC //' >"$tmp/$1.result"
	(ktap_begin "$1" 1; ktap_nest -q "$2" "$tmp/$1.result"; ktap_end) >"$tmp/$1.ktap"
	compare "$1" "$tmp/$1.ktap" "$4"
}
# 1 passed; the guest's failure and "incomplete"
console_case guest_transport crashfsync/ours "$tmp/console-guest.log" "1 2 0"

# --- a failed result broken by a kernel message on a shared console
{
	echo "MMCC KTAP version 1"
	echo "MMCC # smoke"
	echo "MMCC ok 1 card_detected"
	printf 'MMCC not o[    3.000000] mmc0: new high speed SDHC card\nk 2 roundtrip\n'
	echo "MMCC ok 3 fsck"
	echo "MMCC # Totals: pass:2 fail:1 skip:0"
	echo "MMCC DONE"
} >"$tmp/console-broken.log"
# 2 passed; the lost failure comes back as totals_match
console_case guest_broken_line smoke/ours "$tmp/console-broken.log" "2 1 0"

# --- the unit group's real logs, when check.sh has written them
logs=()
for l in cardtrace cardtime window; do
	[ -s "$top/build/test-logs/$l.log" ] && logs+=("$l")
done
if [ ${#logs[@]} -gt 0 ]; then
	(
		ktap_begin unit_logs 1
		ktap_sub_begin unit ${#logs[@]}
		for l in "${logs[@]}"; do
			ktap_nest "$l" "$top/build/test-logs/$l.log"
		done
		ktap_sub_end
		ktap_end
	) >"$tmp/unit_logs.ktap"
	compare "unit_logs(${logs[*]})" "$tmp/unit_logs.ktap" -
else
	ko unit_logs/ktap_sh "missing: no build/test-logs/*.log of the unit suites yet"
	ko unit_logs/kunit_py "missing: no build/test-logs/*.log of the unit suites yet"
fi
ktap_end
