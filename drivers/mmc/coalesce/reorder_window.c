// SPDX-License-Identifier: GPL-2.0
/*
 * Reorder window policy engine for SD/MMC cards that only write linearly
 * inside a few open allocation units (AUs). n held, q queued writes:
 *  - held: rbtree by start of the oldest held write of each range (chain
 *    head). Heads never overlap, so one AU's held writes are one run of
 *    the tree, found by one lookup. O(log n).
 *  - chain: newer held writes of exactly the head's range, by arrival
 *    (ext2 rewrites bitmaps and inode tables every writeback cycle). A
 *    release takes the heads as one ascending batch, then the new heads as
 *    the next, so writes to one range leave in arrival order.
 *  - held_fifo, held_fifo_long: held writes by arrival, per hold time; the
 *    earlier head of the two is the next deadline. O(1).
 *  - queued: interval tree of queued writes (they may overlap). O(log q).
 *  - queue: issue order; a released batch is already ascending.
 *  - au_pos: the write position of the last few AUs written (LRU).
 * The request hash and elv_rb_*() cannot serve: they index requests by one
 * end, not held ranges with chains, and the engine is tested on the host.
 *
 * Invariant: no held write overlaps a queued one, and two held writes are
 * disjoint or cover the same range (chained). So a held write may join any
 * data write of its AU without breaking the order of overlapping writes.
 */
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/interval_tree_generic.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/string.h>

#include "reorder_window.h"

#define RWIN_ALL_SECTORS	((sector_t)~0ULL)

static inline sector_t rwin_end(const struct rwin_write *wr)
{
	return wr->start + wr->sectors;
}

/* Zero-length writes count as one sector long for overlaps. */
static inline sector_t rwin_last(const struct rwin_write *wr)
{
	return wr->start + (wr->sectors ? wr->sectors : 1) - 1;
}

static inline sector_t rwin_first(const struct rwin_write *wr)
{
	return wr->start;
}

INTERVAL_TREE_DEFINE(struct rwin_write, node, sector_t, subtree_last,
		     rwin_first, rwin_last, static inline __maybe_unused,
		     rwin_qtree)

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
	p->au_sectors = 8192;
	p->small_sectors = 32;
	p->window_reqs = 128;
	p->window_bytes = 4 * 1024 * 1024;
	p->hold_ns = 5000ULL * 1000 * 1000;
	p->meta_hold_ns = 0;
	p->meta_idle_ns = 0;
	p->sync_grace_ns = 0;
	p->idle_ns = 20ULL * 1000 * 1000;
	p->sync_release = true;
}
EXPORT_SYMBOL_NS_GPL(rwin_params_init, COALESCE_IOSCHED);

static bool rwin_params_valid(const struct rwin_params *p)
{
	return p->au_sectors && p->window_reqs <= RWIN_MAX_WINDOW_REQS;
}

