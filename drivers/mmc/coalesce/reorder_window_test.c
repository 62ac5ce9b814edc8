// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the reorder window policy engine: one case per rule
 * (hold, attach, bounds, deadline, idle, flush/FUA/sync, read, overlap,
 * drain, limits, backward hold, same-range rewrites chained in order, a
 * merging bio's sync rule, flush steps, the waiter probe, a 12 MiB AU,
 * the expiry of background writes that sync writes pass).
 * The host suite in tests/window/ runs the same rules plus a randomised
 * model checker; this one proves the engine behaves the same built as
 * kernel code.
 */
#include <kunit/test.h>

#include <linux/kernel.h>
#include <linux/slab.h>

#include "reorder_window.h"

#define RWIN_TEST_MS(x)	((u64)(x) * NSEC_PER_MSEC)
#define RWIN_TEST_POOL	32

struct rwin_test_ctx {
	struct rwin_window win;
	struct rwin_params prm;
	struct rwin_write pool[RWIN_TEST_POOL];
	int used;
	char buf[256];
};

static int rwin_test_init(struct kunit *test)
{
	struct rwin_test_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	rwin_params_init(&ctx->prm);
	test->priv = ctx;
	return 0;
}

static void rwin_test_start(struct kunit *test)
{
	struct rwin_test_ctx *ctx = test->priv;

	KUNIT_ASSERT_EQ(test, rwin_init(&ctx->win, &ctx->prm), 0);
}

static bool rwin_test_add(struct kunit *test, sector_t start, u32 sectors,
			  u32 flags, u64 now)
{
	struct rwin_test_ctx *ctx = test->priv;
	struct rwin_write *wr;

	KUNIT_ASSERT_LT(test, ctx->used, RWIN_TEST_POOL);
	wr = &ctx->pool[ctx->used++];
	memset(wr, 0, sizeof(*wr));
	wr->start = start;
	wr->sectors = sectors;
	wr->flags = flags;
	wr->arrival_ns = now;
	return rwin_add_write(&ctx->win, wr, now);
}

/* Pop and complete one command, rendered as "start+sectors ..." or "-". */
static const char *rwin_test_pop(struct kunit *test, u64 now)
{
	struct rwin_test_ctx *ctx = test->priv;
	struct rwin_write *wr;
	struct rwin_cmd cmd;
	sector_t start = 0, end = 0;
	size_t len = 0;

	if (!rwin_pop(&ctx->win, &cmd, now))
		return "-";
	/* one token per run of contiguous writes */
	list_for_each_entry(wr, &cmd.writes, link) {
		if (end && wr->start == end) {
			end += wr->sectors;
			continue;
		}
		if (end)
			len += scnprintf(ctx->buf + len, sizeof(ctx->buf) - len,
					 "%s%llu+%u", len ? " " : "",
					 (unsigned long long)start,
					 (u32)(end - start));
		start = wr->start;
		end = start + wr->sectors;
	}
	scnprintf(ctx->buf + len, sizeof(ctx->buf) - len, "%s%llu+%u",
		  len ? " " : "", (unsigned long long)start,
		  (u32)(end - start));
	rwin_complete(&ctx->win, cmd.nr_writes, now);
	return ctx->buf;
}

static void rwin_test_small_held_large_passes(struct kunit *test)
{
	struct rwin_test_ctx *ctx = test->priv;

	rwin_test_start(test);
	KUNIT_EXPECT_TRUE(test, rwin_test_add(test, 100, 8, 0, 0));
	KUNIT_EXPECT_FALSE(test, rwin_test_add(test, 100000, 1024, 0, 0));
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, 0), "100000+1024");
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, 0), "-");
	KUNIT_EXPECT_EQ(test, ctx->win.held_count, 1U);
}

