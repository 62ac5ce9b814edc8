/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Card profiles for the cardtime filter: profile=NAME picks one, the
 * other parameters override single fields.
 *
 * "cheap12" is the analyzer's default card (Documentation/card-cost-model.md:
 * 12 MB/s sequential, 12 MB/s internal copy, 500 us per write command,
 * 2 open AUs of 4 MiB, linear-only), so cardtrace's default estimate and
 * this profile charge the same writes the same.  The cost model page gives
 * no read speed; 20 MB/s is our rounded figure for a class 10 card in
 * high-speed mode, whose bus tops out at 25 MB/s.
 *
 * "flashbench-readme" is made from one real card's measured figures: the
 * example runs in flashbench's README (Debian's package flashbench 62-1,
 * /usr/share/doc/flashbench/README.gz; flashbench is the tool of the
 * Linaro flash card survey, by its author), card not named there.  Its
 * "flashbench -a" boundaries put the AU at 4 MiB; "--open-au" with 4 MiB
 * blocks ran 8.79 M/s with 2 AUs open, and with 3 AUs fell to 7.75, 5.03,
 * 3.24, 1.76 and 0.912 M/s at 4 MiB down to 256 KiB blocks, so 2 open
 * AUs, written in linear order (the README's runs are not --random).
 * flashbench's M is 10^6 bytes (it divides by 1000), as is this file's
 * MB: 8.8 MB/s sequential, from the two-AU 4 MiB row with the 500 us
 * command cost; the internal copy, 15.4 MB/s, is fitted to the three-AU
 * rows at 1 MiB, 512 KiB and 256 KiB (each block there closes an AU and
 * opens one, and the model copies the closed AU's unwritten part each
 * time), which the model then gives within 1 %, and the two-AU 4 MiB row
 * too (qemu/cardtime/test.sh checks the four).  The README has no read
 * speed, no per-command cost and no FAT area: cheap12's 20 MB/s and
 * 500 us stand in, and no profile models a FAT area, for want of a
 * source that gives one's figures.  Rows the model cannot meet, as it
 * charges nothing for moving between open AUs but a command: the
 * three-AU rows at 4 and 2 MiB, where the card ran 7.75 and 5.03 M/s and
 * the model gives 8.80 and 5.59 (no copy at 4 MiB, a quarter AU at 2),
 * and the two-AU rows at 2 MiB to 256 KiB, where the card ran 6.27-7.41
 * M/s and the model 8.65-8.77: at the same blocks, the card's cost of a
 * switch between its two open AUs grows with the number of switches.
 *
 * The other profiles are ILLUSTRATIVE, not measurements of any one card:
 * their figures are rounded from the SD specification's speed classes
 * (class 4: at least 4 MB/s, class 10: at least 10 MB/s, UHS speed class
 * U3: at least 30 MB/s, each for sequential writes into free AUs) and from
 * the flashbench-style measurements of the Linaro flash card survey and
 * LWN article 428584 (AUs of 4 MiB or more; cheap cards keep 1-2 AUs
 * open and want linear order, better ones keep about 4-8 open and accept
 * any order inside them; an internal copy costs about as much as a
 * write).
 */
#ifndef CARDTIME_PROFILES_H
#define CARDTIME_PROFILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct card_profile {
	const char *name;
	const char *what;
	uint64_t au_bytes;
	unsigned int open_aus;
	bool linear;
	double write_mbps, read_mbps, copy_mbps, cmd_us;
};

#define CARDTIME_MIB (1024ull * 1024)

static const struct card_profile card_profiles[] = {
	{ "cheap12", "cardtrace's default card: class 10, 2 open AUs, linear-only",
	  4 * CARDTIME_MIB, 2, true, 12, 20, 12, 500 },
	/* measured: the card of flashbench's README, see above */
	{ "flashbench-readme", "the card in flashbench's README: 2 open AUs, linear-only",
	  4 * CARDTIME_MIB, 2, true, 8.8, 20, 15.4, 500 },
	/* illustrative: class 4 minimum rounded up, one open AU */
	{ "class4", "illustrative: slow class 4 card, 1 open AU, linear-only",
	  4 * CARDTIME_MIB, 1, true, 5, 15, 5, 1000 },
	/* illustrative: a better class 10 card with a page map per AU */
	{ "class10-any", "illustrative: class 10, 5 open AUs, any order in an AU",
	  4 * CARDTIME_MIB, 5, false, 15, 22, 15, 300 },
	/* illustrative: UHS-I U3 card (SDR104 bus: 104 MB/s at most) */
	{ "u3-any", "illustrative: UHS-I U3, 8 MiB AUs, 8 open, any order",
	  8 * CARDTIME_MIB, 8, false, 35, 80, 35, 200 },
};

#define CARD_PROFILE_DEFAULT "cheap12"
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif
#define CARD_PROFILE_COUNT ARRAY_SIZE(card_profiles)

static inline const struct card_profile *card_profile_find(const char *name)
{
	size_t i;

	for (i = 0; i < CARD_PROFILE_COUNT; i++)
		if (!strcmp(card_profiles[i].name, name))
			return &card_profiles[i];
	return NULL;
}

#endif /* CARDTIME_PROFILES_H */
