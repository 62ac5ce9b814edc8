#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
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
# FLAVOR=debug: the debug guest kernel and modules built against it;
# FLAVOR=6.12: the 6.12 guest kernel (build/linux-6.12) and its modules;
# FLAVOR=6.12-kcsan: the same with the data race detector.
suffix=${FLAVOR:+-$FLAVOR}
ksrc=$top/build/linux-6.1
case ${FLAVOR:-} in 6.12*) ksrc=$top/build/linux-6.12 ;; esac
kout=$top/build/kernel-x86_64$suffix
root=$top/build/initramfs-x86_64$suffix.root
out=$top/build/initramfs-x86_64$suffix.cpio.gz
fio_out=$top/build/initramfs-x86_64-fio.cpio.gz

"$here/setup/deps.sh" guest

[ -f "$kout/arch/x86/boot/bzImage" ] || {
	echo "initramfs.sh: no guest kernel yet; run qemu/setup/kernel.sh first" >&2
	exit 1
}

# shellcheck source=qemu/archive-lib.sh
. "$here/archive-lib.sh"

rm -rf "$root"
mkdir -p "$root"/{bin,sbin,etc,lib/modules/mmc-coalesce,scenarios}
cp /bin/busybox "$root/bin/busybox"
copy_bin /sbin/mke2fs /sbin/mke2fs "$root"
copy_bin /sbin/e2fsck /sbin/e2fsck "$root"
copy_bin /usr/bin/mmc /usr/bin/mmc "$root"
# FAT32 and exFAT, as SD cards ship (dosfstools, exfatprogs), and f2fs
# (f2fs-tools)
for t in mkfs.fat fsck.fat mkfs.exfat fsck.exfat mkfs.f2fs fsck.f2fs; do
	copy_bin "/sbin/$t" "/sbin/$t" "$root"
done
copy_bin /bin/dd /bin/dd.coreutils "$root"
# flashbench's open-AU test against the timed card
copy_bin /usr/bin/flashbench /usr/bin/flashbench "$root"
cp /etc/mke2fs.conf "$root/etc/"
# The guest-side test program, static so it needs no libraries.
mkdir -p "$root/usr/local/bin"
for tool in blkcheck absorbcheck; do
	gcc -static -O2 -Wall -Wextra -Werror -o "$root/usr/local/bin/$tool" \
		"$top/qemu/guest/$tool.c"
done
install -m 0755 "$here/guest/init" "$root/init"
# the KTAP printer /init and the scenarios report with
cp "$top/tests/lib/ktap.sh" "$root/lib/ktap.sh"
cp "$here"/guest/scenarios/* "$root/scenarios/"

# Stock modules (sdhci-pci, mmc_block, ...) with modules.dep for modprobe.
make -s -C "$ksrc" O="$kout" ARCH=x86_64 \
	INSTALL_MOD_PATH="$root" INSTALL_MOD_STRIP=1 modules_install >/dev/null
# Project modules, KUnit suites and guest test modules, when they have
# been built: the ones today's Makefiles and Kbuild files build (obj-...
# += NAME.o), so that a module left in build/modules-x86_64 by an older
# tree (mmc_coalesce.ko) is not shipped. The guest test modules
# (qemu/guest/*/Kbuild) are built for the 6.12 guest, syncstarve for the
# 6.1 one too (make guest).
# shellcheck disable=SC2020 # tr maps both space and tab to a newline
for name in $(sed -n 's/^obj-[^+]*+=[[:space:]]*//p' "$top"/drivers/mmc/*/Makefile \
	"$top"/qemu/guest/*/Kbuild |
	tr ' \t' '\n\n' | sed -n 's/\.o$//p' | sort -u); do
	ko=$top/build/modules-x86_64$suffix/$name.ko
	[ -e "$ko" ] && cp "$ko" "$root/lib/modules/mmc-coalesce/"
done

# The scheduler's tunables, from the one table in the driver
# (COALESCE_TUNABLE(name, default, min, max, "help"), an X-macro), as
# "name default min max" lines in /etc/coalesce-tunables: the guest's
# bad-value tests take their names and ranges from it.
tunables_h=$top/drivers/mmc/coalesce/coalesce-tunables.h
if [ -f "$tunables_h" ]; then
	# Entries are the lines with COALESCE_TUNABLE(identifier, ...) that
	# are neither the macro's own #define/#undef nor a comment; an entry
	# may end in "\" (a list macro) or carry its help on the next line.
	entry_lines() {
		grep -E 'COALESCE_TUNABLE\([[:space:]]*[a-z_][a-z0-9_]*[[:space:]]*,' "$tunables_h" |
			grep -Ev '^[[:space:]]*(#|/?\*|//)'
	}
	entry_lines |
		sed -n 's/.*COALESCE_TUNABLE([[:space:]]*\([a-z_][a-z0-9_]*\)[[:space:]]*,[[:space:]]*\([0-9][0-9]*\)[[:space:]]*,[[:space:]]*\([0-9][0-9]*\)[[:space:]]*,[[:space:]]*\([0-9][0-9]*\)[[:space:]]*,.*/\1 \2 \3 \4/p' \
		>"$root/etc/coalesce-tunables"
	entries=$(entry_lines | wc -l)
	parsed=$(wc -l <"$root/etc/coalesce-tunables")
	if [ "$parsed" = 0 ] || [ "$parsed" != "$entries" ]; then
		echo "initramfs.sh: parsed $parsed of $entries COALESCE_TUNABLE() entries in ${tunables_h#"$top"/}" \
			"(each must read COALESCE_TUNABLE(name, default, min, max, \"help\") with decimal numbers)" >&2
		exit 1
	fi
else
	echo "initramfs: no ${tunables_h#"$top"/} yet; the guest's tunable tests will fail" >&2
fi
pack "$root" "$out"

if [ ! -f "$fio_out" ] || [ /usr/bin/fio -nt "$fio_out" ]; then
	fio_root=$top/build/initramfs-x86_64-fio.root
	rm -rf "$fio_root"
	copy_bin /usr/bin/fio /usr/bin/fio "$fio_root"
	pack "$fio_root" "$fio_out"
	rm -rf "$fio_root"
fi
echo "initramfs: ${out#"$top"/} ($(du -h "$out" | cut -f1))"
