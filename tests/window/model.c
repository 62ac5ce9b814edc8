// SPDX-License-Identifier: GPL-2.0
/*
 * Randomised model checker for the reorder window engine.
 *
 * A simulated driver feeds the engine writes, reads, flushes and drains from
 * a seeded generator, runs a one-command-at-a-time card, fires the engine's
 * timer exactly at rwin_next_deadline(), and gives each write a tag from a
 * tag set of window_reqs + 8. A reference model (per-sector arrival
 * sequence numbers and pending counts, per-write state) checks:
 *
 *  - every write leaves exactly once, none is lost at the final drain;
 *  - no write overtakes an older write it overlaps;
 *  - held count and bytes never exceed the window bounds;
 *  - every command is one ascending pass in at most RWIN_MAX_RUNS runs;
 *  - no write stays held past its hold deadline (the timer is exact);
 *  - a read is only issued after every older overlapping write went out;
 *  - flush, FUA, sync writes leave nothing held behind them;
 *  - the engine always makes progress (no tag starvation);
 *  - a rewrite of exactly the range of a held write, with room in the
 *    window and nothing urgent about it, is held too and leaves the older
 *    one held (it is chained, not released); a partial overlap may release.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reorder_window.h"

#define US(x)	((u64)(x) * 1000)
#define MS(x)	((u64)(x) * 1000 * 1000)

/* Merges join writes of different ages: each part keeps its own. */
#define MODEL_PIECES	8

struct piece {
	sector_t start;
	u32 sectors;
	u64 seq;
	u64 arrival;
	bool held;	/* its data sits in the window */
};

struct slot {
	struct rwin_write w;
	struct piece piece[MODEL_PIECES];
	u32 nr_pieces;
	u64 seq;
	bool busy;
	bool held;
	bool emitted;
};

struct model {
	struct rwin_window win;
	struct rwin_params p;
	u64 rng;
	u64 now;
	u64 dev_sectors;
	u64 seq;
	u64 *emitted_seq;	/* per sector: newest seq written so far + 1 */
	u32 *pending;		/* per sector: arrived, not yet sent */
	struct slot *slots;
	u32 nr_slots;
	u32 *free_slots;
	u32 nr_free;
	bool card_busy;
	u64 card_done;
	struct rwin_cmd cur;	/* command on the card */
	sector_t data_ptr;
	sector_t hot[8];
	u64 mean_dt;
	u64 written, read_checks, cmds, rewrites, rewrites_held, merges;
	long failures;
};

static u64 rnd(struct model *m)
{
	/* xorshift64*: small, seedable, good enough for test input. */
	m->rng ^= m->rng >> 12;
	m->rng ^= m->rng << 25;
	m->rng ^= m->rng >> 27;
	return m->rng * 2685821657736338717ULL;
}

static u64 rnd_below(struct model *m, u64 n)
{
	return n ? rnd(m) % n : 0;
}

#define MCHECK(m, cond)							\
	do {								\
		if (!(cond)) {						\
			if ((m)->failures++ < 10)			\
				fprintf(stderr,				\
					"model: CHECK(%s) failed at t=%llu line %d\n", \
					#cond,				\
					(unsigned long long)(m)->now,	\
					__LINE__);			\
		}							\
	} while (0)

/* The largest write the model makes (the queue's max_sectors). */
#define MODEL_MAX_SECTORS	1024

