/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reorder window: policy engine that holds small (and backward) writes for an
 * SD/MMC card and releases them grouped by allocation unit (AU), in ascending
 * sector order, next to the large data writes of the same AU.
 *
 * The engine is pure logic. It never sleeps, never allocates, never reads a
 * clock and never touches blk-mq or mmc: the caller passes the time (ns) into
 * every call, embeds a struct rwin_write in each of its requests and runs all
 * calls under one lock of its own (a spinlock is fine).
 *
 * Life of a write (see Documentation/reorder-window.md for the reasons):
 *
 *   rwin_add_write()  -> HELD   (small, or behind its AU's write position;
 *                               a rewrite of exactly the range of a held
 *                               write is held too, chained behind it)
 *                     -> QUEUED (everything else: passes in arrival order;
 *                               a sync write that overlaps nothing queued
 *                               goes ahead of the background writes,
 *                               among the sync writes there by sector)
 *   HELD   -> QUEUED  when a release rule fires (bound, deadline, idle, flush,
 *                     FUA, sync, overlapping read or write, a sleeper found
 *                     by the waiter probe, drain)
 *   HELD   -> command when a queued data write of the same AU is popped and
 *                     the held write sits before it (or right after it)
 *   QUEUED -> command by rwin_pop(), in queue order
 *
 * Writes to the same range leave in arrival order, in consecutive commands.
 * Every command is one ascending pass with disjoint extents; the caller must
 * send commands to the card in the order rwin_pop() returned them.
 *
 * Once rwin_pop() has placed a write in a command the engine forgets it; the
 * caller issues the command and calls rwin_complete() as its writes finish.
 *
 * Merges: a caller that lets a block layer merge requests (an I/O scheduler)
 * asks rwin_may_grow() / rwin_may_merge() first and reports what happened
 * with rwin_grow() / rwin_merge(). Only a held write alone in its range and
 * a queued write can grow; a held write that grows past what may be held
 * leaves the window (it joins the data it was merged with).
 *
 * Tag budget: a held write keeps its blk-mq tag. At most window_reqs writes
 * are ever held, so size the tag set as rwin_tags_needed(params, headroom) =
 * window_reqs + headroom, with headroom >= the queue depth you want for the
 * writes and reads that pass through (at least one, so a write that would
 * release the window can always arrive). Even if every tag ends up held, the
 * idle rule releases the window once the device has been idle for idle_ns.
 */
#ifndef _MMC_COALESCE_REORDER_WINDOW_H
#define _MMC_COALESCE_REORDER_WINDOW_H

#include <linux/bits.h>
#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/types.h>

/* Write flags, set by the caller from the request's cmd_flags. */
#define RWIN_F_SYNC		BIT(0)		/* REQ_SYNC: somebody waits */
#define RWIN_F_FUA		BIT(1)		/* REQ_FUA */
#define RWIN_F_PREFLUSH		BIT(2)		/* REQ_PREFLUSH */
#define RWIN_F_META		BIT(3)		/* REQ_META: counted only */
#define RWIN_F_NOHOLD		BIT(4)		/* never held (swap) */
/*
 * Discard, write zeroes, secure erase: never held, and no data stream; it
 * neither moves its AU's write position nor takes held writes along.
 */
#define RWIN_F_NODATA		BIT(5)

/* Largest number of extents the engine puts in one command. */
#define RWIN_MAX_EXTENTS	16

/* Hard cap on writes held at once (bounds the bookkeeping, not the tags). */
#define RWIN_MAX_WINDOW_REQS	4096

/* Number of AUs whose write position is remembered (LRU). */
#define RWIN_TRACKED_AUS	16

#define RWIN_NO_DEADLINE	((u64)~0ULL)

