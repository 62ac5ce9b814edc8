// SPDX-License-Identifier: GPL-2.0
/*
 * mmc_coalesce issuer: one kernel thread per disk feeds the card.
 *
 * queue_rq() only parks requests (writes in the reorder window, anything
 * else on a FIFO). The issuer takes the next piece of work, sends it to the
 * card synchronously and completes its requests. While the card is busy
 * with one command, the window keeps collecting, so it sees the writes that
 * are pending rather than one at a time.
 *
 * Order rules kept here (the window keeps the rest):
 *  - a read that overlaps a queued write waits until that write is sent;
 *  - discards, ioctls and writes that bypass the window (enable=0) drain
 *    the window first, so they are never reordered against a write;
 *  - a flush releases the window (policy) and completes at once: the card
 *    has no volatile cache, so completed writes are already durable.
 */
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/mmc/host.h>
#include <linux/mmc/mmc.h>
#include <linux/mmc/sd.h>
#include <linux/scatterlist.h>
#include <linux/sched.h>

#include "core.h"
#include "card.h"
#include "mmc_ops.h"
#include "mmcc.h"

#define CREATE_TRACE_POINTS
#include <trace/events/mmc_coalesce.h>

#define MMCC_RETRIES		2	/* extra tries of a failed transfer */
#define MMCC_BUSY_TIMEOUT_MS	10000	/* card stuck in programming */
#define MMCC_DRAIN_WARN_MS	30000
/* Requests served from the FIFO in a row before a queued write goes. */
#define MMCC_OTHERS_STREAK	4

/* R1 bits that mean the transfer went wrong. */
#define MMCC_R1_ERRORS	(R1_OUT_OF_RANGE | R1_ADDRESS_ERROR |		\
			 R1_BLOCK_LEN_ERROR | R1_WP_VIOLATION |		\
			 R1_CARD_ECC_FAILED | R1_CC_ERROR | R1_ERROR)

enum mmcc_work { MMCC_W_NONE, MMCC_W_CMD, MMCC_W_RQ };

struct mmcc_brq {
	struct mmc_request mrq;
	struct mmc_command sbc, cmd, stop;
	struct mmc_data data;
};

u64 mmcc_now(void)
{
	return ktime_get_ns();
}

void mmcc_kick(struct mmcc_disk *d)
{
	struct task_struct *t = READ_ONCE(d->issuer);

	if (t)
		wake_up_process(t);
}

/* Caller holds d->lock. */
static bool mmcc_drained_locked(struct mmcc_disk *d)
{
	return !rwin_held_count(&d->win) && !rwin_has_queued(&d->win) &&
	       list_empty(&d->others) && !d->busy;
}

static bool mmcc_drained(struct mmcc_disk *d)
{
	bool ret;

	spin_lock(&d->lock);
	ret = mmcc_drained_locked(d);
	spin_unlock(&d->lock);
	return ret;
}

/* Release everything held and wait until the card has it all. */
void mmcc_drain_and_wait(struct mmcc_disk *d)
{
	spin_lock(&d->lock);
	rwin_drain(&d->win, mmcc_now());
	spin_unlock(&d->lock);
	mmcc_kick(d);
	while (!wait_event_timeout(d->drained_wq, mmcc_drained(d),
				   msecs_to_jiffies(MMCC_DRAIN_WARN_MS)))
		pr_warn("%s: still draining after %u s\n",
			d->disk->disk_name, MMCC_DRAIN_WARN_MS / 1000);
}

static bool mmcc_use_cmd23(struct mmc_card *card)
{
	if (!(card->host->caps & MMC_CAP_CMD23))
		return false;
	if (mmc_card_sd(card))
		return card->scr.cmds & SD_SCR_CMD23_SUPPORT;
	return mmc_card_mmc(card) && card->csd.mmca_vsn >= CSD_SPEC_VER_3;
}

/* Wait until the card has programmed what it received (CMD13 polling). */
static int mmcc_wait_ready(struct mmcc_disk *d)
{
	unsigned long timeout = jiffies + msecs_to_jiffies(MMCC_BUSY_TIMEOUT_MS);
	unsigned int polls = 0;
	u32 status;
	int err;

	if (mmc_host_is_spi(d->card->host))
		return 0;
	for (;;) {
		err = mmc_send_status(d->card, &status);
		if (err)
			return err;
		if (status & MMCC_R1_ERRORS)
			return -EIO;
		if (mmc_ready_for_data(status))
			return 0;
		if (time_after(jiffies, timeout))
			return -ETIMEDOUT;
		/* Busy is usually short: spin a little, then sleep. */
		if (++polls > 16)
			usleep_range(100, 200);
		else
			cond_resched();
	}
}

