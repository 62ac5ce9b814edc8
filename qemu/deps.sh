#!/usr/bin/env bash
# Install the Debian packages a target needs; silent when all are present.
# Usage: qemu/deps.sh [set ...]   sets: build qemu guest plot ppc
set -euo pipefail

pkgs_build="linux-source-6.1 ccache sparse bc bison flex libelf-dev libssl-dev cpio xz-utils gcc make perl"
pkgs_qemu="qemu-system-x86 python3"
pkgs_guest="busybox-static fio mmc-utils e2fsprogs"
pkgs_plot="gnuplot-nox"
pkgs_ppc="qemu-system-ppc gcc-powerpc-linux-gnu libc6-dev-powerpc-cross"

want=()
for set in "${@:-build qemu guest}"; do
	for s in $set; do
		v="pkgs_$s"
		[ -n "${!v:-}" ] || { echo "deps.sh: unknown package set '$s'" >&2; exit 2; }
		want+=(${!v})
	done
done

missing=()
for p in "${want[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]} (apt-get, usually under a minute)"
if [ "$(id -u)" != 0 ]; then
	echo "deps.sh: need root to install packages: ${missing[*]}" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# A fresh machine has empty package lists; update once when a lookup fails.
if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >/tmp/mmc-coalesce-apt.log 2>&1; then
	apt-get update -qq >>/tmp/mmc-coalesce-apt.log 2>&1
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >>/tmp/mmc-coalesce-apt.log 2>&1 || {
		echo "deps.sh: apt-get install failed; see /tmp/mmc-coalesce-apt.log" >&2
		tail -n 20 /tmp/mmc-coalesce-apt.log >&2
		exit 1
	}
fi
