// SPDX-License-Identifier: GPL-2.0
/*
 * eSDHC register access layer: SDHCI 8/16/32-bit accesses on top of the
 * eSDHC's 32-bit-only register words.  See esdhc-io.h.
 */
#include <linux/bitfield.h>
#include <linux/export.h>
#include <kunit/visibility.h>

#include "sdhci.h"
#include "esdhc-io.h"

/* SDHCI byte lanes of the word at @reg: bit shift of @reg inside it. */
static unsigned int esdhc_io_shift(int reg)
{
	return (reg & 3) * 8;
}

static u32 esdhc_io_word(struct esdhc_io *io, int reg)
{
	return io->read32(io->ctx, reg & ~3);
}

/*
 * Words where a narrow write must not be widened with what was read:
 * IRQSTAT is write-1-to-clear, so writing back the other half would
 * acknowledge interrupts nobody has handled yet; FEVT is a write-only
 * trigger, so replaying its other lanes would force unwanted events.
 */
static bool esdhc_io_no_rmw(int reg)
{
	unsigned int word = reg & ~3;

	return word == ESDHC_IRQSTAT || word == ESDHC_FEVT;
}

/*
 * The word @val as it goes out to the SDHCI-layout word at @off, whatever
 * the width of the SDHCI access that made it.  On a part with the vendor
 * 2.3 ADMA erratum, IRQSTATEN always has the block gap event enabled: the
 * library never asks for it, and without it BLK_GAP would never latch in
 * IRQSTAT for esdhc_errata_adma_gap() to see.
 */
static void esdhc_io_put(struct esdhc_io *io, unsigned int off, u32 val)
{
	if (off == SDHCI_INT_ENABLE && (io->flags & ESDHC_IO_ADMA_GAP))
		val |= SDHCI_INT_BLK_GAP;
	io->write32(io->ctx, off, val);
}

/* Write the @width_mask wide SDHCI register @reg with @val. */
static void esdhc_io_write_lane(struct esdhc_io *io, u32 val, u32 width_mask,
				int reg)
{
	unsigned int shift = esdhc_io_shift(reg);
	u32 word = 0;

	if (!esdhc_io_no_rmw(reg))
		word = esdhc_io_word(io, reg) & ~(width_mask << shift);
	esdhc_io_put(io, reg & ~3, word | ((val & width_mask) << shift));
}

/*
 * PRSSTAT keeps the SDHCI bits 0-19 but puts the line levels elsewhere:
 * DAT[7:0] at 31:24 and CMD at 23, where SDHCI wants DAT[3:0] at 23:20
 * and CMD at 24.  Bits 3-7 are eSDHC clock status, not SDHCI state.
 */
static u32 esdhc_io_present_state(struct esdhc_io *io, u32 prs)
{
	u32 val = prs & GENMASK(19, 0) &
		  ~(ESDHC_PRSSTAT_SDSTB | ESDHC_PRSSTAT_GATES);

	val |= FIELD_PREP(SDHCI_DATA_LVL_MASK,
			  FIELD_GET(ESDHC_PRSSTAT_DLSL, prs) & 0xf);
	if (prs & ESDHC_PRSSTAT_CLSL)
		val |= SDHCI_CMD_LVL;
	/*
	 * On the P2020 the data line active bit can stay up after a busy
	 * command; the MMC core already waits for busy with CMD13, so not
	 * reporting it keeps the next command from timing out.
	 */
	if (io->flags & ESDHC_IO_IGNORE_DATA_INHIBIT)
		val &= ~SDHCI_DATA_INHIBIT;
	return val;
}

/*
 * The eSDHC flags ADMA support in the bit SDHCI uses for ADMA1, which the
 * SDHCI library never uses; only parts newer than vendor version 2.2 can
 * run ADMA2, so the glue decides through ESDHC_IO_ADMA2.
 */
static u32 esdhc_io_caps(struct esdhc_io *io, u32 caps)
{
	caps &= ~SDHCI_CAN_DO_ADMA2;
	if ((io->flags & ESDHC_IO_ADMA2) && (caps & ESDHC_HOSTCAPBLT_ADMAS))
		caps |= SDHCI_CAN_DO_ADMA2;
	return caps;
}

