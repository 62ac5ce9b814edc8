#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Guest-side write speed of the seed workload, stock (under ELEVATOR)
# against ours (the coalesce elevator on the same drivers), in
# alternating runs (stock, ours, stock, ours, ...) so that drift of this
# shared machine hits both alike; prints every run and the medians.
# Under TCG the figure is a property of the emulator as much as of the
# driver: compare the medians, never single runs.
#
# The card's emulation writes each 512-byte block through a QEMU I/O worker
# thread. When the host's other CPU is idle, every one of those hand-offs
# waits for that CPU to wake up, and a run falls at random into a mode
# about three times slower (stock and ours alike: measured 56-58 s against
# 19-20 s for the same 512 MiB). A busy loop on the host for the length of
# the runs keeps the CPUs awake and the figure steady; --no-spin leaves it
# out, to see the other mode.
#
# Usage: qemu/guest-speed.sh [--no-spin] [PAIRS] [ELEVATOR]
#        (default 7, mq-deadline)  About two to three minutes per pair.
# The last line adds an exact rank-sum p-value and a bootstrap interval
# of the ratio of the medians (tests/tools/rank-test.py).
set -euo pipefail
spin=1
if [ "${1:-}" = --no-spin ]; then
	spin=0
	shift
fi
top=$(cd "$(dirname "$0")/.." && pwd)
pairs=${1:-7}
elv=${2:-mq-deadline}
ours=ours
out=$top/build/speed
mkdir -p "$out"

if [ $spin = 1 ]; then
	( while :; do :; done ) &
	spinner=$!
	trap 'kill $spinner 2>/dev/null' EXIT
fi

declare -A runs=([stock]="" [$ours]="")
for i in $(seq 1 "$pairs"); do
	for stack in stock $ours; do
		dir=$out/$stack-$i
		# ours is the elevator; --elevator is for stock only
		elv_opt=(--elevator "$elv")
		[ "$stack" = stock ] || elv_opt=()
		"$top/qemu/run.sh" --scenario seed --stack "$stack" "${elv_opt[@]}" \
			--out "$dir" --no-trace >/dev/null 2>&1 || {
			echo "guest-speed: run $stack $i failed; see $dir/console.log" >&2
			exit 1
		}
		kbps=$(sed -n 's/^KV guest_kbps=//p' "$dir/result.txt")
		mbps=$(awk -v k="$kbps" 'BEGIN { printf "%.1f", k * 1024 / 1e6 }')
		echo "run $i $stack: $mbps MB/s"
		runs[$stack]+="$mbps "
	done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ms=$(echo "${runs[stock]}" | median)
mo=$(echo "${runs[$ours]}" | median)
echo "median: stock $ms MB/s, $ours $mo MB/s, ratio $(awk -v a="$mo" -v b="$ms" 'BEGIN { printf "%.2f", a / b }')"
python3 "$top/tests/tools/rank-test.py" "${runs[$ours]}" "${runs[stock]}"
