#!/usr/bin/env bash
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
#              column "coalesce"), not once per elevator
#   USB        default 1: also the seed on a USB stick (qemu-xhci +
#              usb-storage; rows "seed-usb"), stock mq-deadline against
#              ours (coalesce, au_kb=4096); 0: not
#   CARDTRACE_ARGS  extra analyzer options (card model), e.g. "--open-aus 4"
# Option --reuse: keep the guest runs already in build/bench/ and only
# analyze again (to score the same traces under another card model).
# Each run takes about 1-2 minutes under TCG; the default set about 25-35.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cardtrace=$top/build/host/cardtrace
out_dir=${BENCH_DIR:-$top/build/bench}
scenarios=${SCENARIOS:-seed ext4 fio smallfiles}
# The default set (no SCENARIOS/STACKS/ELEVATORS/USB/CARDTRACE_ARGS given)
# replaces the committed Documentation/bench/results.tsv and the README's
# table made from it; any other set only writes build/bench/results.tsv.
full=1
[ -z "${SCENARIOS:-}${STACKS:-}${ELEVATORS:-}${USB:-}${CARDTRACE_ARGS:-}" ] || full=0
# BENCH_PUBLISH=1: publish a partial set anyway (its rows say what ran)
[ "${BENCH_PUBLISH:-0}" = 1 ] && full=1
elevators=${ELEVATORS:-none mq-deadline bfq kyber}
stacks=${STACKS:-stock stock+wbt0 ours}
usb=${USB:-1}
model=(${CARDTRACE_ARGS:-})
mkdir -p "$out_dir"
table=$out_dir/table.md
tsv=$out_dir/results.tsv
runs=0 failed=0
reuse=0
[ "${1:-}" = --reuse ] && reuse=1

kv_get() { sed -n "s/^$1=//p" "$2" | head -n 1; }

{
	echo "| scenario | stack | elevator | write cmds | <= 16 KiB | AU switches | distinct AUs | switches / ideal | backward in AU | est. MB/s linear-only | est. / limit | est. MB/s any-order | est. / limit | guest MB/s |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
} >"$table"
printf 'scenario\tstack\televator\twrite_cmds\tsmall_writes\tau_switches\tdistinct_aus\tswitches_per_au\tbackward_in_au\test_linear_mbps\test_linear_over_limit\test_any_mbps\test_any_over_limit\tguest_mbps\tdate\tkernel\n' >"$tsv"
kernel=$(sed -n 's/^VERSION = //p; s/^PATCHLEVEL = //p; s/^SUBLEVEL = //p' \
	"$top/build/linux-6.1/Makefile" 2>/dev/null | paste -sd. -)
today=$(date +%F)

