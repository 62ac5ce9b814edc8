#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Extract Debian's linux-source-6.1 into build/linux-6.1, once, after
# installing the build set of packages (qemu/setup/deps.sh build: the source
# package, compilers). Silent when both are already there. Used by
# qemu/setup/kernel.sh, `make unit` and tests/window (which builds the kernel's
# lib/rbtree.c on the host).
# Usage: qemu/setup/kernel-source.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
src=$top/build/linux-6.1
tarball=/usr/src/linux-source-6.1.tar.xz

"$here/deps.sh" build

[ -f "$src/Makefile" ] && exit 0

mkdir -p "$top/build"
# Two callers at once (make -j) extract once: the second waits here.
exec 9>"$top/build/.linux-6.1.lock"
flock 9
[ -f "$src/Makefile" ] && exit 0
if [ -e "$src" ]; then
	echo "kernel-source.sh: build/linux-6.1 exists but has no Makefile (an interrupted copy?);" \
		"move it away and run again" >&2
	exit 1
fi
[ -f "$tarball" ] || {
	echo "kernel-source.sh: no $tarball (is linux-source-6.1 installed?)" >&2
	exit 1
}
echo "kernel: extracting $tarball into build/ (about a minute)"
tmp=$(mktemp -d "$src.tmp.XXXXXX")
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
tar -C "$tmp" --strip-components=1 -xf "$tarball"
mv -T "$tmp" "$src"
trap - EXIT
