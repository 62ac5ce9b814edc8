// SPDX-License-Identifier: GPL-2.0
/*
 * PCI glue, for QEMU only: its sdhci-pci device (1b36:0007), a standard
 * SDHCI function.  It exists so that the host driver runs under
 * emulation on x86_64 guests (the bench, the tests) and on ppce500 with
 * QEMU 7.2, which has no eSDHC model.  No real PCI SD controller is
 * matched: they need the vendor fixes of the stock sdhci-pci.
 * The SDHCI library picks ADMA2 with 64-bit descriptors when the
 * capabilities offer 64-bit DMA, 32-bit ADMA2 otherwise, and uses CMD23
 * whenever the card reports it.
 */
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/pm.h>

#include "sdhci.h"
#include "sdhci-esdhc-e500.h"

/* PCI config byte with the slot count and the BAR of the first slot. */
#define SDHCI_ESDHC_E500_PCI_SLOT_INFO	0x40
#define  SDHCI_ESDHC_E500_PCI_SLOTS(x)	((((x) >> 4) & 7) + 1)
#define  SDHCI_ESDHC_E500_PCI_FIRST_BAR(x)	((x) & 7)

/* The SDHCI register file is 256 bytes. */
#define SDHCI_ESDHC_E500_PCI_REGS_LEN	0x100

static const struct sdhci_ops sdhci_esdhc_e500_pci_ops = {
	.set_clock		= sdhci_set_clock,
	.set_bus_width		= sdhci_set_bus_width,
	.reset			= sdhci_reset,
	.set_uhs_signaling	= sdhci_set_uhs_signaling,
};

static int sdhci_esdhc_e500_pci_probe(struct pci_dev *pdev,
				      const struct pci_device_id *id)
{
	struct sdhci_host *host;
	u8 slot_info;
	int bar, ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;

	ret = pci_read_config_byte(pdev, SDHCI_ESDHC_E500_PCI_SLOT_INFO,
				   &slot_info);
	if (ret)
		return pcibios_err_to_errno(ret);
	bar = SDHCI_ESDHC_E500_PCI_FIRST_BAR(slot_info);
	if (bar > 5)
		return -ENODEV;
	/* Extra slots would each need a host; QEMU and e500 have one. */
	if (SDHCI_ESDHC_E500_PCI_SLOTS(slot_info) > 1)
		dev_info(&pdev->dev, "using the first of %d slots\n",
			 SDHCI_ESDHC_E500_PCI_SLOTS(slot_info));
	if (!(pci_resource_flags(pdev, bar) & IORESOURCE_MEM) ||
	    pci_resource_len(pdev, bar) < SDHCI_ESDHC_E500_PCI_REGS_LEN)
		return -ENODEV;

	/* pcim_*: the regions and the enable are dropped with the device. */
	ret = pcim_iomap_regions(pdev, BIT(bar), KBUILD_MODNAME);
	if (ret)
		return ret;
	pci_set_master(pdev);

	host = sdhci_alloc_host(&pdev->dev, 0);
	if (IS_ERR(host))
		return PTR_ERR(host);

	host->hw_name = "PCI";
	host->ops = &sdhci_esdhc_e500_pci_ops;
	host->ioaddr = pcim_iomap_table(pdev)[bar];
	host->irq = pdev->irq;
	host->mmc->slotno = 0;
	pci_set_drvdata(pdev, host);

	ret = sdhci_add_host(host);
	if (ret) {
		sdhci_free_host(host);
		return ret;
	}
	return 0;
}

static void sdhci_esdhc_e500_pci_remove(struct pci_dev *pdev)
{
	struct sdhci_host *host = pci_get_drvdata(pdev);
	/* A surprise-removed device reads all ones: do not wait on it. */
	bool dead = readl(host->ioaddr + SDHCI_INT_STATUS) == ~0U;

	sdhci_remove_host(host, dead);
	sdhci_free_host(host);
}

#ifdef CONFIG_PM_SLEEP
static int sdhci_esdhc_e500_pci_suspend(struct device *dev)
{
	return sdhci_suspend_host(dev_get_drvdata(dev));
}

static int sdhci_esdhc_e500_pci_resume(struct device *dev)
{
	return sdhci_resume_host(dev_get_drvdata(dev));
}
#endif

static SIMPLE_DEV_PM_OPS(sdhci_esdhc_e500_pci_pm,
			 sdhci_esdhc_e500_pci_suspend,
			 sdhci_esdhc_e500_pci_resume);

static const struct pci_device_id sdhci_esdhc_e500_pci_ids[] = {
	/* QEMU's sdhci-pci (hw/sd/sdhci-pci.c) */
	{ PCI_DEVICE(PCI_VENDOR_ID_REDHAT, 0x0007) },
	{ }
};
MODULE_DEVICE_TABLE(pci, sdhci_esdhc_e500_pci_ids);

struct pci_driver sdhci_esdhc_e500_pci_driver = {
	.name		= "sdhci-esdhc-e500-pci",
	.id_table	= sdhci_esdhc_e500_pci_ids,
	.probe		= sdhci_esdhc_e500_pci_probe,
	.remove		= sdhci_esdhc_e500_pci_remove,
	.driver		= {
		.pm	= &sdhci_esdhc_e500_pci_pm,
	},
};
