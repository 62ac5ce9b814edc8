/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reorder window: policy engine that holds small (and backward) writes for an
 * SD/MMC card and releases them grouped by allocation unit (AU), in ascending
 * sector order, next to the large data writes of the same AU.
 *
 * The engine is pure logic: it never sleeps, allocates, reads a clock or
 * touches blk-mq. The caller passes the time (ns) into every call, embeds a
 * struct rwin_write in each of its writes, and makes every call under one
 * lock of its own, except rwin_complete_nolock().
 *
 * Life of a write (Documentation/reorder-window.md has the reasons):
 *
 *   rwin_add_write()  -> HELD   (small, or behind its AU's write position;
 *                               an exact rewrite of a held write is chained
 *                               behind it)
 *                     -> QUEUED (everything else, in arrival order; a sync
 *                               write that overlaps nothing queued goes
 *                               ahead of the background writes)
 *   HELD   -> QUEUED  when a release rule fires
 *   HELD   -> command when a queued data write of its AU is popped and it
 *                     sits before it (or right after it)
 *   QUEUED -> command by rwin_pop(), in queue order
 *
 * Writes to the same range leave in arrival order, in consecutive commands;
 * the caller must send them to the card in the order rwin_pop() gave them.
 * Held writes keep their blk-mq tags: at most window_reqs are held, and the
 * idle rule releases them even if every tag ends up held.
 */
#ifndef _MMC_COALESCE_REORDER_WINDOW_H
#define _MMC_COALESCE_REORDER_WINDOW_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/types.h>

/* Write flags, set by the caller from the request's cmd_flags. */
#define RWIN_F_SYNC		BIT(0)		/* REQ_SYNC: somebody waits */
#define RWIN_F_FUA		BIT(1)		/* REQ_FUA */
#define RWIN_F_URGENT		(RWIN_F_SYNC | RWIN_F_FUA)
#define RWIN_F_META		BIT(3)		/* REQ_META: counted only */
#define RWIN_F_NOHOLD		BIT(4)		/* never held (swap) */
#define RWIN_F_NODATA		BIT(5)		/* discard etc.: no data stream */

/* Most runs of contiguous writes the engine puts in one command. */
#define RWIN_MAX_RUNS		16

/* A write behind its AU's write position is held up to this size. */
#define RWIN_BACKWARD_MAX	1024

/* Hard cap on writes held at once (bounds the bookkeeping, not the tags). */
#define RWIN_MAX_WINDOW_REQS	4096

/* Number of AUs whose write position is remembered (LRU). */
#define RWIN_TRACKED_AUS	16

#define RWIN_NO_DEADLINE	((u64)~0ULL)

/* How often the waiter probe is asked, and about how many writes. */
#define RWIN_PROBE_NS		(10ULL * 1000 * 1000)
#define RWIN_PROBE_WRITES	16

/* Where a write is; rwin_write.state, for debugging and tests. */
enum rwin_state {
	RWIN_ST_NEW,		/* not yet seen by the engine */
	RWIN_ST_HELD,
	RWIN_ST_QUEUED,
	RWIN_ST_OUT,		/* handed to the caller in a command */
};

/* Why writes left the window. Counted per write in rwin_stats.released[]. */
enum rwin_reason {
	RWIN_REL_ATTACH,	/* attached to a data write of the same AU */
	RWIN_REL_COUNT,		/* window_reqs bound reached */
	RWIN_REL_BYTES,		/* window_bytes bound reached */
	RWIN_REL_DEADLINE,	/* a held write reached hold_ns */
	RWIN_REL_IDLE,		/* device idle for idle_ns */
	RWIN_REL_FLUSH,		/* flush request or REQ_PREFLUSH write */
	RWIN_REL_FUA,		/* FUA write arrived */
	RWIN_REL_SYNC,		/* sync write arrived */
	RWIN_REL_READ,		/* read overlapped a held write */
	RWIN_REL_OVERLAP,	/* newer write overlapped a held write */
	RWIN_REL_DRAIN,		/* suspend, removal, unload */
	RWIN_REL_WAITER,	/* somebody sleeps on it (waiter probe) */
	RWIN_REL_NR
};

