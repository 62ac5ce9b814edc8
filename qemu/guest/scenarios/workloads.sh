# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# Scenarios run by /init inside the guest.  Each is a shell function
# scenario_NAME that reports with pass/fail/kv (see /init).
#
# Phase markers: 1 = workload starts, 2 = workload (and its sync) ended.

MKE2FS=/sbin/mke2fs
E2FSCK=/sbin/e2fsck

# File size for the seed's workload: twice the guest's RAM, as in the report
# (the RAM QEMU was given, mmcc.mem_mib; else MemTotal), in 16 KiB blocks.
seed_file_kib() {
	mib=$(arg mem_mib)
	if [ -n "$mib" ]; then
		echo $((mib * 2 * 1024))
	else
		mem=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
		echo $(((mem * 2 + 15) / 16 * 16))
	fi
}

# The window's statistics, when the coalesce scheduler runs on the disk
# (debugfs block/DISK/sched/stats): "MMCC STAT name value"
window_stats() {
	f=$SCHED_STATS
	[ -r "$f" ] || return 0
	while read -r name value; do say "STAT $name $value"; done <"$f"
}

# stats_consistent NAME: once the disk is idle, every write that entered
# the window was either passed on or held, every held one was released
# exactly once, and every write request the scheduler dispatched was
# completed exactly once (writes merged into another request before
# dispatch are not dispatched: dispatched <= writes in). A file system
# may still be writing (jbd2 commits every 5 s): a reading taken
# mid-request is retried for up to 10 s; a real leak stays.
stats_consistent() {
	f=$SCHED_STATS
	[ -r "$f" ] || return 0
	tries=0
	while :; do
		why=$(awk '
			{ v[$1] = $2 }
			$1 ~ /^released_/ { rel += $2 }
			END {
				if (v["held_now"] != 0)
					printf " held_now=%s", v["held_now"]
				if (v["writes_in"] != v["passed"] + v["held"])
					printf " writes_in!=passed+held"
				if (v["held"] != rel)
					printf " held=%s!=released=%s", v["held"], rel
				if (v["write_reqs_done"] != v["dispatched_writes"])
					printf " done=%s!=dispatched=%s", v["write_reqs_done"], \
					    v["dispatched_writes"]
				if (v["dispatched_writes"] > v["writes_in"])
					printf " dispatched=%s>in=%s", v["dispatched_writes"], \
					    v["writes_in"]
			}' "$f")
		[ -z "$why" ] && break
		tries=$((tries + 1))
		[ $tries -ge 20 ] && break
		sleep 0.5
	done
	if [ -z "$why" ]; then
		pass "$1"
	else
		fail "$1" "after 10 s:$why"
	fi
}

# Diagnostics (mmcc.sample=SECONDS): every SECONDS, the dirty and writeback
# page counts, the CPU time of the writer, the flusher and interrupt
# threads, and the whole guest's (/proc/stat's first line: user, nice,
# system, idle, iowait, irq, softirq ticks), as "MMCC SAMPLE" lines.
cpu_ticks() { # $1: comm prefix; user+system ticks summed over the matches
	t=0
	for s in /proc/[0-9]*/stat; do
		read -r line <"$s" 2>/dev/null || continue
		case $line in *"($1"*) ;; *) continue ;; esac
		# shellcheck disable=SC2086 # the fields of /proc/PID/stat
		set -- ${line#*) }
		t=$((t + ${12} + ${13}))
	done
	echo $t
}

start_sampler() {
	period=$(arg sample)
	[ -n "$period" ] || return 0
	(
		while :; do
			# shellcheck disable=SC2046 # two numbers
			set -- $(awk '/^nr_dirty |^nr_writeback / {print $2}' \
				/proc/vmstat)
			say "SAMPLE t=$(uptime_cs) dirty=$1 writeback=$2" \
				"dd=$(cpu_ticks dd) blkcheck=$(cpu_ticks blkcheck)" \
				"flush=$(cpu_ticks kworker)" \
				"irq=$(cpu_ticks irq/)" \
				"cpu=$(awk '/^cpu / { print $2 "," $3 "," $4 "," $5 "," $6 "," $7 "," $8; exit }' /proc/stat)"
			sleep "$period"
		done
	) &
	SAMPLER=$!
}

stop_sampler() {
	[ -n "${SAMPLER:-}" ] || return 0
	kill "$SAMPLER" 2>/dev/null
	wait "$SAMPLER" 2>/dev/null
	SAMPLER=
}

