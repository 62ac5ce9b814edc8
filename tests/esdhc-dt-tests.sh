#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The host driver against the kernel's own e500 device trees, 6.1 and
# 6.12: every arch/powerpc/boot/dts/fsl/*.dts with an eSDHC node, compiled
# with the tree's own dtc; for each node, exactly one driver binds it with
# ours configured and one with stock, and the quirks, quirks2 and errata
# of ours (esdhc_soc_quirks(), built here for the host) equal stock's
# (tests/tools/esdhc-soc/dt-table.py says how). The table of the 6.1 run
# is in Documentation/esdhc-binding.md; each run's is written to
# build/esdhc-dt/V/table.md.
#
# Before that, per tree, the kernel-patch series applied to a hard-linked
# copy of it (build/esdhc-dt/V/tree) is built for both e500 word sizes
# with COMPILE_TEST off: mpc85xx_smp_defconfig (32-bit, PPC_85xx: e500v2
# and e500mc) and corenet64_smp_defconfig (64-bit, PPC_BOOK3E_64: e5500
# and e6500), stock sdhci-of-esdhc off and our four symbols as modules.
# Kconfig must keep them, and our objects (the host driver, the scheduler
# and their KUnit tests) must build with W=1 and sparse, without a
# warning. Only our objects are compiled (after `make prepare`), not the
# kernel: ccache keeps them quick.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
# shellcheck source=tests/lib/series.sh
. "$top/tests/lib/series.sh"
ktap_begin esdhc-dt
# the cross compiler of the builds below (make check's e500 lane has it)
command -v powerpc-linux-gnu-gcc >/dev/null ||
	"$top/qemu/setup/deps.sh" ppc 2>&1 | sed 's/^/# /'

