// SPDX-License-Identifier: GPL-2.0
/*
 * SDHCI driver for the Freescale/NXP eSDHC of e500 SoCs (MPC85xx, P1, P2
 * and the QorIQ P series), on the sdhci-pltfm helpers: per-SoC quirks, and
 * the sdhci_ops that route SDHCI register accesses through esdhc-io and
 * the clock through esdhc-clk.  Documentation/esdhc-binding.md lists the
 * properties it reads.
 */
#include <linux/bitfield.h>
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/iopoll.h>
#include <linux/mmc/card.h>
#include <linux/mmc/host.h>
#include <linux/module.h>
#include <linux/of.h>
#include <linux/of_address.h>
#include <linux/of_device.h>
#include <linux/platform_device.h>
#include <linux/pm.h>
#include <linux/scatterlist.h>

#include "sdhci-pltfm.h"
#include "esdhc-clk.h"
#include "esdhc-errata.h"
#include "esdhc-io.h"

#include <linux/mmc-coalesce-compat.h>

/*
 * DMA_SYSCTL: base clock from the peripheral clock instead of platform/2.
 * None of the e500 parts' nodes has a "clocks" entry for the peripheral
 * clock, so this driver always runs on the platform clock.
 */
#define ESDHC_DMA_PERIPHERAL_CLK_SEL	BIT(19)

/* How long a divider change may take to settle (SDSTB). */
#define ESDHC_OF_CLK_STABLE_US		20000

/*
 * What every eSDHC needs from the SDHCI library: blocks of at most 2 KiB,
 * 32-bit aligned DMA, no transfer-complete interrupt for busy-only
 * commands (cleared below for newer parts), data timeout counted in SD
 * clocks, PIO that must wait for the FIFO, no high speed enable bit, no
 * reset on card removal (it would lose PROCTL), and ADMA2 "nop" entries
 * that may not carry the end flag.
 */
#define ESDHC_OF_QUIRKS	(SDHCI_QUIRK_FORCE_BLK_SZ_2048 |		\
			 SDHCI_QUIRK_32BIT_DMA_ADDR |			\
			 SDHCI_QUIRK_NO_BUSY_IRQ |			\
			 SDHCI_QUIRK_DATA_TIMEOUT_USES_SDCLK |		\
			 SDHCI_QUIRK_PIO_NEEDS_DELAY |			\
			 SDHCI_QUIRK_NO_HISPD_BIT |			\
			 SDHCI_QUIRK_NO_CARD_NO_RESET |			\
			 SDHCI_QUIRK_NO_ENDATTR_IN_NOPDESC)

/* esdhc_of_data.flags */
/* The card detect signal is wired and reliable: no polling. */
#define ESDHC_OF_CD_WORKS	BIT(0)
/* P2020: wait before a data reset while DMA may still run. */
#define ESDHC_OF_DMA_RESET_DELAY	BIT(1)
/* P2020: transfer complete can come early during CMD25. */
#define ESDHC_OF_EARLY_DATA_END	BIT(2)

/* How long P2020's DMA may still run when a data reset comes (ms). */
#define ESDHC_OF_DMA_RESET_DELAY_MS	5

/**
 * struct esdhc_of_data - per-compatible differences
 * @quirks: SDHCI_QUIRK_* on top of ESDHC_OF_QUIRKS
 * @quirks2: SDHCI_QUIRK2_*
 * @io_flags: ESDHC_IO_* for the register access layer
 * @flags: ESDHC_OF_*
 * @clk_caps: SD clock ceilings of the part, NULL for none
 */
struct esdhc_of_data {
	u32 quirks;
	u32 quirks2;
	unsigned int io_flags;
	unsigned int flags;
	const struct esdhc_clk_caps *clk_caps;
};

/**
 * struct esdhc_of_host - sdhci_pltfm_priv() of an eSDHC host
 * @io: SDHCI view of the registers
 * @base: the registers (host->ioaddr, mapped by sdhci_pltfm_init())
 * @base_hz: eSDHC base clock
 * @flags: ESDHC_OF_* of the matched compatible
 * @clk_caps: SD clock ceilings of the part, NULL for none
 * @proctl: PROCTL saved at suspend
 * @vendor_ver: HOSTVER vendor version, 0x12 meaning 2.2
 */