int rwin_set_params(struct rwin_window *w, const struct rwin_params *p)
{
	if (!rwin_params_valid(p) || w->held_count)
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
	if (!rwin_params_valid(p))
		return -EINVAL;

	*w = (struct rwin_window){ };
	w->p = *p;
	w->held = RB_ROOT;
	INIT_LIST_HEAD(&w->held_fifo);
	INIT_LIST_HEAD(&w->held_fifo_long);
	w->queued = RB_ROOT_CACHED;
	INIT_LIST_HEAD(&w->queue);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(rwin_init, COALESCE_IOSCHED);

/* ---- AU write positions ------------------------------------------------ */

static struct rwin_au_pos *rwin_au_pos_find(struct rwin_window *w, u64 au)
{
	int i;

	for (i = 0; i < RWIN_TRACKED_AUS; i++)
		if (w->au_pos[i].used && w->au_pos[i].au == au)
			return &w->au_pos[i];
	return NULL;
}

/* 0 means "unknown": nothing counts as behind an AU we have not seen. */
static sector_t rwin_au_wpos(struct rwin_window *w, u64 au)
{
	struct rwin_au_pos *pos = rwin_au_pos_find(w, au);

	return pos ? pos->wpos : 0;
}

/* The slot of @au, taken from the least recently used AU if need be. */
static struct rwin_au_pos *rwin_au_slot(struct rwin_window *w, u64 au)
{
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

static void rwin_au_pos_set(struct rwin_window *w, const struct rwin_write *wr)
{
	struct rwin_au_pos *pos;

	/* A discard writes nothing: the card's write position stays. */
	if (wr->flags & RWIN_F_NODATA)
		return;
	pos = rwin_au_slot(w, rwin_au(w, wr->start));

	/*
	 * The furthest sector sent to the AU so far: on a linear-only card,
	 * anything below it means rewriting the AU, not only a seek back.
	 */
	if (pos->wpos < rwin_end(wr))
		pos->wpos = rwin_end(wr);
}

/*
 * No data write queued to @au for hold_ns: its held writes may wait
 * meta_hold_ns (a metadata block redirtied meanwhile is not sent again;
 * an indirect block written ahead of its data waits for the stream).
 */
static bool rwin_au_streamless(struct rwin_window *w, u64 au, u64 now)
{
	const struct rwin_au_pos *pos;

	if (w->p.meta_hold_ns <= w->p.hold_ns)
		return false;
	pos = rwin_au_pos_find(w, au);
	return !pos || !pos->data_ns ||
	       rwin_elapsed(now, pos->data_ns) >= w->p.hold_ns;
}

/* ---- held tree ---------------------------------------------------------- */

static struct rwin_write *rwin_held_entry(struct rb_node *node)
{
	return node ? rb_entry(node, struct rwin_write, node) : NULL;
}

/*
 * Leftmost chain head starting (@by_end: ending after) at or after @sector.
 * Heads are disjoint: by end, it is the first that may overlap a range
 * starting at @sector.
 */
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

static void rwin_held_account(struct rwin_window *w, struct rwin_write *wr)
{
	list_add_tail(&wr->link, wr->long_hold ? &w->held_fifo_long :
						 &w->held_fifo);
	wr->state = RWIN_ST_HELD;
	if (wr->long_hold)
		w->stats.holds_long++;

	w->held_count++;
	w->held_bytes += rwin_bytes(wr);
	w->stats.holds++;
	if (w->held_count > w->stats.max_held)
		w->stats.max_held = w->held_count;
	if (w->held_bytes > w->stats.max_held_bytes)
		w->stats.max_held_bytes = w->held_bytes;
}

/* Put @wr in the held tree by its start; it overlaps no other head. */
static void rwin_held_link(struct rwin_window *w, struct rwin_write *wr)
{
	struct rb_node **link = &w->held.rb_node, *parent = NULL;

	while (*link) {
		struct rwin_write *cur = rb_entry(*link, struct rwin_write, node);

		parent = *link;
		if (wr->start < cur->start)
			link = &parent->rb_left;
		else
			link = &parent->rb_right;
	}
	rb_link_node(&wr->node, parent, link);
	rb_insert_color(&wr->node, &w->held);
}

/* @wr overlaps no held write: it starts a chain of its own. */
static void rwin_held_insert(struct rwin_window *w, struct rwin_write *wr)
{
	rwin_held_link(w, wr);
	INIT_LIST_HEAD(&wr->chain);
	rwin_held_account(w, wr);
}

/* @wr covers exactly the range of the held chain head @head: queue behind. */
static void rwin_held_chain(struct rwin_window *w, struct rwin_write *head,
			    struct rwin_write *wr)
{
	RB_CLEAR_NODE(&wr->node);
	list_add_tail(&wr->chain, &head->chain);
	rwin_held_account(w, wr);
	w->stats.chained++;
}

static void rwin_held_remove(struct rwin_window *w, struct rwin_write *wr,
			     enum rwin_reason reason, u64 now)
{
	u64 held_for = rwin_elapsed(now, wr->arrival_ns);

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
	w->held_count--;
	w->held_bytes -= rwin_bytes(wr);

	wr->released_ns = now;
	wr->reason = reason;
	w->stats.released[reason]++;
	if (held_for > w->stats.max_hold_ns)
		w->stats.max_hold_ns = held_for;
}

/* ---- issue queue -------------------------------------------------------- */

/* Queue @wr in front of @at (&w->queue: at the tail). */
static void rwin_queue_add_at(struct rwin_window *w, struct rwin_write *wr,
			      u32 batch, struct list_head *at)
{
	wr->state = RWIN_ST_QUEUED;
	wr->batch = batch;
	rwin_qtree_insert(wr, &w->queued);
	list_add_tail(&wr->link, at);
	w->queued_count++;
	rwin_au_pos_set(w, wr);
}

static void rwin_queue_add(struct rwin_window *w, struct rwin_write *wr,
			   u32 batch)
{
	rwin_queue_add_at(w, wr, batch, &w->queue);
}

static void rwin_queue_del(struct rwin_window *w, struct rwin_write *wr)
{
	rwin_qtree_remove(wr, &w->queued);
	list_del(&wr->link);
	w->queued_count--;
	if (wr->sync_front) {
		wr->sync_front = 0;
		w->sync_front--;
	}
}

/*
 * A sync write that overlaps nothing queued goes behind the sync writes
 * put ahead and in front of every background write (as kyber gives sync
 * writes their own domain). The queue is bounded by the tags.
 */
static struct list_head *rwin_sync_slot(struct rwin_window *w)
{
	struct rwin_write *q;
	u32 seen = 0;

	if (!w->sync_front)
		return w->queue.next;
	list_for_each_entry(q, &w->queue, link)
		if (q->sync_front && ++seen == w->sync_front)
			return q->link.next;
	return &w->queue;
}

/*
 * Sync writes put ahead overlap nothing queued: sorted by sector (FAT's
 * fsync writes each FAT sector, then its mirror in another AU). One passed
 * RWIN_SYNC_PASS_MAX times is passed no more, so none starves.
 */
#define RWIN_SYNC_PASS_MAX	16

static void rwin_queue_add_sync(struct rwin_window *w, struct rwin_write *wr)
{
	struct list_head *at = rwin_sync_slot(w);
	struct rwin_write *q;

	while (at->prev != &w->queue) {
		q = list_entry(at->prev, struct rwin_write, link);
		if (!q->sync_front || q->start <= wr->start ||
		    q->sync_passed >= RWIN_SYNC_PASS_MAX)
			break;
		at = at->prev;
	}
	/* Everything from @at to the slot is passed once more. */
	for (q = list_entry(at, struct rwin_write, link);
	     &q->link != &w->queue && q->sync_front;
	     q = list_next_entry(q, link))
		q->sync_passed++;
	rwin_queue_add_at(w, wr, 0, at);
	wr->sync_front = 1;
	wr->sync_passed = 0;
	w->sync_front++;
}

bool rwin_overlaps_queued(struct rwin_window *w, sector_t start, u32 sectors,
			  u64 before)
{
	sector_t last = start + sectors - 1;
	struct rwin_write *q;

	if (!sectors || !w->queued_count)
		return false;
	for (q = rwin_qtree_iter_first(&w->queued, start, last); q;
	     q = rwin_qtree_iter_next(q, start, last))
		if (q->arrival_ns < before)
			return true;
	return false;
}
EXPORT_SYMBOL_NS_GPL(rwin_overlaps_queued, COALESCE_IOSCHED);

/* ---- releases ----------------------------------------------------------- */

/*
 * Queue every chain head starting in [lo, hi) as one ascending batch in
 * front of @at. The next write of a chain takes the place of its head
 * behind this walk: it goes in the next batch.
 */
static u32 rwin_release_pass(struct rwin_window *w, sector_t lo, sector_t hi,
			     enum rwin_reason reason, u64 now,
			     struct list_head *at)
{
	struct rwin_write *wr = rwin_held_from(w, lo), *next;
	u32 batch, n = 0;

	if (!wr || wr->start >= hi)
		return 0;

	/* Batch 0 means "passed through": skip it when the counter wraps. */
	if (!++w->batch_seq)
		w->batch_seq = 1;
	batch = w->batch_seq;

	for (; wr && wr->start < hi; wr = next) {
		next = rwin_held_entry(rb_next(&wr->node));
		rwin_held_remove(w, wr, reason, now);
		rwin_queue_add_at(w, wr, batch, at);
		n++;
	}
	return n;
}

/* Every held write starting in [lo, hi): one batch per generation. */
static u32 rwin_release_range_at(struct rwin_window *w, sector_t lo,
				 sector_t hi, enum rwin_reason reason, u64 now,
				 struct list_head *at)
{
	u32 n = 0, k;

	while ((k = rwin_release_pass(w, lo, hi, reason, now, at)))
		n += k;
	return n;
}

static u32 rwin_release_range(struct rwin_window *w, sector_t lo, sector_t hi,
			      enum rwin_reason reason, u64 now)
{
	u32 n = rwin_release_range_at(w, lo, hi, reason, now, &w->queue);

	if (n)
		w->stats.release_events[reason]++;
	return n;
}

static u32 rwin_release_all(struct rwin_window *w, enum rwin_reason reason,
			    u64 now)
{
	if (!w->held_count)
		return 0;
	return rwin_release_range(w, 0, RWIN_ALL_SECTORS, reason, now);
}

static u32 rwin_release_au(struct rwin_window *w, u64 au,
			   enum rwin_reason reason, u64 now)
{
	sector_t lo = (sector_t)au * w->p.au_sectors;

	return rwin_release_range(w, lo, lo + w->p.au_sectors, reason, now);
}

/* Only the held writes overlapping [start, end), chains too, before @at. */
static u32 rwin_release_overlap_at(struct rwin_window *w, sector_t start,
				   sector_t end, enum rwin_reason reason,
				   u64 now, struct list_head *at)
{
	struct rwin_write *first;
	u32 n;

	if (!w->held_count || end <= start)
		return 0;
	first = rwin_held_ending_after(w, start);
	if (!first || first->start >= end)
		return 0;
	n = rwin_release_range_at(w, first->start, end, reason, now, at);
	if (n)
		w->stats.release_events[reason]++;
	return n;
}

static bool rwin_device_idle(const struct rwin_window *w)
{
	return !w->inflight && list_empty(&w->queue);
}

/* Idle is measured from the later of the last completion and the last
 * arrival: a write still trickling in means the submitter is still busy.
 */
static u64 rwin_idle_ref(const struct rwin_window *w)
{
	return w->idle_since_ns > w->last_arrival_ns ?
		w->idle_since_ns : w->last_arrival_ns;
}

static u64 rwin_deadline(const struct rwin_window *w,
			 const struct rwin_write *wr)
{
	return rwin_add_sat(wr->arrival_ns,
			    wr->long_hold ? w->p.meta_hold_ns : w->p.hold_ns);
}

/* The held write whose deadline comes first (NULL if none is held). */
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

/* The quiet spell after which writes held under meta_hold_ns go too. */
static u64 rwin_long_idle(const struct rwin_window *w)
{
	return w->p.meta_idle_ns > w->p.idle_ns ? w->p.meta_idle_ns :
						   w->p.idle_ns;
}

void rwin_set_waiter_probe(struct rwin_window *w,
			   bool (*waited)(const struct rwin_write *wr))
{
	w->waited = waited;
}
EXPORT_SYMBOL_NS_GPL(rwin_set_waiter_probe, COALESCE_IOSCHED);

/*
 * The next probe, every RWIN_PROBE_NS (at most idle_ns): while the device
 * is busy, on the calls that come anyway; while it is quiet, on the timer.
 */
static u64 rwin_probe_due(const struct rwin_window *w)
{
	u64 every = w->p.idle_ns < RWIN_PROBE_NS ? w->p.idle_ns : RWIN_PROBE_NS;
	u64 from = w->probed_ns;

	if (rwin_device_idle(w) && rwin_idle_ref(w) > from)
		from = rwin_idle_ref(w);
	return rwin_add_sat(from, every ?: 1);
}

/*
 * A held write is in flight: its pages are under writeback, and the
 * block device's buffers in it are locked. A writer that locks one (FAT
 * on every cluster allocation, ext2's fsync, jbd2) sleeps until the write
 * leaves, and nothing it does tells the window. So the caller's probe is
 * asked (when: rwin_probe_due()) about up to RWIN_PROBE_WRITES held
 * writes, from where the last ask stopped, by sector; the AU group of
 * every write somebody sleeps on goes.
 */
static void rwin_release_waited(struct rwin_window *w, u64 now)
{
	struct rwin_write *h, *c, *next;
	u32 asked = 0;
	bool waited;

	if (!w->waited || !w->held_count || rwin_probe_due(w) > now)
		return;
	w->probed_ns = now;
	h = rwin_held_from(w, w->probe_next) ?: rwin_held_from(w, 0);
	for (; h && asked < RWIN_PROBE_WRITES; h = next) {
		u64 au = rwin_au(w, h->start);

		waited = w->waited(h);
		asked++;
		list_for_each_entry(c, &h->chain, chain) {
			if (waited || asked >= RWIN_PROBE_WRITES)
				break;
			waited = w->waited(c);
			asked++;
		}
		next = rwin_held_entry(rb_next(&h->node));
		if (waited) {
			rwin_release_au(w, au, RWIN_REL_WAITER, now);
			next = rwin_held_from(w, (au + 1) * w->p.au_sectors);
		}
		w->probe_next = next ? next->start : 0;
	}
}

void rwin_expire(struct rwin_window *w, u64 now)
{
	struct rwin_write *due;

	while ((due = rwin_first_due(w)) && rwin_deadline(w, due) <= now)
		rwin_release_au(w, rwin_au(w, due->start), RWIN_REL_DEADLINE,
				now);

	rwin_release_waited(w, now);
	if (!w->held_count || !rwin_device_idle(w) ||
	    rwin_add_sat(rwin_idle_ref(w), w->p.idle_ns) > now)
		return;
	if (rwin_add_sat(rwin_idle_ref(w), rwin_long_idle(w)) <= now) {
		rwin_release_all(w, RWIN_REL_IDLE, now);
		return;
	}
	/* A short pause: the AU groups held under hold_ns go, not the rest. */
	while (!list_empty(&w->held_fifo)) {
		struct rwin_write *wr = list_first_entry(&w->held_fifo,
							 struct rwin_write,
							 link);

		rwin_release_au(w, rwin_au(w, wr->start), RWIN_REL_IDLE, now);
	}
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
		if (w->waited && rwin_probe_due(w) < idle)
			idle = rwin_probe_due(w);
		if (idle < next)
			next = idle;
	}
	return next;
}
EXPORT_SYMBOL_NS_GPL(rwin_next_deadline, COALESCE_IOSCHED);

/* ---- arrivals ----------------------------------------------------------- */

/* May @wr be held? An exact @rewrite of a held write may, whatever size. */
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
		    wr->start < rwin_au_wpos(w, rwin_au(w, wr->start));
	return *backward;
}

