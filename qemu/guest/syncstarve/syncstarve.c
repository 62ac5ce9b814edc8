// SPDX-License-Identifier: GPL-2.0
/*
 * syncstarve: a guest test of the I/O scheduler on the device @dev. Sync
 * writers that never pause must not keep background writes from the disk
 * forever: sync(2), dirty throttling and memory reclaim wait for those.
 *
 * @writers kernel threads write 4 KiB with REQ_SYNC, each to a block of
 * its own, and send the next write as soon as the last one completed, on
 * a disk that does one command at a time (null_blk, hw_queue_depth=1, a
 * completion timer). blk-mq keeps one request on its own dispatch list
 * while the disk is busy, taken from the scheduler when it was asked: with
 * three writers that is at times the only sync write, and a background
 * write gets taken then. Eight keep several sync writes in the scheduler
 * at every ask. Then @bg background
 * writes of 64 KiB are sent to another AU, from this thread, which sleeps
 * for a scheduler tag when the async ones are used up. The writers stop
 * once every background write has completed, or at @limit_s seconds.
 *
 * Loading runs the test once and puts the verdict in the parameter
 * @result: 0 when every background write completed, without error,
 * within @limit_s; -ETIMEDOUT when one had not; -EAGAIN when the sync
 * writers did not keep the disk busy (fewer sync writes completed than
 * the disk could have done beside the background ones: nothing was
 * tested); -EIO on a write error. The times go to the kernel log. The
 * load itself fails only when the test cannot run (parameters, device).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sizes.h>

#define SS_MAX_WRITERS	16
#define SS_MAX_BG	64
#define SS_AU_SECTORS	(SZ_4M >> SECTOR_SHIFT)

static char *dev;
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "Block device to test; its first 12 MiB are overwritten");

static unsigned int writers = 8;
module_param(writers, uint, 0444);
MODULE_PARM_DESC(writers, "Sync writers (1 to 16)");

static unsigned int bg = 16;
module_param(bg, uint, 0444);
MODULE_PARM_DESC(bg, "Background writes of 64 KiB (1 to 64)");

static unsigned int limit_s = 40;
module_param(limit_s, uint, 0444);
MODULE_PARM_DESC(limit_s, "Seconds the background writes may take (5 to 600)");

static int result = -ENODATA;
module_param(result, int, 0444);
MODULE_PARM_DESC(result, "The verdict: 0 when the background writes completed in time, else -errno");

struct ss_run {
	struct block_device *bdev;
	unsigned long deadline;		/* jiffies: the writers stop */
	atomic_t bg_left;		/* background writes not completed */
	atomic_t errors;
	struct completion bg_done;
	u64 t0, bg_last_ns;
	struct page *page;		/* every write's data */
	struct task_struct *writer[SS_MAX_WRITERS];
	unsigned long sync_done[SS_MAX_WRITERS];
};

static unsigned int ss_ms(const struct ss_run *run, u64 ns)
{
	return div_u64(ns - run->t0, NSEC_PER_MSEC);
}

static int ss_writer(void *arg)
{
	struct ss_run *run = arg;
	unsigned int i;

	for (i = 0; i < writers && run->writer[i] != current; i++)
		;
	while (!kthread_should_stop()) {
		struct bio *bio;

		if (atomic_read(&run->bg_left) == 0 ||
		    time_after(jiffies, run->deadline)) {
			/* idle until told to stop */
			set_current_state(TASK_INTERRUPTIBLE);
			if (!kthread_should_stop())
				schedule();
			__set_current_state(TASK_RUNNING);
			continue;
		}
		bio = bio_alloc(run->bdev, 1, REQ_OP_WRITE | REQ_SYNC,
				GFP_KERNEL);
		bio->bi_iter.bi_sector = (i + 1) * (SZ_4K >> SECTOR_SHIFT);
		__bio_add_page(bio, run->page, SZ_4K, 0);
		if (submit_bio_wait(bio))
			atomic_inc(&run->errors);
		bio_put(bio);
		run->sync_done[i]++;
	}
	return 0;
}

static void ss_bg_end_io(struct bio *bio)
{
	struct ss_run *run = bio->bi_private;

	if (bio->bi_status)
		atomic_inc(&run->errors);
	bio_put(bio);
	if (atomic_dec_and_test(&run->bg_left)) {
		run->bg_last_ns = ktime_get_ns();
		complete(&run->bg_done);
	}
}