struct esdhc_of_host {
	struct esdhc_io io;
	void __iomem *base;
	unsigned int base_hz;
	unsigned int flags;
	const struct esdhc_clk_caps *clk_caps;
	u32 proctl;
	u8 vendor_ver;
};

static inline struct esdhc_of_host *esdhc_of_priv(struct sdhci_host *host)
{
	return sdhci_pltfm_priv(sdhci_priv(host));
}

/* The register file is big-endian on e500, little-endian on some ARMs. */
static u32 esdhc_of_read32_be(void *ctx, unsigned int off)
{
	struct esdhc_of_host *p = ctx;

	return ioread32be(p->base + off);
}

static void esdhc_of_write32_be(void *ctx, unsigned int off, u32 val)
{
	struct esdhc_of_host *p = ctx;

	iowrite32be(val, p->base + off);
}

static u32 esdhc_of_read32_le(void *ctx, unsigned int off)
{
	struct esdhc_of_host *p = ctx;

	return ioread32(p->base + off);
}

static void esdhc_of_write32_le(void *ctx, unsigned int off, u32 val)
{
	struct esdhc_of_host *p = ctx;

	iowrite32(val, p->base + off);
}

/* Raw eSDHC words, for registers SDHCI does not know. */
static u32 esdhc_of_rd(struct esdhc_of_host *p, unsigned int off)
{
	return p->io.read32(p, off);
}

static void esdhc_of_wr(struct esdhc_of_host *p, unsigned int off, u32 val)
{
	p->io.write32(p, off, val);
}

static u32 esdhc_of_readl(struct sdhci_host *host, int reg)
{
	return esdhc_io_readl(&esdhc_of_priv(host)->io, reg);
}

static u16 esdhc_of_readw(struct sdhci_host *host, int reg)
{
	return esdhc_io_readw(&esdhc_of_priv(host)->io, reg);
}

static u8 esdhc_of_readb(struct sdhci_host *host, int reg)
{
	return esdhc_io_readb(&esdhc_of_priv(host)->io, reg);
}

static void esdhc_of_writel(struct sdhci_host *host, u32 val, int reg)
{
	esdhc_io_writel(&esdhc_of_priv(host)->io, val, reg);
}

static void esdhc_of_writew(struct sdhci_host *host, u16 val, int reg)
{
	esdhc_io_writew(&esdhc_of_priv(host)->io, val, reg);
}

static void esdhc_of_writeb(struct sdhci_host *host, u8 val, int reg)
{
	esdhc_io_writeb(&esdhc_of_priv(host)->io, val, reg);
}

static bool esdhc_of_is_v23(struct esdhc_of_host *p)
{
	return p->vendor_ver >= ESDHC_VENDOR_V23;
}

/*
 * Only 2.3 and later report a settled clock (PRSSTAT SDSTB); stock
 * sdhci-of-esdhc waits up to 20 ms for it after a divider change and
 * after each clock enable, and so does this driver.  Stock sleeps in the
 * wait; this one polls without sleeping, which is right in any context
 * (the library calls set_clock from sdhci_set_ios() without host->lock,
 * and under it only with SDHCI_QUIRK_CLOCK_BEFORE_RESET, which no eSDHC
 * has) and costs microseconds where the clock settles as it should.
 */
static void esdhc_of_wait_clock_stable(struct sdhci_host *host)
{
	struct esdhc_of_host *p = esdhc_of_priv(host);
	u32 prs;

	if (esdhc_of_is_v23(p) &&
	    read_poll_timeout_atomic(esdhc_of_rd, prs,
				     prs & ESDHC_PRSSTAT_SDSTB, 10,
				     ESDHC_OF_CLK_STABLE_US, false, p,
				     ESDHC_PRSSTAT))
		dev_err(mmc_dev(host->mmc), "SD clock did not settle\n");
}