/* Release the AU group of the held write nearest its deadline until @wr
 * fits. Not the largest group: this is O(1), and it gives up the least
 * holding time.
 */
static void rwin_make_room(struct rwin_window *w, const struct rwin_write *wr,
			   u64 now)
{
	while (w->held_count &&
	       (w->held_count + 1 > w->p.window_reqs ||
		w->held_bytes + rwin_bytes(wr) > w->p.window_bytes)) {
		struct rwin_write *due = rwin_first_due(w);
		enum rwin_reason reason = RWIN_REL_BYTES;

		if (w->held_count + 1 > w->p.window_reqs)
			reason = RWIN_REL_COUNT;
		rwin_release_au(w, rwin_au(w, due->start), reason, now);
	}
}

/*
 * The held chain head that @wr overlaps, or NULL. *@same: it is the only
 * one, and covers exactly the range of @wr.
 */
static struct rwin_write *rwin_held_overlap(struct rwin_window *w,
					    const struct rwin_write *wr,
					    bool *same)
{
	struct rwin_write *first;

	*same = false;
	if (!w->held_count || !wr->sectors)
		return NULL;
	first = rwin_held_ending_after(w, wr->start);
	if (!first || first->start >= rwin_end(wr))
		return NULL;
	/* Heads are disjoint: an equal range is the only overlap. */
	*same = first->start == wr->start && first->sectors == wr->sectors;
	return first;
}

