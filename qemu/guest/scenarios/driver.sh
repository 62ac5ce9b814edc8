# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# Block-layer behaviour, on a scratch card (no file system needed): data
# integrity of raw patterns, ordering of overlapping writes and reads,
# flushes, mmc_block's ioctl passthrough, and -- when the coalesce
# scheduler runs on the disk -- its statistics, parameters, scheduler
# switches and module unload with writes held. Runs on every stack.

# The scheduler's files (build/SPEC-scheduler.md); SCHED_STATS,
# SCHED_PARAMS and SCHED_DISKP are set by /init for the disk in use.
STATS=$SCHED_STATS
PARAMS=$SCHED_PARAMS
DISKP=$SCHED_DISKP
# name default min max, one tunable a line: made by qemu/initramfs.sh
# from drivers/mmc/coalesce/coalesce-tunables.h
TUNABLES=/etc/coalesce-tunables

# stat_get NAME [FILE]: a statistic of the disk's scheduler (or of FILE)
stat_get() { awk -v k="$1" '$1 == k { print $2 }' "${2:-$STATS}" 2>/dev/null; }
ours() { sched_on; }

# expect_grew TEST STAT BEFORE: the statistic grew past BEFORE
expect_grew() {
	if [ "$(stat_get "$2")" -gt "${3:-0}" ] 2>/dev/null; then
		pass "$1"
	else
		fail "$1" "$2 did not grow ($3 -> $(stat_get "$2"))"
	fi
}

# expect_refused FILE VALUE LABEL: the write fails and the old value
# stays (a subtest of the tunable's test: rejects_LABEL)
expect_refused() {
	old=$(cat "$1")
	if echo "$2" >"$1" 2>/dev/null; then
		fail "rejects_$3" "'$2' was accepted"
	elif [ "$(cat "$1")" != "$old" ]; then
		fail "rejects_$3" "value changed to $(cat "$1")"
	else
		pass "rejects_$3"
	fi
}

