#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Write the project as a `git format-patch` series against a kernel tree,
# with everything in its natural in-tree place:
#   block/                    the coalesce I/O scheduler (from drivers/mmc/coalesce/)
#   include/trace/events/     its tracepoints (from include/trace/events/)
#   drivers/mmc/host/         the sdhci-esdhc-e500 host driver (from drivers/mmc/host/)
#   Documentation/ABI/testing the scheduler's sysfs files
#   Documentation/block/      the scheduler's documentation (in its index)
# plus their Kconfig, Makefile and MAINTAINERS entries. Nothing is kept
# twice: the files are copied from the project, the Kconfig entries are
# the project's Kconfig stanzas (less a "depends on BLOCK" that
# block/Kconfig.iosched does not need), and the Makefile lines and the list of
# source files are the project's Makefile paragraphs (the out-of-tree
# preamble and include paths are left behind: in tree they are not needed).
#
# How: a scratch git repository (build/kernel-patch/.work-V) holds only the
# base tree's versions of the files the series edits (so the index lines
# carry the real tree's blob hashes), one commit per patch on top, then
# `git format-patch`. Author and committer dates are fixed (SOURCE_DATE_EPOCH,
# else the date of the last commit touching the inputs), so running it again
# without changes writes identical files.
#
# Usage: qemu/setup/kernel-patch.sh [options]
#   -b, --base DIR   kernel tree to write the series against (default
#                    build/linux-6.1); never modified
#   -o, --out DIR    where the series goes (default build/kernel-patch/V,
#                    V = VERSION.PATCHLEVEL of the base)
#   --tree DIR       also make DIR a hard-linked copy (cp -al) of the base
#                    with the series applied by `patch -p1` (which replaces
#                    the files it changes, so the base stays pristine);
#                    made again only when the series (or --base) changed
#   --check          check the series on a hard-linked copy of the base:
#                    each patch in turn passes `git apply --check` and
#                    `patch -p1 --dry-run` (no offset, no fuzz) and is
#                    applied; the result is what was committed; `git am`
#                    takes the series; the base is unchanged; and the
#                    base's scripts/checkpatch.pl --strict on every patch
#   --stock-esdhc-tree DIR
#                    also make DIR a hard-linked copy of the base with the
#                    stock driver's series (below) applied, as --tree
#   --no-stock-esdhc write no stock driver's series (for a base that has
#                    it applied already)
#   -q, --quiet      print only the output directory (and, with --check,
#                    skip the checkpatch listing)
#
# With a 6.1 base it also writes a second series, for the kernel's own
# sdhci-of-esdhc driver, from drivers/mmc/host/stock-esdhc/ (one patch per
# file: its commit message, a "---" line, then the diff against 6.1's
# driver), into OUT-stock-esdhc: the fixes our host driver carries,
# offered to the stock one. Each of its patches applies alone to the base,
# and --check checks that too.
# Environment: KERNEL_PATCH_AUTHOR ("Name <email>", the author, the
# Signed-off-by and the MAINTAINERS M: line; default the placeholder
# "mmc-coalesce developers <mmc-coalesce@example.org>": set a real
# identity before sending anything), SOURCE_DATE_EPOCH.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

base=$top/build/linux-6.1
out=
tree=
check=0
quiet=0
stock=1
stock_tree=
while [ $# -gt 0 ]; do
	case $1 in
	-b | --base) base=${2:?}; shift 2 ;;
	-o | --out) out=${2:?}; shift 2 ;;
	--tree) tree=${2:?}; shift 2 ;;
	--check) check=1; shift ;;
	--stock-esdhc-tree) stock_tree=${2:?}; shift 2 ;;
	--no-stock-esdhc) stock=0; shift ;;
	-q | --quiet) quiet=1; shift ;;
	-h | --help) sed -n '3,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	*) echo "kernel-patch.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
base=$(cd "$base" && pwd)
if [ ! -f "$base/Makefile" ] || [ ! -f "$base/block/Kconfig.iosched" ]; then
	echo "kernel-patch.sh: $base does not look like a kernel source tree" >&2
	exit 2
fi
mkv() { sed -n "s/^$1 = //p" "$base/Makefile" | head -n 1; }
ver=$(mkv VERSION).$(mkv PATCHLEVEL)
kernelversion=$ver.$(mkv SUBLEVEL)$(mkv EXTRAVERSION)
out=${out:-$top/build/kernel-patch/$ver}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$top/build/kernel-patch/.work-$ver
# one run at a time per version (make -j, two kernel builds)
mkdir -p "$top/build/kernel-patch"
exec 9>"$top/build/kernel-patch/.lock-$ver"
flock 9

