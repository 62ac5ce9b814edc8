// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the input bytes choose the parameters and a sequence
 * of writes, reads, flushes, drains, pops, completions and clock steps.
 * Any broken invariant aborts: a write leaving twice or never, a newer
 * overlapping write leaving first, a bound exceeded, a command not
 * ascending or an extent not contiguous, a write held past its deadline.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reorder_window.h"

#define FZ_WRITES	256
#define FZ_SECTORS	4096

struct fz_write {
	struct rwin_write w;
	u32 seq;
	bool used;
	bool held;
	bool out;
};

struct fz {
	const u8 *data;
	size_t len, pos;
	struct rwin_window win;
	struct rwin_params p;
	struct fz_write writes[FZ_WRITES];
	u32 next_write;
	u32 newest[FZ_SECTORS];		/* newest seq sent, + 1 */
	u64 now;
	u32 inflight;
};

static u32 take(struct fz *f, u32 bytes)
{
	u32 v = 0;

	while (bytes--)
		v = (v << 8) | (f->pos < f->len ? f->data[f->pos++] : 0);
	return v;
}

#define FZ_ASSERT(cond)		do { if (!(cond)) abort(); } while (0)

static void fz_pop(struct fz *f)
{
	struct rwin_cmd cmd;
	struct rwin_write *wr;
	sector_t end = 0, s;
	u32 runs = 0;

	if (!rwin_pop(&f->win, &cmd, f->now))
		return;
	f->inflight += cmd.nr_writes;
	FZ_ASSERT(cmd.nr_writes);
	list_for_each_entry(wr, &cmd.writes, link) {
		struct fz_write *fw = (struct fz_write *)wr;

		/* one ascending pass of disjoint writes, in few runs */
		FZ_ASSERT(!end || end <= wr->start);
		runs += !end || end != wr->start;
		end = wr->start + wr->sectors;
		FZ_ASSERT(fw->used && !fw->out);
		fw->out = true;
		if (fw->held)
			FZ_ASSERT(wr->released_ns - wr->arrival_ns <=
				  f->p.hold_ns);
		for (s = wr->start; s < wr->start + wr->sectors; s++) {
			FZ_ASSERT(f->newest[s] <= fw->seq);
			f->newest[s] = fw->seq + 1;
		}
	}
	FZ_ASSERT(runs <= RWIN_MAX_RUNS);
}

static void fz_write(struct fz *f)
{
	struct fz_write *fw;
	u32 start = take(f, 2) % FZ_SECTORS;
	u32 sectors = 1 + take(f, 1) % 64;
	u32 flags = take(f, 1);

	if (f->next_write == FZ_WRITES)
		return;
	if (start + sectors > FZ_SECTORS)
		start = FZ_SECTORS - sectors;
	fw = &f->writes[f->next_write];
	fw->seq = f->next_write++;
	fw->used = true;
	fw->w.start = start;
	fw->w.sectors = sectors;
	fw->w.flags = (flags & 0xf0) == 0xf0 ? flags & 0xf : 0;
	fw->w.arrival_ns = f->now;
	fw->held = rwin_add_write(&f->win, &fw->w, f->now);
	if ((fw->w.flags & RWIN_F_FUA) ||
	    ((fw->w.flags & RWIN_F_SYNC) && f->p.sync_release))
		FZ_ASSERT(!f->win.held_count);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct fz *f = calloc(1, sizeof(*f));
	u32 i;

	if (!f)
		return 0;
	f->data = data;
	f->len = len;
	rwin_params_init(&f->p);
	f->p.au_sectors = 8 + take(f, 1) * 4;
	f->p.small_sectors = take(f, 1) % 64;
	f->p.window_reqs = take(f, 1) % 40;
	f->p.window_bytes = 512 * (1 + take(f, 1) % 128);
	f->p.hold_ns = 1 + take(f, 1) * 1000;
	f->p.idle_ns = take(f, 1) * 1000;
	i = take(f, 1);
	f->p.sync_release = !(i & 16);
	if (rwin_init(&f->win, &f->p)) {
		free(f);
		return 0;
	}

	while (f->pos < f->len) {
		u32 op = take(f, 1) % 8;
		u64 d;

		switch (op) {
		case 0:
		case 1:
			fz_write(f);
			break;
		case 2:
			rwin_read(&f->win, take(f, 2) % FZ_SECTORS,
				  1 + take(f, 1) % 16, f->now);
			break;
		case 3:
			rwin_flush(&f->win, 0, f->now);
			break;
		case 4:
			fz_pop(f);
			break;
		case 5:
			if (f->inflight) {
				f->inflight--;
				rwin_complete(&f->win, 1, f->now);
			}
			break;
		case 6:
			/* Step the clock, firing the timer on the way. */
			d = f->now + take(f, 2) * 100;
			while (rwin_next_deadline(&f->win) <= d) {
				u64 t = rwin_next_deadline(&f->win);

				if (t > f->now)
					f->now = t;
				rwin_expire(&f->win, f->now);
				FZ_ASSERT(!f->win.held_count ||
					  rwin_next_deadline(&f->win) > f->now);
			}
			f->now = d;
			break;
		default:
			if (take(f, 1) == 0xd5)
				rwin_drain(&f->win, f->now);
			break;
		}
		FZ_ASSERT(f->win.held_count <= f->p.window_reqs);
		FZ_ASSERT(f->win.held_bytes <= f->p.window_bytes);
	}

	rwin_drain(&f->win, f->now);
	while (rwin_has_queued(&f->win))
		fz_pop(f);
	for (i = 0; i < f->next_write; i++)
		FZ_ASSERT(f->writes[i].out);
	free(f);
	return 0;
}
