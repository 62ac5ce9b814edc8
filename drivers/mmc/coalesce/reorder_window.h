/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reorder window: policy engine that holds small (and backward) writes for an
 * SD/MMC card and releases them grouped by allocation unit (AU), in ascending
 * sector order, next to the large data writes of the same AU
 * (Documentation/reorder-window.md). Pure logic: the caller passes the time
 * (ns) into every call, embeds a struct rwin_write in each of its writes,
 * makes every call but rwin_complete_nolock() under one lock of its own,
 * and sends the writes in the order rwin_pop() gave them (same-range writes
 * leave in arrival order, in consecutive commands).
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

#define RWIN_MAX_RUNS		16	/* runs of contiguous writes a command */
#define RWIN_BACKWARD_MAX	1024	/* longest backward write held */
#define RWIN_MAX_WINDOW_REQS	4096	/* bounds the bookkeeping, not tags */
#define RWIN_TRACKED_AUS	16	/* AU write positions remembered */
#define RWIN_NO_DEADLINE	((u64)~0ULL)
/* A background write queued this long is passed by no more sync writes. */
#define RWIN_WRITE_EXPIRE_NS	(5000ULL * 1000 * 1000)
/* How often the waiter probe is asked, and about how many sectors. */
#define RWIN_PROBE_NS		(10ULL * 1000 * 1000)
#define RWIN_PROBE_SECTORS	128

/* rwin_write.state; 0 until the engine has seen it. */
enum rwin_state {
	RWIN_ST_HELD = 1,
	RWIN_ST_QUEUED,
	RWIN_ST_OUT,		/* handed to the caller in a command */
};

/* Why held writes left, counted in rwin_stats.released[]. */
enum rwin_reason {
	RWIN_REL_ATTACH,	/* attached to a data write of the same AU */
	RWIN_REL_COUNT,		/* window_reqs bound */
	RWIN_REL_BYTES,		/* window_bytes bound */
	RWIN_REL_DEADLINE,	/* hold time reached */
	RWIN_REL_IDLE,		/* device idle */
	RWIN_REL_FLUSH,
	RWIN_REL_FUA,
	RWIN_REL_SYNC,
	RWIN_REL_READ,		/* read overlapped it */
	RWIN_REL_OVERLAP,	/* newer write overlapped it */
	RWIN_REL_DRAIN,		/* suspend, removal, unload */
	RWIN_REL_WAITER,	/* somebody sleeps on it (waiter probe) */
	RWIN_REL_NR
};

/* Tunables; defaults from rwin_params_init(). */
struct rwin_params {
	u32 au_sectors;		/* 8192 (4 MiB) */
	u32 small_sectors;	/* hold writes up to this; 32 */
	u32 window_reqs;	/* most held writes; 128 */
	u64 window_bytes;	/* most held bytes; 4 MiB */
	u64 hold_ns;		/* 5 s */
	u64 meta_hold_ns;	/* in an AU no data reached for hold_ns; 0 */
	u64 meta_idle_ns;	/* idle time that releases those; 0 */
	u64 sync_grace_ns;	/* hold nothing this long after a sync write */
	u64 idle_ns;		/* 20 ms */
	bool sync_release;	/* sync write releases all (or what it overlaps) */
};

/* One write: the caller fills the first block, the engine the rest. */
struct rwin_write {
	sector_t start;
	u32 sectors;
	u32 flags;		/* RWIN_F_* */
	u64 arrival_ns;		/* must not decrease from write to write */
	void *cookie;		/* caller's, never dereferenced */

