// SPDX-License-Identifier: GPL-2.0
/*
 * Reorder window policy engine. Held writes: an rbtree of chain heads (the
 * oldest held write of each range) by start, newer writes of exactly that
 * range chained behind their head, and two arrival FIFOs (per hold time)
 * whose earlier head is the next deadline. Queued writes: the issue order,
 * scanned for overlaps (a few tens of writes, bounded by queue_writes and
 * window_reqs). A release takes the heads as one ascending batch, then the
 * new heads as the next: same-range writes leave in arrival order. Not
 * elv_rb_*() or the request hash: no struct request here, for host tests.
 *
 * Invariant: no held write overlaps a queued one, and two held writes are
 * disjoint or chained. So a held write may join any data write of its AU
 * without breaking the order of overlapping writes.
 */
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/string.h>

#include "reorder_window.h"

static inline sector_t rwin_end(const struct rwin_write *wr)
{
	return wr->start + wr->sectors;
}

/* Does @wr overlap [start, last]? Zero-length writes count as one sector. */
static inline bool rwin_in(const struct rwin_write *wr, sector_t start,
			   sector_t last)
{
	return wr->start <= last && start < wr->start + max(wr->sectors, 1U);
}

static inline u64 rwin_bytes(const struct rwin_write *wr)
{
	return (u64)wr->sectors << 9;
}

static inline u64 rwin_elapsed(u64 now, u64 then)
{
	return now > then ? now - then : 0;
}

static inline u64 rwin_add_sat(u64 a, u64 b)
{
	return a + b < a ? RWIN_NO_DEADLINE : a + b;
}

static inline u64 rwin_au(const struct rwin_window *w, sector_t sector)
{
	return div_u64(sector, w->p.au_sectors);
}

void rwin_params_init(struct rwin_params *p)
{
	*p = (struct rwin_params){
		.au_sectors = 8192, .small_sectors = 32, .window_reqs = 128,
		.window_bytes = 4 * 1024 * 1024,
		.hold_ns = 5000ULL * 1000 * 1000,
		.idle_ns = 20ULL * 1000 * 1000, .sync_release = true,
	};
}
EXPORT_SYMBOL_NS_GPL(rwin_params_init, COALESCE_IOSCHED);

int rwin_set_params(struct rwin_window *w, const struct rwin_params *p)
{
	if (!p->au_sectors || p->window_reqs > RWIN_MAX_WINDOW_REQS ||
	    w->held_count)
		return -EINVAL;
	/* AU numbers of another AU size mean nothing: forget them. */
	if (p->au_sectors != w->p.au_sectors)
		memset(w->au_pos, 0, sizeof(w->au_pos));
	/* A grace begun under the old sync_grace_ns does not outlive it. */
	w->sync_grace_end_ns = 0;
	w->p = *p;
	return 0;
}
EXPORT_SYMBOL_NS_GPL(rwin_set_params, COALESCE_IOSCHED);

int rwin_init(struct rwin_window *w, const struct rwin_params *p)
{
	*w = (struct rwin_window){ .held = RB_ROOT };
	INIT_LIST_HEAD(&w->held_fifo);
	INIT_LIST_HEAD(&w->held_fifo_long);
	INIT_LIST_HEAD(&w->queue);
	return rwin_set_params(w, p);
}
EXPORT_SYMBOL_NS_GPL(rwin_init, COALESCE_IOSCHED);

static struct rwin_au_pos *rwin_au_pos_find(struct rwin_window *w, u64 au)
{
	int i;

	for (i = 0; i < RWIN_TRACKED_AUS; i++)
		if (w->au_pos[i].used && w->au_pos[i].au == au)
			return &w->au_pos[i];
	return NULL;
}

/* 0 for an AU not seen: nothing is behind it. */
static sector_t rwin_au_wpos(struct rwin_window *w, sector_t sector)
{
	struct rwin_au_pos *pos = rwin_au_pos_find(w, rwin_au(w, sector));

	return pos ? pos->wpos : 0;
}

static struct rwin_au_pos *rwin_au_slot(struct rwin_window *w, sector_t sector)
{
	u64 au = rwin_au(w, sector);
	struct rwin_au_pos *pos = rwin_au_pos_find(w, au);
	int i;

	if (!pos) {
		/* Evict the least recently written AU, like the card does. */
		pos = &w->au_pos[0];
		for (i = 1; i < RWIN_TRACKED_AUS && pos->used; i++)
			if (w->au_pos[i].used < pos->used)
				pos = &w->au_pos[i];
		*pos = (struct rwin_au_pos){ .au = au };
	}
	pos->used = ++w->au_stamp;
	return pos;
}

