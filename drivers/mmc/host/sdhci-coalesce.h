/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sdhci-coalesce: SDHCI glue for the e500 eSDHC (OF) and for standard
 * SDHCI PCI functions such as QEMU's.  Shared declarations.
 */
#ifndef _MMC_COALESCE_SDHCI_COALESCE_H
#define _MMC_COALESCE_SDHCI_COALESCE_H

struct sdhci_host;

/*
 * Largest request offered to the block layer.  The SDHCI library stops
 * (BUG_ON in sdhci_initialize_data()) on a data phase above 512 KiB, a
 * limit kept from its SDMA days, so that is the ceiling without patching
 * sdhci.c; it is also the library's own max_req_size.
 */
#define SDHCI_COALESCE_MAX_REQ	(512U << 10)
/*
 * ADMA2 segments: enough to reach SDHCI_COALESCE_MAX_REQ even when every
 * segment is a single 512-byte sector.  The library's 128 only reach it
 * with 4 KiB segments, so requests built from buffer heads of a 1 KiB
 * block file system, or sector-sized user buffers, stop at 128 segments.
 */
#define SDHCI_COALESCE_MAX_SEGS	(SDHCI_COALESCE_MAX_REQ / 512)

int sdhci_coalesce_add_host(struct sdhci_host *host);

/*
 * Each glue file is built only when its bus is; users test IS_ENABLED()
 * so that the compiler drops the reference otherwise.
 */
extern struct pci_driver sdhci_coalesce_pci_driver;
extern struct platform_driver sdhci_coalesce_of_driver;

#endif /* _MMC_COALESCE_SDHCI_COALESCE_H */
