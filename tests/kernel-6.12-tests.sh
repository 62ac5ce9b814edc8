#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The 6.12 group of `make check`: the same sources on Debian 13's Linux
# 6.12 (linux-source-6.12, from the Debian 13 root under build/), on an
# x86_64 guest made from the same fragment as the 6.1 one. Smaller than
# the 6.1 groups, to stay inside CI's time:
#  - the guest kernel builds (qemu/setup/kernel.sh x86_64-6.12), and our
#    modules and the guest test module (qemu/guest/flushrace) build
#    against it from a copy of the sources, W=1, no warning;
#  - the kernel-patch series for 6.12 applies to a copy of the tree and
#    its objects build in tree, W=1, no warning (the OF glue excepted:
#    x86_64 has no OF; the e500 kernel builds it from the 6.1 series);
#  - KUnit: every suite of the scheduler and the host driver, one test per
#    case (the kunit scenario);
#  - the round trip: the smoke scenario on our stack (files of 4 KiB to
#    3 MB through ext2, unmounted, mounted again, checksums compared);
#  - absorption: the absorb scenario, every update made while its write
#    waited read back after sync (raw writers, ext2, FAT32, null_blk);
#  - the driver scenario on our stack: the scheduler's contract path by
#    path (Documentation/reliability.md), with the zoned refusal that on
#    6.12 only the scheduler's own check gives, the data step of a flush
#    sequence at the head against a newer write (flushrace.ko), tunables,
#    switches;
#  - the detectors (WARN, hung task, soft lockup, RCU stall), each made to
#    report once by LKDTM and each caught by the console check;
#  - blktests' block/005 (switch schedulers under I/O) on our stack, when
#    BLKTESTS_DIR is set (as in CI);
#  - the seed scenario on the stock stack and on ours, scored at the card
#    by the analyzer: both finish with their data intact, the window held
#    writes and attached some to data, and ours made at most 0.7x stock's
#    AU switches per AU (tests/lib/card-claim.sh); the two scores are
#    printed side by side. Speeds are the bench's question
#    (Documentation/benchmarks.md), not a pass/fail line here.
# Left out against the 6.1 groups: the timed card, the USB stick, fault
# injection, fio load, crash kill points, removal, the other blktests.
# Prints KTAP (tests/lib/ktap.sh).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
runs=$top/build/runs
cardtrace=$top/build/host/cardtrace
src=$top/build/src-6.12
mods=$top/build/modules-x86_64-6.12
kout=$top/build/kernel-x86_64-6.12
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
# shellcheck source=tests/lib/series.sh
. "$top/tests/lib/series.sh"
# shellcheck source=tests/lib/kernel-reports.sh
. "$top/tests/lib/kernel-reports.sh"
# shellcheck source=tests/lib/card-claim.sh
. "$top/tests/lib/card-claim.sh"
finish() { ktap_end; exit $?; }
ktap_begin kernel-6.12
mkdir -p "$runs"

# the kernel, then our modules from a copy of the sources (the 6.1
# build's objects live in the project tree)
"$top/qemu/setup/kernel.sh" x86_64-6.12 2>&1 | sed 's/^/# /'
if [ "${PIPESTATUS[0]}" != 0 ]; then
	ko 6.12/kernel_build "see build/kernel-x86_64-6.12/build.log"
	finish
fi
ok 6.12/kernel_build
rm -rf "$src" "$mods"
mkdir -p "$src" "$mods"
tar -C "$top" -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.mod*' \
	--exclude='.*.cmd' Makefile Kconfig drivers include qemu/guest | tar -C "$src" -xf -
log=$runs/6.12-modules.log
if make -C "$kout" M="$src" W=1 modules >"$log" 2>&1; then
	ok 6.12/modules_build
	if grep -Eq 'warning:|error:' "$log"; then
		ko 6.12/modules_no_w1_warnings "$(grep -E -m1 'warning:|error:' "$log")"
	else
		ok 6.12/modules_no_w1_warnings
	fi
else
	ko 6.12/modules_build "see ${log#"$top"/}"
	finish
fi
# The guest test modules (qemu/guest/*/Kbuild: flushrace), each W=1
# without a warning; a missing one fails its check in the guest.
for d in "$src"/qemu/guest/*/Kbuild; do
	d=${d%/Kbuild} log=$runs/6.12-${d##*/}.log
	if ! make -C "$kout" M="$d" W=1 modules >"$log" 2>&1; then
		ko "6.12/${d##*/}_build" "see ${log#"$top"/}"
	elif grep -Eq 'warning:|error:' "$log"; then
		ko "6.12/${d##*/}_build" "$(grep -E -m1 'warning:|error:' "$log")"
	else
		ok "6.12/${d##*/}_build"
	fi