/* An ext2 indirect block right in front of its data: one transfer. */
static void rwin_test_prefix_merge(struct kunit *test)
{
	rwin_test_start(test);
	KUNIT_EXPECT_TRUE(test, rwin_test_add(test, 114784, 8, 0, 0));
	KUNIT_EXPECT_FALSE(test, rwin_test_add(test, 114792, 1000, 0, 0));
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, 0), "114784+1008");
}

static void rwin_test_attach_order(struct kunit *test)
{
	struct rwin_test_ctx *ctx = test->priv;

	rwin_test_start(test);
	rwin_test_add(test, 8300, 8, 0, 0);
	rwin_test_add(test, 8200, 16, 0, 0);
	rwin_test_add(test, 8216, 8, 0, 0);
	rwin_test_add(test, 100, 8, 0, 0);		/* other AU */
	rwin_test_add(test, 12000, 8, 0, 0);		/* ahead of the data */
	rwin_test_add(test, 9000, 512, 0, 0);
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, 0),
			   "8200+24 8300+8 9000+512");
	KUNIT_EXPECT_EQ(test, ctx->win.held_count, 2U);
}

static void rwin_test_count_bound(struct kunit *test)
{
	struct rwin_test_ctx *ctx = test->priv;
	int i;

	ctx->prm.window_reqs = 4;
	rwin_test_start(test);
	for (i = 0; i < 20; i++) {
		rwin_test_add(test, i * 4096, 8, 0, i);
		KUNIT_EXPECT_LE(test, ctx->win.held_count, 4U);
	}
	KUNIT_EXPECT_GT(test, ctx->win.stats.released[RWIN_REL_COUNT], 0ULL);
}

static void rwin_test_deadline(struct kunit *test)
{
	struct rwin_test_ctx *ctx = test->priv;

	ctx->prm.hold_ns = RWIN_TEST_MS(1000);
	ctx->prm.idle_ns = RWIN_TEST_MS(100000);
	rwin_test_start(test);
	rwin_test_add(test, 8, 8, 0, RWIN_TEST_MS(0));
	rwin_test_add(test, 8192, 8, 0, RWIN_TEST_MS(10));
	KUNIT_EXPECT_EQ(test, rwin_next_deadline(&ctx->win),
			RWIN_TEST_MS(1000));
	rwin_expire(&ctx->win, RWIN_TEST_MS(1000));
	KUNIT_EXPECT_EQ(test, ctx->win.held_count, 1U);
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, RWIN_TEST_MS(1000)),
			   "8+8");
}

/*
 * A write to an AU no data write has reached for hold_ns is held for
 * meta_hold_ns; one next to a data stream keeps hold_ns.
 */
static void rwin_test_meta_hold(struct kunit *test)
{
	struct rwin_test_ctx *ctx = test->priv;

	ctx->prm.hold_ns = RWIN_TEST_MS(1000);
	ctx->prm.meta_hold_ns = RWIN_TEST_MS(10000);
	ctx->prm.idle_ns = RWIN_TEST_MS(100000);
	rwin_test_start(test);
	KUNIT_EXPECT_FALSE(test, rwin_test_add(test, 8192, 1024, 0, 0));
	KUNIT_EXPECT_TRUE(test, rwin_test_add(test, 10240, 8, 0,
					      RWIN_TEST_MS(10)));
	KUNIT_EXPECT_TRUE(test, rwin_test_add(test, 8, 8, 0,
					      RWIN_TEST_MS(20)));
	KUNIT_EXPECT_EQ(test, ctx->win.stats.holds_long, 1ULL);
	KUNIT_EXPECT_EQ(test, rwin_next_deadline(&ctx->win),
			RWIN_TEST_MS(1010));
	rwin_expire(&ctx->win, RWIN_TEST_MS(1010));
	KUNIT_EXPECT_EQ(test, ctx->win.held_count, 1U);
	KUNIT_EXPECT_EQ(test, rwin_next_deadline(&ctx->win),
			RWIN_TEST_MS(10020));
	rwin_expire(&ctx->win, RWIN_TEST_MS(10019));
	KUNIT_EXPECT_EQ(test, ctx->win.held_count, 1U);
	rwin_expire(&ctx->win, RWIN_TEST_MS(10020));
	KUNIT_EXPECT_EQ(test, ctx->win.held_count, 0U);
}

