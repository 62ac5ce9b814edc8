// SPDX-License-Identifier: GPL-2.0
/*
 * mmc_coalesce: an SD/MMC card block driver whose request path goes through
 * a reorder window (reorder_window.c), so that a cheap card sees each
 * allocation unit filled in ascending order.
 *
 * This file is the disk: binding to cards on the mmc bus, the gendisk
 * (named mmcblkN with partitions mmcblkNpM, like mmc_block), the blk-mq
 * tag set and queue_rq(). queue_rq() only hands the request to the window
 * or to the FIFO of other requests and wakes the issuer thread (issue.c),
 * which feeds the card.
 */
#include <linux/blkdev.h>
#include <linux/dma-mapping.h>
#include <linux/hdreg.h>
#include <linux/idr.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/mmc/host.h>
#include <linux/mmc/mmc.h>
#include <linux/module.h>
#include <linux/scatterlist.h>

#include "core.h"	/* drivers/mmc/core: erase helpers */
#include "card.h"	/* drivers/mmc/core: mmc_card_* helpers */
#include "bus.h"	/* drivers/mmc/core: mmc_register_driver() */
#include "mmcc.h"
#include <trace/events/mmc_coalesce.h>

/* Same major as mmc_block so device numbers match; never both loaded. */
#define MMCC_BLOCK_MAJOR	179

static int mmcc_major;
static DEFINE_IDA(mmcc_ida);

static u32 mmcc_write_flags(struct request *rq)
{
	u32 flags = 0;

	if (rq->cmd_flags & REQ_SYNC)
		flags |= RWIN_F_SYNC;
	if (rq->cmd_flags & REQ_FUA)
		flags |= RWIN_F_FUA;
	if (rq->cmd_flags & REQ_PREFLUSH)
		flags |= RWIN_F_PREFLUSH;
	if (rq->cmd_flags & REQ_META)
		flags |= RWIN_F_META;
	return flags;
}

static blk_status_t mmcc_queue_rq(struct blk_mq_hw_ctx *hctx,
				  const struct blk_mq_queue_data *bd)
{
	struct mmcc_disk *d = hctx->queue->queuedata;
	struct request *rq = bd->rq;
	struct mmcc_req *mq = mmcc_pdu(rq);

	/* A zero-length write carries no data; it cannot be held. */
	bool windowed = req_op(rq) == REQ_OP_WRITE && blk_rq_sectors(rq);

	INIT_LIST_HEAD(&mq->node);
	blk_mq_start_request(rq);

	spin_lock(&d->lock);
	if (unlikely(d->dead)) {
		spin_unlock(&d->lock);
		return BLK_STS_IOERR;
	}
	if (windowed && d->tun[MMCC_T_ENABLE]) {
		mq->wr.start = blk_rq_pos(rq);
		mq->wr.sectors = blk_rq_sectors(rq);
		mq->wr.flags = mmcc_write_flags(rq);
		mq->wr.nr_segs = blk_rq_nr_phys_segments(rq);
		mq->wr.arrival_ns = mmcc_now();
		mq->wr.cookie = rq;
		mq->wr.state = RWIN_ST_NEW;
		if (rwin_add_write(&d->win, &mq->wr, mq->wr.arrival_ns))
			trace_mmcc_hold(d->index, mq->wr.start, mq->wr.sectors,
					div_u64(mq->wr.start,
						d->win.p.au_sectors));
	} else {
		mq->wr.state = RWIN_ST_NEW;
		mq->wr.arrival_ns = mmcc_now();
		mq->sent_mark = d->write_sectors_sent;
		if (req_op(rq) == REQ_OP_WRITE)
			d->fifo_writes++;
		list_add_tail(&mq->node, &d->others);
	}
	spin_unlock(&d->lock);
	mmcc_kick(d);
	return BLK_STS_OK;
}

static const struct blk_mq_ops mmcc_mq_ops = {
	.queue_rq = mmcc_queue_rq,
};

/* The usual fake geometry of flash cards, for tools that still ask. */
static int mmcc_getgeo(struct block_device *bdev, struct hd_geometry *geo)
{
	geo->heads = 4;
	geo->sectors = 16;
	geo->cylinders = get_capacity(bdev->bd_disk) / (4 * 16);
	return 0;
}

static const struct block_device_operations mmcc_fops = {
	.owner = THIS_MODULE,
	.getgeo = mmcc_getgeo,
	.ioctl = mmcc_ioctl,
#ifdef CONFIG_COMPAT
	.compat_ioctl = blkdev_compat_ptr_ioctl,
#endif
};