/* Furthest sector sent to the AU: below it, a linear card rewrites the AU. */
static void rwin_au_pos_set(struct rwin_window *w, const struct rwin_write *wr)
{
	struct rwin_au_pos *pos;

	if (wr->flags & RWIN_F_NODATA)
		return;
	pos = rwin_au_slot(w, wr->start);
	pos->wpos = max(pos->wpos, rwin_end(wr));
}

/* No data write queued to the AU for hold_ns: hold under meta_hold_ns. */
static bool rwin_au_streamless(struct rwin_window *w, sector_t sector,
			       u64 now)
{
	const struct rwin_au_pos *pos;

	if (w->p.meta_hold_ns <= w->p.hold_ns)
		return false;
	pos = rwin_au_pos_find(w, rwin_au(w, sector));
	return !pos || !pos->data_ns ||
	       rwin_elapsed(now, pos->data_ns) >= w->p.hold_ns;
}

#define rwin_held_entry(n)	rb_entry_safe(n, struct rwin_write, node)

/* Leftmost chain head starting (@by_end: ending after) at/after @sector. */
static struct rwin_write *rwin_held_first(struct rwin_window *w,
					  sector_t sector, bool by_end)
{
	struct rb_node *node = w->held.rb_node;
	struct rwin_write *best = NULL;

	while (node) {
		struct rwin_write *wr = rb_entry(node, struct rwin_write, node);

		if (by_end ? rwin_end(wr) > sector : wr->start >= sector) {
			best = wr;
			node = node->rb_left;
		} else {
			node = node->rb_right;
		}
	}
	return best;
}

#define rwin_held_from(w, sector)		rwin_held_first(w, sector, false)
#define rwin_held_ending_after(w, sector)	rwin_held_first(w, sector, true)

static bool rwin_held_less(struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct rwin_write, node)->start <
	       rb_entry(b, struct rwin_write, node)->start;
}

/* Hold @wr: a chain head of its own, or behind @head, whose range it is. */
static void rwin_hold(struct rwin_window *w, struct rwin_write *wr,
		      struct rwin_write *head)
{
	if (head) {
		RB_CLEAR_NODE(&wr->node);
		list_add_tail(&wr->chain, &head->chain);
		w->stats.chained++;
	} else {
		rb_add(&wr->node, &w->held, rwin_held_less);
		INIT_LIST_HEAD(&wr->chain);
	}
	list_add_tail(&wr->link, wr->long_hold ? &w->held_fifo_long :
						 &w->held_fifo);
	wr->state = RWIN_ST_HELD;
	w->stats.holds_long += wr->long_hold;
	/* read without the lock (rwin_complete_nolock(), the scheduler) */
	WRITE_ONCE(w->held_count, w->held_count + 1);
	w->held_bytes += rwin_bytes(wr);
	w->stats.holds++;
	w->stats.max_held = max(w->stats.max_held, w->held_count);
	w->stats.max_held_bytes = max(w->stats.max_held_bytes, w->held_bytes);
}

static void rwin_held_remove(struct rwin_window *w, struct rwin_write *wr,
			     enum rwin_reason reason, u64 now)
{
	/* Only heads leave; the next of the chain takes the tree node. */
	if (!RB_EMPTY_NODE(&wr->node)) {
		if (list_empty(&wr->chain))
			rb_erase(&wr->node, &w->held);
		else
			rb_replace_node(&wr->node,
					&list_first_entry(&wr->chain,
							  struct rwin_write,
							  chain)->node,
					&w->held);
	}
	list_del_init(&wr->chain);
	list_del(&wr->link);
	WRITE_ONCE(w->held_count, w->held_count - 1);
	w->held_bytes -= rwin_bytes(wr);
	wr->released_ns = now;
	wr->reason = reason;
	w->stats.released[reason]++;
	w->stats.max_hold_ns = max(w->stats.max_hold_ns,
				   rwin_elapsed(now, wr->arrival_ns));
}

/* Queue @wr in front of @at (&w->queue: at the tail). */
static void rwin_queue_add(struct rwin_window *w, struct rwin_write *wr,
			   u32 batch, struct list_head *at)
{
	wr->state = RWIN_ST_QUEUED;
	wr->batch = batch;
	list_add_tail(&wr->link, at);
	rwin_au_pos_set(w, wr);
}

static void rwin_queue_del(struct rwin_window *w, struct rwin_write *wr)
{
	list_del(&wr->link);
	w->sync_front -= wr->sync_front;
	wr->sync_front = 0;
}