static void config_params(struct rwin_params *p, int config, u64 *au_count,
			  u64 *mean_dt)
{
	rwin_params_init(p);
	*au_count = 32;
	*mean_dt = US(400);
	switch (config) {
	case 0:		/* defaults, longer hold where no stream goes */
		p->hold_ns = MS(200);
		p->meta_hold_ns = MS(800);
		p->meta_idle_ns = MS(300);
		break;
	case 1:		/* tiny everything */
		p->au_sectors = 64;
		p->small_sectors = 8;
		p->window_reqs = 16;
		p->window_bytes = 32 * 1024;
		p->hold_ns = MS(5);
		p->idle_ns = MS(1);
		*au_count = 256;
		*mean_dt = US(100);
		break;
	case 2:		/* other knobs */
		p->sync_grace_ns = MS(20);
		p->sync_release = false;
		p->hold_ns = MS(50);
		p->au_sectors = 2048;
		break;
	case 3:		/* window of one */
		p->window_reqs = 1;
		p->au_sectors = 512;
		p->hold_ns = MS(3);
		break;
	case 4:		/* big window */
		p->window_reqs = 1024;
		p->window_bytes = 4 * 1024 * 1024;
		p->hold_ns = MS(400);
		p->meta_hold_ns = MS(1200);
		p->idle_ns = MS(50);
		*mean_dt = US(150);
		break;
	default:	/* AU not a power of two, bytes bound bites first */
		p->au_sectors = 6000;
		p->window_bytes = 128 * 1024;
		p->small_sectors = 64;
		p->hold_ns = MS(30);
		break;
	}
}

int model_configs(void)
{
	return 6;
}

static u32 slot_get(struct model *m)
{
	return m->nr_free ? m->free_slots[--m->nr_free] : ~0U;
}

static void slot_put(struct model *m, struct slot *s)
{
	s->busy = false;
	m->free_slots[m->nr_free++] = (u32)(s - m->slots);
}

/* The longest a write may stay held under @p. */
static u64 model_max_hold(const struct rwin_params *p)
{
	return p->meta_hold_ns > p->hold_ns ? p->meta_hold_ns : p->hold_ns;
}

/* One write leaves the engine in a command: the reference model's checks. */
static void model_emit(struct model *m, struct rwin_write *wr)
{
	struct slot *s = (struct slot *)wr;
	sector_t i;

	u64 covered = 0;
	u32 k;

	MCHECK(m, s->busy && !s->emitted);
	s->emitted = true;
	m->written += s->nr_pieces;
	for (k = 0; k < s->nr_pieces; k++) {
		struct piece *pc = &s->piece[k];

		MCHECK(m, pc->start >= wr->start &&
			  pc->start + pc->sectors <= wr->start + wr->sectors);
		/* No part of a merged write stays held past its own hold. */
		if (pc->held && s->held)
			MCHECK(m, wr->released_ns - pc->arrival <=
				  model_max_hold(&m->p));
		covered += pc->sectors;
		for (i = pc->start; i < pc->start + pc->sectors; i++) {
			/* A newer overlapping write must not have gone first. */
			MCHECK(m, m->emitted_seq[i] <= pc->seq);
			m->emitted_seq[i] = pc->seq + 1;
			MCHECK(m, m->pending[i] > 0);
			m->pending[i]--;
		}
	}
	MCHECK(m, covered == wr->sectors);
	if (s->held)
		MCHECK(m, wr->released_ns - wr->arrival_ns <=
			  model_max_hold(&m->p));
}

static void model_check_cmd(struct model *m, struct rwin_cmd *cmd)
{
	struct rwin_write *wr = list_first_entry(&cmd->writes,
						 struct rwin_write, link);
	u32 runs = 0, total = 0;
	sector_t end = 0;

	/* One ascending pass of disjoint writes, in few runs. */
	for (; &wr->link != &cmd->writes; wr = list_next_entry(wr, link)) {
		if (total)
			MCHECK(m, end <= wr->start);
		runs += !total || end != wr->start;
		end = wr->start + wr->sectors;
		model_emit(m, wr);
		total++;
	}
	MCHECK(m, runs >= 1 && runs <= RWIN_MAX_RUNS);
	MCHECK(m, total == cmd->nr_writes);
	m->cmds++;
}

static void model_bounds(struct model *m)
{
	MCHECK(m, m->win.held_count <= m->p.window_reqs);
	MCHECK(m, m->win.held_bytes <= m->p.window_bytes);
	if (m->win.held_count)
		MCHECK(m, rwin_next_deadline(&m->win) > m->now);
}