static void esdhc_of_set_clock(struct sdhci_host *host, unsigned int clock)
{
	struct esdhc_of_host *p = esdhc_of_priv(host);
	u32 gate = esdhc_clk_gate_bits(esdhc_of_is_v23(p));
	struct esdhc_clk_div div;
	u32 sysctl;
	int ret;

	/* The divider may only change while the card clock is stopped. */
	sysctl = esdhc_of_rd(p, ESDHC_SYSCTL) & ~gate;
	esdhc_of_wr(p, ESDHC_SYSCTL, sysctl);
	host->mmc->actual_clock = 0;
	if (!clock)
		return;

	clock = esdhc_clk_cap(clock, host->mmc->ios.timing,
			      host->mmc->card && mmc_card_sd(host->mmc->card),
			      p->clk_caps);

	/* Up to 2.2 the prescaler cannot be bypassed (SDCLKFS 0 is /2). */
	ret = esdhc_clk_pick(p->base_hz, clock, esdhc_of_is_v23(p) ? 1 : 2,
			     &div);
	if (ret == -ERANGE)
		dev_warn_once(mmc_dev(host->mmc),
			      "%u Hz is below the slowest clock, using %u Hz\n",
			      clock, div.hz);
	else if (ret)
		return;

	sysctl = esdhc_clk_sysctl(sysctl, &div);
	esdhc_of_wr(p, ESDHC_SYSCTL, sysctl);
	esdhc_of_wait_clock_stable(host);

	esdhc_of_wr(p, ESDHC_SYSCTL, sysctl | gate);
	esdhc_of_wait_clock_stable(host);
	host->mmc->actual_clock = div.hz;
}

static unsigned int esdhc_of_get_max_clock(struct sdhci_host *host)
{
	return esdhc_of_priv(host)->base_hz;
}

static unsigned int esdhc_of_get_min_clock(struct sdhci_host *host)
{
	return esdhc_of_priv(host)->base_hz /
	       (ESDHC_CLK_MAX_PRESCALER * ESDHC_CLK_MAX_DIVISOR);
}

/*
 * Called by the library after every full reset with DMA in use.  With
 * snooping on, the eSDHC's DMA reads and writes are seen by the e500
 * caches, which is what a coherent platform's DMA mapping assumes; a
 * non-coherent one does cache maintenance itself and must not snoop.
 */
static int esdhc_of_enable_dma(struct sdhci_host *host)
{
	struct esdhc_of_host *p = esdhc_of_priv(host);
	u32 dcr = esdhc_of_rd(p, ESDHC_DMA_SYSCTL);

	if (of_dma_is_coherent(mmc_dev(host->mmc)->of_node))
		dcr |= ESDHC_DMA_SNOOP;
	else
		dcr &= ~ESDHC_DMA_SNOOP;
	esdhc_of_wr(p, ESDHC_DMA_SYSCTL, dcr);
	return 0;
}

/*
 * sdhci_reset() with the errata around it (esdhc-errata.c): P2020's DMA
 * may still be moving data when the data reset after a request comes; the
 * 5 ms busy wait runs under host->lock with interrupts off, as stock
 * sdhci-of-esdhc does it, because the library calls reset from there.
 */
static void esdhc_of_reset(struct sdhci_host *host, u8 mask)
{
	struct esdhc_of_host *p = esdhc_of_priv(host);
	struct esdhc_reset_saved saved;

	if ((p->flags & ESDHC_OF_DMA_RESET_DELAY) &&
	    (mask & SDHCI_RESET_DATA) && (host->flags & SDHCI_REQ_USE_DMA))
		mdelay(ESDHC_OF_DMA_RESET_DELAY_MS);
	esdhc_errata_reset_save(&p->io, mask, p->vendor_ver, &saved);
	sdhci_reset(host, mask);
	esdhc_errata_reset_restore(&p->io, &saved, host->ier);
}

static u32 esdhc_of_irq(struct sdhci_host *host, u32 intmask)
{
	struct esdhc_of_host *p = esdhc_of_priv(host);

	if (!(p->flags & ESDHC_OF_EARLY_DATA_END))
		return intmask;
	return esdhc_errata_early_data_end(&p->io, intmask);
}

/*
 * The library calls this on an ADMA error, after setting the data error
 * to -EIO; on a part with ESDHC_IO_ADMA_GAP (vendor 2.3) esdhc-errata.c
 * takes the error back when transfer complete and the block gap event
 * came with it.  The start address follows the library's own rule
 * (sdhci_sdma_address(), static in sdhci.c); ADMA has no bounce buffer,
 * but the rule costs nothing to keep.
 */
static void esdhc_of_adma_workaround(struct sdhci_host *host, u32 intmask)
{
	struct esdhc_of_host *p = esdhc_of_priv(host);
	struct mmc_data *data = host->data;
	dma_addr_t start;

	start = host->bounce_buffer ? host->bounce_addr :
				      sg_dma_address(data->sg);
	esdhc_errata_adma_gap(&p->io, intmask, data, start);
}