	struct rb_node node;	/* held tree */
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

/* rwin_pop()'s writes, ascending on @writes, in <= RWIN_MAX_RUNS runs. */
struct rwin_cmd {
	struct list_head writes;
	u32 nr_writes;
	u32 nr_runs;
	sector_t end;
};

struct rwin_stats {
	u64 writes, passed, holds, grace_passed, meta;
	u64 holds_backward, chained, holds_long; /* kinds of holds */
	u64 released[RWIN_REL_NR];	/* writes */
	u64 grow_released;	/* merges that took a held write out */
	u64 sync_expired;	/* sync writes queued behind an expired one */
	u64 commands, reads, flushes, completed;
	u64 max_hold_ns, max_held_bytes;
	u32 max_held;
};

struct rwin_au_pos {
	u64 au;
	sector_t wpos;		/* furthest sector sent to this AU */
	u64 used;		/* LRU stamp, 0 = free slot */
	u64 data_ns;		/* last data write queued here, 0 = none */
};

struct rwin_window {
	struct rwin_params p;
	struct rb_root held;		/* chain heads by start */
	struct list_head held_fifo;	/* held writes by arrival */
	struct list_head held_fifo_long; /* ... held under meta_hold_ns */
	u32 held_count;
	u64 held_bytes;
	struct list_head queue;		/* queued writes, issue order */
	u32 sync_front;			/* sync writes queued ahead */
	u32 inflight;			/* popped, completions folded */
	atomic_t out;			/* popped, not completed */
	atomic_t done;			/* completed, not yet folded */
	u32 batch_seq;
	u64 last_arrival_ns, idle_since_ns, au_stamp, sync_grace_end_ns;
	/* Set after rwin_init(): does anybody sleep on this held write? */
	bool (*waited)(const struct rwin_write *wr);	/* NULL: never asked */
	u64 probed_ns;
	sector_t probe_next;		/* where the next probe starts */
	struct rwin_au_pos au_pos[RWIN_TRACKED_AUS];
	struct rwin_stats stats;
};

void rwin_params_init(struct rwin_params *p);
int rwin_init(struct rwin_window *w, const struct rwin_params *p);
/* Only while nothing is held (rwin_drain() first). */
int rwin_set_params(struct rwin_window *w, const struct rwin_params *p);
/* True if held; what it releases is queued ahead of it. */
bool rwin_add_write(struct rwin_window *w, struct rwin_write *wr, u64 now);
void rwin_read(struct rwin_window *w, sector_t start, u32 sectors, u64 now);
/* Does a queued write that arrived before @before overlap the range? */
bool rwin_overlaps_queued(struct rwin_window *w, sector_t start, u32 sectors,
			  u64 before);
/* A bio joining a known request: the rules of its flags apply. */
void rwin_note_write(struct rwin_window *w, u32 flags, u64 now);
void rwin_flush(struct rwin_window *w, u32 flags, u64 now);
void rwin_drain(struct rwin_window *w, u64 now);
/* The deadline, idle and waiter rules; when they would next release. */
void rwin_expire(struct rwin_window *w, u64 now);
u64 rwin_next_deadline(const struct rwin_window *w);
bool rwin_pop(struct rwin_window *w, struct rwin_cmd *cmd, u64 now);
/* While a flush step waits: a queued write older than it, alone. */
bool rwin_pop_older(struct rwin_window *w, struct rwin_cmd *cmd, u64 before);
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

/* Merges by the caller's block layer: ask first, then report. Only held
 * writes alone in their range, and queued ones, may grow.
 */
static inline bool rwin_mergeable(const struct rwin_write *wr)
{
	if (wr->state == RWIN_ST_QUEUED)
		return wr->sectors != 0;
	return wr->state == RWIN_ST_HELD && wr->sectors &&
	       !RB_EMPTY_NODE(&wr->node) && list_empty(&wr->chain);
}

/* The one mergeable write starting (@end: ending) at @sector, or NULL. */
struct rwin_write *rwin_find(struct rwin_window *w, sector_t sector, bool end);
/* May @wr take in a bio and become [start, +sectors)? */
bool rwin_may_grow(struct rwin_window *w, const struct rwin_write *wr,
		   sector_t start, u32 sectors);
/* @wr took in a bio with @flags; a held one may leave. */
void rwin_grow(struct rwin_window *w, struct rwin_write *wr, sector_t start,
	       u32 sectors, u32 flags, u64 now);

static inline bool rwin_has_queued(const struct rwin_window *w)
{
	return !list_empty(&w->queue);
}

#endif /* _MMC_COALESCE_REORDER_WINDOW_H */
