# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# Many small files written beside a stream, on ext4: the workload where a
# layer that takes every request at once (and so starves the elevator of
# the backlog it merges in) sends more small writes than stock. A 256 MiB
# dd stream and, at the same time, 2048 files of 4-16 KiB in 64
# directories, written with the shell's own redirection (buffered, no
# fsync), then one sync.
# Phase markers: 1 = workload starts, 2 = it (and its sync) ended.

smallfiles_writer() {
	d=0
	while [ $d -lt 64 ]; do
		mkdir -p /mnt/small/d$d
		f=0
		while [ $f -lt 32 ]; do
			# 4, 8, 12 or 16 KiB of non-zero data
			/bin/dd.coreutils if=/tmp/pat of=/mnt/small/d$d/f$f \
				bs=4K count=$((f % 4 + 1)) status=none || return 1
			f=$((f + 1))
		done
		d=$((d + 1))
	done
}

scenario_smallfiles() {
	kib=262144
	/bin/dd.coreutils if=/dev/urandom of=/tmp/pat bs=4K count=4 status=none
	make_fs ext4 || return
	kv fs=ext4 stream_kib=$kib small_files=2048
	marker 1
	start_sampler
	# shellcheck disable=SC2034 # end_workload's start
	t0=$(uptime_cs)
	/bin/dd.coreutils if=/dev/zero of=/mnt/stream bs=64K \
		count=$((kib / 64)) status=none &
	stream=$!
	smallfiles_writer || fail small_files "writing the small files failed"
	wait $stream || fail stream "dd failed"
	# 2048 files of 4-16 KiB: 20 MiB in all, beside the stream
	end_workload $((kib + 20480))
	stats_consistent stats_consistent
	n=$(find /mnt/small -type f | wc -l)
	if [ "$n" = 2048 ]; then
		pass small_files_written
	else
		fail small_files_written "$n files, not 2048"
	fi
	umount /mnt || fail umount "umount failed"
	fsck_clean fsck
}
