/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the coalesce I/O scheduler:
 *   coalesce_hold     a write entered the reorder window
 *   coalesce_release  a held write left it for the device (why, after
 *                     how long, and how many buffer updates it carried)
 * Enable with: echo 1 > /sys/kernel/tracing/events/coalesce/enable
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM coalesce

#if !defined(_TRACE_COALESCE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_COALESCE_H

#include <linux/blkdev.h>
#include <linux/tracepoint.h>

/*
 * The release reasons, by name in the trace output. RWIN_REL_* come from
 * the scheduler's private reorder_window.h, which coalesce-sched.c (the
 * only includer) includes before this header.
 */
#define COALESCE_REASONS					\
	EM(RWIN_REL_ATTACH,	"attach")			\
	EM(RWIN_REL_COUNT,	"count")			\
	EM(RWIN_REL_BYTES,	"bytes")			\
	EM(RWIN_REL_DEADLINE,	"deadline")			\
	EM(RWIN_REL_IDLE,	"idle")				\
	EM(RWIN_REL_FLUSH,	"flush")			\
	EM(RWIN_REL_FUA,	"fua")				\
	EM(RWIN_REL_SYNC,	"sync")				\
	EM(RWIN_REL_READ,	"read")				\
	EM(RWIN_REL_OVERLAP,	"overlap")			\
	EM(RWIN_REL_DRAIN,	"drain")			\
	EMe(RWIN_REL_WAITER,	"waiter")

#undef EM
#undef EMe
#define EM(a, b)	TRACE_DEFINE_ENUM(a);
#define EMe(a, b)	TRACE_DEFINE_ENUM(a);
COALESCE_REASONS
#undef EM
#undef EMe
#define EM(a, b)	{ a, b },
#define EMe(a, b)	{ a, b }

TRACE_EVENT(coalesce_hold,
	TP_PROTO(struct request *rq, u64 au),
	TP_ARGS(rq, au),
	TP_STRUCT__entry(
		__field(dev_t, dev)
		__field(sector_t, sector)
		__field(unsigned int, nr_sector)
		__field(u64, au)
	),
	TP_fast_assign(
		__entry->dev = rq->q->disk ? disk_devt(rq->q->disk) : 0;
		__entry->sector = blk_rq_pos(rq);
		__entry->nr_sector = blk_rq_sectors(rq);
		__entry->au = au;
	),
	TP_printk("%d,%d %llu + %u au=%llu",
		  MAJOR(__entry->dev), MINOR(__entry->dev),
		  (unsigned long long)__entry->sector, __entry->nr_sector,
		  __entry->au)
);

TRACE_EVENT(coalesce_release,
	TP_PROTO(struct request *rq, int reason, u64 held_ns,
		 unsigned int absorbed),
	TP_ARGS(rq, reason, held_ns, absorbed),
	TP_STRUCT__entry(
		__field(dev_t, dev)
		__field(sector_t, sector)
		__field(unsigned int, nr_sector)
		__field(int, reason)
		__field(u64, held_ns)
		__field(unsigned int, absorbed)
	),
	TP_fast_assign(
		__entry->dev = rq->q->disk ? disk_devt(rq->q->disk) : 0;
		__entry->sector = blk_rq_pos(rq);
		__entry->nr_sector = blk_rq_sectors(rq);
		__entry->reason = reason;
		__entry->held_ns = held_ns;
		__entry->absorbed = absorbed;
	),
	TP_printk("%d,%d %llu + %u reason=%s held_us=%llu absorbed=%u",
		  MAJOR(__entry->dev), MINOR(__entry->dev),
		  (unsigned long long)__entry->sector, __entry->nr_sector,
		  __print_symbolic(__entry->reason, COALESCE_REASONS),
		  __entry->held_ns / 1000, __entry->absorbed)
);

#endif /* _TRACE_COALESCE_H */

/*
 * define_trace.h includes <trace/events/coalesce.h> again: in a kernel
 * tree from include/, out of tree from the project's include/, which the
 * module's Makefile puts on the path.
 */
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE coalesce
#include <trace/define_trace.h>
