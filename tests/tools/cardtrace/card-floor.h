/* SPDX-License-Identifier: GPL-2.0 */
/*
 * card-floor - a lower bound on the card time of a trace's writes, whatever
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
 * On a linear-only card each opening of an AU (from its opening to its
 * close or to a write behind its write pointer) copies what it did not
 * write, so k openings that write W sectors copy k x AU - W.  An opening
 * writes each sector at most once, in ascending order, and a scheduler
 * may split a write into parts; so the writes' own boundaries cut each AU
 * into segments, and a part of a later write in a segment at or behind a
 * part of an earlier write needs an opening more if the earlier must
 * have left first: same segment (same-sector writes leave in arrival
 * order), or trace times more than @gap_us apart.  The longest chain of
 * such parts is a count of openings no scheduler avoids, whole commands
 * or split.
 *
 * It ignores the open-AU limit, and time except through @gap_us, so it
 * lies at or below the best any scheduler bound by those rules can do;
 * how far below is not known.
 *
 * The same rules bound the AU switches (cardtrace's au_switches: a write
 * whose first sector is in another AU than the write before it's).  A
 * write leaves in a window @gap_us wide around its trace time (up to the
 * recorded scheduler's hold before it, up to the hold of the one the
 * floor speaks for after it), so when a write k of
 * another AU lies more than @gap_us after a write i of AU A and more than
 * @gap_us before a later write j of A, k leaves between them, and i and j
 * need two visits to A.  The longest chain of such pairs is a count of
 * visits to A no order avoids; the sum over the AUs, of switches.  It
 * holds for orders that send each write as its own command or merge
 * writes that start in one AU; a merged command crossing into the next AU
 * counts at its first AU, as au_switches does, and could hide a visit.
 * Without @gap_us it is one visit per AU.
 */
#ifndef CARD_FLOOR_H
#define CARD_FLOOR_H

#include <stddef.h>

#include "card-model.h"

/* No time term: only overlapping writes force an AU to be opened again. */
#define CARD_FLOOR_NO_GAP	(~0ull)
/* AUs with more parts than this get no chain term (it is quadratic). */
#define CARD_FLOOR_CHAIN_MAX	8192u

struct card_extent {
	u64 t_us;	/* when the trace has it reach the card */
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
	/* linear-only card */
	u64 openings;		/* AU openings no order avoids, over all AUs */
	u64 switches;		/* AU switches no order avoids (visits) */
	double linear_copy_sectors;
	double linear_seconds;
};

/*
 * The floor of @n writes @w, in trace order, under @p (checked as
 * card_model_init() does), with @gap_us as above.  Returns 0, -EINVAL
 * (bad parameters, a write past UINT64_MAX) or -ENOMEM; @w is not
 * changed.  Zero-length writes count for nothing.
 */
int card_floor(const struct card_params *p, const struct card_extent *w,
	       size_t n, u64 gap_us, struct card_floor *out);

#endif /* CARD_FLOOR_H */
