# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The project's claim, asserted at the card: on the seed's workload the
# coalesce scheduler makes the card switch AUs less than stock
# mq-deadline does, and writes backward inside an AU no more often.
# Sourced by the host suites after tests/lib/ktap.sh.
#
#   card_score NAME RUN    score RUN's QEMU trace between phase markers
#                          1 and 2 into RUN/card.kv: ok NAME if the card
#                          saw at least the workload's file written there
#                          (the guest's KV file_kib), or ko NAME
#   card_claim NAME STOCK_KV OURS_KV [RATIO]
#                          ok NAME if ours' AU switches per AU are at most
#                          RATIO (default CARD_CLAIM_RATIO, 0.7) times
#                          stock's and ours' backward writes at most stock's
#
# Why 0.7: ours has measured 1.30-1.87 switches per AU on the x86_64 seed
# (6.1 and 6.12, untimed and on cheap12) against stock mq-deadline's
# 2.48-3.13 (Documentation/bench/results.tsv); the closest pair on one
# card, 1.87 against 2.68 on cheap12, is at 0.70 (ours before the sort of
# the head's AU; with it, 1.66). A scheduler that holds writes but sends
# them in arrival order scores as stock does (ratio near 1), and enable=0
# fails it (Documentation/reliability.md, "The claim at the card"). The
# e500 seed, scaled down to 34 AUs, is held to 0.85 on the medians of
# three pairs (tests/e500-tests.sh, E500_CLAIM_RATIO, says why).

CARD_CLAIM_RATIO=${CARD_CLAIM_RATIO:-0.7}
# the analyzer, build/host/cardtrace, unless the suite set it
: "${cardtrace:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/host/cardtrace}"

# card_kv_of KEY KVFILE
card_kv_of() { sed -n "s/^$1=//p" "$2" | head -n 1; }

card_score() {
	local name=$1 run=$2 base kib bytes
	base=$(sed -n 's/^KV marker_base=//p' "$run/result.txt" 2>/dev/null | head -n 1)
	kib=$(sed -n 's/^KV .*file_kib=\([0-9]*\).*/\1/p' "$run/result.txt" 2>/dev/null | head -n 1)
	if [ -z "$base" ] || [ -z "$kib" ] || [ ! -s "$run/trace.log" ]; then
		ko "$name" "no marker, no file_kib or no QEMU trace in $run"
		return 1
	fi
	if ! "$cardtrace" --marker-base "$base" --from 1 --to 2 --kv \
		"$run/trace.log" >"$run/card.kv" 2>"$run/card.err"; then
		ko "$name" "analyzer: $(head -n 1 "$run/card.err")"
		return 1
	fi
	# the workload syncs before marker 2: its whole file is on the card
	bytes=$(card_kv_of bytes_written "$run/card.kv")
	if [ "${bytes:-0}" -ge $((kib * 1024)) ] 2>/dev/null; then
		ok "$name"
		return 0
	fi
	ko "$name" "the card saw ${bytes:-no} bytes written between markers 1 and 2, the file is $((kib * 1024))"
	return 1
}

# card_median_kv OUT KV... : OUT gets the median of each claim key
# (switch_ratio, backward_writes) over the KV files (an odd number)
card_median_kv() {
	local out=$1 key
	shift
	: >"$out"
	for key in switch_ratio backward_writes; do
		printf '%s=%s\n' "$key" "$(for f in "$@"; do card_kv_of "$key" "$f"; done |
			sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2] }')"
	done >>"$out"
}

card_claim() {
	local name=$1 stock=$2 ours=$3 ratio=${4:-$CARD_CLAIM_RATIO} s o sb ob
	s=$(card_kv_of switch_ratio "$stock" 2>/dev/null)
	o=$(card_kv_of switch_ratio "$ours" 2>/dev/null)
	sb=$(card_kv_of backward_writes "$stock" 2>/dev/null)
	ob=$(card_kv_of backward_writes "$ours" 2>/dev/null)
	if [ -z "$s" ] || [ -z "$o" ] || [ -z "$sb" ] || [ -z "$ob" ]; then
		ko "$name" "a run was not scored (stock ${s:-?}, ours ${o:-?} switches per AU)"
		return
	fi
	diag "AU switches per AU: ours $o, stock $s (bound ${ratio}x); backward writes: ours $ob, stock $sb"
	if awk -v s="$s" -v o="$o" -v r="$ratio" -v sb="$sb" -v ob="$ob" \
		'BEGIN { exit !(s > 0 && o <= r * s && ob <= sb) }'; then
		ok "$name"
	else
		ko "$name" "ours $o switches per AU and $ob backward writes, stock $s and $sb (bound: ${ratio}x and stock's)"
	fi
}
