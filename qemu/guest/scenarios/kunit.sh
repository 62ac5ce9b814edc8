# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# KUnit: load each project module, then its KUnit suite module, and take
# each suite's results from debugfs (kunit/SUITE/results, a KTAP document)
# into the run's document as a subtest, "kunit/SUITE" (ktap_nest -d 1: one
# test per case; 6.1's log of a parameterized case keeps only its last
# parameter's line, which stays a diagnostic).
#   coalesce-iosched.ko    then coalesce-iosched-test.ko (suite reorder_window;
#                          required)
#   sdhci-esdhc-e500.ko    then sdhci_esdhc_e500_test.ko (the host driver's
#                          suites; when built). x86_64 kernels have no
#                          device tree, so no driver: there the test
#                          module carries the code it tests
scenario_kunit() {
	found=0
	for pair in coalesce-iosched:coalesce-iosched-test:required \
		sdhci-esdhc-e500:sdhci_esdhc_e500_test:optional; do
		lib=${pair%%:*}
		rest=${pair#*:}
		t=${rest%%:*}
		if [ ! -e "$OURS/$t.ko" ]; then
			[ "${rest#*:}" = required ] &&
				fail "kunit/$t" "$t.ko is not in the initramfs"
			continue
		fi
		if [ -e "$OURS/$lib.ko" ] && ! insmod "$OURS/$lib.ko"; then
			fail "kunit/$lib" "insmod $lib.ko failed"
			continue
		fi
		found=$((found + 1))
		insmod "$OURS/$t.ko" || fail "kunit/$t" "insmod failed"
	done
	[ $found -gt 0 ] || { fail kunit "no KUnit test modules in the initramfs"; return; }
	suites=0
	for r in /sys/kernel/debug/kunit/*/results; do
		[ -e "$r" ] || continue
		suites=$((suites + 1))
		suite=$(basename "$(dirname "$r")")
		ktap_nest -d 1 "kunit/$suite" "$r"
	done
	kv kunit_suites=$suites
	if [ -e /sys/kernel/debug/kunit/reorder_window/results ]; then
		pass kunit/reorder_window_suite_ran
	else
		fail kunit/reorder_window_suite_ran "no debugfs kunit/reorder_window/results"
	fi
}
