/* SPDX-License-Identifier: GPL-2.0 */
/* The coalesce I/O scheduler's own files share this; no other module. */
#ifndef _COALESCE_IOSCHED_H
#define _COALESCE_IOSCHED_H

#include <linux/blkdev.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/mempool.h>
#include <linux/spinlock.h>

#include "reorder_window.h"

#define COALESCE_NAME	"coalesce"

enum coalesce_tunable {
#define COALESCE_TUNABLE(name, def, min, max, help) COALESCE_T_##name,
#include "coalesce-tunables.h"
#undef COALESCE_TUNABLE
	COALESCE_T_NR
};

struct coalesce_tunable_desc {
	const char *name;
	u32 min, max;
	u32 def;		/* the module parameter: every disk's default */
};

extern struct coalesce_tunable_desc coalesce_tunables[COALESCE_T_NR];

/* Per-queue state; q->elevator->elevator_data. */
struct coalesce_data {
	struct request_queue *q;
	struct list_head node;		/* on coalesce_instances */

	spinlock_t lock;		/* irq-safe: completions */
	struct rwin_window win;
	struct rwin_cmd cmd;		/* popped, not yet dispatched */
	struct list_head front;		/* requeues and flush steps, first out */
	struct list_head reads;		/* reads, FIFO */
	u32 reads_in_a_row;
	bool ready;			/* has_work, read without the lock */
	u64 last_now;			/* coalesce_begin() */
	u32 merge_flags;		/* RWIN_F_* of the bio being merged */

	mempool_t *pool;		/* struct rwin_write per tracked write */
	struct hrtimer timer;		/* re-runs the queue at a deadline */
	u64 timer_at;

	/* Tunables of this disk; bit t of overridden: set by sysfs. */
	u32 tun[COALESCE_T_NR];
	unsigned long overridden;
	u32 au_sectors_queue;		/* from discard_granularity, or 0 */
	u32 held_cap;			/* window_reqs after the tag budget */
	u32 async_depth;		/* tags async writes may use */
	u32 tag_depth, tag_shift;	/* the scheduler tags' sbitmap */

	/* Counters of the mechanism (the engine keeps its own). */
	u64 dispatched_writes, dispatched_reads, requeued;
	u64 flush_steps;		/* flush-sequence steps at the head (6.5+) */
	u64 freeze_drains, pm_drains;
	/* buffers written with an update made while they waited; dirtied again */
	atomic64_t absorbed, absorb_redirtied;
};

/* coalesce-tunables.c */
extern struct mutex coalesce_mutex;
extern struct list_head coalesce_instances;
extern struct elv_fs_entry coalesce_attrs[];
void coalesce_apply_tunables(struct coalesce_data *cd);
void coalesce_params_to_engine(struct coalesce_data *cd, struct rwin_params *p);

/* coalesce-absorb.c: a write carries the updates made while it waited */
struct coalesce_absorbed;
struct coalesce_absorbed *coalesce_absorb(struct coalesce_data *cd,
					  struct request *rq);
unsigned int coalesce_absorbed_nr(const struct coalesce_absorbed *ab);
void coalesce_absorb_end(struct coalesce_data *cd,
			 struct coalesce_absorbed *ab, bool undo);
int coalesce_absorb_init(void);
void coalesce_absorb_exit(void);

/* coalesce-waiters.c: the window's waiter probe */
bool coalesce_write_waited(const struct rwin_write *wr);

#ifdef CONFIG_BLK_DEBUG_FS
#include "blk-mq-debugfs.h"

/* coalesce-debugfs.c */
extern const struct blk_mq_debugfs_attr coalesce_queue_debugfs_attrs[];
#endif

#endif /* _COALESCE_IOSCHED_H */