/* No sync write is passed more than this often, by a sync write or the sort. */
#define RWIN_SYNC_PASS_MAX	16

/*
 * Has the first background write in line (queued, not held) waited this
 * long since it was queued? Then sync writes stop passing it, as
 * mq-deadline's write_expire ends its sort: writers that never pause must
 * not stall writeback, and with it sync(2) and dirty throttling.
 */
static bool rwin_background_expired(const struct rwin_window *w, u64 now)
{
	const struct rwin_write *q;

	list_for_each_entry(q, &w->queue, link)
		if (!q->sync_front)
			return rwin_elapsed(now, q->released_ns ?: q->arrival_ns) >=
			       RWIN_WRITE_EXPIRE_NS;
	return false;
}

/*
 * A sync write that overlaps nothing queued goes ahead of every background
 * write, sorted by sector among the sync writes there (FAT's fsync writes
 * each FAT sector, then its mirror in another AU); behind them all once
 * the oldest of them expired.
 */
static void rwin_queue_add_sync(struct rwin_window *w, struct rwin_write *wr,
				u64 now)
{
	struct list_head *at = w->queue.next;
	struct rwin_write *q;
	u32 seen = 0;

	if (rwin_background_expired(w, now)) {
		w->stats.sync_expired++;
		rwin_queue_add(w, wr, 0, &w->queue);
		return;
	}
	if (w->sync_front) {
		at = &w->queue;
		list_for_each_entry(q, &w->queue, link)
			if (q->sync_front && ++seen == w->sync_front) {
				at = q->link.next;
				break;
			}
	}
	while (at->prev != &w->queue) {
		q = list_entry(at->prev, struct rwin_write, link);
		if (!q->sync_front || q->start <= wr->start ||
		    q->sync_passed >= RWIN_SYNC_PASS_MAX)
			break;
		at = at->prev;
	}
	for (q = list_entry(at, struct rwin_write, link);
	     &q->link != &w->queue && q->sync_front;
	     q = list_next_entry(q, link))
		q->sync_passed++;
	rwin_queue_add(w, wr, 0, at);
	wr->sync_front = 1;
	w->sync_front++;
}

bool rwin_overlaps_queued(struct rwin_window *w, sector_t start, u32 sectors,
			  u64 before)
{
	sector_t last = start + sectors - 1;
	struct rwin_write *q;

	if (!sectors)
		return false;
	list_for_each_entry(q, &w->queue, link)
		if (rwin_in(q, start, last) && q->arrival_ns < before)
			return true;
	return false;
}
EXPORT_SYMBOL_NS_GPL(rwin_overlaps_queued, COALESCE_IOSCHED);

/*
 * Held writes starting in [lo, hi) go in front of @at, one ascending batch
 * per generation: the next write of a chain goes in the next batch.
 */
static void rwin_release_range(struct rwin_window *w, sector_t lo,
			       sector_t hi, enum rwin_reason reason, u64 now,
			       struct list_head *at)
{
	struct rwin_write *wr, *next;

	while ((wr = rwin_held_from(w, lo)) && wr->start < hi) {
		/* Batch 0 means "passed through". */
		if (!++w->batch_seq)
			w->batch_seq = 1;
		for (; wr && wr->start < hi; wr = next) {
			next = rwin_held_entry(rb_next(&wr->node));
			rwin_held_remove(w, wr, reason, now);
			rwin_queue_add(w, wr, w->batch_seq, at);
		}
	}
}

static void rwin_release_all(struct rwin_window *w, enum rwin_reason reason,
			     u64 now)
{
	rwin_release_range(w, 0, (sector_t)~0ULL, reason, now, &w->queue);
}

static void rwin_release_au(struct rwin_window *w, sector_t sector,
			    enum rwin_reason reason, u64 now)
{
	sector_t lo = (sector_t)rwin_au(w, sector) * w->p.au_sectors;

	rwin_release_range(w, lo, lo + w->p.au_sectors, reason, now, &w->queue);
}

/* The held writes overlapping [start, end), chains too, before @at. */
static void rwin_release_overlap(struct rwin_window *w, sector_t start,
				 sector_t end, enum rwin_reason reason,
				 u64 now, struct list_head *at)
{
	struct rwin_write *first = rwin_held_ending_after(w, start);

	if (end > start && first && first->start < end)
		rwin_release_range(w, first->start, end, reason, now, at);
}

static bool rwin_device_idle(const struct rwin_window *w)
{
	return !w->inflight && list_empty(&w->queue);
}

/*
 * Idle is measured from the later of the last completion and the last
 * arrival: a write still trickling in means the submitter is still busy.
 */