static void card_complete(struct model *m)
{
	struct rwin_write *wr, *next;

	list_for_each_entry_safe(wr, next, &m->cur.writes, link)
		slot_put(m, (struct slot *)wr);
	m->card_busy = false;
	rwin_complete(&m->win, m->cur.nr_writes, m->now);
}

static u64 cmd_cost(const struct rwin_cmd *cmd)
{
	const struct rwin_write *wr;
	u64 cost = 0;

	/* 100 us per write plus 20 MB/s. */
	list_for_each_entry(wr, &cmd->writes, link)
		cost += US(100) + (u64)wr->sectors * 512 * 1000 / 20;
	return cost;
}

/* If the card is free and something is queued, start it. */
static void card_kick(struct model *m)
{
	if (m->card_busy)
		return;
	if (!rwin_pop(&m->win, &m->cur, m->now))
		return;
	model_check_cmd(m, &m->cur);
	m->card_busy = true;
	m->card_done = m->now + cmd_cost(&m->cur);
}

/* Advance to @target, firing card completions and the timer in order. */
/*
 * Somebody sleeps on one held write in eleven, picked by its range so the
 * answer does not change between two asks: exercises the waiter probe's
 * releases under every other rule.
 */
static bool model_waited(const struct rwin_write *wr)
{
	return (wr->start / 8 + wr->sectors) % 11 == 0;
}

static void advance(struct model *m, u64 target)
{
	for (;;) {
		u64 timer = rwin_next_deadline(&m->win);
		u64 card = m->card_busy ? m->card_done : RWIN_NO_DEADLINE;
		u64 next = timer < card ? timer : card;

		if (next > target || m->failures)
			break;
		if (next > m->now)
			m->now = next;
		if (card <= timer) {
			card_complete(m);
		} else {
			rwin_expire(&m->win, m->now);
			model_bounds(m);
		}
		card_kick(m);
	}
	m->now = target;
}

/* A random held write (the slot table is scanned from a random point). */
static struct slot *model_pick_held(struct model *m)
{
	u32 i, from = (u32)rnd_below(m, m->nr_slots);

	for (i = 0; i < m->nr_slots; i++) {
		struct slot *s = &m->slots[(from + i) % m->nr_slots];

		if (s->busy && !s->emitted && s->w.state == RWIN_ST_HELD)
			return s;
	}
	return NULL;
}

