// SPDX-License-Identifier: GPL-2.0
/*
 * flushrace: a guest test of the I/O scheduler on the device @dev. Linux
 * 6.5 and later send the data of a write with REQ_PREFLUSH through the
 * scheduler: blk-flush sends the flush first, then inserts the data step
 * at the head (RQF_FLUSH_SEQ), where it must wait for the older queued
 * writes it overlaps, and for those only. No user interface sends such
 * a write to a block device, hence a module.
 *
 * On a disk with a write cache that does one command at a time, slowly
 * (null_blk cache_size, hw_queue_depth=1, a completion timer), all bios
 * sent at once without a plug:
 *  - a backlog of 64 KiB background writes in an AU two past @sector's,
 *    the first of which keeps the disk busy;
 *  - W0, a 64 KiB background write at @sector;
 *  - A, a 4 KiB write with REQ_PREFLUSH at @sector: its flush goes out
 *    before or after the first backlog write, then its data step waits
 *    at the head for W0, queued behind the rest of the backlog;
 *  - B, a 64 KiB background write at @sector, sent at the second
 *    completion (one after the flush) while A's step waits.
 * Then 4 KiB at @sector are read back: B is the newest write there, and
 * its data must be what the read returns.
 *
 * With @b_sync, A is 64 KiB, W0 32 KiB under A's second half and B a
 * 4 KiB sync write under A's first 4 KiB: B overlaps nothing queued, so
 * a scheduler that sorts sync writes ahead would send it before W0 and
 * A, and A's older data would land over it.
 *
 * Loading runs the test once and puts the verdict in the parameter
 * @result: 0 on B's data; -EIO on other data, an error or A's step sent
 * before W0; -EAGAIN when B missed the step's wait (the test did not
 * test); -ETIMEDOUT when the disk did not complete in time. The load
 * itself fails only when the test cannot run (parameters, device):
 * busybox's insmod loads a module again with init_module() when
 * finit_module() failed, which would run a failed test twice. The kernel
 * log gets each write's times and what was read.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>

#define FR_MAX_BACKLOG	8
#define FR_AU_SECTORS	(SZ_4M >> SECTOR_SHIFT)
/* Backlog writes this far apart: a gap after each, so none merge. */
#define FR_BG_STRIDE	((2 * SZ_64K) >> SECTOR_SHIFT)
/* The longest wait for one completion of the disk */
#define FR_TIMEOUT	(30 * HZ)

static char *dev;
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "Block device to test; its data is overwritten");

static unsigned long sector = 2048;
module_param(sector, ulong, 0444);
MODULE_PARM_DESC(sector, "Where W0, A and B write, in 512-byte sectors");

static unsigned int backlog = 4;
module_param(backlog, uint, 0444);
MODULE_PARM_DESC(backlog, "Background writes sent before W0 (3 to 8)");

static bool b_sync;
module_param(b_sync, bool, 0444);
MODULE_PARM_DESC(b_sync, "B is a 4 KiB sync write beside W0, under A (64 KiB)");

static int result = -ENODATA;
module_param(result, int, 0444);
MODULE_PARM_DESC(result, "The verdict: 0 when B's data read back, else -errno");

enum { FR_W0, FR_A, FR_B, FR_BG };

struct fr_run;

struct fr_io {
	char name[16];
	struct fr_run *run;
	struct folio *folio;
	sector_t at;
	unsigned int len;
	blk_opf_t opf;
	u16 tag;
	bool sent;
	u64 sent_ns;
	u64 done_ns;
	int order;		/* 1: completed first */
	blk_status_t status;
};

struct fr_run {
	struct block_device *bdev;
	struct completion any;	/* once per completed write */
	atomic_t completed;
	unsigned int nr_sent;
	unsigned int nr_seen;
	u64 t0;
	struct fr_io io[FR_BG + FR_MAX_BACKLOG];
};

static unsigned int fr_ms(const struct fr_run *run, u64 ns)
{
	return ns ? div_u64(ns - run->t0, NSEC_PER_MSEC) : 0;
}

/* Each 8-byte word: the writer's tag and the word's place in the write. */
static void fr_fill(void *buf, unsigned int len, u16 tag)
{
	u64 *w = buf;
	unsigned int i;

	for (i = 0; i < len / sizeof(*w); i++)
		w[i] = (u64)tag << 48 | i;
}

static void fr_end_io(struct bio *bio)
{
	struct fr_io *io = bio->bi_private;

	io->done_ns = ktime_get_ns();
	io->status = bio->bi_status;
	io->order = atomic_inc_return(&io->run->completed);
	bio_put(bio);
	/* last: the waiter may free the run once it returns */
	complete(&io->run->any);
}

static int fr_prepare(struct fr_io *io, struct fr_run *run, const char *name,
		      sector_t at, unsigned int len, blk_opf_t opf, u16 tag)
{
	strscpy(io->name, name, sizeof(io->name));
	io->run = run;
	io->at = at;
	io->len = len;
	io->opf = opf;
	io->tag = tag;
	io->folio = folio_alloc(GFP_KERNEL, get_order(len));
	if (!io->folio)
		return -ENOMEM;
	fr_fill(folio_address(io->folio), len, tag);
	return 0;
}

