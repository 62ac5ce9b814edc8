#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Lint, as KTAP (tests/lib/ktap.sh): one test per check, and the checks
# made file by file as one test each whose subtests are the files:
#  - checkpatch      checkpatch --strict (from the 6.1 tree) on every C
#                    file and header of ours; checkpatch-6.12 the same
#                    with the 6.12 tree's script;
#  - series/V/...   the kernel series of `make kernel-patch` (ours against
#                    6.1 and 6.12, the stock driver's against 6.1): they
#                    apply (kernel-patch.sh --check), and checkpatch
#                    --strict from each tree finds nothing in any patch
#                    beyond the exceptions the file checks make;
#  - build/..., build-6.12/...  an out-of-tree build of the modules with
#                    W=1 and sparse (C=1), against the 6.1 and the 6.12
#                    guest kernels, that must print no warning;
#  - shellcheck      shellcheck -x, default severity (style included),
#                    on every shell script of the repository: *.sh, files
#                    whose shebang runs a shell (.ci/run, qemu/guest/init)
#                    and sourced libraries, which name their shell with a
#                    "# shellcheck shell=sh|bash" directive. No check is
#                    turned off here: a false positive is silenced in the
#                    script, on the line above, with its reason;
#  - spdx            every tracked file names its license: an
#                    SPDX-License-Identifier line on line 1 (line 2 after
#                    a shebang), or, for the files whose format cannot
#                    carry a comment (the analyzer's test cases, the bench
#                    results and commands), an entry in .reuse/dep5 (the
#                    machine-readable debian/copyright format, DEP-5);
#  - compat/...     LINUX_VERSION_CODE appears in the compat header
#                    (include/linux/mmc-coalesce-compat.h) and in no other
#                    C file: 6.1 and 6.12 from one source, one place;
#  - kconfig/parses  the kernel's Kconfig parser reads ./Kconfig (which
#                    sources both drivers' entries) without a warning,
#                    and allyesconfig without stock sdhci-of-esdhc turns
#                    every one of our symbols on;
#  - kconfig/one_esdhc_driver  allyesconfig without COMPILE_TEST, which
#                    turns the stock driver on, leaves our host driver
#                    off: the two take the same device tree nodes;
#  - kconfig/compile_test_builds_both  plain allyesconfig (COMPILE_TEST
#                    on, as build bots run it) turns both on.
# checkpatch and the builds need the guest kernels (make kernel,
# make kernel-6.12);
# Debian's shellcheck package is installed by qemu/setup/deps.sh lint.
# How long: the lint row of Documentation/benchmarks.md.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
kdir=$top/build/kernel-x86_64
log=$top/build/test-logs/lint-build.log
cd "$top" || exit 1

"$top/qemu/setup/deps.sh" lint 2>&1 | sed 's/^/# /'

# The tracked files that are there (a file deleted in the work tree but
# not yet in the index is left out).
files=()
while IFS= read -r -d '' f; do
	[ -f "$f" ] && files+=("$f")
done < <(git ls-files -z)

mapfile -d '' -t c_files < <(git ls-files -z 'drivers/*.c' 'drivers/*.h' \
	'include/*.h' 'qemu/guest/*.c' 'tests/tools/cardtrace/*.c')

scripts=()
for f in "${files[@]}"; do
	case $f in
	*.sh) scripts+=("$f"); continue ;;
	esac
	# a shell in the shebang (sh, bash, dash, "busybox sh", "env bash"),
	# or a directive naming the shell of a sourced library
	if head -n 1 "$f" | grep -Eq '^#!.*[/ ](ba|da|k)?sh( |$)' ||
	   head -n 5 "$f" | grep -Eq '^# shellcheck shell='; then
		scripts+=("$f")
	fi
done

ktap_begin lint 21

