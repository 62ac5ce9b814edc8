# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shell helpers shared by the scripts that build guest cpio archives
# (qemu/initramfs.sh, qemu/blktests-archive.sh). Sourced, not run.

# copy_bin SRC DEST DIR: the binary SRC as DIR/DEST, plus every library
# ldd names for it at its own path under DIR.
copy_bin() {
	local src=$1 dst=$2 dir=$3 lib
	mkdir -p "$dir$(dirname "$dst")"
	cp -L "$src" "$dir$dst"
	for lib in $(ldd "$src" 2>/dev/null | grep -o '/[^ ]*'); do
		[ -e "$dir$lib" ] && continue
		mkdir -p "$dir$(dirname "$lib")"
		cp -L "$lib" "$dir$lib"
	done
}

# pack DIR OUT: DIR as a gzipped newc cpio archive, owned by root, in a
# stable file order (so unchanged contents give the same archive).
pack() {
	(cd "$1" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --quiet -R 0:0) | gzip -1 >"$2.tmp"
	mv "$2.tmp" "$2"
}
