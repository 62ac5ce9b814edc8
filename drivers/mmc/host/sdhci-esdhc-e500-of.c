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
#include <linux/platform_device.h>
#include <linux/pm.h>
#include <linux/scatterlist.h>
#ifdef CONFIG_PPC_E500
#include <asm/reg.h>
#endif

#include "sdhci-pltfm.h"
#include "esdhc-clk.h"
#include "esdhc-errata.h"
#include "esdhc-io.h"
#include "esdhc-soc.h"

#include <linux/mmc-coalesce-compat.h>

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

/* How long P2020's DMA may still run when a data reset comes (ms). */
#define ESDHC_OF_DMA_RESET_DELAY_MS	5

/* The most compatible strings of a node that the quirks look at. */
#define ESDHC_OF_MAX_COMPAT		8

/**
 * struct esdhc_of_host - sdhci_pltfm_priv() of an eSDHC host
 * @io: SDHCI view of the registers
 * @base: the registers (host->ioaddr, mapped by sdhci_pltfm_init())
 * @base_hz: eSDHC base clock
 * @flags: ESDHC_SOC_* of the node and the SoC
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

/* The register file of every e500 eSDHC is big-endian. */
static u32 esdhc_of_read32(void *ctx, unsigned int off)
{
	struct esdhc_of_host *p = ctx;

	return ioread32be(p->base + off);
}

