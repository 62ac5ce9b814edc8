# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What the guest kernel reported on its console: a WARN_ON, a BUG, an
# Oops or any other trap the kernel dies on, a task stuck in D state (the
# hung-task detector), a CPU that stopped scheduling (soft or hard
# lockup, RCU stall), a lockdep or UBSAN splat. The guest kernels are
# built so that they can report these (qemu/x86_64.config,
# qemu/ppc.config); a run whose console shows one fails, whatever its
# own tests said. Sourced by the host suites, after tests/lib/ktap.sh.
# Every form Linux 6.1 and 6.12 print (x86_64 and e500) is one line of
# tests/lib/kernel-reports-test.sh, which this pattern must catch.
#
#   kernel_reports NAME CONSOLE   ok NAME, or ko NAME with the first report
#   kernel_report_first CONSOLE   that first report line, or nothing
#   detectors_check NAME CONSOLE  after the lkdtm scenario, which makes
#                                 each detector report once: for each, ok
#                                 NAME/DETECTOR if CONSOLE shows its report
#                                 and the pattern below catches it
#
# Only kernel lines count (printk's "[    1.234567] " prefix): the
# guest's own output (blkcheck's stack samples, scenario names) never
# matches. A kernel line may start in the middle of a console line (the
# guest's output and the kernel's share the serial port): it counts from
# its timestamp.

# Lockdep's reports start "WARNING:" or "BUG:", as soft lockups and
# KASAN's do; an x86 trap prints "invalid opcode: 0000 [#1]" on 6.1
# ("Oops: invalid opcode: ..." on 6.12), which "[#N]", the die counter,
# catches with every other trap of both architectures.
KERNEL_REPORTS='WARNING:|BUG:|kernel BUG at|Oops|Kernel panic|invalid opcode|general protection fault|\[#[0-9]+\]|blocked for more than|hard LOCKUP|self-detected stall|detected stalls|detected expedited stalls|UBSAN:|Kernel stack overflow'

# kernel_report_first CONSOLE: the first report line, or nothing
kernel_report_first() {
	grep -a -o -E '\[ *[0-9]+\.[0-9]+\] .*' "$1" | grep -a -E -m1 "$KERNEL_REPORTS"
}

kernel_reports() {
	local name=$1 console=$2 first
	if [ ! -s "$console" ]; then
		ko "$name" "no console log at $console"
		return
	fi
	first=$(kernel_report_first "$console")
	if [ -n "$first" ]; then
		ko "$name" "$first (${console})"
	else
		ok "$name"
	fi
}

detectors_check() {
	local name=$1 console=$2 d form line
	for d in warning hung_task soft_lockup rcu_stall; do
		case $d in
		warning) form='WARNING: CPU: [0-9]+ PID: [0-9]+ at .*lkdtm' ;;
		hung_task) form='INFO: task .* blocked for more than [0-9]+ seconds' ;;
		soft_lockup) form='BUG: soft lockup - CPU#[0-9]+ stuck for' ;;
		rcu_stall) form='INFO: rcu_[a-z]+ (self-)?detected stalls?' ;;
		esac
		line=$(grep -a -E '^\[ *[0-9]+\.[0-9]+\] ' "$console" 2>/dev/null |
			grep -a -E -m1 "$form")
		if [ -z "$line" ]; then
			ko "$name/$d" "no report on the console ($form)"
		elif ! printf '%s\n' "$line" | grep -a -qE "$KERNEL_REPORTS"; then
			ko "$name/$d" "the console check misses: $line"
		else
			ok "$name/$d"
		fi
	done
}
