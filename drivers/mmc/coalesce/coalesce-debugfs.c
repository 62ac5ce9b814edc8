// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics of the coalesce scheduler, one "name value" pair a line so
 * that scripts can read them with awk:
 *
 *   /sys/kernel/debug/block/DISK/sched/stats
 *
 * The window's counters and the mechanism's are copied under the lock,
 * so one read is one consistent snapshot.
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/math64.h>
#include <linux/seq_file.h>

#include "elevator.h"
#include "blk-mq-debugfs.h"
#include "coalesce-iosched.h"

static const char * const coalesce_reason_names[RWIN_REL_NR] = {
	[RWIN_REL_ATTACH] = "attach",
	[RWIN_REL_COUNT] = "count",
	[RWIN_REL_BYTES] = "bytes",
	[RWIN_REL_DEADLINE] = "deadline",
	[RWIN_REL_IDLE] = "idle",
	[RWIN_REL_FLUSH] = "flush",
	[RWIN_REL_FUA] = "fua",
	[RWIN_REL_SYNC] = "sync",
	[RWIN_REL_READ] = "read",
	[RWIN_REL_OVERLAP] = "overlap",
	[RWIN_REL_DRAIN] = "drain",
	[RWIN_REL_WAITER] = "waiter",
};

struct coalesce_snapshot {
	struct rwin_stats st;
	struct rwin_params p;
	u32 tun[COALESCE_T_NR];
	u32 held, held_cap, async_depth, au_sectors_queue;
	u64 held_bytes;
	u64 dispatched_writes, dispatched_reads, write_reqs_done;
	u64 requeued, flush_steps, freeze_drains, pm_drains;
};

static int coalesce_stats_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct coalesce_data *cd = q->elevator->elevator_data;
	struct coalesce_snapshot *s;
	int i;

	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	spin_lock_irq(&cd->lock);
	s->st = cd->win.stats;
	s->p = cd->win.p;
	memcpy(s->tun, cd->tun, sizeof(s->tun));
	s->held = cd->win.held_count;
	s->held_bytes = cd->win.held_bytes;
	s->held_cap = cd->held_cap;
	s->async_depth = cd->async_depth;
	s->au_sectors_queue = cd->au_sectors_queue;
	s->dispatched_writes = cd->dispatched_writes;
	s->dispatched_reads = cd->dispatched_reads;
	/* with the completions not yet folded in (coalesce_begin()) */
	s->write_reqs_done = cd->win.stats.completed +
			     atomic_read(&cd->win.done);
	s->requeued = cd->requeued;
	s->flush_steps = cd->flush_steps;
	s->freeze_drains = cd->freeze_drains;
	s->pm_drains = cd->pm_drains;
	spin_unlock_irq(&cd->lock);

	for (i = 0; i < COALESCE_T_NR; i++)
		seq_printf(m, "param_%s %u\n", coalesce_tunables[i].name,
			   s->tun[i]);
	seq_printf(m, "au_sectors %u\n", s->p.au_sectors);
	seq_printf(m, "au_sectors_queue %u\n", s->au_sectors_queue);
	seq_printf(m, "held_cap %u\n", s->held_cap);
	seq_printf(m, "async_depth %u\n", s->async_depth);
	seq_printf(m, "held_now %u\n", s->held);
	seq_printf(m, "held_bytes_now %llu\n", s->held_bytes);
	seq_printf(m, "writes_in %llu\n", s->st.writes);
	seq_printf(m, "passed %llu\n", s->st.passed);
	seq_printf(m, "held %llu\n", s->st.holds);
	seq_printf(m, "held_backward %llu\n", s->st.holds_backward);
	seq_printf(m, "meta %llu\n", s->st.meta);
	seq_printf(m, "chained %llu\n", s->st.chained);
	seq_printf(m, "held_long %llu\n", s->st.holds_long);
	seq_printf(m, "grace_passed %llu\n", s->st.grace_passed);
	for (i = 0; i < RWIN_REL_NR; i++)
		seq_printf(m, "released_%s %llu\n", coalesce_reason_names[i],
			   s->st.released[i]);
	for (i = 0; i < RWIN_REL_NR; i++)
		seq_printf(m, "release_events_%s %llu\n",
			   coalesce_reason_names[i], s->st.release_events[i]);
	seq_printf(m, "grown %llu\n", s->st.grown);
	seq_printf(m, "grow_released %llu\n", s->st.grow_released);
	seq_printf(m, "window_commands %llu\n", s->st.commands);
	seq_printf(m, "reads_in %llu\n", s->st.reads);
	seq_printf(m, "flushes %llu\n", s->st.flushes);
	seq_printf(m, "max_hold_us %llu\n", div_u64(s->st.max_hold_ns, 1000));
	seq_printf(m, "max_held %u\n", s->st.max_held);
	seq_printf(m, "max_held_bytes %llu\n", s->st.max_held_bytes);
	seq_printf(m, "dispatched_writes %llu\n", s->dispatched_writes);
	seq_printf(m, "dispatched_reads %llu\n", s->dispatched_reads);
	seq_printf(m, "write_reqs_done %llu\n", s->write_reqs_done);
	seq_printf(m, "requeued %llu\n", s->requeued);
	seq_printf(m, "flush_steps %llu\n", s->flush_steps);
	seq_printf(m, "freeze_drains %llu\n", s->freeze_drains);
	seq_printf(m, "pm_drains %llu\n", s->pm_drains);
	kfree(s);
	return 0;
}

