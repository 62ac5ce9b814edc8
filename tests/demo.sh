#!/usr/bin/env bash
# The demo: the seed's workload (ext2, dd of a file twice the guest's RAM,
# sync) on an emulated SD card, and what the card received.
# One guest run takes about a minute under TCG.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cardtrace=$top/build/host/cardtrace
stacks=${STACKS:-stock}
out_dir=$top/build/demo

cat <<'EOF'
The seed's workload: mkfs.ext2 on a 4 GiB emulated SDHC card, mount,
dd if=/dev/zero of=/mnt/ff bs=16K (file = 2 x guest RAM), sync, umount.
QEMU records every command the card receives; the analyzer rebuilds the
write sequence and scores it against a cheap card that keeps 2 allocation
units (AU, 4 MiB) open (Documentation/card-cost-model.md).
EOF

for stack in $stacks; do
	run=$out_dir/seed-$stack
	echo
	echo "== $stack stack: booting the guest and running the workload (about a minute)"
	if ! "$top/qemu/run.sh" --scenario seed --stack "$stack" --out "$run"; then
		echo "demo: the guest run failed; see $run/console.log" >&2
		exit 1
	fi
	base=$(sed -n 's/^KV marker_base=//p' "$run/result.txt")
	sel=(--marker-base "$base" --from 1 --to 2)
	echo "-- first 30 write commands of the workload, as the card saw them"
	"$cardtrace" "${sel[@]}" --excerpt 30 "$run/trace.log"
	echo "-- report"
	"$cardtrace" "${sel[@]}" "$run/trace.log"
	kbps=$(sed -n 's/^KV guest_kbps=//p' "$run/result.txt")
	awk -v k="$kbps" 'BEGIN { printf "guest-side write speed (TCG emulation, not a card figure): %.2f MB/s\n", k * 1024 / 1e6 }'
done
cat <<'EOF'

How to read it: every "AU switch" makes a cheap card leave the allocation
unit it is filling; with only a couple open, it must garbage-collect (copy
the unwritten rest of an AU) far more often than the data alone needs.
The small writes between the 512 KiB data writes are the block device's own
page cache (ext2 bitmaps, inode tables, indirect blocks): see
Documentation/what-are-these-writes.md.
EOF
