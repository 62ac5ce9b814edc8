/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmc-coalesce builds from one source against Linux 6.1 and 6.12. What
 * changed between them is bridged here, and only here: no other file of
 * the project tests LINUX_VERSION_CODE. Each shim names the kernel change
 * it covers. The kernel-patch series carry neither this header nor a
 * version test: qemu/setup/kernel-patch.sh writes each shim out as that
 * kernel's own code (compat_rules), so a shim added here needs its rules
 * there.
 *
 * The scheduler's shims use the block layer's private headers; they are
 * macros, so that the host driver, which includes this file without
 * those headers, never expands them.
 *
 * One difference is not a version test: how sbitmap counts a shallow
 * depth (per word, or over the whole map since "lib/sbitmap: convert
 * shallow_depth from one word to the whole sbitmap", which stable trees
 * took at different points: 6.12.43) is asked of sbitmap at module load,
 * coalesce_probe_shallow() in coalesce-sched.c.
 */
#ifndef _LINUX_MMC_COALESCE_COMPAT_H
#define _LINUX_MMC_COALESCE_COMPAT_H

#include <linux/bitops.h>
#include <linux/version.h>

/* ---- the coalesce I/O scheduler ---------------------------------------- */

/*
 * 6.4, "blk-mq: pass a flags argument to elevator_type->insert_requests":
 * the bool at_head argument became blk_insert_t flags.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define coalesce_insert_t		blk_insert_t
#define coalesce_insert_at_head(flags)	(!!((flags) & BLK_MQ_INSERT_AT_HEAD))
#else
#define coalesce_insert_t		bool
#define coalesce_insert_at_head(at_head)	(at_head)
#endif

/*
 * Writeback throttling off while the scheduler is attached, as bfq does.
 * 6.3, "blk-wbt: pass a gendisk to wbt_{enable,disable}_default": the
 * helpers take the gendisk. 6.2 added ELEVATOR_FLAG_DISABLE_WBT, which
 * keeps queue registration and blk-iocost from turning wbt back on
 * behind the elevator's back (block/elevator.h defines it where it
 * exists, so the test is on the flag itself).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
#define coalesce_wbt_target(q)		((q)->disk)
#else
#define coalesce_wbt_target(q)		(q)
#endif

#ifdef ELEVATOR_FLAG_DISABLE_WBT
#define coalesce_wbt_flag(eq, on)					\
	assign_bit(ELEVATOR_FLAG_DISABLE_WBT, &(eq)->flags, on)
#else
#define coalesce_wbt_flag(eq, on)	do { (void)(eq); (void)(on); } while (0)
#endif

#define coalesce_wbt_disable(q, eq)					\
	do {								\
		coalesce_wbt_flag(eq, true);				\
		wbt_disable_default(coalesce_wbt_target(q));		\
	} while (0)

#define coalesce_wbt_enable(q, eq)					\
	do {								\
		coalesce_wbt_flag(eq, false);				\
		wbt_enable_default(coalesce_wbt_target(q));		\
	} while (0)

/*
 * 6.6, "fs: add CONFIG_BUFFER_HEAD": without it the block device's page
 * cache runs on iomap, and folio->private there is not a ring of buffer
 * heads (the waiter probe, coalesce-waiters.c, then looks at pages only).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
#define coalesce_bdev_buffer_heads	IS_ENABLED(CONFIG_BUFFER_HEAD)
#else
#define coalesce_bdev_buffer_heads	true
#endif

/* ---- the sdhci-esdhc-e500 host driver ---------------------------------- */

/*
 * The platform_driver member for a remove callback that returns void.
 * 6.11, "platform: Make platform_driver::remove() return void": .remove
 * itself. Before, .remove_new (6.3, "platform: Provide a remove callback
 * that returns no value"; in 6.1.y through the stable backport).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define ESDHC_PLATFORM_REMOVE	remove
#else
#define ESDHC_PLATFORM_REMOVE	remove_new
#endif

#endif /* _LINUX_MMC_COALESCE_COMPAT_H */