/*
 * The writes the window has, one a line, as mq-deadline lists its FIFOs:
 *
 *   held:   "START+SECTORS au=N age_ms=T hold=short|long rewrite=0|1 tag=T"
 *           by arrival, the writes under hold_ms first;
 *   queued: "START+SECTORS au=N batch=B tag=T" in the order they will go.
 *
 * A write stuck in the window is found here, and its tag in the queue's
 * own debugfs files. Printed under the lock: the lists are bounded by the
 * scheduler tags.
 */
static int coalesce_write_tag(const struct rwin_write *wr)
{
	return ((const struct request *)wr->cookie)->internal_tag;
}

static void coalesce_show_held(struct seq_file *m, struct coalesce_data *cd,
			       struct list_head *fifo, const char *hold,
			       u64 now)
{
	struct rwin_write *wr;

	list_for_each_entry(wr, fifo, link) {
		seq_printf(m, "%llu+%u au=%llu age_ms=%llu hold=%s rewrite=%d tag=%d\n",
			   (unsigned long long)wr->start, wr->sectors,
			   div_u64(wr->start, cd->win.p.au_sectors),
			   div_u64(now - wr->arrival_ns, NSEC_PER_MSEC), hold,
			   RB_EMPTY_NODE(&wr->node), coalesce_write_tag(wr));
	}
}

static int coalesce_held_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct coalesce_data *cd = q->elevator->elevator_data;
	u64 now = ktime_get_ns();

	spin_lock_irq(&cd->lock);
	coalesce_show_held(m, cd, &cd->win.held_fifo, "short", now);
	coalesce_show_held(m, cd, &cd->win.held_fifo_long, "long", now);
	spin_unlock_irq(&cd->lock);
	return 0;
}

static int coalesce_queued_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct coalesce_data *cd = q->elevator->elevator_data;
	struct rwin_write *wr;

	spin_lock_irq(&cd->lock);
	list_for_each_entry(wr, &cd->cmd.writes, link)
		seq_printf(m, "%llu+%u au=%llu batch=popped tag=%d\n",
			   (unsigned long long)wr->start, wr->sectors,
			   div_u64(wr->start, cd->win.p.au_sectors),
			   coalesce_write_tag(wr));
	list_for_each_entry(wr, &cd->win.queue, link)
		seq_printf(m, "%llu+%u au=%llu batch=%u tag=%d\n",
			   (unsigned long long)wr->start, wr->sectors,
			   div_u64(wr->start, cd->win.p.au_sectors), wr->batch,
			   coalesce_write_tag(wr));
	spin_unlock_irq(&cd->lock);
	return 0;
}

const struct blk_mq_debugfs_attr coalesce_queue_debugfs_attrs[] = {
	{ "stats", 0400, coalesce_stats_show },
	{ "held", 0400, coalesce_held_show },
	{ "queued", 0400, coalesce_queued_show },
	{ },
};
