# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# Reliability scenarios (Documentation/reliability.md):
#   load    fio: reads, small and large writes and fsyncs at once on ext4,
#           crc32c on every block, checked again from the card
#   faults  the mmc core's fail_mmc_request at several probabilities under
#           a data-integrity load on the raw disk: errors reach userspace
#           as errors, never as wrong data; the window's books balance
#   remove  the card or its controller goes away under load
# The window's checks run when the coalesce scheduler is on the disk.

STATS_FILE=$SCHED_STATS
stat_now() { awk -v k="$1" '$1 == k { print $2 }' "$STATS_FILE" 2>/dev/null; }

# kernel_clean NAME: nothing in the kernel log that means a bug or a hang
# (KASAN reports start with "BUG: KASAN"; lockdep's with the kind of bug)
KERNEL_BAD='BUG:|WARNING:|Oops|blocked for more than|INFO: task|possible circular locking|inconsistent lock state|possible recursive locking'
kernel_clean() {
	if dmesg | grep -E -q "$KERNEL_BAD"; then
		fail "$1" "kernel log: $(dmesg | grep -E -m1 "$KERNEL_BAD")"
	else
		pass "$1"
	fi
}

scenario_load() {
	secs=$(arg load_seconds)
	secs=${secs:-30}
	make_fs ext4 || return
	kv load_seconds="$secs"
	marker 1
	# shellcheck disable=SC2034 # end_workload's start
	t0=$(uptime_cs)
	if LOAD_SECONDS=$secs fio --output-format=terse /scenarios/load.fio \
		>/tmp/fio.terse 2>/tmp/fio.err; then
		pass load_fio_verify
	else
		fail load_fio_verify "fio failed: $(tail -n 1 /tmp/fio.err)"
		tail -n 20 /tmp/fio.err
	fi
	# terse v3: $3 job, $5 error, $6 read KiB, $15 read completion max (us)
	awk -F';' '{ printf "KV fio_%s error=%s read_kib=%s read_clat_max_us=%s\n", $3, $5, $6, $15 }' \
		/tmp/fio.terse | while read -r l; do say "$l"; done
	sync
	end_workload "$(du -sk /mnt | cut -f1)"

	# The same blocks again, from the card this time.
	echo 3 >/proc/sys/vm/drop_caches
	if LOAD_SECONDS=1 fio --verify_only --section=seq512k \
		--section=rand4k-fsync --section=rand16k /scenarios/load.fio \
		>/tmp/fio-verify.log 2>&1; then
		pass load_verify_from_card
	else
		fail load_verify_from_card "$(grep -m1 -i 'verify\|bad\|err' /tmp/fio-verify.log)"
		tail -n 20 /tmp/fio-verify.log
	fi

	if [ -r "$STATS_FILE" ]; then
		# how long a read waited: fio's read_clat_max_us above
		kv reads_in="$(stat_now reads_in)" max_hold_us="$(stat_now max_hold_us)"
		stats_consistent load_stats_consistent
	fi
	umount /mnt || fail umount "umount failed"
	fsck_clean fsck
	kernel_clean load_kernel_log_clean
}