static u64 rwin_idle_ref(const struct rwin_window *w)
{
	return max(w->idle_since_ns, w->last_arrival_ns);
}

static u64 rwin_deadline(const struct rwin_window *w,
			 const struct rwin_write *wr)
{
	return rwin_add_sat(wr->arrival_ns,
			    wr->long_hold ? w->p.meta_hold_ns : w->p.hold_ns);
}

static struct rwin_write *rwin_first_due(const struct rwin_window *w)
{
	struct rwin_write *a = NULL, *b = NULL;

	if (!list_empty(&w->held_fifo))
		a = list_first_entry(&w->held_fifo, struct rwin_write, link);
	if (!list_empty(&w->held_fifo_long))
		b = list_first_entry(&w->held_fifo_long, struct rwin_write,
				     link);
	if (!a || (b && rwin_deadline(w, b) < rwin_deadline(w, a)))
		return b;
	return a;
}

static u64 rwin_long_idle(const struct rwin_window *w)
{
	return max(w->p.meta_idle_ns, w->p.idle_ns);
}

/* Every RWIN_PROBE_NS (at most idle_ns), from the last ask or from idle. */
static u64 rwin_probe_due(const struct rwin_window *w)
{
	u64 every = w->p.idle_ns < RWIN_PROBE_NS ? w->p.idle_ns : RWIN_PROBE_NS;
	u64 from = w->probed_ns;

	if (rwin_device_idle(w) && rwin_idle_ref(w) > from)
		from = rwin_idle_ref(w);
	return rwin_add_sat(from, every ?: 1);
}

/*
 * Nobody sleeps on a held write longer than a short idle spell: a writer
 * that locks its buffers (FAT, ext2's fsync, jbd2) sends nothing to tell
 * us. The probe runs under the lock (from a soft hrtimer in the scheduler)
 * and walks each write's pages: each run asks about held writes of at most
 * RWIN_PROBE_SECTORS in all (one at least), resuming by sector where the
 * last one stopped.
 */
static void rwin_release_waited(struct rwin_window *w, u64 now)
{
	u32 budget = RWIN_PROBE_SECTORS;
	struct rwin_write *h, *c, *next;
	bool waited;

	if (!w->waited || !w->held_count || rwin_probe_due(w) > now)
		return;
	w->probed_ns = now;
	h = rwin_held_from(w, w->probe_next) ?: rwin_held_from(w, 0);
	for (; h && budget; h = next) {
		sector_t start = h->start;

		c = h;
		do {	/* the head, then its rewrites */
			waited = w->waited(c);
			budget -= min(budget, max(c->sectors, 1U));
			c = list_next_entry(c, chain);
		} while (budget && !waited && c != h);
		next = rwin_held_entry(rb_next(&h->node));
		if (waited) {
			rwin_release_au(w, start, RWIN_REL_WAITER, now);
			next = rwin_held_from(w, (rwin_au(w, start) + 1) *
						 w->p.au_sectors);
		}
		w->probe_next = next ? next->start : 0;
	}
}

void rwin_expire(struct rwin_window *w, u64 now)
{
	struct rwin_write *due;

	while ((due = rwin_first_due(w)) && rwin_deadline(w, due) <= now)
		rwin_release_au(w, due->start, RWIN_REL_DEADLINE, now);

	rwin_release_waited(w, now);
	if (!w->held_count || !rwin_device_idle(w) ||
	    rwin_add_sat(rwin_idle_ref(w), w->p.idle_ns) > now)
		return;
	if (rwin_add_sat(rwin_idle_ref(w), rwin_long_idle(w)) <= now)
		rwin_release_all(w, RWIN_REL_IDLE, now);
	/* A short pause: the AU groups held under hold_ns go, not the rest. */
	while ((due = list_first_entry_or_null(&w->held_fifo,
					       struct rwin_write, link)))
		rwin_release_au(w, due->start, RWIN_REL_IDLE, now);
}
EXPORT_SYMBOL_NS_GPL(rwin_expire, COALESCE_IOSCHED);

u64 rwin_next_deadline(const struct rwin_window *w)
{
	const struct rwin_write *due = rwin_first_due(w);
	u64 next, idle;

	if (!due)
		return RWIN_NO_DEADLINE;
	next = rwin_deadline(w, due);
	if (rwin_device_idle(w)) {
		idle = rwin_add_sat(rwin_idle_ref(w),
				    list_empty(&w->held_fifo) ?
				    rwin_long_idle(w) : w->p.idle_ns);
		if (w->waited)
			idle = min(idle, rwin_probe_due(w));
		next = min(next, idle);
	}
	return next;
}
EXPORT_SYMBOL_NS_GPL(rwin_next_deadline, COALESCE_IOSCHED);