static const struct sdhci_ops esdhc_of_ops = {
	.read_l			= esdhc_of_readl,
	.read_w			= esdhc_of_readw,
	.read_b			= esdhc_of_readb,
	.write_l		= esdhc_of_writel,
	.write_w		= esdhc_of_writew,
	.write_b		= esdhc_of_writeb,
	.set_clock		= esdhc_of_set_clock,
	.enable_dma		= esdhc_of_enable_dma,
	.get_max_clock		= esdhc_of_get_max_clock,
	.get_min_clock		= esdhc_of_get_min_clock,
	.set_bus_width		= sdhci_set_bus_width,
	.reset			= esdhc_of_reset,
	.irq			= esdhc_of_irq,
	.adma_workaround	= esdhc_of_adma_workaround,
	.set_uhs_signaling	= sdhci_set_uhs_signaling,
};

/*
 * The base clock: "clock-frequency" (U-Boot writes the platform clock / 2
 * there on e500; sdhci_get_property() has read it), else the base clock
 * field of the capabilities register, which is what the SDHCI library
 * itself falls back to (sdhci_setup_host()) and why stock
 * sdhci-of-esdhc probes a node without the property, e.g. the device
 * tree QEMU 10 builds for ppce500 without firmware.
 */
static int esdhc_of_base_clock(struct platform_device *pdev,
			       struct sdhci_host *host)
{
	struct sdhci_pltfm_host *pltfm_host = sdhci_priv(host);
	struct esdhc_of_host *p = sdhci_pltfm_priv(pltfm_host);
	u32 caps, mhz;

	p->base_hz = pltfm_host->clock;
	if (p->base_hz)
		return 0;

	caps = esdhc_io_readl(&p->io, SDHCI_CAPABILITIES);
	mhz = FIELD_GET(SDHCI_CLOCK_BASE_MASK, caps);
	if (!mhz)
		return dev_err_probe(&pdev->dev, -EINVAL,
				     "no clock-frequency and no base clock in the capabilities\n");
	p->base_hz = mhz * 1000000;
	dev_info(&pdev->dev,
		 "no clock-frequency: base clock %u MHz from the capabilities\n",
		 mhz);
	return 0;
}

/*
 * SDHCI quirks from the match data and the vendor version, on top of
 * what sdhci_get_property() took from the node (auto-cmd12, 1-bit,
 * write protect, broken-cd, no-1-8-v, and the DMA and timeout quirks it
 * keeps for "fsl,p2020-rev1-esdhc" and friends).
 */
static void esdhc_of_quirks(struct sdhci_host *host,
			    const struct esdhc_of_data *data)
{
	struct esdhc_of_host *p = esdhc_of_priv(host);

	/*
	 * The base clock is ours (esdhc_of_base_clock()): the library must
	 * take it from get_max_clock, never from the capabilities field,
	 * or its maximum and our dividers would disagree whenever
	 * "clock-frequency" and that field differ.
	 */
	host->quirks |= data->quirks | SDHCI_QUIRK_CAP_CLOCK_BASE_BROKEN;
	host->quirks2 |= data->quirks2;
	if (!(data->flags & ESDHC_OF_CD_WORKS))
		host->quirks |= SDHCI_QUIRK_BROKEN_CARD_DETECTION;

	if (esdhc_of_is_v23(p)) {
		/* 2.3 signals transfer complete after busy, and runs ADMA2. */
		host->quirks &= ~SDHCI_QUIRK_NO_BUSY_IRQ;
		p->io.flags |= ESDHC_IO_ADMA2;
	}
	/*
	 * CMD23 is known not to work on 2.2: multi-block transfers end
	 * with CMD12 there.  Stock sdhci-of-esdhc turns it off on 2.2
	 * alone, and so does this driver.
	 */
	if (p->vendor_ver == ESDHC_VENDOR_V22)
		host->quirks2 |= SDHCI_QUIRK2_HOST_NO_CMD23;
	/* Vendor-version errata: the ADMA error at a block gap of 2.3. */
	p->io.flags |= esdhc_errata_vendor_io_flags(p->vendor_ver);
}

/*
 * The base clock comes from "clock-frequency", i.e. the platform clock.
 * The select bit survives a full reset and a boot loader may have left
 * the peripheral clock selected.  Change it with the card clock off.
 */
