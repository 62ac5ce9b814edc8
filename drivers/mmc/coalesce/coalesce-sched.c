// SPDX-License-Identifier: GPL-2.0
/*
 * coalesce: a blk-mq I/O scheduler for flash that keeps only a few
 * allocation units (AUs) open and wants the writes inside an AU in
 * ascending order (cheap SD cards, USB sticks). The policy is
 * reorder_window.c's; this is the mechanism around it
 * (Documentation/reorder-window.md, "The scheduler around it"). has_work
 * is false while only held writes remain; a soft hrtimer re-runs the
 * queue at the window's next deadline. A queue freeze and system suspend
 * release every held write.
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sbitmap.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/suspend.h>

#include "elevator.h"
#include "blk.h"
#include "blk-mq.h"
#include "blk-mq-sched.h"
#include "blk-wbt.h"
#include "coalesce-iosched.h"

#include <linux/mmc-coalesce-compat.h>

#include <trace/events/block.h>

#define CREATE_TRACE_POINTS
#include <trace/events/coalesce.h>

/* rq->elv.priv[1]: a write counted in flight; one at the head that waits */
#define COALESCE_IN_FLIGHT	((void *)1UL)
#define COALESCE_WAITS		((void *)2UL)
/* Reads go first, but at most this many in a row while writes wait. */
#define COALESCE_READS_PER_WRITE	8

/* Set between the PM "prepare" and "post" events: hold nothing then. */
static bool coalesce_pm_no_hold;

static struct rwin_write *rq_to_write(struct request *rq)
{
	return rq->elv.priv[0];
}

static u32 coalesce_flags(blk_opf_t opf)
{
	u32 flags = 0;

	if (opf & REQ_SYNC)
		flags |= RWIN_F_SYNC;
	if (opf & REQ_FUA)
		flags |= RWIN_F_FUA;
	if (opf & REQ_META)
		flags |= RWIN_F_META;
	/* Swap-out frees memory: never make it wait. */
	if (opf & REQ_SWAP)
		flags |= RWIN_F_NOHOLD;
	if ((opf & REQ_OP_MASK) != REQ_OP_WRITE)
		flags |= RWIN_F_NODATA;	/* discard, write zeroes, ... */
	return flags;
}

/* A freeze waits for every request we hold: let them go at once. */
static bool coalesce_freezing(struct coalesce_data *cd)
{
	return READ_ONCE(cd->q->mq_freeze_depth) > 0;
}

static bool coalesce_writes_waiting(struct coalesce_data *cd)
{
	return !list_empty(&cd->cmd.writes) || rwin_has_queued(&cd->win);
}

/* First under the lock (rwin_fold()); the time strictly increases. */
static u64 coalesce_begin(struct coalesce_data *cd)
{
	cd->last_now = max(ktime_get_ns(), cd->last_now + 1);
	rwin_fold(&cd->win, cd->last_now);
	return cd->last_now;
}

/* Last under the lock (rwin_arm()): any work? When must the timer fire? */
static void coalesce_update(struct coalesce_data *cd)
{
	u64 next = rwin_arm(&cd->win, ktime_get_ns());

	WRITE_ONCE(cd->ready, !list_empty(&cd->front) ||
		   !list_empty(&cd->reads) || coalesce_writes_waiting(cd));
	if (next == RWIN_NO_DEADLINE ||
	    (hrtimer_is_queued(&cd->timer) && cd->timer_at <= next))
		return;
	cd->timer_at = next;
	/* soft: the waiter probe it may run walks held requests' pages */
	hrtimer_start(&cd->timer, ns_to_ktime(next), HRTIMER_MODE_ABS_SOFT);
}

static enum hrtimer_restart coalesce_timer_fn(struct hrtimer *timer)
{
	struct coalesce_data *cd = container_of(timer, struct coalesce_data,
						timer);
	unsigned long flags;
	bool ready;

	spin_lock_irqsave(&cd->lock, flags);
	rwin_expire(&cd->win, coalesce_begin(cd));
	coalesce_update(cd);
	ready = cd->ready;
	spin_unlock_irqrestore(&cd->lock, flags);

	if (ready)
		blk_mq_run_hw_queues(cd->q, true);
	return HRTIMER_NORESTART;
}

