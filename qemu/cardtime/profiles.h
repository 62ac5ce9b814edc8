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