author=${KERNEL_PATCH_AUTHOR:-mmc-coalesce developers <mmc-coalesce@example.org>}
case $author in *' <'*'@'*'>') ;; *)
	echo "kernel-patch.sh: KERNEL_PATCH_AUTHOR must read 'Name <email>'" >&2; exit 2 ;;
esac
inputs=(drivers include Documentation/ABI Documentation/block qemu/setup/kernel-patch.sh)
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	SOURCE_DATE_EPOCH=$(git -C "$top" log -1 --format=%ct -- "${inputs[@]}" 2>/dev/null || true)
	SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1764547200}
fi
say() { [ $quiet = 1 ] || echo "$@"; }
die() { echo "kernel-patch.sh: $*" >&2; exit 1; }

cs=drivers/mmc/coalesce	# the scheduler, out of tree
hs=drivers/mmc/host	# the host driver, out of tree

# --- reading the project's Kconfig and Makefiles --------------------------

# kconfig_stanza FILE SYMBOL: the "config SYMBOL" entry of FILE, up to the
# next entry, without trailing blank lines
kconfig_stanza() {
	grep -q "^config $2\$" "$1" || die "no 'config $2' in ${1#"$top"/}"
	awk -v sym="$2" '
		$1 == "config" && $2 == sym { on = 1; print; next }
		on && /^(config|menuconfig|menu|endmenu|if|endif|source|choice|comment) / { exit }
		on && /^(endmenu|endif|endchoice)$/ { exit }
		on { print }' "$1" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
}

# make_paragraph FILE SYMBOL: the blank-line separated paragraph of FILE
# that holds obj-$(CONFIG_SYMBOL)
make_paragraph() {
	local p
	p=$(awk -v key="obj-\$(CONFIG_$2)" '
		/^$/ { if (hit) exit; buf = ""; next }
		{ buf = buf $0 "\n"; if (index($0, key) == 1) hit = 1 }
		END { if (hit) printf "%s", buf }' "$1")
	[ -n "$p" ] || die "no obj-\$(CONFIG_$2) paragraph in ${1#"$top"/}"
	printf '%s\n' "$p"
}

# paragraph_sources DIR PARAGRAPH: the .c files of DIR a Makefile
# paragraph builds (its objects, less the composite ones it defines)
paragraph_sources() {
	local dir=$1 words o composite=" " f
	words=$(printf '%s\n' "$2" | sed 's/\\$//' | tr -s ' \t' '\n')
	# shellcheck disable=SC2016 # $(CONFIG_...) is make's, not the shell's
	for o in $(printf '%s\n' "$words" | sed -n 's/^\([A-Za-z0-9_-]*\)-\(y\|\$(CONFIG_[A-Z0-9_]*)\)$/\1/p'); do
		composite="$composite$o.o "
	done
	for o in $(printf '%s\n' "$words" | grep '\.o$' | sort -u); do
		case $composite in *" $o "*) continue ;; esac
		f=$dir/${o%.o}.c
		[ -f "$top/$f" ] || die "$f (from ${dir}/Makefile) is missing"
		echo "$f"
	done
}

# headers DIR: the headers of a driver directory (the Makefiles do not
# name them); all of them go with the driver, none with the tests
headers() { (cd "$top" && find "$1" -maxdepth 1 -name '*.h' | LC_ALL=C sort); }

# --- the scratch repository ------------------------------------------------

rm -rf "$work"
mkdir -p "$work"
export GIT_AUTHOR_NAME=${author% <*} GIT_AUTHOR_EMAIL=${author##*<}
GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL%>}
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
export GIT_AUTHOR_DATE="@$SOURCE_DATE_EPOCH +0000" GIT_COMMITTER_DATE="@$SOURCE_DATE_EPOCH +0000"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
g() { git -C "$work" -c core.autocrlf=false -c commit.gpgsign=false "$@"; }
g init -q -b main
edited=(MAINTAINERS block/Kconfig.iosched block/Makefile
	Documentation/block/index.rst drivers/mmc/host/Kconfig
	drivers/mmc/host/Makefile)
for f in "${edited[@]}"; do
	mkdir -p "$work/$(dirname "$f")"
	cp "$base/$f" "$work/$f"
done
g add -A
g commit -q -m "Linux $kernelversion (the base: only the files the series edits)"