static void coalesce_insert_read(struct coalesce_data *cd, struct request *rq,
				 u64 now, struct list_head *free)
{
	struct request_queue *q = cd->q;

	rwin_read(&cd->win, blk_rq_pos(rq), blk_rq_sectors(rq), now);
	if (blk_mq_sched_try_insert_merge(q, rq, free))
		return;
	if (rq_mergeable(rq)) {
		elv_rqhash_add(q, rq);
		if (!q->last_merge)
			q->last_merge = rq;
	}
	list_add_tail(&rq->queuelist, &cd->reads);
}

/* At the head, after the queued writes under it that came before it. */
static void coalesce_wait_at_head(struct request *rq, u64 now)
{
	rq->fifo_time = now;	/* unused while it is in an elevator */
	rq->elv.priv[1] = COALESCE_WAITS;
}

static void coalesce_insert_write(struct coalesce_data *cd,
				  struct request *rq, u64 now)
{
	struct rwin_write *wr = mempool_alloc(cd->pool, GFP_ATOMIC);

	/* The reserve failed to grow (depth_updated): go as a flush step. */
	if (unlikely(!wr)) {
		rwin_drain(&cd->win, now);
		coalesce_wait_at_head(rq, now);
		list_add_tail(&rq->queuelist, &cd->front);
		return;
	}
	*wr = (struct rwin_write){
		.start = blk_rq_pos(rq),
		.sectors = blk_rq_sectors(rq),
		.flags = coalesce_flags(rq->cmd_flags),
		.arrival_ns = now,
		.cookie = rq,
	};
	if (READ_ONCE(coalesce_pm_no_hold))
		wr->flags |= RWIN_F_NOHOLD;
	rq->elv.priv[0] = wr;

	if (rwin_add_write(&cd->win, wr, now))
		trace_coalesce_hold(rq, div_u64(wr->start,
						cd->win.p.au_sectors));
}

static void coalesce_insert_requests(struct blk_mq_hw_ctx *hctx,
				     struct list_head *list,
				     coalesce_insert_t flags)
{
	struct request_queue *q = hctx->queue;
	struct coalesce_data *cd = q->elevator->elevator_data;
	struct request *rq, *next;
	LIST_HEAD(free);
	u64 now;

	spin_lock_irq(&cd->lock);
	now = coalesce_begin(cd);
	list_for_each_entry_safe(rq, next, list, queuelist) {
		list_del_init(&rq->queuelist);
		trace_block_rq_insert(rq);
		if (!coalesce_insert_at_head(flags)) {
			if (req_op(rq) == REQ_OP_READ)
				coalesce_insert_read(cd, rq, now, &free);
			else
				coalesce_insert_write(cd, rq, now);
			continue;
		}
		/* A requeue, or (6.5+) the data step of a flush sequence. */
		if (rq->rq_flags & RQF_FLUSH_SEQ) {
			cd->flush_steps++;
			coalesce_wait_at_head(rq, now);
			rwin_flush(&cd->win, coalesce_flags(rq->cmd_flags), now);
		} else {
			cd->requeued++;
		}
		list_add(&rq->queuelist, &cd->front);
	}
	coalesce_update(cd);
	spin_unlock_irq(&cd->lock);

	list_for_each_entry_safe(rq, next, &free, queuelist) {
		list_del_init(&rq->queuelist);
		blk_mq_free_request(rq);
	}
}

/* A read waits for any write under it, a flush step for older ones. */
static bool coalesce_must_wait(struct coalesce_data *cd, struct request *rd)
{
	u64 before = rd->elv.priv[1] == COALESCE_WAITS ? rd->fifo_time :
							 RWIN_NO_DEADLINE;
	sector_t start = blk_rq_pos(rd), end = start + blk_rq_sectors(rd);
	struct rwin_write *wr;
	struct request *rq;

	if (rwin_overlaps_queued(&cd->win, start, blk_rq_sectors(rd), before))
		return true;
	list_for_each_entry(wr, &cd->cmd.writes, link) {
		rq = wr->cookie;
		if (wr->arrival_ns < before && blk_rq_pos(rq) < end &&
		    start < blk_rq_pos(rq) + blk_rq_sectors(rq))
			return true;
	}
	return false;
}

