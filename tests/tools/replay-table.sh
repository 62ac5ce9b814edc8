#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# replay-table.sh - score the reorder window on the real stock-6.1 card traces.
#
# For every build/bench/<scenario>-stock-<elevator>/commands.txt, replay the
# trace through the engine (build/host/window/replay) with several settings
# and score the resulting card command sequence with build/host/cardtrace.
# Prints one markdown table row per trace and setting, preceded by the
# command lines that produced it.
#
# Usage: tests/tools/replay-table.sh [BENCH_DIR]     (default build/bench)
# Environment: REPLAY, CARDTRACE override the tool paths.

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BENCH=${1:-$ROOT/build/bench}
CARDTRACE=${CARDTRACE:-$ROOT/build/host/cardtrace}
REPLAY=${REPLAY:-$ROOT/build/host/window/replay}

die() {
	echo "replay-table.sh: $*" >&2
	exit 1
}

[ -x "$CARDTRACE" ] ||
	die "card analyzer $CARDTRACE missing (build it first; see Documentation/card-cost-model.md)"

shopt -s nullglob
traces=("$BENCH"/*-stock-*/commands.txt)
shopt -u nullglob
[ ${#traces[@]} -gt 0 ] ||
	die "no traces: $BENCH/*-stock-*/commands.txt not found"

if [ -z "${REPLAY_NO_BUILD:-}" ]; then
	make -s -C "$ROOT/tests/window" replay >&2 ||
		die "could not build the replay tool (make -C tests/window replay)"
fi
[ -x "$REPLAY" ] || die "replay tool $REPLAY missing (make -C tests/window replay)"

# name|replay options. "defaults" uses the engine's rwin_params_init().
SETTINGS=(
	"stock|--off"
	"defaults|"
	"hold 1 s|--hold-ms 1000"
	"hold 3 s|--hold-ms 3000"
)

rel() {
	local p=$1

	echo "${p#"$ROOT"/}"
}

echo "Command per row (run from $ROOT):"
echo
echo '```'
for s in "${SETTINGS[@]}"; do
	opts=${s#*|}
	printf '%s %s < %s | %s --kv\n' "$(rel "$REPLAY")" "${opts:-}" \
		"$(rel "$BENCH")/<scenario>-stock-<elevator>/commands.txt" \
		"$(rel "$CARDTRACE")" | tr -s ' '
done
echo '```'
echo
echo "| scenario | elevator | setting | write cmds | AU switches | distinct AUs | switches/ideal | backward in AU | est. MB/s linear-only | est. MB/s any-order |"
echo "|---|---|---|---|---|---|---|---|---|---|"

for t in "${traces[@]}"; do
	dir=$(basename "$(dirname "$t")")
	scenario=${dir%%-stock-*}
	elevator=${dir#*-stock-}
	for s in "${SETTINGS[@]}"; do
		name=${s%%|*}
		opts=${s#*|}
		# shellcheck disable=SC2086 # opts is a list of options
		kv=$("$REPLAY" $opts < "$t" | "$CARDTRACE" --kv) ||
			die "replay/cardtrace failed on $t ($opts)"
		declare -A v=()
		while IFS='=' read -r k val; do
			v[$k]=$val
		done <<< "$kv"
		printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
			"$scenario" "$elevator" "$name" "${v[writes]}" \
			"${v[au_switches]}" "${v[distinct_aus]}" \
			"${v[switch_ratio]}" "${v[backward_writes]}" \
			"${v[est_linear_mbps]}" "${v[est_any_mbps]}"
		unset v
	done
done