# The compat header (include/linux/mmc-coalesce-compat.h) lets one source
# build against 6.1 and 6.12 out of tree; a kernel tree is one version and
# must not carry it. Each of its shims is written out here as that
# version's own code, in the C files of the series, and the include goes.
# Each rule is "old<TAB>new" (\n and \t written so); every rule must
# apply somewhere, and no shim may be left (checked after the last patch).
case $ver in
6.1) compat_rules='coalesce_insert_t flags)	bool at_head)
!coalesce_insert_at_head(flags)	!at_head
coalesce_wbt_disable(q, eq);	wbt_disable_default(q);
coalesce_wbt_enable(cd->q, e);	wbt_enable_default(cd->q);
!coalesce_bdev_buffer_heads || 	
.ESDHC_PLATFORM_REMOVE = 	.remove_new\t= ' ;;
6.12) compat_rules='coalesce_insert_t flags)	blk_insert_t flags)
!coalesce_insert_at_head(flags)	!(flags \& BLK_MQ_INSERT_AT_HEAD)
coalesce_wbt_disable(q, eq);	set_bit(ELEVATOR_FLAG_DISABLE_WBT, \&eq->flags);\n\twbt_disable_default(q->disk);
coalesce_wbt_enable(cd->q, e);	clear_bit(ELEVATOR_FLAG_DISABLE_WBT, \&e->flags);\n\twbt_enable_default(cd->q->disk);
!coalesce_bdev_buffer_heads || 	!IS_ENABLED(CONFIG_BUFFER_HEAD) || 
.ESDHC_PLATFORM_REMOVE = 	.remove\t= ' ;;
*) die "no compat rules for Linux $ver (6.1 and 6.12 only)" ;;
esac
compat_used=$work.compat-used
: >"$compat_used"

# resolve_compat TREE_FILE: the shims of a C file, written out
resolve_compat() {
	python3 - "$work/$1" "$compat_used" "$compat_rules" <<-'PY'
	import sys
	path, used, rules = sys.argv[1:4]
	text = open(path, encoding="utf-8").read()
	text = text.replace("\n\n#include <linux/mmc-coalesce-compat.h>\n", "\n")
	with open(used, "a", encoding="utf-8") as u:
	    for n, rule in enumerate(rules.split("\n")):
	        old, new = rule.split("\t")
	        new = new.replace("\\n", "\n").replace("\\t", "\t").replace("\\&", "&")
	        if old in text:
	            text = text.replace(old, new)
	            u.write(f"{n}\n")
	open(path, "w", encoding="utf-8").write(text)
	PY
}

# put PROJECT_FILE TREE_FILE: copy a project file into the tree
put() {
	mkdir -p "$work/$(dirname "$2")"
	cp "$top/$1" "$work/$2"
	case $2 in *.c | *.h) resolve_compat "$2" ;; esac
}

# insert_after FILE GREP_OPTION PATTERN TEXT: TEXT after the first line
# that grep GREP_OPTION PATTERN matches (-E: a regular expression, -xF:
# the whole line)
insert_after() {
	local f=$work/$1 n
	n=$(grep -n -m1 "$2" -e "$3" "$f" | cut -d: -f1)
	[ -n "$n" ] || die "no line matching '$3' in $1"
	{ head -n "$n" "$f"; printf '%s\n' "$4"; tail -n +"$((n + 1))" "$f"; } >"$f.new"
	mv "$f.new" "$f"
}

# kconfig_after FILE SYMBOL TEXT: TEXT as a new entry after the entry of
# SYMBOL in a kernel Kconfig file (before the blank line that ends it)
kconfig_after() {
	local f=$work/$1 start end
	start=$(grep -n -m1 -E "^(menu)?config $2\$" "$f" | cut -d: -f1)
	[ -n "$start" ] || die "no 'config $2' in $1 of the base"
	end=$(awk -v s="$start" 'NR > s && /^(config|menuconfig|menu|endmenu|if|endif|source|choice|endchoice|comment)( |$)/ { print NR; exit }' "$f")
	[ -n "$end" ] || die "the entry of $2 in $1 does not end"
	# the last non-blank line of the entry
	end=$(awk -v s="$start" -v e="$end" 'NR > s && NR < e && NF { last = NR } END { print last }' "$f")
	{ head -n "$end" "$f"; printf '\n%s\n' "$3"; tail -n +"$((end + 1))" "$f"; } >"$f.new"
	mv "$f.new" "$f"
}

