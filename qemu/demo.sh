#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The demo: the seed's workload (ext2, dd of a file twice the guest's RAM,
# sync) on an emulated SD card, through stock Linux 6.1 and through our
# stack (the coalesce I/O scheduler on the same sdhci-pci + mmc_block),
# and what the card received in each case: a side-by-side table and
# a plot of card write address over time (build/demo/card-writes.png).
# The card is timed (CARD_PROFILE, default cheap12: the cardtime nbdkit
# filter makes the image take the time a 12 MB/s card with 2 open 4 MiB
# AUs would), so the guest's MB/s is the card's, not the emulator's.
# CARD_PROFILE= (empty) runs on QEMU's untimed card. How long a run takes:
# the seed-run rows of Documentation/benchmarks.md (printed as it goes).
# DEMO_REUSE=1: a stack whose run in build/demo/ finished is not run again
# (the table and the plot are made anew from its files).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cardtrace=$top/build/host/cardtrace
out_dir=$top/build/demo
stacks=${STACKS:-stock ours}
card=${CARD_PROFILE-cheap12}
card_opt=()
[ -z "$card" ] || card_opt=(--card-profile "$card")
"$top/qemu/setup/deps.sh" plot
mkdir -p "$out_dir"
# kv_get, charged_vs_trace
. "$top/tests/tools/card-time.sh"

cat <<'EOF'
The seed's workload: mkfs.ext2 on a 4 GiB emulated SDHC card, mount,
dd if=/dev/zero of=/mnt/ff bs=16K (file = 2 x guest RAM = 512 MiB), sync,
umount. QEMU records every command the card receives; the analyzer
rebuilds the write sequence and scores it against a cheap card that keeps
2 allocation units (AU, 4 MiB) open (Documentation/card-cost-model.md).
EOF
if [ -n "$card" ]; then
	cat <<EOF
The card is timed: profile $card (qemu/cardtime/profiles.h) makes every
request take what that card would take, its AU copies included. The
card seconds are what a board pays; the guest's own seconds add the
emulator's CPU time to them.
EOF
fi

declare -A kv
for stack in $stacks; do
	run=$out_dir/seed-$stack
	echo
	echo "== $stack: booting the guest and running the workload (usually $("$top/qemu/setup/duration.sh" "$([ -n "$card" ] && echo seed-run-timed || echo seed-run)"))"
	if [ "${DEMO_REUSE:-0}" = 1 ] && grep -qs '^DONE' "$run/result.txt"; then
		echo "demo: reusing ${run#"$top"/}"
	elif ! "$top/qemu/run.sh" --scenario seed --stack "$stack" "${card_opt[@]}" \
		--timeout 2400 --out "$run"; then
		echo "demo: the guest run failed; see $run/console.log" >&2
		exit 1
	fi
	base=$(sed -n 's/^KV marker_base=//p' "$run/result.txt")
	sel=(--marker-base "$base" --from 1 --to 2)
	# the workload scored on the timed card's own model (the default
	# model, cheap12's, on the untimed card)
	read -r -a model < <(profile_args "$run")
	"$cardtrace" "${sel[@]}" "${model[@]}" --kv "$run/trace.log" >"$run/card.kv"
	"$cardtrace" "${sel[@]}" --dump "$run/trace.log" >"$run/commands.txt"
	echo "-- first 24 write commands of the workload on the card ($stack)"
	"$cardtrace" "${sel[@]}" --excerpt 24 "$run/trace.log"
	for k in writes small_writes au_switches distinct_aus switch_ratio \
		backward_writes est_linear_mbps est_any_mbps limit_s floor_s \
		floor_linear_s est_linear_s est_any_s rewritten_blocks; do
		kv[$stack.$k]=$(sed -n "s/^$k=//p" "$run/card.kv")
	done
	# the card the run had: linear-only unless its profile says otherwise
	order=linear
	[ ! -s "$run/cardtime.txt" ] || order=$(kv_get order "$run/cardtime.txt")
	kv[$stack.card_s]=$(awk -v x="${kv[$stack.est_${order}_s]}" 'BEGIN { printf "%.1f", x }')
	kv[$stack.card_mbps]=${kv[$stack.est_${order}_mbps]}
	kv[$stack.floor]=${kv[$stack.floor_s]}
	[ "$order" = any ] || kv[$stack.floor]=${kv[$stack.floor_linear_s]}
	kv[$stack.floor]=$(awk -v x="${kv[$stack.floor]}" 'BEGIN { printf "%.1f", x }')
	kv[$stack.over_floor]=$(awk -v a="${kv[$stack.card_s]}" -v b="${kv[$stack.floor]}" \
		'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
	kv[$stack.guest_s]=$(sed -n 's/^KV guest_seconds=//p' "$run/result.txt")
	for k in guest workload; do
		kv[$stack.$k]=$(awk -v k="$(sed -n "s/^KV ${k}_kbps=//p" "$run/result.txt")" \
			'BEGIN { printf "%.1f", k * 1024 / 1e6 }')
	done
	kv[$stack.sync]=$(sed -n 's/^KV sync_seconds=//p' "$run/result.txt")
	read -r "kv[$stack.charged]" "kv[$stack.est]" < <(charged_vs_trace "$run")
	kv[$stack.held]=$(sed -n 's/^STAT held //p' "$run/result.txt")
	kv[$stack.absorbed]=$(sed -n 's/^STAT absorbed //p' "$run/result.txt")
done

row() { # LABEL KEY
	printf '%-44s' "$1"
	for s in $stacks; do printf '%14s' "${kv[$s.$2]:--}"; done
	echo
}
echo
echo "== side by side"
printf '%-44s' ""
for s in $stacks; do printf '%14s' "$s"; done
echo
if [ -n "$card" ]; then
	row "card seconds charged, the whole run" charged
	row "  analyzer's estimate of that, from trace" est
fi
row "card seconds for the workload and its sync" card_s
row "MB/s at the card" card_mbps
row "floor: these writes in any order, card s" floor
row "card seconds / floor" over_floor
row "write commands at the card" writes
row "small writes (<= 16 KiB)" small_writes
row "AU switches" au_switches
row "distinct AUs written" distinct_aus
row "AU switches per AU (1.00 = ideal)" switch_ratio
row "backward writes inside an AU" backward_writes
row "est. card MB/s, linear-only card" est_linear_mbps
row "est. card MB/s, any order inside open AUs" est_any_mbps
row "writes held by the window" held
row "4 KiB blocks written more than once" rewritten_blocks
row "buffer updates a write carried (absorbed)" absorbed
if [ -n "$card" ]; then
	row "guest seconds, dd + sync" guest_s
	row "guest MB/s, dd + sync (the seed's number)" guest
	row "guest MB/s, dd alone (before its sync)" workload
	row "sync after the dd, seconds" sync
	echo "(the card: profile $card, qemu/cardtime/profiles.h; the card rows at the top use its model)"
	# one pair decides nothing (stock's runs vary by a quarter from one
	# to the next): the median and range of the committed seed runs on
	# this card, the scenario as it is now, with its two read-backs
	"$top/tests/tools/bench-tables.sh" --seed-runs "$card"
else
	row "guest MB/s (TCG emulation, not a card)" guest
	echo "(the card rows at the top: the analyzer's default model, cheap12's; sequential limit 12.00 MB/s)"
fi
if [ -n "$card" ]; then
	cat <<'EOF'
Read the card rows first. QEMU emulates the CPU (TCG) and runs the card in
the same thread, one after the other, so a guest second here is a card
second plus the emulator's CPU time (the guest seconds less the card
seconds above: minutes under TCG). On a board the CPU runs beside
the card: there the card seconds are the time, and the MB/s at the card
what dd would report.
EOF
else
	cat <<'EOF'
