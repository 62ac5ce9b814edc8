#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make install: build the two drivers against a kernel, install them
# (kbuild's modules_install, into /lib/modules/RELEASE/updates/), run
# depmod, and install the udev rule that selects the coalesce scheduler
# for SD/MMC cards. Then `modprobe coalesce-iosched` or a card's arrival
# makes it active; check with `cat /sys/block/mmcblk0/queue/scheduler`
# (Documentation/admin-guide.md).
# make modules (--build-only) stops after the build; make uninstall
# (--uninstall) removes the modules and the rule of that kernel and runs
# depmod again. None of them installs packages or builds a kernel.
#
# Environment:
#   KDIR             kernel build tree (default: the running kernel's,
#                    /lib/modules/$(uname -r)/build: Debian's
#                    linux-headers-$(uname -r))
#   INSTALL_MOD_PATH staging root for the modules (cross builds, images)
#   DESTDIR          staging root for the udev rule (default: INSTALL_MOD_PATH)
#   ARCH, CROSS_COMPILE  passed to kbuild as usual
# Usage: make install|modules|uninstall [KDIR=...] [INSTALL_MOD_PATH=...] [DESTDIR=...]
set -euo pipefail
mode=install
case ${1:-} in
--build-only) mode=build ;;
--uninstall) mode=uninstall ;;
'') ;;
*) echo "install: unknown option '$1' (--build-only, --uninstall)" >&2; exit 2 ;;
esac
top=$(cd "$(dirname "$0")/../.." && pwd)
kdir=${KDIR:-/lib/modules/$(uname -r)/build}
stage=${INSTALL_MOD_PATH:-}
dest=${DESTDIR:-$stage}
rule=60-coalesce-iosched.rules

die() { echo "install: $*" >&2; exit 1; }

if [ ! -f "$kdir/Makefile" ]; then
	if [ -z "${KDIR:-}" ]; then
		die "no build tree for the running kernel at $kdir;" \
			"install linux-headers-$(uname -r) (Debian) or give KDIR=/path/to/kernel/build"
	fi
	die "KDIR=$kdir is not a kernel build tree (no Makefile)"
fi
[ -f "$kdir/include/config/kernel.release" ] ||
	die "$kdir is not configured and built (no include/config/kernel.release)"
# the release the modules carry (vermagic) and install under: UTS_RELEASE
# (Debian's headers say 6.1.0-N-amd64 there and the upstream version in
# kernel.release)
release=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$kdir/include/generated/utsrelease.h" 2>/dev/null)
[ -n "$release" ] || release=$(cat "$kdir/include/config/kernel.release")
if [ "$mode" != build ] && [ -z "$stage" ] && [ "$(id -u)" != 0 ]; then
	die "changing /lib/modules/$release needs root (or INSTALL_MOD_PATH=DIR)"
fi
rules_dir=$dest/etc/udev/rules.d

if [ "$mode" = uninstall ]; then
	# what modules_install put there: the objects kbuild builds from
	# drivers/ (built or not, the names are the Makefiles' obj-m)
	mods=$stage/lib/modules/$release/updates/drivers/mmc
	for ko in coalesce/coalesce-iosched.ko coalesce/coalesce-iosched-test.ko \
		host/sdhci-esdhc-e500.ko host/sdhci_esdhc_e500_test.ko; do
		[ ! -e "$mods/$ko" ] || { rm -f "$mods/$ko"; echo "uninstall: removed $mods/$ko"; }
	done
	rmdir -p --ignore-fail-on-non-empty "$mods/coalesce" "$mods/host" 2>/dev/null || true
	rm -f "$rules_dir/$rule"
	if command -v depmod >/dev/null && [ -d "$stage/lib/modules/$release" ]; then
		depmod ${stage:+-b "$stage"} "$release"
	fi
	echo "uninstall: done (a loaded module stays until 'modprobe -r coalesce-iosched')"
	exit 0
fi

# A headers-only tree (Debian's linux-headers) lacks the block layer's
# private headers: take them from the same kernel's source package.
blk=()
if [ ! -f "$kdir/block/elevator.h" ] && [ ! -f "$kdir/source/block/elevator.h" ]; then
	"$top/qemu/setup/block-headers.sh" "$kdir" "$top/build/block-src-$release"
	blk=(BLOCK_SRC="$top/build/block-src-$release")
fi
echo "install: building the drivers against $kdir (Linux $release)"
make -s -C "$kdir" M="$top" "${blk[@]}" modules
[ "$mode" = install ] || { echo "install: modules built in drivers/mmc/ (make install installs them)"; exit 0; }
echo "install: modules_install into ${stage:-}/lib/modules/$release/updates"
make -s -C "$kdir" M="$top" INSTALL_MOD_DIR=updates \
	${stage:+INSTALL_MOD_PATH="$stage"} modules_install
# kbuild's modules_install runs depmod when the build tree has a
# System.map; without one (a headers-only tree), run it here.
if [ -f "$kdir/System.map" ]; then
	:
elif command -v depmod >/dev/null; then
	depmod ${stage:+-b "$stage"} "$release"
else
	echo "install: no depmod here; run 'depmod $release' on the target" >&2
fi

mkdir -p "$rules_dir"
install -m 0644 "$top/Documentation/$rule" "$rules_dir/$rule"
echo "install: udev rule in $rules_dir/$rule"
if [ -z "$dest" ] && command -v udevadm >/dev/null && [ -d /run/udev ]; then
	udevadm control --reload || true
	echo "install: udev rules reloaded; a card inserted from now on gets the scheduler"
	echo "install: for a card already present: udevadm trigger --subsystem-match=block --action=change"
fi
echo "install: done. Check: cat /sys/block/mmcblk0/queue/scheduler  (shows [coalesce])"
