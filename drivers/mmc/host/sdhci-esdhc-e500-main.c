// SPDX-License-Identifier: GPL-2.0
/*
 * sdhci-esdhc-e500 module: registers the bus glue that this kernel has.
 * The PCI glue serves QEMU's sdhci-pci, the OF glue the eSDHC of e500
 * device trees.
 */
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/platform_device.h>

#include "sdhci-esdhc-e500.h"

static int __init sdhci_esdhc_e500_init(void)
{
	int ret;

	if (IS_ENABLED(CONFIG_OF)) {
		ret = platform_driver_register(&sdhci_esdhc_e500_of_driver);
		if (ret)
			return ret;
	}
	if (IS_ENABLED(CONFIG_PCI)) {
		ret = pci_register_driver(&sdhci_esdhc_e500_pci_driver);
		if (ret) {
			if (IS_ENABLED(CONFIG_OF))
				platform_driver_unregister(&sdhci_esdhc_e500_of_driver);
			return ret;
		}
	}
	return 0;
}
module_init(sdhci_esdhc_e500_init);

static void __exit sdhci_esdhc_e500_exit(void)
{
	if (IS_ENABLED(CONFIG_PCI))
		pci_unregister_driver(&sdhci_esdhc_e500_pci_driver);
	if (IS_ENABLED(CONFIG_OF))
		platform_driver_unregister(&sdhci_esdhc_e500_of_driver);
}
module_exit(sdhci_esdhc_e500_exit);

MODULE_DESCRIPTION("SDHCI glue for the e500 eSDHC and QEMU's sdhci-pci");
MODULE_LICENSE("GPL");