/* After a sync write nothing is held for sync_grace_ns. */
static void rwin_test_sync_grace(struct kunit *test)
{
	struct rwin_test_ctx *ctx = test->priv;

	ctx->prm.sync_grace_ns = RWIN_TEST_MS(100);
	ctx->prm.idle_ns = RWIN_TEST_MS(100000);
	rwin_test_start(test);
	KUNIT_EXPECT_TRUE(test, rwin_test_add(test, 8, 8, 0, 0));
	KUNIT_EXPECT_FALSE(test, rwin_test_add(test, 100000, 8, RWIN_F_SYNC,
					       RWIN_TEST_MS(10)));
	KUNIT_EXPECT_FALSE(test, rwin_test_add(test, 16, 8, 0,
					       RWIN_TEST_MS(109)));
	KUNIT_EXPECT_EQ(test, ctx->win.stats.grace_passed, 1ULL);
	KUNIT_EXPECT_TRUE(test, rwin_test_add(test, 24, 8, 0,
					      RWIN_TEST_MS(110)));
}

/*
 * sync_release off: a sync write takes out only what it overlaps; the
 * other held writes still go with their AU's data. FUA takes all.
 */
static void rwin_test_sync_release_off(struct kunit *test)
{
	struct rwin_test_ctx *ctx = test->priv;

	ctx->prm.sync_release = false;
	ctx->prm.idle_ns = RWIN_TEST_MS(100000);
	rwin_test_start(test);
	KUNIT_EXPECT_TRUE(test, rwin_test_add(test, 8, 8, 0, 0));
	KUNIT_EXPECT_TRUE(test, rwin_test_add(test, 9000, 8, 0, 0));
	KUNIT_EXPECT_FALSE(test, rwin_test_add(test, 9000, 8, RWIN_F_SYNC,
					       RWIN_TEST_MS(1)));
	KUNIT_EXPECT_EQ(test, ctx->win.held_count, 1U);
	KUNIT_EXPECT_EQ(test, ctx->win.stats.released[RWIN_REL_SYNC], 0ULL);
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, RWIN_TEST_MS(1)),
			   "9000+8");
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, RWIN_TEST_MS(1)),
			   "9000+8");
	rwin_note_write(&ctx->win, RWIN_F_SYNC, RWIN_TEST_MS(2));
	KUNIT_EXPECT_EQ(test, ctx->win.held_count, 1U);
	KUNIT_EXPECT_FALSE(test, rwin_test_add(test, 64, 1024, 0,
					       RWIN_TEST_MS(3)));
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, RWIN_TEST_MS(3)),
			   "8+8 64+1024");
	KUNIT_EXPECT_TRUE(test, rwin_test_add(test, 20000, 8, 0,
					      RWIN_TEST_MS(4)));
	rwin_note_write(&ctx->win, RWIN_F_FUA, RWIN_TEST_MS(5));
	KUNIT_EXPECT_EQ(test, ctx->win.held_count, 0U);
}

static void rwin_test_idle(struct kunit *test)
{
	struct rwin_test_ctx *ctx = test->priv;

	rwin_test_start(test);
	rwin_test_add(test, 8, 8, 0, RWIN_TEST_MS(5));
	KUNIT_EXPECT_EQ(test, rwin_next_deadline(&ctx->win),
			RWIN_TEST_MS(25));
	rwin_expire(&ctx->win, RWIN_TEST_MS(25));
	KUNIT_EXPECT_EQ(test, ctx->win.stats.released[RWIN_REL_IDLE], 1ULL);
}

