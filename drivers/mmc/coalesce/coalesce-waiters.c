// SPDX-License-Identifier: GPL-2.0
/*
 * The window's waiter probe: does anybody sleep on a held write? A held
 * write is in flight, so its pages are under writeback (a waiter sets
 * PG_waiters) and the block device's own buffers in it are locked until it
 * completes: fat_mirror_bhs(), __ext2_write_inode(), jbd2 and exFAT's sync
 * sleep on the hashed wait queue of BH_Lock. A "yes" that is somebody
 * else's (a page-lock waiter, another bit on the same queue) only releases
 * the write early. Read without a lock: a sleeper just going to sleep is
 * found at the next ask, RWIN_PROBE_NS later.
 */
#include <linux/blk-mq.h>
#include <linux/buffer_head.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/wait_bit.h>

#include "elevator.h"
#include "coalesce-iosched.h"

#include <linux/mmc-coalesce-compat.h>

/* Does anybody sleep on the lock of @bh, which a write of ours holds? */
static bool coalesce_bh_sleeper(struct buffer_head *bh)
{
	return buffer_locked(bh) && /* no barrier: see the top */
	       waitqueue_active(bit_waitqueue(&bh->b_state, BH_Lock));
}

/*
 * Buffers are only looked at in the block device's own page cache, where
 * folio->private is always a ring of buffer heads; other mappings keep
 * their own things there (iomap, for one). The ring cannot go while the
 * write is in flight: try_to_free_buffers() refuses a folio under
 * writeback or with a locked buffer, and truncation locks each buffer
 * first.
 */
static bool coalesce_buffers_waited(struct folio *folio)
{
	struct address_space *mapping = folio_mapping(folio);
	struct buffer_head *head, *bh;

	if (!coalesce_bdev_buffer_heads || !mapping || !mapping->host ||
	    !S_ISBLK(mapping->host->i_mode))
		return false;
	head = folio_buffers(folio);
	if (!head)
		return false;
	bh = head;
	do {
		if (coalesce_bh_sleeper(bh))
			return true;
		bh = bh->b_this_page;
	} while (bh != head);
	return false;
}

bool coalesce_write_waited(const struct rwin_write *wr)
{
	struct request *rq = wr->cookie;
	struct req_iterator iter;
	struct bio_vec bv;

	rq_for_each_segment(bv, rq, iter) {
		struct folio *folio = page_folio(bv.bv_page);

		if (folio_test_waiters(folio) || coalesce_buffers_waited(folio))
			return true;
	}
	return false;
}
