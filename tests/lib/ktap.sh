# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# KTAP (Documentation/dev-tools/ktap.rst in the kernel tree) for the
# project's shell suites, host and guest. Sourced; POSIX sh and POSIX awk,
# so that the guest's busybox runs it too.
#
#   ktap_begin NAME [PLAN]  the version line, "1..PLAN" when the number of
#                           tests is known in advance, and "# NAME"
#   ok NAME                 "ok N NAME"
#   ko NAME WHY             "# NAME: WHY" (its first 5 lines), "not ok N NAME"
#   skip NAME WHY           "ok N NAME # SKIP WHY"
#   diag TEXT               "# TEXT", a line each
#   ktap_end                "# Totals: pass:P fail:F skip:S"; returns 1 if
#                           anything failed
#
# Nested tests (a subtest is a KTAP document of its own, indented two
# spaces, opened by its version line and "# Subtest: NAME" as KUnit does,
# closed by the parent's "ok N NAME" / "not ok N NAME"):
#
#   ktap_sub_begin NAME [PLAN]  open a subtest; ok/ko/skip/diag go into it
#   ktap_sub_end                close it: "not ok" if anything in it failed
#   ktap_nest [-q] [-d DEPTH] NAME [FILE]
#                           embed the KTAP document in FILE (default: stdin)
#                           as subtest NAME (see "Embedding" below)
#   ktap_run [-l LOG] NAME CMD...
#                           run CMD (stderr too, a copy in LOG) and embed
#                           its output the same way, as it comes; a CMD
#                           that exits non-zero without reporting a
#                           failure gets one ("exit_status")
#
# These three return 1 when anything in the subtest failed (under set -e:
# "|| true"); after ktap_nest and ktap_run, kn_pass, kn_fail and kn_skip
# hold the subtest's counts, and kn_started is 0 if it had no KTAP.
#
# Counting: pass, fail and skipped count the leaves of everything printed
# so far -- tests that are not the parent of a nested document -- which
# is what the kernel's kunit.py parser counts ("Ran N tests"). A parent's
# result line is not counted again. ktap_n is the number of results at the
# current nesting level. A test name carries no "#" (KTAP's directive
# separator): it is replaced.
#
# KTAP_PREFIX, when set, starts every line printed (the guest's "MMCC ",
# which separates its lines from the kernel's on the serial console).
#
# Embedding (ktap_nest, ktap_run): the document is re-indented under the
# current level; its first version line opens subtest NAME. Whatever
# precedes that line is kept as diagnostics (dropped with -q). In it:
#  - version, plan, result, "# Subtest:" and diagnostic lines keep their
#    place in the nesting, which follows the document's own indentation
#    (any width: KUnit indents by 4); lines that are not KTAP become
#    diagnostics ("# line"), or are dropped with -q;
#  - its top-level results are numbered on from 1 across documents that
#    follow one another (a test binary run twice), and its top-level plan
#    becomes a diagnostic: it is checked, not repeated; a top-level test
#    named NAME becomes NAME/self (kunit.py ends a subtest that has no
#    plan at the first result of its own name);
#  - -d DEPTH: documents nested deeper than DEPTH levels below the top
#    are kept as diagnostics, and the result that closes one counts as a
#    single test. KUnit's results with -d 1: each case is one test,
#    including a parameterized case (its parameters' lines are kept as
#    diagnostics);
#  - a result line deeper than any open document (6.1's debugfs results of
#    a parameterized case keep only the last parameter's line, without
#    its header) is a diagnostic;
#  - one failure is added when the document has no results ("no_tests"),
#    ends early ("incomplete": fewer results than its plan, or, without a
#    plan, no "# Totals:" line as ktap_end prints it), or breaks the
#    nesting ("malformed"); a nested document cut short is padded to its
#    plan (one failure, the rest skipped) and closed, so that the whole
#    stays parseable;
#  - no version line at all: NAME is one failed test.