static void rwin_test_sync_releases(struct kunit *test)
{
	struct rwin_test_ctx *ctx = test->priv;

	rwin_test_start(test);
	rwin_test_add(test, 9000, 8, 0, 0);
	rwin_test_add(test, 8, 8, 0, 0);
	KUNIT_EXPECT_FALSE(test, rwin_test_add(test, 4000, 8, RWIN_F_FUA, 0));
	KUNIT_EXPECT_EQ(test, ctx->win.held_count, 0U);
	/* ahead of the background writes it released */
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, 0), "4000+8");
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, 0), "8+8 9000+8");
}

/* Sync writes stop passing a background write once it has waited 5 s. */
static void rwin_test_sync_passes_until_expiry(struct kunit *test)
{
	struct rwin_test_ctx *ctx = test->priv;
	u64 expire = RWIN_WRITE_EXPIRE_NS;

	rwin_test_start(test);
	rwin_test_add(test, 100000, 1024, 0, 0);
	rwin_test_add(test, 8, 8, RWIN_F_SYNC, expire - 1);
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, expire - 1), "8+8");
	rwin_test_add(test, 16, 8, RWIN_F_SYNC, expire);
	KUNIT_EXPECT_EQ(test, ctx->win.stats.sync_expired, 1ULL);
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, expire), "100000+1024");
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, expire), "16+8");
}

static void rwin_test_read_overlap(struct kunit *test)
{
	struct rwin_test_ctx *ctx = test->priv;

	rwin_test_start(test);
	rwin_test_add(test, 8, 8, 0, 0);
	rwin_read(&ctx->win, 1000, 8, 0);
	KUNIT_EXPECT_EQ(test, ctx->win.held_count, 1U);
	rwin_read(&ctx->win, 12, 1, 0);
	KUNIT_EXPECT_EQ(test, ctx->win.held_count, 0U);
	KUNIT_EXPECT_TRUE(test, rwin_overlaps_queued(&ctx->win, 12, 1,
						     RWIN_NO_DEADLINE));
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, 0), "8+8");
	KUNIT_EXPECT_FALSE(test, rwin_overlaps_queued(&ctx->win, 12, 1,
						      RWIN_NO_DEADLINE));
}

static void rwin_test_overlap_order(struct kunit *test)
{
	rwin_test_start(test);
	rwin_test_add(test, 8, 8, 0, 0);
	KUNIT_EXPECT_FALSE(test, rwin_test_add(test, 12, 8, 0, 1));
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, 1), "8+8");
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, 1), "12+8");
}

static void rwin_test_drain_limits(struct kunit *test)
{
	struct rwin_test_ctx *ctx = test->priv;
	int i;

	rwin_test_start(test);
	for (i = 0; i <= RWIN_MAX_RUNS; i++)
		rwin_test_add(test, i * 100, 8, 0, 0);
	rwin_drain(&ctx->win, 0);
	rwin_test_pop(test, 0);
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, 0), "1600+8");
	KUNIT_EXPECT_EQ(test, rwin_next_deadline(&ctx->win),
			RWIN_NO_DEADLINE);
}

/* A reversed plug: the write in front is held and goes first. */
static void rwin_test_backward(struct kunit *test)
{
	struct rwin_test_ctx *ctx = test->priv;

	rwin_test_start(test);
	KUNIT_EXPECT_FALSE(test, rwin_test_add(test, 9216, 1024, 0, 0));
	KUNIT_EXPECT_TRUE(test, rwin_test_add(test, 8192, 1024, 0, 0));
	KUNIT_EXPECT_EQ(test, ctx->win.stats.holds_backward, 1ULL);
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, 0), "8192+2048");
}

