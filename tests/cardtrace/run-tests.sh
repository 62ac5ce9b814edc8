#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Analyzer tests: each cases/NAME.trace is run with cases/NAME.args (if any).
#   NAME.expect: with --dump in the args the output must match exactly,
#                otherwise every key=value line must appear in --kv output,
#                its floor_linear_s at most est_linear_s, its floor_s at most
#                est_any_s and floor_linear_s, its floor_switches at most
#                au_switches;
#   NAME.error:  the run must exit 2 and say this on stderr;
#   NAME.how:    how NAME.expect was obtained; such a case gets a second
#                result, own_card_independent/NAME: own-card-check.py
#                recomputes its keys without cardtrace and must agree.
# Prints KTAP (tests/lib/ktap.sh): one result per case, one per .how,
# the dump round trip and the in-step what-if.
set -u
bin=${1:?usage: run-tests.sh CARDTRACE_BINARY}
here=$(cd "$(dirname "$0")" && pwd)
cases=$here/cases
# shellcheck source=tests/lib/ktap.sh
. "$here/../lib/ktap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

traces=("$cases"/*.trace)
how=()
for f in "$cases"/*.how; do
	[ -f "$f" ] && how+=("$(basename "$f" .how)")
done
ktap_begin cardtrace $((${#traces[@]} + ${#how[@]} + 2))

for trace in "${traces[@]}"; do
	name=$(basename "$trace" .trace)
	args=()
	[ -f "$cases/$name.args" ] && read -r -a args <"$cases/$name.args"
	file_arg=("$trace")
	# a case whose args name a file runs on that file instead
	for a in "${args[@]}"; do
		case $a in /*) file_arg=() ;; esac
	done
	ok=1 why=
	if [ -f "$cases/$name.error" ]; then
		"$bin" "${args[@]}" "${file_arg[@]}" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		want=$(cat "$cases/$name.error")
		if [ $rc != 2 ]; then
			ok=0 why="exit $rc, expected 2"
		elif ! grep -qF -- "$want" "$tmp/err"; then
			ok=0 why="stderr lacks '$want': $(head -c 200 "$tmp/err")"
		fi
	else
		case " ${args[*]} " in
		*" --dump "*) mode=exact ;;
		*) mode=subset; args+=(--kv) ;;
		esac
		"$bin" "${args[@]}" "${file_arg[@]}" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		if [ $rc != 0 ]; then
			ok=0 why="exit $rc: $(head -c 200 "$tmp/err")"
		elif [ $mode = exact ]; then
			diff -u "$cases/$name.expect" "$tmp/out" >"$tmp/diff" ||
				{ ok=0 why=$(cat "$tmp/diff"); }
		else
			while IFS= read -r line; do
				grep -qxF -- "$line" "$tmp/out" ||
					{ ok=0 why+="missing '$line' (got: $(grep "^${line%%=*}=" "$tmp/out")); "; }
			done <"$cases/$name.expect"
			# the floors are lower bounds of any order: never above
			# what the trace's own order costs on the same card, and
			# the linear-only card's never below the any-order one's
			awk -F= '{ v[$1] = $2 } END { exit !(v["floor_linear_s"] <= v["est_linear_s"] &&
				v["floor_s"] <= v["est_any_s"] && v["floor_s"] <= v["floor_linear_s"] &&
				v["floor_switches"] + 0 <= v["au_switches"] + 0) }' "$tmp/out" ||
				{ ok=0 why+="a floor above its estimate: $(grep -E '^(floor_s|floor_linear_s|est_linear_s|est_any_s|floor_switches|au_switches)=' "$tmp/out" | tr '\n' ' '); "; }
		fi
	fi
	if [ $ok = 1 ]; then
		ok "cardtrace/$name"
	else
		ko "cardtrace/$name" "$why"
	fi
done

# The expected values of the cases with a .how, computed again from the
# cost model page without cardtrace (own-card-check.py).
for name in "${how[@]}"; do
	if "$here/own-card-check.py" "$cases" "$name" >"$tmp/own" 2>&1; then
		ok "own_card_independent/$name"
	else
		ko "own_card_independent/$name" "$(grep -v '^ok \|^KTAP\|^1\.\.' "$tmp/own")"
	fi
done

# Round trip: the dump of a QEMU trace, analyzed again, gives the same report.
"$bin" --dump "$cases/au_switches.trace" >"$tmp/dump" 2>&1
"$bin" --kv "$cases/au_switches.trace" >"$tmp/a" 2>&1
"$bin" --kv "$tmp/dump" >"$tmp/b" 2>&1
if [ -s "$tmp/a" ] && diff -q "$tmp/a" "$tmp/b" >/dev/null; then
	ok cardtrace/dump_roundtrip
else
	ko cardtrace/dump_roundtrip "reports differ"
fi
# The in-step what-if (tests/tools/in-step-order.py): an excursion to two
# AUs without data, half-way through the stream's AU, moves to where the
# stream enters its next AU, and the card model then copies less.
"$here/../tools/in-step-order.py" <"$cases/in_step_excursion.dump" >"$tmp/step" 2>/dev/null
before=$("$bin" --kv "$cases/in_step_excursion.dump" 2>&1 | sed -n 's/^est_linear_s=//p')
after=$("$bin" --kv "$tmp/step" 2>&1 | sed -n 's/^est_linear_s=//p')
if ! diff -q "$cases/in_step_excursion.order" "$tmp/step" >/dev/null; then
	ko cardtrace/in_step_order "order differs: $(diff "$cases/in_step_excursion.order" "$tmp/step" | tr '\n' ' ')"
elif ! awk -v b="$before" -v a="$after" 'BEGIN { exit !(a != "" && a < b) }'; then
	ko cardtrace/in_step_order "est_linear_s $before before, $after after"
else
	ok cardtrace/in_step_order
fi
ktap_end
