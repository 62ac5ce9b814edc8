#!/usr/bin/env bash
# Boot the e500 (32-bit big-endian PowerPC) kernel with our host and block
# drivers built in, on QEMU's ppce500 machine with an SD card behind
# sdhci-pci, and run the e500 boot test (tests/guest/e500-init.c).
#
# Usage: qemu/run-e500.sh --out DIR [--timeout SECONDS] [--esdhc [--esdhc-clock HZ]]
# --esdhc: the card on the machine's own Freescale eSDHC (device tree
# node sdhc@2e000, "fsl,esdhc", big-endian registers) instead of
# sdhci-pci: QEMU 10 from the Debian 13 root (qemu/trixie-root.sh), since
# Debian 12's QEMU 7.2 has no eSDHC model.
# --esdhc-clock HZ: the same, with "clock-frequency = <HZ>" added to the
# eSDHC node of QEMU's device tree (dumped, edited with dtc from the
# Debian 13 root, passed back with -dtb), as U-Boot fills it in on boards.
# DIR receives console.log and result.txt (the guest's "MMCC" lines and
# one "KUNIT pass|fail CASE" line per built-in KUnit case); the card
# image is checked with e2fsck on the host afterwards.
# Exit 0 when the guest finished, 3 when QEMU had to be killed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
out= limit=900 esdhc=0 esdhc_clock=
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift ;;
	--esdhc) esdhc=1 ;;
	--esdhc-clock) esdhc=1 esdhc_clock=$2; shift ;;
	--timeout) limit=$2; shift ;;
	*) echo "run-e500.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$out" ] || { echo "run-e500.sh: --out is required" >&2; exit 2; }
kernel=$top/build/kernel-ppc/vmlinux
[ -f "$kernel" ] || { echo "run-e500.sh: no $kernel (run qemu/kernel.sh ppc)" >&2; exit 2; }
"$here/deps.sh" ppc qemu
if [ $esdhc = 1 ]; then
	"$here/trixie-root.sh" qemu-system-ppc ${esdhc_clock:+device-tree-compiler}
	troot=$top/build/trixie-root
fi

mkdir -p "$out"
root=$out/initramfs.root
rm -rf "$root" "$out/console.log" "$out/result.txt"
mkdir -p "$root/bin"
powerpc-linux-gnu-gcc -static -O2 -Wall -Wextra -Werror -o "$root/init" \
	"$top/tests/guest/e500-init.c"
powerpc-linux-gnu-gcc -static -O2 -Wall -Wextra -Werror -o "$root/bin/blkcheck" \
	"$top/tests/guest/blkcheck.c"
(cd "$root" && find . | cpio -o -H newc --quiet -R 0:0) | gzip -1 >"$out/initrd.gz"
rm -rf "$root"

# A 4 GiB SDHC card with a 1 GiB ext2 file system made here on the host;
# blkcheck's scratch area lies past it (BLKCHECK_BASE in e500-init.c).
card=$out/card.img
rm -f "$card"
truncate -s 4G "$card"
mke2fs -q -F -t ext2 -E nodiscard "$card" 1G

qemu=(qemu-system-ppc) dir=$out ctl=(-device sdhci-pci)
if [ $esdhc = 1 ]; then
	# QEMU 10 runs in the Debian 13 root and sees the run's directory
	# there; no NIC (the default one wants a ROM the root lacks)
	mnt=$troot/run-e500
	mkdir -p "$mnt"
	mountpoint -q "$mnt" && umount "$mnt"
	mount --bind "$out" "$mnt"
	trap 'umount "$mnt" 2>/dev/null || true' EXIT
	cp "$kernel" "$out/vmlinux"
	qemu=(chroot "$troot" qemu-system-ppc) dir=/run-e500 ctl=(-nic none)
	if [ -n "$esdhc_clock" ]; then
		case $esdhc_clock in *[!0-9]* | '') echo "run-e500.sh: --esdhc-clock wants Hz" >&2; exit 2 ;; esac
		# the same kernel, initrd and command line: QEMU puts their
		# places into /chosen, and -dtb takes the tree as it is
		"${qemu[@]}" -M ppce500,dumpdtb=$dir/qemu.dtb -cpu e500v2 -m 256 \
			-nographic -nic none -kernel $dir/vmlinux \
			-initrd "$dir/initrd.gz" \
			-append "console=ttyS0 panic=-1 loglevel=7" >/dev/null 2>&1
		chroot "$troot" dtc -q -I dtb -O dts -o $dir/qemu.dts $dir/qemu.dtb
		sed -i "s/compatible = \"fsl,esdhc\";/&\n\t\t\tclock-frequency = <$esdhc_clock>;/" "$out/qemu.dts"
		grep -q "clock-frequency = <$esdhc_clock>" "$out/qemu.dts" ||
			{ echo "run-e500.sh: no fsl,esdhc node in QEMU's device tree" >&2; exit 1; }
		chroot "$troot" dtc -q -I dts -O dtb -o $dir/board.dtb $dir/qemu.dts
		ctl+=(-dtb $dir/board.dtb)
	fi
fi
set +e
timeout --kill-after=10 "$limit" "${qemu[@]}" -M ppce500 -cpu e500v2 \
	-m 256 -nographic -no-reboot -kernel "$([ $esdhc = 1 ] && echo $dir/vmlinux || echo "$kernel")" \
	-initrd "$dir/initrd.gz" \
	-append "console=ttyS0 panic=-1 loglevel=7" \
	"${ctl[@]}" \
	-drive if=none,id=card0,file="$dir/card.img",format=raw,cache=unsafe \
	-device sd-card,drive=card0 </dev/null >"$out/console.log" 2>&1
rc=$?
set -e
if [ $esdhc = 1 ]; then
	umount "$mnt"
	trap - EXIT
	rm -f "$out/vmlinux"
fi

# Guest lines, and each KUnit case line ("    ok N name", printk time
# stamp removed) as "KUNIT pass|fail name".
tr -d '\r' <"$out/console.log" | sed -E 's/^\[ *[0-9]+\.[0-9]+\] //' |
	sed -n -E -e 's/^MMCC //p' \
		-e 's/^    ok [0-9]+ ([^ #]+).*/KUNIT pass \1/p' \
		-e 's/^    not ok [0-9]+ ([^ #]+).*/KUNIT fail \1/p' \
	>"$out/result.txt" || true
if e2fsck -fn "$card" >"$out/e2fsck.log" 2>&1; then
	echo "RESULT pass host_e2fsck" >>"$out/result.txt"
else
	echo "RESULT fail host_e2fsck see e2fsck.log" >>"$out/result.txt"
fi
rm -f "$card" "$out/initrd.gz"
if [ $rc = 124 ] || [ $rc = 137 ]; then
	echo "run-e500.sh: QEMU killed after ${limit} s; see $out/console.log" >&2
	exit 3
fi
grep -q '^DONE' "$out/result.txt" || {
	echo "run-e500.sh: the guest did not finish; see $out/console.log" >&2
	tail -n 15 "$out/console.log" >&2
	exit 1
}
exit 0