params_checks() {
	if [ ! -s $TUNABLES ]; then
		fail param_table "no $TUNABLES in the initramfs (coalesce-tunables.h not parsed)"
		return
	fi
	# Before any change: every tunable's module parameter and the
	# statistics show the table's default (no mmcc.args in this test).
	if [ -z "$BLKARGS" ]; then
		while read -r name def min max; do
			p=$(cat "$PARAMS/$name" 2>/dev/null)
			st=$(stat_get "param_$name")
			if [ "$p" = "$def" ] && [ "$st" = "$def" ]; then
				pass "param_default_$name"
			else
				fail "param_default_$name" "parameter '$p', stats '$st', table $def"
			fi
		done <$TUNABLES
	fi
	# run-time change, visible in the statistics
	echo 2500 >"$PARAMS/hold_ms" || fail param_set "hold_ms not writable"
	if [ "$(stat_get param_hold_ms)" = 2500 ]; then
		pass param_change_visible
	else
		fail param_change_visible "stats say $(stat_get param_hold_ms)"
	fi
	# per-disk override wins over the module default, "default" undoes it
	echo 300 >"$DISKP/hold_ms" || fail disk_override "iosched/hold_ms not writable"
	echo 4000 >"$PARAMS/hold_ms"
	if [ "$(stat_get param_hold_ms)" = 300 ]; then
		pass disk_override
	else
		fail disk_override "stats say $(stat_get param_hold_ms)"
	fi
	echo default >"$DISKP/hold_ms" || fail disk_override_reset "'default' refused"
	if [ "$(stat_get param_hold_ms)" = 4000 ]; then
		pass disk_override_reset
	else
		fail disk_override_reset "stats say $(stat_get param_hold_ms)"
	fi
	# Every tunable, as a module parameter and as a per-disk attribute:
	# garbage and out-of-range values are refused, the old value stays.
	# Names and ranges come from the driver's table (coalesce-tunables.h).
	# One test per tunable, param_NAME, whose subtests are the values.
	ntun=0
	while read -r name def min max; do
		ntun=$((ntun + 1))
		ktap_sub_begin "param_$name"
		if [ -e "$PARAMS/$name" ] && [ -e "$DISKP/$name" ]; then
			pass exists
		else
			fail exists "no $PARAMS/$name or $DISKP/$name"
			ktap_sub_end
			continue
		fi
		bad="-1 abc 1x 0x 4294967296 99999999999999999999 $((max + 1))"
		[ "$min" -gt 0 ] && bad="$bad $((min - 1))"
		# au_kb: 0 (automatic) or whole 4 KiB pages, 16 or more
		[ "$name" = au_kb ] && bad="$bad 3001 1 8 15 18 $((max * 2))"
		for where in module:$PARAMS disk:$DISKP; do
			for v in $bad ""; do
				expect_refused "${where#*:}/$name" "$v" \
					"${where%%:*}_$(printf '%s' "${v:-empty}" | tr -c 'a-z0-9' _)"
			done
		done
		# the ends of the range are taken (then the default is back)
		for v in "$min" "$max"; do
			if echo "$v" >"$DISKP/$name" 2>/dev/null &&
				[ "$(cat "$DISKP/$name")" = "$v" ]; then
				pass "takes_$v"
			else
				fail "takes_$v" "reads back '$(cat "$DISKP/$name")'"
			fi
		done
		echo default >"$DISKP/$name"
		ktap_sub_end
	done <$TUNABLES
	kv tunables=$ntun
	# SD AU sizes that are no power of two (AU_SIZE 12 and 24 MiB)
	for kb in 12288 24576; do
		echo "$kb" >"$DISKP/au_kb" 2>/dev/null
		got=$(stat_get au_sectors)
		if [ "$got" = $((kb * 2)) ]; then
			pass "au_kb_takes_$kb"
		else
			fail "au_kb_takes_$kb" "au_sectors=$got, want $((kb * 2))"
		fi
	done
	echo default >"$DISKP/au_kb"
	# a pair the engine resolves by the larger value is said, not silent
	disk=${DISKP#/sys/block/} disk=${disk%%/*}
	echo 5000 >"$DISKP/hold_ms"
	echo 3000 >"$DISKP/meta_hold_ms"
	echo 50 >"$DISKP/meta_idle_ms"
	for said in "meta_hold_ms 3000 is not above hold_ms 5000" \
		"meta_idle_ms 50 is below idle_ms"; do
		if dmesg | grep -q "coalesce: $disk: $said"; then
			pass "said_${said%% *}_overridden"
		else
			fail "said_${said%% *}_overridden" "no 'coalesce: $disk: $said' in the kernel log"
		fi
	done
	for name in hold_ms meta_hold_ms meta_idle_ms; do
		echo default >"$DISKP/$name"
	done
	echo 1000 >"$PARAMS/hold_ms"
}

scenario_driver() {
	blkcheck patterns "$DEV"
	blkcheck mkpart "$DEV"
	i=0
	while [ ! -b "${DEV}p1" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	if [ -b "${DEV}p1" ]; then
		pass partition_node
	else
		fail partition_node "no ${DEV}p1"
	fi
	if ours; then
		# long hold and idle times, and no pause in holding after the
		# partition table's sync writes: releases then have one clear
		# reason
		echo 5000 >"$DISKP/hold_ms"
		echo 1000 >"$DISKP/idle_ms"
		echo 0 >"$DISKP/sync_grace_ms"
	fi

	r0=$(ours && stat_get released_read)
	blkcheck readafter "$DEV" "${DEV}p1"
	ours && expect_grew window_read_released_held_write released_read "$r0"
	blkcheck overlap "$DEV" "${DEV}p1"
	# A flush request never reaches a blk-mq elevator (blk-flush.c sends
	# it past): it does not release held writes, and owes nothing to
	# them (they have not completed). blkcheck checks that the flush and
	# the held write both complete and the data is there; released_flush
	# is reported, not required.
	blkcheck flush "$DEV" "${DEV}p1"
	if ours; then
		kv released_flush="$(stat_get released_flush)"
		contract_checks
		echo default >"$DISKP/hold_ms"
		echo default >"$DISKP/idle_ms"
		echo default >"$DISKP/sync_grace_ms"
		params_checks
	fi

	# mmc_block's passthrough, the same on every stack (the scheduler
	# only sees the requests it makes)
	# shellcheck disable=SC2153 # DISK is /init's
	rca=$(cat "/sys/block/$DISK/device/rca" 2>/dev/null)
	blkcheck ioctl "$DEV" "${rca:-0}"
	blkcheck badioctl "$DEV" "${rca:-0}" "${DEV}p1"
	# mmc-utils: 'status get' addresses RCA 1 (the eMMC convention) and
	# times out on an SD card; the sysfs readers work on any card.
	if /usr/bin/mmc csd read "/sys/block/$DISK/device" >/tmp/csd 2>&1; then
		pass mmc_utils_csd_read
	else
		fail mmc_utils_csd_read "$(tail -n 1 /tmp/csd)"
	fi

	if ours; then
		switch_under_writer
		unload_with_pending_writes
	fi
	# Where the kernel has the lock validator (the 6.12 guest): it turns
	# itself off at its first report or when it runs out of room, so
	# still on here means it watched every path above.
	if [ -r /proc/lockdep_stats ]; then
		kv "debug_locks=$(sed -n 's/^ *debug_locks: *//p' /proc/lockdep_stats)"
	fi
}

# The scheduler's contract, one path each (blkcheck, which checks the
# data read back): overlapping writes that reach the scheduler together
# leave in arrival order (no insert merge around the window); a read that
# merges into a queued read as a request still releases the held write
# under it; an fsync whose sync write merges as a bio into a held write
# lets every held write go (the sync rule: one that nobody waits for is
# off the debugfs list "held" when fdatasync returns), and a writer that
# sleeps on a held write with nothing new arriving is freed within
# idle_ms by the waiter probe, not after meta_idle_ms; the debugfs lists
# show the held writes. Writes at blkcheck's scratch offsets sit in AUs
# no data stream reaches, so they are held under meta_hold_ms;
# meta_idle_ms 5000 makes a missed release take 5 s, the limits of
# 1500 ms leave TCG room above idle_ms 200.
contract_checks() {
	echo 200 >"$DISKP/idle_ms"
	echo 5000 >"$DISKP/meta_idle_ms"
	blkcheck aiooverlap "$DEV"
	blkcheck readmerge "$DEV" "${DEV}p1" "$STATS"
	blkcheck fsyncmerge "$DEV" "${DEV}p1" "$STATS" 1500
	w0=$(stat_get released_waiter)
	blkcheck waitheld "$DEV" "$STATS" 1500
	expect_grew waiter_probe_released_it released_waiter "$w0"
	blkcheck lists "$DEV" "$STATS"
	echo default >"$DISKP/meta_idle_ms"
	echo 1000 >"$DISKP/idle_ms"
	zoned_refused
	fua_race
	flush_race
	flush_race sync
	sync_starve
}

# kernel_at_least MAJOR MINOR: the running kernel is that or newer
kernel_at_least() {
	v=$(uname -r)
	maj=${v%%.*} min=${v#*.}
	min=${min%%[!0-9]*}
	[ "$maj" -gt "$1" ] || { [ "$maj" = "$1" ] && [ "$min" -ge "$2" ]; }
}

# A zoned disk (null_blk, zoned=1) running mq-deadline: selecting
# coalesce fails with a clear error. 6.1 refuses by the elevator's
# features, before the switch: the disk keeps mq-deadline. From 6.10
# only the scheduler's own check refuses, after elevator_switch() has
# taken mq-deadline down: the disk ends on none.
zoned_refused() {
	if ! modprobe null_blk nr_devices=1 zoned=1 zone_size=16 memory_backed=1 \
		gb=1 2>/tmp/nullb.err; then
		fail zoned_refused "modprobe null_blk: $(cat /tmp/nullb.err)"
		return
	fi
	zs=/sys/block/nullb0/queue/scheduler
	echo mq-deadline >$zs
	want=mq-deadline
	kernel_at_least 6 10 && want=none
	if ! grep -q '\[mq-deadline\]' $zs; then
		fail zoned_refused "the zoned disk did not take mq-deadline: $(cat $zs)"
	elif echo coalesce >$zs 2>/tmp/zoned.err; then
		fail zoned_refused "coalesce was selected on a zoned disk ($(cat $zs))"
	elif ! grep -q "\[$want\]" $zs; then
		fail zoned_refused "the disk is on $(cat $zs), $want expected on $(uname -r)"
	else
		pass zoned_refused
	fi
	kv "zoned_refusal=$(dmesg | grep -m1 'coalesce: nullb0' | sed 's/^\[[^]]*\] //' | tr ' ' '_')"
	rmmod null_blk
}

# A FUA write emulated by a write and a flush, and a newer write to the
# same sectors (blkcheck fuarace) on null_blk with a write cache, one
# command at a time, each taking a second. From 6.5 the FUA write comes
# through the scheduler (a sync write); on 6.1 it goes past it.
# nullb_on_coalesce TEST: null_blk's disk runs coalesce, or TEST fails
# (and null_blk goes): a race run under another scheduler proves nothing.
nullb_on_coalesce() {
	echo coalesce >/sys/block/nullb0/queue/scheduler 2>/dev/null
	grep -q '\[coalesce\]' /sys/block/nullb0/queue/scheduler && return 0
	fail "$1" "nullb0's scheduler: $(cat /sys/block/nullb0/queue/scheduler)"
	rmmod null_blk
	return 1
}

# test_module NAME [ARG...]: load the guest test module NAME.ko for
# nullb0 with ARGs (it runs its test at load); res: its parameter
# "result", or none if it did not load; why: its last kernel log line,
# and the load's error if it did not load. Its log lines of this run go
# into the document.
test_module() {
	m=$1
	shift
	res=none
	seen=$(dmesg | wc -l)
	if insmod "$OURS/$m.ko" dev=/dev/nullb0 "$@" 2>"/tmp/$m.err"; then
		res=$(cat "/sys/module/$m/parameters/result")
		rmmod "$m"
	fi
	diag "$(dmesg | tail -n +$((seen + 1)) | sed -n "s/^\[[^]]*\] //; /^$m: /p")"
	why=$(dmesg | tail -n +$((seen + 1)) | sed -n "s/^\[[^]]*\] $m: //p" | tail -n 1)
	[ "$res" != none ] || why="$(cat "/tmp/$m.err"): $why"
}

fua_race() {
	if ! modprobe null_blk nr_devices=1 memory_backed=1 cache_size=64 \
		fua=0 irqmode=2 completion_nsec=1000000000 hw_queue_depth=1 \
		gb=1 2>/tmp/nullb.err; then
		fail fua_write_then_newer_write_last_wins "modprobe null_blk: $(cat /tmp/nullb.err)"
		return
	fi
	nullb_on_coalesce fua_write_then_newer_write_last_wins || return
	blkcheck fuarace /dev/nullb0
	rmmod null_blk
}

# A write with a flush before its data (REQ_PREFLUSH), sequenced by
# blk-flush: from 6.5 its data step comes to the scheduler at the head
# and waits for the older writes under it, behind a backlog; a newer
# write to the same sectors arrives meanwhile and its data must read
# back. No user interface sends such a write: flushrace.ko does (built
# for the 6.12 guest; qemu/guest/flushrace/flushrace.c says how; its
# parameter "result" is 0 on B's data, else an error number, -11 when
# the race was missed). null_blk as fua_race's, a command every 300 ms;
# 32 scheduler tags, so that the background writes are not throttled at
# submission. The step must have been seen: flush_steps grows by one.
# "sync": the newer write is a small sync write beside the older one and
# under the step, which a sort of sync writes ahead would send first.
flush_race() {
	t=flush_step_then_newer_write_last_wins k=flush_race args=
	if [ "${1:-}" = sync ]; then
		t=flush_step_then_newer_sync_write_last_wins
		k=flush_race_sync args=b_sync=1
	fi
	frko=$OURS/flushrace.ko
	if ! kernel_at_least 6 5; then
		skip $t "before 6.5 the data step of a flush sequence goes past the scheduler"
		return
	fi
	if [ ! -e "$frko" ]; then
		case $(uname -r) in
		6.12.*) fail $t "no $frko (tests/kernel-6.12-tests.sh builds it)" ;;
		*) skip $t "flushrace.ko is built for the 6.12 guest" ;;
		esac
		return
	fi
	if ! modprobe null_blk nr_devices=1 memory_backed=1 cache_size=64 \
		irqmode=2 completion_nsec=300000000 hw_queue_depth=1 gb=1 \
		2>/tmp/nullb.err; then
		fail $t "modprobe null_blk: $(cat /tmp/nullb.err)"
		return
	fi
	st=/sys/kernel/debug/block/nullb0/sched/stats
	nullb_on_coalesce $t || return
	echo 32 >/sys/block/nullb0/queue/nr_requests
	f0=$(stat_get flush_steps $st)
	if [ -z "$f0" ]; then
		fail $t "no flush_steps in $st: $(cat /sys/block/nullb0/queue/scheduler)"
		rmmod null_blk
		return
	fi
	# shellcheck disable=SC2086 # $args: none or one word
	test_module flushrace $args
	f1=$(stat_get flush_steps $st)
	rmmod null_blk
	kv "${k}_result=$res ${k}_steps=$((${f1:-0} - f0))"
	if [ "$res" = none ]; then
		fail $t "$why"
	elif [ "$res" != 0 ]; then
		fail $t "result $res: $why"
	elif [ "$((${f1:-0} - f0))" != 1 ]; then
		fail $t "flush_steps went from $f0 to ${f1:-none}: the data step did not come through the scheduler once"
	else
		pass $t
	fi
}