# bench_run LABEL SCENARIO STACK ELEVATOR [run.sh args...]: one guest run
# (or its files from an earlier run with --reuse) and one table row
bench_run() {
	local label=$1 scen=$2 stack=$3 elv=$4 run kopt= elv_opt=()
	shift 4
	run=$out_dir/$label-$stack-$elv
	runs=$((runs + 1))
	echo "bench: $label, $stack stack, elevator $elv (about a minute or two)..." >&2
	# "stock+wbt0": stock with writeback throttling off, as the
	# scheduler runs it (it turns wbt off itself)
	case $stack in *+wbt0) kopt=mmcc.wbt_lat_usec=0 ;; esac
	# usb-storage queues one command, so the block layer gives the
	# stick's scheduler 2 requests, which leaves no room to hold any:
	# both stacks get 128 there (echo 128 > queue/nr_requests)
	case $label in *-usb) kopt="$kopt mmcc.nr_requests=128" ;; esac
	# ours is the elevator: no --elevator for it
	case $stack in ours* | ourhost*) ;; *) elv_opt=(--elevator "$elv") ;; esac
	if [ $reuse = 1 ] && grep -qs '^DONE' "$run/result.txt"; then
		echo "bench: reusing $run" >&2
	elif ! "$top/qemu/run.sh" --scenario "$scen" --stack "${stack%+wbt0}" \
		--kopt "$kopt" "${elv_opt[@]}" --out "$run" --timeout 1200 "$@" >&2; then
		echo "bench: $label/$stack/$elv failed; see $run/console.log" >&2
		failed=$((failed + 1))
		echo "| $label | $stack | $elv | run failed | | | | | | | | | | |" >>"$table"
		return
	fi
	base=$(sed -n 's/^KV marker_base=//p' "$run/result.txt")
	"$cardtrace" --marker-base "$base" --from 1 --to 2 "${model[@]}" \
		--kv "$run/trace.log" >"$run/card.kv"
	"$cardtrace" --marker-base "$base" --from 1 --to 2 \
		--dump "$run/trace.log" >"$run/commands.txt"
	guest_kbps=$(sed -n 's/^KV guest_kbps=//p' "$run/result.txt")
	k=$run/card.kv
	lim=$(kv_get limit_s "$k")
	printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
		"$label" "$stack" "$elv" "$(kv_get writes "$k")" \
		"$(kv_get small_writes "$k")" "$(kv_get au_switches "$k")" \
		"$(kv_get distinct_aus "$k")" "$(kv_get switch_ratio "$k")" \
		"$(kv_get backward_writes "$k")" \
		"$(kv_get est_linear_mbps "$k")" \
		"$(awk -v a="$(kv_get est_linear_s "$k")" -v b="$lim" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')" \
		"$(kv_get est_any_mbps "$k")" \
		"$(awk -v a="$(kv_get est_any_s "$k")" -v b="$lim" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')" \
		"$(awk -v k="${guest_kbps:-0}" 'BEGIN { printf "%.2f", k * 1024 / 1e6 }')" \
		>>"$table"
	# the same row, machine-readable
	tail -n 1 "$table" | awk -F' [|] ' -v OFS='\t' -v d="$today" -v kv="$kernel" '
		{ sub(/^[|] /, "", $1); sub(/ [|]$/, "", $NF)
		  $(NF + 1) = d; $(NF + 1) = kv; print }' >>"$tsv"
}

for scen in $scenarios; do
	for stack in $stacks; do
		case $stack in
		ours* | ourhost*) bench_run "$scen" "$scen" "$stack" coalesce ;;
		*)
			for elv in $elevators; do
				bench_run "$scen" "$scen" "$stack" "$elv"
			done ;;
		esac
	done
done
# The seed on a USB stick: the same workload, the stick's SCSI commands
# (qemu/run.sh --usb converts them to the analyzer's format)
if [ "$usb" = 1 ]; then
	bench_run seed-usb seed stock mq-deadline --usb
	bench_run seed-usb seed ours coalesce --usb
fi

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
	{ oc[s] = $c["write_cmds"]; os[s] = $c["small_writes"]; oa[s] = $c["switches_per_au"]; order[++n] = s }
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
if [ $full = 1 ] && [ $failed = 0 ]; then
	mkdir -p "$top/Documentation/bench"
	cp "$tsv" "$top/Documentation/bench/results.tsv"
	# how these rows were made, for the README's note
	echo "SCENARIOS=\"$scenarios\" STACKS=\"$stacks\" ELEVATORS=\"$elevators\" USB=$usb${CARDTRACE_ARGS:+ CARDTRACE_ARGS=\"$CARDTRACE_ARGS\"}${BENCH_PUBLISH:+ BENCH_PUBLISH=$BENCH_PUBLISH} tests/bench.sh" \
		>"$top/Documentation/bench/command.txt"
	"$top/tests/bench-readme.sh"
	echo "bench: wrote Documentation/bench/results.tsv and the README table"
else
	echo "bench: rows in ${tsv#$top/} (not a full default run: Documentation/bench/results.tsv left alone)"
fi
echo
echo "$((runs - failed)) of $runs runs completed; files in ${out_dir#$top/}/"
[ $failed = 0 ]