scenario_faults() {
	fi_dir=''
	for d in /sys/kernel/debug/mmc*/fail_mmc_request; do
		[ -d "$d" ] && fi_dir=$d && break
	done
	if [ -z "$fi_dir" ]; then
		fail faults_setup "no fail_mmc_request in debugfs (CONFIG_FAIL_MMC_REQUEST)"
		return
	fi
	secs=$(arg fault_seconds)
	secs=${secs:-20}
	probs=$(arg fault_probs)
	probs=${probs:-1,5,20}
	# a finite budget instead of -1 (no limit): the kernel counts it
	# down once per failure it injects, which shows it injected some
	fi_budget=1000000000
	echo 1 >"$fi_dir/interval"
	echo 0 >"$fi_dir/verbose"
	marker 1
	seed=1
	for p in $(echo "$probs" | tr ',' ' '); do
		echo "$fi_budget" >"$fi_dir/times"
		echo "$p" >"$fi_dir/probability"
		# blkcheck's result names get _pP
		RES_SUF=_p$p
		export BLKCHECK_STATE=/tmp/state.$p
		blkcheck stress "$DEV" "$secs" $seed
		echo 0 >"$fi_dir/probability"
		injected=$((fi_budget - $(cat "$fi_dir/times")))
		kv "faults_injected_p$p=$injected"
		if [ "$injected" -gt 0 ]; then
			pass "faults_injected_p$p"
		else
			fail "faults_injected_p$p" "fail_mmc_request injected nothing at $p %"
		fi
		sync
		echo 3 >/proc/sys/vm/drop_caches
		blkcheck verify "$DEV"
		unset BLKCHECK_STATE
		# shellcheck disable=SC2034 # read by /init's blkcheck
		RES_SUF=
		# mmc_block retries and reports the errors now; the
		# scheduler's books must still balance
		[ ! -r "$STATS_FILE" ] || stats_consistent "faults_stats_consistent_p$p"
		seed=$((seed + 1))
	done
	marker 2
	# absorbed updates, and those a failed write dirtied again
	[ ! -r "$STATS_FILE" ] ||
		kv "faults_absorbed=$(stat_now absorbed)" \
			"faults_absorb_redirtied=$(stat_now absorb_redirtied)"
	kernel_clean faults_kernel_log_clean
}

