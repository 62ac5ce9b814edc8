/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the mmc_coalesce block driver:
 *   mmcc_hold     a write entered the reorder window
 *   mmcc_release  a held write left it (why, and after how long)
 *   mmcc_issue    a data command went to the card
 * Enable with: echo 1 > /sys/kernel/debug/tracing/events/mmc_coalesce/enable
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM mmc_coalesce

#if !defined(_TRACE_MMC_COALESCE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_MMC_COALESCE_H

#include <linux/tracepoint.h>

TRACE_EVENT(mmcc_hold,
	TP_PROTO(int disk, u64 sector, u32 sectors, u64 au),
	TP_ARGS(disk, sector, sectors, au),
	TP_STRUCT__entry(
		__field(int, disk)
		__field(u64, sector)
		__field(u32, sectors)
		__field(u64, au)
	),
	TP_fast_assign(
		__entry->disk = disk;
		__entry->sector = sector;
		__entry->sectors = sectors;
		__entry->au = au;
	),
	TP_printk("mmcblk%d sector=%llu sectors=%u au=%llu", __entry->disk,
		  __entry->sector, __entry->sectors, __entry->au)
);

TRACE_EVENT(mmcc_release,
	TP_PROTO(int disk, u64 sector, u32 sectors, int reason, u64 held_ns),
	TP_ARGS(disk, sector, sectors, reason, held_ns),
	TP_STRUCT__entry(
		__field(int, disk)
		__field(u64, sector)
		__field(u32, sectors)
		__field(int, reason)
		__field(u64, held_ns)
	),
	TP_fast_assign(
		__entry->disk = disk;
		__entry->sector = sector;
		__entry->sectors = sectors;
		__entry->reason = reason;
		__entry->held_ns = held_ns;
	),
	TP_printk("mmcblk%d sector=%llu sectors=%u reason=%s held_us=%llu",
		  __entry->disk, __entry->sector, __entry->sectors,
		  __print_symbolic(__entry->reason,
				   { 0, "attach" }, { 1, "count" },
				   { 2, "bytes" }, { 3, "deadline" },
				   { 4, "idle" }, { 5, "flush" }, { 6, "fua" },
				   { 7, "sync" }, { 8, "read" },
				   { 9, "overlap" }, { 10, "drain" }),
		  __entry->held_ns / 1000)
);

TRACE_EVENT(mmcc_issue,
	TP_PROTO(int disk, bool write, u64 sector, u32 sectors),
	TP_ARGS(disk, write, sector, sectors),
	TP_STRUCT__entry(
		__field(int, disk)
		__field(bool, write)
		__field(u64, sector)
		__field(u32, sectors)
	),
	TP_fast_assign(
		__entry->disk = disk;
		__entry->write = write;
		__entry->sector = sector;
		__entry->sectors = sectors;
	),
	TP_printk("mmcblk%d %s sector=%llu sectors=%u", __entry->disk,
		  __entry->write ? "W" : "R", __entry->sector,
		  __entry->sectors)
);

#endif /* _TRACE_MMC_COALESCE_H */

/*
 * define_trace.h includes <trace/events/mmc_coalesce.h> again; the
 * Makefile puts this project's include/ on the path, in and out of tree.
 */
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE mmc_coalesce
#include <trace/define_trace.h>
