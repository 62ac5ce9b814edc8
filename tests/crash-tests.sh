#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Crash consistency: cut the power at random points while the guest
# writes, boot again on the same card and check that nothing the guest
# was told is durable went missing.
#
# Usage: tests/crash-tests.sh [--soak N] [--seed S] [--only NAME] [--jobs J]
#
# A kill point is two guest runs on one fresh 1 GiB sparse card image:
#  1. a write scenario (qemu/guest/scenarios/crash.sh), SIGKILLed
#     DELAY seconds after it prints "MMCC MARKER 1"
#     (qemu/run.sh --kill-after-marker; on some points of our stack
#     --kill-when-held: at the window's first sample of held writes
#     after DELAY, so that those kills land while writes are held):
#       crashfsync  ext4: small files written, fsynced, renamed into place,
#                   directory fsynced, then "FSYNCED name sha256"; log
#                   appends and overwrites and unlinks in between, and a
#                   paced stream of buffered writes beside them;
#       crashseed   ext2: a synced 4 MiB reference file ("SYNCED"), then
#                   the seed's big dd;
#  2. crashcheck on the same image (qemu/run.sh --card): e2fsck, mount
#     (ext4 replays its journal), e2fsck again, "FILE name sha256" for
#     every file.
# Every FSYNCED/SYNCED file must be there with its checksum, unless a
# later "DELETED" says its unlink was made durable (then it must be gone);
# a file whose unlink was under way ("DELETING" without "DELETED") may be
# either.  The fsck verdicts of crashcheck count too, and so does what the
# guest kernel reported on the console of either run
# (tests/lib/kernel-reports.sh).  On our stack (the coalesce scheduler on
# sdhci-pci + mmc_block) the write scenarios also sample the window every
# 0.5 s ("HELD"): a point killed when held fails if the guest's last
# sample before the kill shows none held, and the last result,
# crash/kills_while_held, needs at least 5 points whose last sample
# before the kill shows held writes.
#
# Stacks: ours at the defaults, ours with aggressive window settings, and
# stock as the control.  Modes:
#   (default)  quick: 8 kill points per ours setting (5 crashfsync +
#              3 crashseed; killed when held: the crashseed points, and
#              3 crashfsync points of the aggressive setting) and 4 on
#              stock (2 + 2); the crash-test row of Documentation/benchmarks.md
#   --soak N   N kill points per setting, the scenarios alternating
# DELAY is drawn from 0.5-12 s by a generator seeded with --seed (default:
# the clock; printed), so a run can be replayed; --only NAME replays one
# kill point of it (the guest's file data comes from /dev/urandom, and TCG
# timing varies, so a replay is close, not identical).
#
# Prints KTAP (tests/lib/ktap.sh): one result per kill point,
# "crash_<setting>_<n>", with what it found on a diagnostic line before
# it, then crash/kills_while_held; a guest-reported failure ("not ok" in either run's KTAP document,
# result.txt) fails the point.  Logs:
# build/crash/<seed>/<point>/{write,check}/console.log; the card image is
# kept for failed points only.  Figures: build/crash/<seed>/summary.txt
# (also copied to build/crash/summary.txt).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
run=$top/qemu/run.sh
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
# shellcheck source=tests/lib/kernel-reports.sh
. "$top/tests/lib/kernel-reports.sh"
# the least number of points killed while the window held writes
HELD_KILLS=5

soak=0 seed='' only='' jobs=2
while [ $# -gt 0 ]; do
	case $1 in
	--soak) soak=$2; shift ;;
	--seed) seed=$2; shift ;;
	--only) only=$2; shift ;;
	--jobs) jobs=$2; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "crash-tests.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done
[[ $soak =~ ^[0-9]+$ ]] || { echo "crash-tests.sh: --soak wants a number" >&2; exit 2; }
seed=${seed:-$(( $(date +%s) % 1000000 ))}
[[ $seed =~ ^[0-9]+$ ]] || { echo "crash-tests.sh: --seed wants a number" >&2; exit 2; }

for f in "$top/build/kernel-x86_64/arch/x86/boot/bzImage" \
	 "$top/build/initramfs-x86_64.cpio.gz"; do
	if [ ! -f "$f" ]; then
		ktap_begin crash
		ko crash/setup "missing $f (run 'make guest')"
		ktap_end
		exit 1
	fi