# e500_build V TREE WORK WORD DEFCONFIG: the checks V/WORD/* above
e500_build() {
	local v=$1 tree=$2 work=$3 word=$4 defconfig=$5
	local out=$work/$word blog=$work/$word.log sym bad="" objs=()
	local kmake=(make -C "$tree" O="$out" ARCH=powerpc
		CROSS_COMPILE=powerpc-linux-gnu- CC="ccache powerpc-linux-gnu-gcc")
	mkdir -p "$out"
	: >"$blog"
	if ! "${kmake[@]}" -s "$defconfig" >>"$blog" 2>&1; then
		ko "$v/$word/config_keeps_drivers" "$defconfig failed; see ${blog#"$top"/}"
		skip "$v/$word/builds_w1_sparse_clean" "no configuration"
		return
	fi
	"$tree/scripts/config" --file "$out/.config" --disable MMC_SDHCI_OF_ESDHC \
		--disable COMPILE_TEST --enable MODULES --enable MMC \
		--enable MMC_SDHCI --enable MMC_SDHCI_PLTFM --enable KUNIT \
		--enable DEBUG_FS --enable BLK_DEBUG_FS \
		--module MMC_SDHCI_ESDHC_E500 --module MMC_SDHCI_ESDHC_E500_KUNIT_TEST \
		--module MQ_IOSCHED_COALESCE --module MQ_IOSCHED_COALESCE_KUNIT_TEST
	"${kmake[@]}" -s olddefconfig >>"$blog" 2>&1
	grep -qx 'CONFIG_PPC_E500=y' "$out/.config" || bad="$bad PPC_E500"
	if [ "$word" = ppc64 ]; then
		grep -qx 'CONFIG_PPC64=y' "$out/.config" || bad="$bad PPC64"
	else
		! grep -qx 'CONFIG_PPC64=y' "$out/.config" || bad="$bad PPC64=y"
	fi
	! grep -q '^CONFIG_COMPILE_TEST=y' "$out/.config" || bad="$bad COMPILE_TEST=y"
	for sym in MMC_SDHCI_ESDHC_E500 MMC_SDHCI_ESDHC_E500_KUNIT_TEST \
		MQ_IOSCHED_COALESCE MQ_IOSCHED_COALESCE_KUNIT_TEST; do
		grep -qx "CONFIG_$sym=m" "$out/.config" || bad="$bad $sym"
	done
	if [ -n "$bad" ]; then
		ko "$v/$word/config_keeps_drivers" "$defconfig without COMPILE_TEST:$bad"
		skip "$v/$word/builds_w1_sparse_clean" "not configured"
		return
	fi
	ok "$v/$word/config_keeps_drivers"
	mapfile -t objs < <(series_objects "$tree")
	# every object again, so that sparse (C=1) sees each
	rm -f "${objs[@]/#/$out/}"
	if [ ${#objs[@]} -lt 10 ]; then
		ko "$v/$word/builds_w1_sparse_clean" "only ${#objs[@]} of the series' C files in ${tree#"$top"/}"
	# the kernel's own host tools first, their log apart (bison warns)
	elif ! "${kmake[@]}" -j"${JOBS:-2}" W=1 C=1 prepare >"$out/prepare.log" 2>&1; then
		ko "$v/$word/builds_w1_sparse_clean" "make prepare failed; see ${out#"$top"/}/prepare.log"
	elif ! "${kmake[@]}" -j"${JOBS:-2}" W=1 C=1 "${objs[@]}" >>"$blog" 2>&1; then
		ko "$v/$word/builds_w1_sparse_clean" "$(grep -E -m1 'error' "$blog" || echo "see ${blog#"$top"/}")"
	elif grep -Eq 'warning:|error:' "$blog"; then
		ko "$v/$word/builds_w1_sparse_clean" "$(grep -E -m1 'warning:|error:' "$blog")"
	else
		ok "$v/$word/builds_w1_sparse_clean"
	fi
}

for v in 6.1 6.12; do
	tree=$top/build/linux-$v
	work=$top/build/esdhc-dt/$v
	if [ ! -f "$tree/arch/powerpc/boot/dts/fsl/pq3-esdhc-0.dtsi" ]; then
		ko "$v/tree" "no kernel tree in build/linux-$v (qemu/setup/kernel-source.sh $v)"
		continue
	fi
	mkdir -p "$work/include/linux" "$work/include/kunit" "$work/dtb"
	# the tree's dtc, host-only (an allnoconfig to satisfy kbuild; 6.1 builds
	# dtc for CHECK_DT_BINDING, 6.12 for CHECK_DTBS)
	dtc=$work/dtc/scripts/dtc/dtc
	if [ ! -x "$dtc" ]; then
		{ make -s -C "$tree" O="$work/dtc" allnoconfig &&
			make -s -C "$tree" O="$work/dtc" CHECK_DT_BINDING=y CHECK_DTBS=y scripts_dtc; } \
			>"$work/dtc.log" 2>&1
	fi
	if [ ! -x "$dtc" ]; then
		ko "$v/dtc" "the tree's dtc did not build; see ${work#"$top"/}/dtc.log"
		continue
	fi
	# esdhc-soc.c for the host: the tree's SDHCI quirk bits, and the few
	# kernel headers it includes
	grep -E '^#define[[:space:]]+SDHCI_(QUIRK2?_|SPEC_|VENDOR_VER_)' \
		"$tree/drivers/mmc/host/sdhci.h" >"$work/include/sdhci.h"
	cat >"$work/include/linux/types.h" <<-'H'
		#include <stdbool.h>
		#include <stddef.h>
		#include <stdint.h>
		typedef uint8_t u8;
		typedef uint16_t u16;
		typedef uint32_t u32;
	H
	cat >"$work/include/linux/bits.h" <<-'H'
		#define BIT(n) (1UL << (n))
		#define GENMASK(h, l) (((~0U) >> (31 - (h))) & (~0U << (l)))
	H
	cat >"$work/include/linux/kernel.h" <<-'H'
		#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
		#define max(a, b) ((a) > (b) ? (a) : (b))
	H
	printf '#include <string.h>\n#include <strings.h>\n' >"$work/include/linux/string.h"
	echo '#define EXPORT_SYMBOL_IF_KUNIT(s)' >"$work/include/kunit/visibility.h"
	if ! gcc -O1 -Wall -Werror -I "$work/include" -I "$top/drivers/mmc/host" \
		-idirafter "$tree/drivers/mmc/host" \
		-o "$work/host" "$top/tests/tools/esdhc-soc/host.c" \
		"$top/drivers/mmc/host/esdhc-soc.c" 2>"$work/host.log"; then
		ko "$v/host_build" "esdhc-soc.c does not build for the host; see ${work#"$top"/}/host.log"
		continue
	fi
	ktap_sub_begin "$v"
	if "$top/qemu/setup/kernel-patch.sh" -q --no-stock-esdhc --base "$tree" \
		--out "$work/series" --tree "$work/tree" >"$work/series.log" 2>&1; then
		e500_build "$v" "$work/tree" "$work/e500" ppc32 mpc85xx_smp_defconfig
		e500_build "$v" "$work/tree" "$work/e500" ppc64 corenet64_smp_defconfig
	else
		ko "$v/series_applies" "$(tail -n 1 "$work/series.log")"
	fi
	python3 "$top/tests/tools/esdhc-soc/dt-table.py" --tree "$tree" \
		--dtc "$dtc" --host "$work/host" --include "$work/include" \
		--ours "$top/drivers/mmc/host" --table "$work/table.md" \
		--scratch "$work/dtb" >"$work/dt-table.out" 2>&1
	rc=$?
	while IFS= read -r line; do
		case $line in
		'PASS '*) ok "${line#PASS }" ;;
		'FAIL '*) l=${line#FAIL }; ko "${l%% *}" "${l#* }" ;;
		'DIAG '*) diag "${line#DIAG }" ;;
		*) diag "$line" ;;
		esac
	done <"$work/dt-table.out"
	if [ "$rc" = 0 ]; then
		ok "$v/dt_table_finished"
	else
		ko "$v/dt_table_finished" "dt-table.py exit $rc (see ${work#"$top"/}/dt-table.out)"
	fi
	ktap_sub_end
done
ktap_end