/* Does a flush step waiting at the front overlap [start, end)? */
static bool coalesce_step_overlaps(struct coalesce_data *cd, sector_t start,
				   sector_t end)
{
	struct request *rq;

	lockdep_assert_held(&cd->lock);
	list_for_each_entry(rq, &cd->front, queuelist)
		if (rq->elv.priv[1] == COALESCE_WAITS &&
		    blk_rq_pos(rq) < end && start < blk_rq_pos(rq) +
		    blk_rq_sectors(rq))
			return true;
	return false;
}

static void coalesce_unlink(struct coalesce_data *cd, struct request *rq)
{
	elv_rqhash_del(cd->q, rq);
	if (cd->q->last_merge == rq)
		cd->q->last_merge = NULL;
}

/* The next write; only one older than @before while a flush step waits. */
static struct request *coalesce_next_write(struct coalesce_data *cd, u64 now,
					   u64 before)
{
	struct rwin_write *wr;
	struct request *rq;

	if (list_empty(&cd->cmd.writes)) {
		if (before == RWIN_NO_DEADLINE ?
		    !rwin_pop(&cd->win, &cd->cmd, now) :
		    !rwin_pop_older(&cd->win, &cd->cmd, before))
			return NULL;
		/* The command is fixed now: nothing may merge into it. */
		list_for_each_entry(wr, &cd->cmd.writes, link)
			coalesce_unlink(cd, wr->cookie);
	}

	wr = list_first_entry(&cd->cmd.writes, struct rwin_write, link);
	list_del(&wr->link);
	rq = wr->cookie;
	/* The window is done with @wr: coalesce_dispatched() frees it. */
	rq->elv.priv[1] = COALESCE_IN_FLIGHT;
	cd->dispatched_writes++;
	return rq;
}

static struct request *coalesce_next(struct coalesce_data *cd, u64 now)
{
	u64 before = RWIN_NO_DEADLINE;
	struct request *rq;

	if (cd->win.held_count && coalesce_freezing(cd)) {
		rwin_drain(&cd->win, now);
		cd->freeze_drains++;
	}
	rwin_expire(&cd->win, now);

	rq = list_first_entry_or_null(&cd->front, struct request, queuelist);
	if (rq) {
		/*
		 * A flush step goes after the older writes it overlaps, and
		 * before every newer one: nothing newer may land under it
		 * first. Reads beside it need not wait.
		 */
		if (rq->elv.priv[1] != COALESCE_WAITS ||
		    !coalesce_must_wait(cd, rq)) {
			rq_fifo_clear(rq);
			return rq;
		}
		before = rq->fifo_time;
	}

	rq = list_first_entry_or_null(&cd->reads, struct request, queuelist);
	if (!coalesce_writes_waiting(cd)) {
		if (!rq) {
			cd->reads_in_a_row = 0;
			return NULL;
		}
	} else if (rq && cd->reads_in_a_row < COALESCE_READS_PER_WRITE &&
		   !coalesce_must_wait(cd, rq) &&
		   !coalesce_step_overlaps(cd, blk_rq_pos(rq),
					   blk_rq_pos(rq) + blk_rq_sectors(rq))) {
		cd->reads_in_a_row++;
	} else {
		cd->reads_in_a_row = 0;
		return coalesce_next_write(cd, now, before);
	}
	rq_fifo_clear(rq);
	coalesce_unlink(cd, rq);
	cd->dispatched_reads++;
	return rq;
}

/*
 * A write the window let go, outside the lock: the driver reads its pages
 * after this, so it may carry what was written into them meanwhile. While
 * in flight, priv[0] holds what it absorbed.
 */
static void coalesce_dispatched(struct coalesce_data *cd, struct request *rq,
				u64 now)
{
	struct rwin_write *wr = rq_to_write(rq);
	struct coalesce_absorbed *ab = coalesce_absorb(cd, rq);

	if (wr->released_ns)
		trace_coalesce_release(rq, wr->reason, now - wr->arrival_ns,
				       coalesce_absorbed_nr(ab));
	rq->elv.priv[0] = ab;
	mempool_free(wr, cd->pool);
}

static struct request *coalesce_dispatch_request(struct blk_mq_hw_ctx *hctx)
{
	struct coalesce_data *cd = hctx->queue->elevator->elevator_data;
	struct request *rq;
	u64 now;

