#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run test suites as one KTAP document and add up their results.
# Usage: tests/check.sh [--guest] [unit] [lint] [qemu] [e500] [debug] [crash]
#                       [removal] [install] [blktests] [6.12]
#
# --guest: build the x86_64 guest and the host tools first (make guest),
# once the second lane has started (make check).
#
# Every suite prints KTAP (tests/lib/ktap.sh). The output is one KTAP
# document (Documentation/dev-tools/ktap.rst in the kernel tree): its plan
# is the number of suite groups asked for; each group is a subtest, and a
# group of several suites (unit) has each suite as a subtest of its own.
# A suite's output is embedded as it comes, indented, under "# Subtest:
# NAME" and closed by "ok N NAME" / "not ok N NAME" (ktap_run); its raw
# output is kept in build/test-logs/NAME.log, and a diagnostic line after
# it says what it counted and how long it took ("# suite: NAME: ... in
# N s").
#
# The document is also kept as build/test-logs/check.ktap. Its results
# are counted as the kernel's kunit.py parser counts them: the leaves,
# tests that are not the parent of nested results (a parent's line is not
# counted again). A suite that dies (no KTAP, or a document that ends
# early) counts as one failure more; skipped tests are not failures. A
# diagnostic line gives those counts; the last line, "N passed, N
# failed" (with ", N skipped: not as CI runs it" where a group could not
# run outside CI), counts the distinct checks among them
# (tests/tools/distinct-checks.sh: a check is one named assertion of one
# scenario on one kernel and stack; KUnit once per group; a list of
# values or of files one check), and the exit status is non-zero when
# anything failed. A suite with fewer distinct checks than tests/manifest
# lists for it fails (SUITE/has_its_results).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
build=$top/build
log_dir=$build/test-logs
mkdir -p "$log_dir"

# The least number of distinct checks each suite prints (tests/manifest)
least() { awk -v s="$1" '$1 == s { print $2 }' "$top/tests/manifest"; }
export KTAP_COUNT="$top/tests/tools/distinct-checks.sh --total"

suite() { # NAME COMMAND...
	local name=$1 start p0=$pass f0=$fail s0=$skipped KTAP_LEAST
	shift
	start=$(date +%s)
	diag "suite: $name: $*"
	# fewer results than tests/manifest lists: one failure more
	KTAP_LEAST=$(least "$name")
	[ -n "$KTAP_LEAST" ] || { diag "suite: $name is not in tests/manifest"; KTAP_LEAST=1000000; }
	ktap_run -l "$log_dir/$name.log" "$name" "$@"
	suite_logs+=("$log_dir/$name.log")
	diag "suite: $name: $((pass - p0)) passed, $((fail - f0)) failed," \
		"$((skipped - s0)) skipped in $(( $(date +%s) - start )) s"
}

