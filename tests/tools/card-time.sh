# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared by qemu/bench.sh, qemu/demo.sh and tests/qemu-tests.sh
# (sourced; needs $cardtrace): the seconds a timed card (the cardtime
# nbdkit filter, qemu/run.sh --card-profile) charged, against the
# analyzer's estimate of them from QEMU's trace of the same run.

# kv_get KEY FILE: the value of a "key=value" line
kv_get() { sed -n "s/^$1=//p" "$2" | head -n 1; }

# profile_args RUN: the analyzer's card model options for the timed card
# of RUN (its cardtime.txt), empty for an untimed run (the default model)
profile_args() {
	local st=$1/cardtime.txt
	[ -s "$st" ] || { echo; return; }
	echo "--au-kb $(($(kv_get au_bytes "$st") / 1024)) --open-aus $(kv_get open_aus "$st")" \
		"--seq-mbps $(kv_get write_mbps "$st") --copy-mbps $(kv_get copy_mbps "$st")" \
		"--cmd-us $(kv_get cmd_us "$st")"
}

# charged_vs_trace RUN: "CHARGED EST": the seconds the cardtime filter
# charged for the whole run, and what the analyzer computes for the same
# run from QEMU's trace with the filter's card parameters (writes with
# copies and command costs, less the copy of closing every AU at the end,
# which the filter never charges; plus reads at the read speed). They
# differ by design only in command counting (the analyzer counts each
# card command, the filter each discontinuity).
charged_vs_trace() {
	local st=$1/cardtime.txt kvf=$1/card-whole.kv order est fin rd args
	[ -s "$st" ] || { echo "- -"; return; }
	order=$(kv_get order "$st")
	read -r -a args < <(profile_args "$1")
	# shellcheck disable=SC2154 # $cardtrace is set by the script that sources this
	"$cardtrace" "${args[@]}" --kv "$1/trace.log" >"$kvf"
	if [ "$order" = linear ]; then
		est=$(kv_get est_linear_s "$kvf") fin=$(kv_get finish_linear_s "$kvf")
	else
		est=$(kv_get est_any_s "$kvf") fin=$(kv_get finish_any_s "$kvf")
	fi
	rd=$(awk -v b="$(kv_get bytes_read "$kvf")" -v r="$(kv_get read_mbps "$st")" \
		'BEGIN { printf "%.3f", (r > 0 ? b / (r * 1e6) : 0) }')
	awk -v c="$(kv_get seconds_charged "$st")" -v e="$est" -v f="$fin" -v r="$rd" \
		'BEGIN { printf "%.1f %.1f\n", c, e - f + r }'
}

