#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The data race detector on the scheduler: the 6.12 guest built with KCSAN
# (qemu/x86_64-6.12-kcsan.config), our modules built against it (so that
# they are instrumented too), and the driver and seed scenarios on our
# stack with two vCPUs. A KCSAN report that names a function of ours
# fails the scenario; reports about the rest of the kernel, and the
# races the detector counted without a report, are listed. Not in
# `make check`: KCSAN instruments every object, so the kernel is a cold
# build of its own (24 minutes at one job on 2026-12-07, log), and the
# runs take about 15 minutes.
# KCSAN_SCENARIOS: other scenarios than "driver seed". Prints KTAP
# (tests/lib/ktap.sh).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
runs=$top/build/runs
src=$top/build/src-6.12-kcsan
mods=$top/build/modules-x86_64-6.12-kcsan
kout=$top/build/kernel-x86_64-6.12-kcsan
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
finish() { ktap_end; exit $?; }
ktap_begin kcsan
mkdir -p "$runs"

"$top/qemu/setup/kernel.sh" x86_64-6.12-kcsan 2>&1 | sed 's/^/# /'
[ "${PIPESTATUS[0]}" = 0 ] || { ko kcsan/kernel_build "see ${kout#"$top"/}/build.log"; finish; }
rm -rf "$src" "$mods"
mkdir -p "$src" "$mods"
tar -C "$top" -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.mod*' \
	--exclude='.*.cmd' Makefile Kconfig drivers include qemu/guest | tar -C "$src" -xf -
log=$runs/kcsan-modules.log
: >"$log"
for d in "$src" "$src"/qemu/guest/*/; do
	[ "$d" = "$src" ] || [ -e "$d/Kbuild" ] || continue
	make -s -C "$kout" M="${d%/}" modules >>"$log" 2>&1 ||
		{ ko kcsan/modules_build "see ${log#"$top"/}"; finish; }
done
find "$src" -name '*.ko' -exec cp {} "$mods/" \;
FLAVOR=6.12-kcsan "$top/qemu/initramfs.sh" >/dev/null || { ko kcsan/initramfs "failed"; finish; }

# Our functions: the scheduler's, the engine's, the host driver's.
ours='coalesce_|rwin_|esdhc_'
for scen in ${KCSAN_SCENARIOS:-driver seed}; do
	out=$runs/kcsan-$scen
	diag "$scen on the KCSAN kernel, two vCPUs"
	"$top/qemu/run.sh" --flavor 6.12-kcsan --scenario "$scen" --stack ours \
		--smp 2 --out "$out" --timeout 1800 --no-trace 2>&1 | sed 's/^/# /'
	rc=${PIPESTATUS[0]}
	ktap_nest -q "kcsan/$scen" "$out/result.txt"
	if [ "$rc" = 0 ]; then
		ok "kcsan/$scen/finished"
	else
		ko "kcsan/$scen/finished" "exit $rc, see ${out#"$top"/}/console.log"
	fi
	# the guest reads /sys/kernel/debug/kcsan at its end (qemu/guest/init)
	if grep -q '^KV checker_kcsan=on' "$out/result.txt"; then
		ok "kcsan/$scen/detector_on"
	else
		ko "kcsan/$scen/detector_on" "the guest did not report KCSAN as enabled"
	fi
	# Races the detector counted without printing one (it saw one side
	# only): listed, not failed. The tree's code and a build with a plain
	# held_count++ both counted 0-2 in the driver scenario, none printed.
	diag "$scen: the detector counted $(sed -n 's/^KV kcsan_data_races=//p' "$out/result.txt") data races"
	# each report, from its title to its closing line of '='
	awk '/BUG: KCSAN:/ { r = $0; on = 1; next }
	     on && /^\[[^]]*\] =+$/ { print r; on = 0; next }
	     on { r = r " " $0 }' "$out/console.log" >"$out/kcsan-reports.txt"
	n=$(grep -c . "$out/kcsan-reports.txt")
	mine=$(grep -Ec "$ours" "$out/kcsan-reports.txt")
	diag "$scen: $n KCSAN reports, $mine naming our functions"
	grep -Eo 'BUG: KCSAN: [^ ]+ in [^ ]+' "$out/kcsan-reports.txt" | sort | uniq -c |
		while read -r line; do diag "  $line"; done
	if [ "$mine" = 0 ]; then
		ok "kcsan/$scen/no_race_in_ours"
	else
		ko "kcsan/$scen/no_race_in_ours" "$(grep -Em1 "$ours" "$out/kcsan-reports.txt" | cut -c1-300)"
	fi
done
finish
