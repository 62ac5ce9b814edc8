// SPDX-License-Identifier: GPL-2.0
/*
 * MMC_IOC_CMD and MMC_IOC_MULTI_CMD: raw card commands from user space
 * (mmc-utils). The same rules as the stock mmc block driver: only on the
 * whole disk, only with CAP_SYS_RAWIO. Each call becomes one passthrough
 * request, so the issuer runs it in order with everything else, after the
 * reorder window has been drained: a raw command never overtakes a write.
 *
 * Everything user space hands in is checked before anything reaches the
 * card, so a refused call has sent nothing: sizes and counts, the user
 * buffers (a read's buffer must be writable before the command runs, as a
 * read command can change the card's state), write commands need a
 * descriptor opened for writing, and the sleep after a command is bounded
 * because the whole disk waits during it.
 */
#include <linux/blkdev.h>
#include <linux/capability.h>
#include <linux/delay.h>
#include <linux/mmc/host.h>
#include <linux/mmc/ioctl.h>
#include <linux/pagemap.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "core.h"
#include "sd_ops.h"
#include "mmcc.h"

/* Largest data phase accepted for one raw command. */
#define MMCC_IOC_MAX_BYTES	(512 * 1024)
/* Data blocks of SD and MMC commands are at most 512 bytes. */
#define MMCC_IOC_MAX_BLKSZ	512
/* Longest sleep after a command: the disk is stalled meanwhile. */
#define MMCC_IOC_MAX_SLEEP_US	(1000 * 1000)

struct mmcc_ioc {
	struct mmc_ioc_cmd ic;
	void *buf;
	size_t len;
};

struct mmcc_ioc_batch {
	struct mmcc_ioc *io;
	unsigned int n;
};

static void mmcc_ioc_free(struct mmcc_ioc_batch *b)
{
	unsigned int i;

	for (i = 0; i < b->n; i++)
		kfree(b->io[i].buf);
	kfree(b->io);
}

static int mmcc_ioc_copy_in(struct mmcc_disk *d, struct mmcc_ioc *io,
			    struct mmc_ioc_cmd __user *uic, fmode_t mode)
{
	struct mmc_host *host = d->card->host;
	void __user *ubuf;
	u64 len;

	if (copy_from_user(&io->ic, uic, sizeof(io->ic)))
		return -EFAULT;
	if (io->ic.postsleep_min_us > MMCC_IOC_MAX_SLEEP_US ||
	    io->ic.postsleep_max_us > MMCC_IOC_MAX_SLEEP_US)
		return -EINVAL;
	if (io->ic.write_flag && !(mode & FMODE_WRITE))
		return -EBADF;
	/* Both zero (no data phase) or both set. */
	if (!io->ic.blksz != !io->ic.blocks)
		return -EINVAL;
	len = (u64)io->ic.blksz * io->ic.blocks;
	if (!len)
		return 0;
	if (io->ic.blksz > MMCC_IOC_MAX_BLKSZ ||
	    io->ic.blksz > host->max_blk_size ||
	    io->ic.blocks > host->max_blk_count)
		return -EINVAL;
	if (len > MMCC_IOC_MAX_BYTES)
		return -EOVERFLOW;
	/* A 32-bit kernel must not drop the pointer's high bits. */
	if (io->ic.data_ptr != (u64)(uintptr_t)io->ic.data_ptr)
		return -EFAULT;
	ubuf = u64_to_user_ptr(io->ic.data_ptr);
	io->len = len;
	if (io->ic.write_flag) {
		io->buf = memdup_user(ubuf, len);
		if (IS_ERR(io->buf)) {
			int err = PTR_ERR(io->buf);

			io->buf = NULL;
			return err;
		}
	} else {
		if (fault_in_safe_writeable(ubuf, len))
			return -EFAULT;
		io->buf = kzalloc(len, GFP_KERNEL);
		if (!io->buf)
			return -ENOMEM;
	}
	return 0;
}

static int mmcc_ioc_copy_out(struct mmcc_ioc *io,
			     struct mmc_ioc_cmd __user *uic)
{
	if (copy_to_user(&uic->response, io->ic.response,
			 sizeof(io->ic.response)))
		return -EFAULT;
	if (io->len && !io->ic.write_flag &&
	    copy_to_user(u64_to_user_ptr(io->ic.data_ptr), io->buf, io->len))
		return -EFAULT;
	return 0;
}

