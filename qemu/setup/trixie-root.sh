#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A Debian 13 (trixie) root under build/trixie-root, for what Debian 12
# lacks: QEMU 10 (its ppce500 machine has a Freescale eSDHC model, QEMU
# 7.2's has none) and linux-source-6.12. Made once (debootstrap
# --variant=minbase; the trixie-root row of Documentation/benchmarks.md)
# and kept; the packages named on the
# command line are installed inside it (apt-get, quiet when present).
# Programs in it run with: chroot build/trixie-root CMD (see trixie_run).
# Usage: qemu/setup/trixie-root.sh [PACKAGE...]   e.g. qemu-system-ppc
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
root=$top/build/trixie-root
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# One at a time (make check's two lanes both come here): a second run
# waits, then finds the root made and its packages in.
mkdir -p "$top/build"
exec 7>"$top/build/.trixie-root.lock"
flock 7

"$top/qemu/setup/deps.sh" trixie
if [ ! -e "$root/.made" ]; then
	echo "trixie-root: making a Debian 13 root in ${root#"$top"/} (usually $("$top/qemu/setup/duration.sh" trixie-root) with QEMU 10)" >&2
	rm -rf "$root"
	mkdir -p "$root"
	debootstrap --variant=minbase trixie "$root" "$mirror" >"$top/build/trixie-root.log" 2>&1 || {
		echo "trixie-root: debootstrap failed; see build/trixie-root.log" >&2
		exit 1
	}
	touch "$root/.made"
fi
[ $# -gt 0 ] || exit 0
missing=()
for p in "$@"; do
	# shellcheck disable=SC2016 # ${Status} is dpkg-query's format, not the shell's
	chroot "$root" dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 0
echo "trixie-root: installing ${missing[*]} in the Debian 13 root (a few minutes)" >&2
# /proc for the maintainer scripts, unmounted again whatever happens
mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
trap 'umount "$root/proc" 2>/dev/null || true' EXIT
chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get -qq update >/dev/null
chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get -qq install -y \
	--no-install-recommends "${missing[@]}" >>"$top/build/trixie-root.log" 2>&1 || {
	echo "trixie-root: apt-get install ${missing[*]} failed; see build/trixie-root.log" >&2
	exit 1
}
