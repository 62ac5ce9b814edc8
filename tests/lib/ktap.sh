# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# KTAP (Documentation/dev-tools/ktap.rst in the kernel tree) for the
# project's shell suites, host and guest. Sourced; POSIX sh, so that the
# guest's busybox runs it too.
#
#   ktap_begin NAME [PLAN]  the version line, "# NAME", and "1..PLAN" when
#                           the number of tests is known in advance
#   ok NAME                 "ok N NAME"
#   ko NAME WHY             "# NAME: WHY", then "not ok N NAME"
#   skip NAME WHY           "ok N NAME # SKIP WHY"
#   diag TEXT               "# TEXT"
#   ktap_end                "# Totals: pass:P fail:F skip:S"; returns 1 if
#                           anything failed
#
# A test name carries no "#" (KTAP's directive separator): it is replaced.
# Counters: ktap_n (tests so far), pass, fail, skipped.

ktap_n=0 pass=0 fail=0 skipped=0

ktap_name() {
	printf '%s' "$1" | tr '#\n' '__'
}

ktap_begin() {
	ktap_n=0 pass=0 fail=0 skipped=0
	echo "KTAP version 1"
	echo "# $1"
	[ -z "${2:-}" ] || echo "1..$2"
}

ok() {
	ktap_n=$((ktap_n + 1))
	pass=$((pass + 1))
	echo "ok $ktap_n $(ktap_name "$1")"
}

ko() {
	ktap_n=$((ktap_n + 1))
	fail=$((fail + 1))
	[ -z "${2:-}" ] || printf '# %s: %s\n' "$(ktap_name "$1")" "$2" | head -n 5
	echo "not ok $ktap_n $(ktap_name "$1")"
}

skip() {
	ktap_n=$((ktap_n + 1))
	skipped=$((skipped + 1))
	echo "ok $ktap_n $(ktap_name "$1") # SKIP $(ktap_name "${2:-}")"
}

diag() {
	echo "# $*"
}

ktap_end() {
	echo "# Totals: pass:$pass fail:$fail skip:$skipped"
	[ "$fail" = 0 ]
}
