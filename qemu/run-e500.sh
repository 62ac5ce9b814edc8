#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot the e500 (32-bit big-endian PowerPC) kernel with our host and block
# drivers built in on QEMU 10's ppce500 machine (from the Debian 13 root,
# qemu/setup/trixie-root.sh: Debian 12's QEMU 7.2 has no eSDHC model),
# with an SD card on the machine's own Freescale eSDHC (device tree node
# sdhc@2e000, big-endian registers), and run the e500 boot test
# (qemu/guest/e500-init.c).
#
# Usage: qemu/run-e500.sh --out DIR [--timeout SECONDS]
#                         [--compatible LIST] [--esdhc-clock HZ]
#                         [--seed ELEVATOR [--seed-mib N]]
#                         [--mem MiB] [--kernel ppc|ppc-stock]
#                         [--smp N] [--lkdtm]
# QEMU's own tree names no part: its eSDHC node says only "fsl,esdhc",
# as the kernel's P1021, P1025, BSC913x and MPC8569 trees do, and the
# driver takes the quirks from the SoC's SVR. A board's tree names its
# part first, so the tree is dumped, edited with dtc from the Debian 13
# root and passed back with -dtb:
# --compatible LIST: the node's compatible list, default
#   '"fsl,p1022-esdhc", "fsl,esdhc"' (P1022's, from the kernel's
#   p1022si-post.dtsi: the part with no quirk beyond the eSDHC base set,
#   as QEMU's model has none); "qemu" boots QEMU's tree unedited.
# --esdhc-clock HZ: also "clock-frequency = <HZ>" in the node, as U-Boot
#   fills it in on boards.
# --seed ELEVATOR: instead of the boot test, the seed's workload
# (e500-init.c run_seed): ext2 over the whole card (made here), the card's
# scheduler set to ELEVATOR (mq-deadline, coalesce, none), an N MiB file
# (--seed-mib, default 128) written in 16 KiB writes and synced between
# phase markers 1 and 2; the file is checked on the card image here
# afterwards (reading it back in the guest would take as long as writing
# it). QEMU traces the card's commands and blocks (sdcard_normal_command,
# sdcard_write_block, sdcard_read_block: the eSDHC moves data by SDMA, so
# no ADMA descriptors give the lengths) into DIR/trace.log, for
# build/host/cardtrace --marker-base (the KV marker_base line of
# result.txt) --from 1 --to 2.
# --mem MiB: the guest's RAM (default 256).
# --kernel ppc-stock: the kernel with the stock sdhci-of-esdhc (and the
#   series for it) in place of our host driver (qemu/setup/kernel.sh
#   ppc-stock); default ppc, ours. The guest reports the driver bound to
#   the card's host as "KV host_driver=NAME".
# --smp N: N e500v2 CPUs, 1 (the default) or 2 (the kernel's NR_CPUS);
#   QEMU's tree then has a cpu node for each.
# --lkdtm: instead of the boot test, LKDTM makes each detector of the
#   host's console check report once (e500-init.c run_lkdtm); after its
#   results the guest spins until the RCU stall, on which it panics.
# DIR receives console.log, kunit.log (the console without printk time
# stamps: the built-in KUnit suites' KTAP document is in it),
# results.log (the guest's second serial port, which printk does not
# share: e500-init.c writes its "MMCC" lines there too) and result.txt
# (those lines without "MMCC ", from results.log only: its KTAP document,
# tests/lib/ktap.sh, and its KV, STAT, MARKER and DONE lines; an empty
# port fails the run, qemu/results-port.sh); the card
# image is checked with e2fsck on the host afterwards, and with --seed the
# file's contents too (debugfs; seed-verify.log): host.ktap, a KTAP
# document of these checks (e2fsck_clean, seed_data_verified). With --seed
# DIR gets trace.log. Exit 0 when the guest finished, 1 when it did not
# or its results port stayed empty, 3 when QEMU had to be killed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=qemu/results-port.sh
. "$here/results-port.sh"
out='' limit=900 esdhc_clock='' compatible='"fsl,p1022-esdhc", "fsl,esdhc"'
seed='' seed_mib=128 mem=256 kname=ppc smp=1 lkdtm=0
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift ;;
	--seed) seed=$2; shift ;;
	--seed-mib) seed_mib=$2; shift ;;
	--mem) mem=$2; shift ;;
	--compatible) compatible=$2; shift ;;
	--esdhc-clock) esdhc_clock=$2; shift ;;
	--timeout) limit=$2; shift ;;
	--kernel) kname=$2; shift ;;
	--smp) smp=$2; shift ;;
	--lkdtm) lkdtm=1 ;;
	*) echo "run-e500.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$out" ] || { echo "run-e500.sh: --out is required" >&2; exit 2; }