# kconfig_before_endmenu FILE TEXT: TEXT as the last entry of the menu
# that FILE ends with
kconfig_before_endmenu() {
	local f=$work/$1 n
	n=$(grep -n -x 'endmenu' "$f" | tail -n 1 | cut -d: -f1)
	[ -n "$n" ] || die "no endmenu in $1 of the base"
	{ head -n "$((n - 1))" "$f"; printf '%s\n\n' "$2"; tail -n +"$n" "$f"; } >"$f.new"
	mv "$f.new" "$f"
}

# MAINTAINERS: our sections, rewritten from the base's file at each patch
# with the files added so far (checkpatch wants new files listed there,
# F: patterns sorted).
declare -A maint_files maint_head
maint_order=()
maint_section() {	# TITLE LIST
	maint_order+=("$1")
	maint_head[$1]="M:	$author
L:	$2
S:	Maintained"
	maint_files[$1]=
}
maint_add() {		# TITLE FILE...
	local t=$1
	shift
	maint_files[$t]=$(printf '%s\n' "${maint_files[$t]}" "$@" | grep . | LC_ALL=C sort -u)
}
maint_write() {
	local t f=$work/MAINTAINERS
	cp "$base/MAINTAINERS" "$f"
	for t in "${maint_order[@]}"; do
		[ -n "${maint_files[$t]}" ] || continue
		# between two sections whose titles sort before and after ours
		# (titles: a line after a blank line, followed by an "X:<tab>"
		# line), the two around them agreeing (a few titles are out of
		# place)
		LC_ALL=C awk -v title="$t" -v body="${maint_head[$t]}
F:	${maint_files[$t]//$'\n'/$'\n'F:$'\t'}" '
			{ line[NR] = $0 }
			END {
				t = tolower(title)
				for (i = 2; i < NR; i++)
					if (line[i - 1] == "" && line[i] !~ /^[A-Z]:\t/ &&
					    line[i + 1] ~ /^[A-Z]:\t/)
						pos[++n] = i
				for (k = 3; k < n && !done; k++)
					if (tolower(line[pos[k - 2]]) < t && tolower(line[pos[k - 1]]) < t &&
					    tolower(line[pos[k]]) > t && tolower(line[pos[k + 1]]) > t) {
						at = pos[k]; done = 1
					}
				for (i = 1; i <= NR; i++) {
					if (i == at)
						printf "%s\n%s\n\n", title, body
					print line[i]
				}
				if (!done) exit 1
			}' "$f" >"$f.new" || die "no place for '$t' in MAINTAINERS"
		mv "$f.new" "$f"
	done
}
sched_title="COALESCE I/O SCHEDULER"
host_title="SECURE DIGITAL HOST CONTROLLER INTERFACE (SDHCI) NXP E500 ESDHC DRIVER"
maint_section "$sched_title" "linux-block@vger.kernel.org"
maint_section "$host_title" "linux-mmc@vger.kernel.org"

# commit SUBJECT BODY: commit the tree as it is now
commit() {
	maint_write
	g add -A
	g commit -q -F - <<-EOF
	$1

	$2

	Signed-off-by: $author
	EOF
}

# --- the patches -----------------------------------------------------------

# 1: the scheduler, its engine and tracepoints
p=$(make_paragraph "$top/$cs/Makefile" MQ_IOSCHED_COALESCE)
sched_p=$p
srcs=$(paragraph_sources $cs "$p")
hdrs=$(headers $cs)
# block/Kconfig.iosched is sourced inside "if BLOCK"
k=$(kconfig_stanza "$top/$cs/Kconfig" MQ_IOSCHED_COALESCE | grep -v -x -P '\tdepends on BLOCK')
files=()
for f in $srcs $hdrs; do
	put "$f" "block/${f##*/}"
	files+=("block/${f##*/}")
done
put include/trace/events/coalesce.h include/trace/events/coalesce.h
kconfig_before_endmenu block/Kconfig.iosched "$k"
insert_after block/Makefile -E '^obj-\$\(CONFIG_IOSCHED_BFQ\)' "$p"
maint_add "$sched_title" "${files[@]}" include/trace/events/coalesce.h
commit "block: add the coalesce I/O scheduler for SD cards and USB sticks" \
"Cheap SD cards and USB sticks keep only a few allocation units (AU,
typically 4 MiB) open and want the writes inside an AU in ascending
order. Writeback sends the block device's own page cache (ext2/ext4
bitmaps, inode tables, indirect blocks, superblocks) interleaved with
large file data, so such a card keeps jumping between AUs and spends
its time in garbage collection: an SDHC card on an e500 board dropped
from 12 MB/s to 3 MB/s this way.