	spin_lock_irq(&cd->lock);
	now = coalesce_begin(cd);
	rq = coalesce_next(cd, now);
	if (rq)
		rq->rq_flags |= RQF_STARTED;
	coalesce_update(cd);
	spin_unlock_irq(&cd->lock);

	if (rq && rq->elv.priv[1] == COALESCE_IN_FLIGHT)
		coalesce_dispatched(cd, rq, now);
	return rq;
}

static bool coalesce_has_work(struct blk_mq_hw_ctx *hctx)
{
	struct coalesce_data *cd = hctx->queue->elevator->elevator_data;

	return READ_ONCE(cd->ready) ||
	       (READ_ONCE(cd->win.held_count) && coalesce_freezing(cd));
}

static void coalesce_prepare_request(struct request *rq)
{
	rq->elv.priv[0] = NULL;
	rq->elv.priv[1] = NULL;
}

/*
 * A write left the card (its bios have ended), or was requeued. Lock-free
 * unless the device goes idle with writes held.
 */
static void coalesce_end_write(struct request *rq, bool requeued)
{
	struct coalesce_data *cd = rq->q->elevator->elevator_data;
	struct coalesce_absorbed *ab = rq->elv.priv[0];
	unsigned long flags;

	if (rq->elv.priv[1] != COALESCE_IN_FLIGHT) {
		/* A tracked write freed without going out would be a bug. */
		WARN_ON_ONCE(ab);
		return;
	}
	rq->elv.priv[0] = NULL;
	rq->elv.priv[1] = NULL;
	if (ab)
		coalesce_absorb_end(cd, ab, requeued);
	if (!rwin_complete_nolock(&cd->win))
		return;
	spin_lock_irqsave(&cd->lock, flags);
	coalesce_begin(cd);
	coalesce_update(cd);
	spin_unlock_irqrestore(&cd->lock, flags);
}

static void coalesce_finish_request(struct request *rq)
{
	coalesce_end_write(rq, false);
}

/* It reads its pages again when it goes out again, from the front. */
static void coalesce_requeue_request(struct request *rq)
{
	coalesce_end_write(rq, true);
}

/* Not the request hash or elv_rb_*(): they would offer chained rewrites. */
static int coalesce_request_merge(struct request_queue *q,
				  struct request **req, struct bio *bio)
{
	struct coalesce_data *cd = q->elevator->elevator_data;
	struct rwin_write *wr;
	int back;

	if (bio_op(bio) != REQ_OP_WRITE)
		return ELEVATOR_NO_MERGE;
	for (back = 0; back < 2; back++) {
		wr = rwin_find(&cd->win, back ? bio->bi_iter.bi_sector :
				bio_end_sector(bio), back);
		if (wr && elv_bio_merge_ok(wr->cookie, bio)) {
			*req = wr->cookie;
			return back ? ELEVATOR_BACK_MERGE :
				      ELEVATOR_FRONT_MERGE;
		}
	}
	return ELEVATOR_NO_MERGE;
}

static bool coalesce_allow_merge(struct request_queue *q, struct request *rq,
				 struct bio *bio)
{
	struct coalesce_data *cd = q->elevator->elevator_data;
	struct rwin_write *wr = rq_to_write(rq);
	sector_t start = blk_rq_pos(rq), end = start + blk_rq_sectors(rq);

	if (req_op(rq) == REQ_OP_READ)
		return true;
	/* Discards and friends, dispatched writes: no. */
	if (bio_op(bio) != REQ_OP_WRITE || !wr ||
	    rq->elv.priv[1] == COALESCE_IN_FLIGHT)
		return false;
	if (bio->bi_iter.bi_sector == end)
		end = bio_end_sector(bio);
	else if (bio_end_sector(bio) == start)
		start = bio->bi_iter.bi_sector;
	else
		return false;
	/* Under a waiting flush step, the bio would go out before it. */
	if (coalesce_step_overlaps(cd, bio->bi_iter.bi_sector,
				   bio_end_sector(bio)))
		return false;
	return rwin_may_grow(&cd->win, wr, start, end - start);
}