static void model_write(struct model *m)
{
	u32 idx = slot_get(m);
	struct slot *s, *older = NULL;
	u64 kind = rnd_below(m, 100), r;
	u32 held_before = m->win.held_count;
	u64 grace_end;
	u64 bytes_before = m->win.held_bytes;
	sector_t start;
	u32 sectors;
	bool held;

	if (idx == ~0U)
		return;
	s = &m->slots[idx];
	memset(s, 0, sizeof(*s));
	s->busy = true;

	/* Rewrites of held writes: the same range, or a part of it. */
	if (kind >= 90)
		older = model_pick_held(m);
	if (older) {
		start = older->w.start;
		sectors = older->w.sectors;
		if (kind >= 97) {
			start += rnd_below(m, sectors + 1);
			sectors = 1 + (u32)rnd_below(m, sectors + 8);
		}
	} else if (kind < 55) {
		sectors = 1 + rnd_below(m, m->p.small_sectors);
		if (rnd_below(m, 2))
			sectors = m->p.small_sectors < 8 ?
				  m->p.small_sectors : 8;
		r = rnd_below(m, 10);
		if (r < 5)
			start = m->hot[rnd_below(m, 8)] + rnd_below(m, 64) * 8;
		else if (r < 8)
			start = m->data_ptr + rnd_below(m, 4 * m->p.au_sectors);
		else
			start = rnd_below(m, m->dev_sectors);
	} else if (kind < 85) {
		sectors = m->p.small_sectors + 1 +
			  rnd_below(m, MODEL_MAX_SECTORS - m->p.small_sectors);
		if (rnd_below(m, 3))
			sectors = MODEL_MAX_SECTORS;
		start = m->data_ptr;
		/* Sometimes a reversed pair, sometimes a rewrite. */
		if (rnd_below(m, 10) == 0 && start > sectors)
			start -= sectors + rnd_below(m, 2) * sectors;
		else
			m->data_ptr += sectors;
	} else {
		sectors = 1 + rnd_below(m, MODEL_MAX_SECTORS);
		start = rnd_below(m, m->dev_sectors);
	}
	if (m->data_ptr >= m->dev_sectors - MODEL_MAX_SECTORS)
		m->data_ptr = 0;
	if (start >= m->dev_sectors)
		start = rnd_below(m, m->dev_sectors);
	if (start + sectors > m->dev_sectors)
		start = m->dev_sectors - sectors;

	s->w.start = start;
	s->w.sectors = sectors;
	s->w.arrival_ns = m->now;
	r = rnd_below(m, 1000);
	if (r < 30)
		s->w.flags |= RWIN_F_SYNC;
	else if (r < 40)
		s->w.flags |= RWIN_F_FUA;
	if (rnd_below(m, 20) == 0)
		s->w.flags |= RWIN_F_META;
	s->seq = m->seq++;
	s->piece[0] = (struct piece){ start, sectors, s->seq, m->now, false };
	s->nr_pieces = 1;
	for (r = 0; r < sectors; r++)
		m->pending[start + r]++;

	grace_end = m->win.sync_grace_end_ns;
	held = rwin_add_write(&m->win, &s->w, m->now);
	s->held = held;
	s->piece[0].held = held;
	if (older && start == older->w.start && sectors == older->w.sectors) {
		m->rewrites++;
		m->rewrites_held += held;
		/*
		 * The reference rule: with room in the window and nothing
		 * urgent, the rewrite is chained, the older write stays held.
		 * (Only the deadline timer, which advance() fired before this
		 * call, may have released it; it is held here, so it did not.
		 * Nor the waiter probe, which this call may have asked: then
		 * the rule does not apply.)
		 */
		if (!(s->w.flags & RWIN_F_URGENT) &&
		    m->now >= grace_end && m->win.probed_ns != m->now &&
		    held_before + 1 <= m->p.window_reqs &&
		    bytes_before + (u64)sectors * 512 <= m->p.window_bytes) {
			MCHECK(m, held);
			MCHECK(m, older->w.state == RWIN_ST_HELD);
		}
	}
	if ((s->w.flags & RWIN_F_FUA) ||
	    ((s->w.flags & RWIN_F_SYNC) && m->p.sync_release))
		MCHECK(m, m->win.held_count == 0);
	if (s->w.flags & RWIN_F_URGENT)
		MCHECK(m, !held);
	model_bounds(m);
}

/* A random slot whose write the engine would let grow. */
static struct slot *model_pick_mergeable(struct model *m)
{
	u32 i, from = (u32)rnd_below(m, m->nr_slots);

	for (i = 0; i < m->nr_slots; i++) {
		struct slot *s = &m->slots[(from + i) % m->nr_slots];

		if (s->busy && !s->emitted && rwin_mergeable(&s->w) &&
		    s->nr_pieces < MODEL_PIECES)
			return s;
	}
	return NULL;
}

/*
 * The block layer merges a new bio into a write the engine knows, in
 * front or behind, as an I/O scheduler's bio_merge does: only when
 * rwin_may_grow() agrees, then rwin_grow().
 */