ktap_n=0 pass=0 fail=0 skipped=0 ktap_depth=0 ktap_ind=''
KTAP_PREFIX=${KTAP_PREFIX-}

ktap_name() {
	case $1 in
	*'#'* | *'
'*) printf '%s' "$1" | tr '#\n' '__' ;;
	*) printf '%s' "$1" ;;
	esac
}

ktap_out() {
	printf '%s%s%s\n' "$KTAP_PREFIX" "$ktap_ind" "$*"
}

# ktap_lines MAX PREFIX TEXT: "# PREFIX" + each line of TEXT, at most MAX
# lines (0: all)
ktap_lines() {
	ktap_i=0
	while IFS= read -r ktap_l; do
		ktap_i=$((ktap_i + 1))
		[ "$1" = 0 ] || [ "$ktap_i" -le "$1" ] || break
		ktap_out "# $2$ktap_l"
	done <<EOF
$3
EOF
}

ktap_begin() {
	ktap_n=0 pass=0 fail=0 skipped=0 ktap_depth=0 ktap_ind=''
	ktap_out "KTAP version 1"
	[ -z "${2:-}" ] || ktap_out "1..$2"
	ktap_out "# $(ktap_name "$1")"
}

ok() {
	ktap_n=$((ktap_n + 1))
	pass=$((pass + 1))
	ktap_out "ok $ktap_n $(ktap_name "$1")"
}

ko() {
	ktap_n=$((ktap_n + 1))
	fail=$((fail + 1))
	[ -z "${2:-}" ] || ktap_lines 5 "$(ktap_name "$1"): " "$2"
	ktap_out "not ok $ktap_n $(ktap_name "$1")"
}

skip() {
	ktap_n=$((ktap_n + 1))
	skipped=$((skipped + 1))
	ktap_out "ok $ktap_n $(ktap_name "$1") # SKIP $(ktap_name "${2:-}")"
}

diag() {
	ktap_lines 0 '' "$*"
}

# missing NAME WHY: what NAME needs is not there (a kernel tree, the
# blktests snapshot). In CI (.ci/run sets MMCC_CI=1) that is a failure:
# a group that cannot run must not pass. A developer's run skips it,
# loudly.
missing() {
	if [ "${MMCC_CI:-0}" = 1 ]; then
		ko "$1" "$2 (required in CI)"
	else
		diag "NOTE: $(ktap_name "$1") not run: $2 (CI fails here)"
		skip "$1" "not as CI runs it: $2"
	fi
}

ktap_end() {
	while [ "$ktap_depth" -gt 0 ]; do
		ktap_sub_end || :
	done
	ktap_out "# Totals: pass:$pass fail:$fail skip:$skipped"
	[ "$fail" = 0 ]
}

ktap_sub_begin() {
	eval "ktap_sv_$ktap_depth=\"\$ktap_n \$pass \$fail \$skipped\""
	eval "ktap_svn_$ktap_depth=\$(ktap_name \"\$1\")"
	ktap_depth=$((ktap_depth + 1))
	ktap_ind="$ktap_ind  "
	ktap_out "KTAP version 1"
	ktap_out "# Subtest: $(ktap_name "$1")"
	[ -z "${2:-}" ] || ktap_out "1..$2"
	ktap_n=0
}

ktap_sub_end() {
	[ "$ktap_depth" -gt 0 ] || return 0
	# an empty subtest is a failure (kunit.py: "0 tests run")
	[ "$ktap_n" -gt 0 ] || ko no_tests "nothing ran in this subtest"
	ktap_depth=$((ktap_depth - 1))
	ktap_ind=${ktap_ind%  }
	ktap_sv='' ktap_svn=''
	eval "ktap_sv=\$ktap_sv_$ktap_depth ktap_svn=\$ktap_svn_$ktap_depth"
	read -r ktap_n ktap_p0 ktap_f0 ktap_s0 <<EOF
$ktap_sv
EOF
	ktap_n=$((ktap_n + 1))
	if [ "$fail" -gt "$ktap_f0" ]; then
		ktap_out "not ok $ktap_n $ktap_svn"
		return 1
	elif [ "$pass" = "$ktap_p0" ] && [ "$skipped" -gt "$ktap_s0" ]; then
		ktap_out "ok $ktap_n $ktap_svn # SKIP all skipped"
	else
		ktap_out "ok $ktap_n $ktap_svn"
	fi
}

