/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmc_coalesce: an SD/MMC block driver with a write reorder window.
 * Shared definitions of the driver's files (block.c: disk and blk-mq;
 * issue.c: the issuer thread and the card commands; params.c: tunables;
 * ioctl.c: MMC_IOC_CMD passthrough; debugfs.c: statistics).
 */
#ifndef _MMC_COALESCE_MMCC_H
#define _MMC_COALESCE_MMCC_H

#include <linux/blk-mq.h>
#include <linux/mmc/card.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "reorder_window.h"

#define MMCC_NAME		"mmc_coalesce"
#define MMCC_MINORS		8	/* disk + 7 partitions, as mmc_block */
#define MMCC_MAX_DISKS		64

/*
 * Tags: at most MMCC_WINDOW_REQS_MAX writes are ever held, and
 * MMCC_TAG_HEADROOM more requests can always be queued on top of a full
 * window, so the write or read that releases it can always arrive.
 */
#define MMCC_WINDOW_REQS_MAX	256
#define MMCC_TAG_HEADROOM	32

/* Index of each tunable; also the bit in mmcc_disk.overridden. */
enum mmcc_tunable {
	MMCC_T_ENABLE,
	MMCC_T_SMALL_KB,
	MMCC_T_WINDOW_REQS,
	MMCC_T_WINDOW_KB,
	MMCC_T_HOLD_MS,
	MMCC_T_IDLE_MS,
	MMCC_T_AU_KB,
	MMCC_T_NR
};

struct mmcc_tunable_desc {
	const char *name;
	u32 min, max;		/* accepted range, inclusive */
};

extern const struct mmcc_tunable_desc mmcc_tunables[MMCC_T_NR];

/*
 * Counters at the driver's output, i.e. what the card receives. Written
 * only by the issuer thread; debugfs reads them without a lock, so a
 * reading taken while I/O runs may be a few events behind.
 */
struct mmcc_out_stats {
	u64 write_cmds;		/* write commands sent to the card */
	u64 read_cmds;
	u64 write_sectors;
	u64 au_switches;	/* write commands whose AU differs from the last */
	u64 last_au;
	u64 multi_req_cmds;	/* commands built from more than one request */
	u64 retries;		/* commands sent again after an error */
	u64 errors;		/* requests completed with an error */
	u64 resets;		/* host/card resets */
	u64 held_ns_total;	/* sum of hold times of released held writes */
	u64 held_released;	/* number of held writes those times cover */
	u64 write_reqs_done;	/* write requests completed, any status */
	u64 write_reqs_failed;	/* ... of them with an error */
};

struct mmcc_disk {
	struct mmc_card *card;
	struct gendisk *disk;
	struct blk_mq_tag_set tag_set;
	int index;			/* N of mmcblkN */

	/* Everything below up to "issuer only" is protected by lock. */
	spinlock_t lock;
	struct rwin_window win;
	struct list_head others;	/* reads, flushes, discards, ioctls, */
					/* and writes while disabled: FIFO */
	u32 tun[MMCC_T_NR];		/* effective tunables */
	unsigned long overridden;	/* per-disk sysfs overrides, by bit */
	bool dead;			/* card gone: fail what comes */
	u32 busy;			/* the issuer is running a command */
	u32 others_streak;		/* FIFO requests served in a row */
	u64 fifo_writes;		/* writes queued past the window */
	u64 write_sectors_sent;		/* write sectors handed to the issuer */
	u64 read_wait_max_ns;		/* longest read arrival-to-issue */
	u64 read_wait_max_sectors;	/* most write sectors sent meanwhile */
	struct mmcc_out_stats out;

	/* issuer only */
	struct task_struct *issuer;
	struct scatterlist *sg;
	unsigned int max_segs;
	u32 au_sectors_card;		/* the card's AU (0 if unknown) */

	wait_queue_head_t drained_wq;	/* window empty and issuer idle */
	struct dentry *debugfs;
	struct list_head node;		/* on mmcc_disks, under mmcc_mutex */
};

/* Per-request data (blk-mq pdu). */
struct mmcc_req {
	struct rwin_write wr;
	struct list_head node;		/* on mmcc_disk.others */
	u64 sent_mark;			/* reads: write_sectors_sent at arrival */
	void *drv_data;			/* ioctl payload for REQ_OP_DRV_* */
	int drv_result;
};

static inline struct mmcc_req *mmcc_pdu(struct request *rq)
{
	return blk_mq_rq_to_pdu(rq);
}

/* params.c */
extern struct mutex mmcc_mutex;		/* mmcc_disks and module params */
extern struct list_head mmcc_disks;
void mmcc_tunables_defaults(u32 *tun);
void mmcc_tunables_to_params_locked(struct mmcc_disk *d);
void mmcc_apply_tunables(struct mmcc_disk *d);
int mmcc_parse_tunable(enum mmcc_tunable t, const char *buf, u32 *val);
extern const struct attribute_group *mmcc_disk_groups[];

/* issue.c */
int mmcc_issuer_start(struct mmcc_disk *d);
void mmcc_issuer_stop(struct mmcc_disk *d);
void mmcc_kick(struct mmcc_disk *d);
void mmcc_drain_and_wait(struct mmcc_disk *d);
u64 mmcc_now(void);

/* ioctl.c */
int mmcc_ioctl(struct block_device *bdev, fmode_t mode, unsigned int cmd,
	       unsigned long arg);
int mmcc_ioctl_issue(struct mmcc_disk *d, struct request *rq);

/* debugfs.c */
void mmcc_debugfs_add(struct mmcc_disk *d);
void mmcc_debugfs_remove(struct mmcc_disk *d);
void mmcc_debugfs_init(void);
void mmcc_debugfs_exit(void);

#endif /* _MMC_COALESCE_MMCC_H */