# checkpatch_exceptions PATH: ",TYPE..." that checkpatch may report on
# the file PATH (ours, or its place in the kernel series), each with its
# reason
checkpatch_exceptions() {
	case $1 in
	# Trace event headers keep the TRACE_EVENT() layout that every
	# header in include/trace/events/ uses, which --strict flags.
	# The EM()/EMe() lists that name an enum in the trace output
	# (TRACE_DEFINE_ENUM) are the same idiom as upstream's headers,
	# and each expansion uses some of the arguments.
	include/trace/events/*)
		echo ,PARENTHESIS_ALIGNMENT,OPEN_ENDED_LINE,COMPLEX_MACRO,TRAILING_SEMICOLON,MACRO_ARG_UNUSED ;;
	# The compat header is the one place that tests the kernel
	# version (6.1 and 6.12 from one source), in the kernel's
	# usual form; it stays out of the series (no_version_tests).
	include/linux/mmc-coalesce-compat.h)
		echo ,LINUX_VERSION_CODE,CONSTANT_COMPARISON ;;
	# The tunables table (an X-macro) expands into one module
	# parameter declaration per line: the expansion ends in a
	# semicolon, names it twice, and each use takes only some of
	# the columns (name, default, min, max, help).
	*/coalesce-tunables.c)
		echo ,MACRO_ARG_REUSE,TRAILING_SEMICOLON,MACRO_ARG_UNUSED ;;
	*/coalesce-iosched.h)
		echo ,MACRO_ARG_UNUSED ;;
	esac
}

