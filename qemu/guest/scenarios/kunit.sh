# KUnit: load each project module, then its KUnit suite module, and turn
# each test case's TAP line (debugfs kunit/SUITE/results) into a result.
#   coalesce-iosched.ko    then coalesce-iosched-test.ko (suite reorder_window;
#                          required)
#   sdhci-esdhc-e500.ko    then sdhci_esdhc_e500_test.ko (the host driver's
#                          suites; when built)
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
		cat "$r"
		# test cases are the indented "ok N name" / "not ok N name" lines
		sed -n 's/^ \{4\}\(not ok\|ok\) [0-9]* \(- \)\{0,1\}\([^ #]*\).*/\1 \3/p' "$r" |
		while read -r a b c; do
			if [ "$a" = ok ]; then
				pass "kunit/$suite/$b"
			else
				fail "kunit/$suite/$c" "see the TAP output above"
			fi
		done
	done
	kv kunit_suites=$suites
	[ -e /sys/kernel/debug/kunit/reorder_window/results ] &&
		pass kunit/reorder_window_suite_ran ||
		fail kunit/reorder_window_suite_ran "no debugfs kunit/reorder_window/results"
}