# remove: take the card away while writes are in flight and held, in one of
# five ways (mmcc.remove=): eject (the host pulls the card: QMP eject),
# pci (the host unplugs the controller: device_del on a q35 root port),
# rmhost (rmmod of the SDHCI host driver), unbind (mmc_block is unbound
# from the card through sysfs), unbindhost (the host driver is unbound
# from the controller's PCI device through sysfs). An fsync must fail,
# every writer must stay killable, nothing may hang or oops, and mmc_block
# and the scheduler's module must unload afterwards.
scenario_remove() {
	how=$(arg remove)
	make_fs ext4 || return
	kv remove="$how"
	# a large buffered stream and a small fsync loop: both have writes
	# held, queued and on the card when the card goes
	(/bin/dd.coreutils if=/dev/zero of=/mnt/big bs=64K count=100000 \
		status=none 2>/dev/null; echo $? >/tmp/rc.big) &
	big=$!
	# /tmp/n.small: "error N" once an fsync failed, "finished N" if the loop
	# ran out without one
	(i=0 end=finished; while [ $i -lt 100000 ]; do
		/bin/dd.coreutils if=/dev/urandom of=/mnt/s.$((i % 50)) bs=4K \
			count=2 conv=fsync status=none 2>/dev/null || { end=error; break; }
		i=$((i + 1))
	done; echo "$end $i" >/tmp/n.small) &
	small=$!
	# small buffered writes left to background writeback: the window
	# holds these (with the removal test's long hold and idle times)
	(i=0; while :; do
		/bin/dd.coreutils if=/dev/urandom of=/mnt/m.$((i % 200)) bs=4K \
			count=1 status=none 2>/dev/null
		i=$((i + 1))
	done) &
	meta=$!
	marker 1
	sleep 3
	# Our driver: wait (up to 10 s) for a moment when writes are held.
	i=0
	held=$(stat_now held_now)
	while [ "${held:-0}" = 0 ] && [ -r "$STATS_FILE" ] && [ $i -lt 50 ]; do
		sleep 0.2
		i=$((i + 1))
		held=$(stat_now held_now)
	done
	kv held_at_removal="${held:-n/a}"
	case $how in
	eject | pci) say "REMOVE_NOW" ;;	# the host acts on this line
	rmhost) rmmod sdhci_pci 2>/tmp/rm.err &
		;;
	unbind)	# mmc_block's driver ("mmcblk") lets go of the card
		card=$(basename "$(readlink -f /sys/block/mmcblk0/device)")
		drv=$(basename "$(readlink -f /sys/block/mmcblk0/device/driver)")
		kv unbind_driver="$drv" unbind_device="$card"
		echo "$card" >/sys/bus/mmc/drivers/"$drv"/unbind &
		;;
	unbindhost)	# the host driver lets go of the controller
		host=$(readlink -f /sys/block/mmcblk0/device/..)	# mmc_host mmcN
		pci=$(basename "$(readlink -f "$host/../..")")	# its PCI device
		drv=$(readlink -f "/sys/bus/pci/devices/$pci/driver")
		kv unbind_driver="$(basename "$drv")" unbind_device="$pci"
		echo "$pci" >"$drv/unbind" &
		;;
	*) fail remove_setup "unknown mmcc.remove='$how'"; return ;;
	esac

	i=0
	while [ -e /sys/block/mmcblk0 ] && [ $i -lt 900 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if [ -e /sys/block/mmcblk0 ]; then
		fail remove_disk_gone "mmcblk0 still there 90 s after the removal"
		return
	fi
	pass remove_disk_gone
	kv disk_gone_after_ds=$i

	# The fsync loop must get an error. A buffered writer may instead
	# sleep in dirty-page throttling for good (its pages can no longer be
	# written; mmc_block does the same), but it must stay killable.
	i=0
	while [ ! -e /tmp/n.small ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if [ -e /tmp/n.small ]; then
		read -r end n_small </tmp/n.small
		kv small_files_fsynced="$n_small"
		if [ "$end" = error ]; then
			pass remove_fsync_saw_error
		else
			fail remove_fsync_saw_error "the fsync loop ended without an error ($end after $n_small files)"
		fi
	else
		fail remove_fsync_saw_error "the fsync loop still runs 30 s after the removal"
	fi
	if [ -e /tmp/rc.big ]; then
		kv big_writer_exit="$(cat /tmp/rc.big)"
	else
		kv big_writer_exit=throttled
	fi
	kill -9 $meta $big $small 2>/dev/null
	# shellcheck disable=SC2046 # the PIDs, a word each
	kill -9 $(pidof dd.coreutils) 2>/dev/null
	i=0
	while pidof dd.coreutils >/dev/null && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if pidof dd.coreutils >/dev/null; then
		fail remove_writers_killable "a writer survives SIGKILL for 30 s"
	else
		pass remove_writers_killable
	fi

	# Nothing left in uninterruptible sleep. The removal itself may still
	# be finishing (pciehp sleeps a second after it powers the slot off,
	# uninterruptibly), so a task counts as stuck only after 15 s.
	i=0
	while :; do
		stuck=$(grep -l '^State:.*D (disk sleep)' /proc/[0-9]*/status 2>/dev/null | wc -l)
		[ "$stuck" = 0 ] || [ $i -ge 15 ] && break
		sleep 1
		i=$((i + 1))
	done
	if [ "$stuck" = 0 ]; then
		pass remove_no_stuck_task
	else
		fail remove_no_stuck_task "$stuck task(s) in D state"
		grep -l '^State:.*D' /proc/[0-9]*/status | while read -r f; do
			d=${f%/status}
			echo "stuck: $(cat "$d/comm") (${d#/proc/})"
			cat "$d/stack" 2>/dev/null
		done
	fi
	umount /mnt 2>/dev/null || umount -l /mnt 2>/dev/null
	wait
	# the disk is gone: nothing holds the scheduler's module any more
	if lsmod | grep -q '^coalesce_iosched '; then
		if rmmod coalesce_iosched; then
			pass remove_sched_module_unloads
		else
			fail remove_sched_module_unloads "rmmod coalesce_iosched failed"
		fi
	fi
	if rmmod mmc_block; then
		pass remove_block_module_unloads
	else
		fail remove_block_module_unloads "rmmod mmc_block failed"
	fi
	kernel_clean remove_kernel_log_clean
}
