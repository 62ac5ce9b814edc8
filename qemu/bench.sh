#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Card-level benchmark: run each scenario under each elevator, analyze what
# the emulated card received, and print one table (also written to
# build/bench/table.md, with each run's files under build/bench/).
#
# Environment:
#   SCENARIOS  default "seed ext4 fio smallfiles"
#   ELEVATORS  default "none mq-deadline bfq kyber" (the stock stacks')
#   STACKS     default "stock stock+wbt0 ours"; "+wbt0": writeback
#              throttling off. ours is the coalesce elevator on stock
#              sdhci-pci + mmc_block: it runs once per scenario (elevator
#              column "coalesce"), not once per elevator; "ours+A=V,...":
#              ours with those module parameters (e.g. ours+absorb=0)
#   USB        default 1: also the seed on a USB stick (qemu-xhci +
#              usb-storage; rows "seed-usb"), stock mq-deadline against
#              ours (coalesce, au_kb=4096); 0: not
#   CARDTRACE_ARGS  extra analyzer options (card model), e.g. "--open-aus 4"
#   CARD_PROFILE    a timed card: every run serves the card through the
#              cardtime nbdkit filter with this profile (qemu/run.sh
#              --card-profile, e.g. "cheap12"), so the guest waits what the
#              modelled card would take; rows get card=PROFILE, the seconds
#              the filter charged and the analyzer's estimate of them from
#              the trace; files go to build/bench-card-PROFILE/; USB is
#              not timed (default 0 here). A seed run: the seed-run-timed
#              row of Documentation/benchmarks.md
#   FLAVOR     the guest kernel: empty (Linux 6.1, the default) or 6.12
#              (qemu/run.sh --flavor 6.12); rows carry the kernel's
#              version, files go to build/bench-6.12/ (untimed)
#   REPEAT     default 1: run every row this many times (rows rep=1..N);
#              the summary gives medians and the spread
# Option --reuse: keep the guest runs already in the output directory and
# only analyze again (to score the same traces under another card model).
# Option --merge DIR...: no runs; the rows of earlier runs' DIR/results.tsv
# together (two benches run side by side, one per core), summarized, and
# published with BENCH_PUBLISH=1 (the same CARD_PROFILE as those runs).
# How long a run and the default set take: the seed-run and bench rows of
# Documentation/benchmarks.md ("How long things take").
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cardtrace=$top/build/host/cardtrace
card=${CARD_PROFILE:-}
if [ -n "$card" ]; then
	out_dir=${BENCH_DIR:-$top/build/bench-card-${card//[^A-Za-z0-9=.-]/_}}
else
	out_dir=${BENCH_DIR:-$top/build/bench${FLAVOR:+-$FLAVOR}}
fi
repeat=${REPEAT:-1}
case $repeat in '' | *[!0-9]* | 0) echo "bench: REPEAT must be a positive integer" >&2; exit 2 ;; esac
scenarios=${SCENARIOS:-seed ext4 fio smallfiles}
# The default set (no SCENARIOS/STACKS/ELEVATORS/USB/CARDTRACE_ARGS given)
# replaces the committed Documentation/bench/results.tsv and the README's
# table made from it; any other set only writes build/bench/results.tsv.
full=1
[ -z "${SCENARIOS:-}${STACKS:-}${ELEVATORS:-}${USB:-}${CARDTRACE_ARGS:-}${CARD_PROFILE:-}${REPEAT:-}" ] || full=0
# BENCH_PUBLISH=1: publish a partial set anyway (its rows say what ran)
[ "${BENCH_PUBLISH:-0}" = 1 ] && full=1
elevators=${ELEVATORS:-none mq-deadline bfq kyber}
stacks=${STACKS:-stock stock+wbt0 ours}
usb=${USB:-1}
[ -z "$card" ] || usb=${USB:-0}
[ -z "$card" ] || [ "$usb" = 0 ] || { echo "bench: CARD_PROFILE times the SD card only: not with USB=1" >&2; exit 2; }
read -r -a model <<<"${CARDTRACE_ARGS:-}"
mkdir -p "$out_dir"
table=$out_dir/table.md
tsv=$out_dir/results.tsv
runs=0 failed=0
reuse=0 merge=()
[ "${1:-}" = --reuse ] && reuse=1
if [ "${1:-}" = --merge ]; then
	shift
	merge=("$@")
	[ ${#merge[@]} -gt 0 ] || { echo "bench: --merge needs the output directories of earlier runs" >&2; exit 2; }
fi

# kv_get, charged_vs_trace
. "$top/tests/tools/card-time.sh"

{
	echo "| scenario | stack | elevator | write cmds | <= 16 KiB | AU switches | distinct AUs | switches / ideal | backward in AU | est. MB/s linear-only | est. / limit | est. MB/s any-order | est. / limit | guest MB/s | before sync | sync s | card s charged / trace est. | fsync p50 / p99 ms | est. s linear-only / floor s |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
} >"$table"
# Columns, in this order (tests/tools/bench-tables.sh and the summaries below
# find them by name). guest_mbps: the workload and its sync;
# workload_mbps: before the sync (what dd itself reports); card: "untimed"
# or the cardtime profile; charged_s: seconds the filter charged for the
# whole run; trace_est_s: the analyzer's estimate of that from the trace;
# floor_linear_s: what no order of the workload's writes beats on the
# linear-only card (Documentation/card-cost-model.md, "The floor");
# est_linear_over_floor: the linear-only estimate of this run's order
# over it; workload_est_s: that estimate, the workload's card seconds
# (what a timed card charges for it, within 5 %); rewritten_blocks: 4 KiB
# blocks the workload wrote more than once (a rewrite reopens an AU).
cols=(scenario stack elevator write_cmds small_writes au_switches distinct_aus
	switches_per_au backward_in_au est_linear_mbps est_linear_over_limit
	est_any_mbps est_any_over_limit guest_mbps workload_mbps sync_s card
	charged_s trace_est_s fsync_n fsync_p50_ms fsync_p99_ms rep date kernel
	floor_linear_s est_linear_over_floor workload_est_s rewritten_blocks)
(IFS=$'\t'; echo "${cols[*]}") >"$tsv"
flavor=${FLAVOR:-}
ksrc=$top/build/linux-6.1
[ "$flavor" != 6.12 ] || ksrc=$top/build/linux-6.12
kernel=$(sed -n 's/^VERSION = //p; s/^PATCHLEVEL = //p; s/^SUBLEVEL = //p' \
	"$ksrc/Makefile" 2>/dev/null | paste -sd. -)
today=$(date +%F)

# result_kv KEY FILE: the value of KEY in the guest's "KV k=v k=v" lines
result_kv() {
	awk -v k="$1" '$1 == "KV" { for (i = 2; i <= NF; i++)
		if (index($i, k "=") == 1) { print substr($i, length(k) + 2); exit } }' "$2"
}

# Row formatting: KiB/s as MB/s; A / B to two decimals; "-" for empty
mb() { awk -v k="$1" 'BEGIN { if (k == "") print "-"; else printf "%.2f", k * 1024 / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
dash() { echo "${1:--}"; }
s1() { awk -v x="$1" 'BEGIN { if (x == "") print "-"; else printf "%.1f", x }'; }

# bench_run LABEL SCENARIO STACK ELEVATOR REP [run.sh args...]: one guest
# run (or its files from an earlier run with --reuse) and one table row
bench_run() {
	local label=$1 scen=$2 stack=$3 elv=$4 rep=$5 run kopt='' elv_opt=() card_opt=()
	local charged est row
	shift 5
	# (QEMU's -drive takes no comma in a file name)
	run=$out_dir/$label-${stack//,/_}-$elv
	[ "$rep" = 1 ] || run=$run-r$rep
	runs=$((runs + 1))
	echo "bench: $label, $stack stack, elevator $elv${card:+, timed card $card}, run $rep of $repeat..." >&2
	# "stock+wbt0": stock with writeback throttling off, as the
	# scheduler runs it (it turns wbt off itself)
	case $stack in *+wbt0) kopt=mmcc.wbt_lat_usec=0 ;; esac
	# "ours+NAME=V,...": the scheduler with those module parameters
	case $stack in ours+*) set -- --args "${stack#ours+}" "$@" ;; esac
	# usb-storage queues one command, so the block layer gives the
	# stick's scheduler 2 requests, which leaves no room to hold any:
	# both stacks get 128 there (echo 128 > queue/nr_requests)
	case $label in *-usb) kopt="$kopt mmcc.nr_requests=128" ;; esac
	# ours is the elevator: no --elevator for it
	case $stack in ours*) ;; *) elv_opt=(--elevator "$elv") ;; esac
	[ -z "$card" ] || card_opt=(--card-profile "$card")
	if [ $reuse = 1 ] && grep -qs '^DONE' "$run/result.txt"; then
		echo "bench: reusing $run" >&2
	elif ! "$top/qemu/run.sh" --scenario "$scen" --stack "${stack%%+*}" \
		${flavor:+--flavor "$flavor"} \
		--kopt "$kopt" "${elv_opt[@]}" "${card_opt[@]}" --out "$run" \
		--timeout 2400 "$@" >&2; then
		echo "bench: $label/$stack/$elv failed; see $run/console.log" >&2
		failed=$((failed + 1))
		echo "| $label | $stack | $elv | run failed | | | | | | | | | | | | | | | |" >>"$table"
		return
	fi
	base=$(sed -n 's/^KV marker_base=//p' "$run/result.txt")
	"$cardtrace" --marker-base "$base" --from 1 --to 2 "${model[@]}" \
		--kv "$run/trace.log" >"$run/card.kv"
	"$cardtrace" --marker-base "$base" --from 1 --to 2 \
		--dump "$run/trace.log" >"$run/commands.txt"
	read -r charged est < <(charged_vs_trace "$run")
	k=$run/card.kv
	lim=$(kv_get limit_s "$k")
	r=$run/result.txt
	row=("$label" "$stack" "$elv" "$(kv_get writes "$k")"
		"$(kv_get small_writes "$k")" "$(kv_get au_switches "$k")"
		"$(kv_get distinct_aus "$k")" "$(kv_get switch_ratio "$k")"
		"$(kv_get backward_writes "$k")" "$(kv_get est_linear_mbps "$k")"
		"$(ratio "$(kv_get est_linear_s "$k")" "$lim")" "$(kv_get est_any_mbps "$k")"
		"$(ratio "$(kv_get est_any_s "$k")" "$lim")"
		"$(mb "$(result_kv guest_kbps "$r")")"
		"$(mb "$(result_kv workload_kbps "$r")")"
		"$(dash "$(result_kv sync_seconds "$r")")" "${card:-untimed}"
		"$charged" "$est" "$(dash "$(result_kv fsync_n "$r")")"
		"$(dash "$(result_kv fsync_p50_ms "$r")")"
		"$(dash "$(result_kv fsync_p99_ms "$r")")" "$rep" "$today" "$kernel"
		"$(kv_get floor_linear_s "$k")" "$(kv_get est_linear_over_floor "$k")"
		"$(kv_get est_linear_s "$k")" "$(kv_get rewritten_blocks "$k")")
	printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s / %s | %s / %s (%sx) |\n' \
		"${row[@]:0:16}" "$charged" "$est" "${row[20]}" "${row[21]}" \
		"$(s1 "$(kv_get est_linear_s "$k")")" "$(s1 "${row[25]}")" "${row[26]}" >>"$table"
	(IFS=$'\t'; echo "${row[*]}") >>"$tsv"
}

