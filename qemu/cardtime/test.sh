#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Tests of the cardtime nbdkit filter (about 15 s):
#  - a known request sequence through nbdkit + qemu-io, for a linear-only
#    and an any-order card with 1 MiB AUs and for the default profile:
#    the seconds the filter charged equal (within 5 %) what cardtrace, the
#    offline analyzer on the same shared model, computes for that sequence
#    written in its dump format; the request, command and AU-switch counts
#    match; the qemu-io run took at least the charged time;
#  - the same for the profile made from flashbench's README, and the
#    analyzer with that profile's fields gives the README's open-AU rows;
#  - every bad parameter makes nbdkit refuse to start, naming it.
# Prints KTAP (tests/lib/ktap.sh), a result per check.
# Needs: nbdkit, nbdkit-plugin-dev, qemu-utils (and a C compiler).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
filter=$top/build/cardtime/nbdkit-cardtime-filter.so
cardtrace=$top/build/host/cardtrace
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
tmp=$(mktemp -d)
nbdkit_pid=

# shellcheck disable=SC2317 # called by the trap
cleanup() {
	[ -n "$nbdkit_pid" ] && kill "$nbdkit_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

pass_() { ok "cardtime/$1"; }
bad() { ko "cardtime/$1" "$2"; }
finish() {
	ktap_end
	exit
}

ktap_begin cardtime

"$top/qemu/setup/deps.sh" cardtime || { bad setup "qemu/setup/deps.sh cardtime failed"; finish; }
for tool in nbdkit qemu-io; do
	command -v $tool >/dev/null ||
		{ bad setup "$tool not installed (apt-get install nbdkit nbdkit-plugin-dev qemu-utils)"; finish; }
done
if make -s -C "$here" >"$tmp/build.log" 2>&1 &&
   make -s -C "$top" "$cardtrace" >>"$tmp/build.log" 2>&1; then
	pass_ build
else
	bad build "$(tail -5 "$tmp/build.log")"
	finish
fi

img=$tmp/card.img
truncate -s 64M "$img"

# ---------------------------------------------------------------------
# The sequence: "W|R offset_bytes length_bytes" per request.
# ---------------------------------------------------------------------
seq=()
K=1024 M=$((1024 * 1024))
for ((o = 0; o < 2 * M; o += 64 * K)); do seq+=("W $o $((64 * K))"); done
for ((o = 0; o < M; o += 256 * K)); do seq+=("R $o $((256 * K))"); done
# jump between three AUs (1 MiB AUs, two open): every write evicts one
for ((i = 0; i < 4; i++)); do
	for au in 8 9 10; do seq+=("W $((au * M + i * 4 * K)) $((4 * K))"); done
done
# inside one AU: ahead, then backward, then skip ahead again
seq+=("W $((16 * M + 512 * K)) $((64 * K))" "W $((16 * M)) $((64 * K))"
      "W $((16 * M + 768 * K)) $((64 * K))")
# 512-byte blocks one by one, as QEMU's SD card sends them: one command
for ((i = 0; i < 16; i++)); do seq+=("W $((24 * M + i * 512)) 512"); done
seq+=("R $((8 * M)) $((128 * K))")
for ((o = 20 * M; o < 21 * M; o += 128 * K)); do seq+=("W $o $((128 * K))"); done

# qemu-io commands, and the dump cardtrace reads: contiguous writes are
# one card command (that is how the filter counts them, and the model
# charges a merged run exactly like its pieces).
qio=() nw=0 nr=0 prev_op='' prev_end=-1 t=0
: >"$tmp/seq.dump"
dump_start=() dump_len=() dump_op=()
for r in "${seq[@]}"; do
	read -r op off len <<<"$r"
	if [ "$op" = W ]; then
		qio+=(-c "write -P 0x5a $off $len")
		nw=$((nw + 1))
	else
		qio+=(-c "read $off $len")
		nr=$((nr + 1))
	fi
	n=${#dump_op[@]}
	if [ "$op" = W ] && [ "$prev_op" = W ] && [ "$off" = "$prev_end" ]; then
		dump_len[n - 1]=$((dump_len[n - 1] + len / 512))
	else
		dump_op[n]=$op dump_start[n]=$((off / 512)) dump_len[n]=$((len / 512))
	fi
	prev_op=$op prev_end=$((off + len))
done
for ((i = 0; i < ${#dump_op[@]}; i++)); do
	t=$((t + 1000))
	echo "$t ${dump_op[i]} ${dump_start[i]} ${dump_len[i]}" >>"$tmp/seq.dump"
done

kv() { sed -n "s/^$1=//p" "$2"; }
# within PCT percent: within A B PCT
within() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN {
	d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b;
	exit !(d <= m * p / 100 || d < 1e-9) }'; }

# run NAME CARDTRACE_KEY FILTER_ARGS...: run the sequence, check it.
run() {
	local name=$1 key=$2 sock=$tmp/nbd.sock stats=$tmp/$1.stats
	local t0 t1 wall i ctopts=()
	shift 2
	rm -f "$sock" "$stats"
	nbdkit -f -U "$sock" --filter="$filter" file "$img" "$@" \
		stats="$stats" 2>"$tmp/$name.nbdkit.err" &
	nbdkit_pid=$!
	for ((i = 0; i < 100; i++)); do
		[ -S "$sock" ] && break
		sleep 0.05
	done
	if [ ! -S "$sock" ]; then
		bad "$name" "nbdkit did not start: $(head -c 300 "$tmp/$name.nbdkit.err")"
		kill "$nbdkit_pid" 2>/dev/null
		wait "$nbdkit_pid" 2>/dev/null
		nbdkit_pid=
		return
	fi
	t0=$(date +%s%N)
	qemu-io -f raw "nbd+unix:///?socket=$sock" "${qio[@]}" \
		>"$tmp/$name.qio" 2>&1
	local qrc=$?
	t1=$(date +%s%N)
	kill -TERM "$nbdkit_pid"
	wait "$nbdkit_pid" 2>/dev/null
	nbdkit_pid=
	wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", (b - a) / 1e9 }')
	if [ $qrc != 0 ]; then
		bad "$name" "qemu-io exit $qrc: $(tail -3 "$tmp/$name.qio")"
		return
	fi
	if [ ! -s "$stats" ]; then
		bad "$name" "no stats file written at unload"
		return
	fi

	# the analyzer on the same sequence, same card (or its defaults)
	if [ "$key" != default ]; then
		ctopts=(--au-kb $(($(kv au_bytes "$stats") / 1024))
			--open-aus "$(kv open_aus "$stats")"
			--seq-mbps "$(kv write_mbps "$stats")"
			--copy-mbps "$(kv copy_mbps "$stats")"
			--cmd-us "$(kv cmd_us "$stats")")
	fi
	"$cardtrace" "${ctopts[@]}" --kv "$tmp/seq.dump" >"$tmp/$name.kv" ||
		{ bad "$name" "cardtrace failed"; return; }
	local est charged rs fs got want_rs why=
	case $key in
	any) est=$(kv est_any_s "$tmp/$name.kv") ;;
	*) est=$(kv est_linear_s "$tmp/$name.kv") ;;
	esac
	charged=$(kv seconds_charged "$stats")
	rs=$(kv read_seconds "$stats")
	fs=$(kv finish_seconds "$stats")
	# cardtrace charges no reads but closes the open AUs at the end
	got=$(awk -v c="$charged" -v r="$rs" -v f="$fs" 'BEGIN { printf "%.6f", c - r + f }')
	want_rs=$(awk -v b="$(kv bytes_read "$stats")" -v m="$(kv read_mbps "$stats")" \
		'BEGIN { printf "%.6f", b / (m * 1e6) }')
	within "$got" "$est" 5 ||
		why+="writes charged $got s (+finish) vs cardtrace $key $est s; "
	within "$rs" "$want_rs" 5 || why+="reads charged $rs s, expected $want_rs s; "
	[ "$(kv writes "$stats")" = $nw ] || why+="writes=$(kv writes "$stats"), sent $nw; "
	[ "$(kv reads "$stats")" = $nr ] || why+="reads=$(kv reads "$stats"), sent $nr; "
	[ "$(kv commands "$stats")" = "$(kv writes "$tmp/$name.kv")" ] ||
		why+="commands=$(kv commands "$stats"), cardtrace writes=$(kv writes "$tmp/$name.kv"); "
	[ "$(kv au_switches "$stats")" = "$(kv au_switches "$tmp/$name.kv")" ] ||
		why+="au_switches=$(kv au_switches "$stats"), cardtrace $(kv au_switches "$tmp/$name.kv"); "
	if [ -z "$why" ]; then
		diag "$name-model: $charged s charged, cardtrace $est s + reads $rs s - finish $fs s"
		pass_ "$name-model"
	else
		bad "$name-model" "$why"
	fi
	if awk -v w="$wall" -v c="$charged" 'BEGIN { exit !(w >= c) }'; then
		diag "$name-wallclock: $wall s >= $charged s"
		pass_ "$name-wallclock"
	else
		bad "$name-wallclock" "qemu-io took $wall s, less than the $charged s charged"
	fi
}

run linear linear profile=cheap12 au=1M
run any any profile=cheap12 au=1M order=any
# the default profile against the analyzer's default model (no options)
run default default

# ---------------------------------------------------------------------
# The profile made from a real card (profiles.h, "flashbench-readme"): the
# filter charges it as the analyzer does (the run above's checks), and the
# analyzer, given the fields the filter reports for it, gives the rows of
# flashbench's README the profile was fitted to within 2 %: --open-au with
# 2 AUs and 4 MiB blocks, and with 3 AUs and 1 MiB, 512 KiB and 256 KiB
# blocks (flashbench's M/s, 10^6 bytes a second; the rows the model cannot
# meet, and why, are named in profiles.h).
# ---------------------------------------------------------------------
run flashbench-readme linear profile=flashbench-readme
src_stats=$tmp/flashbench-readme.stats
# openau_dump NR BLOCK_KIB AU_KIB: flashbench's open-AU pattern, NR AUs
# (4 AUs apart) written in turn, BLOCK_KIB at a time, each AU once whole
openau_dump() {
	local nr=$1 b=$(($2 * 2)) au=$(($3 * 2)) k i t=0
	for ((k = 0; k < au; k += b)); do
		for ((i = 0; i < nr; i++)); do
			t=$((t + 1000))
			echo "$t W $(((16 + 4 * i) * au + k)) $b"
		done
	done
}
if [ -s "$src_stats" ]; then
	au_kib=$(($(kv au_bytes "$src_stats") / 1024))
	why=
	for row in "2 4096 8.79" "3 1024 3.24" "3 512 1.76" "3 256 0.912"; do
		read -r nr blk want <<<"$row"
		openau_dump "$nr" "$blk" "$au_kib" >"$tmp/openau.dump"
		est=$("$cardtrace" --au-kb "$au_kib" \
			--open-aus "$(kv open_aus "$src_stats")" \
			--seq-mbps "$(kv write_mbps "$src_stats")" \
			--copy-mbps "$(kv copy_mbps "$src_stats")" \
			--cmd-us "$(kv cmd_us "$src_stats")" \
			--kv "$tmp/openau.dump" | sed -n 's/^est_linear_s=//p')
		got=$(awk -v n="$nr" -v a="$au_kib" -v e="${est:-0}" \
			'BEGIN { if (e > 0) printf "%.3f", n * a * 1024 / 1e6 / e; else print 0 }')
		diag "flashbench-readme: $nr AUs, $blk KiB blocks: $got MB/s, the README $want M/s"
		within "$got" "$want" 2 || why+="$nr AUs, $blk KiB: $got MB/s against the README's $want M/s; "
	done
	if [ -z "$why" ]; then
		pass_ flashbench-readme-source
	else
		bad flashbench-readme-source "$why"
	fi
else
	bad flashbench-readme-source "no stats from the filter for the profile"
fi

# ---------------------------------------------------------------------
# Bad parameters: nbdkit must refuse to start and name the parameter.
# ---------------------------------------------------------------------
for p in profile=nosuch open=0 open=65 au=3000 au=128M order=sideways \
	 write-mbps=0 write-mbps=abc read-mbps=-1 copy-mbps=1e9 cmd-us=x \
	 stats=/nonexistent/dir/file; do
	key=${p%%=*}
	timeout 20 nbdkit -U - --filter="$filter" file "$img" "$p" \
		--run true >"$tmp/bad.out" 2>&1
	rc=$?
	if [ $rc = 0 ] || [ $rc = 124 ]; then
		bad "refuse-$p" "nbdkit exit $rc, expected a refusal"
	elif ! grep -q -- "$key=" "$tmp/bad.out"; then
		bad "refuse-$p" "message does not name $key: $(head -c 200 "$tmp/bad.out")"
	else
		pass_ "refuse-$p"
	fi
done

finish
