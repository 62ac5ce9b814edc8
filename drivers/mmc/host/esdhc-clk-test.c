// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: eSDHC clock divider arithmetic (esdhc-clk.c).
 */
#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/mmc/host.h>
#include <linux/string.h>

#include "esdhc-clk.h"
#include "esdhc-io.h"

struct clk_case {
	const char *name;
	unsigned int base;
	unsigned int target;
	unsigned int min_pre;
	int ret;
	unsigned int pre;
	unsigned int div;
	unsigned int hz;
};

static const struct clk_case clk_cases[] = {
	/* 400 kHz identification clock from common e500 base clocks */
	{ "100M_id_v22", 100000000, 400000, 2, 0, 16, 16, 390625 },
	{ "400M_id_v23", 400000000, 400000, 1, 0, 64, 16, 390625 },
	{ "200M_id_v23", 200000000, 400000, 1, 0, 32, 16, 390625 },
	{ "133M_id_v22", 133333333, 400000, 2, 0, 32, 11, 378787 },
	{ "166M_id_v22", 166666666, 400000, 2, 0, 32, 14, 372023 },
	/* data clocks */
	{ "300M_50M_v22", 300000000, 50000000, 2, 0, 2, 3, 50000000 },
	{ "300M_25M_v22", 300000000, 25000000, 2, 0, 2, 6, 25000000 },
	{ "300M_25M_v23", 300000000, 25000000, 1, 0, 1, 12, 25000000 },
	/* on equal ratios the smaller prescaler wins */
	{ "50M_25M_v23", 50000000, 25000000, 1, 0, 1, 2, 25000000 },
	{ "50M_25M_v22", 50000000, 25000000, 2, 0, 2, 1, 25000000 },
	/* target at or above the base clock */
	{ "equal_base", 100000000, 100000000, 1, 0, 1, 1, 100000000 },
	{ "above_base_v23", 50000000, 52000000, 1, 0, 1, 1, 50000000 },
	{ "above_base_v22", 50000000, 52000000, 2, 0, 2, 1, 25000000 },
	{ "max_u32", 4294967295U, 4294967295U, 1, 0, 1, 1, 4294967295U },
	/* 100M / 3 is 33333333.3 Hz: above a 33333333 Hz target */
	{ "no_round_up", 100000000, 33333333, 1, 0, 1, 4, 25000000 },
	/* too slow to reach: slowest setting and -ERANGE */
	{ "unreachable", 400000000, 50000, 2, -ERANGE, 256, 16, 97656 },
	{ "one_hz", 1000000000, 1, 1, -ERANGE, 256, 16, 244140 },
	/* not a clock request */
	{ "target_zero", 100000000, 0, 1, -EINVAL },
	{ "base_zero", 0, 400000, 1, -EINVAL },
	{ "min_pre_not_pow2", 100000000, 400000, 3, -EINVAL },
	{ "min_pre_too_big", 100000000, 400000, 512, -EINVAL },
};

