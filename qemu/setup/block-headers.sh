#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The block layer's private headers (block/elevator.h, blk-mq.h, ...) for
# an out-of-tree build of the coalesce scheduler against a headers-only
# tree, such as Debian's linux-headers-KVER, which ships include/ but not
# block/. They come from the same kernel's source, Debian's
# linux-source-X.Y package (/usr/src/linux-source-X.Y.tar.xz), and only
# when its version is the headers' own: the scheduler's objects use the
# layout of the block layer's private structures.
#
# Usage: qemu/setup/block-headers.sh KDIR OUT
#   KDIR  the kernel build tree the module is built against
#   OUT   a directory for the headers (made again); pass it to the build
#         as BLOCK_SRC=OUT
# Environment: LINUX_SOURCE_DIR, where linux-source-X.Y.tar.xz is looked
# for (default /usr/src, where Debian's package puts it), as dkms.sh and
# install.sh (through this script) look for it.
set -euo pipefail
die() { echo "block-headers: $*" >&2; exit 1; }
[ $# = 2 ] || die "usage: block-headers.sh KDIR OUT"
kdir=$1 out=$2
want=$(make -s -C "$kdir" kernelversion 2>/dev/null) ||
	die "cannot ask $kdir for its kernel version (make kernelversion)"
series=$(echo "$want" | cut -d. -f1,2)
tarball=${LINUX_SOURCE_DIR:-/usr/src}/linux-source-$series.tar.xz
[ -f "$tarball" ] ||
	die "$kdir has no block/ headers and $tarball is missing: install Debian's linux-source-$series ($want)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xJf "$tarball" -C "$tmp" --wildcards "linux-source-$series/Makefile" \
	"linux-source-$series/block/*.h"
have=$(awk '$1 == "VERSION" { v = $3 } $1 == "PATCHLEVEL" { p = $3 }
	$1 == "SUBLEVEL" { s = $3 } END { print v "." p "." s }' \
	"$tmp/linux-source-$series/Makefile")
[ "$have" = "$want" ] ||
	die "$tarball is Linux $have, the headers in $kdir are $want: install the linux-source-$series that matches them"
rm -rf "$out"
mkdir -p "$out"
cp "$tmp/linux-source-$series/block/"*.h "$out/"
echo "block-headers: Linux $have's block/*.h in $out"
