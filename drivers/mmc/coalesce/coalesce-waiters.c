// SPDX-License-Identifier: GPL-2.0
/*
 * The window's waiter probe: does anybody sleep on a held write? Its pages
 * are under writeback (a waiter sets PG_waiters) and the block device's
 * buffers in it are locked: fat_mirror_bhs(), __ext2_write_inode(), jbd2
 * and exFAT sleep on BH_Lock's hashed wait queue. A "yes" that is somebody
 * else's only releases the write early. Read without a lock: a sleeper
 * just going to sleep is found at the next ask.
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

/*
 * Only the block device's page cache surely has a ring of buffer heads in
 * folio->private (not iomap's). It stays while the write is in flight:
 * try_to_free_buffers() refuses a folio under writeback.
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
		if (buffer_locked(bh) && /* no barrier: see the top */
		    waitqueue_active(bit_waitqueue(&bh->b_state, BH_Lock)))
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
