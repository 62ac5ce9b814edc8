// SPDX-License-Identifier: GPL-2.0
/*
 * eSDHC errata register sequences, see esdhc-errata.h.  The facts come
 * from 6.1's sdhci-of-esdhc.c, which learnt them on the same parts:
 * esdhc_reset() for the data reset of vendor 2.2 and older, esdhc_irq()
 * for P2020's early DATA_END, esdhc_of_adma_workaround() and
 * esdhc_writel_fixup() for the ADMA error at a block gap of vendor 2.3,
 * esdhc_of_suspend()/esdhc_of_resume() for PROCTL across a suspend.
 */
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/mmc/core.h>
#include <linux/mmc/mmc.h>
#include <kunit/visibility.h>

#include "sdhci.h"
#include "esdhc-io.h"
#include "esdhc-errata.h"

/*
 * On vendor version 2.2 and older a data reset (SYSCTL RSTD) also clears
 * the data width in PROCTL and the interrupt enables.  The SDHCI library
 * sets the width only in set_ios and the enables only when a data request
 * starts, so without this the card would be driven 1-bit after the next
 * data reset and a command-only request (CMD13) would never see its
 * interrupt.  On P2020, whose data reset follows every request
 * (SDHCI_QUIRK_RESET_AFTER_REQUEST), that is every request.
 */
void esdhc_errata_reset_save(struct esdhc_io *io, u8 mask, u8 vendor_ver,
			     struct esdhc_reset_saved *s)
{
	s->restore = (mask & SDHCI_RESET_DATA) &&
		     vendor_ver <= ESDHC_VENDOR_V22;
	s->dtw = s->restore ?
		 io->read32(io->ctx, ESDHC_PROCTL) & ESDHC_PROCTL_DTW : 0;
}
EXPORT_SYMBOL_IF_KUNIT(esdhc_errata_reset_save);

void esdhc_errata_reset_restore(struct esdhc_io *io,
				const struct esdhc_reset_saved *s, u32 ier)
{
	u32 proctl;

	if (!s->restore)
		return;
	proctl = io->read32(io->ctx, ESDHC_PROCTL);
	io->write32(io->ctx, ESDHC_PROCTL,
		    (proctl & ~ESDHC_PROCTL_DTW) | s->dtw);
	/* IRQSTATEN and IRQSIGEN sit where SDHCI has them. */
	io->write32(io->ctx, SDHCI_INT_ENABLE, ier);
	io->write32(io->ctx, SDHCI_SIGNAL_ENABLE, ier);
}
EXPORT_SYMBOL_IF_KUNIT(esdhc_errata_reset_restore);

/*
 * P2020 may raise transfer complete (DATA_END) during a multi-block write
 * (CMD25) while blocks are still to go.  Taken at face value the library
 * would finish the request, report the write complete and unmap its
 * buffers under a running DMA.  While the block count is not zero it is
 * acknowledged and dropped; the real one follows at the end.
 */
u32 esdhc_errata_early_data_end(struct esdhc_io *io, u32 intmask)
{
	u16 cmd, blocks;

	if (!(intmask & SDHCI_INT_DATA_END))
		return intmask;
	cmd = SDHCI_GET_CMD(esdhc_io_readw(io, SDHCI_COMMAND));
	blocks = esdhc_io_readw(io, SDHCI_BLOCK_COUNT);
	if (cmd != MMC_WRITE_MULTIPLE_BLOCK || !blocks)
		return intmask;
	esdhc_io_writel(io, SDHCI_INT_DATA_END, SDHCI_INT_STATUS);
	return intmask & ~SDHCI_INT_DATA_END;
}
EXPORT_SYMBOL_IF_KUNIT(esdhc_errata_early_data_end);

/**
 * esdhc_errata_adma_gap - take back an ADMA error raised at a block gap
 * @io: the host's register access, its flags chosen by the glue
 * @intmask: the data interrupts the library is handling
 * @data: the running transfer, whose error the library set to -EIO
 * @start: DMA address the transfer started at
 *
 * Vendor 2.3 can report an ADMA error (IRQSTAT ADMAE) for a transfer
 * that stopped at a block gap and completed: transfer complete and the
 * block gap event latch beside it (the latter only because
 * ESDHC_IO_ADMA_GAP keeps its status enabled).  Then the error is not
 * one: it is cleared, so that the library finishes the request as a
 * completed one, and the DMA address moves on to the next default SDMA
 * boundary past what was transferred, as stock does.  Anything else,
 * among them an ADMA error alone, stays an error.
 *
 * Return: true when the error was taken back.
 */
bool esdhc_errata_adma_gap(struct esdhc_io *io, u32 intmask,
			   struct mmc_data *data, dma_addr_t start)
{
	const u32 done_at_gap = SDHCI_INT_DATA_END | SDHCI_INT_BLK_GAP;
	dma_addr_t next;

	if (!(io->flags & ESDHC_IO_ADMA_GAP) ||
	    (intmask & done_at_gap) != done_at_gap)
		return false;

	next = round_down(start + data->bytes_xfered,
			  SDHCI_DEFAULT_BOUNDARY_SIZE) +
	       SDHCI_DEFAULT_BOUNDARY_SIZE;
	/* DSADDR is one word; sdhci_set_sdma_addr() truncates alike. */
	esdhc_io_writel(io, lower_32_bits(next), SDHCI_DMA_ADDRESS);
	data->bytes_xfered = next - start;
	data->error = 0;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(esdhc_errata_adma_gap);

/*
 * PROCTL across a suspend: the controller may lose power, and the full
 * reset on resume leaves PROCTL at its defaults, among them the DMA
 * endian mode (EMODE) and DMA select, which the SDHCI library never
 * writes (it knows neither field) and the data width, which it writes
 * only on the next set_ios.  The whole word is saved and written back
 * after the library's resume, as stock does (per host here, not in one
 * static for every controller).
 */
u32 esdhc_errata_suspend_save(struct esdhc_io *io)
{
	return io->read32(io->ctx, ESDHC_PROCTL);
}
EXPORT_SYMBOL_IF_KUNIT(esdhc_errata_suspend_save);

void esdhc_errata_resume_restore(struct esdhc_io *io, u32 proctl)
{
	io->write32(io->ctx, ESDHC_PROCTL, proctl);
}
EXPORT_SYMBOL_IF_KUNIT(esdhc_errata_resume_restore);
