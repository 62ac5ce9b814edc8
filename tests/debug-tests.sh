#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The QEMU checks of our stack on the debug guest kernel (KASAN, lockdep,
# atomic-sleep, debug objects, kmemleak: qemu/x86_64-debug.config). Each
# scenario counts as in qemu-tests.sh, and any checker report on the
# console fails it. The driver, faults and load scenarios bring the bad
# ioctl table, fault injection and the fio load under the checkers.
# How long the kernel and the runs take: the kernel-x86_64-debug and
# debug-test rows of Documentation/benchmarks.md; the runs about 15
# minutes (KASAN slows the guest down). Prints KTAP (tests/lib/ktap.sh):
# each run's guest document as subtest debug/SCENARIO, the host's checks
# of it after it.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
runs=$top/build/runs
src=$top/build/debug-src
mods=$top/build/modules-x86_64-debug
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
finish() { ktap_end; exit $?; }
ktap_begin debug

"$top/qemu/setup/kernel.sh" x86_64-debug 2>&1 | sed 's/^/# /'
[ "${PIPESTATUS[0]}" = 0 ] || { ko debug/kernel_build "see build/kernel-x86_64-debug/build.log"; finish; }
# Modules for this kernel, from a copy of the sources (the normal build's
# objects live in the project tree).
rm -rf "$src" "$mods"
mkdir -p "$src" "$mods"
tar -C "$top" -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.mod*' \
	--exclude='.*.cmd' Makefile Kconfig drivers include | tar -C "$src" -xf -
if ! make -s -C "$top/build/kernel-x86_64-debug" M="$src" modules >"$runs/debug-modules.log" 2>&1; then
	ko debug/modules_build "see build/runs/debug-modules.log"
	finish
fi
find "$src" -name '*.ko' -exec cp {} "$mods/" \;
FLAVOR=debug "$top/qemu/initramfs.sh" >/dev/null || { ko debug/initramfs "failed"; finish; }

# Lines that mean a checker fired.
reports='BUG:|WARNING:|KASAN|possible circular locking|inconsistent lock state|possible recursive locking|sleeping function called from invalid context|ODEBUG|unreferenced object|list_add corruption|list_del corruption|Oops|Call Trace'

n=0
for spec in "smoke ours" "smoke4 ours" "driver ours" "seed ours" "kunit ours" \
	"faults ours" "load ours"; do
	read -r scen stack <<<"$spec"
	set -- "$scen" "$stack"
	n=$((n + 1))
	out=$runs/debug-$n-$1
	diag "$1 on the debug kernel (slow: KASAN under TCG)"
	"$top/qemu/run.sh" --flavor debug --scenario "$1" --stack "$2" \
		--out "$out" --timeout 1800 --no-trace 2>&1 | sed 's/^/# /'
	rc=${PIPESTATUS[0]}
	ktap_nest -q "debug/$1" "$out/result.txt"
	if [ "$rc" = 0 ]; then
		ok "debug/$1/finished"
	else
		ko "debug/$1/finished" "exit $rc, see $out/console.log"
	fi
	for c in lockdep kasan kmemleak; do
		grep -q "^KV checker_$c=on" "$out/result.txt" ||
			ko "debug/$1/checker_$c" "the guest did not report $c as active"
	done
	if grep -Eq "$reports" "$out/console.log"; then
		ko "debug/$1/no_checker_reports" "$(grep -Em1 "$reports" "$out/console.log")"
	else
		ok "debug/$1/no_checker_reports"
	fi
done
finish
