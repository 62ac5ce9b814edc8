#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# blktests (the upstream block layer suite) on the emulated SD card, for
# `make check`: block/003 (discards of many sizes), block/004 (flush
# storm), block/005 (switch schedulers under I/O) and block/012 (a
# read-only device fails writes), with TEST_DEVS=/dev/mmcblk0 in the
# x86_64 guest.  Once on the stock stack (sdhci-pci + mmc_block, the
# kernel's default scheduler) as the control, once on ours (the same plus
# coalesce-iosched.ko, `coalesce` selected; block/005 then switches to and
# from it under I/O).  One result per test and stack.
#
# Prints KTAP (tests/lib/ktap.sh): the guest's document of each stack as
# subtest blktests/STACK (its setup checks, and one result per blktests
# test, named after it: "block/003"), then a failure of the host's when
# a test has no result from the guest or the ours stack did not run
# coalesce.
#
# BLKTESTS_DIR names a blktests tree (.ci/run points it at
# ../shared/blktests when that exists); without it the suite is skipped
# (one test, skipped).  BLKTESTS_TIMEOUT (default 25) is blktests' TIMEOUT:
# fio's --runtime in each test, so each fio-based test runs at most that
# long (block/005 up to 15 s more) -- except block/003: fio checks its
# runtime only between discards, and one random discard (4 KiB up to the
# rest of the card) cannot be cut short.  QEMU erases at about 7-20 MB/s
# (it writes every erased block), so the card here is 1 GiB
# (BLKTESTS_CARD_GIB): the longest discard is then about 2 minutes and
# block/003 takes 1-2 minutes (on the usual 4 GiB card: 3.5).  QEMU makes
# cards of up to 2 GiB SDSC, larger ones SDHC.
# BLKTESTS_STACKS (default "stock ours") picks the stacks, BLKTESTS_TESTS
# (default the four above) the tests, BLKTESTS_FLAVOR the guest kernel
# (qemu/run.sh --flavor: "6.12" for the 6.12 group).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
runs=$top/build/runs
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
# shellcheck source=tests/lib/kernel-reports.sh
. "$top/tests/lib/kernel-reports.sh"

TESTS=${BLKTESTS_TESTS:-block/003 block/004 block/005 block/012}
flavor=${BLKTESTS_FLAVOR:-}
timeout=${BLKTESTS_TIMEOUT:-25}
stacks=${BLKTESTS_STACKS:-stock ours}
card_gib=${BLKTESTS_CARD_GIB:-1}

ktap_begin blktests
if [ -z "${BLKTESTS_DIR:-}" ]; then
	missing blktests/all "BLKTESTS_DIR not set"
	ktap_end
	exit 0
fi
if [ ! -x "$BLKTESTS_DIR/check" ]; then
	missing blktests/all "BLKTESTS_DIR=$BLKTESTS_DIR is not a blktests tree (no ./check)"
	ktap_end
	exit 0
fi
diag "blktests: $BLKTESTS_DIR ($(cut -c1-12 "$BLKTESTS_DIR/UPSTREAM-COMMIT" 2>/dev/null || echo 'commit unknown')), TIMEOUT=$timeout s"

# every_test STACK WHY: the same failure for each test of a stack
every_test() {
	local t
	for t in $TESTS; do ko "blktests/$1/$t" "$2"; done
}

BLKTESTS_DIR=$BLKTESTS_DIR "$top/qemu/blktests-archive.sh" 2>&1 | sed 's/^/# /'
if [ "${PIPESTATUS[0]}" != 0 ]; then
	for stack in $stacks; do every_test "$stack" "could not build the blktests archive"; done
	ktap_end
	exit 1
fi

# Per stack: boot and unpacking ~60 s, three fio tests of $timeout s
# each and what overruns it (block/003: one discard, up to ~150 s on a
# 1 GiB card; block/004: starting 64 fio processes; block/005: 15 s),
# block/012 ~10 s.
limit=$((4 * timeout + 120 * card_gib + 360))

for stack in $stacks; do
	out=$runs/blktests${flavor:+-$flavor}-$stack
	start=$(date +%s)
	if [ "$stack" = ours ] &&
	   [ ! -e "$top/build/modules-x86_64${flavor:+-$flavor}/coalesce-iosched.ko" ]; then
		every_test ours "coalesce-iosched.ko not built (make modules)"
		continue
	fi
	diag "blktests on the $stack stack (TCG guest, ${card_gib} GiB card; the four tests on both stacks: usually $("$top/qemu/setup/duration.sh" blktests))"
	"$top/qemu/run.sh" --scenario blktests --stack "$stack" --out "$out" \
		${flavor:+--flavor "$flavor"} --no-trace --timeout "$limit" --card-gib "$card_gib" \
		--kopt "mmcc.blktests=${TESTS// /,} mmcc.blktests_timeout=$timeout" 2>&1 |
		sed 's/^/# /'
	rc=${PIPESTATUS[0]}
	# the guest's document: setup checks, one result per test
	ktap_nest -q "blktests/$stack" "$out/result.txt"
	kernel_reports "blktests/$stack/no_kernel_reports" "$out/console.log"
	# The scheduler the tests ran under (blktests restores it after 005).
	sched=$(sed -n 's/^KV schedulers=//p' "$out/result.txt" 2>/dev/null)
	diag "schedulers: ${sched:-?}"
	if [ "$stack" = ours ] && [[ $sched != *"[coalesce]"* ]]; then
		ko "blktests/$stack/scheduler" "coalesce was not the card's scheduler (${sched:-none reported})"
	fi
	for t in $TESTS; do
		# a result line "ok N block/003" or "not ok N block/003"
		grep -Eq "^ *(not )?ok [0-9]+ $t( |\$)" "$out/result.txt" 2>/dev/null && continue
		case $rc in
		3) ko "blktests/$stack/$t" "QEMU killed at the $limit s limit (see $out/console.log)" ;;
		*) ko "blktests/$stack/$t" "no result from the guest (run.sh exit $rc; see $out/console.log)" ;;
		esac
	done
	diag "blktests/$stack: $(( $(date +%s) - start )) s"
done

ktap_end