/* One data command: CMD17/18 or CMD24/25, with CMD23 or CMD12. */
static int mmcc_transfer(struct mmcc_disk *d, bool write, sector_t start,
			 u32 blocks, struct scatterlist *sg, unsigned int sg_len)
{
	struct mmc_card *card = d->card;
	struct mmcc_brq b = {};
	int err;

	if (write)
		b.cmd.opcode = blocks > 1 ? MMC_WRITE_MULTIPLE_BLOCK :
					    MMC_WRITE_BLOCK;
	else
		b.cmd.opcode = blocks > 1 ? MMC_READ_MULTIPLE_BLOCK :
					    MMC_READ_SINGLE_BLOCK;
	/* SDSC and small MMC cards take byte addresses. */
	b.cmd.arg = mmc_card_blockaddr(card) ? (u32)start : (u32)(start << 9);
	b.cmd.flags = MMC_RSP_SPI_R1 | MMC_RSP_R1 | MMC_CMD_ADTC;
	b.data.blksz = 512;
	b.data.blocks = blocks;
	b.data.flags = write ? MMC_DATA_WRITE : MMC_DATA_READ;
	b.data.sg = sg;
	b.data.sg_len = sg_len;
	mmc_set_data_timeout(&b.data, card);
	b.mrq.cmd = &b.cmd;
	b.mrq.data = &b.data;
	if (blocks > 1) {
		if (mmcc_use_cmd23(card)) {
			b.sbc.opcode = MMC_SET_BLOCK_COUNT;
			b.sbc.arg = blocks;
			b.sbc.flags = MMC_RSP_R1 | MMC_CMD_AC;
			b.mrq.sbc = &b.sbc;
		} else {
			b.stop.opcode = MMC_STOP_TRANSMISSION;
			b.stop.flags = write ?
				MMC_RSP_SPI_R1B | MMC_RSP_R1B | MMC_CMD_AC :
				MMC_RSP_SPI_R1 | MMC_RSP_R1 | MMC_CMD_AC;
			b.mrq.stop = &b.stop;
		}
	}

	trace_mmcc_issue(d->index, write, start, blocks);
	mmc_wait_for_req(card->host, &b.mrq);

	err = b.sbc.error ?: b.cmd.error ?: b.data.error ?: b.stop.error;
	if (!err && (b.cmd.resp[0] & MMCC_R1_ERRORS))
		err = -EIO;
	if (!err && b.data.bytes_xfered != (unsigned int)blocks << 9)
		err = -EIO;
	if (!err && write)
		err = mmcc_wait_ready(d);
	return err;
}

/* Map the requests of one extent into the disk's scatterlist. */
static unsigned int mmcc_map_extent(struct mmcc_disk *d,
				    const struct rwin_extent *e)
{
	struct request_queue *q = d->disk->queue;
	struct scatterlist *last = NULL;
	struct rwin_write *wr = e->first;
	unsigned int n = 0;
	u32 i;

	sg_init_table(d->sg, d->max_segs);
	for (i = 0; i < e->nr_writes; i++) {
		n += __blk_rq_map_sg(q, wr->cookie, d->sg, &last);
		wr = list_next_entry(wr, link);
	}
	return n;
}

static unsigned int mmcc_map_rq(struct mmcc_disk *d, struct request *rq)
{
	sg_init_table(d->sg, d->max_segs);
	return blk_rq_map_sg(d->disk->queue, rq, d->sg);
}

static bool mmcc_card_gone(struct mmcc_disk *d, int err)
{
	return err == -ENOMEDIUM || mmc_card_removed(d->card);
}

static void mmcc_reset(struct mmcc_disk *d)
{
	d->out.resets++;
	if (mmc_hw_reset(d->card))
		pr_debug("%s: reset not done\n", d->disk->disk_name);
}

