# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# The console check of the host suites can fail: provoke a WARN_ON
# through LKDTM (CONFIG_LKDTM); the host expects to find it on the console.
scenario_lkdtm() {
	d=/sys/kernel/debug/provoke-crash/DIRECT
	if [ ! -w $d ]; then
		fail lkdtm_warning "no $d (CONFIG_LKDTM, debugfs)"
		return
	fi
	if echo WARNING >$d; then
		pass lkdtm_warning
	else
		fail lkdtm_warning "writing WARNING to $d failed"
	fi
}
