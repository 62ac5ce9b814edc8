/* SPDX-License-Identifier: GPL-2.0 */
/*
 * eSDHC errata of e500 parts (P1/P2/QorIQ) that need a register sequence
 * around the SDHCI library: what a data reset loses on old parts and must
 * be put back, a transfer-complete interrupt P2020 raises too early, an
 * ADMA error vendor 2.3 raises at a block gap, and what a suspend loses.
 * Register logic only, on struct esdhc_io, so KUnit checks the sequences
 * on a fake register file; the OF glue decides from the compatible and
 * the vendor version which of them a part gets.
 */
#ifndef _SDHCI_ESDHC_E500_ERRATA_H
#define _SDHCI_ESDHC_E500_ERRATA_H

#include <linux/types.h>

struct esdhc_io;
struct mmc_data;

/**
 * struct esdhc_reset_saved - what a data reset clears on vendor <= 2.2
 * @dtw: PROCTL data transfer width bits before the reset
 * @restore: the reset was a data reset on such a part
 */
struct esdhc_reset_saved {
	u32 dtw;
	bool restore;
};

void esdhc_errata_reset_save(struct esdhc_io *io, u8 mask, u8 vendor_ver,
			     struct esdhc_reset_saved *s);
void esdhc_errata_reset_restore(struct esdhc_io *io,
				const struct esdhc_reset_saved *s, u32 ier);
u32 esdhc_errata_early_data_end(struct esdhc_io *io, u32 intmask);
bool esdhc_errata_adma_gap(struct esdhc_io *io, u32 intmask,
			   struct mmc_data *data, dma_addr_t start);
u32 esdhc_errata_suspend_save(struct esdhc_io *io);
void esdhc_errata_resume_restore(struct esdhc_io *io, u32 proctl);

#endif /* _SDHCI_ESDHC_E500_ERRATA_H */
