# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# The detectors the host's console check relies on
# (tests/lib/kernel-reports.sh), each made to report once through LKDTM
# (CONFIG_LKDTM): a WARN_ON, a task in D state (the hung-task detector,
# its limit cut to 2 s), then a CPU spinning with preemption off (the
# soft-lockup detector, limit 2 s) and the RCU grace period it holds up
# (the stall detector, limit 6 s; seen from the other vCPU: qemu/run.sh
# --smp 2), after which the guest panics and QEMU exits. The guest checks
# its own kernel log for the first two; the host checks the console for
# all four (detectors_check). The document ends before the spin, which
# this guest does not survive.
lkdtm_logged() { # PATTERN TRIES: the kernel log shows PATTERN, 0.5 s a try
	lk_i=0
	while [ "$lk_i" -lt "$2" ]; do
		dmesg | grep -qE "$1" && return 0
		sleep 0.5
		lk_i=$((lk_i + 1))
	done
	return 1
}

scenario_lkdtm() {
	d=/sys/kernel/debug/provoke-crash/DIRECT
	if [ ! -w $d ]; then
		fail lkdtm "no $d (CONFIG_LKDTM, debugfs)"
		return
	fi
	echo WARNING >$d
	if lkdtm_logged 'WARNING: CPU: [0-9]+ PID: [0-9]+ at .*lkdtm' 1; then
		pass lkdtm_warning
	else
		fail lkdtm_warning "no WARNING in the kernel log after LKDTM's WARNING"
	fi
	echo 2 >/proc/sys/kernel/hung_task_timeout_secs
	# in D state for good: nothing of ours may hold the results' pipe
	(echo HUNG_TASK >$d) </dev/null >/dev/null 2>&1 &
	if lkdtm_logged 'blocked for more than [0-9]+ seconds' 30; then
		pass lkdtm_hung_task
	else
		fail lkdtm_hung_task "no hung-task report within 15 s at a 2 s limit"
	fi
	# Seen once is enough: repeated every 2 s from the other CPU (with
	# the lock validator's list of held locks on 6.12) they kept the
	# soft-lockup report off the console until the stall's panic.
	echo 0 >/proc/sys/kernel/hung_task_timeout_secs
	# The stall is seen from the other CPU: with one, a spin that
	# starts between grace periods holds up no grace period at all.
	cpus=$(cat /sys/devices/system/cpu/online)
	if [ "$cpus" = 0-1 ]; then
		pass lkdtm_two_cpus
	else
		fail lkdtm_two_cpus "CPUs online: $cpus (qemu/run.sh --smp 2; x86 needs ACPI's MADT for the second)"
	fi
	ktap_end
	say DONE
	results_close
	echo 1 >/proc/sys/kernel/watchdog_thresh
	echo 6 >/sys/module/rcupdate/parameters/rcu_cpu_stall_timeout
	echo 1 >/proc/sys/kernel/panic_on_rcu_stall
	echo SOFTLOCKUP >$d
}