# Sync writers that never pause, beside background writes: eight kernel
# threads write 4 KiB with REQ_SYNC, each sending the next as soon as the
# last completed, on null_blk doing one 10 ms command at a time, and 16
# background writes of 64 KiB follow (syncstarve.ko,
# qemu/guest/syncstarve/syncstarve.c says how). They must all complete
# within 40 s: a background write passed by sync writes for 5 s
# (RWIN_WRITE_EXPIRE_NS) is passed no more, so the 16, eight queued at a
# time (queue_writes), take about two such spells. Its parameter
# "result" is 0 when they did, -110 when the sync writers starved them,
# -11 when the sync writers did not keep the disk busy.
sync_starve() {
	t=background_writes_beside_sync_writers_complete
	ssko=$OURS/syncstarve.ko
	if [ ! -e "$ssko" ]; then
		fail $t "no $ssko (make guest and tests/kernel-6.12-tests.sh build it)"
		return
	fi
	if ! modprobe null_blk nr_devices=1 memory_backed=1 irqmode=2 \
		completion_nsec=10000000 hw_queue_depth=1 gb=1 \
		2>/tmp/nullb.err; then
		fail $t "modprobe null_blk: $(cat /tmp/nullb.err)"
		return
	fi
	nullb_on_coalesce $t || return
	echo 32 >/sys/block/nullb0/queue/nr_requests
	st=/sys/kernel/debug/block/nullb0/sched/stats
	test_module syncstarve
	expired=$(stat_get sync_expired $st)
	rmmod null_blk
	kv "sync_starve_result=$res sync_starve_expired=${expired:-none}"
	if [ "$res" = none ]; then
		fail $t "$why"
	elif [ "$res" != 0 ]; then
		fail $t "result $res: $why"
	else
		pass $t
	fi
}

