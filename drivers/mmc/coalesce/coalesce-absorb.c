// SPDX-License-Identifier: GPL-2.0
/*
 * Absorption: a write carries the block device's buffers as they are when
 * the scheduler hands it to the driver, not as they were at submission.
 *
 * Writeback marks a buffer clean when it submits it (__block_write_full_page()
 * in 6.1, __block_write_full_folio() in 6.12). A file system that updates the
 * buffer while the write waits in the window (ext2's indirect blocks and
 * bitmaps, FAT's table) marks it dirty again, and it would reach the card a
 * second time, behind the AU's write pointer. Nothing asks this queue for
 * stable pages, so the transfer reads the page after dispatch: clearing the
 * dirty bit here, just before that, lets the write carry the update. An
 * update after the clear dirties the buffer again and is written later, as
 * before. Documentation/reorder-window.md, "Absorption", has the ordering
 * argument with file and line in both kernels.
 *
 * A buffer is absorbed only if this write holds it (locked, async write,
 * so writeback's submission locked it and nobody else can until the write
 * ends), the request's own bio_vec maps it at its own sector (not a bounce,
 * crypto or other copy, nor the same page sent elsewhere), and no journal
 * owns it (jbd2 keeps its own dirty state). If the write fails or is
 * requeued, what it absorbed is dirtied again, so that an error costs what
 * it did without absorption.
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/buffer_head.h>
#include <linux/fs.h>
#include <linux/jbd2.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/writeback.h>

#include "elevator.h"
#include "coalesce-iosched.h"

#include <linux/mmc-coalesce-compat.h>

/* The buffers one write absorbed, each with a reference, until it ends. */
struct coalesce_absorbed {
	struct work_struct work;	/* dirties them again: process context */
	unsigned int nr, max;
	struct buffer_head *bh[];
};

/* Dirtying a page takes locks that are not irq-safe: not at completion. */
static struct workqueue_struct *coalesce_absorb_wq;

/* Held by this write's submission, and not the journal's. */
static bool coalesce_bh_ours(const struct buffer_head *bh)
{
	return buffer_locked(bh) && buffer_async_write(bh) && !buffer_jbd(bh);
}

/*
 * Does @bv, at @sector, send the block device's own page cache to its own
 * place? Then its buffers are the ones this write carries. The folio is
 * under writeback for it (submitted, not yet completed), so it stays in
 * its mapping and its ring of buffer heads stays (try_to_free_buffers()
 * refuses it). A bounce or crypto copy has no mapping; a page sent
 * elsewhere (O_DIRECT from a mapping of the device) has another sector.
 */
static struct buffer_head *coalesce_bvec_buffers(const struct bio_vec *bv,
						 sector_t sector, size_t *from)
{
	struct folio *folio = page_folio(bv->bv_page);
	struct address_space *mapping = folio->mapping;

	if (folio_test_anon(folio) || !folio_test_writeback(folio) ||
	    !mapping || !mapping->host || !S_ISBLK(mapping->host->i_mode))
		return NULL;
	*from = folio_page_idx(folio, bv->bv_page) * PAGE_SIZE + bv->bv_offset;
	if (sector != I_BDEV(mapping->host)->bd_start_sect +
		      ((folio_pos(folio) + *from) >> SECTOR_SHIFT))
		return NULL;
	return folio_buffers(folio);
}

/*
 * Walk the buffers @rq carries. Without @ab, count the dirty ones; with
 * it, clear and record up to ab->max.
 */
static unsigned int coalesce_absorb_walk(struct request *rq,
					 struct coalesce_absorbed *ab)
{
	struct req_iterator iter;
	unsigned int found = 0;
	struct bio_vec bv;

	rq_for_each_segment(bv, rq, iter) {
		struct buffer_head *head, *bh;
		size_t from, off = 0;

		head = coalesce_bvec_buffers(&bv, iter.iter.bi_sector, &from);
		if (!head)
			continue;
		bh = head;
		do {
			if (off >= from && off + bh->b_size <= from + bv.bv_len &&
			    coalesce_bh_ours(bh)) {
				if (!ab) {
					found += buffer_dirty(bh);
				} else if (ab->nr < ab->max &&
					   test_clear_buffer_dirty(bh)) {
					get_bh(bh);
					ab->bh[ab->nr++] = bh;
				}
			}
			off += bh->b_size;
			bh = bh->b_this_page;
		} while (bh != head);
	}
	return ab ? ab->nr : found;
}