/*
 * Somebody waits for a sync or FUA write and may wait for held ones too:
 * they go (a sync write's only with sync_release; else the waiter probe
 * finds the sleepers), and nothing is held for sync_grace_ns, as the next
 * background write may be what it waits for. True if a grace was running.
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
	if (now > w->last_arrival_ns)
		w->last_arrival_ns = now;
	rwin_urgent_rules(w, flags, now);
}
EXPORT_SYMBOL_NS_GPL(rwin_note_write, COALESCE_IOSCHED);

bool rwin_add_write(struct rwin_window *w, struct rwin_write *wr, u64 now)
{
	u32 urgent = wr->flags & RWIN_F_URGENT;
	u32 nohold = urgent | (wr->flags & (RWIN_F_NOHOLD | RWIN_F_NODATA));
	struct rwin_write *over;
	bool backward, same, grace;

	rwin_expire(w, now);
	w->last_arrival_ns = now;
	w->stats.writes++;
	if (wr->flags & RWIN_F_META)
		w->stats.meta++;
	wr->state = RWIN_ST_NEW;
	wr->batch = 0;
	wr->released_ns = 0;
	wr->long_hold = 0;
	wr->sync_front = 0;
	wr->sync_passed = 0;

	grace = rwin_urgent_rules(w, wr->flags, now);

	/*
	 * An exact rewrite of a held write may be held behind it (overlapping
	 * writes keep their order either way); any other overlap: the older
	 * writes go first.
	 */
	over = rwin_held_overlap(w, wr, &same);
	if (over && (nohold || !same)) {
		rwin_release_overlap_at(w, wr->start, rwin_end(wr),
					RWIN_REL_OVERLAP, now, &w->queue);
		over = NULL;
	}

	/* In a sync grace nothing is held (rwin_urgent_rules()). */
	if (grace && !urgent)
		w->stats.grace_passed++;

	if (!nohold && !grace && rwin_may_hold(w, wr, over, &backward)) {
		/* A rewrite keeps its chain's hold: each FIFO stays ordered. */
		wr->long_hold = over ? over->long_hold :
			rwin_au_streamless(w, rwin_au(w, wr->start), now);
		rwin_make_room(w, wr, now);
		/* Making room may have released the write it rewrites. */
		if (!over || over->state == RWIN_ST_HELD) {
			if (over)
				rwin_held_chain(w, over, wr);
			else
				rwin_held_insert(w, wr);
			if (backward)
				w->stats.holds_backward++;
			return true;
		}
	} else if (over) {
		rwin_release_overlap_at(w, wr->start, rwin_end(wr),
					RWIN_REL_OVERLAP, now, &w->queue);
	}

	/*
	 * A sync write that overlaps nothing queued (the writes its own
	 * rules just released included) goes ahead of the background ones.
	 */
	if (urgent && !rwin_overlaps_queued(w, wr->start, wr->sectors, RWIN_NO_DEADLINE))
		rwin_queue_add_sync(w, wr);
	else
		rwin_queue_add(w, wr, 0);
	/* A data stream is in this AU: what is held there goes with it. */
	if (wr->sectors > w->p.small_sectors && !(wr->flags & RWIN_F_NODATA))
		rwin_au_slot(w, rwin_au(w, wr->start))->data_ns = now ?: 1;
	w->stats.passed++;
	return false;
}
EXPORT_SYMBOL_NS_GPL(rwin_add_write, COALESCE_IOSCHED);