# checkpatch, from each kernel tree (6.1, then 6.12: the newer script
# knows more checks)
for v in 6.1 6.12; do
	cp_pl=$top/build/linux-$v/scripts/checkpatch.pl
	t=checkpatch
	[ "$v" = 6.1 ] || t=checkpatch-6.12
	ktap_sub_begin "$t" ${#c_files[@]}
	for f in "${c_files[@]}"; do
		if [ ! -x "$cp_pl" ]; then
			missing "$f" "no kernel tree in build/linux-$v (make kernel, make kernel-6.12)"
			continue
		fi
		ignore=FILE_PATH_CHANGES$(checkpatch_exceptions "$f")
		out=$("$cp_pl" --strict --no-tree --quiet --ignore "$ignore" -f "$f" 2>&1)
		if [ -z "$out" ]; then
			ok "$f"
		else
			ko "$f" "$(echo "$out" | grep -m1 -E 'ERROR|WARNING|CHECK')"
		fi
	done
	ktap_sub_end
done

# The kernel series (make kernel-patch): ours against 6.1 and 6.12, and
# the stock driver's against 6.1. series/V/applies: kernel-patch.sh
# --check (each patch applies in turn, without offset or fuzz, git am
# gives the same tree, each stock patch applies alone to the base);
# series/V/no_version_tests: no patch of ours tests the kernel version or
# carries the compat header (kernel-patch.sh writes its shims out);
# series/V/checkpatch[-6.12]: every patch through checkpatch --strict
# from each tree, run inside the tree the series is for, so that the
# checks that read the tree (DT bindings, MAINTAINERS) run too; a finding
# passes only where checkpatch_exceptions names its type for its file.
series_dir=$top/build/lint-series
for v in 6.1 6.12; do
	b=$top/build/linux-$v
	if [ ! -x "$b/scripts/checkpatch.pl" ]; then
		ko "series/$v/applies" "no kernel tree in build/linux-$v (make kernel, make kernel-6.12)"
		skip "series/$v/checkpatch" "no tree"
		skip "series/$v/checkpatch-6.12" "no tree"
		continue
	fi
	rm -rf "${series_dir:?}/$v" "${series_dir:?}/$v-stock-esdhc"
	if "$top/qemu/setup/kernel-patch.sh" -q --check --base "$b" --out "$series_dir/$v" \
		>"$series_dir.$v.log" 2>&1; then
		ok "series/$v/applies"
	else
		ko "series/$v/applies" "$(grep -m1 'kernel-patch.sh\|kernel-patch: .*\(fail\|differ\|not apply\|changed\)' "$series_dir.$v.log")"
	fi
	patches=("$series_dir/$v"/0*.patch)
	# one kernel version per tree: the compat header stays out of tree
	if [ ! -f "${patches[0]}" ]; then
		ko "series/$v/no_version_tests" "no series written"
	elif grep -lE 'LINUX_VERSION_CODE|KERNEL_VERSION\(|mmc-coalesce-compat' "${patches[@]}" >/dev/null; then
		ko "series/$v/no_version_tests" "$(grep -lE 'LINUX_VERSION_CODE|KERNEL_VERSION\(|mmc-coalesce-compat' "${patches[@]}" | sed 's|.*/||' | tr '\n' ' ')"
	else
		ok "series/$v/no_version_tests"
	fi
	[ ! -d "$series_dir/$v-stock-esdhc" ] || patches+=("$series_dir/$v-stock-esdhc"/0*.patch)
	for w in 6.1 6.12; do
		t=series/$v/checkpatch
		[ "$w" = 6.1 ] || t=$t-6.12
		ktap_sub_begin "$t" ${#patches[@]}
		for f in "${patches[@]}"; do
			n=${f#"$series_dir"/}
			if [ ! -f "$f" ]; then
				ko "$n" "no series written"
				continue
			fi
			# lines "FILE:LINE: LEVEL:TYPE: message"
			found=$(cd "$b" && "$top/build/linux-$w/scripts/checkpatch.pl" --strict \
				--terse --showfile --show-types --no-summary "$f" 2>&1 |
				while IFS= read -r line; do
					file=${line%%:*} type=${line#*: } type=${type#*:} type=${type%%:*}
					case $(checkpatch_exceptions "$file"), in
					*,"$type",*) ;;
					*) printf '%s\n' "$line" ;;
					esac
				done)
			if [ -z "$found" ]; then
				ok "$n"
			else
				ko "$n" "$(head -n 1 <<<"$found")"
			fi
		done
		ktap_sub_end
	done
done

# The patch files e500-build.md tells a board user to fetch (its Yocto
# recipe's file:// lines and its tables) are files the series writes.
named=$(grep -o '[0-9]\{4\}-[A-Za-z0-9._-]*\.patch' "$top/Documentation/e500-build.md" | sort -u)
missing_patches=''
for n in $named; do
	[ -f "$series_dir/6.1/$n" ] || [ -f "$series_dir/6.1-stock-esdhc/$n" ] ||
		missing_patches="$missing_patches $n"
done
if [ -z "$named" ]; then
	ko series/e500_build_md_names "no patch file named in Documentation/e500-build.md"
elif [ -n "$missing_patches" ]; then
	ko series/e500_build_md_names "named in e500-build.md, not written by kernel-patch.sh:$missing_patches"
else
	ok series/e500_build_md_names
fi

# W=1 and sparse, against each kernel: 6.1 in the project tree (the
# objects the other targets use), 6.12 from a copy of the sources
# (out-of-tree objects live beside the sources).
for v in 6.1 6.12; do
	if [ "$v" = 6.1 ]; then
		kd=$kdir m=$top t=build
	else
		kd=$top/build/kernel-x86_64-6.12 m=$top/build/lint-src-6.12 t=build-6.12
	fi
	vlog=${log%.log}-$v.log
	if [ ! -f "$kd/Module.symvers" ]; then
		ko "$t/modules_w1_sparse_builds" "no kernel build in ${kd#"$top"/} (make kernel, make kernel-6.12)"
		skip "$t/no_w1_or_sparse_warnings" "no build"
		continue
	fi
	mkdir -p "$(dirname "$log")"
	if [ "$v" = 6.1 ]; then
		# Force a full rebuild of our objects, so every file is checked again.
		find drivers -name '*.o' -delete
	else
		rm -rf "$m"
		mkdir -p "$m"
		tar -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.mod*' \
			--exclude='.*.cmd' Makefile Kconfig drivers include | tar -C "$m" -xf -
	fi
	if make -C "$kd" M="$m" W=1 C=1 modules >"$vlog" 2>&1; then
		ok "$t/modules_w1_sparse_builds"
		if grep -E -q 'warning:|error:' "$vlog"; then
			ko "$t/no_w1_or_sparse_warnings" "$(grep -E -m1 'warning:|error:' "$vlog")"
		else
			ok "$t/no_w1_or_sparse_warnings"
		fi
	else
		ko "$t/modules_w1_sparse_builds" "see $vlog"
		skip "$t/no_w1_or_sparse_warnings" "the build failed"
	fi
done

# Shell scripts: the findings as diagnostics (gcc format, at most 20 a
# script), then the verdict
have_sc=0
command -v shellcheck >/dev/null && have_sc=1
ktap_sub_begin shellcheck ${#scripts[@]}
for f in "${scripts[@]}"; do
	if [ $have_sc = 0 ]; then
		ko "$f" "shellcheck is not installed (qemu/setup/deps.sh lint)"
		continue
	fi
	out=$(shellcheck -x -f gcc "$f" 2>&1)
	rc=$?
	if [ $rc = 0 ] && [ -z "$out" ]; then
		ok "$f"
	else
		printf '%s\n' "$out" | head -n 20 | while IFS= read -r line; do diag "$line"; done
		ko "$f" "shellcheck -x $f: $(printf '%s\n' "$out" | grep -c .) finding(s)"
	fi
done
ktap_sub_end

# SPDX: .reuse/dep5's Files patterns (globs in which "*" matches "/" too) of
# the paragraphs that name a License
dep5=()
if [ -f .reuse/dep5 ]; then
	pats=() lic='' field=''
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in '#'*) continue ;; esac
		# a line of blanks ends a paragraph too
		[[ $line =~ ^[[:space:]]*$ ]] && line=''
		case $line in
		'')
			[ -z "$lic" ] || dep5+=("${pats[@]}")
			pats=() lic='' field=''
			;;
		[[:space:]]*)
			if [ "$field" = Files ]; then
				read -r -a words <<<"$line"
				pats+=("${words[@]}")
			fi
			;;
		Files:*)
			field=Files
			read -r -a words <<<"${line#Files:}"
			pats+=("${words[@]}")
			;;
		License:*)
			field=License
			read -r lic <<<"${line#License:}"
			;;
		*) field=other ;;
		esac
	done <.reuse/dep5
	[ -z "$lic" ] || dep5+=("${pats[@]}")