/* An exact @rewrite of a held write may be held, whatever its size. */
static bool rwin_may_hold(struct rwin_window *w, struct rwin_write *wr,
			  bool rewrite, bool *backward)
{
	*backward = false;
	if (!wr->sectors || !w->p.window_reqs ||
	    rwin_bytes(wr) > w->p.window_bytes)
		return false;
	/* A newer write overlapping a queued one must stay behind it. */
	if (rwin_overlaps_queued(w, wr->start, wr->sectors, RWIN_NO_DEADLINE))
		return false;
	if (wr->sectors <= w->p.small_sectors || rewrite)
		return true;
	/* Behind its AU's write position: a jump back, whatever its size. */
	*backward = wr->sectors <= RWIN_BACKWARD_MAX &&
		    wr->start < rwin_au_wpos(w, wr->start);
	return *backward;
}

/* The group nearest its deadline goes: O(1), the least holding lost. */
static void rwin_make_room(struct rwin_window *w, const struct rwin_write *wr,
			   u64 now)
{
	while (w->held_count &&
	       (w->held_count + 1 > w->p.window_reqs ||
		w->held_bytes + rwin_bytes(wr) > w->p.window_bytes))
		rwin_release_au(w, rwin_first_due(w)->start,
				w->held_count + 1 > w->p.window_reqs ?
				RWIN_REL_COUNT : RWIN_REL_BYTES, now);
}

/*
 * Whoever waits for a sync or FUA write may wait for held ones too, and
 * for the next background write: no holding for sync_grace_ns. True if a
 * grace was running.
 */
static bool rwin_urgent_rules(struct rwin_window *w, u32 flags, u64 now)
{
	bool grace = now < w->sync_grace_end_ns;

	if (flags & RWIN_F_FUA)
		rwin_release_all(w, RWIN_REL_FUA, now);
	else if ((flags & RWIN_F_SYNC) && w->p.sync_release)
		rwin_release_all(w, RWIN_REL_SYNC, now);
	if (flags & RWIN_F_URGENT)
		w->sync_grace_end_ns = rwin_add_sat(now, w->p.sync_grace_ns);
	return grace;
}

void rwin_note_write(struct rwin_window *w, u32 flags, u64 now)
{
	rwin_expire(w, now);
	w->last_arrival_ns = max(w->last_arrival_ns, now);
	rwin_urgent_rules(w, flags, now);
}
EXPORT_SYMBOL_NS_GPL(rwin_note_write, COALESCE_IOSCHED);

bool rwin_add_write(struct rwin_window *w, struct rwin_write *wr, u64 now)
{
	u32 urgent = wr->flags & RWIN_F_URGENT;
	bool nohold = urgent || (wr->flags & (RWIN_F_NOHOLD | RWIN_F_NODATA));
	struct rwin_write *over = NULL;
	bool backward, grace;

	rwin_expire(w, now);
	w->last_arrival_ns = now;
	w->stats.writes++;
	if (wr->flags & RWIN_F_META)
		w->stats.meta++;
	wr->released_ns = 0;
	wr->sync_front = 0;
	wr->sync_passed = 0;

	grace = rwin_urgent_rules(w, wr->flags, now);
	w->stats.grace_passed += grace && !urgent;

	/* An exact rewrite may be held behind its chain; else older go first. */
	if (wr->sectors)
		over = rwin_held_ending_after(w, wr->start);
	if (over && over->start >= rwin_end(wr))
		over = NULL;
	if (over && (nohold || over->start != wr->start ||
		     over->sectors != wr->sectors)) {
		rwin_release_overlap(w, wr->start, rwin_end(wr),
				     RWIN_REL_OVERLAP, now, &w->queue);
		over = NULL;
	}

	if (!nohold && !grace && rwin_may_hold(w, wr, over, &backward)) {
		/* A rewrite keeps its chain's hold: each FIFO stays ordered. */
		wr->long_hold = over ? over->long_hold :
			rwin_au_streamless(w, wr->start, now);
		rwin_make_room(w, wr, now);
		/* Making room may have released the write it rewrites. */
		if (!over || over->state == RWIN_ST_HELD) {
			rwin_hold(w, wr, over);
			w->stats.holds_backward += backward;
			return true;
		}
	} else if (over) {
		rwin_release_overlap(w, wr->start, rwin_end(wr),
				     RWIN_REL_OVERLAP, now, &w->queue);
	}

	if (urgent &&
	    !rwin_overlaps_queued(w, wr->start, wr->sectors, RWIN_NO_DEADLINE))
		rwin_queue_add_sync(w, wr, now);
	else
		rwin_queue_add(w, wr, 0, &w->queue);
	/* A data stream is in this AU: what is held there goes with it. */
	if (wr->sectors > w->p.small_sectors && !(wr->flags & RWIN_F_NODATA))
		rwin_au_slot(w, wr->start)->data_ns = now ?: 1;
	w->stats.passed++;
	return false;
}
EXPORT_SYMBOL_NS_GPL(rwin_add_write, COALESCE_IOSCHED);