u32 esdhc_io_readl(struct esdhc_io *io, int reg)
{
	u32 val = esdhc_io_word(io, reg);

	switch (reg) {
	case SDHCI_PRESENT_STATE:
		return esdhc_io_present_state(io, val);
	case SDHCI_CAPABILITIES:
		return esdhc_io_caps(io, val);
	case SDHCI_CAPABILITIES_1:
		/* That is the watermark register: no SDHCI 3.0 caps here. */
		return 0;
	}
	return val;
}
EXPORT_SYMBOL_IF_KUNIT(esdhc_io_readl);

/* SYSCTL and PRSSTAT seen as the SDHCI clock control register. */
static u16 esdhc_io_clock_control(struct esdhc_io *io)
{
	u32 sysctl = io->read32(io->ctx, ESDHC_SYSCTL);
	u32 prs = io->read32(io->ctx, ESDHC_PRSSTAT);
	u16 clk;

	clk = FIELD_GET(ESDHC_SYSCTL_SDCLKFS, sysctl) << SDHCI_DIVIDER_SHIFT;
	if (sysctl & (ESDHC_SYSCTL_IPGEN | ESDHC_SYSCTL_HCKEN |
		      ESDHC_SYSCTL_PEREN | ESDHC_SYSCTL_SDCLKEN))
		clk |= SDHCI_CLOCK_INT_EN;
	if (prs & ESDHC_PRSSTAT_SDSTB)
		clk |= SDHCI_CLOCK_INT_STABLE;
	if (sysctl & (ESDHC_SYSCTL_PEREN | ESDHC_SYSCTL_SDCLKEN))
		clk |= SDHCI_CLOCK_CARD_EN;
	return clk;
}

u16 esdhc_io_readw(struct esdhc_io *io, int reg)
{
	switch (reg) {
	case SDHCI_TRANSFER_MODE:
		/* Not written to the hardware yet: see esdhc_io_writew(). */
		return io->xfer_mode;
	case SDHCI_HOST_VERSION:
		if (io->flags & ESDHC_IO_HOSTVER_V23)
			return ESDHC_VENDOR_V23 << SDHCI_VENDOR_VER_SHIFT |
			       SDHCI_SPEC_200;
		/* HOSTVER keeps vendor and spec version in the low half. */
		return io->read32(io->ctx, ESDHC_HOSTVER) & 0xffff;
	case SDHCI_SLOT_INT_STATUS:
		/* One slot and no slot interrupt status register. */
		return 0;
	case SDHCI_CLOCK_CONTROL:
		return esdhc_io_clock_control(io);
	}
	return esdhc_io_word(io, reg) >> esdhc_io_shift(reg);
}
EXPORT_SYMBOL_IF_KUNIT(esdhc_io_readw);

/* PROCTL seen as the SDHCI host control byte. */
static u8 esdhc_io_host_control(u32 proctl)
{
	u8 ctrl = 0;

	if ((proctl & ESDHC_PROCTL_DTW) == ESDHC_PROCTL_DTW_4)
		ctrl |= SDHCI_CTRL_4BITBUS;
	else if ((proctl & ESDHC_PROCTL_DTW) == ESDHC_PROCTL_DTW_8)
		ctrl |= SDHCI_CTRL_8BITBUS;
	if (proctl & ESDHC_PROCTL_CDTL)
		ctrl |= SDHCI_CTRL_CDTEST_INS;
	if (proctl & ESDHC_PROCTL_CDSS)
		ctrl |= SDHCI_CTRL_CDTEST_EN;
	ctrl |= FIELD_PREP(SDHCI_CTRL_DMA_MASK,
			   FIELD_GET(ESDHC_PROCTL_DMAS, proctl));
	return ctrl;
}

u8 esdhc_io_readb(struct esdhc_io *io, int reg)
{
	switch (reg) {
	case SDHCI_HOST_CONTROL:
		return esdhc_io_host_control(esdhc_io_word(io, reg));
	case SDHCI_POWER_CONTROL:
		/* PROCTL byte 1 is DMA select and voltage, not power. */
		return 0;
	}
	return esdhc_io_word(io, reg) >> esdhc_io_shift(reg);
}
EXPORT_SYMBOL_IF_KUNIT(esdhc_io_readb);

