#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian 12 packages a target needs; silent when all are present.
# Usage: qemu/setup/deps.sh [set ...]   (default: build qemu guest)
#
# Every script installs the sets for the commands it runs itself, so each
# set lists what its callers need beyond a minimal Debian 12 (debootstrap
# --variant=minbase: bash, coreutils, tar, gzip, grep, sed, mawk,
# findutils, diffutils, util-linux, libc-bin's ldd are always there).
# A package may sit in several sets; tests/fresh-machine.sh checks the
# lot from a clean root.
#
#   build    kernel source and kernel/host builds: qemu/setup/kernel-source.sh,
#            qemu/setup/kernel.sh, make unit (gcc with ASan/UBSan), make modules,
#            make lint (sparse, perl for checkpatch.pl, git ls-files),
#            the unit group's python3 (the kernel's kunit.py parser, the
#            documentation checks, with docutils for the .rst), and qemu/setup/kernel-patch.sh (git,
#            patch: the series and the trees with a series applied)
#   guest    qemu/initramfs.sh: busybox, e2fsprogs, dosfstools, exfatprogs,
#            f2fs-tools, mmc-utils, flashbench, fio copied
#            into the initramfs, gcc -static (libc6-dev), cpio, and
#            modules_install, which runs depmod (kmod)
#   qemu     qemu/run.sh (qemu-system-x86_64; seabios and ipxe come as its
#            dependencies) and qemu/qmp.py (python3)
#   plot     qemu/demo.sh: gnuplot
#   ppc      qemu/setup/kernel.sh ppc and qemu/run-e500.sh: cross gcc and libc
#            for the static guest programs, cpio, and the host's
#            mke2fs/e2fsck for the card image (QEMU 10 comes from the
#            Debian 13 root: Debian 12's QEMU 7.2 has no eSDHC)
#   fuzz     make -C tests/window fuzz: clang and its libFuzzer runtime
#            (libclang-rt-14-dev is only a Recommends of clang)
#   blktests qemu/blktests-archive.sh (tools blktests' check and block/00[3-5,12] run)
#   cardtime qemu/cardtime (the nbdkit filter: nbdkit and its plugin
#            headers) and its test.sh (qemu-io from qemu-utils)
#   trixie   qemu/setup/trixie-root.sh: debootstrap (the Debian 13 root)
#   dkms     qemu/setup/dkms.sh (make dkms) and its test in the install
#            group: Debian's dkms, the current linux-headers-amd64, and
#            linux-source-6.1 for the block layer's private headers
#            (qemu/setup/block-headers.sh)
#   lint     tests/lint.sh (make lint): shellcheck (checkpatch's perl,
#            sparse and git come with build)
set -euo pipefail

declare -A pkgs=(
	[build]="linux-source-6.1 xz-utils make gcc libc6-dev bc bison flex perl
	libelf-dev libssl-dev cpio ccache sparse git python3 python3-docutils patch"
	[guest]="busybox-static e2fsprogs dosfstools exfatprogs f2fs-tools mmc-utils flashbench fio kmod cpio gcc libc6-dev make"
	[qemu]="qemu-system-x86 python3"
	[plot]="gnuplot-nox"
	[ppc]="gcc-powerpc-linux-gnu libc6-dev-powerpc-cross cpio
	e2fsprogs"
	[fuzz]="clang libclang-rt-14-dev"
	[cardtime]="nbdkit nbdkit-plugin-dev qemu-utils gcc libc6-dev make"
	[trixie]="debootstrap"
	[blktests]="bash coreutils diffutils findutils grep sed gawk util-linux bsdextrautils xfsprogs fio"
	[dkms]="dkms linux-headers-amd64 linux-source-6.1 xz-utils kmod make gcc"
	[lint]="shellcheck"
)

want=()
for set in "${@:-build qemu guest}"; do
	for s in $set; do
		[ "${pkgs[$s]+set}" = set ] || {
			echo "deps.sh: unknown package set '$s' (build guest qemu plot ppc fuzz blktests cardtime trixie dkms lint)" >&2
			exit 2
		}
		for p in ${pkgs[$s]}; do
			want+=("$p")
		done
	done
done
[ ${#want[@]} -gt 0 ] || exit 0
mapfile -t want < <(printf '%s\n' "${want[@]}" | sort -u)

# One dpkg-query for all of them; a package it does not know is missing.
missing_now() {
	local have p
	mapfile -t have < <(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' "${want[@]}" 2>/dev/null |
		awk '$1 ~ /^[ih]i$/ { print $2 }')
	missing=()
	for p in "${want[@]}"; do
		case " ${have[*]} " in *" $p "*) ;; *) missing+=("$p") ;; esac
	done
}
missing_now
[ ${#missing[@]} -eq 0 ] && exit 0
# make check installs while kernels build beside it (tests/check.sh): one
# deps.sh installs at a time, and the next looks again once it has the
# lock; apt itself waits for any other user of the dpkg lock.
exec 8>/tmp/mmc-coalesce-deps.lock
flock 8
missing_now
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]} (apt-get; a minute, a few on a fresh machine)"
if [ "$(id -u)" != 0 ]; then
	echo "deps.sh: need root to install packages: ${missing[*]}" >&2
	exit 1
fi
log=/tmp/mmc-coalesce-apt.log
export DEBIAN_FRONTEND=noninteractive
# A fresh machine has empty (or stale) package lists: update once when the
# install fails, then try again.
apt=(apt-get -o DPkg::Lock::Timeout=600)
if ! "${apt[@]}" install -y -qq --no-install-recommends "${missing[@]}" >"$log" 2>&1; then
	"${apt[@]}" update -qq >>"$log" 2>&1 || true
	"${apt[@]}" install -y -qq --no-install-recommends "${missing[@]}" >>"$log" 2>&1 || {
		echo "deps.sh: apt-get install failed; see $log" >&2
		tail -n 20 "$log" >&2
		exit 1
	}
fi
