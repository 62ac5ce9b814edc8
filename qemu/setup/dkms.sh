#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make dkms: register the coalesce scheduler with DKMS and build and
# install it for a kernel, the way Debian installs out-of-tree modules:
# the scheduler's sources (drivers/mmc/coalesce/, include/, the block
# headers script) and qemu/setup/dkms.conf are copied to
# SOURCE/mmc-coalesce-VERSION/, then `dkms add`, `dkms build -k KVER`,
# `dkms install -k KVER`. DKMS then rebuilds it for every kernel of the
# supported series (dkms.conf's BUILD_EXCLUSIVE_KERNEL) whose headers are
# installed later. The host driver is not shipped: e500 kernels build it
# in (Documentation/e500-build.md).
#
# Before anything is staged it refuses, in one line, a kernel outside the
# supported series and one whose linux-source package is missing (Debian's
# headers have no block/; the build takes the block layer's private
# headers from /usr/src/linux-source-X.Y.tar.xz).
#
# Environment:
#   KVER         the kernel (default: the running one); its headers must
#                be installed (Debian: linux-headers-KVER)
#   DKMS_ROOT    a scratch root for a staged install (tests): the source
#                goes to DKMS_ROOT/usr/src, DKMS's tree to
#                DKMS_ROOT/var/lib/dkms and the module to
#                DKMS_ROOT/lib/modules (dkms --sourcetree, --dkmstree,
#                --installtree); default: the system's
#   LINUX_SOURCE_DIR  where linux-source-X.Y.tar.xz is looked for
#                (default /usr/src, where Debian's package puts it)
# Usage: make dkms [KVER=...] [DKMS_ROOT=...]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
conf=$top/qemu/setup/dkms.conf
kver=${KVER:-$(uname -r)}
root=${DKMS_ROOT:-}

die() { echo "dkms: $*" >&2; exit 1; }

command -v dkms >/dev/null || die "no dkms here; install Debian's dkms package (apt-get install dkms)"
[ -f "/lib/modules/$kver/build/Makefile" ] ||
	die "no headers for $kver (/lib/modules/$kver/build); install linux-headers-$kver"
name=$(sed -n 's/^PACKAGE_NAME="\(.*\)"$/\1/p' "$conf")
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$conf")
{ [ -n "$name" ] && [ -n "$version" ]; } || die "no PACKAGE_NAME or PACKAGE_VERSION in $conf"
if [ -z "$root" ] && [ "$(id -u)" != 0 ]; then
	die "registering with the system's DKMS needs root (or DKMS_ROOT=DIR)"
fi
exclusive=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' "$conf")
[[ $kver =~ $exclusive ]] ||
	die "$kver is not a supported kernel (Linux 6.1 and 6.12: $exclusive in dkms.conf)"
series=$(echo "$kver" | cut -d. -f1,2)
[ -f "${LINUX_SOURCE_DIR:-/usr/src}/linux-source-$series.tar.xz" ] ||
	die "no ${LINUX_SOURCE_DIR:-/usr/src}/linux-source-$series.tar.xz: install Debian's linux-source-$series (the block layer's headers for $kver come from it)"

trees=()
src=/usr/src
if [ -n "$root" ]; then
	src=$root/usr/src
	mkdir -p "$src" "$root/var/lib/dkms" "$root/lib/modules/$kver"
	trees=(--sourcetree "$src" --dkmstree "$root/var/lib/dkms"
		--installtree "$root/lib/modules")
fi
dest=$src/$name-$version
# a previous registration of this version goes first, whatever its state
if dkms status "${trees[@]}" -m "$name" -v "$version" 2>/dev/null | grep -q .; then
	dkms remove "${trees[@]}" -m "$name" -v "$version" --all >/dev/null
fi
rm -rf "$dest"
mkdir -p "$dest"
tar -C "$top" -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
	--exclude='*.mod.c' --exclude='.*.cmd' --exclude='modules.order' \
	drivers/mmc/coalesce include qemu/setup/block-headers.sh | tar -C "$dest" -xf -
cp "$conf" "$dest/dkms.conf"
echo "dkms: $name $version staged in $dest"
dkms add "${trees[@]}" -m "$name" -v "$version"
dkms build "${trees[@]}" -m "$name" -v "$version" -k "$kver"
dkms install "${trees[@]}" -m "$name" -v "$version" -k "$kver"
