// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics of the coalesce scheduler, one "name value" pair a line so
 * that scripts can read them with awk (/sys/kernel/debug/block/DISK/sched/
 * stats), and the writes it has (held, queued).
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

/*
 * Printed under the lock, as mq-deadline prints its lists: one read is one
 * consistent snapshot, and seq_file retries with a larger buffer.
 */
static int coalesce_stats_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct coalesce_data *cd = q->elevator->elevator_data;
	const struct rwin_stats *st = &cd->win.stats;
	int i;

	spin_lock_irq(&cd->lock);
	for (i = 0; i < COALESCE_T_NR; i++)
		seq_printf(m, "param_%s %u\n", coalesce_tunables[i].name,
			   cd->tun[i]);
	seq_printf(m, "au_sectors %u\nau_sectors_queue %u\nheld_cap %u\n"
		   "async_depth %u\nheld_now %u\nheld_bytes_now %llu\n",
		   cd->win.p.au_sectors, cd->au_sectors_queue, cd->held_cap,
		   cd->async_depth, cd->win.held_count, cd->win.held_bytes);
	seq_printf(m, "writes_in %llu\npassed %llu\nheld %llu\n"
		   "held_backward %llu\nmeta %llu\nchained %llu\n"
		   "held_long %llu\ngrace_passed %llu\n", st->writes,
		   st->passed, st->holds, st->holds_backward, st->meta,
		   st->chained, st->holds_long, st->grace_passed);
	for (i = 0; i < RWIN_REL_NR; i++)
		seq_printf(m, "released_%s %llu\n", coalesce_reason_names[i],
			   st->released[i]);
	for (i = 0; i < RWIN_REL_NR; i++)
		seq_printf(m, "release_events_%s %llu\n",
			   coalesce_reason_names[i], st->release_events[i]);
	seq_printf(m, "grown %llu\ngrow_released %llu\nwindow_commands %llu\n"
		   "reads_in %llu\nflushes %llu\nmax_hold_us %llu\n"
		   "max_held %u\nmax_held_bytes %llu\n", st->grown,
		   st->grow_released, st->commands, st->reads, st->flushes,
		   div_u64(st->max_hold_ns, 1000), st->max_held,
		   st->max_held_bytes);
	/* completions not yet folded in (coalesce_begin()) count too */
	seq_printf(m, "dispatched_writes %llu\ndispatched_reads %llu\n"
		   "write_reqs_done %llu\nrequeued %llu\nflush_steps %llu\n"
		   "freeze_drains %llu\npm_drains %llu\n",
		   cd->dispatched_writes, cd->dispatched_reads,
		   st->completed + atomic_read(&cd->win.done), cd->requeued,
		   cd->flush_steps, cd->freeze_drains, cd->pm_drains);
	spin_unlock_irq(&cd->lock);
	return 0;
}

/*
 * The writes the window has, one a line, as mq-deadline lists its FIFOs:
 *
 *   held:   "START+SECTORS au=N age_ms=T hold=short|long rewrite=0|1 tag=T"
 *           by arrival, the writes under hold_ms first;
 *   queued: "START+SECTORS au=N batch=B tag=T" in the order they will go.
 *
 * A write stuck in the window is found here, and by its scheduler tag
 * (rq->internal_tag; rq->tag is -1 until dispatch) in sched_tags.
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
