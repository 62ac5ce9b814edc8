// SPDX-License-Identifier: GPL-2.0
/*
 * The quirks of an e500 eSDHC host, see esdhc-soc.h.  They follow what
 * 6.1's sdhci-of-esdhc.c applies to the same node on the same SoC:
 * sdhci_esdhc_probe() and esdhc_init() test the node's compatibles with
 * of_device_is_compatible() (any position in the list, so the order of a
 * node's compatibles never matters) and the SoC with soc_device_match(),
 * whose family and revision fsl_guts makes from the SVR.  A node that
 * names no part ("fsl,esdhc" alone, as the P1021, P1025, BSC9131,
 * BSC9132, MPC8569 and B4 trees give it) takes the part from the SVR.
 */
#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "sdhci.h"
#include "esdhc-clk.h"
#include "esdhc-io.h"
#include "esdhc-soc.h"

/* Part flags */
#define PART_CD_WORKS	BIT(0)	/* card detect is wired and reliable */
#define PART_TIMEOUT	BIT(1)	/* data timeout value 0xf does not work */
#define PART_P2020	BIT(2)	/* the P2020 errata */
#define PART_P1010_CLK	BIT(3)	/* P1010 SD clock ceilings */

/* An SVR names its SoC in the bits "mask" keeps (fsl_guts' die masks). */
#define SVR_SOC(ver)	((u32)(ver) << 8)
#define SVR_SOC_MASK	0xfff7ff00	/* SVR_SOC_VER() less the E bit */
#define SVR_DIE_MASK	0xfff00000
#define SVR_REV(svr)	((svr) & 0xff)	/* major.minor, 0x20 is 2.0 */

#define SVR_T4240_DIE	0x82400000
#define SVR_T1040_DIE	0x85200000

/**
 * struct esdhc_soc_part - an eSDHC part with more than the base quirks
 * @compatible: its compatible
 * @svr: the SVRs of the SoCs that have it (asm/mpc85xx.h, fsl_guts' dies)
 * @mask: which bits of the SVR name the SoC
 * @flags: PART_*
 */
struct esdhc_soc_part {
	const char *compatible;
	u32 svr[2];
	u32 mask;
	unsigned int flags;
};

static const struct esdhc_soc_part esdhc_soc_parts[] = {
	/* MPC8536, MPC8535 */
	{ "fsl,mpc8536-esdhc", { SVR_SOC(0x803700), SVR_SOC(0x803701) },
	  SVR_SOC_MASK, PART_TIMEOUT },
	/* P1010, P1014 */
	{ "fsl,p1010-esdhc", { SVR_SOC(0x80f100), SVR_SOC(0x80f101) },
	  SVR_SOC_MASK, PART_TIMEOUT | PART_P1010_CLK },
	/* P1020, P1011 */
	{ "fsl,p1020-esdhc", { SVR_SOC(0x80e400), SVR_SOC(0x80e500) },
	  SVR_SOC_MASK, PART_CD_WORKS },
	/* P2020, P2010 */
	{ "fsl,p2020-esdhc", { SVR_SOC(0x80e200), SVR_SOC(0x80e300) },
	  SVR_SOC_MASK, PART_TIMEOUT | PART_P2020 },
	/* P4080, P4040 */
	{ "fsl,p4080-esdhc", { SVR_SOC(0x820000), SVR_SOC(0x820100) },
	  SVR_SOC_MASK, PART_CD_WORKS },
	/* P5020, P5010 */
	{ "fsl,p5020-esdhc", { SVR_SOC(0x822000), SVR_SOC(0x822100) },
	  SVR_SOC_MASK, PART_CD_WORKS },
	{ "fsl,p5040-esdhc", { SVR_SOC(0x820400) }, SVR_SOC_MASK,
	  PART_CD_WORKS },
	/* the T1040 die: T1040, T1020, T1042, T1022 */
	{ "fsl,t1040-esdhc", { SVR_T1040_DIE }, SVR_DIE_MASK, PART_CD_WORKS },
	/* the T4240 die: T4240, T4160, T4080 */
	{ "fsl,t4240-esdhc", { SVR_T4240_DIE }, SVR_DIE_MASK, PART_TIMEOUT },
};

/* A part's own compatible: "fsl,<part>-esdhc", not the family's. */
static bool esdhc_soc_names_part(const char *compat)
{
	size_t len = strlen(compat);

	return strcmp(compat, "fsl,esdhc") && len > 6 &&
	       !strcmp(compat + len - 6, "-esdhc");
}

