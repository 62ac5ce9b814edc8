#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# QEMU scenarios for `make check`, as KTAP (tests/lib/ktap.sh): each boots
# the guest and runs a scenario; the guest's own KTAP document (result.txt)
# becomes a subtest named LABEL/STACK, and the host's checks of the run
# follow it as LABEL/STACK/finished, .../card_trace and so on.
# A guest that hangs is killed at its time limit and counted as a failure.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
runs=$top/build/runs
cardtrace=$top/build/host/cardtrace
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
# shellcheck source=tests/lib/kernel-reports.sh
. "$top/tests/lib/kernel-reports.sh"
# shellcheck source=tests/lib/card-claim.sh
. "$top/tests/lib/card-claim.sh"
RUN_NO=0
rm -rf "$runs"/test-*
ktap_begin qemu


# [LABEL=L] scenario NAME STACK TIMEOUT [run.sh args...]: boot once; the
# guest's results as subtest L/STACK (L defaulting to NAME)
scenario() {
	local name=$1 stack=$2 limit=$3 out rc start label=${LABEL:-$1}
	RUN_NO=$((RUN_NO + 1))
	out=$runs/test-$RUN_NO-$label-$stack
	shift 3
	start=$(date +%s)
	diag "$label on the $stack stack (TCG guest; usually under $((limit / 3)) s)"
	"$top/qemu/run.sh" --scenario "$name" --stack "$stack" --out "$out" \
		--timeout "$limit" "$@" 2>&1 | sed 's/^/# /'
	rc=${PIPESTATUS[0]}
	ktap_nest -q "$label/$stack" "$out/result.txt"
	case $rc in
	0) ok "$label/$stack/finished" ;;
	3) ko "$label/$stack/finished" "QEMU killed at the ${limit} s limit" ;;
	*)
		if grep -q '^DONE' "$out/result.txt" && [ "$rc" = 1 ]; then
			ok "$label/$stack/finished"
		else
			ko "$label/$stack/finished" "guest did not finish (see $out/console.log)"
		fi
		;;
	esac
	[ "${KERNEL_REPORTS_EXPECTED:-0}" = 1 ] ||
		kernel_reports "$label/$stack/no_kernel_reports" "$out/console.log"
	diag "$label/$stack: $(( $(date +%s) - start )) s"
	LAST_OUT=$out
}

# stat_of OUT NAME: a statistic the guest printed from the scheduler's
# debugfs (block/DISK/sched/stats)
stat_of() { sed -n "s/^STAT $2 //p" "$1/result.txt" | tail -n 1; }

# ours: the coalesce scheduler (coalesce-iosched.ko) on stock sdhci-pci +
# mmc_block (our host driver is the e500 group's: tests/e500-tests.sh).
OURS=ours
[ -e "$top/build/modules-x86_64/coalesce-iosched.ko" ] ||
	diag "note: coalesce-iosched.ko not built (make modules): the $OURS runs will fail"

# The console check can fail: LKDTM makes each detector report once (a
# WARN_ON, a hung task, a soft lockup, an RCU stall; two vCPUs, so that
# the stall is seen), and the check must see each report.
KERNEL_REPORTS_EXPECTED=1 scenario lkdtm stock 300 --no-trace --smp 2
detectors_check lkdtm/stock "$LAST_OUT/console.log"

# Stock as the control, then ours on the same checks.
scenario smoke stock 300 --no-trace
scenario smoke $OURS 300 --no-trace
scenario smoke4 $OURS 300
# A USB stick (qemu-xhci + usb-storage) instead of the card.
LABEL=smoke-usb scenario smoke $OURS 300 --usb --no-trace
au=$(stat_of "$LAST_OUT" au_sectors)
if [ "$au" = 8192 ]; then
	ok "smoke-usb/$OURS/au_4mib_on_usb"
else
	ko "smoke-usb/$OURS/au_4mib_on_usb" "au_sectors=${au:-missing} (au_kb=4096 on a USB stick)"
fi

scenario driver stock 300 --no-trace
scenario driver $OURS 300 --no-trace

# enable=0: same data, nothing held.
LABEL=smoke-enable0 scenario smoke $OURS 300 --args enable=0 --no-trace
held=$(stat_of "$LAST_OUT" held)
if [ "$held" = 0 ]; then
	ok "smoke-enable0/$OURS/enable0_holds_nothing"
else
	ko "smoke-enable0/$OURS/enable0_holds_nothing" "held=${held:-missing}"
fi

