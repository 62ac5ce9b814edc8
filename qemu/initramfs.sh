#!/usr/bin/env bash
# Build the x86_64 guest's initramfs from Debian binaries and the guest
# kernel's modules: build/initramfs-x86_64.cpio.gz (busybox, e2fsprogs,
# coreutils dd, mmc-utils, /init, scenarios, modules) and, separately,
# build/initramfs-x86_64-fio.cpio.gz (fio and its ~80 MB of libraries),
# which is appended only for scenarios that need fio so that it does not
# eat the guest's RAM (and change its writeback behaviour) otherwise.
# Takes a few seconds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# FLAVOR=debug: the debug guest kernel and modules built against it.
suffix=${FLAVOR:+-$FLAVOR}
kout=$top/build/kernel-x86_64$suffix
root=$top/build/initramfs-x86_64$suffix.root
out=$top/build/initramfs-x86_64$suffix.cpio.gz
fio_out=$top/build/initramfs-x86_64-fio.cpio.gz

"$here/deps.sh" guest

[ -f "$kout/arch/x86/boot/bzImage" ] || {
	echo "initramfs.sh: no guest kernel yet; run qemu/kernel.sh first" >&2
	exit 1
}

# copy_bin SRC [DEST]: a binary plus every library ldd names for it.
copy_bin() {
	local src=$1 dst=${2:-$1} dir=$3 lib
	mkdir -p "$dir$(dirname "$dst")"
	cp -L "$src" "$dir$dst"
	for lib in $(ldd "$src" 2>/dev/null | grep -o '/[^ ]*'); do
		[ -e "$dir$lib" ] && continue
		mkdir -p "$dir$(dirname "$lib")"
		cp -L "$lib" "$dir$lib"
	done
}

pack() { # DIR OUT
	(cd "$1" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --quiet -R 0:0) | gzip -1 >"$2.tmp"
	mv "$2.tmp" "$2"
}

rm -rf "$root"
mkdir -p "$root"/{bin,sbin,etc,lib/modules/mmc-coalesce,scenarios}
cp /bin/busybox "$root/bin/busybox"
copy_bin /sbin/mke2fs /sbin/mke2fs "$root"
copy_bin /sbin/e2fsck /sbin/e2fsck "$root"
copy_bin /usr/bin/mmc /usr/bin/mmc "$root"
copy_bin /bin/dd /bin/dd.coreutils "$root"
cp /etc/mke2fs.conf "$root/etc/"
# The guest-side test program, static so it needs no libraries.
mkdir -p "$root/usr/local/bin"
gcc -static -O2 -Wall -Wextra -Werror -o "$root/usr/local/bin/blkcheck" \
	"$top/tests/guest/blkcheck.c"
install -m 0755 "$here/guest/init" "$root/init"
cp "$here"/guest/scenarios/* "$root/scenarios/"

# Stock modules (sdhci-pci, mmc_block, ...) with modules.dep for modprobe.
make -s -C "$top/build/linux-6.1" O="$kout" ARCH=x86_64 \
	INSTALL_MOD_PATH="$root" INSTALL_MOD_STRIP=1 modules_install >/dev/null
# Project modules and KUnit suites, when they have been built.
for ko in "$top"/build/modules-x86_64$suffix/*.ko; do
	[ -e "$ko" ] && cp "$ko" "$root/lib/modules/mmc-coalesce/"
done
pack "$root" "$out"

if [ ! -f "$fio_out" ] || [ /usr/bin/fio -nt "$fio_out" ]; then
	fio_root=$top/build/initramfs-x86_64-fio.root
	rm -rf "$fio_root"
	copy_bin /usr/bin/fio /usr/bin/fio "$fio_root"
	pack "$fio_root" "$fio_out"
	rm -rf "$fio_root"
fi
echo "initramfs: ${out#$top/} ($(du -h "$out" | cut -f1))"