for rep in $(seq 1 "$repeat"); do
	[ ${#merge[@]} = 0 ] || break
	for scen in $scenarios; do
		for stack in $stacks; do
			case $stack in
			ours*) bench_run "$scen" "$scen" "$stack" coalesce "$rep" ;;
			*)
				for elv in $elevators; do
					bench_run "$scen" "$scen" "$stack" "$elv" "$rep"
				done ;;
			esac
		done
	done
	# The seed on a USB stick: the same workload, the stick's SCSI
	# commands (qemu/run.sh --usb converts them to the analyzer's format)
	if [ "$usb" = 1 ]; then
		bench_run seed-usb seed stock mq-deadline "$rep" --usb
		bench_run seed-usb seed ours coalesce "$rep" --usb
	fi
done

for d in "${merge[@]}"; do
	[ -s "$d/results.tsv" ] || { echo "bench: --merge: no $d/results.tsv" >&2; exit 2; }
	head -n 1 "$d/results.tsv" | cmp -s - <(head -n 1 "$tsv") ||
		{ echo "bench: --merge: $d/results.tsv has other columns" >&2; exit 2; }
	tail -n +2 "$d/results.tsv" >>"$tsv"
	grep -h '^| [a-z]' "$d/table.md" | grep -v '^| scenario ' >>"$table" || true
	runs=$((runs + $(tail -n +2 "$d/results.tsv" | wc -l)))