/* The window sees the bio first, as a request. */
static bool coalesce_bio_merge(struct request_queue *q, struct bio *bio,
			       unsigned int nr_segs)
{
	struct coalesce_data *cd = q->elevator->elevator_data;
	struct request *free = NULL;
	bool merged;
	u64 now;

	spin_lock_irq(&cd->lock);
	now = coalesce_begin(cd);
	cd->merge_flags = coalesce_flags(bio->bi_opf);
	if (bio_op(bio) == REQ_OP_READ)
		rwin_read(&cd->win, bio->bi_iter.bi_sector, bio_sectors(bio),
			  now);
	else
		rwin_note_write(&cd->win, cd->merge_flags, now);
	merged = blk_mq_sched_try_merge(q, bio, nr_segs, &free);
	coalesce_update(cd);
	spin_unlock_irq(&cd->lock);

	if (free)
		blk_mq_free_request(free);
	return merged;
}

static void coalesce_request_merged(struct request_queue *q,
				    struct request *rq, enum elv_merge type)
{
	struct coalesce_data *cd = q->elevator->elevator_data;
	struct rwin_write *wr = rq_to_write(rq);

	if (wr)
		rwin_grow(&cd->win, wr, blk_rq_pos(rq), blk_rq_sectors(rq),
			  cd->merge_flags, ktime_get_ns());
}

/*
 * Only reads merge request into request, at insert (elv_rqhash). Write
 * requests never do: without .next_request and .former_request the block
 * layer finds no neighbour to join after a bio merge, and a held write
 * and a queued one never become one command. Adjacent ones still leave
 * together, as consecutive requests of one release batch.
 */
static void coalesce_requests_merged(struct request_queue *q,
				     struct request *rq, struct request *next)
{
	rq_fifo_clear(next);
	coalesce_unlink(q->elevator->elevator_data, next);
}

/* Not q->nr_requests: a change calls depth_updated before storing it. */
static unsigned int coalesce_sched_depth(struct blk_mq_hw_ctx *hctx)
{
	return max(1U, hctx->sched_tags->bitmap_tags.sb.depth);
}

/*
 * shallow_depth counts per sbitmap word (6.1) or over the whole map (6.17,
 * 6.12.43): sbitmap is asked at load. Per word on a whole-map sbitmap would
 * leave async writes a quarter of their tags.
 */
static bool coalesce_shallow_per_word = true;

static int __init coalesce_probe_shallow(void)
{
	struct sbitmap_queue sbq;
	int got = 0;

	/* Two words of 32 bits, a shallow depth of one word's worth. */
	if (sbitmap_queue_init_node(&sbq, 64, 5, false, GFP_KERNEL,
				    NUMA_NO_NODE))
		return -ENOMEM;
	sbitmap_queue_min_shallow_depth(&sbq, 1);
	while (got < 64 && sbitmap_queue_get_shallow(&sbq, 32) >= 0)
		got++;
	sbitmap_queue_free(&sbq);
	/* per word: 32 from each word; whole map: 32 in all */
	coalesce_shallow_per_word = got > 32;
	return 0;
}

/*
 * Held writes keep their tags. Beside them at most queue_writes background
 * writes may be queued or on the card: whoever waits for one waits for all
 * in front of it. wbt would do this, but it counts held writes: it is off.
 */
static void coalesce_limit_depth(blk_opf_t opf, struct blk_mq_alloc_data *data)
{
	struct coalesce_data *cd = data->q->elevator->elevator_data;
	unsigned int depth = READ_ONCE(cd->async_depth);
	unsigned int queued = READ_ONCE(cd->tun[COALESCE_T_queue_writes]);
	u32 small = READ_ONCE(cd->tun[COALESCE_T_small_kb]) * 2;
	unsigned int nr = max(1U, READ_ONCE(cd->tag_depth));
	struct blk_plug *plug = current->plug;
	struct request *rq;

	if (op_is_sync(opf))
		return;
	/*
	 * Small writes in the plug have tags and will likely be held: counted
	 * as queued, they could leave the rest of the plug no tag while they
	 * sit held.
	 */
	if (queued && plug)
		rq_list_for_each(&plug->mq_list, rq)
			if (rq->q == data->q && op_is_write(req_op(rq)) &&
			    blk_rq_sectors(rq) <= small)
				queued++;
	if (queued)
		depth = min(depth, READ_ONCE(cd->win.held_count) + queued);
	/* @depth tags, as the shallow depth this sbitmap counts */
	data->shallow_depth = coalesce_shallow_per_word ?
		max(1U, ((depth << READ_ONCE(cd->tag_shift)) + nr - 1) / nr) :
		clamp(depth, 1U, nr);
}

