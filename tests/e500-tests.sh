#!/usr/bin/env bash
# The e500 boot test for `make check`: build (incrementally) the e500
# kernel with our drivers built in, boot it under qemu-system-ppc, and
# count the guest's results, the built-in KUnit cases and the host-side
# e2fsck of the card, three times: the card behind sdhci-pci, on QEMU 10's
# eSDHC through the device-tree driver, and the same with a
# "clock-frequency" in the node. Durations: Documentation/
# benchmarks.md ("How long things take").
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
pass=0 fail=0
ok() { echo "PASS: $1"; pass=$((pass + 1)); }
ko() { echo "FAIL: $1: $2"; fail=$((fail + 1)); }

if ! "$top/qemu/kernel.sh" ppc; then
	ko e500/kernel_build "see build/kernel-ppc/build.log"
	echo "$pass passed, $fail failed"
	exit 1
fi
ok e500/kernel_build
# e500_boot LABEL [run-e500.sh args...]: one boot, its results as
# LABEL/NAME
e500_boot() {
	local label=$1 out=$top/build/runs/$1 rc kunit=0 kind verdict name why
	shift
	"$top/qemu/run-e500.sh" --out "$out" --timeout 900 "$@"
	rc=$?
	while read -r kind verdict name why; do
		case $kind in
		RESULT) ;;
		KUNIT) kunit=$((kunit + 1)); name=kunit/$name ;;
		*) continue ;;
		esac
		if [ "$verdict" = pass ]; then
			ok "$label/$name"
		else
			ko "$label/$name" "${why:-see $out/console.log}"
		fi
	done <"$out/result.txt"
	[ $kunit -gt 0 ] && ok $label/kunit_ran || ko $label/kunit_ran "no KUnit case reported on the console"
	[ $rc = 0 ] && ok $label/finished || ko $label/finished "guest did not finish (exit $rc)"
}

# The card behind sdhci-pci (QEMU 7.2, Debian 12), then on the machine's
# own eSDHC through the device-tree driver (QEMU 10 from the Debian 13
# root, made once by qemu/trixie-root.sh: a minute or two the first time).
e500_boot e500
if "$top/qemu/trixie-root.sh" qemu-system-ppc; then
	e500_boot e500-esdhc --esdhc
	grep -q 'sdhci-esdhc-e500-of.*base clock' "$top/build/runs/e500-esdhc/console.log" &&
		ok e500-esdhc/of_driver_bound ||
		ko e500-esdhc/of_driver_bound "the device-tree driver did not probe the eSDHC"
	# a board's node: "clock-frequency" (as U-Boot fills it in) wins
	# over the capabilities' base clock
	e500_boot e500-esdhc-clk --esdhc-clock 100000000
	grep -q 'sdhci-esdhc-e500-of.*base clock 100000000 Hz' \
		"$top/build/runs/e500-esdhc-clk/console.log" &&
		ok e500-esdhc-clk/clock_frequency_used ||
		ko e500-esdhc-clk/clock_frequency_used "the driver did not take clock-frequency = 100 MHz"
else
	ko e500-esdhc/trixie_root "qemu/trixie-root.sh failed; see build/trixie-root.log"
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