done
find "$src" -name '*.ko' -exec cp {} "$mods/" \;
FLAVOR=6.12 "$top/qemu/initramfs.sh" 2>&1 | sed 's/^/# /'
[ "${PIPESTATUS[0]}" = 0 ] || { ko 6.12/initramfs "qemu/initramfs.sh failed"; finish; }
release=$(cat "$kout/include/config/kernel.release")
diag "Linux $release"

# run NAME STACK LIMIT [run.sh args...]: one boot; the guest's document
# as subtest 6.12/NAME/STACK, then whether it finished
run() {
	local name=$1 stack=$2 limit=$3 rc
	shift 3
	out=$runs/6.12-$name-$stack
	diag "$name on the $stack stack, Linux $release (TCG guest)"
	"$top/qemu/run.sh" --flavor 6.12 --scenario "$name" --stack "$stack" \
		--out "$out" --timeout "$limit" "$@" 2>&1 | sed 's/^/# /'
	rc=${PIPESTATUS[0]}
	ktap_nest -q "6.12/$name/$stack" "$out/result.txt"
	kernel_reports "6.12/$name/$stack/no_kernel_reports" "$out/console.log"
	if [ "$rc" = 0 ]; then
		ok "6.12/$name/$stack/finished"
	else
		ko "6.12/$name/$stack/finished" "run.sh exit $rc (see ${out#"$top"/}/console.log)"
	fi
}
stat_of() { sed -n "s/^STAT $2 //p" "$1/result.txt" | tail -n 1; }