/* To the queue head: they overlap nothing queued, the read waits less. */
void rwin_read(struct rwin_window *w, sector_t start, u32 sectors, u64 now)
{
	rwin_expire(w, now);
	w->stats.reads++;
	if (sectors)
		rwin_release_overlap(w, start, start + sectors, RWIN_REL_READ,
				     now, w->queue.next);
}
EXPORT_SYMBOL_NS_GPL(rwin_read, COALESCE_IOSCHED);

/* A flush owes nothing to held writes, but its caller may wait on one. */
void rwin_flush(struct rwin_window *w, u32 flags, u64 now)
{
	w->stats.flushes++;
	rwin_release_all(w, RWIN_REL_FLUSH, now);
	rwin_note_write(w, flags, now);
}
EXPORT_SYMBOL_NS_GPL(rwin_flush, COALESCE_IOSCHED);

void rwin_drain(struct rwin_window *w, u64 now)
{
	rwin_release_all(w, RWIN_REL_DRAIN, now);
}
EXPORT_SYMBOL_NS_GPL(rwin_drain, COALESCE_IOSCHED);

static void rwin_cmd_append(struct rwin_cmd *cmd, struct rwin_write *wr)
{
	if (!cmd->nr_writes || cmd->end != wr->start)
		cmd->nr_runs++;
	cmd->end = rwin_end(wr);
	list_add_tail(&wr->link, &cmd->writes);
	cmd->nr_writes++;
	wr->state = RWIN_ST_OUT;
}

/*
 * A data write takes the held writes of its AU before it (one jump back,
 * one sweep up) and those contiguous after it. Those further ahead stay:
 * sent now, they would put the next data writes behind the AU's write
 * position. Walking down from the data keeps the nearest runs.
 */
static void rwin_pop_data(struct rwin_window *w, struct rwin_write *data,
			  struct rwin_cmd *cmd, u64 now)
{
	sector_t lo = rwin_au(w, data->start) * w->p.au_sectors;
	sector_t low = data->start;
	struct rwin_write *h, *prev, *next;
	bool chained = false;

	rwin_queue_del(w, data);
	rwin_cmd_append(cmd, data);

	h = rwin_held_from(w, data->start);
	prev = rwin_held_entry(h ? rb_prev(&h->node) : rb_last(&w->held));
	for (h = prev; h && h->start >= lo; h = prev) {
		prev = rwin_held_entry(rb_prev(&h->node));
		if (rwin_end(h) != low) {
			if (cmd->nr_runs >= RWIN_MAX_RUNS)
				break;
			cmd->nr_runs++;
		}
		low = h->start;
		chained |= !list_empty(&h->chain);
		rwin_held_remove(w, h, RWIN_REL_ATTACH, now);
		h->state = RWIN_ST_OUT;
		list_add(&h->link, &cmd->writes);
		cmd->nr_writes++;
	}

	for (h = rwin_held_from(w, cmd->end); h && h->start == cmd->end;
	     h = next) {
		next = rwin_held_entry(rb_next(&h->node));
		chained |= !list_empty(&h->chain);
		rwin_held_remove(w, h, RWIN_REL_ATTACH, now);
		rwin_cmd_append(cmd, h);
	}

	/* Rewrites of the attached writes go next. */
	if (chained)
		rwin_release_range(w, low, cmd->end, RWIN_REL_ATTACH, now,
				   w->queue.next);
	list_for_each_entry(h, &cmd->writes, link)
		rwin_au_pos_set(w, h);
}

/*
 * Two submitters interleave in the queue (mkfs's flusher and its fsync):
 * among the next few queued writes the lowest of the head's AU goes first,
 * as mq-deadline sorts them, unless one queued ahead of it overlaps it.
 */
#define RWIN_SORT_SPAN		8

static struct rwin_write *rwin_pick_data(struct rwin_window *w,
					 struct rwin_write *head)
{
	struct rwin_write *ahead[RWIN_SORT_SPAN], *q;
	u64 au = rwin_au(w, head->start);
	u32 n = 0, pick = 0, i;