static void esdhc_of_select_platform_clock(struct esdhc_of_host *p)
{
	u32 gate = esdhc_clk_gate_bits(esdhc_of_is_v23(p));
	u32 sysctl = esdhc_of_rd(p, ESDHC_SYSCTL);
	u32 dcr = esdhc_of_rd(p, ESDHC_DMA_SYSCTL);

	if (!(dcr & ESDHC_DMA_PERIPHERAL_CLK_SEL))
		return;
	esdhc_of_wr(p, ESDHC_SYSCTL, sysctl & ~gate);
	esdhc_of_wr(p, ESDHC_DMA_SYSCTL, dcr & ~ESDHC_DMA_PERIPHERAL_CLK_SEL);
	esdhc_of_wr(p, ESDHC_SYSCTL, sysctl);
}

/* host->ops and the base quirks; the per-part ones come from the match. */
static const struct sdhci_pltfm_data esdhc_of_pdata = {
	.ops	= &esdhc_of_ops,
	.quirks	= ESDHC_OF_QUIRKS,
};

static int esdhc_of_probe(struct platform_device *pdev)
{
	const struct esdhc_of_data *data = of_device_get_match_data(&pdev->dev);
	struct device_node *np = pdev->dev.of_node;
	struct esdhc_of_host *p;
	struct sdhci_host *host;
	int ret;

	/* Maps the registers, takes the interrupt, sets drvdata. */
	host = sdhci_pltfm_init(pdev, &esdhc_of_pdata, sizeof(*p));
	if (IS_ERR(host))
		return PTR_ERR(host);
	p = esdhc_of_priv(host);
	p->base = host->ioaddr;

	p->io.ctx = p;
	if (of_property_read_bool(np, "little-endian")) {
		p->io.read32 = esdhc_of_read32_le;
		p->io.write32 = esdhc_of_write32_le;
	} else {
		p->io.read32 = esdhc_of_read32_be;
		p->io.write32 = esdhc_of_write32_be;
	}
	p->io.flags = data->io_flags;
	p->flags = data->flags;
	p->clk_caps = data->clk_caps;
	p->vendor_ver = esdhc_io_readw(&p->io, SDHCI_HOST_VERSION) >>
			SDHCI_VENDOR_VER_SHIFT;

	host->hw_name = "eSDHC";
	sdhci_get_property(pdev);
	esdhc_of_quirks(host, data);

	ret = esdhc_of_base_clock(pdev, host);
	if (ret)
		goto err_free;
	esdhc_of_select_platform_clock(p);

	/* bus-width, cd-gpios, non-removable, max-frequency, ... */
	ret = mmc_of_parse(host->mmc);
	if (ret)
		goto err_free;
	ret = mmc_of_parse_voltage(host->mmc, &host->ocr_mask);
	if (ret < 0)
		goto err_free;

	ret = sdhci_add_host(host);
	if (ret)
		goto err_free;

	dev_info(&pdev->dev, "eSDHC vendor version %u.%u, base clock %u Hz\n",
		 p->vendor_ver >> 4, p->vendor_ver & 0xf, p->base_hz);
	return 0;

err_free:
	/* devm undoes the mapping. */
	sdhci_pltfm_free(pdev);
	return ret;
}

static void esdhc_of_remove(struct platform_device *pdev)
{
	struct sdhci_host *host = platform_get_drvdata(pdev);
	/* A vanished controller reads all ones: do not wait on it. */
	bool dead = sdhci_readl(host, SDHCI_INT_STATUS) == ~0U;

	sdhci_remove_host(host, dead);
	sdhci_pltfm_free(pdev);
}

#ifdef CONFIG_PM_SLEEP
static int esdhc_of_suspend(struct device *dev)
{
	struct sdhci_host *host = dev_get_drvdata(dev);
	struct esdhc_of_host *p = esdhc_of_priv(host);

	p->proctl = esdhc_errata_suspend_save(&p->io);
	return sdhci_suspend_host(host);
}

static int esdhc_of_resume(struct device *dev)
{
	/*
	 * A full reset on resume brings the snoop bit back through
	 * enable_dma; the clock select bit is not reset, but the boot
	 * loader may have run in between.
	 */
	struct sdhci_host *host = dev_get_drvdata(dev);
	struct esdhc_of_host *p = esdhc_of_priv(host);
	int ret;

	esdhc_of_select_platform_clock(p);
	ret = sdhci_resume_host(host);
	if (!ret)
		esdhc_errata_resume_restore(&p->io, p->proctl);
	return ret;
}
#endif

