# Block-driver behaviour, on a scratch card (no file system needed):
# data integrity of raw patterns, ordering of overlapping writes and
# reads, flushes, the ioctl passthrough, run-time parameters and unload
# with writes pending. Runs on every stack; the checks of the window's
# statistics and parameters run only when our block driver is loaded.

STATS=/sys/kernel/debug/mmc_coalesce/mmcblk0/stats
PARAMS=/sys/module/mmc_coalesce/parameters
DISKP=/sys/block/mmcblk0/mmc_coalesce

stat_get() { awk -v k="$1" '$1 == k { print $2 }' $STATS; }
ours() { [ -r $STATS ]; }

# expect_grew TEST STAT BEFORE: the statistic grew past BEFORE
expect_grew() {
	if [ "$(stat_get "$2")" -gt "${3:-0}" ]; then
		pass "$1"
	else
		fail "$1" "$2 did not grow"
	fi
}

# expect_refused FILE VALUE: the write fails and the old value stays
expect_refused() {
	old=$(cat "$1")
	if echo "$2" >"$1" 2>/dev/null; then
		fail "param_rejects_$(basename "$1")_$3" "'$2' was accepted"
	elif [ "$(cat "$1")" != "$old" ]; then
		fail "param_rejects_$(basename "$1")_$3" "value changed to $(cat "$1")"
	else
		pass "param_rejects_$(basename "$1")_$3"
	fi
}

params_checks() {
	# run-time change, visible in the statistics
	echo 2500 >$PARAMS/hold_ms || fail param_set "hold_ms not writable"
	[ "$(stat_get param_hold_ms)" = 2500 ] && pass param_change_visible ||
		fail param_change_visible "stats say $(stat_get param_hold_ms)"
	# per-disk override wins over the module default, "default" undoes it
	echo 300 >$DISKP/hold_ms
	echo 4000 >$PARAMS/hold_ms
	[ "$(stat_get param_hold_ms)" = 300 ] && pass disk_override ||
		fail disk_override "stats say $(stat_get param_hold_ms)"
	echo default >$DISKP/hold_ms
	[ "$(stat_get param_hold_ms)" = 4000 ] && pass disk_override_reset ||
		fail disk_override_reset "stats say $(stat_get param_hold_ms)"
	# Every tunable, as a module parameter and as a per-disk attribute:
	# garbage and out-of-range values are refused, the old value stays.
	# name:min:max (drivers/mmc/coalesce/params.c)
	for t in enable:0:1 small_kb:0:1024 window_reqs:1:256 \
		window_kb:4:65536 hold_ms:1:10000 idle_ms:1:1000 au_kb:0:262144; do
		name=${t%%:*}
		range=${t#*:}
		min=${range%:*}
		max=${range#*:}
		bad="-1 abc 1x 0x 4294967296 99999999999999999999 $((max + 1))"
		[ "$min" -gt 0 ] && bad="$bad $((min - 1))"
		for where in $PARAMS $DISKP; do
			for v in $bad ""; do
				expect_refused "$where/$name" "$v" \
					"$(basename "$(dirname "$where")")_$(printf '%s' "${v:-empty}" | tr -c 'a-z0-9' _)"
			done
		done
	done
	expect_refused $PARAMS/au_kb 3000 not_pow2
	expect_refused $PARAMS/au_kb 8 too_small
	expect_refused $DISKP/au_kb 3000 not_pow2
	echo 1000 >$PARAMS/hold_ms
}

scenario_driver() {
	B=/usr/local/bin/blkcheck
	$B patterns $DEV
	$B mkpart $DEV
	i=0
	while [ ! -b ${DEV}p1 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	[ -b ${DEV}p1 ] && pass partition_node || fail partition_node "no ${DEV}p1"
	if ours; then
		# long hold and idle times: releases then have one clear reason
		echo 5000 >$DISKP/hold_ms
		echo 1000 >$DISKP/idle_ms
	fi

	r0=$(ours && stat_get released_read)
	$B readafter $DEV ${DEV}p1
	ours && expect_grew window_read_released_held_write released_read "$r0"
	$B overlap $DEV ${DEV}p1
	f0=$(ours && stat_get released_flush)
	$B flush $DEV ${DEV}p1
	if ours; then
		expect_grew window_flush_released_held_write released_flush "$f0"
		echo default >$DISKP/hold_ms
		echo default >$DISKP/idle_ms
		params_checks
	fi

	rca=$(cat /sys/block/mmcblk0/device/rca 2>/dev/null)
	if ours; then
		$B ioctl $DEV "${rca:-0}"
		$B badioctl $DEV "${rca:-0}" ${DEV}p1
	else
		BLKCHECK_STOCK=1 $B ioctl $DEV "${rca:-0}"
		BLKCHECK_STOCK=1 $B badioctl $DEV "${rca:-0}" ${DEV}p1
	fi
	# mmc-utils: 'status get' addresses RCA 1 (the eMMC convention) and
	# times out on an SD card; the sysfs readers work on any card.
	if /usr/bin/mmc csd read /sys/block/mmcblk0/device >/tmp/csd 2>&1; then
		pass mmc_utils_csd_read
	else
		fail mmc_utils_csd_read "$(tail -n 1 /tmp/csd)"
	fi

	if ours; then
		unload_with_pending_writes
	fi
}

# Dirty 8 MiB of the disk's page cache, unload at once: del_gendisk()
# writes them back through the window before the driver goes. Then load
# again and compare.
unload_with_pending_writes() {
	/bin/dd.coreutils if=/dev/urandom of=/tmp/pat bs=1M count=8 status=none
	want=$(sha256sum /tmp/pat | cut -d' ' -f1)
	/bin/dd.coreutils if=/tmp/pat of=$DEV bs=64K seek=2048 status=none
	if rmmod mmc_coalesce; then
		pass rmmod_with_dirty_pages
	else
		fail rmmod_with_dirty_pages "rmmod failed"
		return
	fi
	insmod $OURS/mmc_coalesce.ko
	wait_card || { fail reload "card not back after insmod"; return; }
	got=$(/bin/dd.coreutils if=$DEV bs=64K skip=2048 count=128 iflag=direct status=none | sha256sum | cut -d' ' -f1)
	[ "$got" = "$want" ] && pass unload_lost_nothing ||
		fail unload_lost_nothing "checksum differs after reload"
}