# The contract checks alone, on a partitioned scratch card
scenario_contract() {
	ours || { fail contract "the coalesce scheduler is not on $DEV"; return; }
	blkcheck mkpart "$DEV"
	i=0
	while [ ! -b "${DEV}p1" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	echo 0 >"$DISKP/sync_grace_ms"
	contract_checks
}

# wait_held [TENTHS]: until the scheduler holds writes (up to TENTHS
# tenths of a second, default 100); prints how many it holds
wait_held() {
	i=0
	h=$(stat_get held_now)
	while [ "${h:-0}" = 0 ] && [ $i -lt "${1:-100}" ]; do
		sleep 0.1
		i=$((i + 1))
		h=$(stat_get held_now)
	done
	echo "${h:-0}"
}

# hold_long: per-disk settings that keep small writes held for long.
# No sync grace: the stress writer beside the switch tests syncs more
# often than once a second, and each sync would otherwise stop holding
# for sync_grace_ms (on a slow host, for the whole test).
hold_long() {
	for t in hold_ms=10000 idle_ms=1000 window_reqs=1024 window_kb=65536 \
		sync_grace_ms=0; do
		echo "${t#*=}" >"$DISKP/${t%%=*}" ||
			fail hold_long "cannot set ${t%%=*}"
	done
}

# Where the scheduler-switch tests write (sectors): past blkcheck's
# scratch and stress areas (64-128 MiB), 2 MiB of span per scatter batch.
SWITCH_AREA=$((1024 * 2048))
UNLOAD_AREA=$((512 * 2048))
SPAN=4096

# Switching the scheduler away and back under running writers, with
# writes held at the switches: blkcheck's stress load (O_DIRECT and
# buffered writes, reads, syncs; every acknowledged write is modelled)
# and a loop of 1 MiB batches of scattered 4 KiB buffered writes left to
# background writeback (which the scheduler holds), each batch in its own
# area. Four switches; afterwards every acknowledged write and every batch
# is on the disk.
switch_under_writer() {
	B=/usr/local/bin/blkcheck
	hold_long
	echo 50 >/proc/sys/vm/dirty_writeback_centisecs
	echo 100 >/proc/sys/vm/dirty_expire_centisecs
	rm -f /tmp/sw.stop /tmp/sw.batches /tmp/scatter.out
	# kept open: a last close would write the page cache back at once
	exec 9<"$DEV"
	# until the four switches are done (/tmp/sw.stop; 25-40 s under TCG
	# on an idle host, longer beside other guests), at most 200 s
	BLKCHECK_STATE=/tmp/state.switch BLKCHECK_STOP=/tmp/sw.stop \
		$B stress "$DEV" 200 7 >/tmp/stress.out 2>&1 &
	writer=$!
	# (its result lines, on a failure only, are taken in below)
	(p=0
	while [ ! -e /tmp/sw.stop ] && [ $p -lt 60 ]; do
		p=$((p + 1))
		$B scatter "$DEV" $((SWITCH_AREA + p * SPAN)) 256 $p \
			>>/tmp/scatter.out || break
		echo $p >/tmp/sw.batches
		sleep 1
	done) &
	scatterer=$!
	sleep 3
	nsw=0 held_seen=0
	for s in none coalesce mq-deadline coalesce; do
		h=-
		if [ "$s" != coalesce ]; then
			h=$(wait_held 50)
			[ "$h" -gt 0 ] && held_seen=$((held_seen + 1))
		fi
		t0=$(uptime_cs)
		if select_sched $s; then
			nsw=$((nsw + 1))
			kv "switch_to_$s=$(( ($(uptime_cs) - t0) * 10 ))ms" "held_before=$h"
		else
			fail switch_under_writer "cannot select $s under the writers"
		fi
		# coalesce again: back to the long holds (a new instance
		# starts from the module's parameters)
		[ "$s" = coalesce ] && sched_on && hold_long
		sleep 4
	done
	if kill -0 $writer 2>/dev/null; then
		pass switch_writer_survived
	else
		fail switch_writer_survived "the stress writer ended before the switches did"
	fi
	touch /tmp/sw.stop
	wait $writer
	wait $scatterer
	# The stress writer's O_DIRECT writes and syncs release everything
	# held (sync writes are never kept waiting, and its fsync()s sleep on
	# the scatterer's held pages, which the waiter probe then lets go), so
	# both switches away may have found the window empty. Then switch
	# away again, up to five times, each time after a batch of scattered
	# background writes that nobody waits for (areas after the
	# scatterer's, checked below with the others).
	extra=0
	while [ $held_seen = 0 ] && [ $extra -lt 5 ]; do
		extra=$((extra + 1))
		$B scatter "$DEV" $((SWITCH_AREA + (60 + extra) * SPAN)) 256 \
			$((60 + extra)) >>/tmp/scatter.out
		h=$(wait_held 100)
		select_sched none ||
			fail switch_under_writer "cannot select none (extra switch $extra)"
		kv "switch_extra_$extra=none" "held_before=$h"
		[ "$h" -gt 0 ] && held_seen=$((held_seen + 1))
		select_sched coalesce && sched_on && hold_long
	done
	exec 9<&-
	results switch_ </tmp/stress.out
	[ ! -s /tmp/scatter.out ] || results </tmp/scatter.out
	if [ $nsw = 4 ]; then
		pass switch_under_writer_all_switches
	else
		fail switch_under_writer_all_switches "$nsw of 4 switches"
	fi
	# the test must have switched away from held writes
	if [ $held_seen -ge 1 ]; then
		pass switch_with_writes_held
	else
		fail switch_with_writes_held "no writes held at any switch away from coalesce"
	fi
	echo 3000 >/proc/sys/vm/dirty_expire_centisecs
	echo 500 >/proc/sys/vm/dirty_writeback_centisecs
	sync
	echo 3 >/proc/sys/vm/drop_caches
	RES_PRE=switch_
	export BLKCHECK_STATE=/tmp/state.switch
	blkcheck verify "$DEV"
	unset BLKCHECK_STATE
	# shellcheck disable=SC2034 # read by /init's blkcheck
	RES_PRE=
	if grep -q '^MMCC KV.* stress_write_errors=0 ' /tmp/stress.out &&
		grep -q '^MMCC KV.* stress_fsync_errors=0 ' /tmp/stress.out; then
		pass switch_no_io_errors
	else
		fail switch_no_io_errors "$(grep -m1 'stress_write_errors' /tmp/stress.out)"
	fi
	batches=$(cat /tmp/sw.batches 2>/dev/null)
	kv "switch_scatter_batches=${batches:-0}" "switch_extra_batches=$extra"
	p=1 bad=0
	# the scatterer's batches (1..batches), then the extra ones (61..)
	for p in $(seq 1 "${batches:-0}") $(seq 61 $((60 + extra))); do
		# a batch's result is shown (and counted) when it failed
		$B scattercheck "$DEV" $((SWITCH_AREA + p * SPAN)) 256 "$p" \
			"switch_batch_$p" >/tmp/sc.out || { bad=$((bad + 1)); results </tmp/sc.out; }
	done
	if [ "${batches:-0}" -ge 5 ] && [ $bad = 0 ]; then
		pass switch_buffered_batches_intact
	else
		fail switch_buffered_batches_intact "$bad of ${batches:-0} batches differ (at least 5 needed)"
	fi
	sched_on || select_sched coalesce
}

# Dirty 8 MiB of the disk's page cache (2048 scattered 4 KiB pieces) with
# writes held, then switch the disk to "none" at once: the switch (a queue
# freeze) must finish promptly, and what was written must be there. Then
# coalesce again; its module must refuse to unload while a disk uses it,
# and unload once none does.
unload_with_pending_writes() {
	hold_long
	echo 50 >/proc/sys/vm/dirty_writeback_centisecs
	echo 1 >/proc/sys/vm/dirty_expire_centisecs
	# The disk stays open meanwhile: the last close of a block device
	# writes its page cache back at once (sync_blockdev(), REQ_SYNC
	# writes, which are never held) -- here background writeback must.
	exec 9<"$DEV"
	blkcheck scatter "$DEV" $UNLOAD_AREA 2048 77
	# switch as soon as background writeback has writes held (the
	# idle rule releases them a second after writeback ends)
	held=$(wait_held 100)
	t0=$(uptime_cs)
	if select_sched none; then
		ms=$(( ($(uptime_cs) - t0) * 10 ))
		kv switch_none_ms=$ms held_at_switch="$held" \
			dirty_kib="$(awk '/^Dirty:/ { print $2 }' /proc/meminfo)"
		if [ $ms -le 10000 ]; then
			pass switch_with_dirty_pages_prompt
		else
			fail switch_with_dirty_pages_prompt "echo none took $ms ms"
		fi
	else
		fail switch_with_dirty_pages_prompt "echo none > scheduler failed"
		exec 9<&-
		return
	fi
	if [ "$held" -gt 0 ]; then
		pass switch_with_dirty_pages_held
	else
		fail switch_with_dirty_pages_held "no writes held when switching (the test did not exercise held writes)"
	fi
	echo 3000 >/proc/sys/vm/dirty_expire_centisecs
	echo 500 >/proc/sys/vm/dirty_writeback_centisecs
	exec 9<&-
	sync
	echo 3 >/proc/sys/vm/drop_caches
	blkcheck scattercheck "$DEV" $UNLOAD_AREA 2048 77 switch_lost_nothing

	if select_sched coalesce && sched_on; then
		pass reselect_coalesce
	else
		fail reselect_coalesce "cannot select coalesce again"
	fi
	if rmmod coalesce_iosched 2>/tmp/rmmod.err; then
		fail rmmod_refused_while_in_use "rmmod succeeded with coalesce on $DISK"
		load_sched
	else
		pass rmmod_refused_while_in_use
		kv rmmod_error="$(tr ' ' _ </tmp/rmmod.err)"
	fi
	# every disk off coalesce, then the module goes
	for f in /sys/block/*/queue/scheduler; do
		grep -q '\[coalesce\]' "$f" && echo none >"$f"
	done
	if rmmod coalesce_iosched; then
		pass rmmod_after_switch
	else
		fail rmmod_after_switch "rmmod failed with no disk on coalesce"
		return
	fi
	# back, for anything after this
	if load_sched && select_sched coalesce && sched_on; then
		pass reload_reselect
	else
		fail reload_reselect "insmod or select after rmmod failed"
	fi
}