/* A rewrite of exactly the range of a held write is chained, not released. */
static void rwin_test_rewrite_held(struct kunit *test)
{
	struct rwin_test_ctx *ctx = test->priv;

	rwin_test_start(test);
	KUNIT_EXPECT_TRUE(test, rwin_test_add(test, 8, 8, 0, 0));
	KUNIT_EXPECT_TRUE(test, rwin_test_add(test, 2056, 16, 0, 0));
	KUNIT_EXPECT_TRUE(test, rwin_test_add(test, 8, 8, 0, 1));
	KUNIT_EXPECT_EQ(test, ctx->win.held_count, 3U);
	KUNIT_EXPECT_EQ(test, ctx->win.stats.chained, 1ULL);
	KUNIT_EXPECT_EQ(test, ctx->win.stats.released[RWIN_REL_OVERLAP], 0ULL);
	rwin_drain(&ctx->win, 2);
	/* One ascending pass per generation: older first. */
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, 2), "8+8 2056+16");
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, 2), "8+8");
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, 2), "-");
}

/* The chain comes out in arrival order, whoever releases it. */
static void rwin_test_rewrite_order(struct kunit *test)
{
	struct rwin_test_ctx *ctx = test->priv;
	struct rwin_write *first, *it;
	struct rwin_cmd *cmd;
	int i;

	cmd = kunit_kzalloc(test, sizeof(*cmd), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cmd);
	rwin_test_start(test);
	first = &ctx->pool[ctx->used];
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_TRUE(test, rwin_test_add(test, 8200, 8, 0, i));
	KUNIT_EXPECT_FALSE(test, rwin_test_add(test, 9000, 512, 0, 3));
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, 3), "8200+8 9000+512");
	for (i = 1; i < 3; i++) {
		KUNIT_ASSERT_TRUE(test, rwin_pop(&ctx->win, cmd, 3));
		KUNIT_EXPECT_EQ(test, cmd->nr_writes, 1U);
		it = list_first_entry(&cmd->writes, struct rwin_write, link);
		KUNIT_EXPECT_PTR_EQ(test, it, first + i);
		rwin_complete(&ctx->win, cmd->nr_writes, 3);
	}
	KUNIT_EXPECT_EQ(test, ctx->win.held_count, 0U);
}

/* A partial overlap releases the older chain first; the newer follows. */
static void rwin_test_rewrite_partial(struct kunit *test)
{
	struct rwin_test_ctx *ctx = test->priv;

	rwin_test_start(test);
	rwin_test_add(test, 8, 8, 0, 0);
	rwin_test_add(test, 8, 8, 0, 1);
	KUNIT_EXPECT_FALSE(test, rwin_test_add(test, 12, 8, 0, 2));
	KUNIT_EXPECT_EQ(test, ctx->win.stats.released[RWIN_REL_OVERLAP], 2ULL);
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, 2), "8+8");
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, 2), "8+8");
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, 2), "12+8");
}

static struct rwin_write *rwin_test_add_wr(struct kunit *test, sector_t start,
					   u32 sectors, u32 flags, u64 now)
{
	struct rwin_test_ctx *ctx = test->priv;

	rwin_test_add(test, start, sectors, flags, now);
	return &ctx->pool[ctx->used - 1];
}

/* A held write grown by a small bio stays held; by data, it leaves. */
static void rwin_test_grow(struct kunit *test)
{
	struct rwin_test_ctx *ctx = test->priv;
	struct rwin_write *a, *b;

	rwin_test_start(test);
	a = rwin_test_add_wr(test, 100, 8, 0, 0);
	KUNIT_EXPECT_PTR_EQ(test, rwin_find(&ctx->win, 108, true), a);
	KUNIT_EXPECT_TRUE(test, rwin_may_grow(&ctx->win, a, 100, 16));
	rwin_grow(&ctx->win, a, 100, 16, 0, 1);
	KUNIT_EXPECT_EQ(test, a->state, (u8)RWIN_ST_HELD);
	KUNIT_EXPECT_EQ(test, ctx->win.held_bytes, 16ULL * 512);

	b = rwin_test_add_wr(test, 9000, 8, 0, 2);
	rwin_grow(&ctx->win, b, 9000, 8 + 1024, 0, 3);
	KUNIT_EXPECT_EQ(test, b->state, (u8)RWIN_ST_QUEUED);
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, 3), "9000+1032");

	rwin_grow(&ctx->win, a, 100, 24, RWIN_F_SYNC, 4);
	KUNIT_EXPECT_EQ(test, a->state, (u8)RWIN_ST_QUEUED);
	KUNIT_EXPECT_EQ(test, ctx->win.stats.released[RWIN_REL_SYNC], 1ULL);
}