static SIMPLE_DEV_PM_OPS(esdhc_of_pm, esdhc_of_suspend, esdhc_of_resume);

static const struct esdhc_of_data esdhc_of_generic = {
};

/* Like the generic eSDHC, but the card detect line can be trusted. */
static const struct esdhc_of_data esdhc_of_cd = {
	.flags = ESDHC_OF_CD_WORKS,
};

/* Data timeout counter value 0xf does not work. */
static const struct esdhc_of_data esdhc_of_timeout = {
	.quirks = SDHCI_QUIRK_BROKEN_TIMEOUT_VAL,
};

/* P1010: broken timeout value, and SD clock ceilings (esdhc-clk.c). */
static const struct esdhc_of_data esdhc_of_p1010 = {
	.quirks = SDHCI_QUIRK_BROKEN_TIMEOUT_VAL,
	.clk_caps = &esdhc_clk_caps_p1010,
};

/*
 * P2020: broken timeout value as above, a controller that has to be reset
 * after each request to come back cleanly, a host control byte whose
 * only usable field is the data width, an unreliable data line active
 * bit, DMA that may still run when that reset comes, and an early
 * transfer complete during multi-block writes.
 */
static const struct esdhc_of_data esdhc_of_p2020 = {
	.quirks = SDHCI_QUIRK_BROKEN_TIMEOUT_VAL |
		  SDHCI_QUIRK_RESET_AFTER_REQUEST,
	.io_flags = ESDHC_IO_HOSTCTL_WIDTH_ONLY | ESDHC_IO_IGNORE_DATA_INHIBIT,
	.flags = ESDHC_OF_DMA_RESET_DELAY | ESDHC_OF_EARLY_DATA_END,
};

/*
 * The e500 parts by name, never the family's "fsl,esdhc": that one is
 * also on the T-series, MPC83xx, Layerscape and LX2160A nodes, whose
 * quirks only stock sdhci-of-esdhc knows.
 */
static const struct of_device_id esdhc_of_match[] = {
	{ .compatible = "fsl,p2020-esdhc", .data = &esdhc_of_p2020 },
	{ .compatible = "fsl,mpc8536-esdhc", .data = &esdhc_of_timeout },
	{ .compatible = "fsl,p1010-esdhc", .data = &esdhc_of_p1010 },
	{ .compatible = "fsl,p1020-esdhc", .data = &esdhc_of_cd },
	{ .compatible = "fsl,p1022-esdhc", .data = &esdhc_of_generic },
	{ .compatible = "fsl,c293-esdhc", .data = &esdhc_of_generic },
	{ .compatible = "fsl,p2041-esdhc", .data = &esdhc_of_generic },
	{ .compatible = "fsl,p3041-esdhc", .data = &esdhc_of_generic },
	{ .compatible = "fsl,p4080-esdhc", .data = &esdhc_of_cd },
	{ .compatible = "fsl,p5020-esdhc", .data = &esdhc_of_cd },
	{ .compatible = "fsl,p5040-esdhc", .data = &esdhc_of_cd },
	/*
	 * P2020 rev 1: its DMA does not work.  sdhci_get_property() turns
	 * DMA off for this compatible, as it does for stock sdhci-of-esdhc,
	 * whose P2020 fixups test "fsl,p2020-esdhc" and so, like this
	 * entry, leave a node that names only rev 1 with the base set.
	 */
	{ .compatible = "fsl,p2020-rev1-esdhc", .data = &esdhc_of_generic },
	{ }
};
MODULE_DEVICE_TABLE(of, esdhc_of_match);

static struct platform_driver sdhci_esdhc_e500_of_driver = {
	.driver = {
		.name		= "sdhci-esdhc-e500-of",
		.of_match_table	= esdhc_of_match,
		.pm		= &esdhc_of_pm,
	},
	.probe	= esdhc_of_probe,
	.ESDHC_PLATFORM_REMOVE = esdhc_of_remove,
};
module_platform_driver(sdhci_esdhc_e500_of_driver);

MODULE_DESCRIPTION("SDHCI driver for the eSDHC of e500 SoCs");
MODULE_LICENSE("GPL");