/*
 * Held writes under a read go to the head of the queue: nothing queued
 * overlaps a held write, so they may pass every queued write, and whoever
 * waits for the read waits for them only.
 */
void rwin_read(struct rwin_window *w, sector_t start, u32 sectors, u64 now)
{
	rwin_expire(w, now);
	w->stats.reads++;
	if (sectors)
		rwin_release_overlap_at(w, start, start + sectors,
					RWIN_REL_READ, now, w->queue.next);
}
EXPORT_SYMBOL_NS_GPL(rwin_read, COALESCE_IOSCHED);

/*
 * A flush owes nothing to a write that has not completed, but a caller
 * that flushes may wait on a held write next: release everything.
 */
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

/* ---- commands ----------------------------------------------------------- */

/* Does @wr continue the last run of @cmd, or is there room for a run? */
static bool rwin_cmd_fits(const struct rwin_cmd *cmd,
			  const struct rwin_write *wr)
{
	return (cmd->nr_writes && cmd->end == wr->start) ||
	       cmd->nr_runs < RWIN_MAX_RUNS;
}

/* Append @wr, already unlinked, after rwin_cmd_fits() said yes. */
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
 * A data write goes to the card with the held writes of its AU before it
 * (one jump back, then one sweep up) and those contiguous after it, even
 * past the AU. Those further ahead stay: sent now, they would put every
 * following data write behind the AU's write position. Collected walking
 * down from the data, so the runs nearest it stay if RWIN_MAX_RUNS cuts.
 */