# The parser behind ktap_nest and ktap_run: stdin to stdout,
# the counts to the file st: started, passed, failed, skipped, results at
# the top level.
#   ind    the indentation of the embedded document's lines
#   pre    KTAP_PREFIX
#   name   the subtest's name
#   quiet  1: drop lines that are not KTAP
#   maxd   0, or the deepest nesting level kept (-d)
ktap_parse() {
	# mawk reads a pipe in blocks unless told otherwise: a suite's
	# results would come at its end
	if [ -z "${ktap_awk:-}" ]; then
		ktap_awk=plain
		awk -W version 2>&1 | grep -q mawk && ktap_awk=mawk_interactive
	fi
	if [ "$ktap_awk" = mawk_interactive ]; then
		set -- -W interactive "$@"
	else
		set -- -v ktap=1 "$@"
	fi
	awk "$1" "$2" -v ind="$3" -v pre="$4" -v name="$5" -v quiet="$6" \
		-v maxd="$7" -v st="$8" '
function sp(d,  s, k) {
	s = ind
	for (k = 0; k < d; k++)
		s = s "  "
	return s
}
function out(d, s) {
	printf "%s%s%s\n", pre, sp(d), s
	fflush()
}
# the deepest level that is printed (levels below maxd are diagnostics)
function vis(  v) {
	for (v = depth; v > 0 && flat[v]; v--)
		;
	return v
}
function diagline(s) {
	if (hdr)
		hbuf = hbuf (hn++ ? "\n" : "") s
	else
		out(vis(), s)
}
function flushhdr(  k, n, a) {
	if (!hdr)
		return
	hdr = 0
	n = split(hbuf, a, "\n")
	for (k = 1; k <= n; k++)
		out(depth, a[k])
	hbuf = ""
	hn = 0
}
# A leaf at level d: counted in the whole and in every open level up to
# d (what the "# Totals:" line of each level should say)
function count(d, word, rest,  k) {
	if (index(rest, " # SKIP")) {
		nskip++
		for (k = 0; k <= d; k++)
			ls[k]++
	} else if (word == "ok") {
		npass++
		for (k = 0; k <= d; k++)
			lp[k]++
	} else {
		nfail++
		for (k = 0; k <= d; k++)
			lf[k]++
	}
}
function zero(k) {
	lp[k] = lf[k] = ls[k] = 0
}
# The "# Totals:" line of a level as ktap_end prints it (KUnit adds a
# "total:" too, and counts its own way): the results it counted must be
# the results seen here. A result line that a kernel message broke on a
# shared console is lost without this.
function totals_check(body,  a, want, got) {
	split(body, a, /[: ]+/)
	want = "pass:" a[4] " fail:" a[6] " skip:" a[8]
	got = "pass:" lp[depth] " fail:" lf[depth] " skip:" ls[depth]
	if (want != got)
		badtotals = badtotals "; " (depth ? subname[depth] : name) \
			" says " want ", its result lines " got
}
# A result at level d (0: the top, renumbered); leaf: counted; closes: it
# closes a nested document (and is named after it)
function result(d, word, rest, leaf, closes,  desc, k) {
	if (d == 0) {
		ntop++
		docn++
		k = index(rest, " # ")
		desc = k ? substr(rest, 1, k - 1) : rest
		# kunit.py ends a subtest without a plan at a result named
		# like it: not at a test of its own
		if (desc == name && !closes)
			rest = desc "/self" substr(rest, length(desc) + 1)
		num = ntop
	} else {
		np[d]++
		num = np[d]
	}
	out(d, word " " num " " rest)
	if (leaf)
		count(d, word, rest)
}
function synth(d, word, what, why) {
	if (why != "")
		out(d, "# " what ": " why)
	result(d, word, what, 1)
}
# Level k ends without the parent line that should close it.
function cut(k,  j) {
	flushhdr()
	if (!flat[k]) {
		if (plan[k] >= 0 && np[k] < plan[k]) {
			synth(k, "not ok", "missing", "the subtest ended after " np[k] " of its " plan[k] " tests")
			for (j = np[k]; j < plan[k]; j++)
				synth(k, "ok", "missing # SKIP not run", "")
		} else if (np[k] > 0) {
			errs++
		}
		# a subtest with no results: its closing line is a test
		result(k - 1, "not ok", subname[k], np[k] == 0, 1)
	}
	depth = k - 1
}
# The end of one top-level document: was it complete?
function docend() {
	if (docplan >= 0 && docn != docplan)
		incomplete = incomplete "; " docn " results for the plan 1.." docplan
	else if (docplan < 0 && !totals)
		incomplete = incomplete "; no plan and no \"# Totals:\" line after " docn " results"
}
function start(r) {
	base = r
	depth = 0
	flat[0] = 0
	lind[0] = 0
	plan[0] = -1
	hdr = 0
	docplan = -1
	docn = 0
	totals = 0
	zero(0)
}
BEGIN {
	started = 0
	ntop = 0
	npass = nfail = nskip = 0
	errs = 0
	incomplete = ""
	badtotals = ""
	pind = substr(ind, 3)
}
{
	sub(/\r$/, "")
	match($0, /^[ \t]*/)
	r = RLENGTH
	body = substr($0, r + 1)
	if (body == "")
		next
	if (body ~ /^K?TAP version [0-9]+$/)
		kind = "ver"
	else if (body ~ /^1\.\.[0-9]+/)
		kind = "plan"
	else if (body ~ /^(ok|not ok) [0-9]+ (- )?[^#]*( # .*)?$/)
		kind = "res"
	else if (body ~ /^# Subtest: /)
		kind = "sub"
	else if (body ~ /^#/)
		kind = "diag"
	else
		kind = "unk"

	if (!started) {
		if (kind == "ver") {
			started = 1
			start(r)
			out(0, "KTAP version 1")
			out(0, "# Subtest: " name)
			next
		}
		if (quiet && kind != "diag")
			next
		printf "%s%s# %s\n", pre, pind, (kind == "diag" ? substr(body, 3) : body)
		fflush()
		next
	}
	r -= base
	if (r < 0)
		r = 0

	if (kind == "ver") {
		flushhdr()
		# r == 0: the next document of the same output
		while (depth > 0 && lind[depth] >= r)
			cut(depth)
		if (depth == 0 && r == 0) {
			docend()
			docplan = -1
			docn = 0
			totals = 0
			zero(0)
			next
		}
		k = depth + 1
		lind[k] = r
		zero(k)
		np[k] = 0
		plan[k] = -1
		subname[k] = ""
		flat[k] = flat[depth] || (maxd > 0 && k > maxd)
		depth = k
		if (flat[k])
			out(vis(), "# " body)
		else {
			out(k, "KTAP version 1")
			hdr = 1
			hbuf = ""
			hn = 0
		}
		next
	}
	if (kind == "plan") {
		if (depth == 0 && docn == 0 && docplan < 0) {
			docplan = substr(body, 4) + 0
			out(0, "# plan " body)
		} else if (hdr) {
			plan[depth] = substr(body, 4) + 0
			out(depth, body)
			flushhdr()
		} else
			diagline("# " body)
		next
	}
	if (kind == "sub") {
		if (hdr && subname[depth] == "") {
			subname[depth] = substr(body, 12)
			out(depth, body)
		} else
			diagline("# " substr(body, 12))
		next
	}
	if (kind == "diag") {
		if (depth == 0 && body ~ /^# Totals:/)
			totals = 1
		if (body ~ /^# Totals: pass:[0-9]+ fail:[0-9]+ skip:[0-9]+$/ &&
		    r == lind[depth] && !flat[depth])
			totals_check(body)
		diagline(body)
		next
	}
	if (kind == "unk") {
		if (!quiet)
			diagline("# " body)
		next
	}

	# a result line
	flushhdr()
	if (r > lind[depth]) {
		out(vis(), "# " body)
		next
	}
	word = (body ~ /^ok/) ? "ok" : "not ok"
	rest = body
	sub(/^(ok|not ok) [0-9]+ /, "", rest)
	while (depth > 1 && lind[depth - 1] > r)
		cut(depth)
	if (depth > 0 && lind[depth] > r) {
		# it closes level depth
		k = depth
		depth--
		if (flat[k]) {
			if (flat[depth])
				out(vis(), "# " body)
			else
				result(depth, word, rest, 1)
			next
		}
		if (plan[k] >= 0 && np[k] < plan[k]) {
			depth = k
			synth(k, "not ok", "missing", "the subtest ended after " np[k] " of its " plan[k] " tests")
			for (j = np[k]; j < plan[k]; j++)
				synth(k, "ok", "missing # SKIP not run", "")
			depth = k - 1
		} else if (plan[k] >= 0 && np[k] > plan[k])
			errs++
		if (np[k] == 0 && word == "ok" && !index(rest, " # SKIP")) {
			# an empty subtest that passed: kunit.py counts
			# nothing and reports an error
			errs++
			result(depth, word, rest, 0, 1)
		} else
			result(depth, word, rest, np[k] == 0, 1)
		next
	}
	if (flat[depth]) {
		out(vis(), "# " body)
		next
	}
	if (plan[depth] >= 0 && depth > 0 && np[depth] >= plan[depth]) {
		out(depth, "# past the plan: " body)
		errs++
		next
	}
	result(depth, word, rest, 1)
}
END {
	if (started) {
		flushhdr()
		while (depth > 0)
			cut(depth)
		docend()
		if (ntop == 0)
			synth(0, "not ok", "no_tests", "the document has no test results")
		else if (incomplete != "")
			synth(0, "not ok", "incomplete", substr(incomplete, 3))
		if (errs)
			synth(0, "not ok", "malformed", errs " result line(s) break the nesting")
		if (badtotals != "")
			synth(0, "not ok", "totals_match", substr(badtotals, 3))
	}
	printf "%d %d %d %d %d\n", started, npass, nfail, nskip, ntop >st
	close(st)
}'
}

# ktap_close NAME STATE [EXIT]: after ktap_parse, the parent's result line
ktap_close() {
	ktap_counts "$2"
	if [ "$kn_started" = 1 ] && [ "${3:-0}" != 0 ] && [ "$kn_fail" = 0 ]; then
		kn_top=$((kn_top + 1)) kn_fail=1
		ktap_out "  # exit_status: $1 exited with status $3 and reported no failure"
		ktap_out "  not ok $kn_top exit_status"
	fi
	# KTAP_LEAST (tests/check.sh, from tests/manifest): a document with
	# fewer results than that lost some (one that skipped everything said
	# why, and fails in CI by itself: missing()); with KTAP_COUNT, a
	# command that counts them in ktap_run's LOG, what it counts
	ktap_c=$((kn_pass + kn_fail + kn_skip)) ktap_w=results
	if [ -n "${KTAP_COUNT:-}" ] && [ -s "${ktap_log:-}" ]; then
		ktap_c=$($KTAP_COUNT "$ktap_log") ktap_w="distinct checks"
	fi
	if [ "$kn_started" = 1 ] && [ -n "${KTAP_LEAST:-}" ] &&
	   [ $((kn_pass + kn_fail)) -gt 0 ] && [ "$ktap_c" -lt "$KTAP_LEAST" ]; then
		ktap_out "  # has_its_results: $1 printed $ktap_c $ktap_w, tests/manifest asks for at least $KTAP_LEAST"
		kn_top=$((kn_top + 1)) kn_fail=$((kn_fail + 1))
		ktap_out "  not ok $kn_top has_its_results"
	fi
	ktap_n=$((ktap_n + 1))
	if [ "$kn_started" = 0 ]; then
		fail=$((fail + 1))
		if [ "${3:-0}" = 0 ]; then
			ktap_out "# $1: no KTAP output"
		else
			ktap_out "# $1: no KTAP output (exit status $3)"
		fi
		ktap_out "not ok $ktap_n $1"
		return 1
	fi
	pass=$((pass + kn_pass)) fail=$((fail + kn_fail))
	skipped=$((skipped + kn_skip))
	if [ "$kn_fail" -gt 0 ]; then
		ktap_out "not ok $ktap_n $1"
		return 1
	elif [ "$kn_pass" = 0 ]; then
		ktap_out "ok $ktap_n $1 # SKIP all skipped"
	else
		ktap_out "ok $ktap_n $1"
	fi
}

# ktap_counts STATE: what ktap_parse left in STATE, into kn_*
ktap_counts() {
	kn_started=0 kn_pass=0 kn_fail=0 kn_skip=0 kn_top=0
	[ -s "$1" ] && read -r kn_started kn_pass kn_fail kn_skip kn_top <"$1"
	rm -f "$1"
}

ktap_tmp() {
	mktemp "${TMPDIR:-/tmp}/ktap.XXXXXX"
}

ktap_nest() {
	ktap_q=0 ktap_d=0 ktap_log=''
	while :; do
		case ${1:-} in
		-q) ktap_q=1; shift ;;
		-d) ktap_d=$2; shift 2 ;;
		*) break ;;
		esac
	done
	ktap_nm=$(ktap_name "$1")
	shift
	ktap_st=$(ktap_tmp) || return 1
	if [ $# -gt 0 ]; then
		if [ -r "$1" ]; then
			ktap_parse "$ktap_ind  " "$KTAP_PREFIX" "$ktap_nm" "$ktap_q" \
				"$ktap_d" "$ktap_st" <"$1"
		else
			ktap_parse "$ktap_ind  " "$KTAP_PREFIX" "$ktap_nm" "$ktap_q" \
				"$ktap_d" "$ktap_st" </dev/null
		fi
	else
		ktap_parse "$ktap_ind  " "$KTAP_PREFIX" "$ktap_nm" "$ktap_q" \
			"$ktap_d" "$ktap_st"
	fi
	ktap_close "$ktap_nm" "$ktap_st"
}

ktap_run() {
	ktap_log=/dev/null
	if [ "${1:-}" = -l ]; then
		ktap_log=$2
		shift 2
	fi
	ktap_nm=$(ktap_name "$1")
	shift
	ktap_st=$(ktap_tmp) || return 1
	# the exit status through fd 7, opened before CMD runs: CMD may be a
	# function of this shell, which ktap_st does not survive
	{
		"$@" 2>&1 7>&-
		echo $? >&7
	} 7>"$ktap_st.rc" | tee "$ktap_log" |
		ktap_parse "$ktap_ind  " "$KTAP_PREFIX" "$ktap_nm" 0 0 "$ktap_st"
	ktap_rc=$(cat "$ktap_st.rc" 2>/dev/null || echo 1)
	rm -f "$ktap_st.rc"
	ktap_close "$ktap_nm" "$ktap_st" "$ktap_rc"
}
