#!/usr/bin/env bash
# Card-level benchmark: run each scenario under each elevator, analyze what
# the emulated card received, and print one table (also written to
# build/bench/table.md, with each run's files under build/bench/).
#
# Environment:
#   SCENARIOS  default "seed ext4 fio"
#   ELEVATORS  default "none mq-deadline bfq kyber"
#   STACKS     default "stock"
#   CARDTRACE_ARGS  extra analyzer options (card model), e.g. "--open-aus 4"
# Option --reuse: keep the guest runs already in build/bench/ and only
# analyze again (to score the same traces under another card model).
# Each run takes about 1-2 minutes under TCG; the default set about 15-25.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cardtrace=$top/build/host/cardtrace
out_dir=${BENCH_DIR:-$top/build/bench}
scenarios=${SCENARIOS:-seed ext4 fio}
elevators=${ELEVATORS:-none mq-deadline bfq kyber}
stacks=${STACKS:-stock}
model=(${CARDTRACE_ARGS:-})
mkdir -p "$out_dir"
table=$out_dir/table.md
runs=0 failed=0
reuse=0
[ "${1:-}" = --reuse ] && reuse=1

kv_get() { sed -n "s/^$1=//p" "$2" | head -n 1; }

{
	echo "| scenario | stack | elevator | write cmds | <= 16 KiB | AU switches | distinct AUs | switches / ideal | backward in AU | est. MB/s linear-only | est. / limit | est. MB/s any-order | est. / limit | guest MB/s |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
} >"$table"

for scen in $scenarios; do
	for stack in $stacks; do
		for elv in $elevators; do
			run=$out_dir/$scen-$stack-$elv
			runs=$((runs + 1))
			echo "bench: $scen, $stack stack, elevator $elv (about a minute or two)..." >&2
			if [ $reuse = 1 ] && grep -qs '^DONE' "$run/result.txt"; then
				echo "bench: reusing $run" >&2
			elif ! "$top/qemu/run.sh" --scenario "$scen" --stack "$stack" \
				--elevator "$elv" --out "$run" --timeout 1200 >&2; then
				echo "bench: $scen/$stack/$elv failed; see $run/console.log" >&2
				failed=$((failed + 1))
				echo "| $scen | $stack | $elv | run failed | | | | | | | | | | |" >>"$table"
				continue
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
				"$scen" "$stack" "$elv" "$(kv_get writes "$k")" \
				"$(kv_get small_writes "$k")" "$(kv_get au_switches "$k")" \
				"$(kv_get distinct_aus "$k")" "$(kv_get switch_ratio "$k")" \
				"$(kv_get backward_writes "$k")" \
				"$(kv_get est_linear_mbps "$k")" \
				"$(awk -v a="$(kv_get est_linear_s "$k")" -v b="$lim" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')" \
				"$(kv_get est_any_mbps "$k")" \
				"$(awk -v a="$(kv_get est_any_s "$k")" -v b="$lim" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')" \
				"$(awk -v k="${guest_kbps:-0}" 'BEGIN { printf "%.2f", k * 1024 / 1e6 }')" \
				>>"$table"
		done
	done
done

echo
echo "Card model: $("$cardtrace" "${model[@]}" /dev/null | sed -n 's/^card model: //p')"
echo "Counts cover the workload and its sync (between phase markers 1 and 2)."
echo
cat "$table"
echo
echo "$((runs - failed)) of $runs runs completed; files in ${out_dir#$top/}/"
[ $failed = 0 ]