# Two lanes. The kernels the later groups need, the ppc ones (e500) and
# Linux 6.12's x86_64 guest (6.12, lint), build in a second lane from the
# start, beside the x86_64 guest's own build and the 6.1 groups' guests:
# the ppc ones first, then the 6.12 one; then the second lane runs the 6.12
# group and lint's suites, their output kept in build/test-logs/NAME.lane,
# which the first lane embeds where they stand in the order. The second
# lane is a session of its own (setsid), and the kernel's autogroup
# scheduling gives each session an equal share of the CPUs whatever its
# tasks' nice values: its builds (a job per CPU) take what a first-lane
# guest (a TCG guest is one vCPU thread) leaves, and half of both cores
# while the first lane builds too. Once done with its own, the second
# lane takes the first lane's last guest groups (shared_groups), from the
# end, each not yet begun: a group is claimed by making
# build/test-logs/GROUP.claim, by whichever lane comes first; the first
# lane embeds a group the second took as it does 6.12's. With a cold
# ccache the kernels are most of a cold make check (benchmarks.md,
# kernel-x86_64-6.12 and kernel-ppc); their log, each step's start time
# included: build/test-logs/kernels.log.
lane_pid=''
lane_start() {
	local g steps=()
	case " $* " in *" e500 "*) steps+=(kernel:ppc kernel:ppc-stock) ;; esac
	case " $* " in *" 6.12 "* | *" lint "*) steps+=(kernel:x86_64-6.12) ;; esac
	for g in "$@"; do
		case $g in
		6.12) steps+=(suite:6.12:tests/kernel-6.12-tests.sh) ;;
		lint) steps+=(suite:lint:tests/lint.sh suite:esdhc-dt:tests/esdhc-dt-tests.sh) ;;
		esac
	done
	[ ${#steps[@]} -gt 0 ] || return 0
	# with guest groups of its own, it then takes the first lane's last ones
	case " ${steps[*]} " in *" suite:"*)
		for g in "${shared_groups[@]}"; do
			case " $* " in *" ${g%%:*} "*) steps+=("take:$g") ;; esac
		done ;;
	esac
	rm -rf "$log_dir"/*.lane "$log_dir"/*.lane.rc "$log_dir"/*.lane.s \
		"$log_dir"/kernel-*.ready "$log_dir"/*.claim
	diag "second lane, beside the other groups (build/test-logs/kernels.log," \
		"NAME.lane): ${steps[*]%%:tests/*}"
	# a process group of their own too, so that a stopped check stops them
	# shellcheck disable=SC2016 # $1, $2 and $@ are the inner bash's
	setsid bash -c '
		top=$1 dir=$2
		shift 2
		: >"$dir/kernels.log"
		for step in "$@"; do
			case $step in
			kernel:*)
				echo "lane: $step from $(date +%T)" >>"$dir/kernels.log"
				"$top/qemu/setup/kernel.sh" "${step#kernel:}" >>"$dir/kernels.log" 2>&1
				touch "$dir/kernel-${step#kernel:}.ready" ;;
			*)
				# suite:NAME:COMMAND, or take:NAME:COMMAND unless the first lane began NAME
				kind=${step%%:*} step=${step#*:}
				g=${step%%:*}
				[ "$kind" = suite ] || mkdir "$dir/$g.claim" 2>/dev/null || continue
				echo "lane: $kind:$g from $(date +%T)" >>"$dir/kernels.log"
				t0=$(date +%s)
				"$top/${step#*:}" >"$dir/$g.lane" 2>&1 </dev/null
				echo $? >"$dir/$g.lane.rc"
				echo $(( $(date +%s) - t0 )) >"$dir/$g.lane.s" ;;
			esac
		done' lane "$top" "$log_dir" "${steps[@]}" </dev/null >/dev/null 2>&1 &
	lane_pid=$!
	trap 'lane_stop' EXIT
	trap 'exit 130' INT TERM
}
lane_stop() {
	[ -z "$lane_pid" ] || kill -- "-$lane_pid" 2>/dev/null || true
}
# lane_wait FILE: until the second lane wrote FILE (or ended)
lane_wait() {
	local start
	start=$(date +%s)
	while [ ! -e "$1" ] && [ -n "$lane_pid" ] && kill -0 "$lane_pid" 2>/dev/null; do
		sleep 5
	done
	diag "second lane: waited $(( $(date +%s) - start )) s for ${1##*/}"
}
# lane_replay NAME: the suite's output from the second lane, and its status
lane_replay() {
	cat "$log_dir/$1.lane" 2>/dev/null
	echo "# ran in the second lane in $(cat "$log_dir/$1.lane.s" 2>/dev/null || echo '?') s"
	return "$(cat "$log_dir/$1.lane.rc" 2>/dev/null || echo 1)"
}
# The first lane's last guest groups, which the second lane takes from the
# end once done with its own (blktests is skipped without BLKTESTS_DIR)
shared_groups=(e500:tests/e500-tests.sh blktests:tests/blktests.sh
	       removal:tests/removal-tests.sh crash:tests/crash-tests.sh)
# shared_suite NAME: a group either lane may run; here, unless the second
# lane claimed it first
shared_suite() {
	local g
	if [ -z "$lane_pid" ] || mkdir "$log_dir/$1.claim" 2>/dev/null; then
		for g in "${shared_groups[@]}"; do
			[ "${g%%:*}" != "$1" ] || suite "$1" "${g#*:}"
		done
	else
		lane_suite "$1"
	fi
}
# lane_suite NAME: that output as suite NAME, once it is there
lane_suite() {
	lane_wait "$log_dir/$1.lane.rc"
	suite "$1" lane_replay "$1"
}