static void esdhc_of_write32(void *ctx, unsigned int off, u32 val)
{
	struct esdhc_of_host *p = ctx;

	iowrite32be(val, p->base + off);
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
 * after each clock enable, and so does this driver, sleeping between
 * reads as stock does: the library calls set_clock from sdhci_set_ios()
 * without host->lock, and under it only with
 * SDHCI_QUIRK_CLOCK_BEFORE_RESET, which no eSDHC has.
 */
static void esdhc_of_wait_clock_stable(struct sdhci_host *host)
{
	struct esdhc_of_host *p = esdhc_of_priv(host);
	u32 prs;

	if (esdhc_of_is_v23(p) &&
	    read_poll_timeout(esdhc_of_rd, prs, prs & ESDHC_PRSSTAT_SDSTB, 10,
			      ESDHC_OF_CLK_STABLE_US, false, p, ESDHC_PRSSTAT))
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

	if ((p->flags & ESDHC_SOC_DMA_RESET_DELAY) &&
	    (mask & SDHCI_RESET_DATA) && (host->flags & SDHCI_REQ_USE_DMA))
		mdelay(ESDHC_OF_DMA_RESET_DELAY_MS);
	esdhc_errata_reset_save(&p->io, mask, p->vendor_ver, &saved);
	sdhci_reset(host, mask);
	esdhc_errata_reset_restore(&p->io, &saved, host->ier);
}

static u32 esdhc_of_irq(struct sdhci_host *host, u32 intmask)
{
	struct esdhc_of_host *p = esdhc_of_priv(host);

	if (!(p->flags & ESDHC_SOC_EARLY_DATA_END))
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

/* The SoC's System Version Register, 0 where there is none. */
static u32 esdhc_of_svr(void)
{
#ifdef CONFIG_PPC_E500
	return mfspr(SPRN_SVR);
#else
	return 0;
#endif
}

/*
 * SDHCI quirks, register layer switches and errata from the node's
 * compatibles, the SoC and the vendor version (esdhc-soc.c), on top of
 * what sdhci_get_property() took from the node (auto-cmd12, 1-bit,
 * write protect, broken-cd, no-1-8-v, and the DMA and timeout quirks it
 * keeps for "fsl,p2020-rev1-esdhc" and friends).
 */
static void esdhc_of_quirks(struct platform_device *pdev,
			    struct sdhci_host *host)
{
	struct esdhc_of_host *p = esdhc_of_priv(host);
	struct esdhc_soc_quirks q = {
		.quirks = host->quirks,
		.quirks2 = host->quirks2,
	};
	const char *compat[ESDHC_OF_MAX_COMPAT];
	int n;

	n = of_property_read_string_array(pdev->dev.of_node, "compatible",
					  compat, ARRAY_SIZE(compat));
	esdhc_soc_quirks(compat, max(n, 0), esdhc_of_svr(), p->vendor_ver, &q);
	host->quirks = q.quirks;
	host->quirks2 = q.quirks2;
	p->io.flags = q.io_flags;
	p->flags = q.flags;
	p->clk_caps = q.clk_caps;
}

/*
 * The base clock comes from "clock-frequency", i.e. the platform clock:
 * none of the e500 parts' nodes has a "clocks" entry for the peripheral
 * clock (ESDHC_PERIPHERAL_CLK_SEL in DMA_SYSCTL).  The select bit
 * survives a full reset and a boot loader may have left the peripheral
 * clock selected.  Change it with the card clock off.
 */
static void esdhc_of_select_platform_clock(struct esdhc_of_host *p)
{
	u32 gate = esdhc_clk_gate_bits(esdhc_of_is_v23(p));
	u32 sysctl = esdhc_of_rd(p, ESDHC_SYSCTL);
	u32 dcr = esdhc_of_rd(p, ESDHC_DMA_SYSCTL);

	if (!(dcr & ESDHC_PERIPHERAL_CLK_SEL))
		return;
	esdhc_of_wr(p, ESDHC_SYSCTL, sysctl & ~gate);
	esdhc_of_wr(p, ESDHC_DMA_SYSCTL, dcr & ~ESDHC_PERIPHERAL_CLK_SEL);
	esdhc_of_wr(p, ESDHC_SYSCTL, sysctl);
}

/* host->ops and the base quirks; esdhc_of_quirks() adds the rest. */
static const struct sdhci_pltfm_data esdhc_of_pdata = {
	.ops	= &esdhc_of_ops,
	.quirks	= ESDHC_OF_QUIRKS,
};

static int esdhc_of_probe(struct platform_device *pdev)
{
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
	p->io.read32 = esdhc_of_read32;
	p->io.write32 = esdhc_of_write32;
	/* As read: the io flags, T4240's HOSTVER fix among them, come next. */
	p->vendor_ver = esdhc_io_readw(&p->io, SDHCI_HOST_VERSION) >>
			SDHCI_VENDOR_VER_SHIFT;

	host->hw_name = "eSDHC";
	sdhci_get_property(pdev);
	esdhc_of_quirks(pdev, host);

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

/*
 * sdhci_pltfm_unregister() of 6.1 (int), sdhci_pltfm_remove() of 6.12
 * (void): the same three steps, here once for both.
 */
static void esdhc_of_remove(struct platform_device *pdev)
{
	struct sdhci_host *host = platform_get_drvdata(pdev);
	/* A vanished controller reads all ones: do not wait on it. */
	bool dead = sdhci_readl(host, SDHCI_INT_STATUS) == ~0U;

	sdhci_remove_host(host, dead);
	sdhci_pltfm_free(pdev);
}

/*
 * Not DEFINE_SIMPLE_DEV_PM_OPS() and pm_sleep_ptr() without the #ifdef:
 * sdhci.h declares sdhci_suspend_host() and sdhci_resume_host() only
 * under CONFIG_PM, which a corenet64 defconfig leaves off.
 */
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

/*
 * Binding only: the quirks come from all of the node's compatibles and
 * the SoC (esdhc_of_quirks()), whatever entry matched or none
 * (driver_override).  The family's "fsl,esdhc", as stock sdhci-of-esdhc
 * matches it: every e500 SoC's node carries it, and on P1021, P1025,
 * BSC9131, BSC9132, MPC8569 and B4 it is the only one.  Only where the
 * driver is built for e500: other parts' nodes carry it too.
 */
static const struct of_device_id esdhc_of_match[] = {
#ifdef CONFIG_PPC_E500
	{ .compatible = "fsl,esdhc" },
#endif
	{ }
};
MODULE_DEVICE_TABLE(of, esdhc_of_match);

static struct platform_driver sdhci_esdhc_e500_of_driver = {
	.driver = {
		.name		= "sdhci-esdhc-e500-of",
		.probe_type	= PROBE_PREFER_ASYNCHRONOUS,
		.of_match_table	= esdhc_of_match,
		.pm		= &esdhc_of_pm,
	},
	.probe	= esdhc_of_probe,
	.ESDHC_PLATFORM_REMOVE = esdhc_of_remove,
};
module_platform_driver(sdhci_esdhc_e500_of_driver);

MODULE_DESCRIPTION("SDHCI driver for the eSDHC of e500 SoCs");
MODULE_LICENSE("GPL");