fi
in_dep5() {
	local p
	for p in "${dep5[@]}"; do
		# shellcheck disable=SC2254 # the pattern is a glob on purpose
		case $1 in $p) return 0 ;; esac
	done
	return 1
}
# Kernel version tests: only in the compat header
compat=include/linux/mmc-coalesce-compat.h
stray=$(git grep -l -E 'LINUX_VERSION_CODE|KERNEL_VERSION\(' -- '*.c' '*.h' ":!$compat" 2>/dev/null)
if [ -n "$stray" ]; then
	ko compat/version_tests_only_in_compat_header "also in: $(echo "$stray" | tr '\n' ' ')"
else
	ok compat/version_tests_only_in_compat_header
fi

# Kconfig: the kernel's parser on ./Kconfig, under a stub of the
# symbols our entries depend on (BLOCK, MMC, MMC_SDHCI, KUNIT, ...)
conf=$kdir/scripts/kconfig/conf
if [ ! -x "$conf" ]; then
	ko kconfig/parses "no $conf (run make kernel)"
else
	kc=$top/build/lint-kconfig
	mkdir -p "$kc"
	{
		for sym in BLOCK MMC PCI OF MODULES PPC_E500; do
			printf 'config %s\n\tdef_bool y\n' "$sym"
		done
		for sym in KUNIT MMC_SDHCI MMC_SDHCI_IO_ACCESSORS MMC_SDHCI_PLTFM; do
			printf 'config %s\n\ttristate\n\tdefault y\n' "$sym"
		done
		printf 'config MMC_SDHCI_OF_ESDHC\n\ttristate "stock eSDHC driver"\n'
		printf 'config COMPILE_TEST\n\tbool "compile test"\n'
		echo 'source "Kconfig"'
	} >"$kc/Kconfig.stub"
	echo '# CONFIG_MMC_SDHCI_OF_ESDHC is not set' >"$kc/no-stock.config"
	echo '# CONFIG_COMPILE_TEST is not set' >"$kc/no-compile-test.config"
	# conf writes include/config/ and include/generated/ under the
	# current directory: run it in the scratch one
	out=$(cd "$kc" && srctree=$top KCONFIG_CONFIG=$kc/.config \
		KCONFIG_ALLCONFIG=$kc/no-stock.config \
		"$conf" --allyesconfig "$kc/Kconfig.stub" 2>&1)
	rc=$?
	missing=''
	for sym in MQ_IOSCHED_COALESCE MQ_IOSCHED_COALESCE_KUNIT_TEST \
		MMC_SDHCI_ESDHC_E500 MMC_SDHCI_ESDHC_E500_KUNIT_TEST; do
		grep -qx "CONFIG_$sym=y" "$kc/.config" 2>/dev/null || missing="$missing $sym"
	done
	if [ $rc != 0 ] || echo "$out" | grep -Eqi 'warning|error'; then
		ko kconfig/parses "$(echo "$out" | grep -Ei -m1 'warning|error|.')"
	elif [ -n "$missing" ]; then
		ko kconfig/parses "allyesconfig left off:$missing"
	else
		ok kconfig/parses
	fi
	(cd "$kc" && srctree=$top KCONFIG_CONFIG=$kc/stock.config \
		KCONFIG_ALLCONFIG=$kc/no-compile-test.config \
		"$conf" --allyesconfig "$kc/Kconfig.stub" >/dev/null 2>&1)
	if grep -qx 'CONFIG_MMC_SDHCI_OF_ESDHC=y' "$kc/stock.config" &&
		! grep -q '^CONFIG_MMC_SDHCI_ESDHC_E500=' "$kc/stock.config"; then
		ok kconfig/one_esdhc_driver
	else
		ko kconfig/one_esdhc_driver "with stock sdhci-of-esdhc: $(grep -E 'ESDHC' "$kc/stock.config" | tr '\n' ' ')"
	fi
	(cd "$kc" && srctree=$top KCONFIG_CONFIG=$kc/bots.config \
		"$conf" --allyesconfig "$kc/Kconfig.stub" >/dev/null 2>&1)
	if grep -qx 'CONFIG_MMC_SDHCI_OF_ESDHC=y' "$kc/bots.config" &&
		grep -qx 'CONFIG_MMC_SDHCI_ESDHC_E500=y' "$kc/bots.config"; then
		ok kconfig/compile_test_builds_both
	else
		ko kconfig/compile_test_builds_both "allyesconfig: $(grep -E 'ESDHC|COMPILE_TEST' "$kc/bots.config" | tr '\n' ' ')"
	fi
fi

spdx_re='SPDX-License-Identifier: [A-Za-z0-9(]'
ktap_sub_begin spdx ${#files[@]}
for f in "${files[@]}"; do
	{ IFS= read -r l1; IFS= read -r l2; } <"$f"
	case ${l1:-} in '#!'*) first=${l2:-} ;; *) first=${l1:-} ;; esac
	if [[ $first =~ $spdx_re ]] || in_dep5 "$f"; then
		ok "$f"
	else
		ko "$f" "no SPDX-License-Identifier on line 1 (line 2 after a shebang), and no .reuse/dep5 entry"
	fi
done
ktap_sub_end
ktap_end
