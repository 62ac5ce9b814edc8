#!/usr/bin/env bash
# Kernel habits, as tests: checkpatch --strict (from the 6.1 tree) on every
# C file and header of ours, and an out-of-tree build of the modules with
# W=1 and sparse (C=1) that must print no warning. Needs the guest kernel
# build (make kernel). About a minute.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/lib/results.sh"
src=$top/build/linux-6.1
kdir=$top/build/kernel-x86_64
log=$top/build/test-logs/lint-build.log

if [ ! -x "$src/scripts/checkpatch.pl" ] || [ ! -f "$kdir/Module.symvers" ]; then
	ko lint/setup "no kernel tree or build under build/ (run make kernel)"
	echo "$pass passed, $fail failed"
	exit 1
fi

cd "$top"
for f in $(git ls-files 'drivers/*.c' 'drivers/*.h' 'include/*.h' \
	'qemu/guest/*.c' 'tests/tools/cardtrace/*.c'); do
	ignore=FILE_PATH_CHANGES
	# Trace event headers keep the TRACE_EVENT() layout that every
	# header in include/trace/events/ uses, which --strict flags.
	# The EM()/EMe() lists that name an enum in the trace output
	# (TRACE_DEFINE_ENUM) are the same idiom as upstream's headers.
	case $f in include/trace/events/*)
		ignore=$ignore,PARENTHESIS_ALIGNMENT,OPEN_ENDED_LINE
		ignore=$ignore,COMPLEX_MACRO,TRAILING_SEMICOLON ;;
	# The tunables table expands into one module parameter declaration
	# per line: the expansion ends in a semicolon and names it twice.
	drivers/mmc/coalesce/coalesce-tunables.c)
		ignore=$ignore,MACRO_ARG_REUSE,TRAILING_SEMICOLON ;;
	esac
	out=$("$src/scripts/checkpatch.pl" --strict --no-tree --quiet \
		--ignore "$ignore" -f "$f" 2>&1)
	if [ -z "$out" ]; then
		ok "checkpatch/$f"
	else
		ko "checkpatch/$f" "$(echo "$out" | grep -m1 -E 'ERROR|WARNING|CHECK')"
	fi
done

# Force a full rebuild of our objects, so every file is checked again.
find drivers -name '*.o' -delete
if make -C "$kdir" M="$top" W=1 C=1 modules >"$log" 2>&1; then
	ok build/modules_w1_sparse_builds
	if grep -E -q 'warning:|error:' "$log"; then
		ko build/no_w1_or_sparse_warnings "$(grep -E -m1 'warning:|error:' "$log")"
	else
		ok build/no_w1_or_sparse_warnings
	fi
else
	ko build/modules_w1_sparse_builds "see $log"
fi
echo "$pass passed, $fail failed"
[ $fail = 0 ]