# centiseconds as seconds with two decimals
cs_seconds() { echo "$(($1 / 100)).$(($1 % 100 / 10))$(($1 % 10))"; }

# end_workload KIB: sync, mark the end, report the guest-side speed from
# t0: with the sync (guest_kbps, guest_seconds) and before it (what dd
# itself reports: workload_kbps), and how long the sync took (sync_seconds)
end_workload() {
	ts=$(uptime_cs)
	sync
	stop_sampler
	t1=$(uptime_cs)
	marker 2
	window_stats
	cs=$((t1 - t0))
	[ $cs -gt 0 ] || cs=1
	kv "guest_seconds=$(cs_seconds $cs)"
	kv guest_kbps=$(($1 * 100 / cs))
	cs=$((ts - t0))
	[ $cs -gt 0 ] || cs=1
	kv workload_kbps=$(($1 * 100 / cs))
	kv "sync_seconds=$(cs_seconds $((t1 - ts)))"
}

# fsck_clean NAME: the file system make_fs made is consistent (read-only
# check)
fsck_clean() {
	case $FS in
	vfat) set -- "$1" /sbin/fsck.fat -n ;;
	exfat) set -- "$1" /sbin/fsck.exfat -n ;;
	f2fs) set -- "$1" /sbin/fsck.f2fs -f --dry-run ;;
	*) set -- "$1" $E2FSCK -fn ;;
	esac
	name=$1
	shift
	if "$@" "$DEV" >/tmp/fsck.log 2>&1; then
		pass "$name"
	else
		fail "$name" "$* found problems"
		tail -n 20 /tmp/fsck.log
	fi
}

# make_fs TYPE: ext2, ext4, vfat (FAT32, as SD cards ship), exfat or f2fs
# on the whole card, mounted on /mnt; FS says which, for fsck_clean
make_fs() {
	FS=$1
	case $1 in
	vfat) set -- "$1" /sbin/mkfs.fat -F 32 ;;
	exfat) set -- "$1" /sbin/mkfs.exfat ;;
	f2fs) set -- "$1" /sbin/mkfs.f2fs -f -q -t 0 ;;
	*) set -- "$1" $MKE2FS -q -F -t "$1" -E nodiscard ;;
	esac
	fs=$1
	shift
	if ! "$@" "$DEV" >/tmp/mkfs.log 2>&1; then
		cat /tmp/mkfs.log
		fail mkfs "$* failed"
		return 1
	fi
	mount -t "$fs" "$DEV" /mnt || { fail mount "mount $fs failed"; return 1; }
}

# With mmcc.issue_trace=1, the kernel's block_rq_issue events from marker
# 1 to marker 2 as tracefs prints them, sent as "ISSUE" lines: the text
# admin-guide.md's "Measure your own card" has a board user record
# without blktrace, for the host to score beside QEMU's trace of the run.
ISSUE_EVENT=/sys/kernel/debug/tracing/events/block/block_rq_issue
issue_trace_on() {
	[ "$(arg issue_trace)" = 1 ] || return 0
	echo >/sys/kernel/debug/tracing/trace
	echo 1 >$ISSUE_EVENT/enable || fail issue_trace "no block_rq_issue event"
}

issue_trace_off() {
	[ "$(arg issue_trace)" = 1 ] || return 0
	echo 0 >$ISSUE_EVENT/enable
	sed -n '/block_rq_issue: /s/^/MMCC ISSUE /p' /sys/kernel/debug/tracing/trace
}

# The seed: iozone/dd writing a file of twice the RAM on ext2, then sync.
# Phases at the card: 0 mkfs and mount, 1 the workload and its sync, 3
# the first read-back, 4 umount, fsck, mount, 5 the second read-back, 6
# the last umount (2 is where the workload's sync ended).
dd_workload() { # $1: fs type
	kib=$(seed_file_kib)
	phase 0
	make_fs "$1" || return
	kv "fs=$1" "file_kib=$kib"
	issue_trace_on
	marker 1
	start_sampler
	t0=$(uptime_cs)
	# dd bs=16K's writes, of a pattern zeros or another run's file
	# cannot pass for (the card image is sparse: a lost write reads 0)
	seed=$(($(uptime_cs) * 7919 + $$))
	blkcheck seedwrite /mnt/ff "$kib" "$seed"
	end_workload "$kib"
	issue_trace_off
	stats_consistent stats_consistent
	if [ "$(stat -c %s /mnt/ff)" = $((kib * 1024)) ]; then
		pass file_size
	else
		fail file_size "file is $(stat -c %s /mnt/ff) bytes"
	fi
	# after the sync, from the card (not the page cache), and again
	# after a remount
	phase 3
	echo 3 >/proc/sys/vm/drop_caches
	blkcheck seedverify /mnt/ff "$kib" "$seed" seed_data_after_sync
	phase 4
	umount /mnt || fail umount "umount failed"
	fsck_clean fsck
	mount -t "$fs" "$DEV" /mnt || { fail remount "mount $fs failed"; return; }
	phase 5
	blkcheck seedverify /mnt/ff "$kib" "$seed" seed_data_after_remount
	phase 6
	umount /mnt || fail umount2 "umount after the check failed"
}