build_guest=0
[ "${1:-}" != --guest ] || { build_guest=1; shift; }
groups=("${@:-unit}")
suite_logs=()
check_groups() {
	lane_start "${groups[@]}"
	if [ $build_guest = 1 ]; then
		diag "the x86_64 guest and the host tools (make guest), beside the second lane"
		make -s -C "$top" guest "$build/host/cardtrace" "$build/host/cardtrace-san" 2>&1 |
			sed 's/^/# /'
		[ "${PIPESTATUS[0]}" = 0 ] || { diag "make guest failed"; return 1; }
	fi
	ktap_begin check ${#groups[@]}
	diag "groups: ${groups[*]}"
	for what in "${groups[@]}"; do
		[ "$what" != e500 ] || lane_wait "$log_dir/kernel-ppc-stock.ready"
		case $what in
		unit)
			unit_suites=(cardtrace cardtime window fuzz ktap reports docs)
			ktap_sub_begin unit ${#unit_suites[@]}
			suite cardtrace tests/cardtrace/run-tests.sh "$build/host/cardtrace-san"
			# the card model in time: the nbdkit filter (about 10 s)
			suite cardtime qemu/cardtime/test.sh
			suite window make -s -C tests/window test
			# the engine's libFuzzer harness, 20 s (clang)
			suite fuzz tests/window/fuzz-test.sh
			# this format itself, against the kernel's kunit.py parser
			suite ktap tests/lib/ktap-test.sh
			# the console check against every form of report
			suite reports tests/lib/kernel-reports-test.sh
			# the Markdown's links, the README's make targets
			if command -v python3 >/dev/null; then
				suite docs python3 tests/docs-tests.py
			else
				missing docs "python3 is not installed"
			fi
			ktap_sub_end
			;;
		qemu)
			suite qemu tests/qemu-tests.sh
			;;
		e500 | blktests | removal | crash)
			shared_suite "$what"
			;;
		debug)
			suite debug tests/debug-tests.sh
			;;
		lint)
			ktap_sub_begin lint 2
			lane_suite lint
			# the e500 device trees of 6.1 and 6.12, our driver against stock
			lane_suite esdhc-dt
			ktap_sub_end
			;;
		6.12)
			# the same sources on Linux 6.12: KUnit, the round trip,
			# block/005, the seed scored at the card
			lane_suite 6.12
			;;
		install)
			# make install, staged into a scratch root
			suite install tests/install-tests.sh
			;;
		*)
			ko "$what" "unknown suite group (unit lint qemu e500 debug crash removal install blktests 6.12)"
			;;
		esac
	done

	ktap_end
	[ ! -s "$log_dir/kernels.log" ] ||
		diag "second lane: $(grep -E '^lane: |ready in' "$log_dir/kernels.log" | tr '\n' ';')"
	[ "$skipped" = 0 ] ||
		diag "$skipped test(s) skipped (the '# SKIP' lines above): not failures"
	diag "results (KTAP leaves): $pass passed, $fail failed"
	[ ${#suite_logs[@]} = 0 ] ||
		diag "distinct checks per suite (tests/manifest's floors):" \
			"$("$top/tests/tools/distinct-checks.sh" --manifest "${suite_logs[@]}" | tr -s ' \n' ' ')"
	[ "$fail" = 0 ]
}

doc=$log_dir/check.ktap
check_groups | tee "$doc"
rc=${PIPESTATUS[0]}
read -r dpass dfail dskip < <("$top/tests/tools/distinct-checks.sh" "$doc")
[ "$dskip" = 0 ] || echo "# $dskip check(s) skipped: not failures"
# a failure no named check carries (a suite cut short: "incomplete") is
# still one failure on the closing line
[ "$rc" = 0 ] || [ "$dfail" != 0 ] || dfail=1
# outside CI a group that cannot run skips (ktap.sh, missing()): the
# closing line says so, since CI would have failed there
nci=$(grep -c '# SKIP not as CI runs it' "$doc")
if [ "$nci" = 0 ]; then
	echo "$dpass passed, $dfail failed"
else
	echo "$dpass passed, $dfail failed, $nci skipped: not as CI runs it"
fi
[ "$rc" = 0 ] && [ "$dfail" = 0 ]
