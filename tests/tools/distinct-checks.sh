#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# How many distinct checks a `make check` log holds: its results (KTAP
# leaves, what the last line counts) with the repetitions taken out.
# Usage: tests/tools/distinct-checks.sh LOG...   (KTAP documents, e.g.
#        build/test-logs/*.log; prints one number)
#
# A result is named by its path: the subtests it sits in and its own
# name. Two results are the same check when their paths agree once
#  - the stack and the kernel are left out: path components and name
#    parts "stock", "ours", "mq-deadline" and "6.12" (the seed
#    on stock and on ours, the 6.12 group's re-runs, KUnit on each boot);
#  - numbers are left out (kill point 3 and kill point 4 of the crash
#    test, a blktests run's numbered leaves);
#  - a per-file or per-value subtest counts once, as its parent: lint's
#    checkpatch, checkpatch-6.12, shellcheck and spdx, and the driver
#    scenario's param_NAME (one per tunable).
# So it is a lower bound of what the log checks, by name; the README
# quotes it beside the result count.
set -u
awk '
function norm(s,  n, a, k, out, part) {
	n = split(s, a, "/")
	out = ""
	for (k = 1; k <= n; k++) {
		part = a[k]
		gsub(/(^|[_-])(stock|ours|mq-deadline|6\.12)([_-]|$)/, "_", part)
		gsub(/[0-9]+/, "N", part)
		gsub(/^_+|_+$/, "", part)
		if (part == "")
			continue
		out = out "/" part
	}
	return out
}
FNR == 1 { depth = 0 }
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
	for (k = 1; k <= depth; k++) {
		path = path "/" sname[k]
		if (sname[k] ~ /^(checkpatch(-6\.12)?|shellcheck|spdx|param_.*)$/)
			break
	}
	if (k > depth)
		path = path "/" name
	seen[norm(path)] = 1
}
END {
	n = 0
	for (p in seen)
		n++
	print n
}' "$@"
