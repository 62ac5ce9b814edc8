# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What the guest kernel reported on its console: a WARN_ON, a BUG, an
# Oops, a task stuck in D state (the hung-task detector), a CPU that
# stopped scheduling (soft lockup, RCU stall) or a lockdep splat. The guest
# kernels are built so that they can report these (qemu/x86_64.config,
# qemu/ppc.config); a run whose console shows one fails, whatever its
# own tests said. Sourced by the host suites, after tests/lib/ktap.sh.
#
#   kernel_reports NAME CONSOLE   ok NAME, or ko NAME with the first report
#   kernel_report_first CONSOLE   that first report line, or nothing
#
# Only kernel lines count (printk's "[    1.234567] " prefix): the
# guest's own output (blkcheck's stack samples, scenario names) never
# matches.

KERNEL_REPORTS='WARNING:|BUG:|Oops|Kernel panic|blocked for more than|soft lockup|self-detected stall|detected stalls|possible circular locking|inconsistent lock state|possible recursive locking|sleeping function called from invalid context'

# kernel_report_first CONSOLE: the first report line, or nothing
kernel_report_first() {
	grep -a -E '^\[ *[0-9]+\.[0-9]+\] ' "$1" | grep -a -E -m1 "$KERNEL_REPORTS"
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