/* Tunables. rwin_params_init() fills the defaults listed per field. */
struct rwin_params {
	u32 au_sectors;		/* AU size; default 8192 (4 MiB) */
	u32 small_sectors;	/* hold writes up to this; default 32 (16 KiB) */
	u32 window_reqs;	/* max held writes; default 128 */
	u64 window_bytes;	/* max held bytes; default 4 MiB */
	u64 hold_ns;		/* max hold time; default 5 s */
	u64 meta_hold_ns;	/* ... in an AU no data reached for hold_ns; 0 */
	u64 meta_idle_ns;	/* idle time that releases those; 0 */
	u64 sync_grace_ns;	/* hold nothing this long after a sync write; 0 */
	u64 idle_ns;		/* release when idle this long; default 20 ms */
	bool sync_release;	/* sync write releases all (or what it overlaps) */
};

/* One write: the caller fills the first block, the engine the rest. */
struct rwin_write {
	sector_t start;
	u32 sectors;
	u32 flags;		/* RWIN_F_* */
	u64 arrival_ns;		/* must not decrease from write to write */
	void *cookie;		/* caller's, never dereferenced */

	/* Engine private below. */
	struct rb_node node;	/* held tree, or queued interval tree */
	sector_t subtree_last;	/* interval tree augmentation */
	struct list_head link;	/* held FIFO, issue queue or command */
	struct list_head chain;	/* held writes of the same range, by age */
	u64 released_ns;	/* when it left the held state, if it was held */
	u32 batch;		/* release batch; 0 = passed straight through */
	u8 state;		/* enum rwin_state */
	u8 reason;		/* enum rwin_reason, if it was held */
	u8 long_hold;		/* held under meta_hold_ns */
	u8 sync_front;		/* queued ahead of the background writes */
	u8 sync_passed;		/* times passed by a lower write (sorting) */
};

/*
 * What rwin_pop() hands out: writes in ascending sector order, linked
 * through ->link on @writes, in at most RWIN_MAX_RUNS contiguous runs.
 */
struct rwin_cmd {
	struct list_head writes;
	u32 nr_writes;
	u32 nr_runs;		/* engine private, as is @end */
	sector_t end;
};

struct rwin_stats {
	u64 writes;		/* rwin_add_write() calls */
	u64 passed;		/* writes queued without being held */
	u64 holds;		/* writes held */
	u64 holds_backward;	/* ... of them because they went backward */
	u64 chained;		/* ... of them behind an older held rewrite */
	u64 holds_long;		/* ... of them under meta_hold_ns */
	u64 grace_passed;	/* holdable or not, passed in a sync grace */
	u64 meta;		/* writes flagged RWIN_F_META */
	u64 released[RWIN_REL_NR];	/* held writes released, per reason */
	u64 release_events[RWIN_REL_NR];	/* release decisions, per reason */
	u64 grown;		/* rwin_grow() and rwin_merge() calls */
	u64 grow_released;	/* ... that took a held write out */
	u64 commands;
	u64 reads;
	u64 flushes;
	u64 completed;		/* writes completed (rwin_fold()) */
	u64 max_hold_ns;	/* longest time a write stayed held */
	u32 max_held;		/* peak held count */
	u64 max_held_bytes;	/* peak held bytes */
};

struct rwin_au_pos {
	u64 au;
	sector_t wpos;		/* furthest sector sent to this AU */
	u64 used;		/* LRU stamp, 0 = free slot */
	u64 data_ns;		/* last data write queued here, 0 = none */
};

struct rwin_window {
	struct rwin_params p;
	struct rb_root held;		/* oldest held write per range */
	struct list_head held_fifo;	/* held writes by arrival */
	struct list_head held_fifo_long; /* ... held under meta_hold_ns */
	u32 held_count;
	u64 held_bytes;
	struct rb_root_cached queued;	/* queued writes, interval tree */
	struct list_head queue;		/* queued writes, issue order */
	u32 queued_count;
	u32 sync_front;			/* sync writes queued ahead */
	u32 inflight;			/* writes popped, completions folded */
	atomic_t out;			/* writes popped, not completed */
	atomic_t done;			/* completed, not yet folded */
	u32 batch_seq;
	u64 last_arrival_ns;
	u64 idle_since_ns;
	u64 au_stamp;
	u64 sync_grace_end_ns;
	/* Caller's: does anybody sleep on @wr? (rwin_set_waiter_probe()) */
	bool (*waited)(const struct rwin_write *wr);
	u64 probed_ns;			/* last time it was asked */
	sector_t probe_next;		/* where the next ask starts */
	struct rwin_au_pos au_pos[RWIN_TRACKED_AUS];
	struct rwin_stats stats;
};

void rwin_params_init(struct rwin_params *p);
int rwin_init(struct rwin_window *w, const struct rwin_params *p);