Add \"coalesce\", a blk-mq I/O scheduler selected per disk like
mq-deadline. Its reorder window holds small writes, and writes that
would go backward in their AU, for a bounded time (5 s, or 20 s in an
AU no data write reaches; 128 writes and 4 MiB by default) and sends
them grouped by AU next to the data written to the same AU, in
ascending order. Reads, synchronous writes, flush and FUA writes and
swap are never held; a read that overlaps a held write releases it;
writes to the same sectors leave in arrival order (write requests are
not merged at insert, where no elevator is asked); a flush owes nothing
to a write that has not completed. Every bio that may merge into a
request is shown to the window first, so a sync bio releases what is
held as a sync request would. A held write keeps its buffers locked:
a writer that sleeps on one (FAT's mirror FAT, ext2's fsync, jbd2) is
found by looking at the held requests' pages and buffer wait queues,
and its write released. Switching the scheduler, removing the disk and
system suspend release everything at once. Zoned devices are refused.

The policy (reorder_window.c) is kept apart from the blk-mq glue
(coalesce-sched.c) so that it can be tested on its own. Per-disk
tunables live in the scheduler's sysfs directory, with module
parameters as their defaults; statistics are in debugfs
(CONFIG_BLK_DEBUG_FS); the coalesce_hold and coalesce_release
tracepoints show each held write and why it left.

Measured with QEMU's SD card model and the ext2 workload above (16 KiB
writes of a large file, synced), the AU switches per AU written went
from 2.92 with mq-deadline to 1.43-1.46 with coalesce on 6.1, and from
3.08 to 1.36 on 6.12."

# 2: the engine's KUnit tests
p=$(make_paragraph "$top/$cs/Makefile" MQ_IOSCHED_COALESCE_KUNIT_TEST)
srcs=$(paragraph_sources $cs "$p")
k=$(kconfig_stanza "$top/$cs/Kconfig" MQ_IOSCHED_COALESCE_KUNIT_TEST)
files=()
for f in $srcs; do
	put "$f" "block/${f##*/}"
	files+=("block/${f##*/}")
done
kconfig_after block/Kconfig.iosched MQ_IOSCHED_COALESCE "$k"
insert_after block/Makefile -xF "$(tail -n 1 <<<"$sched_p")" "$p"
maint_add "$sched_title" "${files[@]}"
commit "block: coalesce: add KUnit tests for the reorder window" \
"The reorder window decides which writes the coalesce scheduler holds
and in which order they leave; an error there reorders writes that
overlap or holds a write for ever. Test each of its rules on the engine
alone, built as kernel code: hold, attach to the data of the same AU,
the count, size and time bounds, the idle release, flush/FUA/sync
writes, reads and overlapping writes, drain, the backward-write hold,
and same-range rewrites kept in arrival order."

# 3: the documentation and the ABI of the scheduler's sysfs files
abi=Documentation/ABI/testing/sysfs-block-queue-iosched-coalesce
doc=Documentation/block/coalesce-iosched.rst
put "$abi" "$abi"
put "$doc" "$doc"
insert_after Documentation/block/index.rst -xF '   bfq-iosched' '   coalesce-iosched'
maint_add "$sched_title" "$abi" "$doc"
commit "block: coalesce: document the scheduler and its tunables" \
"Say what the coalesce scheduler does, the contract its reorder window
keeps, where it helps and where it does not, and each tunable. The
tunables are files in /sys/block/<disk>/queue/iosched/, each with a
module parameter as its default; the ABI entries give their ranges and
what writing \"default\" does."

# 4: the host driver
p=$(make_paragraph "$top/$hs/Makefile" MMC_SDHCI_ESDHC_E500)
host_p=$p
srcs=$(paragraph_sources $hs "$p")
hdrs=$(headers $hs)
k=$(kconfig_stanza "$top/$hs/Kconfig" MMC_SDHCI_ESDHC_E500)
files=()
for f in $srcs $hdrs; do
	put "$f" "drivers/mmc/host/${f##*/}"
	files+=("drivers/mmc/host/${f##*/}")