/* One request on its own, with retries and one reset. */
static blk_status_t mmcc_rw_one(struct mmcc_disk *d, struct request *rq,
				bool write, int tries)
{
	int err = -EIO;

	while (tries-- > 0) {
		unsigned int n = mmcc_map_rq(d, rq);

		err = mmcc_transfer(d, write, blk_rq_pos(rq),
				    blk_rq_sectors(rq), d->sg, n);
		if (!err)
			return BLK_STS_OK;
		if (mmcc_card_gone(d, err))
			break;
		d->out.retries++;
		if (tries == MMCC_RETRIES - 1)
			mmcc_reset(d);
	}
	pr_err_ratelimited("%s: %s of %u sectors at %llu failed: %d\n",
			   d->disk->disk_name, write ? "write" : "read",
			   blk_rq_sectors(rq), (unsigned long long)blk_rq_pos(rq),
			   err);
	return BLK_STS_IOERR;
}

static void mmcc_end(struct mmcc_disk *d, struct request *rq,
		     blk_status_t status)
{
	if (status)
		d->out.errors++;
	if (req_op(rq) == REQ_OP_WRITE) {
		d->out.write_reqs_done++;
		if (status)
			d->out.write_reqs_failed++;
	}
	blk_mq_end_request(rq, status);
}

static void mmcc_count_write(struct mmcc_disk *d, sector_t start, u32 sectors,
			     u32 nr_reqs)
{
	u64 au = div_u64(start, d->win.p.au_sectors);

	d->out.write_cmds++;
	d->out.write_sectors += sectors;
	if (au != d->out.last_au)
		d->out.au_switches++;
	d->out.last_au = au;
	if (nr_reqs > 1)
		d->out.multi_req_cmds++;
}

static void mmcc_trace_released(struct mmcc_disk *d, struct rwin_write *wr)
{
	if (!wr->released_ns)
		return;		/* passed straight through */
	d->out.held_ns_total += wr->released_ns - wr->arrival_ns;
	d->out.held_released++;
	trace_mmcc_release(d->index, wr->start, wr->sectors, wr->reason,
			   wr->released_ns - wr->arrival_ns);
}

/*
 * Send a command from the window: each extent is one transfer built from
 * one or more requests. If a merged transfer fails, every request in it
 * is tried again on its own, so each ends with its own status.
 */
static void mmcc_issue_cmd(struct mmcc_disk *d, struct rwin_cmd *cmd,
			   bool dead)
{
	u32 i, j;

	if (!dead)
		mmc_get_card(d->card, NULL);
	for (i = 0; i < cmd->nr_extents; i++) {
		struct rwin_extent *e = &cmd->ext[i];
		struct rwin_write *wr = e->first, *next;
		int err = -ENODEV;

		if (!dead) {
			unsigned int n = mmcc_map_extent(d, e);

			err = mmcc_transfer(d, true, e->start, e->sectors,
					    d->sg, n);
		}
		mmcc_count_write(d, e->start, e->sectors, e->nr_writes);

		for (j = 0; j < e->nr_writes; j++, wr = next) {
			struct request *rq = wr->cookie;
			blk_status_t st = BLK_STS_OK;

			next = list_next_entry(wr, link);
			mmcc_trace_released(d, wr);
			if (err) {
				if (dead || mmcc_card_gone(d, err)) {
					st = BLK_STS_IOERR;
				} else {
					d->out.retries++;
					st = mmcc_rw_one(d, rq, true,
							 MMCC_RETRIES);
				}
			}
			mmcc_end(d, rq, st);
		}
	}
	if (!dead)
		mmc_put_card(d->card, NULL);
}

/*
 * A read that still fails after retries is read block by block, so that
 * only the bad blocks fail and the rest of the request gets its data.
 */
static void mmcc_read_by_block(struct mmcc_disk *d, struct request *rq)
{
	sector_t pos = blk_rq_pos(rq);
	u32 i, n = blk_rq_sectors(rq);
	struct scatterlist one;
	unsigned int nents;
	void *buf;

	buf = kmalloc(512, GFP_NOIO);
	if (!buf) {
		mmcc_end(d, rq, BLK_STS_RESOURCE);
		return;
	}
	nents = mmcc_map_rq(d, rq);
	for (i = 0; i < n; i++) {
		blk_status_t st = BLK_STS_OK;

		sg_init_one(&one, buf, 512);
		if (mmcc_transfer(d, false, pos + i, 1, &one, 1) ||
		    sg_pcopy_from_buffer(d->sg, nents, buf, 512,
					 (size_t)i << 9) != 512) {
			st = BLK_STS_IOERR;
			d->out.errors++;
		}
		if (!blk_update_request(rq, st, 512))
			break;
	}
	kfree(buf);
	__blk_mq_end_request(rq, BLK_STS_OK);
}