static sector_t mmcc_card_sectors(struct mmc_card *card)
{
	if (!mmc_card_sd(card) && mmc_card_blockaddr(card))
		return card->ext_csd.sectors;	/* MMC above 2 GiB */
	return (sector_t)card->csd.capacity << (card->csd.read_blkbits - 9);
}

static void mmcc_set_limits(struct mmcc_disk *d, struct request_queue *q)
{
	struct mmc_card *card = d->card;
	struct mmc_host *host = card->host;
	unsigned int max_sectors;

	max_sectors = min(host->max_blk_count, host->max_req_size >> 9);
	blk_queue_logical_block_size(q, 512);
	blk_queue_max_hw_sectors(q, max_sectors);
	blk_queue_max_segments(q, host->max_segs);
	blk_queue_max_segment_size(q, host->max_seg_size);
	dma_set_max_seg_size(mmc_dev(host), queue_max_segment_size(q));
	/* As mmc_block: held writes stay far below it (hold_ms <= 10 s). */
	blk_queue_rq_timeout(q, 60 * HZ);
	blk_queue_flag_set(QUEUE_FLAG_NONROT, q);
	blk_queue_flag_clear(QUEUE_FLAG_ADD_RANDOM, q);

	/*
	 * Advertise a write cache and FUA: the card has none, so a flush has
	 * nothing to do at the card, but it is the signal that somebody waits
	 * for durability, which the window answers by releasing what it holds.
	 * A completed write is on the card, so FUA is honoured as it is.
	 */
	blk_queue_write_cache(q, true, true);

	if (mmc_can_erase(card)) {
		unsigned int max_discard = mmc_calc_max_discard(card);

		if (max_discard) {
			blk_queue_max_discard_sectors(q, max_discard);
			q->limits.discard_granularity = card->pref_erase << 9;
		}
	}

	d->max_segs = host->max_segs;
	d->win.p.max_sectors = max_sectors;
	d->win.p.max_segs = host->max_segs;
}

static void mmcc_free(struct mmcc_disk *d)
{
	kfree(d->sg);
	ida_free(&mmcc_ida, d->index);
	kfree(d);
}

static int mmcc_probe(struct mmc_card *card)
{
	struct mmcc_disk *d;
	struct rwin_params p;
	struct gendisk *disk;
	int ret;

	if (!mmc_card_sd(card) && !mmc_card_mmc(card))
		return -ENODEV;		/* SDIO and combo cards: not ours */
	if (!(card->csd.cmdclass & CCC_BLOCK_READ))
		return -ENODEV;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	ret = ida_alloc_max(&mmcc_ida, MMCC_MAX_DISKS - 1, GFP_KERNEL);
	if (ret < 0) {
		kfree(d);
		return ret;
	}
	d->index = ret;
	d->card = card;
	spin_lock_init(&d->lock);
	INIT_LIST_HEAD(&d->others);
	INIT_LIST_HEAD(&d->node);
	init_waitqueue_head(&d->drained_wq);
	d->out.last_au = U64_MAX;
	/* The core set pref_erase from the card's AU_SIZE, or guessed it. */
	d->au_sectors_card = card->pref_erase;

	mutex_lock(&mmcc_mutex);
	mmcc_tunables_defaults(d->tun);
	mutex_unlock(&mmcc_mutex);

	rwin_params_init(&p);
	ret = rwin_init(&d->win, &p);
	if (ret)
		goto err_free;

	d->tag_set.ops = &mmcc_mq_ops;
	d->tag_set.nr_hw_queues = 1;
	d->tag_set.queue_depth = MMCC_WINDOW_REQS_MAX + MMCC_TAG_HEADROOM;
	d->tag_set.numa_node = NUMA_NO_NODE;
	d->tag_set.cmd_size = sizeof(struct mmcc_req);
	d->tag_set.flags = BLK_MQ_F_SHOULD_MERGE;
	ret = blk_mq_alloc_tag_set(&d->tag_set);
	if (ret)
		goto err_free;

	disk = blk_mq_alloc_disk(&d->tag_set, d);
	if (IS_ERR(disk)) {
		ret = PTR_ERR(disk);
		goto err_tags;
	}
	d->disk = disk;
	mmcc_set_limits(d, disk->queue);

	spin_lock(&d->lock);
	mmcc_tunables_to_params_locked(d);
	spin_unlock(&d->lock);

	d->sg = kmalloc_array(d->max_segs, sizeof(*d->sg), GFP_KERNEL);
	if (!d->sg) {
		ret = -ENOMEM;
		goto err_disk;
	}

	disk->major = mmcc_major;
	disk->first_minor = d->index * MMCC_MINORS;
	disk->minors = MMCC_MINORS;
	disk->fops = &mmcc_fops;
	disk->private_data = d;
	snprintf(disk->disk_name, sizeof(disk->disk_name), "mmcblk%d",
		 d->index);
	set_capacity(disk, mmcc_card_sectors(card));
	if (mmc_card_readonly(card))
		set_disk_ro(disk, true);

	ret = mmcc_issuer_start(d);
	if (ret)
		goto err_disk;

	dev_set_drvdata(&card->dev, d);
	mutex_lock(&mmcc_mutex);
	list_add_tail(&d->node, &mmcc_disks);
	mutex_unlock(&mmcc_mutex);

	ret = device_add_disk(&card->dev, disk, mmcc_disk_groups);
	if (ret)
		goto err_unlist;
	mmcc_debugfs_add(d);

	pr_info("%s: %s %s %llu MiB, AU %u KiB, window %u writes / %u KiB, hold %u ms\n",
		disk->disk_name, mmc_card_id(card), mmc_card_name(card),
		(unsigned long long)get_capacity(disk) >> 11,
		d->win.p.au_sectors / 2, d->win.p.window_reqs,
		(u32)(d->win.p.window_bytes >> 10), d->tun[MMCC_T_HOLD_MS]);
	return 0;

err_unlist:
	mutex_lock(&mmcc_mutex);
	list_del(&d->node);
	mutex_unlock(&mmcc_mutex);
	dev_set_drvdata(&card->dev, NULL);
	mmcc_issuer_stop(d);
err_disk:
	put_disk(d->disk);
err_tags:
	blk_mq_free_tag_set(&d->tag_set);
err_free:
	mmcc_free(d);
	return ret;
}