/*
 * A held block that data grew on, ahead of its AU's write position, waits
 * for the data in front of it and leaves right behind that data, in the
 * same command, even across the AU boundary.
 */
static void rwin_test_grow_ahead(struct kunit *test)
{
	struct rwin_test_ctx *ctx = test->priv;
	struct rwin_write *ind;

	rwin_test_start(test);
	KUNIT_EXPECT_FALSE(test, rwin_test_add(test, 7112, 1024, 0, 0));
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, 0), "7112+1024");
	ind = rwin_test_add_wr(test, 8192 + 968, 8, 0, 1);
	rwin_grow(&ctx->win, ind, 8192 + 968, 168, 0, 2);
	KUNIT_EXPECT_EQ(test, ind->state, (u8)RWIN_ST_HELD);
	KUNIT_EXPECT_FALSE(test, rwin_test_add(test, 8136, 1024, 0, 3));
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, 3), "8136+1192");
	KUNIT_EXPECT_EQ(test, ctx->win.held_count, 0U);
}

/* A held write may grow up to another held write, not over it. */
static void rwin_test_grow_refused(struct kunit *test)
{
	struct rwin_test_ctx *ctx = test->priv;
	struct rwin_write *a;

	rwin_test_start(test);
	a = rwin_test_add_wr(test, 100, 8, 0, 0);
	rwin_test_add(test, 124, 8, 0, 0);
	KUNIT_EXPECT_FALSE(test, rwin_may_grow(&ctx->win, a, 100, 32));
	KUNIT_EXPECT_TRUE(test, rwin_may_grow(&ctx->win, a, 100, 24));
	rwin_drain(&ctx->win, 1);
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, 1), "100+8 124+8");
}

/* A rewrite held behind a write makes that write unmergeable. */
static void rwin_test_chained_not_mergeable(struct kunit *test)
{
	struct rwin_test_ctx *ctx = test->priv;
	struct rwin_write *a;

	rwin_test_start(test);
	a = rwin_test_add_wr(test, 100, 8, 0, 0);
	KUNIT_EXPECT_TRUE(test, rwin_mergeable(a));
	rwin_test_add(test, 100, 8, 0, 1);
	KUNIT_EXPECT_FALSE(test, rwin_mergeable(a));
	KUNIT_EXPECT_PTR_EQ(test, rwin_find(&ctx->win, 100, false),
			    (struct rwin_write *)NULL);
}

/* A bio merging into a held write: its sync flag still releases them all. */
static void rwin_test_note_write(struct kunit *test)
{
	struct rwin_test_ctx *ctx = test->priv;

	rwin_test_start(test);
	KUNIT_EXPECT_TRUE(test, rwin_test_add(test, 8, 8, 0, 0));
	KUNIT_EXPECT_TRUE(test, rwin_test_add(test, 9000, 8, 0, 0));
	rwin_note_write(&ctx->win, 0, 1);
	KUNIT_EXPECT_EQ(test, ctx->win.held_count, 2U);
	rwin_note_write(&ctx->win, RWIN_F_SYNC, 2);
	KUNIT_EXPECT_EQ(test, ctx->win.held_count, 0U);
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, 2), "8+8 9000+8");
}

/*
 * A flush step waits for the queued writes under it that came before it,
 * not for a newer one.
 */