static unsigned int esdhc_soc_part_flags(const char *const *compat,
					 unsigned int ncompat, u32 svr)
{
	unsigned int i, j, flags = 0;
	bool named = false;

	for (i = 0; i < ncompat; i++) {
		named |= esdhc_soc_names_part(compat[i]);
		for (j = 0; j < ARRAY_SIZE(esdhc_soc_parts); j++)
			if (!strcasecmp(compat[i], esdhc_soc_parts[j].compatible))
				flags |= esdhc_soc_parts[j].flags;
	}
	if (named)
		return flags;

	for (j = 0; j < ARRAY_SIZE(esdhc_soc_parts); j++) {
		const struct esdhc_soc_part *p = &esdhc_soc_parts[j];

		for (i = 0; i < ARRAY_SIZE(p->svr); i++)
			if (p->svr[i] && (svr & p->mask) == p->svr[i])
				return p->flags;
	}
	return 0;
}

/*
 * The ESDHC_IO_* erratum switches that the HOSTVER vendor version alone
 * decides.  The ADMA error at a block gap is a vendor 2.3 erratum:
 * exactly 2.3, as stock applies it, not "2.3 and newer" like the clock
 * and ADMA2 switches.
 */
unsigned int esdhc_errata_vendor_io_flags(u8 vendor_ver)
{
	return vendor_ver == ESDHC_VENDOR_V23 ? ESDHC_IO_ADMA_GAP : 0;
}
EXPORT_SYMBOL_IF_KUNIT(esdhc_errata_vendor_io_flags);

/**
 * esdhc_soc_quirks - the quirks of an eSDHC host
 * @compat: the node's compatible strings, in the node's order
 * @ncompat: how many
 * @svr: the SoC's System Version Register, 0 if unknown
 * @vendor_ver: HOSTVER's vendor version as read, 0x12 meaning 2.2
 * @q: on entry the quirks of the platform data and sdhci_get_property();
 *     on return the host's
 */
void esdhc_soc_quirks(const char *const *compat, unsigned int ncompat,
		      u32 svr, u8 vendor_ver, struct esdhc_soc_quirks *q)
{
	unsigned int part = esdhc_soc_part_flags(compat, ncompat, svr);
	bool die_t4240 = (svr & SVR_DIE_MASK) == SVR_T4240_DIE;

	/*
	 * The base clock is the driver's (get_max_clock), never the
	 * capabilities field, or the library's maximum and the driver's
	 * dividers would disagree where "clock-frequency" and that field
	 * differ.  Stock leaves this quirk off and uses the field when it
	 * is not zero.
	 */
	q->quirks |= SDHCI_QUIRK_CAP_CLOCK_BASE_BROKEN;
	/* Stock's PowerPC platform data: poll for the card ... */
	q->quirks |= SDHCI_QUIRK_BROKEN_CARD_DETECTION;
	/* ... unless its detect line works, whatever "broken-cd" says. */
	if (part & PART_CD_WORKS)
		q->quirks &= ~SDHCI_QUIRK_BROKEN_CARD_DETECTION;
	if (part & PART_TIMEOUT)
		q->quirks |= SDHCI_QUIRK_BROKEN_TIMEOUT_VAL;
	if (part & PART_P1010_CLK)
		q->clk_caps = &esdhc_clk_caps_p1010;
	/*
	 * P2020: reset after each request, a host control byte whose only
	 * usable field is the data width, an unreliable data line active
	 * bit, DMA that may still run when that reset comes, and an early
	 * transfer complete during multi-block writes.
	 */
	if (part & PART_P2020) {
		q->quirks |= SDHCI_QUIRK_RESET_AFTER_REQUEST;
		q->quirks2 |= SDHCI_QUIRK2_BROKEN_HOST_CONTROL;
		q->io_flags |= ESDHC_IO_HOSTCTL_WIDTH_ONLY |
			       ESDHC_IO_IGNORE_DATA_INHIBIT;
		q->flags |= ESDHC_SOC_DMA_RESET_DELAY |
			    ESDHC_SOC_EARLY_DATA_END;
	}
	/* T4240 rev 1.0 and 2.0 report a wrong HOSTVER. */
	if (die_t4240 && (SVR_REV(svr) == 0x10 || SVR_REV(svr) == 0x20))
		q->io_flags |= ESDHC_IO_HOSTVER_V23;

	/* 2.3 signals transfer complete after busy, and runs ADMA2. */
	if (vendor_ver >= ESDHC_VENDOR_V23) {
		q->quirks &= ~SDHCI_QUIRK_NO_BUSY_IRQ;
		q->io_flags |= ESDHC_IO_ADMA2;
	}
	/* CMD23 does not work on 2.2: multi-block transfers end with CMD12. */
	if (vendor_ver == ESDHC_VENDOR_V22)
		q->quirks2 |= SDHCI_QUIRK2_HOST_NO_CMD23;
	q->io_flags |= esdhc_errata_vendor_io_flags(vendor_ver);
}