scenario_seed() { dd_workload ext2; }
scenario_ext4() { dd_workload ext4; }
# The seed on the file systems SD cards ship with: every cluster
# allocation updates both FATs (fat_mirror_bhs() locks the second FAT's
# buffer, which a held write keeps locked); exFAT keeps one FAT and a
# bitmap.
scenario_fat32() { dd_workload vfat; }
scenario_exfat() { dd_workload exfat; }
# The seed on f2fs, the flash file system: what a user who may change
# file system gets without this scheduler (or with it).
scenario_f2fs() { dd_workload f2fs; }

# A sequential 64 KiB stream and a 4 KiB random-write stream at once.
scenario_fio() {
	make_fs ext4 || return
	marker 1
	t0=$(uptime_cs)
	if /usr/bin/fio --output-format=terse --terse-version=3 \
		/scenarios/mixed.fio >/tmp/fio.log 2>&1; then
		pass fio
	else
		fail fio "fio failed"
		tail -n 20 /tmp/fio.log
	fi
	end_workload "$(du -sk /mnt | cut -f1)"
	umount /mnt || fail umount "umount failed"
	fsck_clean fsck
}

# Smoke: files of random data survive an unmount and a cache drop.
scenario_smoke() { roundtrip ext2; }
scenario_smoke4() { roundtrip ext4; }

roundtrip() { # $1: fs type
	make_fs "$1" || return
	mkdir -p /mnt/d
	i=0
	for kib in 4 12 64 700 3000; do
		/bin/dd.coreutils if=/dev/urandom of=/mnt/d/f$i bs=1K \
			count=$kib status=none
		i=$((i + 1))
	done
	(cd /mnt/d && sha256sum f* >/tmp/sums)
	umount /mnt || { fail roundtrip "umount failed"; return; }
	echo 3 >/proc/sys/vm/drop_caches
	mount -t "$1" "$DEV" /mnt || { fail roundtrip "remount failed"; return; }
	if (cd /mnt/d && sha256sum -c /tmp/sums >/tmp/check.log 2>&1); then
		pass roundtrip
	else
		fail roundtrip "checksums differ"
		cat /tmp/check.log
	fi
	umount /mnt
	window_stats
	fsck_clean fsck
}

# fsync() latency while a stream runs: a 128 MiB dd into the file system
# (buffered, so writeback keeps the card busy), and beside it 40 new 4 KiB
# files, one written and fsync()ed every 250 ms on a fixed clock (blkcheck
# fsyncprobe with BLKCHECK_PROBE_COUNT): the same work on every stack,
# whatever its fsync latency, so the card figures compare. The workload
# ends when both have. The probe's files share the metadata AUs (inode
# table, bitmaps, directory) that a write-holding scheduler may be holding.
fsync_workload() { # $1: fs type
	kib=131072
	make_fs "$1" || return
	mkdir -p /mnt/probe
	rm -f /tmp/stream.done
	kv "fs=$1" "stream_kib=$kib"
	marker 1
	start_sampler
	t0=$(uptime_cs)
	(
		/bin/dd.coreutils if=/dev/zero of=/mnt/stream bs=64K \
			count=$((kib / 64)) status=none
		echo $? >/tmp/stream.done
	) &
	stream=$!
	# its result (fsync_probe) and KV lines
	export BLKCHECK_PROBE_COUNT=40
	blkcheck fsyncprobe /mnt/probe /tmp/stream.done
	unset BLKCHECK_PROBE_COUNT
	wait $stream
	[ "$(cat /tmp/stream.done)" = 0 ] || fail stream "dd failed"
	end_workload $((kib + $(du -sk /mnt/probe | cut -f1)))
	stats_consistent stats_consistent
	umount /mnt || fail umount "umount failed"
	fsck_clean fsck
}