static void rwin_test_flush_step(struct kunit *test)
{
	struct rwin_test_ctx *ctx = test->priv;

	rwin_test_start(test);
	KUNIT_EXPECT_TRUE(test, rwin_test_add(test, 9000, 8, 0, 0));
	KUNIT_EXPECT_FALSE(test, rwin_test_add(test, 0, 128, RWIN_F_SYNC, 1));
	rwin_flush(&ctx->win, RWIN_F_SYNC, 2);
	KUNIT_EXPECT_EQ(test, ctx->win.held_count, 0U);
	KUNIT_EXPECT_FALSE(test, rwin_test_add(test, 0, 128, RWIN_F_SYNC, 3));
	KUNIT_EXPECT_TRUE(test, rwin_overlaps_queued(&ctx->win, 0, 128, 2));
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, 4), "0+128");
	KUNIT_EXPECT_FALSE(test, rwin_overlaps_queued(&ctx->win, 0, 128, 2));
}

/*
 * While a step (0+256 at 2 ms) waits, only the older write goes, alone:
 * the newer sync write put in front and the newer held write that would
 * join the older data both lie under the step.
 */
static void rwin_test_flush_step_older(struct kunit *test)
{
	struct rwin_test_ctx *ctx = test->priv;
	struct rwin_cmd cmd;
	struct rwin_write *wr;

	rwin_test_start(test);
	rwin_test_add(test, 64, 128, 0, RWIN_TEST_MS(1));
	rwin_flush(&ctx->win, 0, RWIN_TEST_MS(2));
	rwin_test_add(test, 0, 64, RWIN_F_SYNC, RWIN_TEST_MS(3));
	KUNIT_EXPECT_TRUE(test, rwin_test_add(test, 192, 8, 0, RWIN_TEST_MS(3)));
	KUNIT_ASSERT_TRUE(test, rwin_pop_older(&ctx->win, &cmd,
					       RWIN_TEST_MS(2)));
	KUNIT_ASSERT_EQ(test, cmd.nr_writes, 1U);
	wr = list_first_entry(&cmd.writes, struct rwin_write, link);
	KUNIT_EXPECT_EQ(test, wr->start, (sector_t)64);
	rwin_complete(&ctx->win, cmd.nr_writes, RWIN_TEST_MS(4));
	KUNIT_EXPECT_FALSE(test, rwin_pop_older(&ctx->win, &cmd,
						RWIN_TEST_MS(2)));
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, RWIN_TEST_MS(5)), "0+64");
}

/*
 * A completion without the lock, between the caller's fold and its hold:
 * rwin_arm() still sees it and arms for the idle time.
 */
static void rwin_test_complete_nolock(struct kunit *test)
{
	struct rwin_test_ctx *ctx = test->priv;
	struct rwin_cmd cmd;

	ctx->prm.idle_ns = 20;
	rwin_test_start(test);
	KUNIT_EXPECT_FALSE(test, rwin_test_add(test, 0, 64, 0, 0));
	KUNIT_EXPECT_TRUE(test, rwin_pop(&ctx->win, &cmd, 0));
	rwin_fold(&ctx->win, 1);
	KUNIT_EXPECT_FALSE(test, rwin_complete_nolock(&ctx->win));
	KUNIT_EXPECT_TRUE(test, rwin_test_add(test, 100, 8, 0, 1));
	KUNIT_EXPECT_LE(test, rwin_arm(&ctx->win, 1), 21ULL);
}

static const struct rwin_write *rwin_test_waited_wr;

static bool rwin_test_waited(const struct rwin_write *wr)
{
	return wr == rwin_test_waited_wr;
}