static void coalesce_depth_updated(struct blk_mq_hw_ctx *hctx)
{
	struct coalesce_data *cd = hctx->queue->elevator->elevator_data;
	int want = coalesce_sched_depth(hctx) * cd->q->nr_hw_queues;

	/* One struct rwin_write per tag; the queue is frozen, we may sleep. */
	if (want != cd->pool->min_nr && mempool_resize(cd->pool, want))
		pr_warn_ratelimited(COALESCE_NAME ": reserve of %d writes kept, %d refused (no memory)\n",
				    cd->pool->min_nr, want);
	WRITE_ONCE(cd->async_depth, max(1U, coalesce_sched_depth(hctx) * 3 / 4));
	/* limit_depth's: data->hctx is not set there on every kernel */
	WRITE_ONCE(cd->tag_depth, coalesce_sched_depth(hctx));
	WRITE_ONCE(cd->tag_shift, hctx->sched_tags->bitmap_tags.sb.shift);
	sbitmap_queue_min_shallow_depth(&hctx->sched_tags->bitmap_tags, 1);
	coalesce_apply_tunables(cd);
}

static int coalesce_init_hctx(struct blk_mq_hw_ctx *hctx, unsigned int idx)
{
	coalesce_depth_updated(hctx);
	return 0;
}

