// SPDX-License-Identifier: GPL-2.0
/*
 * The coalesce scheduler's statistics, one "name value" pair a line for
 * awk (/sys/kernel/debug/block/DISK/sched/stats), and its writes.
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/math64.h>
#include <linux/seq_file.h>

#include "elevator.h"
#include "blk-mq-debugfs.h"
#include "coalesce-iosched.h"

#include <trace/events/coalesce.h>

/* The release reasons' names: the tracepoints' { reason, name } list. */
static const struct trace_print_flags coalesce_reasons[RWIN_REL_NR] = {
	COALESCE_REASONS
};

/* Under the lock: one read is one snapshot; seq_file retries if short. */
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
		seq_printf(m, "released_%s %llu\n", coalesce_reasons[i].name,
			   st->released[i]);
	seq_printf(m, "sync_expired %llu\n", st->sync_expired);
	seq_printf(m, "grow_released %llu\nwindow_commands %llu\n"
		   "reads_in %llu\nflushes %llu\nmax_hold_us %llu\n"
		   "max_held %u\nmax_held_bytes %llu\n", st->grow_released,
		   st->commands, st->reads, st->flushes,
		   div_u64(st->max_hold_ns, 1000), st->max_held,
		   st->max_held_bytes);
	/* completions not yet folded in (coalesce_begin()) count too */
	seq_printf(m, "dispatched_writes %llu\ndispatched_reads %llu\n"
		   "write_reqs_done %llu\nrequeued %llu\nflush_steps %llu\n"
		   "freeze_drains %llu\npm_drains %llu\n"
		   "absorbed %lld\nabsorb_redirtied %lld\n",
		   cd->dispatched_writes, cd->dispatched_reads,
		   st->completed + atomic_read(&cd->win.done), cd->requeued,
		   cd->flush_steps, cd->freeze_drains, cd->pm_drains,
		   (s64)atomic64_read(&cd->absorbed),
		   (s64)atomic64_read(&cd->absorb_redirtied));
	spin_unlock_irq(&cd->lock);
	return 0;
}

/*
 * The writes the window has, one a line, as mq-deadline lists its FIFOs;
 * a stuck one is found by its scheduler tag (rq->internal_tag) in
 * sched_tags. held: by arrival, the writes under hold_ms first.
 */
static void coalesce_show_write(struct seq_file *m, struct coalesce_data *cd,
				const struct rwin_write *wr)
{
	seq_printf(m, "%llu+%u au=%llu tag=%d ", (unsigned long long)wr->start,
		   wr->sectors, div_u64(wr->start, cd->win.p.au_sectors),
		   ((const struct request *)wr->cookie)->internal_tag);
}

static int coalesce_held_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct coalesce_data *cd = q->elevator->elevator_data;
	struct list_head *fifo[] = { &cd->win.held_fifo,
				     &cd->win.held_fifo_long };
	u64 now = ktime_get_ns();
	struct rwin_write *wr;
	int i;

	spin_lock_irq(&cd->lock);
	for (i = 0; i < ARRAY_SIZE(fifo); i++)
		list_for_each_entry(wr, fifo[i], link) {
			coalesce_show_write(m, cd, wr);
			seq_printf(m, "age_ms=%llu hold=%s rewrite=%d\n",
				   div_u64(now - wr->arrival_ns, NSEC_PER_MSEC),
				   wr->long_hold ? "long" : "short",
				   RB_EMPTY_NODE(&wr->node));
		}
	spin_unlock_irq(&cd->lock);
	return 0;
}

static int coalesce_queued_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct coalesce_data *cd = q->elevator->elevator_data;
	struct rwin_write *wr;

	spin_lock_irq(&cd->lock);
	list_for_each_entry(wr, &cd->cmd.writes, link) {
		coalesce_show_write(m, cd, wr);
		seq_puts(m, "batch=popped\n");
	}
	list_for_each_entry(wr, &cd->win.queue, link) {
		coalesce_show_write(m, cd, wr);
		seq_printf(m, "batch=%u\n", wr->batch);
	}
	spin_unlock_irq(&cd->lock);
	return 0;
}

const struct blk_mq_debugfs_attr coalesce_queue_debugfs_attrs[] = {
	{ "stats", 0400, coalesce_stats_show },
	{ "held", 0400, coalesce_held_show },
	{ "queued", 0400, coalesce_queued_show },
	{ },
};
