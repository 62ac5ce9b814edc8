# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# Crash consistency (tests/crash-tests.sh).  The host boots a write
# scenario, SIGKILLs QEMU at a chosen time after "MMCC MARKER 1"
# (qemu/run.sh --kill-after-marker), boots crashcheck on the same card
# image (--card) and checks that everything the guest acknowledged
# survived:
#   MMCC FSYNCED name sha256   file data, its rename and the directory
#                              fsynced: must be there after the crash
#   MMCC SYNCED name sha256    written before a global sync (crashseed)
#   MMCC DELETING name         about to unlink: may or may not survive
#   MMCC DELETED name          unlink and directory fsync returned: gone
#   MMCC FILE name sha256      crashcheck: what the card holds
# Names are relative to /mnt/d, the only directory that is checked.

CRASH_DIR=/mnt/d
DD=/bin/dd.coreutils

sha_of() { # FILE -> its sha256
	sha_l=$(sha256sum <"$1")
	echo "${sha_l%% *}"
}

# A small pseudo-random number generator seeded from the command line
# (mmcc.seed), so that the sizes and the mix of a kill point can be
# replayed.  The data itself comes from /dev/urandom.
crash_rand_init() {
	CRASH_RNG=$(arg seed)
	CRASH_RNG=$(( ${CRASH_RNG:-1} % 2147483647 + 1 ))
}
crash_rand() { # N -> R in 0..N-1 (Park-Miller)
	CRASH_RNG=$(( CRASH_RNG * 48271 % 2147483647 ))
	R=$(( CRASH_RNG % $1 ))
}

# The coalesce scheduler only: every 0.5 s, what the window holds ("MMCC
# HELD now=N kib=K total=M"), so that the host can tell whether a kill cut
# into held writes.  Shell builtins only (bar sleep): the sampler must not
# slow the workload down much.
crash_sampler() {
	f=$SCHED_STATS
	[ -r "$f" ] || return 0
	(
		while :; do
			now='?' bytes=0 total='?'
			while read -r k v; do
				case $k in
				held_now) now=$v ;;
				held_bytes_now) bytes=$v ;;
				held) total=$v ;;
				esac
			done <"$f"
			say "HELD now=$now kib=$((bytes / 1024)) total=$total"
			sleep 0.5
		done
	) &
}

# A buffered stream of large writes that nobody syncs, beside the fsync
# loop: it keeps the card busy, so that the small writes around it
# (metadata, log overwrites) stay in the window while fsyncs, journal
# commits and their flushes go by -- the mix a crash should cut into.
# Paced at about 2 MB/s (512 KiB, then 0.2 s of rest): flat out it fills
# the queue and every fsync waits seconds behind it, leaving too few
# acknowledged files per kill point.  32 MiB files, two at a time, each
# rewritten after an unlink: block allocation and freeing as well.
crash_streamer() {
	(
		k=0
		while :; do
			f=/mnt/log/stream$((k / 64 % 2))
			[ $((k % 64)) = 0 ] && rm -f $f
			$DD if=/dev/zero of=$f bs=64K count=8 oflag=append \
				conv=notrunc status=none 2>/dev/null
			sleep 0.2
			k=$((k + 1))
		done
	) &
}

# ext4 (data=ordered, the default): small files made durable the way an
# application does it -- write a temporary file, fsync it, rename it into
# place, fsync the directory -- and only then reported.  Between them, log
# appends and small in-place overwrites that nobody fsyncs, and beside
# them a stream of large buffered writes (crash_streamer): background
# writeback of data and metadata, which is what the reorder window holds.
scenario_crashfsync() {
	make_fs ext4 || return
	mkdir -p $CRASH_DIR /mnt/log
	kv fs=ext4
	# Start background writeback after 1 s instead of 30 s, so that the
	# window has unsynced writes in it at every kill point (kills come
	# 0.5-12 s after the marker).
	echo 100 >/proc/sys/vm/dirty_expire_centisecs
	echo 50 >/proc/sys/vm/dirty_writeback_centisecs
	crash_rand_init
	$DD if=/dev/urandom of=/mnt/log/log bs=64K count=16 status=none
	# one file made durable before the marker, as the loop makes them: a
	# kill point always has an acknowledged file to look for
	if ! $DD if=/dev/urandom of=$CRASH_DIR/.tmp0 bs=1K count=8 conv=fsync \
		status=none || ! mv $CRASH_DIR/.tmp0 $CRASH_DIR/f0 ||
		! sync $CRASH_DIR; then
		fail crash_write "writing, renaming or syncing f0 failed"
		return
	fi
	say "FSYNCED f0 $(sha_of $CRASH_DIR/f0)"
	marker 1
	crash_sampler
	crash_streamer
	n=0 oldest=1
	while :; do
		n=$((n + 1))
		crash_rand 64
		tmp=$CRASH_DIR/.tmp$n
		if ! $DD if=/dev/urandom of=$tmp bs=1K count=$((R + 1)) \
			conv=fsync status=none; then
			fail crash_write "writing $tmp failed"
			return
		fi
		sum=$(sha_of $tmp)
		if ! mv $tmp $CRASH_DIR/f$n || ! sync $CRASH_DIR; then
			fail crash_write "rename or directory fsync of f$n failed"
			return
		fi
		say "FSYNCED f$n $sum"

		crash_rand 10
		case $R in
		0 | 1 | 2) # append 64-1024 KiB to the log
			crash_rand 16
			$DD if=/dev/urandom of=/mnt/log/log bs=64K count=$((R + 1)) \
				oflag=append conv=notrunc status=none ;;
		3 | 4 | 5 | 6) # 1-8 small overwrites at random places in it
			crash_rand 8
			k=$((R + 1))
			size=$(stat -c %s /mnt/log/log)
			while [ $k -gt 0 ]; do
				crash_rand $((size / 4096))
				$DD if=/dev/urandom of=/mnt/log/log bs=4K count=1 \
					seek=$R conv=notrunc status=none
				k=$((k - 1))
			done ;;
		7) # unlink the oldest file, once there are a few
			if [ $((n - oldest)) -ge 8 ]; then
				say "DELETING f$oldest"
				if ! rm $CRASH_DIR/f$oldest || ! sync $CRASH_DIR; then
					fail crash_unlink "unlink of f$oldest failed"
					return
				fi
				say "DELETED f$oldest"
				oldest=$((oldest + 1))
			fi ;;
		esac
	done
}