done
# Right after the driver it is the alternative to, inside the run of
# entries that depend on MMC_SDHCI_PLTFM (menuconfig nests them under it).
kconfig_after drivers/mmc/host/Kconfig MMC_SDHCI_OF_ESDHC "$k"
insert_after drivers/mmc/host/Makefile -E '^obj-\$\(CONFIG_MMC_SDHCI_OF_ESDHC\)' "$p"
maint_add "$host_title" "${files[@]}"
commit "mmc: sdhci-esdhc-e500: add a driver for the eSDHC of e500 SoCs" \
"The eSDHC of e500 SoCs (MPC85xx, P1, P2, QorIQ P series) is served by
sdhci-of-esdhc, which carries the whole eSDHC family (the e500 and
e5500/e6500 PowerPC parts, MPC83xx, Layerscape and LX2160A) in one
file, with the vendor version and SoC checked at run time on every
path: changing the sequences of the e500 parts there, and testing them
without each SoC at hand, is hard.

Add a small driver for the e500 parts only, on the sdhci-pltfm helpers:
big-endian register access with the eSDHC's layout (esdhc-io), the SD
clock divider and the per-SoC clock ceilings (esdhc-clk), DMA snooping,
and the P1 and P2 errata that sdhci-of-esdhc works around
(esdhc-errata), each a function over a register accessor so that a test
can drive it against a fake register file.

It binds the family's \"fsl,esdhc\" where it is built for e500
(PPC_E500: 32-bit PPC_85xx and 64-bit PPC_BOOK3E_64 kernels), as
sdhci-of-esdhc does, and gives each host the quirks that sdhci-of-esdhc
gives that node on that SoC, from all of the node's compatibles,
whatever their order. A node that names no part gets the part's quirks
from the SVR, where sdhci-of-esdhc, matching by compatible, gives it the
family's defaults. The two take the same nodes, so Kconfig lets a
board's kernel have one of the two (COMPILE_TEST builds both).

