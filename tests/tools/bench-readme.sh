#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Make the README's headline table from Documentation/bench/results.tsv
# (written by qemu/bench.sh): the seed scenario, every stock elevator
# against ours, AU switches per distinct AU and the card model's
# estimates. Replaces the lines between the bench-table markers.
# Usage: tests/tools/bench-readme.sh [TSV] [README]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tsv=${1:-$top/Documentation/bench/results.tsv}
readme=${2:-$top/README.md}
[ -s "$tsv" ] || { echo "bench-readme: no $tsv (run make bench)" >&2; exit 1; }
grep -q '^<!-- bench-table' "$readme" && grep -q '^<!-- /bench-table -->' "$readme" || {
	echo "bench-readme: no bench-table markers in $readme" >&2
	exit 1
}
cmd=$(cat "$(dirname "$tsv")/command.txt" 2>/dev/null || echo "qemu/bench.sh")
table=$(awk -F'\t' -v cmd="$cmd" '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	("card" in col) && $col["card"] != "untimed" { next }
	$col["scenario"] == "seed" || $col["scenario"] == "seed-usb" {
		if (!seen++) {
			d = $col["date"]; k = $col["kernel"]
			print "| scenario | stack | elevator | write cmds | <= 16 KiB | AU switches / distinct AUs | est. MB/s, linear-only card | est. MB/s, any-order card |"
			print "|---|---|---|---|---|---|---|---|"
		}
		printf "| %s | %s | %s | %s | %s | %s / %s = %s | %s | %s |\n",
			$col["scenario"], $col["stack"], $col["elevator"],
			$col["write_cmds"], $col["small_writes"], $col["au_switches"],
			$col["distinct_aus"], $col["switches_per_au"],
			$col["est_linear_mbps"], $col["est_any_mbps"]
	}
	END {
		if (!seen) exit 1
		print ""
		printf "Made on %s, Linux %s, one guest run per row, by `%s`; every scenario, stack and elevator: [results.tsv](Documentation/bench/results.tsv), how it is measured: [benchmarks.md](Documentation/benchmarks.md). The card model: 2 open AUs, 12 MB/s ([card-cost-model.md](Documentation/card-cost-model.md)); the sequential limit is 12 MB/s.\n", d, k, cmd
	}' "$tsv") || { echo "bench-readme: no seed rows in $tsv" >&2; exit 1; }
# Rows on a timed card (CARD_PROFILE): the seed and fsync scenarios'
# medians, per card.
cards=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "card") c = i; next }
	c && $c != "untimed" && !seen[$c]++ { print $c }' "$tsv")
for card in $cards; do
	timed=$("$top/tests/tools/bench-summary.sh" "$tsv" "$card" |
		awk -F' [|] ' 'NR <= 2 || $1 ~ /^[|] (seed|fsync)/')
	cmd=$(cat "$(dirname "$tsv")/command-$card.txt" 2>/dev/null || echo "CARD_PROFILE=$card qemu/bench.sh")
	table+=$(printf '\n\nOn a timed card (profile `%s`: the cardtime nbdkit filter makes QEMU'"'"'s card take the time the model charges, so the guest MB/s is the card'"'"'s), medians and (min-max) over the runs, by `%s`:\n\n%s' "$card" "$cmd" "$timed")
done
awk -v table="$table" '
	/^<!-- bench-table/ { print; print table; skip = 1; next }
	/^<!-- \/bench-table -->/ { skip = 0 }
	!skip { print }' "$readme" >"$readme.new"
mv "$readme.new" "$readme"