static void model_bio_merge(struct model *m)
{
	struct slot *s = model_pick_mergeable(m);
	u32 len = 1 + (u32)rnd_below(m, 2 * m->p.small_sectors + 1), r;
	sector_t start, bio;
	u32 flags = 0;
	bool front = rnd_below(m, 2);

	if (!s || s->w.sectors + len > MODEL_MAX_SECTORS)
		return;
	if (front && s->w.start < len)
		return;
	bio = front ? s->w.start - len : s->w.start + s->w.sectors;
	if (bio + len > m->dev_sectors)
		return;
	start = front ? bio : s->w.start;
	if (rnd_below(m, 10) == 0)
		flags |= RWIN_F_SYNC;
	/* As the scheduler does: the bio's rules first, merge or not. */
	rwin_note_write(&m->win, flags, m->now);
	if (flags && m->p.sync_release)
		MCHECK(m, m->win.held_count == 0);
	if (!rwin_may_grow(&m->win, &s->w, start, s->w.sectors + len))
		return;
	s->piece[s->nr_pieces++] = (struct piece){ bio, len, m->seq++, m->now,
						   false };
	for (r = 0; r < len; r++)
		m->pending[bio + r]++;
	rwin_grow(&m->win, &s->w, start, s->w.sectors + len, flags, m->now);
	MCHECK(m, s->w.start == start);
	if (s->w.state == RWIN_ST_HELD) {
		MCHECK(m, !flags);
		MCHECK(m, s->w.sectors <= m->p.small_sectors ||
			  s->w.sectors <= RWIN_BACKWARD_MAX);
		s->held = true;
		s->piece[s->nr_pieces - 1].held = true;
	}
	m->merges++;
}

static void model_read(struct model *m)
{
	sector_t start;
	u32 sectors = 1 + rnd_below(m, 64), i;

	if (rnd_below(m, 2))
		start = m->hot[rnd_below(m, 8)] + rnd_below(m, 512);
	else
		start = rnd_below(m, m->dev_sectors);
	if (start + sectors > m->dev_sectors)
		start = m->dev_sectors - sectors;

	rwin_read(&m->win, start, sectors, m->now);
	if (rwin_overlaps_queued(&m->win, start, sectors, RWIN_NO_DEADLINE)) {
		/* Issue what the read must follow; it is queued ahead. */
		while (rwin_overlaps_queued(&m->win, start, sectors,
					    RWIN_NO_DEADLINE)) {
			if (m->card_busy)
				card_complete(m);
			card_kick(m);
			MCHECK(m, m->card_busy);
			if (!m->card_busy)
				break;
		}
	}
	for (i = 0; i < sectors; i++)
		MCHECK(m, m->pending[start + i] == 0);
	m->read_checks++;
	model_bounds(m);
}

static void model_consistency(struct model *m)
{
	struct rwin_write *wr;
	u32 i, held = 0;
	u64 bytes = 0, last = 0;

	/* Each held FIFO is in arrival order, and its head is a chain head. */
	list_for_each_entry(wr, &m->win.held_fifo, link) {
		MCHECK(m, wr->arrival_ns >= last && !wr->long_hold);
		last = wr->arrival_ns;
	}
	last = 0;
	list_for_each_entry(wr, &m->win.held_fifo_long, link) {
		MCHECK(m, wr->arrival_ns >= last && wr->long_hold);
		last = wr->arrival_ns;
	}
	if (!list_empty(&m->win.held_fifo)) {
		wr = list_first_entry(&m->win.held_fifo, struct rwin_write,
				      link);
		MCHECK(m, !RB_EMPTY_NODE(&wr->node));
	}
	if (!list_empty(&m->win.held_fifo_long)) {
		wr = list_first_entry(&m->win.held_fifo_long,
				      struct rwin_write, link);
		MCHECK(m, !RB_EMPTY_NODE(&wr->node));
	}

	for (i = 0; i < m->nr_slots; i++) {
		struct slot *s = &m->slots[i];

		if (s->busy && !s->emitted && s->w.state == RWIN_ST_HELD) {
			held++;
			bytes += (u64)s->w.sectors * 512;
		}
	}
	MCHECK(m, held == m->win.held_count);
	MCHECK(m, bytes == m->win.held_bytes);
}