/*
 * At dispatch, outside the scheduler's lock: clear what @rq carries. The
 * driver reads the pages after this returns. Returns what the request
 * must give to coalesce_absorb_end(), or NULL.
 */
struct coalesce_absorbed *coalesce_absorb(struct coalesce_data *cd,
					  struct request *rq)
{
	struct coalesce_absorbed *ab;
	unsigned int nr;

	if (!coalesce_bdev_buffer_heads || req_op(rq) != REQ_OP_WRITE ||
	    !READ_ONCE(cd->tun[COALESCE_T_absorb]) ||
	    !rq->q->disk || bdev_stable_writes(rq->q->disk->part0))
		return NULL;
	nr = coalesce_absorb_walk(rq, NULL);
	if (!nr)
		return NULL;
	/* No memory: the updates stay dirty and are written later. */
	ab = kmalloc(struct_size(ab, bh, nr), GFP_NOWAIT | __GFP_NOWARN);
	if (!ab)
		return NULL;
	ab->nr = 0;
	ab->max = nr;
	if (!coalesce_absorb_walk(rq, ab)) {
		kfree(ab);
		return NULL;
	}
	atomic64_add(ab->nr, &cd->absorbed);
	return ab;
}

unsigned int coalesce_absorbed_nr(const struct coalesce_absorbed *ab)
{
	return ab ? ab->nr : 0;
}

static void coalesce_absorb_free(struct coalesce_absorbed *ab)
{
	unsigned int i;

	for (i = 0; i < ab->nr; i++)
		put_bh(ab->bh[i]);
	kfree(ab);
}

/*
 * As mark_buffer_dirty(), which warns on a buffer an error left !uptodate.
 * Our reference keeps the buffers, and so the folio they hold; its lock
 * keeps it in its mapping (or out of it, truncated) meanwhile.
 */
static void coalesce_absorb_redirty(struct work_struct *work)
{
	struct coalesce_absorbed *ab =
		container_of(work, struct coalesce_absorbed, work);
	unsigned int i;

	for (i = 0; i < ab->nr; i++) {
		struct buffer_head *bh = ab->bh[i];
		struct folio *folio = page_folio(bh->b_page);

		folio_lock(folio);
		if (folio->mapping && !test_set_buffer_dirty(bh))
			filemap_dirty_folio(folio->mapping, folio);
		folio_unlock(folio);
	}
	coalesce_absorb_free(ab);
}

/*
 * The write ended (its bios have ended: every buffer unlocked, uptodate if
 * written) or was requeued (@undo: it will read its pages again later, but
 * a later error could not dirty them again). Any context.
 */
void coalesce_absorb_end(struct coalesce_data *cd,
			 struct coalesce_absorbed *ab, bool undo)
{
	unsigned int i, kept = 0;

	for (i = 0; i < ab->nr; i++) {
		/* end_buffer_async_write() clears uptodate on an error */
		if (!undo && buffer_uptodate(ab->bh[i])) {
			put_bh(ab->bh[i]);
			continue;
		}
		ab->bh[kept++] = ab->bh[i];
	}
	ab->nr = kept;
	if (!kept) {
		kfree(ab);
		return;
	}
	atomic64_add(kept, &cd->absorb_redirtied);
	INIT_WORK(&ab->work, coalesce_absorb_redirty);
	queue_work(coalesce_absorb_wq, &ab->work);
}

int __init coalesce_absorb_init(void)
{
	/* Writeback may wait on what it does: a rescuer under memory pressure. */
	coalesce_absorb_wq = alloc_workqueue("coalesce_absorb", WQ_MEM_RECLAIM,
					     0);
	return coalesce_absorb_wq ? 0 : -ENOMEM;
}

void coalesce_absorb_exit(void)
{
	destroy_workqueue(coalesce_absorb_wq);
}