# The kernel-patch series for 6.12, applied to a hard-linked copy of the
# tree and built in tree: our objects with W=1, against the 6.12 guest's
# configuration with our four symbols as modules. The host driver wants a
# device tree and an e500 kernel or COMPILE_TEST, so this x86_64
# configuration also gets OF, COMPILE_TEST and the SDHCI platform helpers:
# a compile test of the device-tree driver against 6.12.
series_build() {
	local tree=$top/build/linux-6.12-series sout=$top/build/kernel-6.12-series
	local slog=$runs/6.12-series.log objs=() sym missing=""
	if "$top/qemu/setup/kernel-patch.sh" -q --base "$top/build/linux-6.12" \
		--tree "$tree" >"$slog" 2>&1; then
		ok 6.12/series_applies
	else
		ko 6.12/series_applies "$(tail -n 1 "$slog")"
		skip 6.12/series_builds "the series did not apply"
		return
	fi
	mkdir -p "$sout"
	cp "$kout/.config" "$sout/.config"
	# in place (the guest's .config has them as "is not set": appending
	# would make olddefconfig warn about the override)
	"$tree/scripts/config" --file "$sout/.config" --enable OF \
		--enable COMPILE_TEST --module MMC_SDHCI_PLTFM
	for sym in MQ_IOSCHED_COALESCE MQ_IOSCHED_COALESCE_KUNIT_TEST \
		MMC_SDHCI_ESDHC_E500 MMC_SDHCI_ESDHC_E500_KUNIT_TEST; do
		echo "CONFIG_$sym=m" >>"$sout/.config"
	done
	local smake=(make -C "$tree" O="$sout" ARCH=x86_64 CC="ccache gcc")
	"${smake[@]}" -s olddefconfig >>"$slog" 2>&1
	for sym in MQ_IOSCHED_COALESCE MQ_IOSCHED_COALESCE_KUNIT_TEST \
		MMC_SDHCI_ESDHC_E500 MMC_SDHCI_ESDHC_E500_KUNIT_TEST; do
		grep -qx "CONFIG_$sym=m" "$sout/.config" || missing="$missing $sym"
	done
	mapfile -t objs < <(series_objects "$tree")
	if [ -n "$missing" ]; then
		ko 6.12/series_builds "Kconfig dropped:$missing"
	elif [ ${#objs[@]} -lt 10 ]; then
		ko 6.12/series_builds "only ${#objs[@]} of the series' C files in the tree"
	elif "${smake[@]}" -j2 W=1 "${objs[@]}" >>"$slog" 2>&1 &&
	     ! grep -Eq 'warning:|error:' "$slog"; then
		ok 6.12/series_builds
	else
		ko 6.12/series_builds "$(grep -E -m1 'warning:|error:' "$slog" || echo "see ${slog#"$top"/}")"
	fi
}

series_build

run kunit ours 600 --no-trace
run smoke ours 600 --no-trace
# absorption: no update lost (tests/qemu-tests.sh says how)
run absorb ours 900 --smp 2 --no-trace --kopt mmcc.absorb_seconds=10
run driver ours 600 --no-trace
# The lock validator (qemu/x86_64-6.12.config) still on when the
# contract's paths were done: it saw them and found nothing to report.
locks=$(sed -n 's/^KV debug_locks=//p' "$out/result.txt" | tail -n 1)
if [ "$locks" = 1 ]; then
	ok 6.12/driver/ours/lockdep_stayed_on
else
	ko 6.12/driver/ours/lockdep_stayed_on "debug_locks=${locks:-none reported} (see ${out#"$top"/}/console.log)"
fi

# The detectors the console check relies on, each made to report once on
# 6.12 (qemu/guest/scenarios/lkdtm.sh; two vCPUs for the RCU stall): the
# reports are expected here, and each must be caught.
out=$runs/6.12-lkdtm-stock
"$top/qemu/run.sh" --flavor 6.12 --scenario lkdtm --stack stock --out "$out" \
	--timeout 300 --no-trace --smp 2 2>&1 | sed 's/^/# /'
ktap_nest -q 6.12/lkdtm/stock "$out/result.txt"
detectors_check 6.12/lkdtm/stock "$out/console.log"

if [ -n "${BLKTESTS_DIR:-}" ]; then
	diag "blktests block/005 on Linux $release, our stack"
	ktap_run 6.12/blktests env BLKTESTS_TESTS=block/005 BLKTESTS_STACKS=ours \
		BLKTESTS_FLAVOR=6.12 "$top/tests/blktests.sh" || true
else
	missing 6.12/blktests "BLKTESTS_DIR not set"
fi

# The seed, stock and ours, scored at the card.
declare -A score
for stack in stock ours; do
	run seed "$stack" 900
	rm -f "$out/card.kv"
	card_score "6.12/seed/$stack/card_scored" "$out" || continue
	for k in writes small_writes switch_ratio est_linear_mbps est_any_mbps; do
		score[$stack.$k]=$(card_kv_of "$k" "$out/card.kv")
	done
	score[$stack.guest]=$(sed -n 's/^KV guest_kbps=//p' "$out/result.txt")
	if [ "$stack" = ours ]; then
		held=$(stat_of "$out" held)
		attached=$(stat_of "$out" released_attach)
		if [ "${held:-0}" -gt 0 ] && [ "${attached:-0}" -gt 0 ]; then
			ok "6.12/seed/ours/window_held_and_attached"
		else
			ko "6.12/seed/ours/window_held_and_attached" "held=${held:-?} attached=${attached:-?}"
		fi
		# The card never waits a quiet spell for writes the window
		# holds while the flusher, asleep on a tag those writes keep,
		# has more to send: before limit_depth counted the plug's
		# small writes as held, it stood still for meta_idle_ms (1 s)
		# at every such turn, about 2 s into the dd, then took the
		# held writes ahead of their data.
		# Nothing else in the seed pauses it for half that long.
		gap=$(card_kv_of max_write_gap_ms "$out/card.kv")
		if awk -v g="${gap:-x}" 'BEGIN { exit !(g ~ /^[0-9.]+$/ && g < 700) }'; then
			ok "6.12/seed/ours/no_card_stall"
		else
			ko "6.12/seed/ours/no_card_stall" "longest wait between two write commands ${gap:-?} ms (want < 700)"
		fi
	fi
done
card_claim 6.12/seed/ours_fewer_au_switches "$runs/6.12-seed-stock/card.kv" "$runs/6.12-seed-ours/card.kv"
diag "seed at the card, Linux $release: stack, write commands, <= 16 KiB, AU switches per AU, est. MB/s linear-only, any-order, guest KiB/s"
for stack in stock ours; do
	diag "  $stack ${score[$stack.writes]:--} ${score[$stack.small_writes]:--} ${score[$stack.switch_ratio]:--} ${score[$stack.est_linear_mbps]:--} ${score[$stack.est_any_mbps]:--} ${score[$stack.guest]:--}"
done
finish