done

out=$top/build/crash/$seed
mkdir -p "$out"

# Settings: label, stack, module arguments of coalesce-iosched ("-":
# none).  "aggr" holds writes as long and as many as the tunables allow
# (drivers/mmc/coalesce/coalesce-tunables.h: hold_ms 1-10000, idle_ms
# 1-1000, meta_hold_ms 0-30000, meta_idle_ms 1-10000, sync_grace_ms 0 and queue_writes 0
# (no pause in holding, no bound on the queue), window_reqs 1-1024,
# capped by the tag budget) with 4 times the
# default window size (window_kb 4-65536): more unacknowledged writes,
# for longer, for a crash to cut into.
SETTINGS=(
	"ours ours -"
	"ours_aggr ours hold_ms=10000,idle_ms=1000,meta_hold_ms=30000,meta_idle_ms=10000,sync_grace_ms=0,queue_writes=0,window_reqs=1024,window_kb=16384"
	"stock stock -"
)

# The plan, one kill point a line: NAME STACK ARGS SCENARIO HELD DELAY
# GUEST_SEED (HELD 1: killed at the first sample of held writes after
# DELAY)
plan() {
	local s label stack args n i scen held
	for s in "${SETTINGS[@]}"; do
		read -r label stack args <<<"$s"
		if [ "$soak" -gt 0 ]; then
			n=$soak
		elif [ "$stack" = stock ]; then
			n=4
		else
			n=8
		fi
		for ((i = 1; i <= n; i++)); do
			# quick: two thirds crashfsync (where fsync, rename and
			# unlink meet held writes); soak and stock: alternating
			if [ "$soak" = 0 ] && [ "$stack" != stock ]; then
				scen=$([ $((i * 3)) -le $((n * 2)) ] && echo crashfsync || echo crashseed)
			else
				scen=$([ $((i % 2)) = 1 ] && echo crashfsync || echo crashseed)
			fi
			# Killed when held: ours' crashseed points (the seed's
			# dd, which the window holds writes beside within
			# seconds) and every other crashfsync point of the
			# aggressive setting.  At the defaults crashfsync
			# holds so rarely (one sample in 40-60, none at all in
			# some runs) that waiting for it could outlast the run.
			held=0
			case $label:$scen in
			ours*:crashseed) held=1 ;;
			ours_aggr:crashfsync) [ $((i % 2)) = 0 ] || held=1 ;;
			esac
			echo "crash_${label}_$i $stack $args $scen $held"
		done
	done | awk -v seed="$seed" 'BEGIN { srand(seed) }
		{ printf "%s %.2f %d\n", $0, 0.5 + 11.5 * rand(), int(rand() * 1000000000) }'
}

