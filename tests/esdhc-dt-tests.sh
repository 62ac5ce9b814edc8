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
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
ktap_begin esdhc-dt
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
		-o "$work/host" "$top/tests/tools/esdhc-soc/host.c" \
		"$top/drivers/mmc/host/esdhc-soc.c" 2>"$work/host.log"; then
		ko "$v/host_build" "esdhc-soc.c does not build for the host; see ${work#"$top"/}/host.log"
		continue
	fi
	ktap_sub_begin "$v"
	while IFS= read -r line; do
		case $line in
		'PASS '*) ok "${line#PASS }" ;;
		'FAIL '*) l=${line#FAIL }; ko "${l%% *}" "${l#* }" ;;
		'DIAG '*) diag "${line#DIAG }" ;;
		*) diag "$line" ;;
		esac
	done < <(python3 "$top/tests/tools/esdhc-soc/dt-table.py" --tree "$tree" \
		--dtc "$dtc" --host "$work/host" --include "$work/include" \
		--ours "$top/drivers/mmc/host" --table "$work/table.md" \
		--scratch "$work/dtb" 2>&1)
	ktap_sub_end
done
ktap_end