QEMU's card took no time here: the guest MB/s is the emulator's speed.
The card rows are the model's figures for the writes the card received.
EOF
fi
cat <<'EOF'
The floor is what no scheduler can beat with these writes: every sector
once, one command per contiguous run, the unwritten rest of each AU
copied each time the AU is opened, and on a linear-only card a sector
written again needs its AU opened again. It ignores how long a write may
wait and how few AUs the card keeps open, so the best any scheduler can
reach lies above it, by an amount not known
(Documentation/card-cost-model.md, "The floor"). The two stacks' floors
differ because their file systems did not send the same writes: a
metadata block the window holds can be written back fewer times.
EOF

# Card write address over time, one panel per stack.
png=$out_dir/card-writes.png
{
	echo "set terminal png size 1200,$((360 * $(echo "$stacks" | wc -w))) font ',10'"
	echo "set output '$png'"
	echo "set multiplot layout $(echo "$stacks" | wc -w),1"
	echo "set xlabel 'write command number'"
	echo "set ylabel 'card address (MiB)'"
	echo "set key top left"
	for s in $stacks; do
		echo "set title '$s: ${kv[$s.au_switches]} AU switches for ${kv[$s.distinct_aus]} AUs'"
		echo "plot '$out_dir/seed-$s/commands.txt' using (strcol(2) eq \"W\" ? \$0 : 1/0):(\$3 / 2048.0) with points pt 7 ps 0.4 title 'writes'"
	done
	echo "unset multiplot"
} >"$out_dir/plot.gp"
if gnuplot "$out_dir/plot.gp" 2>"$out_dir/plot.err"; then
	echo "plot of card write addresses: ${png#"$top"/}"
else
	echo "demo: gnuplot failed: $(head -n 3 "$out_dir/plot.err")" >&2
fi

cat <<'EOF'

How to read it: every AU switch makes a cheap card leave the allocation
unit it is filling; with only a couple open, it must garbage-collect (copy
the unwritten rest of an AU) far more often than the data alone needs.
The small writes between the 512 KiB data writes are the block device's own
page cache (ext2 bitmaps, inode tables, indirect blocks): see
Documentation/what-are-these-writes.md. The window holds them for a
bounded time (writes to AUs no data stream reaches: up to 20 s) and sends
them with the data of their own AU, so the card switches AUs less often
and the card time falls; how much, per scenario and run, and what it does
not fix: Documentation/benchmarks.md.
EOF
