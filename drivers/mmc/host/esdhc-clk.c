// SPDX-License-Identifier: GPL-2.0
/*
 * eSDHC SD clock divider arithmetic.  See esdhc-clk.h.
 */
#include <linux/bitfield.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/log2.h>
#include <linux/mmc/host.h>
#include <kunit/visibility.h>

#include "esdhc-clk.h"
#include "esdhc-io.h"

/**
 * esdhc_clk_pick - fastest SD clock that does not exceed a target
 * @base_hz: eSDHC base clock (platform clock / 2 on e500)
 * @target_hz: wanted SD clock; 0 is not a clock (the caller gates instead)
 * @min_prescaler: smallest usable prescaler: 2 on vendor version 2.2 and
 *	older, whose SDCLKFS cannot bypass the prescaler, 1 otherwise
 * @div: the chosen setting
 *
 * Every prescaler is tried with its smallest fitting divisor: at most
 * 9 x 16 multiplications, nothing next to a clock change, and plainly the
 * fastest fitting ratio with no argument about search order needed.  A
 * setting qualifies when base / ratio <= target exactly, so a clock a
 * fraction of a hertz above the target never passes through rounding.  On
 * equal ratios the smaller prescaler wins.
 *
 * Return: 0; -EINVAL for a zero clock or a bad @min_prescaler; -ERANGE
 * when even the slowest setting is above the target, in which case @div
 * still holds that slowest setting.
 */
int esdhc_clk_pick(unsigned int base_hz, unsigned int target_hz,
		   unsigned int min_prescaler, struct esdhc_clk_div *div)
{
	unsigned int best = 0, pre, d;

	if (!base_hz || !target_hz || !is_power_of_2(min_prescaler) ||
	    min_prescaler > ESDHC_CLK_MAX_PRESCALER)
		return -EINVAL;

	for (pre = min_prescaler; pre <= ESDHC_CLK_MAX_PRESCALER; pre *= 2) {
		for (d = 1; d <= ESDHC_CLK_MAX_DIVISOR; d++) {
			unsigned int ratio = pre * d;

			if ((u64)target_hz * ratio < base_hz)
				continue;
			/* larger divisors only get slower */
			if (!best || ratio < best) {
				best = ratio;
				div->prescaler = pre;
				div->divisor = d;
			}
			break;
		}
	}

	if (!best) {
		div->prescaler = ESDHC_CLK_MAX_PRESCALER;
		div->divisor = ESDHC_CLK_MAX_DIVISOR;
		div->hz = base_hz / (ESDHC_CLK_MAX_PRESCALER *
				     ESDHC_CLK_MAX_DIVISOR);
		return -ERANGE;
	}
	div->hz = base_hz / best;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(esdhc_clk_pick);

/**
 * esdhc_clk_sysctl - put a clock setting into a SYSCTL value
 * @sysctl: current SYSCTL; everything but SDCLKFS and DVS is kept
 * @div: setting from esdhc_clk_pick()
 *
 * Return: the SYSCTL value to write.
 */
u32 esdhc_clk_sysctl(u32 sysctl, const struct esdhc_clk_div *div)
{
	sysctl &= ~ESDHC_SYSCTL_CLOCK;
	sysctl |= FIELD_PREP(ESDHC_SYSCTL_SDCLKFS, div->prescaler / 2);
	sysctl |= FIELD_PREP(ESDHC_SYSCTL_DVS, div->divisor - 1);
	return sysctl;
}
EXPORT_SYMBOL_IF_KUNIT(esdhc_clk_sysctl);

/**
 * esdhc_clk_gate_bits - SYSCTL bits that stop the SD clock when cleared
 * @has_only_sdclken: vendor version 2.3 or newer
 *
 * Controllers up to vendor version 2.2 (the e500v2 P1/P2 parts) gate the
 * card clock through the IPG, HCK and PER enables; later ones have a
 * single SD clock enable and the older bits are reserved.
 *
 * Return: the mask to clear before touching the divider, and to set after.
 */
u32 esdhc_clk_gate_bits(bool has_only_sdclken)
{
	if (has_only_sdclken)
		return ESDHC_SYSCTL_SDCLKEN;
	return ESDHC_SYSCTL_SDCLKEN | ESDHC_SYSCTL_PEREN |
	       ESDHC_SYSCTL_HCKEN | ESDHC_SYSCTL_IPGEN;
}
EXPORT_SYMBOL_IF_KUNIT(esdhc_clk_gate_bits);

/*
 * P1010 (and P1014): its eSDHC does not run reliably at the SD clocks
 * the spec allows; these are the ceilings 6.1's sdhci-of-esdhc.c applies
 * to it (p1010_esdhc_clk).
 */
const struct esdhc_clk_caps esdhc_clk_caps_p1010 = {
	.sd_default	= 20000000,
	.legacy		= 20000000,
	.mmc_hs		= 42000000,
	.sd_hs		= 40000000,
};
EXPORT_SYMBOL_IF_KUNIT(esdhc_clk_caps_p1010);

/**
 * esdhc_clk_cap - the SD clock to ask for, after a part's ceilings
 * @clock: what the MMC core asks for, in Hz
 * @timing: MMC_TIMING_* of the bus
 * @sd_card: the card is an SD card
 * @caps: the part's ceilings, or NULL for none
 *
 * Return: @clock, or the ceiling for @timing when that is lower.
 */
unsigned int esdhc_clk_cap(unsigned int clock, unsigned char timing,
			   bool sd_card, const struct esdhc_clk_caps *caps)
{
	unsigned int cap = 0;

	if (!caps)
		return clock;
	switch (timing) {
	case MMC_TIMING_LEGACY:
		cap = sd_card ? caps->sd_default : caps->legacy;
		break;
	case MMC_TIMING_MMC_HS:
		cap = caps->mmc_hs;
		break;
	case MMC_TIMING_SD_HS:
		cap = caps->sd_hs;
		break;
	}
	return cap && clock > cap ? cap : clock;
}
EXPORT_SYMBOL_IF_KUNIT(esdhc_clk_cap);
