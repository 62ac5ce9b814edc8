#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Make the tables that show Documentation/bench/results.tsv (written by
# qemu/bench.sh) and replace the lines between their markers:
#  - README.md, "bench-headline": the seed scenario on the untimed card,
#    every stock elevator against ours; AU switches per distinct AU and the
#    card model's two estimates, median and range over the runs;
#  - Documentation/benchmarks.md, "bench-table": every seed row of the
#    untimed card, and per timed card the medians of the seed and fsync
#    scenarios (tests/tools/bench-summary.sh).
# Usage: tests/tools/bench-tables.sh [TSV] [README] [BENCHMARKS_MD]
#        tests/tools/bench-tables.sh --seed-runs CARD [TSV]
# --seed-runs CARD prints, and writes nothing: the median and range of
# the whole run's card seconds and of AU switches per AU over the seed
# rows of timed card CARD on Linux 6.1, stock mq-deadline and ours, made
# since the seed reads its file back (qemu/demo.sh shows them beside its
# own pair).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
seed_runs=''
if [ "${1:-}" = --seed-runs ]; then
	seed_runs=${2:?--seed-runs wants a card profile}
	shift 2
fi
tsv=${1:-$top/Documentation/bench/results.tsv}
readme=${2:-$top/README.md}
bench_md=${3:-$top/Documentation/benchmarks.md}
die() { echo "bench-tables: $*" >&2; exit 1; }
[ -s "$tsv" ] || die "no $tsv (run make bench)"