# The seed workload, stock mq-deadline and then the scheduler: data and
# file system intact, the whole file at the card within the workload's
# phase, and the card switched AUs less (the project's claim,
# tests/lib/card-claim.sh).
scenario seed stock 900 --elevator mq-deadline
seed_stock=$LAST_OUT
card_score seed/stock/card_scored "$seed_stock"
scenario seed $OURS 900 --kopt mmcc.issue_trace=1
card_score seed/$OURS/card_scored "$LAST_OUT"
card_claim seed/$OURS/fewer_au_switches_than_stock "$seed_stock/card.kv" "$LAST_OUT/card.kv"

# admin-guide.md's "Measure your own card" on the kernel's own text: the
# block_rq_issue events tracefs recorded in the guest from marker 1 to 2,
# scored by cardtrace, give the write commands and AU switches QEMU's
# card received in the same stretch.
base=$(sed -n 's/^KV marker_base=//p' "$LAST_OUT/result.txt" | head -n 1)
sed -n 's/^ISSUE //p' "$LAST_OUT/result.txt" >"$LAST_OUT/issue.txt"
"$cardtrace" --marker-base "${base:-0}" --from 1 --to 2 --kv \
	"$LAST_OUT/issue.txt" >"$LAST_OUT/issue.kv" 2>/dev/null
recipe="$(card_kv_of writes "$LAST_OUT/issue.kv") $(card_kv_of au_switches "$LAST_OUT/issue.kv")"
card="$(card_kv_of writes "$LAST_OUT/card.kv") $(card_kv_of au_switches "$LAST_OUT/card.kv")"
if [ -n "$base" ] && [ "$recipe" = "$card" ] && [ "${card%% *}" -gt 100 ] 2>/dev/null; then
	diag "writes and AU switches: tracefs $recipe, the card $card"
	ok "seed/$OURS/recipe_trace_matches_card"
else
	ko "seed/$OURS/recipe_trace_matches_card" "writes and AU switches: tracefs '$recipe', the card '$card'"
fi

# The seed on FAT32, the file system SD cards ship with, and the numbered
# pattern read back after sync and after a remount. FAT locks buffers of
# its table (fat_mirror_bhs()) that a held write holds locked; the waiter
# probe must free them, or the writer sleeps until an idle release (1 s
# and more) and the card with it. So, while the stream runs (markers 1 to
# 2): the stretches with no card activity at all (QEMU's sdcard and sdhci
# events) that end in a write of at most 16 KiB, one the window may have
# held. Those over 0.2 s add up to under 5 s. On a loaded host (2026-12-03)
# runs with the probe had 0.0-1.2 s of them, the longest 0.14-0.94 s; with
# its BH_Lock branch removed, 30.4 s in 30 stretches of 1 s. (The pause
# between the starts of two writes tells nothing under TCG: it holds a
# 512 KiB transfer and the guest's own slowness, 3.3 s and 4.0 s.)
idle_before_small() { # RUN: "SUM_S LONGEST_MS"
	local base
	base=$(sed -n 's/^KV marker_base=//p' "$1/result.txt" | head -n 1)
	[ -n "$base" ] || return
	"$cardtrace" --marker-base "$base" --from 1 --to 2 --dump "$1/trace.log" 2>/dev/null |
		awk '$2 == "W" || $2 == "R" { print "C", $1, $2, $4 }' >"$1/idle.cmds"
	awk -F'[@:]' '{ printf "T %.0f\n", $2 * 1e6 }' "$1/trace.log" |
		cat "$1/idle.cmds" - | awk '
		$1 == "C" { small[$2] = $3 == "W" && $4 <= 32; if (!t0) t0 = $2; t1 = $2; next }
		{ t = $2
		  if (t >= t0 && t <= t1 && (t in small) && small[t] && last) {
			g = t - last
			if (g > 200000) sum += g
			if (g > m) m = g
		  }
		  last = t }
		END { if (t0) printf "%.2f %.1f\n", sum / 1e6, m / 1000 }'
}
scenario fat32 $OURS 900
card_score fat32/$OURS/card_scored "$LAST_OUT"
read -r idle longest < <(idle_before_small "$LAST_OUT")
if awk -v s="${idle:-}" 'BEGIN { exit !(s != "" && s < 5) }'; then
	diag "fat32: card idle before small writes ${idle} s, longest ${longest} ms"
	ok "fat32/$OURS/no_stall_at_the_card"
else
	ko "fat32/$OURS/no_stall_at_the_card" "the card sat idle ${idle:-?} s before small writes (bound 5 s; longest ${longest:-?} ms)"