/* How often the waiter probe is asked (rwin_set_waiter_probe()). */
#define RWIN_PROBE_NS		(10ULL * 1000 * 1000)

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
	/*
	 * Max hold time of a write to an AU that no data write has reached for
	 * hold_ns (metadata-only AUs, indirect blocks written ahead of their
	 * data). Only used if longer than hold_ns; default 0 (off).
	 */
	u64 meta_hold_ns;
	/*
	 * The idle rule releases writes held under meta_hold_ns only after
	 * this long without activity (if longer than idle_ns); default 0.
	 */
	u64 meta_idle_ns;
	/*
	 * After a sync, FUA or flush write arrives, hold no write for this
	 * long (its submitter may wait on the next background write, and
	 * nothing else would tell). Default 0.
	 */
	u64 sync_grace_ns;
	u64 idle_ns;		/* release when idle this long; default 20 ms */
	u32 max_sectors;	/* max sectors per extent; default 1024 */
	u32 max_segs;		/* max segments per extent; default 128 */
	u32 max_extents;	/* max extents per command; default 16 */
	/*
	 * Hold a write of up to backward_max_sectors that starts behind the
	 * write position of its AU, whatever its size. Default on, 1024.
	 */
	bool hold_backward;
	u32 backward_max_sectors;
	/* Deadline release sweeps every held write, not just one AU. Off. */
	bool deadline_sweep;
	/* Release all held writes on a flush. Default on (safe, see doc). */
	bool flush_release;
	/*
	 * A sync write releases every held write (on), or only those it
	 * overlaps (off): whoever sent it and then sleeps on another held
	 * write is found by the waiter probe. Default on.
	 */
	bool sync_release;
	/*
	 * When a data write goes, also attach held writes further ahead in
	 * its AU (not just the ones before it or contiguous after it). Off.
	 */
	bool attach_ahead;
};

/*
 * One write, embedded by the caller in its per-request data. The caller
 * fills the first block before rwin_add_write() and must not touch the
 * rest. The engine only links it into its own trees and lists.
 */
struct rwin_write {
	sector_t start;
	u32 sectors;
	u32 flags;		/* RWIN_F_* */
	u32 nr_segs;		/* 0 is read as 1 */
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
	u8 sync_passed;		/* ... and passed by later ones, by sector */
};

/* One contiguous transfer: nr_writes writes from first, in list order. */
struct rwin_extent {
	sector_t start;
	u32 sectors;
	u32 nr_segs;
	u32 nr_writes;
	struct rwin_write *first;
};

/*
 * What rwin_pop() hands out: extents in ascending sector order; the writes
 * are linked through ->link on @writes in the same order.
 */
struct rwin_cmd {
	struct list_head writes;
	u32 nr_extents;
	u32 nr_writes;
	struct rwin_extent ext[RWIN_MAX_EXTENTS];
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
	u64 merges;		/* writes merged into a preceding write */
	u64 grown;		/* rwin_grow() and rwin_merge() calls */
	u64 grow_released;	/* ... that took a held write out */
	u64 commands;
	u64 extents;
	u64 reads;
	u64 read_waits;		/* reads told to wait for queued writes */
	u64 flushes;
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
	u32 inflight;			/* commands popped, not completed */
	u32 batch_seq;
	u64 last_arrival_ns;
	u64 idle_since_ns;
	u64 au_stamp;
	u64 sync_grace_end_ns;
	/* Caller's: does anybody sleep on @wr? (rwin_set_waiter_probe()) */
	bool (*waited)(const struct rwin_write *wr);
	u64 probed_ns;			/* last time it was asked */
	struct rwin_au_pos au_pos[RWIN_TRACKED_AUS];
	struct rwin_stats stats;
};

void rwin_params_init(struct rwin_params *p);
int rwin_init(struct rwin_window *w, const struct rwin_params *p);

/*
 * New parameters for a window that holds nothing (rwin_drain() first);
 * statistics stay. -EINVAL, and nothing changes, if @p is not valid.
 */
int rwin_set_params(struct rwin_window *w, const struct rwin_params *p);

/* Tags the caller's tag set needs: window_reqs + headroom. */
static inline u32 rwin_tags_needed(const struct rwin_params *p, u32 headroom)
{
	return p->window_reqs + headroom;
}

/*
 * Feed one write. Returns true if it is held, false if it was queued.
 * Releases triggered by it (flush, FUA, sync, overlap, bounds) are queued
 * ahead of it, so arrival order is kept where it matters; a sync write
 * that overlaps nothing queued then goes ahead of every background
 * write, those it released included (they carry no order against it),
 * and among the sync writes already there by sector (one passed 16
 * times is passed no more).
 */
bool rwin_add_write(struct rwin_window *w, struct rwin_write *wr, u64 now);

/*
 * A read reached the queue: as a request, or as a bio that may merge into
 * a queued read. Releases the held writes it overlaps to the head of the
 * queue; returns true if the read overlaps a queued write, in which case
 * the caller must issue commands from rwin_pop() until
 * rwin_overlaps_queued() is false before it issues the read.
 */