static void clk_case_desc(const struct clk_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(clk_pick, clk_cases, clk_case_desc);

static void esdhc_clk_pick_table(struct kunit *test)
{
	const struct clk_case *c = test->param_value;
	struct esdhc_clk_div div = { };
	int ret;

	ret = esdhc_clk_pick(c->base, c->target, c->min_pre, &div);
	KUNIT_ASSERT_EQ(test, ret, c->ret);
	if (ret == -EINVAL)
		return;
	KUNIT_EXPECT_EQ(test, div.prescaler, c->pre);
	KUNIT_EXPECT_EQ(test, div.divisor, c->div);
	KUNIT_EXPECT_EQ(test, div.hz, c->hz);
}

/*
 * Against an independent oracle: the result never exceeds the target, and
 * no achievable ratio smaller than the chosen one fits, i.e. nothing
 * faster would do.
 */
static void esdhc_clk_check_optimal(struct kunit *test, u64 base, u64 target,
				    unsigned int min_pre)
{
	struct esdhc_clk_div div;
	unsigned int ratio, r, p;

	if (esdhc_clk_pick(base, target, min_pre, &div))
		return;
	ratio = div.prescaler * div.divisor;
	KUNIT_EXPECT_LE(test, base, target * ratio);
	KUNIT_EXPECT_EQ(test, div.hz, (unsigned int)div_u64(base, ratio));
	KUNIT_EXPECT_GE(test, div.prescaler, min_pre);
	for (p = min_pre; p <= ESDHC_CLK_MAX_PRESCALER; p *= 2) {
		for (r = p; r < ratio && r <= p * ESDHC_CLK_MAX_DIVISOR; r += p)
			KUNIT_EXPECT_GT_MSG(test, base, target * r,
					    "base %llu target %llu: %u fits, %u chosen",
					    base, target, r, ratio);
	}
}

static void esdhc_clk_pick_optimal(struct kunit *test)
{
	static const unsigned int bases[] = {
		25000000, 33333333, 100000000, 133333333, 166666666,
		200000000, 266666666, 300000000, 400000000,
	};
	static const unsigned int targets[] = {
		100000, 400000, 1000000, 12500000, 20000000, 25000000,
		26000000, 50000000, 52000000, 100000000,
	};
	unsigned int b, t;

	for (b = 0; b < ARRAY_SIZE(bases); b++) {
		for (t = 0; t < ARRAY_SIZE(targets); t++) {
			esdhc_clk_check_optimal(test, bases[b], targets[t], 1);
			esdhc_clk_check_optimal(test, bases[b], targets[t], 2);
		}
	}
}

static void esdhc_clk_sysctl_fields(struct kunit *test)
{
	struct esdhc_clk_div d1 = { .prescaler = 1, .divisor = 1 };
	struct esdhc_clk_div d16 = { .prescaler = 16, .divisor = 16 };
	struct esdhc_clk_div d256 = { .prescaler = 256, .divisor = 1 };
	struct esdhc_clk_div d2 = { .prescaler = 2, .divisor = 16 };

	/* SDCLKFS = prescaler / 2 in 15:8, DVS = divisor - 1 in 7:4 */
	KUNIT_EXPECT_EQ(test, esdhc_clk_sysctl(0, &d1), 0x0000U);
	KUNIT_EXPECT_EQ(test, esdhc_clk_sysctl(0, &d16), 0x08f0U);
	KUNIT_EXPECT_EQ(test, esdhc_clk_sysctl(0, &d256), 0x8000U);
	KUNIT_EXPECT_EQ(test, esdhc_clk_sysctl(0, &d2), 0x01f0U);
	/* timeout, reset and enable bits survive, old divider does not */
	KUNIT_EXPECT_EQ(test, esdhc_clk_sysctl(0xffffffff, &d16), 0xffff08ffU);
	KUNIT_EXPECT_EQ(test, esdhc_clk_sysctl(0x000e8f7f, &d1), 0x000e000fU);
}

static void esdhc_clk_gates(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, esdhc_clk_gate_bits(true), ESDHC_SYSCTL_SDCLKEN);
	KUNIT_EXPECT_EQ(test, esdhc_clk_gate_bits(false),
			ESDHC_SYSCTL_SDCLKEN | ESDHC_SYSCTL_PEREN |
			ESDHC_SYSCTL_HCKEN | ESDHC_SYSCTL_IPGEN);
	/* the gate bits never overlap the divider */
	KUNIT_EXPECT_EQ(test, esdhc_clk_gate_bits(false) & ESDHC_SYSCTL_CLOCK,
			0U);
}

/* P1010's ceilings apply per timing and never raise a slower clock. */
static void esdhc_clk_caps_p1010_table(struct kunit *test)
{
	const struct esdhc_clk_caps *c = &esdhc_clk_caps_p1010;

	KUNIT_EXPECT_EQ(test, esdhc_clk_cap(25000000, MMC_TIMING_LEGACY, true,
					    c), 20000000U);
	KUNIT_EXPECT_EQ(test, esdhc_clk_cap(26000000, MMC_TIMING_LEGACY,
					    false, c), 20000000U);
	KUNIT_EXPECT_EQ(test, esdhc_clk_cap(50000000, MMC_TIMING_SD_HS, true,
					    c), 40000000U);
	KUNIT_EXPECT_EQ(test, esdhc_clk_cap(52000000, MMC_TIMING_MMC_HS,
					    false, c), 42000000U);
	/* card identification at 400 kHz and other slow clocks pass */
	KUNIT_EXPECT_EQ(test, esdhc_clk_cap(400000, MMC_TIMING_LEGACY, false,
					    c), 400000U);
	KUNIT_EXPECT_EQ(test, esdhc_clk_cap(40000000, MMC_TIMING_SD_HS, true,
					    c), 40000000U);
	/* a timing without a ceiling, and a part without any */
	KUNIT_EXPECT_EQ(test, esdhc_clk_cap(100000000, MMC_TIMING_UHS_SDR50,
					    true, c), 100000000U);
	KUNIT_EXPECT_EQ(test, esdhc_clk_cap(50000000, MMC_TIMING_SD_HS, true,
					    NULL), 50000000U);
}

static struct kunit_case esdhc_clk_cases[] = {
	KUNIT_CASE_PARAM(esdhc_clk_pick_table, clk_pick_gen_params),
	KUNIT_CASE(esdhc_clk_pick_optimal),
	KUNIT_CASE(esdhc_clk_sysctl_fields),
	KUNIT_CASE(esdhc_clk_gates),
	KUNIT_CASE(esdhc_clk_caps_p1010_table),
	{ }
};

static struct kunit_suite esdhc_clk_suite = {
	.name = "sdhci_esdhc_e500_clk",
	.test_cases = esdhc_clk_cases,
};

kunit_test_suite(esdhc_clk_suite);