done
echo
echo "Card model: $("$cardtrace" "${model[@]}" /dev/null | sed -n 's/^card model: //p')"
echo "Counts cover the workload and its sync (between phase markers 1 and 2)."
echo
cat "$table"

# Ours against the best stock row of each scenario (any elevator, with or
# without wbt), from this same run: never more write commands or writes of
# 16 KiB or less; and on the seed, AU switches per distinct AU against the
# about 1.4 the earlier replacement block driver reached.
echo
echo "Ours against stock's best row per scenario (this run):"
echo
echo "| scenario | write cmds: ours / stock's fewest | <= 16 KiB: ours / stock's fewest | AU switches / distinct AUs: ours, stock's lowest |"
echo "|---|---|---|---|"
awk -F'\t' '
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["write_cmds"] !~ /^[0-9]+$/ { next }
	{ s = $c["scenario"] }
	$c["stack"] ~ /^stock/ {
		if (!(s in sc) || $c["write_cmds"] + 0 < sc[s]) sc[s] = $c["write_cmds"]
		if (!(s in ss) || $c["small_writes"] + 0 < ss[s]) ss[s] = $c["small_writes"]
		if (!(s in sa) || $c["switches_per_au"] + 0 < sa[s]) sa[s] = $c["switches_per_au"]
		next
	}
	{
		# repeated rows: the last run of ours
		if (!(s in oc)) order[++n] = s
		oc[s] = $c["write_cmds"]; os[s] = $c["small_writes"]; oa[s] = $c["switches_per_au"]
	}
	function v(o, st) { return sprintf("%s / %s (%s)", o, st, o + 0 <= st + 0 ? "met" : "missed") }
	END {
		for (i = 1; i <= n; i++) {
			s = order[i]
			if (!(s in sc)) continue
			a = oa[s] ", " sa[s]
			if (s == "seed")
				a = a sprintf(" (target <= 1.4: %s)", oa[s] + 0 <= 1.4 ? "met" : "missed")
			printf "| %s | %s | %s | %s |\n", s, v(oc[s], sc[s]), v(os[s], ss[s]), a
		}
	}' "$tsv"
