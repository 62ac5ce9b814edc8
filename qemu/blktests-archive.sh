#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build build/initramfs-x86_64-blktests.cpio.gz: what blktests needs inside
# the x86_64 guest, appended by qemu/run.sh (after the fio archive) for the
# `blktests` scenario only, so that other scenarios keep their RAM.
#
#   /opt/blktests/        the blktests tree, copied from $BLKTESTS_DIR
#                         (check, common/, tests/; src/ is not built: the
#                         block tests run here need none of its programs)
#   /opt/blktests/bin/    Debian's bash, GNU coreutils, findutils, diffutils,
#                         grep, sed, gawk, util-linux, bsdextrautils and
#                         xfs_io, put first on PATH by the scenario only
#                         (the rest of the guest keeps busybox)
#   /bin/bash             for the scripts' #!/bin/bash
#   /lib*, /usr/lib*      their shared libraries, found with ldd
#
# Usage: BLKTESTS_DIR=/path/to/blktests qemu/blktests-archive.sh
# Takes a few seconds; needs root only to install missing packages.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
out=$top/build/initramfs-x86_64-blktests.cpio.gz
root=$top/build/initramfs-x86_64-blktests.root

if [ -z "${BLKTESTS_DIR:-}" ] || [ ! -x "$BLKTESTS_DIR/check" ]; then
	echo "blktests-archive.sh: BLKTESTS_DIR must name a blktests tree (with ./check)" >&2
	exit 2
fi

# Debian packages of the guest-side tools (fio itself comes from the fio
# archive that qemu/initramfs.sh builds): deps.sh's blktests set.
"$here/setup/deps.sh" blktests

# Commands the `check` script, common/rc, common/fio and the block tests
# run (block/003 004 005 012), plus what the guest scenario uses.
cmds=(
	bash
	# coreutils
	basename cat cp cut date dd dirname env head id ln ls mkdir mktemp mv
	nproc readlink realpath rm rmdir sleep sort stat tail tee timeout
	touch tr true uname wc
	diff find xargs grep sed gawk
	# util-linux
	blockdev blkdiscard lsblk findmnt getopt dmesg
	# bsdextrautils
	hexdump column
	# xfsprogs
	xfs_io
)

# shellcheck source=qemu/archive-lib.sh
. "$here/archive-lib.sh"

rm -rf "$root"
mkdir -p "$root/opt/blktests/bin" "$root/bin"
for c in "${cmds[@]}"; do
	p=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin type -P "$c") || {
		echo "blktests-archive.sh: $c not found on the host" >&2
		exit 1
	}
	copy_bin "$p" "/opt/blktests/bin/$c" "$root"
done
ln -s gawk "$root/opt/blktests/bin/awk"
cp -L "$(type -P bash)" "$root/bin/bash"

# The blktests tree (shared/ is read-only: make the copy writable so that
# it can be removed).  results/ and config are made in the guest.
tree=$root/opt/blktests
cp -r "$BLKTESTS_DIR/check" "$BLKTESTS_DIR/common" "$BLKTESTS_DIR/tests" "$tree/"
mkdir -p "$tree/src"
[ -f "$BLKTESTS_DIR/UPSTREAM-COMMIT" ] && cp "$BLKTESTS_DIR/UPSTREAM-COMMIT" "$tree/"
chmod -R u+w "$tree"

pack "$root" "$out"
rm -rf "$root"
echo "blktests archive: ${out#"$top"/} ($(du -h "$out" | cut -f1))"
