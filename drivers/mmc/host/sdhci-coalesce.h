/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sdhci-coalesce: SDHCI glue for the e500 eSDHC (OF) and for QEMU's
 * sdhci-pci.  Shared declarations.
 */
#ifndef _MMC_COALESCE_SDHCI_COALESCE_H
#define _MMC_COALESCE_SDHCI_COALESCE_H

/*
 * Each glue file is built only when its bus is; users test IS_ENABLED()
 * so that the compiler drops the reference otherwise.
 */
extern struct pci_driver sdhci_coalesce_pci_driver;
extern struct platform_driver sdhci_coalesce_of_driver;

#endif /* _MMC_COALESCE_SDHCI_COALESCE_H */
