// SPDX-License-Identifier: GPL-2.0
/*
 * card-floor - the least card time of a set of writes in any order; see
 * card-floor.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "card-floor.h"

static int by_start(const void *a, const void *b)
{
	const struct card_extent *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

/*
 * Add the run [s, e) to the floor: its sectors, and the AUs it covers.
 * Runs come in ascending order and do not touch, so only the first AU of
 * a run can be the last AU of the run before it.
 */
static void add_run(struct card_floor *f, u64 au_sectors, u64 s, u64 e,
		    u64 *last_au)
{
	u64 first = s / au_sectors, last = (e - 1) / au_sectors;

	f->runs++;
	f->distinct += e - s;
	f->aus += last - first + 1 - (first == *last_au);
	*last_au = last;
}

int card_floor(const struct card_params *p, const struct card_extent *w,
	       size_t n, struct card_floor *out)
{
	struct card_extent *v;
	u64 run_s = 0, run_e = 0, last_au = ULLONG_MAX;
	size_t i, m = 0;
	bool in_run = false;

	memset(out, 0, sizeof(*out));
	if (card_params_check(p))
		return -EINVAL;
	v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (!w[i].sectors)
			continue;
		if (w[i].start > ULLONG_MAX - w[i].sectors) {
			free(v);
			return -EINVAL;
		}
		out->sectors += w[i].sectors;
		v[m++] = w[i];
	}
	qsort(v, m, sizeof(*v), by_start);
	/*
	 * Runs: sorted by start, a write that starts at or before the run's
	 * end joins it (touching ranges can be one command).
	 */
	for (i = 0; i < m; i++) {
		u64 s = v[i].start, e = s + v[i].sectors;

		if (in_run && s <= run_e) {
			if (e > run_e)
				run_e = e;
			continue;
		}
		if (in_run)
			add_run(out, p->au_sectors, run_s, run_e, &last_au);
		in_run = true;
		run_s = s;
		run_e = e;
	}
	if (in_run)
		add_run(out, p->au_sectors, run_s, run_e, &last_au);
	free(v);
	out->copy_sectors = (double)out->aus * (double)p->au_sectors -
			    (double)out->distinct;
	out->seconds = card_model_seconds(p, out->runs, out->sectors,
					  out->copy_sectors);
	return 0;
}
