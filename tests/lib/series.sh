# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared by the tests that build the kernel-patch series in a tree.

# series_objects TREE: the objects (relative to TREE) of the C files the
# series adds there, one a line
series_objects() {
	local f
	for f in "$1"/block/coalesce-*.c "$1"/block/reorder_window*.c \
		"$1"/drivers/mmc/host/esdhc-*.c \
		"$1"/drivers/mmc/host/sdhci-esdhc-e500-of.c; do
		[ -f "$f" ] || continue
		f=${f#"$1"/}
		echo "${f%.c}.o"
	done
}
