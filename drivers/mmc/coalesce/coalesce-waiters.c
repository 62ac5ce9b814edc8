// SPDX-License-Identifier: GPL-2.0
/*
 * Does anybody sleep on a held write? The window's waiter probe
 * (rwin_set_waiter_probe()); the window decides when to ask and what to
 * release.
 *
 * A write the scheduler holds has been submitted, so it is in flight:
 *  - its page cache pages are under writeback, and whoever waits for that
 *    (fsync's filemap_fdatawait(), a second writeback of the page) sleeps
 *    on the folio's writeback bit, which sets PG_waiters;
 *  - the block device's own buffers in it (FAT tables, ext2 inode tables
 *    and bitmaps, jbd2's metadata) are locked until the write completes
 *    (end_buffer_async_write()), and whoever locks or waits for such a
 *    buffer (fat_mirror_bhs(), __ext2_write_inode(), jbd2's
 *    do_get_write_access(), exFAT's sync) sleeps on the hashed bit wait
 *    queue of the buffer's BH_Lock bit.
 *
 * Both answers may be "yes" for somebody else (another bit hashed to the
 * same wait queue, a waiter for the page lock): the write then leaves
 * early, which is always allowed. They are read without a lock, so a
 * sleeper that is just going to sleep is found at the next ask, idle_ms
 * later.
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
	/*
	 * No barrier against the sleeper's prepare_to_wait(): one that is
	 * only now going to sleep is found at the next ask, idle_ms later,
	 * and a stale "yes" only releases the write early.
	 */
	return buffer_locked(bh) && /* unlocked read: see above */
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