Tested: on QEMU 10's ppce500 (one eSDHC, vendor version 0.0, no
suspend), with the node as a P1022 tree and as QEMU's own tree
(\"fsl,esdhc\" alone) give it: the card's write, read-back and e2fsck
pass. The quirks of every eSDHC node of arch/powerpc/boot/dts/fsl were
compared with sdhci-of-esdhc's on the host; the errata sequences only
run in the KUnit tests of the next patch."

# 5: the host driver's KUnit tests
p=$(make_paragraph "$top/$hs/Makefile" MMC_SDHCI_ESDHC_E500_KUNIT_TEST)
srcs=$(paragraph_sources $hs "$p")
k=$(kconfig_stanza "$top/$hs/Kconfig" MMC_SDHCI_ESDHC_E500_KUNIT_TEST)
files=()
for f in $srcs; do
	put "$f" "drivers/mmc/host/${f##*/}"
	files+=("drivers/mmc/host/${f##*/}")
done
kconfig_after drivers/mmc/host/Kconfig MMC_SDHCI_ESDHC_E500 "$k"
insert_after drivers/mmc/host/Makefile -xF "$(tail -n 1 <<<"$host_p")" "$p"
maint_add "$host_title" "${files[@]}"
commit "mmc: sdhci-esdhc-e500: add KUnit tests" \
"The register access layer and the errata sequences are what differs
from a standard SDHCI, and QEMU's eSDHC model reports vendor version 0.0
and models none of the errata, so the errata paths never run under
emulation. Test them against a fake big-endian register file, and test
the SD clock divider choice and the per-SoC clock ceilings.

Tested: all cases pass, built in, at boot on QEMU 10's ppce500 and on
an x86_64 guest (as a module)."

# every compat rule was written out somewhere, and no shim is left
n=0
while IFS= read -r _; do
	grep -qx "$n" "$compat_used" || die "compat rule $((n + 1)) for $ver matched no file"
	n=$((n + 1))
done <<<"$compat_rules"
# (the header's own macro names: a shim added there without a rule here
# is caught too)
shims=$(sed -n 's/^#define \([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' \
	"$top/include/linux/mmc-coalesce-compat.h" | paste -sd'|')
left=$(grep -rlwE "mmc-coalesce-compat|LINUX_VERSION_CODE|$shims" \
	"$work/block" "$work/drivers" "$work/include" 2>/dev/null || true)
[ -z "$left" ] || die "a compat shim is left in the series: ${left//$work\//}"

# --- the series --------------------------------------------------------------

# write_series WORK OUT: the scratch repository's commits as numbered
# [PATCH n/N] mails, as they would be sent; --zero-commit: the scratch
# commits' ids mean nothing outside build/
write_series() {
	mkdir -p "$2"
	rm -f "$2"/*.patch "$2/series"
	git -C "$1" format-patch -q --zero-commit --no-signature --numbered \
		-o "$2" "$(git -C "$1" rev-list --max-parents=0 HEAD)..HEAD"
	(cd "$2" && ls -1 -- *.patch) >"$2/series"
}
write_series "$work" "$out"
say "kernel-patch: $(wc -l <"$out/series") patches against Linux $kernelversion in ${out#"$top"/}/"
[ $quiet = 0 ] || echo "$out"

# --- the stock driver's series -----------------------------------------------

stock_src=$top/$hs/stock-esdhc
sout=$out-stock-esdhc
swork=$work-stock-esdhc
[ "$ver" = 6.1 ] || stock=0
[ $stock = 1 ] || [ -z "$stock_tree" ] || die "--stock-esdhc-tree: no stock driver's series for this base"
if [ $stock = 1 ]; then
	rm -rf "$swork"
	mkdir -p "$swork/$hs"
	cp "$base/$hs/sdhci-of-esdhc.c" "$base/$hs/Kconfig" "$swork/$hs/"
	gs() { git -C "$swork" -c core.autocrlf=false -c commit.gpgsign=false "$@"; }
	gs init -q -b main
	gs add -A
	gs commit -q -m "Linux $kernelversion (the base: only the files the series edits)"
	for f in "$stock_src"/0*.patch; do
		[ -f "$f" ] || die "no patches in ${stock_src#"$top"/}"
		subject=$(head -n 1 "$f")
		grep -qx -e '---' "$f" || die "${f#"$top"/}: no '---' line before the diff"
		if [ -z "$subject" ] || [ -n "$(sed -n 2p "$f")" ]; then
			die "${f#"$top"/}: the first line is the subject, then a blank line"
		fi
		sed '1,/^---$/d' "$f" >"$swork.diff"
		gs apply --whitespace=error-all "$swork.diff" ||
			die "${f#"$top"/} does not apply to $base"
		gs add -A
		{ sed -n '1,/^---$/p' "$f" | sed '$d'; printf '\nSigned-off-by: %s\n' "$author"; } |
			gs commit -q -F -
	done
	rm -f "$swork.diff"
	write_series "$swork" "$sout"
	say "kernel-patch: $(wc -l <"$sout/series") patches for stock sdhci-of-esdhc against Linux $kernelversion in ${sout#"$top"/}/"
fi

# --- checks ------------------------------------------------------------------

# check_series OUT WORK ALONE: the checks of --check on one series (ALONE
# 1: also each patch alone on the base)
check_series() {
	local sdir=$1 swk=$2 alone=$3 bad=0 chk f n before paths
	chk=$swk.check
	# touched: the paths the series creates or changes
	mapfile -t paths < <(sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "$sdir"/0*.patch | LC_ALL=C sort -u)
	sums() { (cd "$base" && for f in "${paths[@]}"; do [ ! -e "$f" ] || sha256sum "$f"; done); }
	before=$(sums)
	for f in "${paths[@]}"; do
		[ ! -e "$base/$f" ] || [ -f "$base/$f" ] || die "$f: not a regular file in the base"
	done
	# A fresh tree: the base, hard-linked, the files the series changes
	# copied (so that no tool can write through a link into the base).
	# Each patch, in order: git apply --check and patch -p1 --dry-run
	# against the tree as the patches before it left it, then patch -p1.
	# GIT_CEILING_DIRECTORIES: git apply must not take a repository
	# around the tree (this project's) for the tree's, or it skips every
	# path outside the current directory.
	rm -rf "$chk"
	cp -al "$base" "$chk"
	for f in "${paths[@]}"; do
		[ ! -e "$chk/$f" ] || cp --remove-destination "$base/$f" "$chk/$f"
	done
	for f in "$sdir"/0*.patch; do
		n=${f##*/}
		if [ "$alone" = 1 ] &&
		   ! (cd "$base" && GIT_CEILING_DIRECTORIES=$(dirname "$base") git apply --check "$f") >"$swk.log" 2>&1; then
			bad=1; echo "kernel-patch: $n does not apply alone to the base: $(head -n 3 "$swk.log")" >&2
		fi
		if ! (cd "$chk" && GIT_CEILING_DIRECTORIES=$(dirname "$chk") git apply --check "$f") >"$swk.log" 2>&1; then
			bad=1; echo "kernel-patch: git apply --check $n: $(head -n 3 "$swk.log")" >&2
		fi
		if ! (cd "$chk" && patch -p1 -f --dry-run <"$f") >"$swk.log" 2>&1 ||
		   grep -Eq 'offset|fuzz|FAILED|malformed' "$swk.log"; then
			bad=1; echo "kernel-patch: patch -p1 --dry-run $n: $(grep -E -m3 'offset|fuzz|FAILED|malformed' "$swk.log")" >&2
		fi
		(cd "$chk" && patch -p1 -f -s --no-backup-if-mismatch <"$f") || { bad=1; break; }
	done
	[ $bad = 1 ] || say "kernel-patch: ${sdir##*/}: each patch in turn: git apply --check and patch -p1 --dry-run clean (no offset, no fuzz)"
	[ $bad = 1 ] || [ "$alone" = 0 ] || say "kernel-patch: ${sdir##*/}: each patch also applies alone to the base"
	# the patched tree holds what the scratch repository committed
	for f in "${paths[@]}"; do
		git -C "$swk" show "HEAD:$f" | cmp -s - "$chk/$f" || { bad=1; echo "kernel-patch: $f differs from the intended result" >&2; }
	done
	# git am of the series on a branch from the scratch base
	git -C "$swk" switch -q -c am "$(git -C "$swk" rev-list --max-parents=0 HEAD)"
	if git -C "$swk" am -q "$sdir"/0*.patch >"$swk.log" 2>&1 &&
	   [ -z "$(git -C "$swk" diff main am)" ]; then
		say "kernel-patch: ${sdir##*/}: git am: the series applies and gives the same tree"
	else
		bad=1; echo "kernel-patch: git am failed: $(tail -n 3 "$swk.log")" >&2
	fi
	git -C "$swk" switch -q main
	rm -rf "$chk"
	if [ "$(sums)" = "$before" ]; then
		say "kernel-patch: ${sdir##*/}: the base is unchanged"
	else
		bad=1; echo "kernel-patch: the base changed!" >&2
	fi
	# the listing only (tests/lint.sh asserts checkpatch on the series)
	[ $quiet = 1 ] || for f in "$sdir"/0*.patch; do
		if (cd "$base" && scripts/checkpatch.pl --strict --quiet --no-summary "$f") >"$swk.log" 2>&1; then
			say "kernel-patch: checkpatch --strict ${f##*/}: clean"
		else
			say "kernel-patch: checkpatch --strict ${f##*/}:"
			grep -E '^(ERROR|WARNING|CHECK)' "$swk.log" | sort | uniq -c | sed 's/^/  /'
		fi
	done
	rm -f "$swk.log"
	return $bad
}

