#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the guest kernel for ARCH (x86_64 or ppc) from Debian's
# linux-source-6.1 (extracted once by qemu/setup/kernel-source.sh) with
# allnoconfig/tinyconfig plus the fragment in qemu/; x86_64-6.12 is the
# x86_64 guest from Debian 13's linux-source-6.12, less what only the 6.1
# groups use (qemu/x86_64-6.12.config).
# Incremental and ccache-backed: a rebuild with nothing changed takes seconds.
# x86_64-6.12-kcsan is that one with the data race detector
# (qemu/x86_64-6.12-kcsan.config).
# Usage: qemu/setup/kernel.sh [x86_64|x86_64-debug|x86_64-6.12|x86_64-6.12-kcsan|ppc|ppc-stock]
# KERNEL_JOBS=N: make -jN (default: one per CPU; tests/check.sh's second
# lane keeps that, beside the first lane's guests).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
arch=${1:-x86_64}
version=6.1
case $arch in x86_64-6.12*) version=6.12 ;; esac
src=$top/build/linux-$version
out=$top/build/kernel-$arch
jobs=${KERNEL_JOBS:-$(nproc)}
case $jobs in '' | *[!0-9]* | 0) echo "kernel.sh: KERNEL_JOBS wants a number of jobs, not '$jobs'" >&2; exit 2 ;; esac

# the build packages and build/linux-VERSION, extracted once
"$here/kernel-source.sh" "$version"

frags=("$top/qemu/$arch.config")
case $arch in
x86_64 | x86_64-debug | x86_64-6.12 | x86_64-6.12-kcsan)
	kmake=(make -C "$src" O="$out" ARCH=x86_64 CC="ccache gcc")
	base=tinyconfig
	image=arch/x86/boot/bzImage
	target=
	# the debug guest is the normal one plus the checkers
	[ "$arch" != x86_64-debug ] || frags=("$top/qemu/x86_64.config" "$top/qemu/$arch.config")
	# 6.12: the same fragment less what only the 6.1 groups use
	[ "$arch" != x86_64-6.12 ] || frags=("$top/qemu/x86_64.config" "$top/qemu/$arch.config")
	[ "$arch" != x86_64-6.12-kcsan ] ||
		frags=("$top/qemu/x86_64.config" "$top/qemu/x86_64-6.12.config" "$top/qemu/$arch.config")
	;;
ppc | ppc-stock)
	"$here/deps.sh" ppc
	# A tree of its own with our drivers in tree, as a board vendor
	# carries them: the extracted tree hard-linked (no extra space) with
	# the series for stock sdhci-of-esdhc applied
	# (build/linux-6.1-stock-esdhc), then ours on top of that (both
	# written by qemu/setup/kernel-patch.sh from the project's files,
	# the trees made again when a series changed). ppc builds our host
	# driver from it, ppc-stock the stock one with its series (the
	# fragment qemu/ppc-stock.config on top of ppc.config): one tree
	# for both, so that ppc-stock's first build can start from ppc's
	# output (below). The x86_64 tree stays stock. Same paths every
	# time, so ccache and make stay incremental.
	ssrc=$top/build/linux-6.1-stock-esdhc
	psrc=$top/build/linux-6.1-ppc
	"$here/kernel-patch.sh" --base "$src" --stock-esdhc-tree "$ssrc"
	"$here/kernel-patch.sh" -q --no-stock-esdhc --base "$ssrc" \
		--out "$top/build/kernel-patch/6.1-on-stock-esdhc" --tree "$psrc" >/dev/null
	src=$psrc
	frags=("$top/qemu/ppc.config")
	[ "$arch" = ppc ] || frags+=("$top/qemu/$arch.config")
	kmake=(make -C "$src" O="$out" ARCH=powerpc CROSS_COMPILE=powerpc-linux-gnu-
	       CC="ccache powerpc-linux-gnu-gcc")
	base=allnoconfig
	image=vmlinux
	target=vmlinux
	;;
*)
	echo "kernel.sh: unknown arch '$arch' (x86_64, x86_64-debug, x86_64-6.12, x86_64-6.12-kcsan, ppc or ppc-stock)" >&2
	exit 2
	;;
esac

export CCACHE_DIR=${CCACHE_DIR:-/var/cache/mmc-coalesce-ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-4G}
# Hash paths relative to build/ so a fresh clone elsewhere hits the cache.
export CCACHE_BASEDIR=$top/build
# Depend mode: on a miss ccache hashes the include files the compiler's
# own -MMD output names, where its default runs the preprocessor once more
# to hash its output; with an empty cache that second run made a kernel
# subtree take a third longer to build than plain gcc (a tenth longer
# in depend mode). Hits come from the same direct-mode lookup as before.
export CCACHE_DEPEND=1
# Reproducible build stamps keep ccache hits across clean clones.
export KBUILD_BUILD_TIMESTAMP='2024-01-01' KBUILD_BUILD_USER=mmc KBUILD_BUILD_HOST=coalesce

mkdir -p "$out"
# ppc-stock differs from ppc in a few options, but each object's ccache
# key (depend mode) covers the whole configuration, so ccache would serve
# it nothing of ppc's: its first build starts from a copy of ppc's
# output instead, and make rebuilds only what those options reach
# (kbuild records which options each object depends on).
if [ "$arch" = ppc-stock ] && [ ! -e "$out/.config" ] && [ -f "$top/build/kernel-ppc/vmlinux" ]; then
	cp -a "$top/build/kernel-ppc/." "$out/"
fi
# Reconfigure only when the fragment changed: a new .config forces a rebuild.
stamp=$out/.fragment.sha
want=$(cat "${frags[@]}" "$0" | sha256sum | cut -d' ' -f1)
if [ ! -f "$out/.config" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	echo "kernel: configuring $arch ($base + ${frags[*]##*/})"
	"${kmake[@]}" -s $base >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${frags[@]}" >/dev/null
	"${kmake[@]}" -s olddefconfig >/dev/null
	# Every fragment line must survive olddefconfig, or a dependency is
	# missing: each symbol's last line across the fragments (a later
	# fragment overrides an earlier one), "=" or "is not set".
	bad=0
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) grep -qx "$line" "$out/.config" ;;
		*) ! grep -q "^${line#\# }=[ym]" "$out/.config" ;;
		esac || { echo "kernel: $arch: '$line' did not stick" >&2; bad=1; }
	done < <(cat "${frags[@]}" | awk '
		/^CONFIG_[A-Za-z0-9_]*=/ { s = $0; sub(/=.*/, "", s) }
		/^# CONFIG_[A-Za-z0-9_]* is not set$/ { s = $2; $0 = "# " s }
		s != "" { if (!(s in last)) order[++n] = s; last[s] = $0; s = "" }
		END { for (i = 1; i <= n; i++) print last[order[i]] }')
	[ $bad = 0 ] || exit 1
	echo "$want" >"$stamp"
fi

if [ ! -f "$out/$image" ]; then
	echo "kernel: building $arch guest kernel (cold: usually $("$here/duration.sh" "kernel-$arch" 2>/dev/null); much less with a warm ccache)"
fi
log=$out/build.log
start=$(date +%s)
if ! "${kmake[@]}" -j"$jobs" $target >"$log" 2>&1; then
	echo "kernel.sh: build failed; last lines of $log:" >&2
	tail -n 30 "$log" >&2
	exit 1
fi
echo "kernel: $arch ready in $(( $(date +%s) - start )) s: build/kernel-$arch/$image"
