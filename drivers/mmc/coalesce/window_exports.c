// SPDX-License-Identifier: GPL-2.0
/*
 * The reorder window as a small library module, so that the block driver
 * and its KUnit suite share one copy whether each is built in or modular.
 * reorder_window.c stays free of module boilerplate so that it also builds
 * on the host (tests/window/).
 */
#include <linux/export.h>
#include <linux/module.h>

#include "reorder_window.h"

EXPORT_SYMBOL_NS_GPL(rwin_params_init, MMC_COALESCE);
EXPORT_SYMBOL_NS_GPL(rwin_init, MMC_COALESCE);
EXPORT_SYMBOL_NS_GPL(rwin_add_write, MMC_COALESCE);
EXPORT_SYMBOL_NS_GPL(rwin_read, MMC_COALESCE);
EXPORT_SYMBOL_NS_GPL(rwin_overlaps_queued, MMC_COALESCE);
EXPORT_SYMBOL_NS_GPL(rwin_flush, MMC_COALESCE);
EXPORT_SYMBOL_NS_GPL(rwin_drain, MMC_COALESCE);
EXPORT_SYMBOL_NS_GPL(rwin_expire, MMC_COALESCE);
EXPORT_SYMBOL_NS_GPL(rwin_next_deadline, MMC_COALESCE);
EXPORT_SYMBOL_NS_GPL(rwin_pop, MMC_COALESCE);
EXPORT_SYMBOL_NS_GPL(rwin_complete, MMC_COALESCE);

MODULE_DESCRIPTION("Reorder window: AU-aware write hold/release policy for SD cards");
MODULE_LICENSE("GPL");