	list_for_each_entry(q, &w->queue, link) {
		if (q->batch || n == RWIN_SORT_SPAN)
			break;
		ahead[n++] = q;
		if (!(q->flags & RWIN_F_NODATA) &&
		    q->start < ahead[pick]->start &&
		    rwin_au(w, q->start) == au) {
			for (i = 0; i < n - 1; i++)
				if (q->start < rwin_end(ahead[i]) &&
				    ahead[i]->start < rwin_end(q))
					break;
			if (i == n - 1)
				pick = n - 1;
		}
		if (q->sync_passed >= RWIN_SYNC_PASS_MAX)
			break;
	}
	for (i = 0; i < pick; i++)
		ahead[i]->sync_passed++;
	return ahead[pick];
}

static void rwin_cmd_init(struct rwin_cmd *cmd)
{
	INIT_LIST_HEAD(&cmd->writes);
	cmd->nr_writes = 0;
	cmd->nr_runs = 0;
}

static void rwin_cmd_out(struct rwin_window *w, struct rwin_cmd *cmd)
{
	w->inflight += cmd->nr_writes;
	atomic_add(cmd->nr_writes, &w->out);
	w->stats.commands++;
}

bool rwin_pop(struct rwin_window *w, struct rwin_cmd *cmd, u64 now)
{
	struct rwin_write *head, *next;
	u32 batch;

	rwin_cmd_init(cmd);
	rwin_expire(w, now);
	if (list_empty(&w->queue))
		return false;

	head = list_first_entry(&w->queue, struct rwin_write, link);
	if (!head->batch && !(head->flags & RWIN_F_NODATA)) {
		rwin_pop_data(w, rwin_pick_data(w, head), cmd, now);
	} else if (!head->batch) {
		/* Nothing held joins a discard: it goes alone. */
		rwin_queue_del(w, head);
		rwin_cmd_append(cmd, head);
	} else {
		/* Released together: ascending; as many runs as fit. */
		batch = head->batch;
		list_for_each_entry_safe(head, next, &w->queue, link) {
			if (head->batch != batch ||
			    (cmd->nr_writes && cmd->end != head->start &&
			     cmd->nr_runs >= RWIN_MAX_RUNS))
				break;
			rwin_queue_del(w, head);
			rwin_cmd_append(cmd, head);
		}
	}

	rwin_cmd_out(w, cmd);
	return true;
}
EXPORT_SYMBOL_NS_GPL(rwin_pop, COALESCE_IOSCHED);

/*
 * The queue's first write that arrived before @before, alone. Queue order
 * keeps overlapping writes in arrival order; what rwin_pop() would add
 * (a lower write sorted ahead, a sync write put in front, held writes
 * joining data) may be newer than @before. No rwin_expire(): what it
 * releases is newer.
 */
bool rwin_pop_older(struct rwin_window *w, struct rwin_cmd *cmd, u64 before)
{
	struct rwin_write *q;

	rwin_cmd_init(cmd);
	list_for_each_entry(q, &w->queue, link) {
		if (q->arrival_ns >= before)
			continue;
		rwin_queue_del(w, q);
		rwin_cmd_append(cmd, q);
		rwin_cmd_out(w, cmd);
		return true;
	}
	return false;
}
EXPORT_SYMBOL_NS_GPL(rwin_pop_older, COALESCE_IOSCHED);

void rwin_complete(struct rwin_window *w, u32 nr_writes, u64 now)
{
	w->inflight -= min(nr_writes, w->inflight);
	if (rwin_device_idle(w))
		w->idle_since_ns = now;
}
EXPORT_SYMBOL_NS_GPL(rwin_complete, COALESCE_IOSCHED);

bool rwin_complete_nolock(struct rwin_window *w)
{
	atomic_inc(&w->done);
	/* Fully ordered: pairs with the atomic_xchg() of rwin_arm(). */
	return atomic_dec_and_test(&w->out) && READ_ONCE(w->held_count);
}
EXPORT_SYMBOL_NS_GPL(rwin_complete_nolock, COALESCE_IOSCHED);

void rwin_fold(struct rwin_window *w, u64 now)
{
	u32 done = atomic_xchg(&w->done, 0);

	if (done) {
		w->stats.completed += done;
		rwin_complete(w, done, now);
	}
}
EXPORT_SYMBOL_NS_GPL(rwin_fold, COALESCE_IOSCHED);

/*
 * A completion may have seen nothing held (and taken no lock) just before
 * our caller held a write: fold it, or we would wait a hold time, not idle.
 */