if [ "$repeat" -gt 1 ] || [ -n "$card" ]; then
	echo
	echo "Medians (min-max) over the runs of each row:"
	echo
	"$top/tests/tools/bench-summary.sh" "$tsv"
fi
# Publish: the default set (or BENCH_PUBLISH=1) replaces the rows of its
# card (untimed, or the profile) and kernel series (6.1 or 6.12) in
# Documentation/bench/results.tsv and keeps the other rows; columns are
# matched by name.
if [ $full = 1 ] && [ $failed = 0 ]; then
	pub=$top/Documentation/bench/results.tsv
	mkdir -p "$top/Documentation/bench"
	[ -s "$pub" ] || cp "$tsv" "$pub"
	awk -F'\t' -v OFS='\t' -v card="${card:-untimed}" -v series="${kernel%.*}" '
		FNR == 1 { file++; delete c; for (i = 1; i <= NF; i++) c[$i] = i }
		FNR == 1 && file == 1 { n = NF; for (i = 1; i <= NF; i++) name[i] = $i; print }
		FNR == 1 || file == 1 { next }
		{
			# file 2: the published rows, less this card'"'"'s; file 3: this run
			have = ("card" in c) ? $c["card"] : "untimed"
			k = ("kernel" in c) ? $c["kernel"] : ""
			sub(/\.[0-9]+$/, "", k)
			if (file == 2 && have == card && k == series) next
			for (i = 1; i <= n; i++) {
				v = (name[i] in c) ? $c[name[i]] : (name[i] == "card" ? "untimed" : (name[i] == "rep" ? 1 : "-"))
				printf "%s%s", v, i < n ? OFS : ORS
			}
		}' "$tsv" "$pub" "$tsv" >"$pub.new"
	mv "$pub.new" "$pub"
	# how these rows were made, for the README's note
	echo "${SCENARIOS:+SCENARIOS=\"$scenarios\" }STACKS=\"$stacks\" ELEVATORS=\"$elevators\" USB=$usb${CARDTRACE_ARGS:+ CARDTRACE_ARGS=\"$CARDTRACE_ARGS\"}${card:+ CARD_PROFILE=$card}${REPEAT:+ REPEAT=$repeat}${BENCH_PUBLISH:+ BENCH_PUBLISH=$BENCH_PUBLISH}${flavor:+ FLAVOR=$flavor} qemu/bench.sh" \
		>"$top/Documentation/bench/command${card:+-$card}${flavor:+-$flavor}.txt"
	"$top/tests/tools/bench-tables.sh"
	echo "bench: wrote the ${card:-untimed} rows of Documentation/bench/results.tsv and the README table"
else
	echo "bench: rows in ${tsv#"$top"/} (not a full default run: Documentation/bench/results.tsv left alone)"
fi
echo
echo "$((runs - failed)) of $runs runs completed; files in ${out_dir#"$top"/}/"
[ $failed = 0 ]
