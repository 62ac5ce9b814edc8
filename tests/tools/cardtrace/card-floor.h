/* SPDX-License-Identifier: GPL-2.0 */
/*
 * card-floor - a lower bound on the card time of a set of writes, whatever
 * order and grouping a scheduler gives them (Documentation/card-cost-model.md,
 * "The floor").
 *
 * Any scheduler that sends every write (nothing dropped, nothing invented)
 * pays at least, on the cost model of card-model.h:
 *  - every written sector once at the sequential speed (rewrites too);
 *  - one command per maximal run of contiguous written sectors, since a
 *    command covers one contiguous range;
 *  - in every AU it writes, the copy of each sector of that AU that no
 *    write covers: the last time the card closes the AU (at the latest at
 *    the end), it copies what that opening did not write, which includes
 *    every sector never written; linear-only and any-order alike.
 * It ignores time (how long a write may wait), the open-AU limit and the
 * order within an AU, so it lies at or below the best any scheduler
 * bound by those rules can do; how far below is not known.
 */
#ifndef CARD_FLOOR_H
#define CARD_FLOOR_H

#include <stddef.h>

#include "card-model.h"

struct card_extent {
	u64 start;	/* first sector */
	u64 sectors;
};

struct card_floor {
	u64 runs;		/* maximal runs of contiguous written sectors */
	u64 sectors;		/* every write's sectors, rewrites included */
	u64 aus;		/* AUs written */
	u64 distinct;		/* sectors written at least once */
	double copy_sectors;	/* aus x AU size - distinct */
	double seconds;		/* runs x command cost + sectors + copies */
};

/*
 * The floor of @n writes @w under @p (checked as card_model_init() does).
 * Returns 0, -EINVAL (bad parameters, a write past UINT64_MAX) or -ENOMEM;
 * @w is not changed.  Zero-length writes count for nothing.
 */
int card_floor(const struct card_params *p, const struct card_extent *w,
	       size_t n, struct card_floor *out);

#endif /* CARD_FLOOR_H */
