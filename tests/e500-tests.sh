#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The e500 boot test for `make check`: build (incrementally) the e500
# kernel with our drivers built in, boot it under qemu-system-ppc, and
# count the guest's results, the built-in KUnit cases and the host-side
# e2fsck of the card, on QEMU 10's eSDHC through the device-tree driver:
# the node as a P1022 board's tree names it, the same with a
# "clock-frequency", and QEMU's own node, "fsl,esdhc" alone as the
# kernel's P1021 tree gives it, which the driver binds with the quirks
# of the SoC's SVR; the kernel's own sdhci-of-esdhc with the series
# offered to it (qemu/setup/kernel.sh ppc-stock) on the P1022 node, with
# our scheduler over it; the detectors of the console check, each made
# to report once by LKDTM; then the seed's workload on the eSDHC
# twice, stock (mq-deadline) and ours (coalesce), scored at the card from
# QEMU's trace by build/host/cardtrace. Durations: Documentation/
# benchmarks.md ("How long things take").
#
# Environment: E500_SEED_MIB (default 128), the seed's file in MiB, and
# E500_SEED_MEM (default 128), the seed guests' RAM in MiB (ppce500 wants
# a multiple of 64, and puts the initrd at 64 MiB: 128 at least).
#
# Prints KTAP (tests/lib/ktap.sh). Each boot LABEL gives three subtests:
# LABEL (the guest's document, qemu/guest/e500-init.c), LABEL/kunit (the
# built-in KUnit suites' document from the console, one test per case)
# and LABEL/host (the host's checks of the card, qemu/run-e500.sh); then
# LABEL/kunit_ran and LABEL/finished.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
# shellcheck source=tests/lib/kernel-reports.sh
. "$top/tests/lib/kernel-reports.sh"
# shellcheck source=tests/lib/card-claim.sh
. "$top/tests/lib/card-claim.sh"
ktap_begin e500

"$top/qemu/setup/kernel.sh" ppc 2>&1 | sed 's/^/# /'
if [ "${PIPESTATUS[0]}" != 0 ]; then
	ko e500/kernel_build "see build/kernel-ppc/build.log"
	ktap_end
	exit 1
fi
ok e500/kernel_build
# e500_boot LABEL [run-e500.sh args...]: one boot, its results as
# subtests LABEL, LABEL/kunit and LABEL/host
e500_boot() {
	local label=$1 out=$top/build/runs/$1 rc
	shift
	"$top/qemu/run-e500.sh" --out "$out" --timeout 900 "$@" 2>&1 | sed 's/^/# /'
	rc=${PIPESTATUS[0]}
	ktap_nest -q "$label" "$out/result.txt"
	ktap_nest -q -d 1 "$label/kunit" "$out/kunit.log"
	if [ "$kn_started" = 1 ]; then
		ok "$label/kunit_ran"
	else
		ko "$label/kunit_ran" "no KUnit KTAP on the console"
	fi
	ktap_nest "$label/host" "$out/host.ktap"
	kernel_reports "$label/no_kernel_reports" "$out/console.log"
	if [ "$rc" = 0 ]; then
		ok "$label/finished"
	else
		ko "$label/finished" "guest did not finish (exit $rc)"
	fi
}

# seed_boot LABEL ELEVATOR: the seed on QEMU 10's eSDHC through the
# device-tree driver, the card under ELEVATOR; its card trace scored
# between phase markers 1 and 2 (build/runs/LABEL/card.kv)
seed_boot() {
	local label=$1 out=$top/build/runs/$1
	e500_boot "$label" --seed "$2" --seed-mib "$seed_mib" --mem "$seed_mem"
	rm -f "$out/card.kv"
	card_score "$label/card_trace_scored" "$out" || rm -f "$out/card.kv"
}