/* A sleeper on a long-held write frees its AU while quiet, not long idle. */
static void rwin_test_waiter(struct kunit *test)
{
	struct rwin_test_ctx *ctx = test->priv;

	ctx->prm.hold_ns = RWIN_TEST_MS(1000);
	ctx->prm.meta_hold_ns = RWIN_TEST_MS(20000);
	ctx->prm.idle_ns = RWIN_TEST_MS(200);
	ctx->prm.meta_idle_ns = RWIN_TEST_MS(1000);
	rwin_test_start(test);
	ctx->win.waited = rwin_test_waited;
	KUNIT_EXPECT_TRUE(test, rwin_test_add(test, 8, 8, 0, 0));
	KUNIT_EXPECT_TRUE(test, rwin_test_add(test, 8192, 8, 0, 0));
	rwin_expire(&ctx->win, RWIN_PROBE_NS);
	KUNIT_EXPECT_EQ(test, ctx->win.held_count, 2U);
	rwin_test_waited_wr = &ctx->pool[1];
	KUNIT_EXPECT_EQ(test, rwin_next_deadline(&ctx->win), 2 * RWIN_PROBE_NS);
	rwin_expire(&ctx->win, 2 * RWIN_PROBE_NS);
	rwin_test_waited_wr = NULL;
	KUNIT_EXPECT_EQ(test, ctx->win.held_count, 1U);
	KUNIT_EXPECT_EQ(test, ctx->win.stats.released[RWIN_REL_WAITER], 1ULL);
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, 2 * RWIN_PROBE_NS),
			   "8192+8");
}

/* The SD 12 MiB AU (24576 sectors): not a power of two. */
static void rwin_test_au_12mib(struct kunit *test)
{
	struct rwin_test_ctx *ctx = test->priv;

	ctx->prm.au_sectors = 24576;
	rwin_test_start(test);
	KUNIT_EXPECT_FALSE(test, rwin_test_add(test, 25600, 1024, 0, 0));
	KUNIT_EXPECT_TRUE(test, rwin_test_add(test, 24584, 8, 0, 0));
	KUNIT_EXPECT_TRUE(test, rwin_test_add(test, 24568, 8, 0, 0));
	KUNIT_EXPECT_STREQ(test, rwin_test_pop(test, 0), "24584+8 25600+1024");
	KUNIT_EXPECT_EQ(test, ctx->win.held_count, 1U);
}

static struct kunit_case rwin_test_cases[] = {
	KUNIT_CASE(rwin_test_note_write),
	KUNIT_CASE(rwin_test_flush_step),
	KUNIT_CASE(rwin_test_flush_step_older),
	KUNIT_CASE(rwin_test_complete_nolock),
	KUNIT_CASE(rwin_test_waiter),
	KUNIT_CASE(rwin_test_au_12mib),
	KUNIT_CASE(rwin_test_small_held_large_passes),
	KUNIT_CASE(rwin_test_prefix_merge),
	KUNIT_CASE(rwin_test_attach_order),
	KUNIT_CASE(rwin_test_count_bound),
	KUNIT_CASE(rwin_test_deadline),
	KUNIT_CASE(rwin_test_meta_hold),
	KUNIT_CASE(rwin_test_sync_grace),
	KUNIT_CASE(rwin_test_sync_release_off),
	KUNIT_CASE(rwin_test_idle),
	KUNIT_CASE(rwin_test_sync_releases),
	KUNIT_CASE(rwin_test_sync_passes_until_expiry),
	KUNIT_CASE(rwin_test_read_overlap),
	KUNIT_CASE(rwin_test_overlap_order),
	KUNIT_CASE(rwin_test_drain_limits),
	KUNIT_CASE(rwin_test_backward),
	KUNIT_CASE(rwin_test_rewrite_held),
	KUNIT_CASE(rwin_test_rewrite_order),
	KUNIT_CASE(rwin_test_rewrite_partial),
	KUNIT_CASE(rwin_test_grow),
	KUNIT_CASE(rwin_test_grow_ahead),
	KUNIT_CASE(rwin_test_grow_refused),
	KUNIT_CASE(rwin_test_chained_not_mergeable),
	{},
};

static struct kunit_suite rwin_test_suite = {
	.name = "reorder_window",
	.init = rwin_test_init,
	.test_cases = rwin_test_cases,
};

kunit_test_suites(&rwin_test_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for the coalesce scheduler's reorder window");
MODULE_IMPORT_NS(COALESCE_IOSCHED);
