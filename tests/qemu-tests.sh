#!/usr/bin/env bash
# QEMU scenarios for `make check`: each boots the guest, runs a scenario and
# turns the guest's "RESULT pass|fail NAME" lines into test results.
# A guest that hangs is killed at its time limit and counted as a failure.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
runs=$top/build/runs
cardtrace=$top/build/host/cardtrace
. "$top/tests/results.sh"
RUN_NO=0
rm -rf "$runs"/test-*


# scenario NAME STACK TIMEOUT [run.sh args...]: boot once, count results
scenario() {
	local name=$1 stack=$2 limit=$3 out rc start
	RUN_NO=$((RUN_NO + 1))
	out=$runs/test-$RUN_NO-$name-$stack
	shift 3
	start=$(date +%s)
	echo "-- $name on the $stack stack (TCG guest; usually under $((limit / 3)) s)"
	"$top/qemu/run.sh" --scenario "$name" --stack "$stack" --out "$out" \
		--timeout "$limit" "$@"
	rc=$?
	guest_results "$name/$stack" "$out/result.txt"
	case $rc in
	0) ok "$name/$stack/finished" ;;
	3) ko "$name/$stack/finished" "QEMU killed at the ${limit} s limit" ;;
	*) grep -q '^DONE' "$out/result.txt" && [ "$rc" = 1 ] &&
		ok "$name/$stack/finished" ||
		ko "$name/$stack/finished" "guest did not finish (see $out/console.log)" ;;
	esac
	echo "   ($(( $(date +%s) - start )) s)"
	LAST_OUT=$out
}

# The card saw the smoke test's writes: the trace parses and has writes.
trace_has_writes() {
	local out=$1 kv writes
	if [ ! -s "$out/trace.log" ]; then
		ko "$2/card_trace" "no QEMU trace in $out/trace.log"
		return
	fi
	kv=$("$cardtrace" --kv "$out/trace.log" 2>&1) || {
		ko "$2/card_trace" "analyzer failed: $kv"
		return
	}
	writes=$(echo "$kv" | sed -n 's/^writes=//p')
	if [ "${writes:-0}" -gt 0 ]; then
		ok "$2/card_trace"
	else
		ko "$2/card_trace" "the card saw no write commands"
	fi
}

# stat_of OUT NAME: a statistic the guest printed from our driver's debugfs
stat_of() { sed -n "s/^STAT $2 //p" "$1/result.txt" | tail -n 1; }

# Our full stack when the host driver is built, else stock host + our block.
if [ -e "$top/build/modules-x86_64/sdhci-coalesce.ko" ]; then
	OURS=ours
else
	OURS=ourblock
	echo "note: sdhci-coalesce.ko not built; testing our block driver on stock sdhci-pci"
fi

# Stock as the control, then ours on the same checks.
scenario smoke stock 300
trace_has_writes "$LAST_OUT" smoke/stock
scenario smoke $OURS 300
trace_has_writes "$LAST_OUT" smoke/$OURS
scenario smoke4 $OURS 300

scenario driver stock 300 --no-trace
scenario driver $OURS 300 --no-trace

# enable=0: same data, nothing held.
scenario smoke $OURS 300 --args enable=0 --no-trace
held=$(stat_of "$LAST_OUT" held)
if [ "$held" = 0 ]; then
	ok "smoke/$OURS/enable0_holds_nothing"
else
	ko "smoke/$OURS/enable0_holds_nothing" "held=${held:-missing}"
fi

# The seed workload through our driver: data and file system intact, and
# the window did its job (held writes, attached some to data writes).
scenario seed $OURS 900
held=$(stat_of "$LAST_OUT" held)
attached=$(stat_of "$LAST_OUT" released_attach)
if [ "${held:-0}" -gt 0 ] && [ "${attached:-0}" -gt 0 ]; then
	ok "seed/$OURS/window_held_and_attached"
else
	ko "seed/$OURS/window_held_and_attached" "held=${held:-?} attached=${attached:-?}"
fi
trace_has_writes "$LAST_OUT" seed/$OURS

# KUnit suites (reorder window; host driver registers and clock).
scenario kunit $OURS 300 --no-trace

# Odd card geometry: a 64 MiB SDSC card (byte addressing, the core's
# guessed AU), then the same card told its AU is 256 MiB, four times the
# card: everything is one AU, the window must still keep data intact.
tiny=$runs/tiny-sdsc.img
rm -f "$tiny"
truncate -s 64M "$tiny"
scenario smoke $OURS 300 --no-trace --card "$tiny"
au=$(stat_of "$LAST_OUT" au_sectors)
if [ -n "$au" ] && [ "$au" -gt 0 ]; then
	ok "smoke/$OURS/tiny_sdsc_au_sectors"; echo "   (AU: $au sectors)"
else
	ko "smoke/$OURS/tiny_sdsc_au_sectors" "au_sectors=${au:-missing}"
fi
truncate -s 0 "$tiny"
truncate -s 64M "$tiny"
scenario smoke $OURS 300 --no-trace --card "$tiny" --args au_kb=262144
au=$(stat_of "$LAST_OUT" au_sectors)
if [ "$au" = 524288 ]; then
	ok "smoke/$OURS/au_larger_than_card_taken"
else
	ko "smoke/$OURS/au_larger_than_card_taken" "au_sectors=${au:-missing}"
fi
rm -f "$tiny"

# Reliability (Documentation/reliability.md): fault injection at 1, 5 and
# 20 percent of data commands under a checksummed load, and fio with
# verify; stock as the control.
scenario faults $OURS 600 --no-trace
scenario faults stock 600 --no-trace
scenario load $OURS 600 --no-trace
scenario load stock 600 --no-trace

echo "$pass passed, $fail failed"
[ $fail = 0 ]