case $seed in
'' | none | mq-deadline | coalesce) ;;
*) echo "run-e500.sh: --seed takes none, mq-deadline or coalesce (the kernel's schedulers)" >&2; exit 2 ;;
esac
case $seed_mib$mem in
*[!0-9]*) echo "run-e500.sh: --seed-mib and --mem want MiB" >&2; exit 2 ;;
esac
case $smp in
1 | 2) ;;
*) echo "run-e500.sh: --smp takes 1 or 2 (the kernel's NR_CPUS)" >&2; exit 2 ;;
esac
[ "$lkdtm" = 0 ] || [ -z "$seed" ] || { echo "run-e500.sh: --lkdtm or --seed, not both" >&2; exit 2; }
case $kname in
ppc | ppc-stock) ;;
*) echo "run-e500.sh: --kernel takes ppc (our host driver) or ppc-stock (stock sdhci-of-esdhc)" >&2; exit 2 ;;
esac
kernel=$top/build/kernel-$kname/vmlinux
[ -f "$kernel" ] || { echo "run-e500.sh: no $kernel (run qemu/setup/kernel.sh $kname)" >&2; exit 2; }
case $esdhc_clock in
*[!0-9]*) echo "run-e500.sh: --esdhc-clock wants Hz" >&2; exit 2 ;;
esac
case $compatible in
qemu) [ -z "$esdhc_clock" ] || { echo "run-e500.sh: --esdhc-clock edits the tree: not with --compatible qemu" >&2; exit 2; } ;;
*\"fsl,*) ;;
*) echo "run-e500.sh: --compatible wants a device tree list such as '\"fsl,p1022-esdhc\", \"fsl,esdhc\"', or qemu" >&2; exit 2 ;;
esac
"$here/setup/deps.sh" ppc
"$here/setup/trixie-root.sh" qemu-system-ppc device-tree-compiler
troot=$top/build/trixie-root

mkdir -p "$out"
root=$out/initramfs.root
rm -rf "$root" "$out/console.log" "$out/result.txt" "$out/trace.log" "$out/results.log"
mkdir -p "$root/bin"
powerpc-linux-gnu-gcc -static -O2 -Wall -Wextra -Werror -o "$root/init" \
	"$top/qemu/guest/e500-init.c"
powerpc-linux-gnu-gcc -static -O2 -Wall -Wextra -Werror -o "$root/bin/blkcheck" \
	"$top/qemu/guest/blkcheck.c"
(cd "$root" && find . | cpio -o -H newc --quiet -R 0:0) | gzip -1 >"$out/initrd.gz"
rm -rf "$root"

# A 4 GiB SDHC card with a 1 GiB ext2 file system made here on the host;
# blkcheck's scratch area lies past it (BLKCHECK_BASE in e500-init.c).
# The seed: ext2 over the whole card, as the x86_64 seed's mke2fs makes
# it (the init is a static program without mke2fs).
card=$out/card.img
rm -f "$card"
truncate -s 4G "$card"
fs_size=(1G)
[ -z "$seed" ] || fs_size=()
mke2fs -q -F -t ext2 -E nodiscard "$card" "${fs_size[@]}"

append="console=ttyS0 panic=-1 loglevel=7 mmcc.results=ttyS1"
[ -z "$seed" ] || append+=" mmcc.e500=seed mmcc.elevator=$seed mmcc.seed_mib=$seed_mib"
[ "$lkdtm" = 0 ] || append+=" mmcc.e500=lkdtm"
# QEMU 10 runs in the Debian 13 root and sees the run's directory there;
# (a mount point of this run's own, so that two runs side by side do not
# share one); no NIC (the default one wants a ROM the root lacks)
dir=/run-e500.$$
mnt=$troot$dir
mkdir -p "$mnt"
mount --bind "$out" "$mnt"
trap 'umount "$mnt" 2>/dev/null; rmdir "$mnt" 2>/dev/null || true' EXIT
cp "$kernel" "$out/vmlinux"
qemu=(chroot "$troot" qemu-system-ppc) ctl=(-nic none)
if [ "$compatible" != qemu ]; then
	# the same kernel, initrd and command line: QEMU puts their places
	# into /chosen, and -dtb takes the tree as it is
	"${qemu[@]}" -M "ppce500,dumpdtb=$dir/qemu.dtb" -cpu e500v2 -smp "$smp" -m "$mem" \
		-serial null -serial null \
		-nographic -nic none -kernel "$dir/vmlinux" \
		-initrd "$dir/initrd.gz" -append "$append" >/dev/null 2>&1
	chroot "$troot" dtc -q -I dtb -O dts -o "$dir/qemu.dts" "$dir/qemu.dtb"
	grep -q 'compatible = "fsl,esdhc";' "$out/qemu.dts" ||
		{ echo "run-e500.sh: no fsl,esdhc node in QEMU's device tree" >&2; exit 1; }
	node="compatible = $compatible;"
	[ -z "$esdhc_clock" ] || node+="\n\t\t\tclock-frequency = <$esdhc_clock>;"
	sed -i "s/compatible = \"fsl,esdhc\";/${node//\//\\/}/" "$out/qemu.dts"
	chroot "$troot" dtc -q -I dts -O dtb -o "$dir/board.dtb" "$dir/qemu.dts"
	ctl+=(-dtb "$dir/board.dtb")
