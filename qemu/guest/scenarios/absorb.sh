# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# Absorption (Documentation/reorder-window.md, "Absorption"): a write
# carries the updates made to the block device's buffers while it waited
# in the window. None of them may be lost. Writers change buffers that
# writeback has already submitted, while held writes are dispatched:
#   raw      buffered 4 KiB writes to the raw card from four processes
#   ext2     small files created, appended to, truncated and deleted by
#            three processes beside a 64 MiB stream (bitmaps, inode
#            tables, directories, indirect blocks)
#   vfat     the same on FAT32 (the FAT and its mirror)
#   nullb    the raw writers on null_blk, which takes the data when it
#            takes a command and ends it from a timer 20 ms later (a
#            write's end in interrupt context)
# then sync, the caches dropped, and everything read back as last
# written; the file systems also after a remount, and fsck finds them
# clean. With the scheduler on and absorb=1, each part must also have
# absorbed updates (the stats' "absorbed" grew), or it proved nothing.
# mmcc.absorb_seconds: how long the writers run (default 20).

ABSORB_STATE=/tmp/absorb.state

# The flusher takes the block device's pages again every half second,
# and anything dirty for a second: writeback keeps submitting buffers
# the writers are still changing.
absorb_writeback_often() {
	echo 50 >/proc/sys/vm/dirty_writeback_centisecs
	echo 100 >/proc/sys/vm/dirty_expire_centisecs
}

absorbed_of() { awk '$1 == "absorbed" { print $2 }' "$1" 2>/dev/null; }

# absorb_acted NAME STATS BEFORE: with absorption on, it absorbed
absorb_acted() {
	[ -r "$2" ] || return 0
	now=$(absorbed_of "$2")
	kv "$1_absorbed=$((${now:-0} - ${3:-0}))"
	[ "$(absorb_param "$2")" = 1 ] || return 0
	if [ "${now:-0}" -gt "${3:-0}" ]; then
		pass "$1_absorbed_updates"
	else
		fail "$1_absorbed_updates" "absorbed stayed at ${now:-?}: nothing was absorbed, so the check above proved nothing"
	fi
}

absorb_param() { awk '$1 == "param_absorb" { print $2 }' "$1" 2>/dev/null; }

drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# absorb_raw NAME DEV STATS: four raw writers, then every block checked
absorb_raw() {
	a0=$(absorbed_of "$3")
	absorbcheck raw "$2" 0 4096 4 "$secs" $ABSORB_STATE
	drop_caches
	absorbcheck rawcheck "$2" 0 $ABSORB_STATE "$1_last_versions"
	absorb_acted "$1" "$3" "$a0"
}

# absorb_fs FS: the file churn and a stream on FS, checked after sync and
# after a remount; fsck clean
absorb_fs() {
	a0=$(absorbed_of "$SCHED_STATS")
	make_fs "$1" || return
	seed=$(($(uptime_cs) * 7919 + $$))
	/usr/local/bin/blkcheck seedwrite /mnt/stream 65536 "$seed" \
		>/tmp/stream.log 2>&1 &
	stream=$!
	absorbcheck files /mnt 3 "$secs" $ABSORB_STATE
	wait $stream || fail "$1_stream_written" "$(tail -n 3 /tmp/stream.log)"
	drop_caches
	absorbcheck filescheck /mnt $ABSORB_STATE "$1_files_after_sync"
	blkcheck seedverify /mnt/stream 65536 "$seed" "$1_stream_after_sync"
	umount /mnt || fail "$1_umount" "umount failed"
	fsck_clean "$1_fsck"
	mount -t "$1" "$DEV" /mnt || { fail "$1_remount" "mount failed"; return; }
	absorbcheck filescheck /mnt $ABSORB_STATE "$1_files_after_remount"
	umount /mnt
	absorb_acted "$1" "$SCHED_STATS" "$a0"
}

absorb_nullb() {
	if ! nullb_with "${ELEVATOR:-mq-deadline}" irqmode=2 \
		completion_nsec=20000000; then
		fail nullb_last_versions "$NULLB_WHY"
		return
	fi
	absorb_raw nullb /dev/nullb0 /sys/kernel/debug/block/nullb0/sched/stats
	rmmod null_blk
}

scenario_absorb() {
	secs=$(arg absorb_seconds)
	secs=${secs:-20}
	absorb_writeback_often
	kv "absorb_param=$(absorb_param "$SCHED_STATS")"
	absorb_raw raw "$DEV" "$SCHED_STATS"
	absorb_fs ext2
	if grep -qw vfat /proc/filesystems || modprobe vfat 2>/dev/null; then
		absorb_fs vfat
	else
		fail vfat_files_after_sync "no vfat in this kernel"
	fi
	absorb_nullb
	window_stats
}