static void fr_send(struct fr_run *run, struct fr_io *io)
{
	struct bio *bio = bio_alloc(run->bdev, 1, io->opf, GFP_KERNEL);

	bio->bi_iter.bi_sector = io->at;
	bio_add_folio_nofail(bio, io->folio, io->len, 0);
	bio->bi_private = io;
	bio->bi_end_io = fr_end_io;
	io->sent = true;
	io->sent_ns = ktime_get_ns();
	run->nr_sent++;
	submit_bio(bio);
}

/* Until @n writes have completed; false after FR_TIMEOUT without one. */
static bool fr_wait(struct fr_run *run, unsigned int n)
{
	while (run->nr_seen < n) {
		if (!wait_for_completion_timeout(&run->any, FR_TIMEOUT))
			return false;
		run->nr_seen++;
	}
	return true;
}

static struct fr_io *fr_by_order(struct fr_run *run, int order)
{
	unsigned int i;

	for (i = 0; i < FR_BG + backlog; i++)
		if (run->io[i].sent && run->io[i].order == order)
			return &run->io[i];
	return NULL;
}

/* Whose data @buf holds: the writer whose first 4 KiB it matches. */
static struct fr_io *fr_whose(struct fr_run *run, const void *buf)
{
	static const int at_sector[] = { FR_W0, FR_A, FR_B };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(at_sector); i++)
		if (!memcmp(buf, folio_address(run->io[at_sector[i]].folio),
			    SZ_4K))
			return &run->io[at_sector[i]];
	return NULL;
}

/*
 * The race, set up as the header says, or -EAGAIN. The disk does one
 * command at a time, each as long as those after the second completion
 * took: three of them by the second completion (two writes and the
 * flush) mean that A's step was at the head when B was sent. And B must
 * have arrived before the step could leave the scheduler: at the latest
 * when the write in front of W0 completed and W0 got the disk.
 */
static int fr_check_race(struct fr_run *run)
{
	struct fr_io *w0 = &run->io[FR_W0], *b = &run->io[FR_B];
	struct fr_io *second = fr_by_order(run, 2);
	struct fr_io *last = fr_by_order(run, run->nr_sent);
	struct fr_io *before_w0 = fr_by_order(run, w0->order - 1);
	u64 cmd_ns;

	if (!second || !last || last == second) {
		pr_err("the completions do not add up\n");
		return -EAGAIN;
	}
	cmd_ns = div_u64(last->done_ns - second->done_ns, run->nr_sent - 2);
	if (second->done_ns - run->t0 < cmd_ns * 5 / 2) {
		pr_err("the second completion came at %u ms, a command takes %u ms: the flush had not run by then\n",
		       fr_ms(run, second->done_ns),
		       (unsigned int)div_u64(cmd_ns, NSEC_PER_MSEC));
		return -EAGAIN;
	}
	if (!before_w0 || b->sent_ns >= before_w0->done_ns) {
		pr_err("B was sent at %u ms, after A's step could leave (%u ms): the race was missed\n",
		       fr_ms(run, b->sent_ns),
		       before_w0 ? fr_ms(run, before_w0->done_ns) : 0);
		return -EAGAIN;
	}
	return 0;
}

static int fr_read_back(struct fr_run *run, struct folio *folio)
{
	struct bio bio;
	struct bio_vec bvec;
	int ret;

	bio_init(&bio, run->bdev, &bvec, 1, REQ_OP_READ);
	bio.bi_iter.bi_sector = sector;
	bio_add_folio_nofail(&bio, folio, SZ_4K, 0);
	ret = submit_bio_wait(&bio);
	bio_uninit(&bio);
	return ret;
}

