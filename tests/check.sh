#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run test suites as one KTAP document and add up their results.
# Usage: tests/check.sh [unit] [lint] [qemu] [e500] [debug] [crash] [removal]
#                       [install] [blktests] [6.12]
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
# The counts are the leaves: tests that are not the parent of nested
# results, at any depth (a parent's line is not counted again) -- what
# the kernel's kunit.py parser counts on this output ("Ran N tests").
# A suite that dies (no KTAP, or a document that ends early) counts as
# one failure more; skipped tests are not failures, a diagnostic line
# says how many. A diagnostic line counts the distinct checks among the
# results (tests/tools/distinct-checks.sh). The last line is the total,
# "N passed, N failed", and the exit status is non-zero when anything
# failed.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
build=$top/build
log_dir=$build/test-logs
mkdir -p "$log_dir"

# The least number of results each suite prints (tests/manifest)
least() { awk -v s="$1" '$1 == s { print $2 }' "$top/tests/manifest"; }

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

# Kernels the later groups need (6.12 and lint: Linux 6.12's x86_64
# guest; e500: the ppc one), made on the second core while the earlier
# groups run their guests on the first (a TCG guest is one vCPU thread).
# With a cold ccache they take about 20 minutes of both cores
# (benchmarks.md, kernel-x86_64-6.12 and kernel-ppc); one job at nice 10
# leaves the running guest its core. The group that needs them waits for
# them, then runs kernel.sh itself, which finds them made (seconds) or
# reports the build's failure as that group's. Their log:
# build/test-logs/kernels.log.
kernels_pid=''
kernels_start() {
	local k kernels=()
	for k in "$@"; do
		case $k in
		6.12 | lint) kernels+=(x86_64-6.12) ;;
		e500) kernels+=(ppc ppc-stock) ;;
		esac
	done
	[ ${#kernels[@]} -gt 0 ] || return 0
	mapfile -t kernels < <(printf '%s\n' "${kernels[@]}" | awk '!seen[$0]++')
	diag "kernels: building ${kernels[*]} beside the groups before them" \
		"(one job, nice 10; build/test-logs/kernels.log)"
	# a session of their own, so that a stopped check stops them too
	# shellcheck disable=SC2016 # $1 and $@ are the inner bash's
	KERNEL_JOBS=1 setsid nice -n 10 bash -c \
		'for k in "${@:2}"; do "$1" "$k" || exit 1; done' \
		kernels "$top/qemu/setup/kernel.sh" "${kernels[@]}" \
		>"$log_dir/kernels.log" 2>&1 </dev/null &
	kernels_pid=$!
	trap 'kernels_stop' EXIT
	trap 'exit 130' INT TERM
}
kernels_stop() {
	[ -z "$kernels_pid" ] || kill -- "-$kernels_pid" 2>/dev/null || true
}
kernels_wait() {
	local start rc=0
	[ -n "$kernels_pid" ] || return 0
	start=$(date +%s)
	wait "$kernels_pid" || rc=$?
	kernels_pid=''
	diag "kernels: waited $(( $(date +%s) - start )) s for the builds beside the" \
		"earlier groups (status $rc; build/test-logs/kernels.log)"
}

groups=("${@:-unit}")
suite_logs=()
kernels_start "${groups[@]}"
ktap_begin check ${#groups[@]}
diag "groups: ${groups[*]}"
for what in "${groups[@]}"; do
	case $what in 6.12 | lint | e500) kernels_wait ;; esac
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
	e500)
		suite e500 tests/e500-tests.sh
		;;
	debug)
		suite debug tests/debug-tests.sh
		;;
	lint)
		suite lint tests/lint.sh
		# the e500 device trees of 6.1 and 6.12, our driver against stock
		suite esdhc-dt tests/esdhc-dt-tests.sh
		;;
	removal)
		suite removal tests/removal-tests.sh
		;;
	crash)
		suite crash tests/crash-tests.sh
		;;
	6.12)
		# the same sources on Linux 6.12: KUnit, the round trip,
		# block/005, the seed scored at the card
		suite 6.12 tests/kernel-6.12-tests.sh
		;;
	install)
		# make install, staged into a scratch root
		suite install tests/install-tests.sh
		;;
	blktests)
		# upstream blktests on the card; skipped without BLKTESTS_DIR
		suite blktests tests/blktests.sh
		;;
	*)
		ko "$what" "unknown suite group (unit lint qemu e500 debug crash removal install blktests 6.12)"
		;;
	esac
done

# the results without their repetitions (stack, kernel, kill point)
[ ${#suite_logs[@]} = 0 ] ||
	diag "distinct checks: $("$top/tests/tools/distinct-checks.sh" "${suite_logs[@]}") (tests/tools/distinct-checks.sh)"
ktap_end
[ "$skipped" = 0 ] ||
	diag "$skipped test(s) skipped (the '# SKIP' lines above): not failures"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
