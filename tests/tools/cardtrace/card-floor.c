// SPDX-License-Identifier: GPL-2.0
/*
 * card-floor - the least card time of a trace's writes in any order; see
 * card-floor.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "card-floor.h"

/* A write's part inside one AU, and where the write was in the trace. */
struct piece {
	u64 au, start, end, t_us;
	size_t idx;
};

static int by_start(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

static int by_au_then_trace(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;

	if (x->au != y->au)
		return x->au < y->au ? -1 : 1;
	if (x->idx != y->idx)
		return x->idx < y->idx ? -1 : 1;
	return 0;
}

/*
 * Sectors the pieces cover at least once, and the maximal runs of
 * contiguous ones (touching ranges can be one command).  Sorts @v.
 */
static u64 cover(struct piece *v, size_t m, u64 *runs)
{
	u64 run_e = 0, distinct = 0;
	size_t i;

	qsort(v, m, sizeof(*v), by_start);
	*runs = 0;
	for (i = 0; i < m; i++) {
		if (*runs && v[i].start <= run_e) {
			if (v[i].end > run_e) {
				distinct += v[i].end - run_e;
				run_e = v[i].end;
			}
			continue;
		}
		++*runs;
		distinct += v[i].end - v[i].start;
		run_e = v[i].end;
	}
	return distinct;
}

/* A piece's part inside one segment of its AU (longest_chain()). */
struct part {
	u64 t_us;
	size_t idx, seg;
	unsigned int len;
};

static int by_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* The index of @x in the @k sorted boundaries @bd (it is one of them). */
static size_t boundary(const u64 *bd, size_t k, u64 x)
{
	size_t lo = 0, hi = k;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (bd[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The longest chain of the pieces of one AU (@v, @m of them, in trace
 * order), each piece of which must go to the card in a later opening
 * than the one before it: a scheduler may split a write, so the chain is
 * taken over the parts of the writes that the writes' own boundaries cut
 * the AU into (every sector of such a segment is covered by the same
 * writes, so this is the chain over single sectors). An opening writes
 * each sector at most once and in ascending order; so a part of a later
 * write at or behind a part of an earlier one needs an opening more when
 * the earlier must have gone first: same segment (same-sector writes
 * keep their order) or trace times more than @gap_us apart. Parts of one
 * write are never ordered against each other.
 */
static int longest_chain(const struct piece *v, size_t m, u64 gap_us,
			 u64 *chain)
{
	struct part *q = NULL;
	u64 *bd = NULL;
	size_t i, j, k = 0, n = 0;
	int ret = -ENOMEM;

	*chain = 1;
	bd = malloc(2 * m * sizeof(*bd));
	if (!bd)
		return -ENOMEM;
	for (i = 0; i < m; i++) {
		bd[2 * i] = v[i].start;
		bd[2 * i + 1] = v[i].end;
	}
	qsort(bd, 2 * m, sizeof(*bd), by_u64);
	for (i = 0; i < 2 * m; i++)
		if (!k || bd[k - 1] != bd[i])
			bd[k++] = bd[i];
	for (i = 0; i < m; i++)
		n += boundary(bd, k, v[i].end) - boundary(bd, k, v[i].start);
	if (n > CARD_FLOOR_CHAIN_MAX) {
		ret = 0;
		goto out;
	}
	q = malloc(n * sizeof(*q));
	if (!q)
		goto out;
	n = 0;
	for (i = 0; i < m; i++) {
		size_t s, e = boundary(bd, k, v[i].end);

		for (s = boundary(bd, k, v[i].start); s < e; s++)
			q[n++] = (struct part){ .t_us = v[i].t_us,
				.idx = v[i].idx, .seg = s };
	}
	for (j = 0; j < n; j++) {
		q[j].len = 1;
		for (i = 0; i < j && q[i].idx < q[j].idx; i++) {
			bool apart = gap_us != CARD_FLOOR_NO_GAP &&
				     q[j].t_us > q[i].t_us &&
				     q[j].t_us - q[i].t_us > gap_us;

			if (q[j].seg <= q[i].seg &&
			    (q[j].seg == q[i].seg || apart) &&
			    q[i].len + 1 > q[j].len)
				q[j].len = q[i].len + 1;
		}
		if (q[j].len > *chain)
			*chain = q[j].len;
	}
	ret = 0;
out:
	free(q);
	free(bd);
	return ret;
}

/* A write as the switch bound sees it: when, and the AU of its first sector. */
struct visit {
	u64 t_us, au;
	size_t idx;
};

static int by_time(const void *a, const void *b)
{
	const struct visit *x = a, *y = b;

	if (x->t_us != y->t_us)
		return x->t_us < y->t_us ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int by_au_then_time(const void *a, const void *b)
{
	const struct visit *x = a, *y = b;

	if (x->au != y->au)
		return x->au < y->au ? -1 : 1;
	return by_time(a, b);
}

/* The first of the @n writes of @v (by time) whose time is after @t_us. */
static size_t first_after(const struct visit *v, size_t n, u64 t_us)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].t_us > t_us)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * The visits to AUs no order avoids (card-floor.h): in each AU, greedily
 * the earliest write that a write of another AU must separate from the
 * last one counted; the earliest choice at every step gives the longest
 * chain, as every window is @gap_us wide.
 */
static int least_visits(const struct card_extent *w, size_t n, u64 au_sz,
			u64 gap_us, u64 *visits)
{
	struct visit *t = NULL, *a = NULL;
	size_t *run_end = NULL, i, m = 0, b, e;
	int ret = -ENOMEM;

	*visits = 0;
	t = malloc((n ? n : 1) * sizeof(*t));
	a = malloc((n ? n : 1) * sizeof(*a));
	run_end = malloc((n ? n : 1) * sizeof(*run_end));
	if (!t || !a || !run_end)
		goto out;
	for (i = 0; i < n; i++)
		if (w[i].sectors)
			t[m++] = (struct visit){ .t_us = w[i].t_us,
				.au = w[i].start / au_sz, .idx = i };
	qsort(t, m, sizeof(*t), by_time);
	memcpy(a, t, m * sizeof(*t));
	qsort(a, m, sizeof(*a), by_au_then_time);
	/* run_end[i]: the first write at or after i in another AU than i's */
	for (i = m; i-- > 0;)
		run_end[i] = i + 1 < m && t[i + 1].au == t[i].au ?
			     run_end[i + 1] : i + 1;
	for (b = 0; b < m; b = e) {
		u64 cur = a[b].t_us;
		size_t j = b, k;

		for (e = b; e < m && a[e].au == a[b].au; e++)
			;
		++*visits;
		if (gap_us == CARD_FLOOR_NO_GAP)
			continue;
		for (;;) {
			/* the earliest write of another AU that leaves after cur's */
			if (cur > ULLONG_MAX - gap_us)
				break;
			k = first_after(t, m, cur + gap_us);
			if (k < m && t[k].au == a[b].au)
				k = run_end[k];
			if (k >= m || t[k].t_us > ULLONG_MAX - gap_us)
				break;
			/* and the earliest write of this AU that leaves after it */
			while (j < e && a[j].t_us <= t[k].t_us + gap_us)
				j++;
			if (j == e)
				break;
			++*visits;
			cur = a[j].t_us;
		}
	}
	ret = 0;
out:
	free(run_end);
	free(a);
	free(t);
	return ret;
}

int card_floor(const struct card_params *p, const struct card_extent *w,
	       size_t n, u64 gap_us, struct card_floor *out)
{
	u64 au_sz = p ? p->au_sectors : 0, runs;
	struct piece *v = NULL, *tmp = NULL;
	size_t i, m = 0, a, b;
	int ret = -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (card_params_check(p))
		return -EINVAL;
	/* one piece per AU a write touches */
	for (i = 0; i < n; i++) {
		if (!w[i].sectors)
			continue;
		if (w[i].start > ULLONG_MAX - w[i].sectors)
			return -EINVAL;
		m += (w[i].start + w[i].sectors - 1) / au_sz -
		     w[i].start / au_sz + 1;
	}
	v = malloc((m ? m : 1) * sizeof(*v));
	tmp = malloc((m ? m : 1) * sizeof(*tmp));
	if (!v || !tmp)
		goto out;
	m = 0;
	for (i = 0; i < n; i++) {
		u64 s = w[i].start, e = s + w[i].sectors;

		out->sectors += w[i].sectors;
		while (s < e) {
			u64 au = s / au_sz;
			u64 lim = (au + 1) * au_sz;

			v[m++] = (struct piece){ .au = au, .start = s,
				.end = e < lim ? e : lim, .t_us = w[i].t_us,
				.idx = i };
			s = e < lim ? e : lim;
		}
	}
	/* commands: the runs of the whole card (they may cross AUs) */
	memcpy(tmp, v, m * sizeof(*v));
	cover(tmp, m, &out->runs);

	qsort(v, m, sizeof(*v), by_au_then_trace);
	for (a = 0; a < m; a = b) {
		u64 written = 0, distinct, chain;
		double any, lin;

		for (b = a; b < m && v[b].au == v[a].au; b++)
			written += v[b].end - v[b].start;
		ret = longest_chain(v + a, b - a, gap_us, &chain);
		if (ret)
			goto out;
		memcpy(tmp, v + a, (b - a) * sizeof(*v));
		distinct = cover(tmp, b - a, &runs);
		any = (double)(au_sz - distinct);
		lin = (double)chain * (double)au_sz - (double)written;
		out->aus++;
		out->distinct += distinct;
		out->copy_sectors += any;
		out->openings += chain;
		out->linear_copy_sectors += lin > any ? lin : any;
	}
	ret = least_visits(w, n, au_sz, gap_us, &out->switches);
	if (ret)
		goto out;
	out->seconds = card_model_seconds(p, out->runs, out->sectors,
					  out->copy_sectors);
	out->linear_seconds = card_model_seconds(p, out->runs, out->sectors,
						 out->linear_copy_sectors);
out:
	free(tmp);
	free(v);
	return ret;
}
