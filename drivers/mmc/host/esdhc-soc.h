/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What an eSDHC host of an e500 SoC gets from its device tree node and
 * its SoC: SDHCI quirks, register layer switches and errata.  A pure
 * function of the node's compatible strings, the SoC's SVR and the
 * controller's vendor version, so that the table test of the kernel's
 * own device trees (tests/esdhc-dt-tests.sh) runs it on the host.
 */
#ifndef _SDHCI_ESDHC_E500_SOC_H
#define _SDHCI_ESDHC_E500_SOC_H

#include <linux/types.h>

struct esdhc_clk_caps;

/* esdhc_soc_quirks.flags */
/* P2020: wait before a data reset while DMA may still run. */
#define ESDHC_SOC_DMA_RESET_DELAY	BIT(0)
/* P2020: transfer complete can come early during CMD25. */
#define ESDHC_SOC_EARLY_DATA_END	BIT(1)

/**
 * struct esdhc_soc_quirks - the host's quirks, in and out
 * @quirks: SDHCI_QUIRK_*: what the platform data and sdhci_get_property()
 *	    set on the way in, the host's on the way out
 * @quirks2: SDHCI_QUIRK2_*, the same way
 * @io_flags: ESDHC_IO_* for the register access layer
 * @flags: ESDHC_SOC_*
 * @clk_caps: SD clock ceilings of the part, NULL for none
 */
struct esdhc_soc_quirks {
	u32 quirks;
	u32 quirks2;
	unsigned int io_flags;
	unsigned int flags;
	const struct esdhc_clk_caps *clk_caps;
};

void esdhc_soc_quirks(const char *const *compat, unsigned int ncompat,
		      u32 svr, u8 vendor_ver, struct esdhc_soc_quirks *q);
unsigned int esdhc_errata_vendor_io_flags(u8 vendor_ver);

#endif /* _SDHCI_ESDHC_E500_SOC_H */
