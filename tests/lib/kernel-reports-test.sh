#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The console check (tests/lib/kernel-reports.sh) against every way Linux
# 6.1 and 6.12 report a fatal fault or a detector's finding, on x86_64 and
# on e500, one console line each in the form their printk calls give it;
# and against lines that are no report (the guest's own output, kernel
# lines that are not one). Each line is one result: caught, or not taken
# for a report. Prints KTAP.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib/ktap.sh
. "$here/ktap.sh"
# shellcheck source=tests/lib/kernel-reports.sh
. "$here/kernel-reports.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# NAME<TAB>console line, a report
reports() {
	cat <<'LINES'
warn	[   12.345678] WARNING: CPU: 0 PID: 61 at drivers/misc/lkdtm/bugs.c:99 lkdtm_WARNING+0x12/0x20
bug_at	[   12.345678] kernel BUG at drivers/misc/lkdtm/bugs.c:77!
invalid_opcode_6.1	[   12.345679] invalid opcode: 0000 [#1] PREEMPT SMP
invalid_opcode_6.12	[   12.345679] Oops: invalid opcode: 0000 [#1] PREEMPT SMP
gpf_6.1	[   12.345678] general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] PREEMPT SMP
gpf_6.12	[   12.345678] Oops: general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] PREEMPT SMP
divide_error_6.1	[   12.345678] divide error: 0000 [#1] PREEMPT SMP
double_fault_6.1	[   12.345678] double fault: 0000 [#1] PREEMPT SMP
stack_segment_6.1	[   12.345678] stack segment: 0000 [#2] PREEMPT SMP
page_fault	[   12.345678] BUG: unable to handle page fault for address: ffffc90000a0b000
null_deref	[   12.345678] BUG: kernel NULL pointer dereference, address: 0000000000000000
page_fault_oops_6.1	[   12.345679] Oops: 0002 [#1] PREEMPT SMP
page_fault_oops_6.12	[   12.345679] Oops: Oops: 0002 [#1] PREEMPT SMP
stack_guard	[   12.345678] BUG: stack guard page was hit at 00000000a1b2c3d4 (stack is 0000000011223344..0000000055667788)
ppc_die	[   12.345678] Oops: Kernel access of bad area, sig: 11 [#1]
ppc_bug_die	[   12.345678] Oops: Exception in kernel mode, sig: 5 [#1]
ppc_data_access	[   12.345678] BUG: Unable to handle kernel data access on write at 0x00000000
ppc_stack_overflow	[   12.345678] Kernel stack overflow in process lkdtm (pid: 61), r1=c1f0d5b0
panic	[   12.345678] Kernel panic - not syncing: Fatal exception
hung_task	[  250.123456] INFO: task lkdtm:61 blocked for more than 2 seconds.
soft_lockup	[   40.123456] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [sh:61]
hard_lockup	[   40.123456] NMI watchdog: Watchdog detected hard LOCKUP on cpu 1
rcu_self_detected	[   80.123456] rcu: INFO: rcu_sched self-detected stall on CPU
rcu_detected	[   80.123456] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:
rcu_expedited	[   80.123456] rcu: INFO: rcu_sched detected expedited stalls on CPUs/tasks: { 0-... } 21002 jiffies s: 41 root: 0x1/.
rcu_tasks	[   80.123456] INFO: rcu_tasks detected stalls on tasks:
workqueue_lockup	[   80.123456] BUG: workqueue lockup - pool cpus=0 node=0 flags=0x0 nice=0 stuck for 31s!
lockdep_circular	[   12.345678] WARNING: possible circular locking dependency detected
lockdep_state	[   12.345678] WARNING: inconsistent lock state
might_sleep	[   12.345678] BUG: sleeping function called from invalid context at kernel/locking/mutex.c:580
atomic_sleep	[   12.345678] BUG: scheduling while atomic: kworker/0:1/12/0x00000002
kasan	[   12.345678] BUG: KASAN: slab-out-of-bounds in coalesce_insert+0x4f/0x120
ubsan	[   12.345678] UBSAN: array-index-out-of-bounds in drivers/mmc/coalesce/reorder_window.c:301:9
bad_page	[   12.345678] BUG: Bad page state in process kworker/0:1  pfn:0a1b2
mid_line	MMCC ok 5 raw_patterns[   12.345678] WARNING: CPU: 1 PID: 70 at block/blk-mq.c:1234 blk_mq_run_hw_queue+0x1/0x2
LINES
}

# NAME<TAB>console line, no report
quiet() {
	cat <<'LINES'
mmc_card	[    1.234567] mmc0: new high speed SDHC card at address 4567
guest_output	MMCC # card_detected: BUG: in a guest's own result text
no_timestamp	BUG: printed by a tool, not by the kernel
cmdline	[    0.512345] Kernel command line: console=ttyS0 panic=-1 loglevel=5 mmcc.scenario=smoke
scsi	[    2.123456] sd 0:0:0:0: [sda] 8388608 512-byte logical blocks: (4.29 GB/4.00 GiB)
LINES
}

n=$(( $(reports | wc -l) + $(quiet | wc -l) ))
ktap_begin kernel_reports "$n"
while IFS=$'\t' read -r name line; do
	printf '%s\n[    0.100000] Linux version 6.1.0\n%s\n' 'boot' "$line" >"$tmp/console"
	first=$(kernel_report_first "$tmp/console")
	# a report printed in the middle of another line: from its timestamp
	if [ "$first" = "[${line#*\[}" ]; then
		ok "caught/$name"
	else
		ko "caught/$name" "not caught: '$line'"
	fi
done < <(reports)
while IFS=$'\t' read -r name line; do
	printf '%s\n' "$line" >"$tmp/console"
	first=$(kernel_report_first "$tmp/console")
	if [ -z "$first" ]; then
		ok "quiet/$name"
	else
		ko "quiet/$name" "taken for a report: '$first'"
	fi
done < <(quiet)
ktap_end