static void mmcc_read(struct mmcc_disk *d, struct request *rq)
{
	unsigned int n = mmcc_map_rq(d, rq);
	int err;

	d->out.read_cmds++;
	err = mmcc_transfer(d, false, blk_rq_pos(rq), blk_rq_sectors(rq),
			    d->sg, n);
	if (!err) {
		mmcc_end(d, rq, BLK_STS_OK);
		return;
	}
	if (mmcc_card_gone(d, err)) {
		mmcc_end(d, rq, BLK_STS_IOERR);
		return;
	}
	d->out.retries++;
	if (mmcc_rw_one(d, rq, false, MMCC_RETRIES) == BLK_STS_OK) {
		mmcc_end(d, rq, BLK_STS_OK);
		return;
	}
	mmcc_read_by_block(d, rq);
}

static void mmcc_discard(struct mmcc_disk *d, struct request *rq)
{
	unsigned int arg = d->card->erase_arg;
	int err, tries = 1 + MMCC_RETRIES;

	do {
		err = mmc_erase(d->card, blk_rq_pos(rq), blk_rq_sectors(rq),
				arg);
	} while (err == -EIO && --tries);
	mmcc_end(d, rq, err ? BLK_STS_IOERR : BLK_STS_OK);
}

/* A request from the FIFO: reads, flushes, discards, ioctls, bypass writes */
static void mmcc_issue_rq(struct mmcc_disk *d, struct request *rq, bool dead)
{
	if (req_op(rq) == REQ_OP_FLUSH) {
		mmcc_end(d, rq, BLK_STS_OK);
		return;
	}
	if (dead) {
		if (blk_rq_is_passthrough(rq))
			mmcc_pdu(rq)->drv_result = -ENODEV;
		mmcc_end(d, rq, BLK_STS_IOERR);
		return;
	}
	mmc_get_card(d->card, NULL);
	switch (req_op(rq)) {
	case REQ_OP_READ:
		mmcc_read(d, rq);
		break;
	case REQ_OP_WRITE:
		mmcc_count_write(d, blk_rq_pos(rq), blk_rq_sectors(rq), 1);
		mmcc_end(d, rq, mmcc_rw_one(d, rq, true, 1 + MMCC_RETRIES));
		break;
	case REQ_OP_DISCARD:
		mmcc_discard(d, rq);
		break;
	case REQ_OP_DRV_IN:
	case REQ_OP_DRV_OUT:
		mmcc_ioctl_issue(d, rq);
		blk_mq_end_request(rq, BLK_STS_OK);
		break;
	default:
		mmcc_end(d, rq, BLK_STS_NOTSUPP);
		break;
	}
	mmc_put_card(d->card, NULL);
}

/*
 * How long a read waited, and how much write data went to the card in the
 * meantime: the bound Documentation/admin-guide.md promises is checked
 * against these. Caller holds d->lock.
 */
static void mmcc_account_read_wait(struct mmcc_disk *d, struct mmcc_req *mq,
				   u64 now)
{
	u64 waited = now > mq->wr.arrival_ns ? now - mq->wr.arrival_ns : 0;
	u64 behind = d->write_sectors_sent - mq->sent_mark;

	d->read_wait_max_ns = max(d->read_wait_max_ns, waited);
	d->read_wait_max_sectors = max(d->read_wait_max_sectors, behind);
}

static void mmcc_account_cmd_sent(struct mmcc_disk *d,
				  const struct rwin_cmd *cmd)
{
	u32 i;

	for (i = 0; i < cmd->nr_extents; i++)
		d->write_sectors_sent += cmd->ext[i].sectors;
}

/* Pick the next piece of work. Caller holds d->lock. */
static enum mmcc_work mmcc_next_work(struct mmcc_disk *d,
				     struct rwin_cmd *cmd,
				     struct request **rqp)
{
	u64 now = mmcc_now();
	struct mmcc_req *mq;
	struct request *rq;