scenario_fsync() { fsync_workload ext2; }
scenario_fsync4() { fsync_workload ext4; }
# Small files written and fsync()ed beside a stream, on FAT32 and exFAT
scenario_fsyncfat() { fsync_workload vfat; }
scenario_fsyncexfat() { fsync_workload exfat; }

# What the scheduler costs where the device is fast: 4 KiB random O_DIRECT
# writes at queue depth 32 on a memory-backed null_blk (one submission
# queue, as an SD card has), under the elevator this run selected for the
# card (ours: coalesce; stock: --elevator, else mq-deadline), for 20 s,
# over 64 MiB (null_blk keeps what is written in the guest's RAM).
# A board with eMMC and an SD card runs one scheduler on both. The guest
# is TCG: the figure is relative, not a device's. KV nullblk_iops.
scenario_nullblk() {
	sched=${ELEVATOR:-mq-deadline}
	if ! nullb_with "$sched" queue_mode=2 submit_queues=1 \
		hw_queue_depth=64; then
		fail nullblk "$NULLB_WHY"
		return
	fi
	kv "nullblk_sched=$sched"
	marker 1
	if /usr/bin/fio --name=randwrite --filename=/dev/nullb0 --rw=randwrite \
		--bs=4k --iodepth=32 --ioengine=libaio --direct=1 --size=64m \
		--time_based --runtime=20 --output-format=terse \
		--terse-version=3 >/tmp/fio.log 2>&1; then
		pass nullblk_fio
	else
		fail nullblk_fio "fio failed"
		tail -n 20 /tmp/fio.log
	fi
	marker 2
	# terse v3: field 49 is the write IOPS
	kv "nullblk_iops=$(awk -F';' 'NF > 49 { print $49; exit }' /tmp/fio.log)"
	echo none >/sys/block/nullb0/queue/scheduler
	rmmod null_blk
}

# flashbench's open-AU test on the raw card (no file system):
# mmcc.openau_au=BYTES (the card's AU) and mmcc.openau_nr=N,M,... (the
# numbers of AUs written in turn). For each N, flashbench writes N AUs
# (picked among 12 from 16 MiB in) interleaved in pieces of AU, AU/2, ...
# down to AU/16; past the number of AUs the card keeps open, every piece
# closes an AU part written and the speed falls off a cliff. Reported per
# N as KV openau_kbps_N, the speed at AU/16 pieces in KB/s (guest time:
# card time plus TCG's CPU time). Phase k, between markers k and k + 1,
# is the k-th N, so that a timed card's charge per N can be read too.
scenario_openau() {
	au=$(arg openau_au)
	nrs=$(arg openau_nr)
	if [ -z "$au" ] || [ -z "$nrs" ]; then
		fail openau "mmcc.openau_au and mmcc.openau_nr are required"
		return
	fi
	k=1
	for n in $(echo "$nrs" | tr ',' ' '); do
		phase $k
		k=$((k + 1))
		# the table goes to stdout; -o names a file flashbench opens
		# and never writes (without it, it opens fd 0 for writing)
		if ! flashbench --open-au --open-au-nr="$n" --erasesize="$au" \
			--blocksize=$((au / 16)) -o /dev/null "$DEV" \
			>"/tmp/openau.$n" 2>"/tmp/openau.$n.err"; then
			fail "openau_$n" "flashbench: $(head -n 1 "/tmp/openau.$n.err")"
			continue
		fi
		sed 's/^/# openau nr='"$n"': /' "/tmp/openau.$n" | while read -r l; do say "$l"; done
		# last line: "1MiB    853M/s" (the unit may lose its "/s")
		kbps=$(tail -n 1 "/tmp/openau.$n" | awk '{
			v = $2; u = v; sub(/^[0-9.]+/, "", u); v += 0
			if (u ~ /^G/) v *= 1e6; else if (u ~ /^M/) v *= 1e3
			else if (u ~ /^K/) v *= 1; else v /= 1e3
			printf "%d", v }')
		if [ -n "$kbps" ] && [ "$kbps" -gt 0 ]; then
			pass "openau_$n"
			kv "openau_kbps_$n=$kbps"
		else
			fail "openau_$n" "no speed in: $(tail -n 1 "/tmp/openau.$n")"
		fi
	done
	phase $k
}