/* Run one raw command. Called by the issuer with the host claimed. */
static int mmcc_ioc_run(struct mmcc_disk *d, struct mmcc_ioc *io)
{
	struct mmc_card *card = d->card;
	struct mmc_command cmd = {};
	struct mmc_data data = {};
	struct mmc_request mrq = {};
	struct scatterlist sg;
	int err;

	cmd.opcode = io->ic.opcode;
	cmd.arg = io->ic.arg;
	cmd.flags = io->ic.flags;
	cmd.busy_timeout = io->ic.cmd_timeout_ms;
	mrq.cmd = &cmd;
	if (io->len) {
		sg_init_one(&sg, io->buf, io->len);
		data.sg = &sg;
		data.sg_len = 1;
		data.blksz = io->ic.blksz;
		data.blocks = io->ic.blocks;
		data.flags = io->ic.write_flag ? MMC_DATA_WRITE : MMC_DATA_READ;
		mmc_set_data_timeout(&data, card);
		if (io->ic.data_timeout_ns) {
			data.timeout_ns = io->ic.data_timeout_ns;
			data.timeout_clks = 0;
		}
		mrq.data = &data;
	}
	if (io->ic.is_acmd) {
		err = mmc_app_cmd(card->host, card);
		if (err)
			return err;
	}
	mmc_wait_for_req(card->host, &mrq);
	err = cmd.error ?: data.error;
	memcpy(io->ic.response, cmd.resp, sizeof(cmd.resp));
	if (!err && io->ic.postsleep_min_us)
		usleep_range(io->ic.postsleep_min_us,
			     max(io->ic.postsleep_min_us,
				 io->ic.postsleep_max_us));
	return err;
}

/* Issuer side of a passthrough request: run the batch, stop at an error. */
int mmcc_ioctl_issue(struct mmcc_disk *d, struct request *rq)
{
	struct mmcc_req *mq = mmcc_pdu(rq);
	struct mmcc_ioc_batch *b = mq->drv_data;
	unsigned int i;
	int err = 0;

	for (i = 0; i < b->n && !err; i++)
		err = mmcc_ioc_run(d, &b->io[i]);
	mq->drv_result = err;
	return err;
}

static int mmcc_ioc_execute(struct mmcc_disk *d, struct mmcc_ioc_batch *b)
{
	struct request *rq;
	bool write = false;
	unsigned int i;
	int err;

	for (i = 0; i < b->n; i++)
		write |= b->io[i].ic.write_flag;
	rq = blk_mq_alloc_request(d->disk->queue,
				  write ? REQ_OP_DRV_OUT : REQ_OP_DRV_IN, 0);
	if (IS_ERR(rq))
		return PTR_ERR(rq);
	mmcc_pdu(rq)->drv_data = b;
	mmcc_pdu(rq)->drv_result = -EIO;
	blk_execute_rq(rq, false);
	err = mmcc_pdu(rq)->drv_result;
	blk_mq_free_request(rq);
	return err;
}

static int mmcc_ioc_cmds(struct mmcc_disk *d, struct mmc_ioc_cmd __user *ucmds,
			 unsigned int n, fmode_t mode)
{
	struct mmcc_ioc_batch b = {};
	unsigned int i;
	int err, err2;

	b.io = kcalloc(n, sizeof(*b.io), GFP_KERNEL);
	if (!b.io)
		return -ENOMEM;
	for (b.n = 0; b.n < n; b.n++) {
		err = mmcc_ioc_copy_in(d, &b.io[b.n], &ucmds[b.n], mode);
		if (err) {
			b.n++;		/* free what this one took */
			goto out;
		}
	}
	err = mmcc_ioc_execute(d, &b);
	/* Responses go back even after an error: they tell what happened. */
	for (i = 0; i < n; i++) {
		err2 = mmcc_ioc_copy_out(&b.io[i], &ucmds[i]);
		if (err2 && !err)
			err = err2;
	}
out:
	mmcc_ioc_free(&b);
	return err;
}

int mmcc_ioctl(struct block_device *bdev, fmode_t mode, unsigned int cmd,
	       unsigned long arg)
{
	struct mmcc_disk *d = bdev->bd_disk->private_data;
	void __user *uarg = (void __user *)arg;
	struct mmc_ioc_multi_cmd __user *umulti = uarg;
	u64 n;

	if (cmd != MMC_IOC_CMD && cmd != MMC_IOC_MULTI_CMD)
		return -ENOTTY;
	/* Raw commands reach the whole card: never through a partition. */
	if (!capable(CAP_SYS_RAWIO) || bdev_is_partition(bdev))
		return -EPERM;

	if (cmd == MMC_IOC_CMD)
		return mmcc_ioc_cmds(d, uarg, 1, mode);

	if (copy_from_user(&n, &umulti->num_of_cmds, sizeof(n)))
		return -EFAULT;
	if (!n || n > MMC_IOC_MAX_CMDS)
		return -EINVAL;
	return mmcc_ioc_cmds(d, umulti->cmds, n, mode);
}
