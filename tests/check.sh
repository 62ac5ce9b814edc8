#!/usr/bin/env bash
# Run test suites and add up their results.
# Usage: tests/check.sh [unit] [lint] [qemu] [e500] [debug] [crash] [removal]
#                       [blktests]
#
# Every suite prints its own last line "N passed, N failed"; a suite that
# dies without one counts as one failure.  The last line of this script is
# the total, and the exit status is non-zero when anything failed.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=$top/build
total_pass=0 total_fail=0
log_dir=$build/test-logs
mkdir -p "$log_dir"

suite() { # NAME COMMAND...
	local name=$1 log=$log_dir/$1.log start line p f
	shift
	start=$(date +%s)
	echo "== $name: $*"
	"$@" 2>&1 | tee "$log"
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	if [ -z "$line" ]; then
		echo "== $name: no result line; counted as 1 failure (log: $log)"
		total_fail=$((total_fail + 1))
		return
	fi
	p=${line%% passed*}
	f=${line#*passed, }
	f=${f%% failed*}
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	echo "== $name: $p passed, $f failed in $(( $(date +%s) - start )) s"
}

for what in "${@:-unit}"; do
	case $what in
	unit)
		suite cardtrace tests/cardtrace/run-tests.sh "$build/host/cardtrace-san"
		# the card model in time: the nbdkit filter (about 10 s)
		suite cardtime qemu/cardtime/test.sh
		if [ -f tests/window/Makefile ]; then
			suite window make -s -C tests/window test
		fi
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
		;;
	removal)
		suite removal tests/removal-tests.sh
		;;
	crash)
		suite crash tests/crash-tests.sh
		;;
	blktests)
		# upstream blktests on the card; skipped without BLKTESTS_DIR
		suite blktests tests/blktests.sh
		;;
	*)
		echo "check.sh: unknown suite group '$what'" >&2
		total_fail=$((total_fail + 1))
		;;
	esac
done

echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