static int fr_run_test(struct fr_run *run)
{
	struct fr_io *w0 = &run->io[FR_W0], *a = &run->io[FR_A];
	struct fr_io *b = &run->io[FR_B];
	unsigned int i, nr = FR_BG + backlog;
	struct fr_io *found = NULL;
	struct folio *folio;
	int ret = 0, race;

	run->t0 = ktime_get_ns();
	for (i = FR_BG; i < nr; i++)
		fr_send(run, &run->io[i]);
	fr_send(run, w0);
	fr_send(run, a);
	/*
	 * The first completion frees the disk for A's flush, the second
	 * comes after it: A's step is at the head by then.
	 */
	if (fr_wait(run, 2))
		fr_send(run, b);
	else
		ret = -ETIMEDOUT;
	if (ret || !fr_wait(run, run->nr_sent)) {
		pr_err("%u of %u writes completed, then none for %u s\n",
		       run->nr_seen, run->nr_sent, FR_TIMEOUT / HZ);
		ret = -ETIMEDOUT;
	}
	/* whatever happened, nothing may complete into a freed run */
	while (run->nr_seen < run->nr_sent) {
		wait_for_completion(&run->any);
		run->nr_seen++;
	}

	/* in the order the disk completed them */
	for (i = 1; i <= run->nr_sent; i++) {
		struct fr_io *io = fr_by_order(run, i);

		if (!io)
			continue;
		pr_info("%-3s %2u KiB at %llu%s: sent %5u ms, done %5u ms (#%d)%s\n",
			io->name, io->len / SZ_1K, (u64)io->at,
			io->opf & REQ_PREFLUSH ? " PREFLUSH" : "",
			fr_ms(run, io->sent_ns), fr_ms(run, io->done_ns),
			io->order, io->status ? " error" : "");
		if (io->status)
			ret = ret ?: blk_status_to_errno(io->status);
	}
	if (ret)
		return ret;

	folio = folio_alloc(GFP_KERNEL, 0);
	if (!folio)
		return -ENOMEM;
	ret = fr_read_back(run, folio);
	if (!ret)
		found = fr_whose(run, folio_address(folio));
	folio_put(folio);
	if (ret) {
		pr_err("reading back sector %lu failed: %d\n", sector, ret);
		return ret;
	}

	race = fr_check_race(run);
	if (a->order < w0->order) {
		pr_err("A's data step went before the older W0 it overlaps\n");
		ret = -EIO;
	}
	if (!found) {
		pr_err("read back data of none of W0, A and B at sector %lu\n",
		       sector);
		ret = -EIO;
	} else if (found != b) {
		pr_err("read back %s's data at sector %lu, not B's: the older %s went after the newer B\n",
		       found->name, sector, found->name);
		ret = -EIO;
	}
	if (ret)
		return ret;
	if (race)
		return race;
	pr_info("B's data read back: A's step waited for W0 only, and went before B\n");
	return 0;
}

static int __init flushrace_init(void)
{
	sector_t bg = round_down(sector, FR_AU_SECTORS) + 2 * FR_AU_SECTORS;
	struct file *bdev_file;
	struct fr_run *run;
	char name[16];
	unsigned int i;
	int ret;

	if (!dev || backlog < 3 || backlog > FR_MAX_BACKLOG) {
		pr_err("usage: insmod flushrace.ko dev=PATH [sector=N] [backlog=3..%u] [b_sync=1]\n",
		       FR_MAX_BACKLOG);
		return -EINVAL;
	}
	run = kzalloc(sizeof(*run), GFP_KERNEL);
	if (!run)
		return -ENOMEM;
	init_completion(&run->any);
	atomic_set(&run->completed, 0);

	bdev_file = bdev_file_open_by_path(dev, BLK_OPEN_READ | BLK_OPEN_WRITE,
					   NULL, NULL);
	if (IS_ERR(bdev_file)) {
		ret = PTR_ERR(bdev_file);
		pr_err("cannot open %s: %d\n", dev, ret);
		goto free_run;
	}
	run->bdev = file_bdev(bdev_file);
	if (!bdev_write_cache(run->bdev)) {
		pr_err("%s has no write cache: nothing sequences a flush\n",
		       dev);
		ret = -EINVAL;
		goto close;
	}
	if (bg + backlog * FR_BG_STRIDE > bdev_nr_sectors(run->bdev)) {
		pr_err("%s is too small for sector %lu\n", dev, sector);
		ret = -EINVAL;
		goto close;
	}

	if (b_sync) {
		ret = fr_prepare(&run->io[FR_W0], run, "W0",
				 sector + (SZ_32K >> SECTOR_SHIFT), SZ_32K,
				 REQ_OP_WRITE, 0x5730);
		ret = ret ?: fr_prepare(&run->io[FR_A], run, "A", sector,
					SZ_64K, REQ_OP_WRITE | REQ_PREFLUSH,
					0x4100);
		ret = ret ?: fr_prepare(&run->io[FR_B], run, "B", sector,
					SZ_4K, REQ_OP_WRITE | REQ_SYNC,
					0x4200);
	} else {
		ret = fr_prepare(&run->io[FR_W0], run, "W0", sector, SZ_64K,
				 REQ_OP_WRITE, 0x5730);
		ret = ret ?: fr_prepare(&run->io[FR_A], run, "A", sector,
					SZ_4K, REQ_OP_WRITE | REQ_PREFLUSH,
					0x4100);
		ret = ret ?: fr_prepare(&run->io[FR_B], run, "B", sector,
					SZ_64K, REQ_OP_WRITE, 0x4200);
	}
	for (i = 0; !ret && i < backlog; i++) {
		snprintf(name, sizeof(name), "bg%u", i + 1);
		ret = fr_prepare(&run->io[FR_BG + i], run, name,
				 bg + i * FR_BG_STRIDE, SZ_64K, REQ_OP_WRITE,
				 0x4700 + i);
	}
	/* the verdict goes to @result: the load succeeds once it ran */
	if (!ret)
		result = fr_run_test(run);

	for (i = 0; i < FR_BG + backlog; i++)
		if (run->io[i].folio)
			folio_put(run->io[i].folio);
close:
	fput(bdev_file);
free_run:
	kfree(run);
	return ret;
}

static void __exit flushrace_exit(void)
{
}

module_init(flushrace_init);
module_exit(flushrace_exit);

MODULE_DESCRIPTION("Guest test: a flush sequence's data step and a newer write to the same sectors");
MODULE_LICENSE("GPL");