	rwin_expire(&d->win, now);
	mq = list_first_entry_or_null(&d->others, struct mmcc_req, node);
	/* A stream of reads must not starve the writes the window let go. */
	if (mq && d->others_streak >= MMCC_OTHERS_STREAK &&
	    rwin_has_queued(&d->win))
		mq = NULL;
	if (mq) {
		rq = blk_mq_rq_from_pdu(mq);
		switch (req_op(rq)) {
		case REQ_OP_READ:
			/* held overlaps go to the queue; queued ones first */
			if (rwin_read(&d->win, blk_rq_pos(rq),
				      blk_rq_sectors(rq), now))
				goto pop;
			break;
		case REQ_OP_FLUSH:
			rwin_flush(&d->win, now);
			break;
		default:
			/* anything else is ordered after every write */
			if (rwin_held_count(&d->win) ||
			    rwin_has_queued(&d->win)) {
				rwin_drain(&d->win, now);
				goto pop;
			}
			break;
		}
		list_del_init(&mq->node);
		if (req_op(rq) == REQ_OP_READ)
			mmcc_account_read_wait(d, mq, now);
		else if (req_op(rq) == REQ_OP_WRITE)
			d->write_sectors_sent += blk_rq_sectors(rq);
		*rqp = rq;
		d->busy = 1;
		d->others_streak++;
		return MMCC_W_RQ;
	}
pop:
	if (rwin_pop(&d->win, cmd, now)) {
		mmcc_account_cmd_sent(d, cmd);
		d->busy = 1;
		d->others_streak = 0;
		return MMCC_W_CMD;
	}
	return MMCC_W_NONE;
}

/* Sleep until kicked, or until the window's next deadline. */
static void mmcc_sleep(struct mmcc_disk *d)
{
	u64 deadline, now;
	bool work;

	set_current_state(TASK_INTERRUPTIBLE);
	spin_lock(&d->lock);
	work = !list_empty(&d->others) || rwin_has_queued(&d->win);
	deadline = rwin_next_deadline(&d->win);
	if (mmcc_drained_locked(d))
		wake_up_all(&d->drained_wq);
	spin_unlock(&d->lock);

	if (work || kthread_should_stop()) {
		__set_current_state(TASK_RUNNING);
		return;
	}
	if (deadline == RWIN_NO_DEADLINE) {
		schedule();
		return;
	}
	now = mmcc_now();
	if (deadline <= now) {
		__set_current_state(TASK_RUNNING);
		return;
	}
	schedule_timeout(nsecs_to_jiffies(deadline - now) + 1);
}

static int mmcc_issuer(void *data)
{
	struct mmcc_disk *d = data;
	struct rwin_cmd *cmd;
	struct request *rq;

	cmd = kmalloc(sizeof(*cmd), GFP_KERNEL);
	if (!cmd)
		return -ENOMEM;

	for (;;) {
		enum mmcc_work w;
		bool dead;

		spin_lock(&d->lock);
		w = mmcc_next_work(d, cmd, &rq);
		dead = d->dead;
		spin_unlock(&d->lock);

		switch (w) {
		case MMCC_W_CMD:
			mmcc_issue_cmd(d, cmd, dead);
			spin_lock(&d->lock);
			rwin_complete(&d->win, mmcc_now());
			d->busy = 0;
			spin_unlock(&d->lock);
			break;
		case MMCC_W_RQ:
			mmcc_issue_rq(d, rq, dead);
			spin_lock(&d->lock);
			d->busy = 0;
			spin_unlock(&d->lock);
			break;
		case MMCC_W_NONE:
			if (kthread_should_stop()) {
				kfree(cmd);
				return 0;
			}
			mmcc_sleep(d);
			break;
		}
	}
}

int mmcc_issuer_start(struct mmcc_disk *d)
{
	struct task_struct *t;

	t = kthread_run(mmcc_issuer, d, "mmcc/%d", d->index);
	if (IS_ERR(t))
		return PTR_ERR(t);
	WRITE_ONCE(d->issuer, t);
	return 0;
}

/*
 * Mark the disk dead and stop the thread. Whatever is still parked (there
 * should be nothing once del_gendisk() has returned) fails with an error:
 * the thread keeps running until the window and the FIFO are empty.
 */
void mmcc_issuer_stop(struct mmcc_disk *d)
{
	struct task_struct *t = d->issuer;

	spin_lock(&d->lock);
	d->dead = true;
	rwin_drain(&d->win, mmcc_now());
	spin_unlock(&d->lock);
	if (t) {
		kthread_stop(t);
		WRITE_ONCE(d->issuer, NULL);
	}
}