/* New parameters for a window that holds nothing (rwin_drain() first). */
int rwin_set_params(struct rwin_window *w, const struct rwin_params *p);

/*
 * Feed one write: true if it is held. What it releases (flush, FUA, sync,
 * overlap, bounds) is queued ahead of it.
 */
bool rwin_add_write(struct rwin_window *w, struct rwin_write *wr, u64 now);

/* A read (request or bio): the held writes under it go to the queue head. */
void rwin_read(struct rwin_window *w, sector_t start, u32 sectors, u64 now);

/* Does a queued write that arrived before @before overlap the range? */
bool rwin_overlaps_queued(struct rwin_window *w, sector_t start, u32 sectors,
			  u64 before);

/*
 * A write that joins a known request as a bio: the rules of its flags
 * (RWIN_F_*) apply. The caller still asks rwin_may_grow() first.
 */
void rwin_note_write(struct rwin_window *w, u32 flags, u64 now);

/* A step of a flush sequence goes out ahead of the queue: release all. */
void rwin_flush(struct rwin_window *w, u32 flags, u64 now);

/*
 * The caller's answer to "does anybody sleep on this held write?", asked
 * under the lock every RWIN_PROBE_NS (at most idle_ns) about at most
 * RWIN_PROBE_WRITES held writes; the AU group of a write it says yes to
 * is released (RWIN_REL_WAITER). NULL: never asked.
 */
void rwin_set_waiter_probe(struct rwin_window *w,
			   bool (*waited)(const struct rwin_write *wr));

/* Suspend, removal or unload: release every held write. */
void rwin_drain(struct rwin_window *w, u64 now);

/* Apply the deadline, idle and waiter rules. */
void rwin_expire(struct rwin_window *w, u64 now);

/* When rwin_expire() would next release something, or RWIN_NO_DEADLINE. */
u64 rwin_next_deadline(const struct rwin_window *w);

/* The next command into @cmd, false if nothing is queued. */
bool rwin_pop(struct rwin_window *w, struct rwin_cmd *cmd, u64 now);

/* @nr_writes of the writes handed out by rwin_pop() have completed. */
void rwin_complete(struct rwin_window *w, u32 nr_writes, u64 now);

/*
 * Completions without the caller's lock. rwin_complete_nolock() counts
 * one; only when it returns true must the caller take its lock, call
 * rwin_fold() and re-arm its timer from rwin_arm(). Under the lock the
 * caller calls rwin_fold() on entry and rwin_arm() last: a write held
 * meanwhile and a completion that saw nothing held cannot miss each other
 * (each orders its store before its load with a full barrier).
 */
bool rwin_complete_nolock(struct rwin_window *w);
void rwin_fold(struct rwin_window *w, u64 now);
u64 rwin_arm(struct rwin_window *w, u64 now);

/* Merges by the caller's block layer: ask first, then report. */

/* Held alone in its range, or queued: the only writes that may grow. */
static inline bool rwin_mergeable(const struct rwin_write *wr)
{
	if (wr->state == RWIN_ST_QUEUED)
		return wr->sectors != 0;
	return wr->state == RWIN_ST_HELD && wr->sectors &&
	       !RB_EMPTY_NODE(&wr->node) && list_empty(&wr->chain);
}

/* The one mergeable write starting (@end: ending) at @sector, or NULL. */
struct rwin_write *rwin_find(struct rwin_window *w, sector_t sector, bool end);

/* May @wr become [start, start + sectors)? Nothing else may be there. */
bool rwin_may_grow(struct rwin_window *w, const struct rwin_write *wr,
		   sector_t start, u32 sectors);

/* May @gone be merged into @into, the two then covering the range? */
bool rwin_may_merge(struct rwin_window *w, const struct rwin_write *into,
		    const struct rwin_write *gone, sector_t start,
		    u32 sectors);

/* @wr grew by a merge of something with @flags; held ones may leave. */
void rwin_grow(struct rwin_window *w, struct rwin_write *wr, sector_t start,
	       u32 sectors, u32 flags, u64 now);

/* @gone was merged into @into and leaves the engine (RWIN_ST_OUT). */
void rwin_merge(struct rwin_window *w, struct rwin_write *into,
		struct rwin_write *gone, sector_t start, u32 sectors,
		u32 flags, u64 now);

static inline bool rwin_has_queued(const struct rwin_window *w)
{
	return !list_empty(&w->queue);
}

static inline u32 rwin_held_count(const struct rwin_window *w)
{
	return w->held_count;
}

#endif /* _MMC_COALESCE_REORDER_WINDOW_H */
