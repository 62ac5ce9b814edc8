#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The distinct checks of `make check` logs: their results (KTAP leaves)
# with the repetitions taken out, which is what the closing line of
# tests/check.sh counts.
# Usage: tests/tools/distinct-checks.sh LOG...
#          "PASSED FAILED SKIPPED": checks over all the LOGs (KTAP documents)
#        tests/tools/distinct-checks.sh --total LOG
#          their sum, for one LOG
#        tests/tools/distinct-checks.sh --manifest LOG...
#          "NAME SUM" for each LOG (build/test-logs/NAME.log), the lines of
#          tests/manifest
#
# A check is one named assertion of one scenario on one kernel and stack:
# a result is named by its path (the subtests it sits in and its own
# name, cut at each "/"), and two results are the same check when their
# paths agree once
#  - a repetition's number is left out: the kill points of one setting
#    of the crash group (crash_SETTING_N) and repeated runs of one
#    scenario (LABEL-rN: the e500 group's alternating seed pairs) are one
#    check each;
#  - a KUnit case counts once per group, whatever the number of boots
#    that ran it: its path is the group's (the LOG, and in a whole
#    `make check` document the group's subtest) and what follows the last
#    component "kunit" (the suite and the case). Each group boots one
#    kernel build, but for the e500 group's two (our host driver's and
#    the stock one's), whose scheduler suite counts once;
#  - a list of values or of files is one check, its parent: lint's
#    checkpatch, checkpatch-6.12, shellcheck and spdx (one leaf per
#    file), the driver scenario's param_NAME (one leaf per value);
#  - a check run again under a sanitizer is one check: the window
#    suite's "asan/" run of its host tests;
#  - a check of upstream code that never reaches the scheduler counts
#    once per kernel, not per stack: mmc_block's ioctl checks
#    (ioctl_*), which bypass the elevator, under driver/stock and
#    driver/ours.
# A check fails when any of its results failed, and is skipped when all
# of them were.
set -u
mode=sum
case ${1:-} in
--total) mode=total; shift ;;
--manifest) mode=manifest; shift ;;
esac
[ $# -gt 0 ] || { echo "usage: distinct-checks.sh [--total|--manifest] LOG..." >&2; exit 2; }
awk -v mode="$mode" '
# the number of a repetition out of a component: a kill point (crash_ours_3)
# or a repeated run (e500-seed-ours-r2)
function norm(s) {
	sub(/^crash_.*_[0-9]+$/, "&:", s)
	sub(/_[0-9]+:$/, "_N", s)
	sub(/-r[0-9]+$/, "-rN", s)
	return s
}
function verdict(k, word, skip) {
	if (word == "not ok")
		state[k] = "fail"
	else if (!skip && state[k] != "fail")
		state[k] = "pass"
	else if (!(k in state))
		state[k] = "skip"
}
FNR == 1 {
	depth = 0
	doc = FILENAME
	sub(/.*\//, "", doc)
	sub(/\.[^.]*$/, "", doc)
	docs[++ndocs] = doc
}
{
	sub(/\r$/, "")
	match($0, /^ */)
	ind = RLENGTH
	body = substr($0, ind + 1)
	if (body ~ /^# Subtest: /) {
		depth++
		sind[depth] = ind
		sname[depth] = substr(body, 12)
		next
	}
	if (body !~ /^(ok|not ok) [0-9]+ /)
		next
	word = body ~ /^not ok/ ? "not ok" : "ok"
	skip = body ~ / # SKIP/
	name = body
	sub(/^(ok|not ok) [0-9]+ (- )?/, "", name)
	sub(/ # .*/, "", name)
	closes = 0
	while (depth > 0 && sind[depth] > ind) {
		if (sname[depth] == name)
			closes = 1
		depth--
	}
	if (closes)
		next
	path = ""
	for (k = 1; k <= depth; k++)
		path = path "/" sname[k]
	n = split(path "/" name, c, "/")
	key = ""
	kunit = 0
	for (k = 1; k <= n; k++) {
		if (c[k] == "")
			continue
		if (c[k] == "kunit")
			kunit = k
	}
	# the group: the LOG, and the first subtest of a whole document
	first = 0
	for (k = 1; k <= n && !first; k++)
		if (c[k] != "")
			first = k
	key = doc
	if (doc == "check" && first)
		key = key "/" c[first]
	from = kunit ? kunit : 1
	ioctl = c[n] ~ /^ioctl_/
	for (k = from; k <= n; k++) {
		if (c[k] == "" || c[k] == "asan" || (ioctl && c[k] ~ /^(ours|stock)$/))
			continue
		key = key "/" norm(c[k])
		if (c[k] ~ /^(checkpatch(-6\.12)?|shellcheck|spdx|param_.*)$/)
			break
	}
	verdict(key, word, skip)
	perdoc[key] = doc
}
END {
	for (k in state) {
		count[state[k]]++
		total[perdoc[k]]++
	}
	if (mode == "manifest") {
		for (d = 1; d <= ndocs; d++)
			printf "%-12s %d\n", docs[d], total[docs[d]]
	} else if (mode == "total") {
		print count["pass"] + count["fail"] + count["skip"]
	} else {
		print count["pass"] + 0, count["fail"] + 0, count["skip"] + 0
	}
}' "$@"