static void rwin_pop_data(struct rwin_window *w, struct rwin_write *data,
			  struct rwin_cmd *cmd, u64 now)
{
	sector_t lo = rwin_au(w, data->start) * w->p.au_sectors;
	sector_t low = data->start;
	struct rwin_write *h, *prev, *next;
	bool chained = false;
	u32 attached = 0;

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
		attached++;
	}

	for (h = rwin_held_from(w, cmd->end); h && h->start == cmd->end;
	     h = next) {
		next = rwin_held_entry(rb_next(&h->node));
		chained |= !list_empty(&h->chain);
		rwin_held_remove(w, h, RWIN_REL_ATTACH, now);
		rwin_cmd_append(cmd, h);
		attached++;
	}

	/* Rewrites of the attached writes go next, ahead of the queue. */
	if (chained)
		attached += rwin_release_range_at(w, low, cmd->end,
						  RWIN_REL_ATTACH, now,
						  w->queue.next);
	if (attached)
		w->stats.release_events[RWIN_REL_ATTACH]++;
	list_for_each_entry(h, &cmd->writes, link)
		rwin_au_pos_set(w, h);
}

/*
 * Writes that pass the window queue as they arrive, and two submitters of
 * one disk interleave there: mkfs's inode tables come from the flusher and
 * from its own fsync, whose sync writes go ahead, and one AU's 512 KiB
 * writes left as 2, 4, 3, 5 -- a step back that a linear card pays with a
 * copy of the AU (11 s of the seed's mkfs on the timed card). Among the
 * next few queued writes, the lowest of the head's AU goes first, as
 * mq-deadline's sort sends them, unless a write queued ahead of it
 * overlaps it (the queue keeps same-sector order). As in the sort of sync
 * writes, no write is passed more than RWIN_SYNC_PASS_MAX times.
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

bool rwin_pop(struct rwin_window *w, struct rwin_cmd *cmd, u64 now)
{
	struct rwin_write *head, *next;
	u32 batch;

	INIT_LIST_HEAD(&cmd->writes);
	cmd->nr_writes = 0;
	cmd->nr_runs = 0;

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
		/* Released together: already ascending, take what fits. */
		batch = head->batch;
		list_for_each_entry_safe(head, next, &w->queue, link) {
			if (head->batch != batch ||
			    !rwin_cmd_fits(cmd, head))
				break;
			rwin_queue_del(w, head);
			rwin_cmd_append(cmd, head);
		}
	}

	w->inflight += cmd->nr_writes;
	atomic_add(cmd->nr_writes, &w->out);
	w->stats.commands++;
	return true;
}
EXPORT_SYMBOL_NS_GPL(rwin_pop, COALESCE_IOSCHED);

