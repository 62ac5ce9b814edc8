#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Extract Debian's kernel source into build/linux-VERSION, once, after
# installing the build set of packages (qemu/setup/deps.sh build: the
# source package, compilers). Silent when both are already there.
#   6.1   linux-source-6.1 of Debian 12 (the host's own release): the default
#   6.12  linux-source-6.12 of Debian 13, installed in the Debian 13 root
#         under build/ (qemu/setup/trixie-root.sh); built with this
#         machine's gcc
# Used by qemu/setup/kernel.sh, `make unit` and tests/window (which builds
# the kernel's lib/rbtree.c on the host).
# Usage: qemu/setup/kernel-source.sh [6.1|6.12]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
version=${1:-6.1}
src=$top/build/linux-$version

"$here/deps.sh" build
case $version in
6.1) tarball=/usr/src/linux-source-6.1.tar.xz ;;
6.12)
	[ -f "$src/Makefile" ] && exit 0
	"$here/trixie-root.sh" linux-source-6.12
	tarball=$top/build/trixie-root/usr/src/linux-source-6.12.tar.xz
	;;
*)
	echo "kernel-source.sh: unknown version '$version' (6.1 or 6.12)" >&2
	exit 2
	;;
esac

[ -f "$src/Makefile" ] && exit 0

mkdir -p "$top/build"
# Two callers at once (make -j) extract once: the second waits here.
exec 9>"$top/build/.linux-$version.lock"
flock 9
[ -f "$src/Makefile" ] && exit 0
if [ -e "$src" ]; then
	echo "kernel-source.sh: build/linux-$version exists but has no Makefile (an interrupted copy?);" \
		"move it away and run again" >&2
	exit 1
fi
[ -f "$tarball" ] || {
	echo "kernel-source.sh: no $tarball (is linux-source-$version installed?)" >&2
	exit 1
}
echo "kernel: extracting $tarball into build/ (usually $("$here/duration.sh" kernel-source))"
tmp=$(mktemp -d "$src.tmp.XXXXXX")
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
tar -C "$tmp" --strip-components=1 -xf "$tarball"
mv -T "$tmp" "$src"
trap - EXIT