fi

# Absorption (Documentation/reorder-window.md): writers keep changing the
# block device's buffers while the writes that carry them are held and
# dispatched (raw writers, ext2 and FAT32 file churn beside a stream, raw
# writers on a slow null_blk); after sync every block and file reads back
# as last written, fsck is clean, and each part absorbed updates. Two
# vCPUs, so that the writers run while a write is on the card.
scenario absorb $OURS 900 --smp 2 --no-trace --kopt mmcc.absorb_seconds=10

# The seed on f2fs with ours: f2fs sends its metadata with flags of its
# own (REQ_META, and checkpoints with a preflush and FUA); the
# numbered pattern is read back after sync and after a remount, and
# fsck.f2fs finds the file system clean.
scenario f2fs $OURS 900
card_score f2fs/$OURS/card_scored "$LAST_OUT"

# A timed card (the cardtime nbdkit filter, profile cheap12): the smoke
# test passes through it, the filter charged time, the run took at least
# that long, and the analyzer's estimate from QEMU's trace of the same run
# agrees with what the filter charged within 5 %. Its limit is twice the
# other smoke runs': every 512-byte block QEMU's card reads or writes is an
# NBD round trip to the filter, so fsck alone took 150 s on a slow host
# (105 s in all on a normal one) and 300 s was hit once.
# shellcheck source=tests/tools/card-time.sh
. "$top/tests/tools/card-time.sh"
t0=$(date +%s.%N)
LABEL=smoke-timed scenario smoke $OURS 600 --card-profile cheap12
wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
read -r charged est < <(charged_vs_trace "$LAST_OUT")
if awk -v c="$charged" -v e="$est" 'BEGIN { exit !(c > 0 && e > 0 &&
	c - e <= 0.05 * e && e - c <= 0.05 * e) }'; then
	diag "filter charged $charged s, analyzer from the trace $est s"
	ok "smoke-timed/$OURS/charged_matches_trace"
else
	ko "smoke-timed/$OURS/charged_matches_trace" "filter charged ${charged:-?} s, analyzer estimate ${est:-?} s"
fi
if awk -v c="$charged" -v w="$wall" 'BEGIN { exit !(c > 0 && w >= c) }'; then
	ok "smoke-timed/$OURS/run_took_charged_time"
else
	ko "smoke-timed/$OURS/run_took_charged_time" "run took $wall s, charged ${charged:-?} s"
fi

# flashbench's open-AU test (the openau scenario, on the raw card, stock
# stack) against the timed card of every profile in
# qemu/cardtime/profiles.h: writing the profile's number of open AUs in
# turn costs the card about what writing one does, and one AU more falls
# off a cliff (every AU/16 piece then closes an AU part written). The
# speeds compared are the card's: the bytes each flashbench run wrote
# over the seconds the card charged for it (the filter's marks at the
# guest's phase markers). flashbench's own figures are guest time, and
# under TCG the CPU's time, which other work on the host stretches, is
# most of it; they are printed, not asserted. The profiles with more than
# two open AUs run with 1 MiB AUs (the filter's au= override; the open
# count and order are the profile's), which keeps the megabytes
# flashbench writes, N AUs of AU bytes five times over, to about a minute
# of guest time each.
profile_geometry() { # NAME: "AU_MIB OPEN" from profiles.h
	awk -v n="$1" 'index($0, "{ \"" n "\",") { getline; gsub(/,/, " ");
		print $1, $4; exit }' "$top/qemu/cardtime/profiles.h"
}
card_kbps() { # RUN PHASE: KB/s the card was charged for, markers PHASE to PHASE+1
	local base
	base=$(sed -n 's/^KV marker_base=//p' "$1/result.txt" | head -n 1)
	[ -n "$base" ] || return
	awk -v a=$((base + 8 * $2)) -v b=$((base + 8 * ($2 + 1))) '
		!sub(/^mark=/, "") { next }
		$1 == a { s0 = $2; b0 = $3 }
		$1 == b { s1 = $2; b1 = $3 }
		END { if (s1 > s0 && b1 > b0) printf "%d", (b1 - b0) / (s1 - s0) / 1000 }' \
		"$1/cardtime.txt" 2>/dev/null
}
mapfile -t profiles < <(sed -n 's/^\t{ "\([a-z0-9-]*\)",.*/\1/p' \
	"$top/qemu/cardtime/profiles.h")