int model_check(unsigned long long seed, long ops, int config)
{
	struct model *m = calloc(1, sizeof(*m));
	u64 au_count, i, stall = 0;
	long op;
	int ret;

	config_params(&m->p, config, &au_count, &m->mean_dt);
	m->rng = seed * 0x9E3779B97F4A7C15ULL + 1;
	m->dev_sectors = au_count * m->p.au_sectors;
	m->emitted_seq = calloc(m->dev_sectors, sizeof(*m->emitted_seq));
	m->pending = calloc(m->dev_sectors, sizeof(*m->pending));
	m->nr_slots = m->p.window_reqs + 8;
	m->slots = calloc(m->nr_slots, sizeof(*m->slots));
	m->free_slots = calloc(m->nr_slots, sizeof(*m->free_slots));
	for (i = 0; i < m->nr_slots; i++)
		m->free_slots[m->nr_free++] = m->nr_slots - 1 - i;
	for (i = 0; i < 8; i++)
		m->hot[i] = rnd_below(m, m->dev_sectors - 1024) & ~7ULL;
	m->now = MS(1);
	if (rwin_init(&m->win, &m->p)) {
		free(m);
		return 1;
	}
	m->win.waited = model_waited;

	for (op = 0; op < ops && m->failures == 0; op++) {
		u64 kind = rnd_below(m, 1000);

		advance(m, m->now + rnd_below(m, 2 * m->mean_dt));
		if (kind < 600) {
			model_write(m);
		} else if (kind < 700) {
			model_read(m);
		} else if (kind < 715) {
			rwin_flush(&m->win, 0, m->now);
			MCHECK(m, m->win.held_count == 0);
		} else if (kind < 716) {
			rwin_drain(&m->win, m->now);
			MCHECK(m, m->win.held_count == 0);
		} else if (kind < 760) {
			model_bio_merge(m);
		} else if (kind < 764) {
			/* A quiet spell: the timers must empty the window. */
			advance(m, m->now + model_max_hold(&m->p) + m->p.idle_ns +
				   MS(100));
			MCHECK(m, m->win.held_count == 0);
		}
		card_kick(m);
		model_bounds(m);
		if ((op & 1023) == 0 || getenv("RWIN_MODEL_PARANOID"))
			model_consistency(m);
		stall = m->nr_free ? 0 : stall + 1;
		MCHECK(m, stall < 100000);
	}

	/* Unload: drain and run the card dry; every write must be out. */
	rwin_drain(&m->win, m->now);
	while (m->card_busy || rwin_has_queued(&m->win)) {
		if (m->card_busy) {
			m->now = m->card_done;
			card_complete(m);
		}
		card_kick(m);
	}
	MCHECK(m, m->win.held_count == 0 && !rwin_has_queued(&m->win));
	MCHECK(m, m->nr_free == m->nr_slots);
	for (i = 0; i < m->dev_sectors; i++)
		MCHECK(m, m->pending[i] == 0);
	MCHECK(m, m->written == m->seq);

	if (getenv("RWIN_VERBOSE"))
		fprintf(stderr,
			"model cfg %d seed %llu: %ld ops, %llu writes, %llu cmds, %llu holds, %llu chained, %llu/%llu rewrites held, %llu merges by the block layer, max hold %llu us\n",
			config, seed, op, (unsigned long long)m->seq,
			(unsigned long long)m->cmds,
			(unsigned long long)m->win.stats.holds,
			(unsigned long long)m->win.stats.chained,
			(unsigned long long)m->rewrites_held,
			(unsigned long long)m->rewrites,
			(unsigned long long)m->merges,
			(unsigned long long)m->win.stats.max_hold_ns / 1000);

	ret = m->failures ? 1 : 0;
	free(m->emitted_seq);
	free(m->pending);
	free(m->slots);
	free(m->free_slots);
	free(m);
	return ret;
}
