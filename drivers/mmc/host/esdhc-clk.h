/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eSDHC SD clock divider arithmetic, free of any hardware access so that
 * it can be unit tested on its own.
 *
 * SDCLK = base clock / (prescaler * divisor), with the prescaler a power
 * of two from 1 to 256 (SYSCTL.SDCLKFS = prescaler / 2, 0 meaning 1) and
 * the divisor 1 to 16 (SYSCTL.DVS = divisor - 1).
 */
#ifndef _SDHCI_ESDHC_E500_CLK_H
#define _SDHCI_ESDHC_E500_CLK_H

#include <linux/types.h>

#define ESDHC_CLK_MAX_PRESCALER	256
#define ESDHC_CLK_MAX_DIVISOR	16

/**
 * struct esdhc_clk_div - one SYSCTL clock setting
 * @prescaler: 1, 2, 4, ... 256
 * @divisor: 1 to 16
 * @hz: resulting SD clock, rounded down
 */
struct esdhc_clk_div {
	unsigned int prescaler;
	unsigned int divisor;
	unsigned int hz;
};

/**
 * struct esdhc_clk_caps - a part's SD clock ceilings by bus timing, in Hz
 * @sd_default: an SD card at default speed (MMC_TIMING_LEGACY)
 * @legacy: any other card at MMC_TIMING_LEGACY
 * @mmc_hs: MMC high speed (MMC_TIMING_MMC_HS)
 * @sd_hs: SD high speed (MMC_TIMING_SD_HS)
 * 0 means no ceiling for that timing.
 */
struct esdhc_clk_caps {
	unsigned int sd_default;
	unsigned int legacy;
	unsigned int mmc_hs;
	unsigned int sd_hs;
};

extern const struct esdhc_clk_caps esdhc_clk_caps_p1010;

unsigned int esdhc_clk_cap(unsigned int clock, unsigned char timing,
			   bool sd_card, const struct esdhc_clk_caps *caps);
int esdhc_clk_pick(unsigned int base_hz, unsigned int target_hz,
		   unsigned int min_prescaler, struct esdhc_clk_div *div);
u32 esdhc_clk_sysctl(u32 sysctl, const struct esdhc_clk_div *div);
u32 esdhc_clk_gate_bits(bool has_only_sdclken);

#endif /* _SDHCI_ESDHC_E500_CLK_H */
