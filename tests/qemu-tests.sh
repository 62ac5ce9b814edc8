#!/usr/bin/env bash
# QEMU scenarios for `make check`: each boots the guest, runs a scenario and
# turns the guest's "RESULT pass|fail NAME" lines into test results.
# A guest that hangs is killed at its time limit and counted as a failure.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
runs=$top/build/runs
cardtrace=$top/build/host/cardtrace
pass=0 fail=0

ok() { echo "PASS: $1"; pass=$((pass + 1)); }
ko() { echo "FAIL: $1: $2"; fail=$((fail + 1)); }

# scenario NAME STACK TIMEOUT [run.sh args...]: boot once, count results
scenario() {
	local name=$1 stack=$2 limit=$3 out=$runs/test-$1-$2 rc start
	shift 3
	start=$(date +%s)
	echo "-- $name on the $stack stack (TCG guest; usually under $((limit / 3)) s)"
	"$top/qemu/run.sh" --scenario "$name" --stack "$stack" --out "$out" \
		--timeout "$limit" "$@"
	rc=$?
	while read -r word verdict test why; do
		[ "$word" = RESULT ] || continue
		if [ "$verdict" = pass ]; then
			ok "$name/$stack/$test"
		else
			ko "$name/$stack/$test" "$why"
		fi
	done <"$out/result.txt"
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

scenario smoke stock 300
trace_has_writes "$LAST_OUT" smoke/stock

echo "$pass passed, $fail failed"
[ $fail = 0 ]