# kill_point NAME STACK ARGS SCENARIO HELD DELAY GUEST_SEED: both runs and
# the comparison; leaves DIR/verdict ("pass|fail NAME text") and DIR/row.
kill_point() {
	local name=$1 stack=$2 args=$3 scen=$4 kheld=$5 delay=$6 gseed=$7
	local dir=$out/$name card fs wrc=0 crc=0 a=() k=() why='' t0 figures failed r
	# A background job that must always leave a verdict: no errexit.
	set +e +o pipefail
	dir=$out/$name
	card=$dir/card.img
	rm -rf "$dir"
	mkdir -p "$dir"
	[ "$args" = - ] || a=(--args "$args")
	[ "$kheld" = 0 ] || k=(--kill-when-held)
	fs=ext4
	[ "$scen" = crashseed ] && fs=ext2
	t0=$(date +%s)
	truncate -s 1G "$card"

	"$run" --scenario "$scen" --stack "$stack" "${a[@]}" --out "$dir/write" \
		--card "$card" --kill-after-marker "$delay" "${k[@]}" --no-trace \
		--timeout 300 --kopt "mmcc.seed=$gseed" >"$dir/write.log" 2>&1 || wrc=$?
	"$run" --scenario crashcheck --stack "$stack" "${a[@]}" --out "$dir/check" \
		--card "$card" --no-trace --timeout 300 \
		--kopt "mmcc.fs=$fs" >"$dir/check.log" 2>&1 || crc=$?

	# What was acknowledged against what the card holds.
	figures=$(awk -v details="$dir/details.txt" '
		# Only well-formed lines: a kernel message can break into a
		# console line (run.sh already drops one cut by the kill).
		FNR == NR {
			if (($1 == "FSYNCED" || $1 == "SYNCED") && NF == 3 && $3 ~ /^[0-9a-f]+$/ && length($3) == 64) {
				sum[$2] = $3; acked++
			} else if ($1 == "DELETING" && NF == 2) deleting[$2] = 1
			else if ($1 == "DELETED" && NF == 2) deleted[$2] = 1
			next
		}
		$1 == "FILE" && NF == 3 { have[$2] = $3 }
		END {
			empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
			for (f in sum) {
				if (f in deleted) {
					if (f in have) { resurrected++; print "RESURRECTED " f " (unlink was acknowledged)" >details }
					else deleted_ok++
				} else if (f in deleting) {
					if (!(f in have)) inflight_gone++
					else if (have[f] == sum[f]) inflight_kept++
					else { corrupt++; print "CORRUPT " f " (unlink under way) want " sum[f] " got " have[f] >details }
				} else if (!(f in have)) {
					lost++; print "LOST " f " " sum[f] >details
				} else if (have[f] != sum[f]) {
					corrupt++
					print "CORRUPT " f " want " sum[f] " got " have[f] (have[f] == empty ? " (empty file)" : "") >details
				} else verified++
			}
			for (f in have) if (!(f in sum)) extra++
			printf "acked=%d verified=%d lost=%d corrupt=%d deleted_ok=%d resurrected=%d inflight_kept=%d inflight_gone=%d extra=%d\n",
				acked, verified, lost, corrupt, deleted_ok, resurrected, inflight_kept, inflight_gone, extra
		}' "$dir/write/result.txt" "$dir/check/result.txt" 2>/dev/null) ||
		figures="acked=0 verified=0 lost=0 corrupt=0 deleted_ok=0 resurrected=0 inflight_kept=0 inflight_gone=0 extra=0"
	local acked verified lost corrupt deleted_ok resurrected inflight_kept inflight_gone
	# shellcheck disable=SC2034 # extra is one of the figures, unused here
	local extra
	eval "$figures"

	# The file system after the crash: ext4's e2fsck before and after the
	# journal replay, ext2's e2fsck -fy repairs.
	local kvs fsck killed_ms held
	kvs=$(sed -n 's/^KV //p' "$dir/check/result.txt" 2>/dev/null | tr '\n' ' ')
	if [ "$fs" = ext4 ]; then
		fsck="recovery=$(kv_of "$kvs" needs_recovery),before=$(kv_of "$kvs" fsck_before_rc),after=$(result_of "$dir/check" e2fsck_after_replay)"
	else
		fsck="fixes=$(kv_of "$kvs" ext2_fsck_fixes),rc=$(kv_of "$kvs" ext2_fsck_rc),after=$(result_of "$dir/check" e2fsck_after_fix)"
	fi
	killed_ms=$(sed -n 's/^killed_after_marker_ms=//p' "$dir/write/kill.txt" 2>/dev/null)
	# Our window, sampled every 0.5 s: writes held at the last sample
	# before the kill / most held at any sample / writes held in all
	# since the module loaded ("-" on stock).  From the console, which
	# the kill watched: the results port can be a sample behind it.
	held=$(awk '$1 == "MMCC" && $2 == "HELD" && $3 ~ /^now=[0-9]+$/ {
			split($3, a, "="); last = a[2]; if (a[2] + 0 > max) max = a[2] + 0
			if (split($5, t, "=") == 2 && t[2] ~ /^[0-9]+/) total = t[2] + 0; n++ }
		END { print n ? last "/" max + 0 "/" total : "-" }' "$dir/write/console.log" 2>/dev/null)

	[ "$wrc" = 4 ] || why+="; write run not killed as asked (run.sh exit $wrc; see $dir/write.log)"
	grep -qx 'MARKER 1' "$dir/write/result.txt" 2>/dev/null ||
		why+="; the write run's results port has no MARKER 1"
	for r in write check; do
		failed=$(kernel_report_first "$dir/$r/console.log")
		[ -z "$failed" ] || why+="; $r run: the kernel reported: $failed"
	done
	if [ "$kheld" = 1 ] && ! [ "${held%%/*}" -gt 0 ] 2>/dev/null; then
		why+="; killed when held, yet the last sample before the kill held ${held%%/*} writes"
	fi
	# the guests' own failures (the write run's document is cut by the
	# kill: only its "not ok" lines count)
	failed=$(failed_tests "$dir/write/result.txt")
	[ -z "$failed" ] || why+="; write run: not ok $failed"
	[ "$crc" = 0 ] || why+="; check run exit $crc (see $dir/check/console.log)"
	failed=$(failed_tests "$dir/check/result.txt")
	[ -z "$failed" ] || why+="; check run: not ok $failed"
	[ "$lost" = 0 ] || why+="; $lost acknowledged file(s) lost"
	[ "$corrupt" = 0 ] || why+="; $corrupt file(s) corrupt"
	[ "$resurrected" = 0 ] || why+="; $resurrected acknowledged unlink(s) undone"
	if [ -z "$why" ]; then
		echo "pass $name" >"$dir/verdict"
		rm -f "$card"	# 1 GiB sparse; kept only for failed points
	else
		echo "fail $name ${why#; } (card and logs kept in ${dir#"$top"/})" >"$dir/verdict"
	fi
	printf '%s %s %s %s %s %s %s %s %s %s %s %s %s %s %s %s\n' "$name" "$stack" "$args" \
		"$scen" "$delay" "${killed_ms:--}" "$acked" "$verified" "$lost" "$corrupt" \
		"$deleted_ok" "$resurrected" "$((inflight_kept + inflight_gone))" "$fsck" \
		"$(( $(date +%s) - t0 ))" "${held:--}" >"$dir/row"
}

kv_of() { # "k=v k=v" KEY
	local w
	for w in $1; do
		case $w in "$2="*) echo "${w#*=}"; return ;; esac
	done
	echo "?"
}
result_of() { # RUNDIR TEST -> pass|fail|?: its KTAP result line
	local v
	v=$(awk -v t="$2" '$1 == "ok" && $3 == t { print "pass" }
		$1 == "not" && $2 == "ok" && $4 == t { print "fail" }' \
		"$1/result.txt" 2>/dev/null | tail -n 1)
	echo "${v:-?}"
}
failed_tests() { # RESULT.TXT -> the names of its "not ok" results
	sed -n -E 's/^ *not ok [0-9]+ ([^#]*[^# ]).*/\1/p' "$1" 2>/dev/null |
		tr '\n' ' ' | sed 's/ $//'
}

declare -A printed=()
# Report the kill points that have finished since the last call.
reap() {
	local d v name
	for d in "$out"/crash_*/; do
		name=$(basename "$d")
		if [ ! -f "$d/verdict" ] || [ ! -f "$d/row" ] || [ -n "${printed[$name]:-}" ]; then
			continue
		fi
		printed[$name]=1
		read -r v _ <"$d/verdict"
		read -r -a row <"$d/row"
		set -- "${row[@]}"
		if [ "$v" = pass ]; then
			diag "$name: $4, killed $6 ms after the marker, window held ${16}: $7 acked, $8 verified, ${11} deleted; fsck ${14}; ${15} s"
			ok "$name"
		else
			[ ! -s "$d/details.txt" ] || diag "$(head -n 20 "$d/details.txt")"
			ko "$name" "$(cut -d' ' -f3- "$d/verdict")"
		fi
	done
}

mapfile -t points < <(plan)
if [ -n "$only" ]; then
	mapfile -t points < <(printf '%s\n' "${points[@]}" | awk -v n="$only" '$1 == n')
	[ ${#points[@]} -gt 0 ] || { echo "crash-tests.sh: no kill point '$only' in this plan" >&2; exit 2; }
fi
mode=quick replay="tests/crash-tests.sh --seed $seed"
[ "$soak" -gt 0 ] && mode="soak $soak" replay="tests/crash-tests.sh --soak $soak --seed $seed"
# the points and, for a whole plan, crash/kills_while_held
ktap_begin crash $(( ${#points[@]} + (${#only} == 0) ))
diag "crash tests: $mode, ${#points[@]} kill points, seed $seed (replay: $replay [--only POINT]), $jobs at a time"
diag "logs: ${out#"$top"/}"
printf '%s\n' "${points[@]}" >"$out/plan.txt"
start=$(date +%s)

# A stopped harness must not leave guests running: kill our jobs' process
# groups (each run.sh kills its own QEMU on exit).
trap 'for p in $(jobs -p); do kill -TERM -- "-$p" 2>/dev/null; done' EXIT
set -m	# each job in its own process group, for the trap above
for p in "${points[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n || true
		reap
	done
	# shellcheck disable=SC2086 # a plan line is the arguments
	kill_point $p &
done
wait || true
set +m
trap - EXIT
reap
elapsed=$(( $(date +%s) - start ))

# Kills that cut into held writes: the guest's last sample of the window
# before the kill (the row's held column, "last/most/total") shows some.
if [ -z "$only" ]; then
	held_kills=0
	for p in "${points[@]}"; do
		d=$out/${p%% *}
		[ -f "$d/row" ] || continue
		read -r -a row <"$d/row"
		[ "${row[15]%%/*}" -gt 0 ] 2>/dev/null && held_kills=$((held_kills + 1))
	done
	if [ "$held_kills" -ge "$HELD_KILLS" ]; then
		diag "$held_kills kill points landed while the window held writes"
		ok crash/kills_while_held
	else
		ko crash/kills_while_held "$held_kills kill points landed while the window held writes, fewer than $HELD_KILLS"
	fi
fi

# The summary table: one row per kill point, then totals per setting.
summary=$out/summary.txt
{
	echo "crash tests $(date -u '+%F %T UTC'): $mode, seed $seed, ${#points[@]} kill points in ${elapsed} s ($jobs guests at a time)"
	echo
	printf '%-20s %-6s %-10s %7s %7s %10s %5s %8s %4s %7s %7s %6s %-38s %4s %s\n' \
		point stack scenario delay_s kill_ms held acked verified lost corrupt deleted undone fsck secs verdict
	for p in "${points[@]}"; do
		d=$out/${p%% *}
		[ -f "$d/row" ] || continue
		read -r -a row <"$d/row"
		set -- "${row[@]}"
		printf '%-20s %-6s %-10s %7s %7s %10s %5s %8s %4s %7s %7s %6s %-38s %4s %s\n' \
			"$1" "$2" "$4" "$5" "$6" "${16}" "$7" "$8" "$9" "${10}" "${11}" "${12}" "${14}" "${15}" \
			"$(cut -d' ' -f1 "$d/verdict")"
	done
	echo
	echo "per setting (acked = files reported durable; verified = found intact; lost/corrupt: goal 0):"
	printf '%-10s %6s %6s %7s %9s %5s %8s %8s %7s %s\n' setting points failed acked verified lost corrupt deleted undone fsck
	for s in "${SETTINGS[@]}"; do
		label=${s%% *}
		cat "$out"/crash_"$label"_[0-9]*/row 2>/dev/null | awk -v label="$label" -v out="$out" '
			{ n++; acked += $7; ver += $8; lost += $9; cor += $10; del += $11; und += $12
			  if ($14 ~ /after=pass/) clean++
			  v = ""; f = out "/" $1 "/verdict"; getline v <f; close(f)
			  if (v !~ /^pass/) failed++ }
			END { if (n) printf "%-10s %6d %6d %7d %9d %5d %8d %8d %7d %d/%d clean after replay/repair\n",
				label, n, failed, acked, ver, lost, cor, del, und, clean, n }'
	done
	echo
	echo "columns: delay_s = asked delay after MARKER 1; kill_ms = measured; held = writes our window held"
	echo "at the last 0.5 s sample before the kill / at most at one sample / in all (- on stock);"
	echo "deleted = acknowledged unlinks found gone; undone = acknowledged unlinks found undone (goal 0);"
	echo "fsck: ext4 recovery=needs_recovery flag before mount, before=e2fsck -fn exit before the"
	echo "journal replay, after=e2fsck -fn after it; ext2 fixes=e2fsck -fy repairs, rc=its exit,"
	echo "after=e2fsck -fn after the repair (what it fixed: check/console.log, lines 'fsck:')."
} >"$summary"
cp "$summary" "$top/build/crash/summary.txt"
sed 's/^/# /' "$summary"
diag "time: ${elapsed} s"
ktap_end
