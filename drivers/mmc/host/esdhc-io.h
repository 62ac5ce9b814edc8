/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Register access layer for the Freescale/NXP eSDHC (e500 P1/P2/QorIQ).
 *
 * The eSDHC only decodes aligned 32-bit accesses, and several of its words
 * do not follow the SDHCI layout.  The SDHCI library, however, talks in
 * 8-, 16- and 32-bit SDHCI registers.  The functions declared here turn
 * one SDHCI access into one or two 32-bit accesses of the eSDHC word and
 * fix up the fields whose position differs.
 *
 * The layer never touches hardware itself: it goes through the two
 * callbacks in struct esdhc_io, so the KUnit suite can run it against an
 * in-memory register file and the OF glue against ioread32be().
 */
#ifndef _SDHCI_ESDHC_E500_IO_H
#define _SDHCI_ESDHC_E500_IO_H

#include <linux/bits.h>
#include <linux/types.h>

/*
 * ESDHC_PRSSTAT, ESDHC_PROCTL (SDHCI's host/power/gap/wakeup bytes),
 * ESDHC_DMA_SYSCTL (e500's "DCR": snooping, clock select), ESDHC_DMA_SNOOP
 * and ESDHC_PERIPHERAL_CLK_SEL: the family's, shared with sdhci-of-esdhc.
 */
#include "sdhci-esdhc.h"

/* eSDHC words whose name or layout differ from SDHCI (byte offsets). */
#define ESDHC_XFERTYP		0x0c	/* transfer mode + command, one word */
#define ESDHC_SYSCTL		0x2c	/* clock, timeout and reset bytes */
#define ESDHC_IRQSTAT		0x30	/* write 1 to clear, both halves */
#define ESDHC_HOSTCAPBLT	0x40
#define ESDHC_WML		0x44	/* watermark, where SDHCI has caps 1 */
#define ESDHC_FEVT		0x50	/* write-only event forcing */
#define ESDHC_HOSTVER		0xfc

/* PRSSTAT */
#define ESDHC_PRSSTAT_SDSTB	BIT(3)		/* SD clock stable */
#define ESDHC_PRSSTAT_GATES	GENMASK(7, 4)	/* IPGOFF..SDOFF */
#define ESDHC_PRSSTAT_CLSL	BIT(23)		/* CMD line level */
#define ESDHC_PRSSTAT_DLSL	GENMASK(31, 24)	/* DAT[7:0] line levels */

/* PROCTL */
#define ESDHC_PROCTL_LCTL	BIT(0)		/* LED; reserved for SDHCI */
#define ESDHC_PROCTL_DTW	GENMASK(2, 1)	/* data width */
#define ESDHC_PROCTL_DTW_4	BIT(1)		/* DTW = 01 */
#define ESDHC_PROCTL_DTW_8	BIT(2)		/* DTW = 10 */
#define ESDHC_PROCTL_KEEP	GENMASK(5, 3)	/* D3CD, endian mode */
#define ESDHC_PROCTL_CDTL	BIT(6)		/* card detect test level */
#define ESDHC_PROCTL_CDSS	BIT(7)		/* card detect test select */
#define ESDHC_PROCTL_DMAS	GENMASK(9, 8)	/* 0 SDMA, 1 ADMA1, 2 ADMA2 */
#define ESDHC_PROCTL_DMAS_SHIFT	8

/* SYSCTL */
#define ESDHC_SYSCTL_IPGEN	BIT(0)
#define ESDHC_SYSCTL_HCKEN	BIT(1)
#define ESDHC_SYSCTL_PEREN	BIT(2)
#define ESDHC_SYSCTL_SDCLKEN	BIT(3)
#define ESDHC_SYSCTL_DVS	GENMASK(7, 4)
#define ESDHC_SYSCTL_DVS_SHIFT	4
#define ESDHC_SYSCTL_SDCLKFS	GENMASK(15, 8)
#define ESDHC_SYSCTL_SDCLKFS_SHIFT 8
#define ESDHC_SYSCTL_CLOCK	(ESDHC_SYSCTL_SDCLKFS | ESDHC_SYSCTL_DVS)

/* HOSTCAPBLT: eSDHC reports "ADMA supported" where SDHCI has ADMA1. */
#define ESDHC_HOSTCAPBLT_ADMAS	BIT(20)

/* HOSTVER vendor versions */
#define ESDHC_VENDOR_V22	0x12
#define ESDHC_VENDOR_V23	0x13

/* Behaviour switches of struct esdhc_io, chosen by the glue. */
/* Advertise ADMA2 when HOSTCAPBLT says ADMA is there (vendor > 2.2). */
#define ESDHC_IO_ADMA2			BIT(0)
/* Non-standard host control (P2020): only the bus width may change. */
#define ESDHC_IO_HOSTCTL_WIDTH_ONLY	BIT(1)
/* Data line active is unreliable after busy commands (P2020). */
#define ESDHC_IO_IGNORE_DATA_INHIBIT	BIT(2)
/*
 * Vendor 2.3 ADMA erratum (esdhc-errata.c): every write of IRQSTATEN also
 * enables the block gap event status, so that an ADMA error raised at a
 * block gap shows BLK_GAP beside it; the signal enable is left alone.
 */
#define ESDHC_IO_ADMA_GAP		BIT(3)
/* T4240 rev 1.0 and 2.0: HOSTVER reads as vendor 2.3, SDHCI spec 2.0. */
#define ESDHC_IO_HOSTVER_V23		BIT(4)

/**
 * struct esdhc_io - one eSDHC register file as seen by the SDHCI library
 * @ctx: cookie handed to @read32 and @write32
 * @read32: read the aligned 32-bit word at byte offset @off, CPU order
 * @write32: write the aligned 32-bit word at byte offset @off, CPU order
 * @flags: ESDHC_IO_* behaviour switches
 * @xfer_mode: SDHCI transfer mode waiting for the command write
 *
 * The SDHCI library serialises register access with host->lock, which
 * also covers @xfer_mode.
 */
struct esdhc_io {
	void *ctx;
	u32 (*read32)(void *ctx, unsigned int off);
	void (*write32)(void *ctx, unsigned int off, u32 val);
	unsigned int flags;
	u16 xfer_mode;
};

u32 esdhc_io_readl(struct esdhc_io *io, int reg);
u16 esdhc_io_readw(struct esdhc_io *io, int reg);
u8 esdhc_io_readb(struct esdhc_io *io, int reg);
void esdhc_io_writel(struct esdhc_io *io, u32 val, int reg);
void esdhc_io_writew(struct esdhc_io *io, u16 val, int reg);
void esdhc_io_writeb(struct esdhc_io *io, u8 val, int reg);

#endif /* _SDHCI_ESDHC_E500_IO_H */
