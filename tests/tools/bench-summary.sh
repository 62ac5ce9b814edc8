#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Medians and spread of repeated bench rows: one line per scenario, card,
# kernel (major.minor), stack and elevator of a results.tsv
# (qemu/bench.sh), with the number of runs and, for each figure,
# "median (min-max)".
# Usage: tests/tools/bench-summary.sh [TSV] [CARD]   (CARD: only that card's rows)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tsv=${1:-$top/Documentation/bench/results.tsv}
[ -s "$tsv" ] || { echo "bench-summary: no $tsv" >&2; exit 1; }
awk -F'\t' -v want="${2:-}" '
	function med(key, f,   n, i, j, t, v, m) {
		n = split(vals[key, f], v, " ")
		if (!n) return "-"
		for (i = 2; i <= n; i++)	# insertion sort, a handful of runs
			for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
				t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
			}
		m = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		if (n == 1) return sprintf("%g", m)
		return sprintf("%g (%g-%g)", m, v[1], v[n])
	}
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["write_cmds"] !~ /^[0-9]+$/ { next }
	want != "" && $c["card"] != want { next }
	{
		linux = $c["kernel"]
		if (match(linux, /^[0-9]+\.[0-9]+/))
			linux = substr(linux, 1, RLENGTH)
		key = $c["scenario"] SUBSEP $c["card"] SUBSEP linux SUBSEP $c["stack"] SUBSEP $c["elevator"]
		if (!(key in runs)) order[++nk] = key
		runs[key]++
		for (f = 1; f <= nf; f++) {
			v = $c[fields[f]]
			if (v ~ /^[0-9.]+$/) vals[key, f] = vals[key, f] " " v
		}
	}
	BEGIN {
		nf = split("guest_mbps workload_mbps sync_s switches_per_au write_cmds charged_s est_linear_over_floor fsync_p50_ms fsync_p99_ms", fields, " ")
		split("guest MB/s|before sync MB/s|sync s|AU switches / AU|write cmds|card s charged|est. linear / floor|fsync p50 ms|fsync p99 ms", names, "|")
	}
	END {
		if (!nk) { print "bench-summary: no rows" > "/dev/stderr"; exit 1 }
		printf "| scenario | card | Linux | stack | elevator | runs |"
		for (f = 1; f <= nf; f++) printf " %s |", names[f]
		printf "\n|---|---|---|---|---|---|"
		for (f = 1; f <= nf; f++) printf "---|"
		print ""
		for (i = 1; i <= nk; i++) {
			split(order[i], k, SUBSEP)
			printf "| %s | %s | %s | %s | %s | %d |", k[1], k[2], k[3], k[4], k[5], runs[order[i]]
			for (f = 1; f <= nf; f++) printf " %s |", med(order[i], f)
			print ""
		}
	}' "$tsv"
