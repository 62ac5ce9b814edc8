// SPDX-License-Identifier: GPL-2.0
/*
 * Host registration with ADMA2 limits sized so that the largest request
 * the SDHCI library accepts (512 KiB) can be built from short segments,
 * shared by the PCI and OF glue.
 *
 * The library caps a request at 128 ADMA2 segments although the engine
 * takes any number of descriptors.  Raising that needs two buffers the
 * library sizes: the descriptor table (host->adma_table_cnt, which the
 * library lets glue set before setup) and the alignment bounce area
 * (always SDHCI_MAX_SEGS slots), which is replaced here between
 * sdhci_setup_host() and __sdhci_add_host().
 */
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/mmc/host.h>

#include "sdhci.h"
#include "sdhci-coalesce.h"

/*
 * Per segment: one descriptor for up to three unaligned leading bytes,
 * and up to two for the rest when the library has to split a segment
 * longer than host->max_adma.  Plus the terminating descriptor.
 */
#define SDHCI_COALESCE_ADMA_DESCS	(SDHCI_COALESCE_MAX_SEGS * 3 + 1)

/* Make the alignment area cover SDHCI_COALESCE_MAX_SEGS segments. */
static void sdhci_coalesce_grow_adma(struct sdhci_host *host)
{
	struct mmc_host *mmc = host->mmc;
	struct device *dev = mmc_dev(mmc);
	size_t align_sz = SDHCI_COALESCE_MAX_SEGS * SDHCI_ADMA2_ALIGN;
	dma_addr_t dma;
	void *buf;

	/* SDMA (bounce buffer) and PIO keep the library's limits. */
	if (!(host->flags & SDHCI_USE_ADMA) || !host->align_buffer)
		return;

	buf = dma_alloc_coherent(dev, align_sz + host->adma_table_sz, &dma,
				 GFP_KERNEL);
	if (!buf)
		goto keep;
	/* The descriptor table behind the alignment area must be aligned. */
	if ((dma + align_sz) & (SDHCI_ADMA2_DESC_ALIGN - 1)) {
		dma_free_coherent(dev, align_sz + host->adma_table_sz, buf, dma);
		goto keep;
	}

	dma_free_coherent(dev, host->align_buffer_sz + host->adma_table_sz,
			  host->align_buffer, host->align_addr);
	host->align_buffer = buf;
	host->align_addr = dma;
	host->align_buffer_sz = align_sz;
	host->adma_table = buf + align_sz;
	host->adma_addr = dma + align_sz;

	mmc->max_segs = SDHCI_COALESCE_MAX_SEGS;
	mmc->max_req_size = SDHCI_COALESCE_MAX_REQ;
	return;

keep:
	/* Still a working host, only with the library's segment limit. */
	dev_warn(dev, "no memory for large ADMA2 tables, staying at %u segments\n",
		 mmc->max_segs);
}

/**
 * sdhci_coalesce_add_host - set up and register a host with large requests
 * @host: allocated and configured (ioaddr, irq, ops, quirks) host
 *
 * On failure everything sdhci_setup_host() took is released again; the
 * caller still owns @host itself.
 *
 * Return: 0 or a negative errno.
 */
int sdhci_coalesce_add_host(struct sdhci_host *host)
{
	int ret;

	host->adma_table_cnt = SDHCI_COALESCE_ADMA_DESCS;

	ret = sdhci_setup_host(host);
	if (ret)
		return ret;

	sdhci_coalesce_grow_adma(host);

	ret = __sdhci_add_host(host);
	if (ret)
		sdhci_cleanup_host(host);
	return ret;
}