static int coalesce_init_sched(struct request_queue *q, struct elevator_type *e)
{
	u32 gran = q->limits.discard_granularity;
	struct elevator_queue *eq;
	struct coalesce_data *cd;
	struct rwin_params p;
	int ret = -ENOMEM, t;

	/* 6.1 refuses a zoned disk before this; from 6.10 it ends on none. */
	if (blk_queue_is_zoned(q)) {
		pr_warn(COALESCE_NAME ": %s is a zoned device; writes to a zone must not be held or reordered: use mq-deadline or none\n",
			q->disk ? q->disk->disk_name : "queue");
		return -EINVAL;
	}

	eq = elevator_alloc(q, e);
	if (!eq)
		return ret;
	cd = kzalloc_node(sizeof(*cd), GFP_KERNEL, q->node);
	if (!cd)
		goto put_eq;
	cd->pool = mempool_create_kmalloc_pool(q->nr_requests,
					       sizeof(struct rwin_write));
	if (!cd->pool)
		goto free_cd;

	cd->q = q;
	spin_lock_init(&cd->lock);
	INIT_LIST_HEAD(&cd->cmd.writes);
	INIT_LIST_HEAD(&cd->front);
	INIT_LIST_HEAD(&cd->reads);
	hrtimer_init(&cd->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	cd->timer.function = coalesce_timer_fn;
	/* mmc_block: the card's AU (12 and 24 MiB too); 512: unknown */
	if (gran >= 16 * 1024 && IS_ALIGNED(gran, SZ_4K))
		cd->au_sectors_queue = gran >> SECTOR_SHIFT;
	cd->async_depth = max(1UL, q->nr_requests * 3 / 4);

	mutex_lock(&coalesce_mutex);
	for (t = 0; t < COALESCE_T_NR; t++)
		cd->tun[t] = coalesce_tunables[t].def;
	coalesce_params_to_engine(cd, &p);
	ret = rwin_init(&cd->win, &p);
	if (!ret) {
		cd->win.waited = coalesce_write_waited;
		list_add(&cd->node, &coalesce_instances);
	}
	mutex_unlock(&coalesce_mutex);
	if (ret)
		goto free_pool;

	eq->elevator_data = cd;
	/* One window per queue: dispatch queue-wide, not per hctx. */
	blk_queue_flag_set(QUEUE_FLAG_SQ_SCHED, q);
	q->elevator = eq;
	/* wbt would count held writes and starve the data that frees them */
	coalesce_wbt_disable(q, eq);
	return 0;

free_pool:
	mempool_destroy(cd->pool);
free_cd:
	kfree(cd);
put_eq:
	kobject_put(&eq->kobj);
	return ret;
}

static void coalesce_exit_sched(struct elevator_queue *e)
{
	struct coalesce_data *cd = e->elevator_data;

	/* Unlinked first: the suspend notifier could re-arm the timer. */
	mutex_lock(&coalesce_mutex);
	list_del(&cd->node);
	mutex_unlock(&coalesce_mutex);
	hrtimer_cancel(&cd->timer);

	WARN_ON_ONCE(cd->win.held_count || rwin_has_queued(&cd->win));
	WARN_ON_ONCE(!list_empty(&cd->cmd.writes) ||
		     !list_empty(&cd->reads) || !list_empty(&cd->front));

	coalesce_wbt_enable(cd->q, e);
	mempool_destroy(cd->pool);
	kfree(cd);
}

static struct elevator_type coalesce_sched = {
	.ops = {
		.init_sched		= coalesce_init_sched,
		.exit_sched		= coalesce_exit_sched,
		.init_hctx		= coalesce_init_hctx,
		.depth_updated		= coalesce_depth_updated,
		.limit_depth		= coalesce_limit_depth,
		.allow_merge		= coalesce_allow_merge,
		.bio_merge		= coalesce_bio_merge,
		.request_merge		= coalesce_request_merge,
		.request_merged		= coalesce_request_merged,
		.requests_merged	= coalesce_requests_merged,
		.prepare_request	= coalesce_prepare_request,
		.finish_request		= coalesce_finish_request,
		.requeue_request	= coalesce_requeue_request,
		.insert_requests	= coalesce_insert_requests,
		.dispatch_request	= coalesce_dispatch_request,
		.has_work		= coalesce_has_work,
	},
#ifdef CONFIG_BLK_DEBUG_FS
	.queue_debugfs_attrs = coalesce_queue_debugfs_attrs,
#endif
	.elevator_attrs = coalesce_attrs,
	.elevator_name = COALESCE_NAME,
	.elevator_owner = THIS_MODULE,
};
MODULE_ALIAS("coalesce-iosched");

/* Suspend: release what is held, hold nothing until the system is back. */
static int coalesce_pm_notify(struct notifier_block *nb, unsigned long event,
			      void *unused)
{
	struct coalesce_data *cd;

	switch (event) {
	case PM_SUSPEND_PREPARE:
	case PM_HIBERNATION_PREPARE:
	case PM_RESTORE_PREPARE:
		WRITE_ONCE(coalesce_pm_no_hold, true);
		mutex_lock(&coalesce_mutex);
		list_for_each_entry(cd, &coalesce_instances, node) {
			spin_lock_irq(&cd->lock);
			if (cd->win.held_count) {
				rwin_drain(&cd->win, coalesce_begin(cd));
				cd->pm_drains++;
			}
			coalesce_update(cd);
			spin_unlock_irq(&cd->lock);
			blk_mq_run_hw_queues(cd->q, true);
		}
		mutex_unlock(&coalesce_mutex);
		break;
	case PM_POST_SUSPEND:
	case PM_POST_HIBERNATION:
	case PM_POST_RESTORE:
		WRITE_ONCE(coalesce_pm_no_hold, false);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block coalesce_pm_nb = {
	.notifier_call = coalesce_pm_notify,
};

static int __init coalesce_init(void)
{
	int ret;

	ret = coalesce_probe_shallow();
	if (ret)
		return ret;
	pr_info("coalesce: sbitmap counts shallow depth %s\n",
		coalesce_shallow_per_word ? "per word" : "over the whole map");
	ret = coalesce_absorb_init();
	if (ret)
		return ret;
	ret = register_pm_notifier(&coalesce_pm_nb);
	if (ret)
		goto absorb_exit;
	ret = elv_register(&coalesce_sched);
	if (ret)
		goto pm_unregister;
	return 0;

pm_unregister:
	unregister_pm_notifier(&coalesce_pm_nb);
absorb_exit:
	coalesce_absorb_exit();
	return ret;
}

static void __exit coalesce_exit(void)
{
	elv_unregister(&coalesce_sched);
	unregister_pm_notifier(&coalesce_pm_nb);
	/* after the last request: runs what a failed write left to dirty */
	coalesce_absorb_exit();
}

module_init(coalesce_init);
module_exit(coalesce_exit);

MODULE_AUTHOR("mmc-coalesce developers");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("AU-aware write coalescing I/O scheduler for flash cards");