static int ss_run_test(struct ss_run *run)
{
	sector_t at = 2 * SS_AU_SECTORS;
	unsigned long sync_total = 0;
	unsigned int i, bg_ms;

	run->t0 = ktime_get_ns();
	run->deadline = jiffies + limit_s * HZ;
	atomic_set(&run->bg_left, bg);
	for (i = 0; i < writers; i++) {
		run->writer[i] = kthread_create(ss_writer, run, "syncstarve%u",
						i);
		if (IS_ERR(run->writer[i])) {
			int ret = PTR_ERR(run->writer[i]);

			while (i--)
				kthread_stop(run->writer[i]);
			return ret;
		}
	}
	for (i = 0; i < writers; i++)
		wake_up_process(run->writer[i]);
	/* the sync writers first: the disk is theirs when the stream comes */
	msleep(200);

	for (i = 0; i < bg; i++) {
		struct bio *bio = bio_alloc(run->bdev, SZ_64K / PAGE_SIZE,
					    REQ_OP_WRITE, GFP_KERNEL);
		unsigned int off;

		bio->bi_iter.bi_sector = at + i * (SZ_64K >> SECTOR_SHIFT);
		for (off = 0; off < SZ_64K; off += PAGE_SIZE)
			__bio_add_page(bio, run->page, PAGE_SIZE, 0);
		bio->bi_private = run;
		bio->bi_end_io = ss_bg_end_io;
		submit_bio(bio);	/* may sleep for a tag */
	}
	wait_for_completion(&run->bg_done);
	bg_ms = ss_ms(run, run->bg_last_ns);
	for (i = 0; i < writers; i++) {
		kthread_stop(run->writer[i]);
		sync_total += run->sync_done[i];
	}

	pr_info("%u background writes of 64 KiB completed at %u ms (limit %u s); %lu sync writes of 4 KiB from %u writers meanwhile\n",
		bg, bg_ms, limit_s, sync_total, writers);
	if (atomic_read(&run->errors)) {
		pr_err("%d writes failed\n", atomic_read(&run->errors));
		return -EIO;
	}
	if (bg_ms > limit_s * MSEC_PER_SEC) {
		pr_err("the background writes took %u ms, more than %u s: the sync writers starved them\n",
		       bg_ms, limit_s);
		return -ETIMEDOUT;
	}
	/* each background write left room for a sync one at least */
	if (sync_total < 2 * bg) {
		pr_err("only %lu sync writes beside %u background ones: the disk was not kept busy\n",
		       sync_total, bg);
		return -EAGAIN;
	}
	return 0;
}

static int __init syncstarve_init(void)
{
	struct ss_run *run;
	struct file *file;
	int ret = 0;

	if (!dev || !writers || writers > SS_MAX_WRITERS || !bg ||
	    bg > SS_MAX_BG || limit_s < 5 || limit_s > 600) {
		pr_err("usage: insmod syncstarve.ko dev=PATH [writers=1..%u] [bg=1..%u] [limit_s=5..600]\n",
		       SS_MAX_WRITERS, SS_MAX_BG);
		return -EINVAL;
	}
	run = kzalloc(sizeof(*run), GFP_KERNEL);
	if (!run)
		return -ENOMEM;
	init_completion(&run->bg_done);
	run->page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!run->page) {
		ret = -ENOMEM;
		goto free_run;
	}
	/* the device node, as a program opens it: the same on 6.1 and 6.12 */
	file = filp_open(dev, O_RDWR, 0);
	if (IS_ERR(file)) {
		ret = PTR_ERR(file);
		pr_err("cannot open %s: %d\n", dev, ret);
		goto free_page;
	}
	if (!S_ISBLK(file_inode(file)->i_mode)) {
		pr_err("%s is not a block device\n", dev);
		ret = -ENOTBLK;
		goto close;
	}
	run->bdev = I_BDEV(file->f_mapping->host);
	if (bdev_nr_sectors(run->bdev) < 3 * SS_AU_SECTORS) {
		pr_err("%s is smaller than 12 MiB\n", dev);
		ret = -EINVAL;
		goto close;
	}
	/* the verdict goes to @result: the load succeeds once it ran */
	result = ss_run_test(run);
close:
	filp_close(file, NULL);
free_page:
	__free_page(run->page);
free_run:
	kfree(run);
	return ret;
}

static void __exit syncstarve_exit(void)
{
}

module_init(syncstarve_init);
module_exit(syncstarve_exit);

MODULE_DESCRIPTION("Guest test: sync writers without a pause beside background writes");
MODULE_LICENSE("GPL");
