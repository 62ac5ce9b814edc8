/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sdhci-esdhc-e500: SDHCI glue for the e500 eSDHC (OF) and for QEMU's
 * sdhci-pci.  Shared declarations.
 */
#ifndef _SDHCI_ESDHC_E500_H
#define _SDHCI_ESDHC_E500_H

/*
 * Each glue file is built only when its bus is; users test IS_ENABLED()
 * so that the compiler drops the reference otherwise.
 */
extern struct pci_driver sdhci_esdhc_e500_pci_driver;
extern struct platform_driver sdhci_esdhc_e500_of_driver;

#endif /* _SDHCI_ESDHC_E500_H */
