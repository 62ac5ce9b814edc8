# KUnit: load the project's library modules, then every *_test.ko, and turn
# each test case's TAP line (debugfs kunit/SUITE/results) into a result.
scenario_kunit() {
	found=0
	for lib in mmc_coalesce_window sdhci-coalesce; do
		[ -e "$OURS/$lib.ko" ] && insmod "$OURS/$lib.ko"
	done
	for t in "$OURS"/*_test.ko; do
		[ -e "$t" ] || continue
		found=1
		insmod "$t" || fail "kunit/$(basename "$t" .ko)" "insmod failed"
	done
	[ $found = 1 ] || { fail kunit "no *_test.ko modules in the initramfs"; return; }
	for r in /sys/kernel/debug/kunit/*/results; do
		[ -e "$r" ] || continue
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
}