u64 rwin_arm(struct rwin_window *w, u64 now)
{
	rwin_fold(w, now);
	return rwin_next_deadline(w);
}
EXPORT_SYMBOL_NS_GPL(rwin_arm, COALESCE_IOSCHED);

/* Does [start, end) overlap a write the engine knows, other than @wr? */
static bool rwin_range_taken(struct rwin_window *w, sector_t start,
			     sector_t end, const struct rwin_write *wr)
{
	struct rwin_write *h;

	for (h = rwin_held_ending_after(w, start); h && h->start < end;
	     h = rwin_held_entry(rb_next(&h->node)))
		if (h != wr)
			return true;
	list_for_each_entry(h, &w->queue, link)
		if (rwin_in(h, start, end - 1) && h != wr)
			return true;
	return false;
}

struct rwin_write *rwin_find(struct rwin_window *w, sector_t sector, bool end)
{
	sector_t s = sector - end;
	struct rwin_write *found = NULL, *h;

	if (end && !sector)
		return NULL;
	h = rwin_held_ending_after(w, s);
	if (h && (end ? rwin_end(h) : h->start) == sector)
		found = h;
	list_for_each_entry(h, &w->queue, link) {
		if (!rwin_in(h, s, s) || (end ? rwin_end(h) : h->start) != sector)
			continue;
		if (found)
			return NULL;	/* ambiguous: leave it alone */
		found = h;
	}
	return found && rwin_mergeable(found) ? found : NULL;
}
EXPORT_SYMBOL_NS_GPL(rwin_find, COALESCE_IOSCHED);

bool rwin_may_grow(struct rwin_window *w, const struct rwin_write *wr,
		   sector_t start, u32 sectors)
{
	return sectors && rwin_mergeable(wr) &&
	       !rwin_range_taken(w, start, start + sectors, wr);
}
EXPORT_SYMBOL_NS_GPL(rwin_may_grow, COALESCE_IOSCHED);

/* May a held write that grew to [start, +sectors) stay held? */
static bool rwin_still_holdable(struct rwin_window *w,
				const struct rwin_write *wr, sector_t start,
				u32 sectors, u32 flags)
{
	if (flags & (RWIN_F_URGENT | RWIN_F_NOHOLD))
		return false;
	if (w->held_bytes - rwin_bytes(wr) + ((u64)sectors << 9) >
	    w->p.window_bytes)
		return false;
	if (sectors <= w->p.small_sectors)
		return true;
	/* Behind or ahead of its AU's write position (ext2 indirect block). */
	return sectors <= RWIN_BACKWARD_MAX && start != rwin_au_wpos(w, start);
}

void rwin_grow(struct rwin_window *w, struct rwin_write *wr, sector_t start,
	       u32 sectors, u32 flags, u64 now)
{
	sector_t end = start + sectors, old_start = wr->start;
	sector_t old_end = rwin_end(wr);
	bool held = wr->state == RWIN_ST_HELD;
	struct list_head *at = held ? &w->queue : &wr->link;

	/* A merge is the submitter still writing: not idle. */
	w->last_arrival_ns = max(w->last_arrival_ns, now);
	/* rwin_may_grow() said yes under the same lock */
	if (held) {
		if (rwin_still_holdable(w, wr, start, sectors, flags)) {
			w->held_bytes += ((u64)sectors << 9) - rwin_bytes(wr);
			w->stats.max_held_bytes = max(w->stats.max_held_bytes,
						      w->held_bytes);
			wr->sectors = sectors;
			if (start != wr->start) {
				rb_erase(&wr->node, &w->held);
				wr->start = start;
				rb_add(&wr->node, &w->held, rwin_held_less);
			}
			return;
		}
		w->stats.grow_released++;
	}
	/* Older held writes under the new part go ahead of it. */
	if (wr->state != RWIN_ST_OUT) {
		rwin_release_overlap(w, start, old_start, RWIN_REL_OVERLAP, now,
				     at);
		rwin_release_overlap(w, old_end, end, RWIN_REL_OVERLAP, now, at);
	}
	if (held)
		rwin_release_overlap(w, old_start, old_end,
				     flags & RWIN_F_URGENT ? RWIN_REL_SYNC :
				     RWIN_REL_ATTACH, now, &w->queue);
	/* Out already, the caller's: only keep the numbers honest. */
	wr->start = start;
	wr->sectors = sectors;
	if (wr->state == RWIN_ST_QUEUED)
		rwin_au_pos_set(w, wr);
}
EXPORT_SYMBOL_NS_GPL(rwin_grow, COALESCE_IOSCHED);