/*
 * Removal and unload: first let the window go to the card (if the card is
 * gone, those commands fail and their requests complete with an error),
 * then take the disk away, which waits for every request still queued.
 * Only then stop the issuer: it fails whatever might still be left.
 */
static void mmcc_remove(struct mmc_card *card)
{
	struct mmcc_disk *d = dev_get_drvdata(&card->dev);

	if (!d)
		return;
	mutex_lock(&mmcc_mutex);
	list_del_init(&d->node);
	mutex_unlock(&mmcc_mutex);

	mmcc_drain_and_wait(d);
	mmcc_debugfs_remove(d);
	del_gendisk(d->disk);
	mmcc_issuer_stop(d);
	put_disk(d->disk);
	blk_mq_free_tag_set(&d->tag_set);
	dev_set_drvdata(&card->dev, NULL);
	mmcc_free(d);
}

static void mmcc_shutdown(struct mmc_card *card)
{
	struct mmcc_disk *d = dev_get_drvdata(&card->dev);

	if (d)
		mmcc_drain_and_wait(d);
}

#ifdef CONFIG_PM_SLEEP
static int mmcc_suspend(struct device *dev)
{
	struct mmcc_disk *d = dev_get_drvdata(dev);

	if (d) {
		blk_mq_quiesce_queue(d->disk->queue);
		mmcc_drain_and_wait(d);
	}
	return 0;
}

static int mmcc_resume(struct device *dev)
{
	struct mmcc_disk *d = dev_get_drvdata(dev);

	if (d)
		blk_mq_unquiesce_queue(d->disk->queue);
	return 0;
}
#endif

static SIMPLE_DEV_PM_OPS(mmcc_pm_ops, mmcc_suspend, mmcc_resume);

static struct mmc_driver mmcc_driver = {
	.drv = {
		.name = MMCC_NAME,
		.pm = &mmcc_pm_ops,
	},
	.probe = mmcc_probe,
	.remove = mmcc_remove,
	.shutdown = mmcc_shutdown,
};

static int __init mmcc_init(void)
{
	int ret;

	/* Take mmc_block's major when it is free, else any. */
	ret = register_blkdev(MMCC_BLOCK_MAJOR, "mmc");
	if (ret == 0) {
		mmcc_major = MMCC_BLOCK_MAJOR;
	} else {
		ret = register_blkdev(0, "mmc");
		if (ret < 0)
			return ret;
		mmcc_major = ret;
	}
	mmcc_debugfs_init();
	ret = mmc_register_driver(&mmcc_driver);
	if (ret) {
		mmcc_debugfs_exit();
		unregister_blkdev(mmcc_major, "mmc");
	}
	return ret;
}

static void __exit mmcc_exit(void)
{
	mmc_unregister_driver(&mmcc_driver);
	mmcc_debugfs_exit();
	unregister_blkdev(mmcc_major, "mmc");
	ida_destroy(&mmcc_ida);
}

module_init(mmcc_init);
module_exit(mmcc_exit);

MODULE_DESCRIPTION("SD/MMC block driver with an AU-aware write reorder window");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(MMC_COALESCE);