# The seed's workload (scenario_seed) on ext2, which has no journal: a
# 4 MiB reference file written and synced first, then the big dd of
# zeros (twice the RAM; rewritten until the host kills the guest).
scenario_crashseed() {
	kib=$(seed_file_kib)
	make_fs ext2 || return
	mkdir -p $CRASH_DIR
	$DD if=/dev/urandom of=$CRASH_DIR/ref bs=1M count=4 status=none
	sync
	say "SYNCED ref $(sha_of $CRASH_DIR/ref)"
	kv fs=ext2 "file_kib=$kib"
	marker 1
	crash_sampler
	while :; do
		$DD if=/dev/zero of=/mnt/ff bs=16K count=$((kib / 16)) \
			status=none || { fail dd "dd failed"; return; }
	done
}

# A 32-bit little-endian field of the ext2/3/4 superblock (at byte 1024)
sb_u32() {
	$DD if="$DEV" bs=1 skip=$((1024 + $1)) count=4 status=none |
		od -An -tu4 | tr -d ' '
}

# Which file system the crash left: mmcc.fs=ext2|ext4 from the host, else
# the superblock's has_journal feature.
crash_fs() {
	fs=$(arg fs)
	if [ -z "$fs" ]; then
		# s_feature_compat (0x5c), COMPAT_HAS_JOURNAL = 0x4
		if [ $(( $(sb_u32 92) & 4 )) != 0 ]; then fs=ext4; else fs=ext2; fi
	fi
	echo "$fs"
}

# MMCC FILE name sha256 for every regular file under /mnt/d, and how
# many entries e2fsck left in lost+found.
list_files() {
	n=0
	for f in $(cd $CRASH_DIR && find . -type f | sed 's|^\./||' | sort); do
		say "FILE $f $(sha_of "$CRASH_DIR/$f")"
		n=$((n + 1))
	done
	kv files_found=$n
	kv "lost_found=$(find /mnt/lost+found -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)"
}

# Boot on the crashed card (no mkfs): fsck, mount, list what survived.
scenario_crashcheck() {
	fs=$(crash_fs)
	kv "fs=$fs"
	case $fs in
	ext4)
		# Before the journal is replayed e2fsck -n sees the file
		# system as the crash left it; needs_recovery is expected
		# (s_feature_incompat 0x60, INCOMPAT_RECOVER = 0x4).
		rec=no
		[ $(( $(sb_u32 96) & 4 )) != 0 ] && rec=yes
		$E2FSCK -fn "$DEV" >/tmp/fsck0.log 2>&1
		rc=$?
		kv needs_recovery=$rec fsck_before_rc=$rc
		mount -t ext4 -o noatime "$DEV" /mnt ||
			{ fail mount_replay "mount (journal replay) failed"; return; }
		pass mount_replay
		list_files
		umount /mnt || { fail umount "umount failed"; return; }
		# After the replay the file system must be clean.
		if $E2FSCK -fn "$DEV" >/tmp/fsck1.log 2>&1; then
			pass e2fsck_after_replay
		else
			fail e2fsck_after_replay "e2fsck -fn found problems after the journal replay"
			tail -n 30 /tmp/fsck1.log
		fi
		;;
	ext2)
		# No journal: an interrupted write leaves work for e2fsck
		# by design.  Report what it fixed; afterwards it must be
		# clean.
		$E2FSCK -fy "$DEV" >/tmp/fsck0.log 2>&1
		rc=$?
		kv "ext2_fsck_rc=$rc" "ext2_fsck_fixes=$(grep -c '? yes' /tmp/fsck0.log)"
		# What it said, for the record (questions span two lines).
		grep -v '^Pass [0-9]' /tmp/fsck0.log | head -n 40 | sed 's/^/fsck: /'
		if [ $rc -ge 4 ]; then
			fail e2fsck_fix "e2fsck -fy left errors (exit $rc)"
			tail -n 30 /tmp/fsck0.log
		elif $E2FSCK -fn "$DEV" >/tmp/fsck1.log 2>&1; then
			pass e2fsck_after_fix
		else
			fail e2fsck_after_fix "e2fsck -fn found problems after e2fsck -fy"
			tail -n 30 /tmp/fsck1.log
		fi
		mount -t ext2 -o noatime "$DEV" /mnt ||
			{ fail mount "mount failed"; return; }
		pass mount
		list_files
		umount /mnt || fail umount "umount failed"
		;;
	*)
		fail crash_fs "unknown file system '$fs'"
		;;
	esac
}