void esdhc_io_writel(struct esdhc_io *io, u32 val, int reg)
{
	esdhc_io_put(io, reg & ~3, val);
}
EXPORT_SYMBOL_IF_KUNIT(esdhc_io_writel);

void esdhc_io_writew(struct esdhc_io *io, u16 val, int reg)
{
	switch (reg) {
	case SDHCI_TRANSFER_MODE:
		/*
		 * XFERTYP holds transfer mode and command in one word and
		 * any write to it starts the command: keep the mode until
		 * the command arrives.
		 */
		io->xfer_mode = val;
		return;
	case SDHCI_COMMAND:
		io->write32(io->ctx, ESDHC_XFERTYP,
			    ((u32)val << 16) | io->xfer_mode);
		return;
	case SDHCI_BLOCK_SIZE:
		/*
		 * No SDMA boundary field: bit 12 would ask for 4096-byte
		 * blocks and 13-15 are reserved.
		 */
		val &= 0x0fff;
		break;
	case SDHCI_CLOCK_CONTROL:
		/*
		 * SYSCTL's clock field has another layout; the glue's
		 * set_clock owns it through 32-bit accesses.
		 */
		return;
	case SDHCI_SLOT_INT_STATUS:
	case SDHCI_HOST_VERSION:
		/* Read-only in SDHCI; HOSTVER has nothing to write. */
		return;
	}
	esdhc_io_write_lane(io, val, 0xffff, reg);
}
EXPORT_SYMBOL_IF_KUNIT(esdhc_io_writew);

/* Fold the SDHCI host control byte @ctrl into PROCTL. */
static u32 esdhc_io_proctl(struct esdhc_io *io, u32 proctl, u8 ctrl)
{
	proctl &= ~ESDHC_PROCTL_DTW;
	if (ctrl & SDHCI_CTRL_8BITBUS)
		proctl |= ESDHC_PROCTL_DTW_8;
	else if (ctrl & SDHCI_CTRL_4BITBUS)
		proctl |= ESDHC_PROCTL_DTW_4;
	if (io->flags & ESDHC_IO_HOSTCTL_WIDTH_ONLY)
		return proctl;

	/*
	 * SDHCI_CTRL_HISPD is dropped: bit 2 is the upper data width bit
	 * here and the eSDHC has no high speed enable.  D3CD and the endian
	 * mode (bits 3-5) are not SDHCI's, so they keep their value.  Bit
	 * 0, SDHCI's LED, is always written as zero: stock sdhci-of-esdhc
	 * treats it as reserved (ESDHC_HOST_CONTROL_RES), and what it
	 * drives on each part is not known here.
	 */
	proctl &= ~(ESDHC_PROCTL_LCTL | ESDHC_PROCTL_CDTL | ESDHC_PROCTL_CDSS |
		    ESDHC_PROCTL_DMAS);
	if (ctrl & SDHCI_CTRL_CDTEST_INS)
		proctl |= ESDHC_PROCTL_CDTL;
	if (ctrl & SDHCI_CTRL_CDTEST_EN)
		proctl |= ESDHC_PROCTL_CDSS;
	proctl |= FIELD_PREP(ESDHC_PROCTL_DMAS,
			     FIELD_GET(SDHCI_CTRL_DMA_MASK, ctrl));
	return proctl;
}

void esdhc_io_writeb(struct esdhc_io *io, u8 val, int reg)
{
	switch (reg) {
	case SDHCI_HOST_CONTROL:
		io->write32(io->ctx, ESDHC_PROCTL,
			    esdhc_io_proctl(io, esdhc_io_word(io, reg), val));
		return;
	case SDHCI_POWER_CONTROL:
		/* No bus power switch: the board powers the slot. */
		return;
	}
	esdhc_io_write_lane(io, val, 0xff, reg);
}
EXPORT_SYMBOL_IF_KUNIT(esdhc_io_writeb);