# The one median of these tables, for awk: med(LIST, FMT, RANGE) of the
# numbers in LIST (separated by spaces); without FMT the number, with it
# the number in FMT followed by " (MIN-MAX)" when there are several or
# RANGE is set.
med_awk='
	function med(list, fmt, range,   a, n, i, j, t) {
		n = split(list, a, " ")
		for (i = 1; i <= n; i++)
			for (j = i + 1; j <= n; j++)
				if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		t = (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		if (fmt == "") return t
		if (n > 1 || range)
			return sprintf(fmt " (" fmt "-" fmt ")", t, a[1], a[n])
		return sprintf(fmt, t)
	}'
# The timed card's scenarios as they are were first run on 2026-12-02:
# since e3b71b0 the seed reads its file back after the sync, twice (the
# whole run's card seconds, charged_s, of a row made before count
# neither read-back), and since 709891a fsync and fsync4 take 40 records
# on a fixed clock (before: one 250 ms after the last returned, 10 to 27
# of them). Rows made before are shown apart and never in a median with
# later ones.
scenarios_since=2026-12-02
# The scheduler's rows from this day on absorb (a write carries the
# updates made to its buffers while it waited): ours before it is another
# scheduler, never in a median with later rows.
absorption_since=2026-12-07

if [ -n "$seed_runs" ]; then
	echo "-- committed runs, Documentation/bench/results.tsv (seed, $seed_runs, Linux 6.1):"
	awk -F'\t' -v card="$seed_runs" -v since="$scenarios_since" "$med_awk"'
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$col["scenario"] == "seed" && $col["card"] == card &&
	$col["kernel"] ~ /^6\.1\./ && $col["date"] >= since &&
	$col["charged_s"] != "-" &&
	($col["elevator"] == "mq-deadline" || $col["stack"] == "ours") {
		k = $col["stack"]; n[k]++
		c[k] = c[k] " " $col["charged_s"]; r[k] = r[k] " " $col["switches_per_au"]
	}
	END {
		for (k in n)
			printf "   %-6s %d runs: whole-run card s, median (range) %s;" \
				" AU switches per AU %s\n", k, n[k], med(c[k], "%.1f", 1), med(r[k], "%.2f", 1)
		if (!length(n)) print "   none yet"
	}' "$tsv"
	exit 0
fi

# replace_between FILE MARKER TEXT: the lines between "<!-- MARKER ..."
# and "<!-- /MARKER -->" become TEXT
replace_between() {
	if ! grep -q "^<!-- $2" "$1" || ! grep -q "^<!-- /$2 -->" "$1"; then
		die "no $2 markers in $1"
	fi
	awk -v m="$2" -v text="$3" '
		index($0, "<!-- " m) == 1 { print; print text; skip = 1; next }
		index($0, "<!-- /" m " -->") == 1 { skip = 0 }
		!skip { print }' "$1" >"$1.new"
	mv "$1.new" "$1"
}

# The headline: one line per stack and elevator of the seed on the
# untimed card, median (min-max) when there are several runs.
headline=$(awk -F'\t' -v absorb="$absorption_since" "$med_awk"'
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$col["card"] != "untimed" || $col["scenario"] != "seed" { next }
	$col["stack"] != "stock" && $col["stack"] != "ours" { next }
	{
		st = $col["stack"]
		if (st == "ours" && $col["date"] < absorb)
			st = "ours, before absorption"
		k = $col["kernel"] " | " st " | " $col["elevator"]
		if (!(k in n)) order[++nk] = k
		n[k]++
		sw[k] = sw[k] " " $col["switches_per_au"]
		li[k] = li[k] " " $col["est_linear_mbps"]
		an[k] = an[k] " " $col["est_any_mbps"]
		if ($col["date"] > last) last = $col["date"]
		kernel = $col["kernel"]
	}
	END {
		if (!nk) exit 1
		print "| Linux | stack | elevator | runs | AU switches per AU written (1.00 = ideal) | est. MB/s, linear-only card | est. MB/s, any-order card |"
		print "|---|---|---|---|---|---|---|"
		# grouped by kernel, each in the order its rows came
		for (i = 1; i <= nk; i++) {
			split(order[i], kp, " [|] ")
			if (kp[1] in done) continue
			done[kp[1]]
			for (j = i; j <= nk; j++) {
				k = order[j]
				if (index(k, kp[1] " | ") != 1) continue
				printf "| %s | %d | %s | %s | %s |\n", k, n[k],
					med(sw[k], "%.2f"), med(li[k], "%.2f"), med(an[k], "%.2f")
			}
		}
		printf "\nRows up to %s; the card model: 2 open 4 MiB AUs, 12 MB/s sequential limit.\n", last
	}' "$tsv") || die "no seed rows on the untimed card in $tsv"
replace_between "$readme" bench-headline "$headline"

# The README's first lines: what a board pays, the seed on the timed
# card (cheap12) per kernel, stock mq-deadline against ours, in card
# seconds: the whole run (charged_s) and the workload (workload_est_s, the
# model's seconds for markers 1-2, which the filter charges within 5 %),
# medians and ranges; ours' rows before absorption_since are another
# scheduler and are shown apart, and only where a kernel has no later
# ones. The f2fs row of alternatives.tsv (untimed card) closes it.
alt=$(dirname "$tsv")/alternatives.tsv
gain=$(awk -F'\t' -v since="$scenarios_since" -v absorb="$absorption_since" "$med_awk"'
	FNR == 1 { delete col; for (i = 1; i <= NF; i++) col[$i] = i; f++; next }
	f == 1 && $col["card"] == "cheap12" && $col["scenario"] == "seed" &&
	$col["date"] >= since && $col["charged_s"] != "-" &&
	($col["elevator"] == "mq-deadline" || $col["stack"] == "ours") {
		series = $col["kernel"]; sub(/\.[0-9]+$/, "", series)
		st = $col["stack"] == "ours" ? "coalesce" : "mq-deadline"
		if (st == "coalesce" && $col["date"] < absorb)
			st = "coalesce, before absorption"
		k = series "|" st
		n[k]++
		whole[k] = whole[k] " " $col["charged_s"]
		mbps[k] = mbps[k] " " $col["est_linear_mbps"]
		if (("workload_est_s" in col) && $col["workload_est_s"] != "-")
			work[k] = work[k] " " $col["workload_est_s"]
		if (!(series in seen)) { seen[series]; ser[++ns] = series }
	}
	f == 2 && $col["scenario"] == "f2fs" && $col["stack"] == "stock" {
		f2fs = $col["est_linear_mbps"]
	}
	END {
		if (!ns || f2fs == "") exit 1
		print "What a board pays: the 2010 report'"'"'s workload (ext2, a `dd` of 512 MiB,"
		print "`sync`) on an emulated SD card that takes the time a cheap 12 MB/s card"
		print "takes and keeps two 4 MiB AUs open (the timed card `cheap12`), in card"
		print "seconds, medians (min-max) of the runs in results.tsv. The whole run"
		print "also counts mkfs, mount and two read-backs. Under emulation the guest"
		print "waits these seconds plus the emulator'"'"'s CPU time."
		print ""
		print "| Linux | elevator | runs | whole run, card s | workload, card s | workload at the card, MB/s |"
		print "|---|---|---|---|---|---|"
		for (i = 1; i <= ns; i++) {
			ks[1] = ser[i] "|mq-deadline"; ks[2] = ser[i] "|coalesce"
			if (!(ks[2] in n))
				ks[2] = ser[i] "|coalesce, before absorption"
			for (j = 1; j <= 2; j++) {
				k = ks[j]
				if (!(k in n)) continue
				split(k, p, "|")
				# the workload seconds: rows since bench.sh kept them
				nw = split(work[k], tmp, " ")
				wcell = nw ? med(work[k], "%.1f") : "-"
				if (nw && nw < n[k])
					wcell = wcell sprintf(", %d run%s", nw, nw > 1 ? "s" : "")
				printf "| %s | %s | %d | %s | %s | %s |\n", p[1], p[2], n[k],
					med(whole[k], "%.1f"), wcell, med(mbps[k], "%.2f")
			}
		}
		print ""
		print "AU switches and the untimed card model, a proxy for the same, are"
		printf "under \"Results\" below; f2fs on the untimed card reaches %.2f MB/s\n", f2fs
		print "without it. No real card was measured."
	}' "$tsv" "$alt") || die "no timed seed rows in $tsv, or no f2fs row in $alt"
replace_between "$readme" bench-gain "$gain"

cmd=$(cat "$(dirname "$tsv")/command.txt" 2>/dev/null || echo "qemu/bench.sh")
table=$(awk -F'\t' -v cmd="$cmd" '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$col["card"] != "untimed" { next }
	$col["scenario"] == "seed" || $col["scenario"] == "seed-usb" {
		if (!seen++) {
			d = $col["date"]; k = $col["kernel"]
			print "| scenario | Linux | stack | elevator | write cmds | <= 16 KiB | AU switches / distinct AUs | est. MB/s, linear-only card | est. MB/s, any-order card |"
			print "|---|---|---|---|---|---|---|---|---|"
		}
		printf "| %s | %s | %s | %s | %s | %s | %s / %s = %s | %s | %s |\n",
			$col["scenario"], $col["kernel"], $col["stack"], $col["elevator"],
			$col["write_cmds"], $col["small_writes"], $col["au_switches"],
			$col["distinct_aus"], $col["switches_per_au"],
			$col["est_linear_mbps"], $col["est_any_mbps"]
	}
	END {
		if (!seen) exit 1
		printf "\nOne guest run per row; the 6.1 rows by `%s`. The card model: 2 open AUs, 12 MB/s ([card-cost-model.md](card-cost-model.md)).\n", cmd
	}' "$tsv") || die "no seed rows in $tsv"
# Rows on a timed card (CARD_PROFILE): the seed and fsync scenarios'
# medians, per card; a scenario's rows from before scenarios_since come
# after the others, under a name of their own ("seed, before
# 2026-12-02"), so that their medians are apart.
cards=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "card") c = i; next }
	c && $c != "untimed" && !seen[$c]++ { print $c }' "$tsv")
split_tsv=$(mktemp)
trap 'rm -f "$split_tsv"' EXIT
awk -F'\t' -v OFS='\t' -v since="$scenarios_since" '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i }
	NR > 1 && $col["card"] != "untimed" && $col["date"] < since &&
	$col["scenario"] ~ /^(seed|fsync|fsync4)$/ {
		$col["scenario"] = $col["scenario"] ", before " since
		old[++n] = $0
		next
	}
	{ print }
	END { for (i = 1; i <= n; i++) print old[i] }' "$tsv" >"$split_tsv"
for card in $cards; do
	timed=$("$top/tests/tools/bench-summary.sh" "$split_tsv" "$card" |
		awk -F' [|] ' 'NR <= 2 || $1 ~ /^[|] (seed|fsync)/')
	cmd=$(cat "$(dirname "$tsv")/command-$card.txt" 2>/dev/null || echo "CARD_PROFILE=$card qemu/bench.sh")
	# shellcheck disable=SC2016 # the backquotes are Markdown, not a command
	table+=$(printf '\n\nOn the timed card `%s` (the cardtime nbdkit filter makes QEMU'"'"'s card take the time the model charges, so the guest MB/s is the card'"'"'s), medians and (min-max) over the runs, by `%s`:\n\n%s' "$card" "$cmd" "$timed")
	if grep -q ", before $scenarios_since |" <<<"$timed"; then
		table+=$(printf '\n\nA scenario "before %s" is its rows made before it took its present form on that day, shown apart: the seed without its two read-backs after the sync (so the whole run'"'"'s card seconds count less), fsync and fsync4 with one record 250 ms after the last one returned instead of 40 on a fixed clock.' "$scenarios_since")
	fi
done
replace_between "$bench_md" bench-table "$table"
