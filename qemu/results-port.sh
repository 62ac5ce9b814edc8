# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The guest's results come from its own serial port only: the guest
# (qemu/guest/init, qemu/guest/e500-init.c; mmcc.results=ttyS1) writes
# its "MMCC" lines to the second serial port, which QEMU writes to
# DIR/results.log and printk never writes to. The console is not read for
# them: a port that stayed empty (a guest that died before its first
# line, an init that did not open the port, a QEMU that did not create
# it) fails the run, whatever the console shows. Sourced by qemu/run.sh
# and qemu/run-e500.sh.
#
#   results_read DIR         DIR/result.txt: the port's "MMCC" lines
#                            without "MMCC " (empty when the port is)
#   results_required WHO DIR returns 1, saying so on stderr with the
#                            console's last lines, when DIR/result.txt is
#                            empty; WHO starts the message

results_read() {
	tr -d '\r' <"$1/results.log" 2>/dev/null | grep -a '^MMCC ' |
		sed 's/^MMCC //' >"$1/result.txt" || true
}

results_required() {
	[ ! -s "$2/result.txt" ] || return 0
	echo "$1: no results on the guest's results port (ttyS1, $2/results.log); see $2/console.log" >&2
	tail -n 15 "$2/console.log" >&2 2>/dev/null
	return 1
}