[ ${#profiles[@]} -ge 4 ] || ko openau/profiles_found "${#profiles[@]} profiles read from qemu/cardtime/profiles.h"
for p in "${profiles[@]}"; do
	read -r au_mib open < <(profile_geometry "$p")
	card=$p au_bytes=$((au_mib * 1048576))
	if [ "$open" -gt 2 ]; then
		card=$p,au=1M au_bytes=1048576
	fi
	nrs=1,$open,$((open + 1))
	[ "$open" != 1 ] || nrs=1,2
	LABEL=openau-$p scenario openau stock 600 --no-trace --card-profile "$card" \
		--kopt "mmcc.openau_au=$au_bytes mmcc.openau_nr=$nrs"
	r=$LAST_OUT/result.txt
	took=$(sed -n 's/^open_aus=//p' "$LAST_OUT/cardtime.txt" 2>/dev/null)
	diag "openau-$p: guest KB/s with 1, $open, $((open + 1)) AUs:" \
		"$(sed -n 's/^KV openau_kbps_[0-9]*=//p' "$r" | tr '\n' ' ')(filter: ${took:-?} open)"
	one=$(card_kbps "$LAST_OUT" 1)
	at=$one past=$(card_kbps "$LAST_OUT" 2)
	if [ "$open" -gt 1 ]; then
		at=$past past=$(card_kbps "$LAST_OUT" 3)
	fi
	diag "openau-$p: card KB/s with 1, $open, $((open + 1)) AUs: ${one:-?} ${at:-?} ${past:-?}"
	if [ "$open" -gt 1 ]; then
		if awk -v a="${at:-0}" -v o="${one:-0}" 'BEGIN { exit !(o > 0 && a >= 0.8 * o) }'; then
			ok "openau-$p/no_cliff_at_${open}_open_aus"
		else
			ko "openau-$p/no_cliff_at_${open}_open_aus" "card ${at:-?} KB/s with $open AUs against ${one:-?} with one"
		fi
	fi
	if awk -v a="${at:-0}" -v b="${past:-0}" 'BEGIN { exit !(a > 0 && b > 0 && b <= 0.5 * a) }'; then
		ok "openau-$p/cliff_at_$((open + 1))_aus"
	else
		ko "openau-$p/cliff_at_$((open + 1))_aus" "card ${past:-?} KB/s with $((open + 1)) AUs against ${at:-?} with $open"
	fi
done

# fsync() latency beside a stream (the bench's fsync scenario): the probe
# and the stream finish, the file system is intact.
scenario fsync $OURS 300 --no-trace

# KUnit suites (the scheduler's reorder window; host driver registers and
# clock).
scenario kunit $OURS 300 --no-trace

# Odd card geometry: a 64 MiB SDSC card (byte addressing; QEMU's card
# gives no AU, so the core guesses 512 KiB for a card under 128 MiB,
# mmc_init_erase(), and mmc_block's discard granularity carries it: the
# window's AU must be that, not its 4 MiB default), then the same card
# told its AU is 256 MiB, four times the card: everything is one AU, the
# window must still keep data intact.
tiny=$runs/tiny-sdsc.img
rm -f "$tiny"
truncate -s 64M "$tiny"
LABEL=smoke-sdsc scenario smoke $OURS 300 --no-trace --card "$tiny"
au=$(stat_of "$LAST_OUT" au_sectors)
if [ "$au" = 1024 ]; then
	ok "smoke-sdsc/$OURS/tiny_sdsc_au_sectors"
else
	ko "smoke-sdsc/$OURS/tiny_sdsc_au_sectors" "au_sectors=${au:-missing}, the core's guess for a 64 MiB card is 1024"
fi
truncate -s 0 "$tiny"
truncate -s 64M "$tiny"
LABEL=smoke-bigau scenario smoke $OURS 300 --no-trace --card "$tiny" --args au_kb=262144
au=$(stat_of "$LAST_OUT" au_sectors)
if [ "$au" = 524288 ]; then
	ok "smoke-bigau/$OURS/au_larger_than_card_taken"
else
	ko "smoke-bigau/$OURS/au_larger_than_card_taken" "au_sectors=${au:-missing}"
fi
rm -f "$tiny"

# Reliability (Documentation/reliability.md): fault injection at 1, 5 and
# 20 percent of data commands under a checksummed load, and fio with
# verify; stock as the control.
scenario faults $OURS 600 --no-trace
scenario faults stock 600 --no-trace
scenario load $OURS 600 --no-trace
scenario load stock 600 --no-trace

ktap_end