if [ $check = 1 ]; then
	bad=0
	check_series "$out" "$work" 0 || bad=1
	[ $stock = 0 ] || check_series "$sout" "$swork" 1 || bad=1
	[ $bad = 0 ] || exit 1
fi

# --- trees with a series applied ---------------------------------------------

# make_tree DIR SERIES_DIR: DIR, the base hard-linked with the series
# applied, made again only when the series or the base changed
make_tree() {
	local tree=$1 sdir=$2 want stamp f
	# a base this script made (--stock-esdhc-tree) carries its own stamp:
	# when it was made again, so is DIR
	want=$( { echo "$base"; cat "$base/.kernel-patch.sha" 2>/dev/null; cat "$sdir/series"
		cat "$sdir"/0*.patch; } | sha256sum | cut -d' ' -f1)
	stamp=$tree/.kernel-patch.sha
	if [ ! -f "$tree/Makefile" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
		echo "kernel-patch: making ${tree#"$top"/}: ${base#"$top"/} hard-linked, ${sdir#"$top"/} applied"
		rm -rf "$tree" "$tree.tmp"
		cp -al "$base" "$tree.tmp"
		for f in "$sdir"/0*.patch; do
			# GNU patch writes a new file and renames it over the old
			# one: the base's inode, shared through the hard link, is
			# left alone
			(cd "$tree.tmp" && patch -p1 -s -f --no-backup-if-mismatch <"$f") ||
				die "${f##*/} does not apply to $base"
		done
		# a base made by this script has a stamp of its own, which the
		# hard link shares: replace the file, do not write through it
		rm -f "$tree.tmp/.kernel-patch.sha"
		echo "$want" >"$tree.tmp/.kernel-patch.sha"
		mv "$tree.tmp" "$tree"
	fi
}
[ -z "$tree" ] || make_tree "$tree" "$out"
[ -z "$stock_tree" ] || make_tree "$stock_tree" "$sout"