fi
tracing=()
[ -z "$seed" ] || tracing=(-msg timestamp=on -D "$dir/trace.log"
	-trace enable=sdcard_normal_command
	-trace enable=sdcard_write_block -trace enable=sdcard_read_block)
set +e
timeout --kill-after=10 "$limit" "${qemu[@]}" -M ppce500 -cpu e500v2 -smp "$smp" \
	-m "$mem" -nographic -no-reboot \
	-serial mon:stdio -serial "file:$dir/results.log" -kernel "$dir/vmlinux" \
	-initrd "$dir/initrd.gz" \
	-append "$append" \
	"${ctl[@]}" "${tracing[@]}" \
	-drive if=none,id=card0,file="$dir/card.img",format=raw,cache=unsafe \
	-device sd-card,drive=card0 </dev/null >"$out/console.log" 2>&1
rc=$?
set -e
umount "$mnt"
rmdir "$mnt"
trap - EXIT
rm -f "$out/vmlinux"

# The kernel's lines without their printk time stamps (KUnit's KTAP as
# KUnit printed it: printk's, so on the console), and the guest's lines
# from its results port only (qemu/results-port.sh).
tr -d '\r' <"$out/console.log" | sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' \
	>"$out/kunit.log" || true
results_read "$out"
# The host's checks of the card, a KTAP document of their own.
(
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
ktap_begin host
if e2fsck -fn "$card" >"$out/e2fsck.log" 2>&1; then
	ok e2fsck_clean
else
	ko e2fsck_clean "e2fsck -fn found problems; see $out/e2fsck.log"
fi
if [ -n "$seed" ]; then
	# The seed file on the card, against what e500-init.c seed_chunk()
	# wrote: a fixed 16 KiB body (pattern_byte(7, offset)), each 512-byte
	# sector starting with its number in the file, big-endian
	if debugfs -R "cat /seed" "$card" 2>"$out/seed-verify.log" | perl -e '
		use strict; use warnings;
		my $chunks = $ARGV[0] * 64;
		my $body = join "", map { chr(($_ * 131 + int($_ / 4096) * 7 + 7 * 29) & 255) } 0 .. 16383;
		my ($got, $extra);
		binmode STDIN;
		for my $i (0 .. $chunks - 1) {
			my $n = read(STDIN, $got, 16384);
			if (!$n || $n != 16384) { print "the file ends in chunk $i\n"; exit 1 }
			my $want = $body;
			substr($want, $_ * 512, 4) = pack("N", $i * 32 + $_) for 0 .. 31;
			if ($got ne $want) { print "chunk $i (offset ", $i * 16384, ") differs\n"; exit 1 }
		}
		if (read(STDIN, $extra, 1)) { print "the file is longer than $ARGV[0] MiB\n"; exit 1 }
		print "$chunks chunks of 16 KiB as written\n";
	' "$seed_mib" >>"$out/seed-verify.log"; then
		ok seed_data_verified
	else
		ko seed_data_verified "$(tail -n 1 "$out/seed-verify.log"); see $out/seed-verify.log"
	fi
fi
ktap_end
) >"$out/host.ktap" || true
rm -f "$card" "$out/initrd.gz"
if [ $rc = 124 ] || [ $rc = 137 ]; then
	echo "run-e500.sh: QEMU killed after ${limit} s; see $out/console.log" >&2
	exit 3
fi
results_required run-e500.sh "$out" || exit 1
grep -q '^DONE' "$out/result.txt" || {
	echo "run-e500.sh: the guest did not finish; see $out/console.log" >&2
	tail -n 15 "$out/console.log" >&2
	exit 1
}
exit 0