void rwin_complete(struct rwin_window *w, u32 nr_writes, u64 now)
{
	w->inflight -= nr_writes < w->inflight ? nr_writes : w->inflight;
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
 * this call's caller held a write: fold it now, or the window would think
 * the device busy and wait for a hold time instead of the idle time.
 */
u64 rwin_arm(struct rwin_window *w, u64 now)
{
	rwin_fold(w, now);
	return rwin_next_deadline(w);
}
EXPORT_SYMBOL_NS_GPL(rwin_arm, COALESCE_IOSCHED);

/* ---- merges done by the caller's block layer ---------------------------- */

/* Does [start, end) overlap a write the engine knows, other than @a, @b? */
static bool rwin_range_taken(struct rwin_window *w, sector_t start,
			     sector_t end, const struct rwin_write *a,
			     const struct rwin_write *b)
{
	struct rwin_write *h;

	for (h = rwin_held_ending_after(w, start); h && h->start < end;
	     h = rwin_held_entry(rb_next(&h->node)))
		if (h != a && h != b)
			return true;
	if (!w->queued_count)
		return false;
	for (h = rwin_qtree_iter_first(&w->queued, start, end - 1); h;
	     h = rwin_qtree_iter_next(h, start, end - 1))
		if (h != a && h != b)
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
	for (h = w->queued_count ? rwin_qtree_iter_first(&w->queued, s, s) :
				   NULL; h; h = rwin_qtree_iter_next(h, s, s)) {
		if ((end ? rwin_end(h) : h->start) != sector)
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
	if (!sectors || !rwin_mergeable(wr))
		return false;
	return !rwin_range_taken(w, start, start + sectors, wr, NULL);
}
EXPORT_SYMBOL_NS_GPL(rwin_may_grow, COALESCE_IOSCHED);

bool rwin_may_merge(struct rwin_window *w, const struct rwin_write *into,
		    const struct rwin_write *gone, sector_t start,
		    u32 sectors)
{
	if (!sectors || !rwin_mergeable(into) || !rwin_mergeable(gone))
		return false;
	return !rwin_range_taken(w, start, start + sectors, into, gone);
}
EXPORT_SYMBOL_NS_GPL(rwin_may_merge, COALESCE_IOSCHED);

/* May a held write that grew to [start, +sectors) stay held? */
static bool rwin_still_holdable(struct rwin_window *w,
				const struct rwin_write *wr, sector_t start,
				u32 sectors, u32 flags)
{
	u64 bytes = (u64)sectors << 9;

	if (flags & (RWIN_F_URGENT | RWIN_F_NOHOLD))
		return false;
	if (w->held_bytes - rwin_bytes(wr) + bytes > w->p.window_bytes)
		return false;
	if (sectors <= w->p.small_sectors)
		return true;
	/*
	 * Not at its AU's write position: behind it, or ahead of it (an ext2
	 * indirect block that data grew on waits for the data in front of it,
	 * maybe still in the submitter's plug).
	 */
	return sectors <= RWIN_BACKWARD_MAX &&
	       start != rwin_au_wpos(w, rwin_au(w, start));
}

void rwin_grow(struct rwin_window *w, struct rwin_write *wr, sector_t start,
	       u32 sectors, u32 flags, u64 now)
{
	sector_t end = start + sectors, old_start = wr->start;
	sector_t old_end = rwin_end(wr);
	bool taken = rwin_range_taken(w, start, end, wr, NULL);

	/* A merge is the submitter still writing: not idle. */
	if (now > w->last_arrival_ns)
		w->last_arrival_ns = now;
	w->stats.grown++;
	if (wr->state == RWIN_ST_HELD) {
		if (!taken && rwin_mergeable(wr) &&
		    rwin_still_holdable(w, wr, start, sectors, flags)) {
			w->held_bytes += ((u64)sectors << 9) - rwin_bytes(wr);
			if (w->held_bytes > w->stats.max_held_bytes)
				w->stats.max_held_bytes = w->held_bytes;
			if (start != wr->start) {
				rb_erase(&wr->node, &w->held);
				wr->start = start;
				wr->sectors = sectors;
				rwin_held_link(w, wr);
			} else {
				wr->sectors = sectors;
			}
			return;
		}
		/* It leaves: the older held writes under the new part first. */
		w->stats.grow_released++;
		rwin_release_overlap_at(w, start, old_start,
					RWIN_REL_OVERLAP, now, &w->queue);
		rwin_release_overlap_at(w, old_end, end, RWIN_REL_OVERLAP,
					now, &w->queue);
		rwin_release_overlap_at(w, old_start, old_end,
					flags & RWIN_F_URGENT ? RWIN_REL_SYNC :
					RWIN_REL_ATTACH, now, &w->queue);
	} else if (wr->state == RWIN_ST_QUEUED && taken) {
		/* Older held writes under the new part go in front of it. */
		rwin_release_overlap_at(w, start, old_start, RWIN_REL_OVERLAP,
					now, &wr->link);
		rwin_release_overlap_at(w, old_end, end, RWIN_REL_OVERLAP,
					now, &wr->link);
	}
	if (wr->state != RWIN_ST_QUEUED) {
		/* Out already: the caller owns it; keep the numbers honest. */
		wr->start = start;
		wr->sectors = sectors;
		return;
	}
	rwin_qtree_remove(wr, &w->queued);
	wr->start = start;
	wr->sectors = sectors;
	rwin_qtree_insert(wr, &w->queued);
	rwin_au_pos_set(w, wr);
}
EXPORT_SYMBOL_NS_GPL(rwin_grow, COALESCE_IOSCHED);

void rwin_merge(struct rwin_window *w, struct rwin_write *into,
		struct rwin_write *gone, sector_t start, u32 sectors,
		u32 flags, u64 now)
{
	bool rewrites = gone->state == RWIN_ST_HELD &&
			!list_empty(&gone->chain);
	sector_t gone_start = gone->start, gone_end = rwin_end(gone);

	/* A held write taking in a queued one or a chain head leaves. */
	if (into->state == RWIN_ST_HELD &&
	    (gone->state == RWIN_ST_QUEUED || rewrites))
		rwin_release_overlap_at(w, into->start, rwin_end(into),
					RWIN_REL_ATTACH, now,
					gone->state == RWIN_ST_QUEUED ?
					&gone->link : &w->queue);

	/* Two held writes: the older arrival, and its FIFO place, stay. */
	if (into->state == RWIN_ST_HELD && gone->state == RWIN_ST_HELD &&
	    gone->arrival_ns < into->arrival_ns) {
		list_move(&into->link, &gone->link);
		into->arrival_ns = gone->arrival_ns;
		into->long_hold = gone->long_hold;
	}

	if (gone->state == RWIN_ST_QUEUED) {
		rwin_queue_del(w, gone);
	} else if (gone->state == RWIN_ST_HELD) {
		rwin_held_remove(w, gone, RWIN_REL_ATTACH, now);
		w->stats.release_events[RWIN_REL_ATTACH]++;
	}
	gone->state = RWIN_ST_OUT;

	/* The rewrites of @gone's range now follow the write holding it. */
	if (rewrites && into->state == RWIN_ST_QUEUED)
		rwin_release_overlap_at(w, gone_start, gone_end,
					RWIN_REL_ATTACH, now,
					into->link.next);
	rwin_grow(w, into, start, sectors, flags, now);
}
EXPORT_SYMBOL_NS_GPL(rwin_merge, COALESCE_IOSCHED);