# The seed's workload, stock against ours, on QEMU 10's eSDHC: three
# alternating pairs under TCG, the figures printed and kept in
# build/runs/e500-seed.md; the claim at the card is asserted on the
# medians (tests/lib/card-claim.sh), the speeds are not (a benchmark).
# Three pairs, not one: stock's switches per AU on this seed have ranged
# 1.94-3.21 from run to run, and one early write of ours (an indirect
# block a sync sent before its AU's data) counts every later write of
# that AU as backward (77 against 24 in one run).
E500_SEED_PAIRS=3
# The bound on ours' median switches per AU against stock's: 0.85x, not
# the x86_64 claim's 0.7 (tests/lib/card-claim.sh). The seed here is
# scaled down (128 MiB over 34 AUs; x86_64: 512 MiB over 132), so what
# does not grow with the file weighs more. Ours releases the metadata it
# held in 12 AU switches at the sync in each run (0.35 per AU here; 29,
# 0.22 per AU, in an x86_64 run). A few small writes more or fewer move
# a 34-AU figure four times as far (stock's 78, 82 and 103 in three runs
# came with 78, 70 and 103 switches): stock's single runs have spread
# 1.94-3.21 (x86_64 6.1: 2.89-3.04). Medians of three pairs have given
# 0.62 and 0.67 (x86_64: 0.47); two stock runs at their low end against
# two of ours at their high (1.59 / 2.06) would give 0.77. A scheduler
# that sends its writes in arrival order scores near 1.
E500_CLAIM_RATIO=0.85
seed_runs() {
	local table=$top/build/runs/e500-seed.md label stack elv k r mb i
	local stock_kv=() ours_kv=()
	seed_mib=${E500_SEED_MIB:-128} seed_mem=${E500_SEED_MEM:-128}
	cardtrace=$top/build/host/cardtrace
	if ! make -s -C "$top" "$cardtrace" >/dev/null; then
		ko e500-seed/cardtrace_build "make build/host/cardtrace failed"
		return
	fi
	for i in $(seq 1 $E500_SEED_PAIRS); do
		seed_boot "e500-seed-stock-r$i" mq-deadline
		seed_boot "e500-seed-ours-r$i" coalesce
		stock_kv+=("$top/build/runs/e500-seed-stock-r$i/card.kv")
		ours_kv+=("$top/build/runs/e500-seed-ours-r$i/card.kv")
	done
	{
		echo "The seed on QEMU 10's eSDHC (ppce500, sdhci-esdhc-e500 bound by device tree, TCG):"
		echo "ext2 over a 4 GiB card, $seed_mib MiB written in 16 KiB writes and synced, $seed_mem MiB RAM;"
		echo "card commands between phase markers 1 and 2, $E500_SEED_PAIRS alternating runs each ($(date -u +%F));"
		echo "card model: $("$cardtrace" /dev/null | sed -n 's/^card model: //p')."
		echo
		echo "| stack | elevator | write cmds | <= 16 KiB | AU switches / distinct AUs | backward writes | est. MB/s, linear-only card | est. MB/s, any-order card | guest MB/s (write + sync) | sync s | held by the window |"
		echo "|---|---|---|---|---|---|---|---|---|---|---|"
		for label in $(for i in $(seq 1 $E500_SEED_PAIRS); do
			echo "e500-seed-stock-r$i e500-seed-ours-r$i"; done); do
			stack=${label#e500-seed-} stack=${stack%-r*}
			k=$top/build/runs/$label/card.kv
			r=$top/build/runs/$label/result.txt
			elv=mq-deadline
			[ "$stack" = ours ] && elv=coalesce
			if [ ! -s "$k" ]; then
				echo "| $stack | $elv | no trace | | | | | | | | |"
				continue
			fi
			mb=$(sed -n 's/^KV guest_kbps=//p' "$r" | awk '{ printf "%.2f", $1 / 1000 }')
			echo "| $stack | $elv | $(card_kv_of writes "$k") | $(card_kv_of small_writes "$k") |" \
				"$(card_kv_of au_switches "$k") / $(card_kv_of distinct_aus "$k") = $(card_kv_of switch_ratio "$k") |" \
				"$(card_kv_of backward_writes "$k") | $(card_kv_of est_linear_mbps "$k") |" \
				"$(card_kv_of est_any_mbps "$k") | ${mb:--} |" \
				"$(sed -n 's/^KV sync_seconds=//p' "$r") |" \
				"$(sed -n 's/^STAT held //p' "$r" | head -n 1 | grep . || echo -) |"
		done
	} >"$table"
	sed 's/^/# /' "$table"
	card_median_kv "$top/build/runs/e500-seed-stock.median.kv" "${stock_kv[@]}"
	card_median_kv "$top/build/runs/e500-seed-ours.median.kv" "${ours_kv[@]}"
	card_claim e500-seed/ours_fewer_au_switches \
		"$top/build/runs/e500-seed-stock.median.kv" \
		"$top/build/runs/e500-seed-ours.median.kv" "$E500_CLAIM_RATIO"
}

# host_driver_is LABEL DRIVER: the card of boot LABEL sat on a host
# controller bound to DRIVER (the guest's "KV host_driver=", read from
# sysfs)
host_driver_is() {
	local got
	got=$(sed -n 's/^KV host_driver=//p' "$top/build/runs/$1/result.txt" 2>/dev/null | head -n 1)
	if [ "$got" = "$2" ]; then
		ok "$1/host_driver_$2"
	else
		ko "$1/host_driver_$2" "the card's host was bound to '${got:-nothing reported}'"
	fi
}

# The detectors the console check relies on, each made to report once
# (e500-init.c run_lkdtm; two CPUs, as the x86_64 groups boot theirs,
# so that the grace-period kthread has a CPU to start a grace period on
# while the other spins): the reports are expected here, and each must
# be caught.
lkdtm_boot() {
	local out=$top/build/runs/e500-lkdtm
	"$top/qemu/run-e500.sh" --out "$out" --timeout 300 --lkdtm --smp 2 2>&1 |
		sed 's/^/# /'
	ktap_nest -q e500-lkdtm "$out/result.txt"
	detectors_check e500-lkdtm "$out/console.log"
}

# The kernel's own sdhci-of-esdhc with the series offered to it
# (drivers/mmc/host/stock-esdhc/, built in by qemu/ppc-stock.config) on
# the same board node: the stock driver binds it, its KUnit suite (the
# series' third patch) passes, and the boot test (our scheduler over the
# stock driver) passes as on ours.
stock_boot() {
	local log=$top/build/runs/e500-stock/kunit.log
	"$top/qemu/setup/kernel.sh" ppc-stock 2>&1 | sed 's/^/# /'
	if [ "${PIPESTATUS[0]}" != 0 ]; then
		ko e500-stock/kernel_build "see build/kernel-ppc-stock/build.log"
		return
	fi
	ok e500-stock/kernel_build
	e500_boot e500-stock --kernel ppc-stock
	host_driver_is e500-stock sdhci-esdhc
	# the suite's own line at KUnit's top level, after its 8 cases
	if grep -Eq '^ok [0-9]+ sdhci-of-esdhc-fixup$' "$log" &&
	   [ "$(sed -n '/# Subtest: sdhci-of-esdhc-fixup/,/^ok [0-9]* sdhci-of-esdhc-fixup$/p' "$log" |
		grep -Ec '^ +ok [0-9]+ esdhc_test_')" = 8 ]; then
		ok e500-stock/stock_fixup_suite_passed
	else
		ko e500-stock/stock_fixup_suite_passed "$(grep -m1 -E '(not )?ok [0-9]+ sdhci-of-esdhc-fixup' "$log" || echo "the suite did not run")"
	fi
}

# QEMU 10 from the Debian 13 root (made once by qemu/setup/trixie-root.sh:
# a minute or two the first time).
if "$top/qemu/setup/trixie-root.sh" qemu-system-ppc device-tree-compiler 2>&1 | sed 's/^/# /' &&
	[ "${PIPESTATUS[0]}" = 0 ]; then
	e500_boot e500-esdhc
	if grep -q 'sdhci-esdhc-e500-of.*base clock' "$top/build/runs/e500-esdhc/console.log"; then
		ok e500-esdhc/of_driver_bound
	else
		ko e500-esdhc/of_driver_bound "the device-tree driver did not probe the eSDHC"
	fi
	host_driver_is e500-esdhc sdhci-esdhc-e500-of
	# a board's node: "clock-frequency" (as U-Boot fills it in) wins
	# over the capabilities' base clock
	e500_boot e500-esdhc-clk --esdhc-clock 100000000
	if grep -q 'sdhci-esdhc-e500-of.*base clock 100000000 Hz' \
		"$top/build/runs/e500-esdhc-clk/console.log"; then
		ok e500-esdhc-clk/clock_frequency_used
	else
		ko e500-esdhc-clk/clock_frequency_used "the driver did not take clock-frequency = 100 MHz"
	fi
	# QEMU's node says only "fsl,esdhc", as the P1021, P1025, BSC913x
	# and MPC8569 trees do: the driver binds it and the card passes the
	# round trip (the guest's checks)
	e500_boot e500-generic-node --compatible qemu
	host_driver_is e500-generic-node sdhci-esdhc-e500-of
	lkdtm_boot
	stock_boot
	seed_runs
else
	ko e500-esdhc/trixie_root "qemu/setup/trixie-root.sh failed; see build/trixie-root.log"
fi
ktap_end
