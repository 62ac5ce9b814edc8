#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The bench on a timed card (the cardtime nbdkit filter, profile
# CARD_PROFILE, default cheap12), in two halves that can run side by side
# (JOBS=2, the default; JOBS=1 runs them one after the other):
#   A: the seed pair, stock mq-deadline against ours, REPEAT times
#      (default 5): medians and spread of the seed's guest MB/s;
#   B: the seed under stock's other elevators, then the fsync scenarios
#      (ext2, ext4), ext4, smallfiles and fio under stock mq-deadline and
#      none against ours.
# Then both halves' rows are merged and published as the card's rows of
# Documentation/bench/results.tsv (and the README's timed table).
# How long: the bench-timed row of Documentation/benchmarks.md
# ("How long things take"); JOBS=1 takes about twice as long.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
export CARD_PROFILE=${CARD_PROFILE:-cheap12}
jobs=${JOBS:-2}
base=$top/build/bench-card-$CARD_PROFILE
log=$top/build/logs
mkdir -p "$log"

half_a() {
	SCENARIOS=seed STACKS="stock ours" ELEVATORS=mq-deadline \
		REPEAT=${REPEAT:-5} BENCH_DIR=$base-pairs "$top/qemu/bench.sh" "$@"
}
half_b() {
	SCENARIOS=seed STACKS=stock ELEVATORS="none bfq kyber" \
		BENCH_DIR=$base-seed-elv "$top/qemu/bench.sh" "$@" &&
	SCENARIOS="fsync fsync4 ext4 smallfiles fio" STACKS="stock ours" \
		ELEVATORS="mq-deadline none" BENCH_DIR=$base-others \
		"$top/qemu/bench.sh" "$@"
}

echo "bench-timed: card $CARD_PROFILE; logs in ${log#"$top"/}/bench-timed-{a,b}.log" >&2
if [ "$jobs" = 2 ]; then
	half_a "$@" >"$log/bench-timed-a.log" 2>&1 & a=$!
	# start B a little later so the two guests do not boot at once
	sleep 60
	half_b "$@" >"$log/bench-timed-b.log" 2>&1 & b=$!
	rc=0
	wait $a || rc=1
	wait $b || rc=1
else
	rc=0
	half_a "$@" >"$log/bench-timed-a.log" 2>&1 || rc=1
	half_b "$@" >"$log/bench-timed-b.log" 2>&1 || rc=1
fi
[ $rc = 0 ] || { echo "bench-timed: a run failed; see the logs" >&2; exit 1; }
BENCH_PUBLISH=1 BENCH_DIR=$base "$top/qemu/bench.sh" --merge \
	"$base-pairs" "$base-seed-elv" "$base-others"
echo "JOBS=$jobs ${REPEAT:+REPEAT=$REPEAT }CARD_PROFILE=$CARD_PROFILE qemu/bench-timed.sh" \
	>"$top/Documentation/bench/command-$CARD_PROFILE.txt"
"$top/tests/tools/bench-tables.sh"