bool rwin_read(struct rwin_window *w, sector_t start, u32 sectors, u64 now);
bool rwin_overlaps_queued(struct rwin_window *w, sector_t start, u32 sectors);

/*
 * A write reaches the queue by a path that does not end in
 * rwin_add_write(): a bio about to be merged into a request the window
 * knows. Applies the rules its flags (RWIN_F_*) call for: a sync, FUA or
 * flush write releases every held write and opens the sync grace. The
 * caller still asks rwin_may_grow() before the merge.
 */
void rwin_note_write(struct rwin_window *w, u32 flags, u64 now);

/*
 * A step of a flush sequence goes out ahead of the queue: a flush
 * (@sectors 0) or the data write of one. Applies the flush rule and the
 * rules of @flags; the held writes under [start, start + sectors) go to
 * the head of the queue whatever flush_release says. Returns true if the
 * step overlaps a queued write, which the caller must issue first (as
 * for rwin_read()).
 */
bool rwin_flush(struct rwin_window *w, sector_t start, u32 sectors,
		u32 flags, u64 now);

/*
 * The caller's answer to "does anybody sleep on this held write?" (a
 * held write keeps its pages under writeback and its buffers locked). Asked
 * under the caller's lock every RWIN_PROBE_NS (at most idle_ns): while
 * the device is busy from the calls the caller makes anyway, while it is
 * quiet on the timer (rwin_next_deadline()); the AU group of a write it
 * says yes to is released (RWIN_REL_WAITER). NULL (the default): never
 * asked.
 */
void rwin_set_waiter_probe(struct rwin_window *w,
			   bool (*waited)(const struct rwin_write *wr));

/* Suspend, removal or unload: release every held write. */
void rwin_drain(struct rwin_window *w, u64 now);

/* Apply the deadline and idle rules. Call from the timer, or any time. */
void rwin_expire(struct rwin_window *w, u64 now);

/*
 * Earliest time at which rwin_expire() would release something, or
 * RWIN_NO_DEADLINE. Arm one timer for it after each call into the engine.
 */
u64 rwin_next_deadline(const struct rwin_window *w);

/*
 * Build the next command into @cmd. Returns false if nothing is queued.
 * The writes in @cmd now belong to the caller.
 */
bool rwin_pop(struct rwin_window *w, struct rwin_cmd *cmd, u64 now);

/* @nr_writes of the writes handed out by rwin_pop() have completed. */
void rwin_complete(struct rwin_window *w, u32 nr_writes, u64 now);

/* ---- merges done by the caller's block layer ---------------------------- */

/* Held alone in its range, or queued: the only writes that may grow. */
static inline bool rwin_mergeable(const struct rwin_write *wr)
{
	if (wr->state == RWIN_ST_QUEUED)
		return wr->sectors != 0;
	return wr->state == RWIN_ST_HELD && wr->sectors &&
	       !RB_EMPTY_NODE(&wr->node) && list_empty(&wr->chain);
}

/* The one mergeable write starting (ending) at @sector, or NULL. */
struct rwin_write *rwin_find_start(struct rwin_window *w, sector_t sector);
struct rwin_write *rwin_find_end(struct rwin_window *w, sector_t sector);

/*
 * May @wr become [start, start + sectors)? Only if it is mergeable and the
 * new range overlaps no other write the engine knows.
 */
bool rwin_may_grow(struct rwin_window *w, const struct rwin_write *wr,
		   sector_t start, u32 sectors);

/*
 * May @gone be merged into @into, the two then covering [start, start +
 * sectors)? (The caller's block layer checks that they touch.)
 */
bool rwin_may_merge(struct rwin_window *w, const struct rwin_write *into,
		    const struct rwin_write *gone, sector_t start,
		    u32 sectors);

/*
 * @wr now covers [start, start + sectors) because something with @flags
 * (RWIN_F_*) was merged into it. Works whatever rwin_may_grow() said: the
 * order of overlapping writes is repaired by releasing held ones.
 */
void rwin_grow(struct rwin_window *w, struct rwin_write *wr, sector_t start,
	       u32 sectors, u32 flags, u64 now);

/*
 * @gone was merged into @into, which now covers [start, start + sectors);
 * @gone leaves the engine (state RWIN_ST_OUT), like a write of a command.
 */
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
