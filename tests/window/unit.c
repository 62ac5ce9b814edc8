// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for the reorder window engine: one scenario per rule.
 * Commands are rendered as "start+sectors start+sectors ..." (one token per
 * extent) so each expectation reads like the card trace it stands for.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reorder_window.h"

#define MS(x)	((u64)(x) * 1000 * 1000)

static struct rwin_window win;
static struct rwin_params prm;
static struct rwin_write pool[256];
static int pool_used;
static char rendered[1024];

static void setup(void)
{
	rwin_params_init(&prm);
	memset(pool, 0, sizeof(pool));
	pool_used = 0;
}

static void start(void)
{
	CHECK(rwin_init(&win, &prm) == 0);
}

static struct rwin_write *wr_new(sector_t sector, u32 sectors, u32 flags)
{
	struct rwin_write *wr = &pool[pool_used++];

	memset(wr, 0, sizeof(*wr));
	wr->start = sector;
	wr->sectors = sectors;
	wr->flags = flags;
	return wr;
}

/* Add a write at time @now; returns true if held. */
static bool add(sector_t sector, u32 sectors, u32 flags, u64 now)
{
	struct rwin_write *wr = wr_new(sector, sectors, flags);

	wr->arrival_ns = now;
	return rwin_add_write(&win, wr, now);
}

/* "start+sectors ...": one token per run of contiguous writes */
static void render(const struct rwin_cmd *cmd)
{
	const struct rwin_write *wr;
	sector_t start = 0, end = 0;
	size_t len = 0;

	rendered[0] = 0;
	list_for_each_entry(wr, &cmd->writes, link) {
		if (end && wr->start == end) {
			end += wr->sectors;
			continue;
		}
		if (end)
			len += snprintf(rendered + len, sizeof(rendered) - len,
					"%s%llu+%u", len ? " " : "",
					(unsigned long long)start,
					(u32)(end - start));
		start = wr->start;
		end = start + wr->sectors;
	}
	snprintf(rendered + len, sizeof(rendered) - len, "%s%llu+%u",
		 len ? " " : "", (unsigned long long)start, (u32)(end - start));
}

/* Pop one command, complete it, and render it; "-" if nothing queued. */
static const char *pop(u64 now)
{
	struct rwin_cmd cmd;

	if (!rwin_pop(&win, &cmd, now))
		return "-";
	render(&cmd);
	rwin_complete(&win, cmd.nr_writes, now);
	return rendered;
}

static void test_defaults(void)
{
	setup();
	CHECK(prm.au_sectors == 8192);
	CHECK(prm.small_sectors == 32);
	CHECK(prm.window_reqs == 128);
	CHECK(prm.window_bytes == 4 * 1024 * 1024);
	CHECK(prm.hold_ns == MS(5000));
	CHECK(prm.idle_ns == MS(20));
	CHECK(prm.sync_release);
}

static void test_bad_params(void)
{
	setup();
	prm.au_sectors = 0;
	CHECK(rwin_init(&win, &prm) == -EINVAL);
	setup();
	prm.window_reqs = RWIN_MAX_WINDOW_REQS + 1;
	CHECK(rwin_init(&win, &prm) == -EINVAL);
}

static void test_large_passes(void)
{
	setup();
	start();
	CHECK(!add(8192, 1024, 0, 0));
	CHECK(!add(9216, 1024, 0, 0));
	CHECK_STR(pop(0), "8192+1024");
	CHECK_STR(pop(0), "9216+1024");
	CHECK_STR(pop(0), "-");
	CHECK(win.stats.passed == 2);
}

static void test_small_held(void)
{
	setup();
	start();
	CHECK(add(100, 8, 0, 0));
	CHECK(win.held_count == 1);
	CHECK_STR(pop(0), "-");
	CHECK(win.stats.holds == 1);
}

/*
 * Writes that pass leave lowest first within the head's AU (the flusher
 * and an fsync of mkfs interleave), never ahead of an older write they
 * overlap.
 */
static void test_pass_sorted_in_au(void)
{
	setup();
	start();
	CHECK(!add(2072, 1024, 0, 1));
	CHECK(!add(3096, 1024, 0, 2));
	CHECK(!add(5144, 1024, 0, 3));
	CHECK(!add(4120, 1024, RWIN_F_SYNC, 4));
	CHECK_STR(pop(5), "2072+1024");
	CHECK_STR(pop(5), "3096+1024");
	CHECK_STR(pop(5), "4120+1024");
	CHECK_STR(pop(5), "5144+1024");
	CHECK(!add(20480, 1024, 0, 6));
	CHECK(!add(19456, 2048, 0, 7));
	CHECK_STR(pop(8), "20480+1024");
	CHECK_STR(pop(8), "19456+2048");
	CHECK_STR(pop(8), "-");
}

/* ext2 indirect block right in front of the data it maps: one transfer. */
static void test_prefix_merge(void)
{
	setup();
	start();
	CHECK(add(114784, 8, 0, 0));
	CHECK(!add(114792, 1000, 0, 0));
	CHECK_STR(pop(0), "114784+1008");
	CHECK(win.stats.released[RWIN_REL_ATTACH] == 1);
	CHECK(win.held_count == 0);
}

static void test_attach_sorted_before(void)
{
	setup();
	start();
	CHECK(add(8300, 8, 0, 0));
	CHECK(add(8200, 16, 0, 0));
	CHECK(add(8216, 8, 0, 0));
	CHECK(add(100, 8, 0, 0));	/* other AU: stays */
	CHECK(!add(9000, 512, 0, 0));
	CHECK_STR(pop(0), "8200+24 8300+8 9000+512");
	CHECK(win.held_count == 1);
}

/* Held writes ahead of the data stay held until the data reaches them. */
static void test_ahead_stays(void)
{
	setup();
	start();
	CHECK(add(120000, 16, 0, 0));	/* indirect block written ahead */
	CHECK(add(116816, 8, 0, 0));	/* contiguous after the data */
	CHECK(!add(115816, 1000, 0, 0));
	CHECK_STR(pop(0), "115816+1008");
	CHECK(win.held_count == 1);
	CHECK(!add(116824, 1024, 0, 0));
	CHECK(!add(117848, 1024, 0, 0));
	CHECK_STR(pop(0), "116824+1024");
	CHECK_STR(pop(0), "117848+1024");
	CHECK(win.held_count == 1);
	CHECK(!add(118976, 1024, 0, 0));
	CHECK_STR(pop(0), "118976+1040");
	CHECK(win.held_count == 0);
}

static void test_count_bound(void)
{
	int i;

	setup();
	prm.window_reqs = 4;
	start();
	CHECK(add(16384 + 0, 8, 0, 0));	/* AU 2, oldest */
	CHECK(add(8, 8, 0, 1));		/* AU 0 */
	CHECK(add(16384 + 64, 8, 0, 2));	/* AU 2 */
	CHECK(add(24, 8, 0, 3));	/* AU 0 */
	CHECK(add(40, 8, 0, 4));	/* overflows: AU 2 group goes */
	CHECK(win.held_count == 3);
	CHECK(win.stats.released[RWIN_REL_COUNT] == 2);
	CHECK_STR(pop(5), "16384+8 16448+8");
	for (i = 0; i < 100; i++) {
		add(100000 + i * 64, 8, 0, 10 + i);
		CHECK(win.held_count <= 4);
	}
}

static void test_bytes_bound(void)
{
	setup();
	prm.window_bytes = 16384;
	start();
	CHECK(add(0, 16, 0, 0));
	CHECK(add(8192, 16, 0, 1));
	CHECK(add(16384, 16, 0, 2));	/* 24 KiB > 16 KiB: AU 0 goes */
	CHECK(win.held_bytes == 16384);
	CHECK(win.stats.released[RWIN_REL_BYTES] == 1);
	CHECK_STR(pop(2), "0+16");
}

static void test_deadline_group(void)
{
	setup();
	prm.hold_ns = MS(1000);
	prm.idle_ns = MS(100000);
	start();
	CHECK(add(8, 8, 0, MS(0)));
	CHECK(add(8192, 8, 0, MS(10)));
	CHECK(add(24, 8, 0, MS(20)));
	CHECK(rwin_next_deadline(&win) == MS(1000));
	rwin_expire(&win, MS(999));
	CHECK(win.held_count == 3);
	rwin_expire(&win, MS(1000));
	CHECK(win.held_count == 1);
	CHECK(win.stats.released[RWIN_REL_DEADLINE] == 2);
	CHECK(win.stats.max_hold_ns == MS(1000));
	CHECK_STR(pop(MS(1000)), "8+8 24+8");
	CHECK(rwin_next_deadline(&win) == MS(1010));
}

/*
 * meta_hold_ns: writes to an AU without a data stream wait longer; an AU
 * that a data write reached within hold_ns keeps the short hold, and the
 * earlier deadline of the two classes comes first.
 */
static void test_meta_hold(void)
{
	setup();
	prm.hold_ns = MS(1000);
	prm.meta_hold_ns = MS(10000);
	prm.idle_ns = MS(100000);
	start();
	CHECK(!add(8192, 1024, 0, MS(0)));
	CHECK(add(8192 + 2048, 8, 0, MS(10)));
	CHECK(add(8, 8, 0, MS(20)));
	CHECK(win.stats.holds_long == 1);
	CHECK(rwin_next_deadline(&win) == MS(1010));
	rwin_expire(&win, MS(1010));
	CHECK(win.held_count == 1);
	CHECK_STR(pop(MS(1010)), "8192+1024");
	CHECK_STR(pop(MS(1010)), "10240+8");
	/* The stream left AU 1 more than hold_ns ago: long hold there too. */
	CHECK(add(8192 + 4096, 8, 0, MS(1500)));
	CHECK(win.stats.holds_long == 2);
	CHECK(rwin_next_deadline(&win) == MS(10020));
	rwin_expire(&win, MS(10019));
	CHECK(win.held_count == 2);
	rwin_expire(&win, MS(10020));
	CHECK(win.held_count == 1);
	CHECK_STR(pop(MS(10020)), "8+8");
	CHECK(rwin_next_deadline(&win) == MS(11500));
	/* Off unless longer than hold_ns. */
	setup();
	prm.hold_ns = MS(1000);
	prm.meta_hold_ns = MS(1000);
	start();
	CHECK(add(8, 8, 0, MS(0)));
	CHECK(win.stats.holds_long == 0);
}

/*
 * meta_idle_ns: a short pause releases the writes under hold_ns (their
 * AU groups); the ones under meta_hold_ns wait for the longer pause.
 */
static void test_meta_idle(void)
{
	setup();
	prm.hold_ns = MS(1000);
	prm.meta_hold_ns = MS(10000);
	prm.idle_ns = MS(20);
	prm.meta_idle_ns = MS(500);
	start();
	CHECK(!add(8192, 1024, 0, MS(0)));
	CHECK_STR(pop(MS(0)), "8192+1024");
	CHECK(add(8192 + 2048, 8, 0, MS(1)));
	CHECK(add(8, 8, 0, MS(2)));
	CHECK(rwin_next_deadline(&win) == MS(22));
	rwin_expire(&win, MS(22));
	CHECK(win.held_count == 1);
	CHECK_STR(pop(MS(22)), "10240+8");
	/* Quiet since 22 ms: the long pause counts from there. */
	CHECK(rwin_next_deadline(&win) == MS(522));
	rwin_expire(&win, MS(521));
	CHECK(win.held_count == 1);
	rwin_expire(&win, MS(522));
	CHECK(win.held_count == 0);
	CHECK_STR(pop(MS(522)), "8+8");
}

/*
 * sync_grace_ns: after a sync write nothing is held for a while (its
 * submitter may wait on the next background write); then holding resumes.
 */
static void test_sync_grace(void)
{
	setup();
	prm.sync_grace_ns = MS(100);
	prm.idle_ns = MS(100000);
	start();
	CHECK(add(8, 8, 0, MS(0)));
	CHECK(!add(100000, 8, RWIN_F_SYNC, MS(10)));
	CHECK(win.held_count == 0);
	CHECK(!add(16, 8, 0, MS(50)));
	CHECK(!add(16, 8, 0, MS(109)));
	CHECK(win.stats.grace_passed == 2);
	CHECK(add(4000, 8, 0, MS(110)));
	/* The sync write went ahead of what its rule released. */
	CHECK_STR(pop(MS(110)), "100000+8");
	CHECK_STR(pop(MS(110)), "8+8");
	CHECK_STR(pop(MS(110)), "16+8");
	CHECK_STR(pop(MS(110)), "16+8");
	CHECK(win.held_count == 1);
}

/*
 * sync_release off: a sync write takes out only the held writes it
 * overlaps (the rest keep their place beside their AU's data), through
 * rwin_add_write() and rwin_note_write() alike; FUA still takes all.
 */
static void test_sync_release_off(void)
{
	setup();
	prm.sync_release = false;
	prm.idle_ns = MS(100000);
	start();
	CHECK(add(8, 8, 0, 0));
	CHECK(add(9000, 8, 0, 0));
	CHECK(add(20000, 8, 0, 0));
	CHECK(!add(9000, 8, RWIN_F_SYNC, MS(1)));
	CHECK(win.held_count == 2);
	CHECK(win.stats.released[RWIN_REL_OVERLAP] == 1);
	CHECK(win.stats.released[RWIN_REL_SYNC] == 0);
	/* The older write of the range goes before the sync one. */
	CHECK_STR(pop(MS(1)), "9000+8");
	CHECK_STR(pop(MS(1)), "9000+8");
	rwin_note_write(&win, RWIN_F_SYNC, MS(2));
	CHECK(win.held_count == 2);
	/* The data of AU 0 still takes what is held there. */
	CHECK(!add(64, 1024, 0, MS(3)));
	CHECK_STR(pop(MS(3)), "8+8 64+1024");
	rwin_note_write(&win, RWIN_F_FUA, MS(4));
	CHECK(win.held_count == 0);
	CHECK(win.stats.released[RWIN_REL_FUA] == 1);
}

static void test_idle(void)
{
	setup();
	prm.hold_ns = MS(1000);
	start();
	CHECK(!add(1000000, 1024, 0, MS(0)));
	CHECK(add(8, 8, 0, MS(1)));
	/* Busy device: only the hold deadline counts. */
	CHECK(rwin_next_deadline(&win) == MS(1001));
	CHECK_STR(pop(MS(2)), "1000000+1024");
	/* pop() completed it at 2 ms: idle since then. */
	CHECK(rwin_next_deadline(&win) == MS(22));
	rwin_expire(&win, MS(21));
	CHECK(win.held_count == 1);
	rwin_expire(&win, MS(22));
	CHECK(win.held_count == 0);
	CHECK(win.stats.released[RWIN_REL_IDLE] == 1);
	CHECK_STR(pop(MS(22)), "8+8");
}

/* A later arrival pushes the idle release back. */
static void test_idle_arrival(void)
{
	setup();
	start();
	CHECK(add(8, 8, 0, MS(0)));
	CHECK(add(64, 8, 0, MS(15)));
	CHECK(rwin_next_deadline(&win) == MS(35));
	rwin_expire(&win, MS(34));
	CHECK(win.held_count == 2);
	rwin_expire(&win, MS(35));
	CHECK_STR(pop(MS(35)), "8+8 64+8");
}

static void test_flush(void)
{
	setup();
	start();
	CHECK(add(8, 8, 0, 0));
	CHECK(add(9000, 8, 0, 0));
	rwin_flush(&win, 0, 1);
	CHECK(win.held_count == 0);
	CHECK(win.stats.released[RWIN_REL_FLUSH] == 2);
	CHECK_STR(pop(1), "8+8 9000+8");
}

/*
 * The data step of a flush sequence (6.5+) goes out ahead of the queue
 * and waits for the queued writes under it that came before it, not for
 * a newer one: that one's data must land last.
 */
static void test_flush_step_overlap(void)
{
	setup();
	start();
	CHECK(!add(0, 128, RWIN_F_SYNC, MS(1)));	/* older */
	rwin_flush(&win, RWIN_F_SYNC, MS(2));		/* the step, 0+128 */
	CHECK(!add(0, 128, RWIN_F_SYNC, MS(3)));	/* newer */
	CHECK(rwin_overlaps_queued(&win, 0, 128, MS(2)));
	CHECK_STR(pop(MS(4)), "0+128");
	CHECK(!rwin_overlaps_queued(&win, 0, 128, MS(2)));
	CHECK(rwin_overlaps_queued(&win, 0, 128, RWIN_NO_DEADLINE));
}

/*
 * While the step (0+256, arriving at 2 ms) waits, only writes older than
 * it go, one a command: a newer sync write put in front (0+64) and a
 * newer held write that would join the older data (192+8) both land under
 * the step, so they must follow it.
 */
static void test_flush_step_older_only(void)
{
	struct rwin_cmd cmd;

	setup();
	start();
	CHECK(!add(64, 128, 0, MS(1)));
	rwin_flush(&win, 0, MS(2));
	CHECK(!add(0, 64, RWIN_F_SYNC, MS(3)));
	CHECK(add(192, 8, 0, MS(3)));
	CHECK(rwin_pop_older(&win, &cmd, MS(2)));
	render(&cmd);
	CHECK_STR(rendered, "64+128");
	CHECK(cmd.nr_writes == 1);
	rwin_complete(&win, cmd.nr_writes, MS(4));
	CHECK(!rwin_pop_older(&win, &cmd, MS(2)));
	CHECK(!rwin_overlaps_queued(&win, 0, 256, MS(2)));
	/* the step has gone: the newer ones follow */
	CHECK_STR(pop(MS(5)), "0+64");
	CHECK(win.held_count == 1);
}

/*
 * A bio that merges into a request the window knows never goes through
 * rwin_add_write(): rwin_note_write() applies its flags' rules, which an
 * fsync's data write needs (the inode-table block it waits for next must
 * not stay held), and opens the sync grace.
 */
static void test_note_write(void)
{
	setup();
	prm.sync_grace_ns = MS(100);
	start();
	CHECK(add(8, 8, 0, 0));
	CHECK(add(9000, 8, 0, 0));
	rwin_note_write(&win, 0, MS(1));
	CHECK(win.held_count == 2);
	rwin_note_write(&win, RWIN_F_SYNC, MS(2));
	CHECK(win.held_count == 0);
	CHECK(win.stats.released[RWIN_REL_SYNC] == 2);
	CHECK(!add(16, 8, 0, MS(50)));
	CHECK(add(32, 8, 0, MS(103)));
	CHECK_STR(pop(MS(103)), "8+8 9000+8");
}

/* A read releases the held writes under it to the head of the queue. */
static void test_read_releases_to_front(void)
{
	setup();
	start();
	CHECK(!add(100000, 1024, 0, 0));
	CHECK(add(8, 8, 0, 0));
	/* The read waits for it, and for it only. */
	rwin_read(&win, 0, 16, 1);
	CHECK(rwin_overlaps_queued(&win, 0, 16, RWIN_NO_DEADLINE));
	CHECK_STR(pop(1), "8+8");
	CHECK(!rwin_overlaps_queued(&win, 0, 16, RWIN_NO_DEADLINE));
	CHECK_STR(pop(1), "100000+1024");
}

/* Discards: never held, no write position, no stream, nothing attached. */
static void test_nodata(void)
{
	setup();
	prm.meta_hold_ns = MS(20000);
	start();
	CHECK(!add(8192, 1024, 0, 0));
	CHECK_STR(pop(0), "8192+1024");
	CHECK(add(8192 + 4096, 8, 0, 1));
	CHECK(!add(8192 + 2048, 1024, RWIN_F_NODATA, 2));
	/* The discard goes alone: the write held in its AU stays. */
	CHECK_STR(pop(2), "10240+1024");
	CHECK(win.held_count == 1);
	/* It did not move the write position: 9216 is not behind it. */
	CHECK(!add(9216, 64, 0, 3));
	/* A discard in a new AU marks no stream there: the write held
	 * in it is a long hold.
	 */
	CHECK(!add(65536, 1024, RWIN_F_NODATA, 4));
	CHECK(add(65536 + 2048, 8, 0, 5));
	CHECK(win.stats.holds_long == 1);
}

/* AU sizes that are not a power of two: the SD 12 MiB AU. */
static void test_au_12mib(void)
{
	setup();
	prm.au_sectors = 24576;
	start();
	CHECK(!add(24576 + 1024, 1024, 0, 0));
	CHECK(add(24576 + 8, 8, 0, 0));
	CHECK(add(24576 - 8, 8, 0, 0));
	/* 24568 is in AU 0, 24584 in AU 1 with the data. */
	CHECK_STR(pop(0), "24584+8 25600+1024");
	CHECK(win.held_count == 1);
}

static const struct rwin_write *waited_write;

static bool probe_waited(const struct rwin_write *wr)
{
	return wr == waited_write;
}

/*
 * Somebody sleeps on a write held under meta_hold_ns: the probe finds it
 * (asked every RWIN_PROBE_NS: on the timer while the device is quiet, on
 * the calls that come anyway while it is busy), not after meta_idle_ns,
 * and its AU group goes; the rest waits for the long quiet spell.
 */
static void test_waiter_probe(void)
{
	setup();
	prm.hold_ns = MS(1000);
	prm.meta_hold_ns = MS(20000);
	prm.idle_ns = MS(200);
	prm.meta_idle_ns = MS(1000);
	start();
	win.waited = probe_waited;
	CHECK(add(8, 8, 0, MS(0)));
	CHECK(add(16, 8, 0, MS(0)));
	CHECK(add(8192, 8, 0, MS(0)));
	CHECK(win.stats.holds_long == 3);
	/* Quiet since the last arrival: asked 10 ms in, nobody waits. */
	CHECK(rwin_next_deadline(&win) == MS(10));
	rwin_expire(&win, MS(10));
	CHECK(win.held_count == 3);
	CHECK(rwin_next_deadline(&win) == MS(20));
	waited_write = &pool[1];
	rwin_expire(&win, MS(19));
	CHECK(win.held_count == 3);
	rwin_expire(&win, MS(20));
	CHECK(win.held_count == 1);
	CHECK(win.stats.released[RWIN_REL_WAITER] == 2);
	/*
	 * Busy device (the released group in flight): no timer for the
	 * probe, but the calls that come anyway ask it every 10 ms.
	 */
	waited_write = &pool[2];
	{
		struct rwin_cmd cmd;

		CHECK(rwin_pop(&win, &cmd, MS(20)));
		CHECK(rwin_next_deadline(&win) == MS(20000));
		rwin_expire(&win, MS(29));
		CHECK(win.held_count == 1);
		rwin_expire(&win, MS(30));
		CHECK(win.held_count == 0);
		rwin_complete(&win, cmd.nr_writes, MS(100));
	}
	CHECK(win.stats.released[RWIN_REL_WAITER] == 3);
	CHECK_STR(pop(MS(100)), "8192+8");

	/* Nobody waits: the long quiet spell still ends it. */
	setup();
	prm.hold_ns = MS(1000);
	prm.meta_hold_ns = MS(20000);
	prm.idle_ns = MS(200);
	prm.meta_idle_ns = MS(1000);
	start();
	win.waited = probe_waited;
	waited_write = NULL;
	CHECK(add(8, 8, 0, MS(0)));
	rwin_expire(&win, MS(999));
	CHECK(win.held_count == 1);
	rwin_expire(&win, MS(1000));
	CHECK(win.held_count == 0);
	CHECK(win.stats.released[RWIN_REL_IDLE] == 1);
}

/*
 * The lock-free completion against an arrival that holds a write. The
 * caller folds the completions counted so far and then holds a write; in
 * between, the last write on the device completes on another CPU, sees
 * nothing held and takes no lock. rwin_arm(), the caller's last step
 * under its lock, must still see that completion: the device is idle, so
 * the timer goes at the idle time, not at the hold time.
 */
static void test_complete_handshake(void)
{
	struct rwin_cmd cmd;

	setup();
	prm.idle_ns = MS(20);
	start();
	CHECK(!add(0, 64, 0, MS(0)));
	CHECK(rwin_pop(&win, &cmd, MS(0)));
	rwin_fold(&win, MS(1));			/* caller: lock, fold */
	CHECK(!rwin_complete_nolock(&win));	/* other CPU: nothing held */
	CHECK(add(100, 8, 0, MS(1)));		/* caller: holds a write */
	CHECK(rwin_arm(&win, MS(1)) <= MS(1) + prm.idle_ns);
	CHECK(win.stats.completed == 1);
	/* Held first: the last completion must come back under the lock. */
	CHECK(!add(16384, 64, 0, MS(2)));
	CHECK(rwin_pop(&win, &cmd, MS(2)));
	CHECK(rwin_complete_nolock(&win));
	CHECK(rwin_arm(&win, MS(3)) <= MS(3) + prm.idle_ns);
}

static int probe_calls;

static bool probe_counted(const struct rwin_write *wr)
{
	probe_calls++;
	return wr == waited_write;
}

/*
 * The probe runs with the caller's lock taken: one ask looks at held
 * writes of no more than RWIN_PROBE_SECTORS (one write at least), and the
 * next ask goes on from there, so a sleeper on the last of 40 held 4 KiB
 * writes is found by the third ask, and one large write is asked alone.
 */
static void test_probe_bounded(void)
{
	int i;

	setup();
	prm.hold_ns = MS(1000);
	prm.meta_hold_ns = MS(20000);
	prm.meta_idle_ns = MS(5000);
	start();
	win.waited = probe_counted;
	for (i = 0; i < 40; i++)
		CHECK(add(8 + 16 * i, 8, 0, 0));
	waited_write = &pool[39];
	probe_calls = 0;
	rwin_expire(&win, MS(10));
	CHECK(probe_calls == RWIN_PROBE_SECTORS / 8);
	CHECK(win.held_count == 40);
	rwin_expire(&win, MS(20));
	CHECK(probe_calls == 2 * RWIN_PROBE_SECTORS / 8);
	CHECK(win.held_count == 40);
	rwin_expire(&win, MS(30));
	CHECK(probe_calls == 40);
	CHECK(win.held_count == 0);
	CHECK(win.stats.released[RWIN_REL_WAITER] == 40);

	/* 512 KiB backward writes: one an ask */
	CHECK(!add(300000, 1024, 0, MS(40)));
	CHECK(add(298000, 1024, 0, MS(40)));
	CHECK(add(296000, 1024, 0, MS(40)));
	waited_write = NULL;
	probe_calls = 0;
	rwin_expire(&win, MS(60));
	CHECK(probe_calls == 1);
	rwin_expire(&win, MS(70));
	CHECK(probe_calls == 2);
}

static void test_urgent_writes(void)
{
	static const u32 flags[] = { RWIN_F_SYNC, RWIN_F_FUA };
	static const int reason[] = { RWIN_REL_SYNC, RWIN_REL_FUA };
	int i;

	for (i = 0; i < 2; i++) {
		setup();
		start();
		CHECK(add(9000, 8, 0, 0));
		CHECK(add(8, 8, 0, 0));
		CHECK(!add(4000, 8, flags[i], 0));
		CHECK(win.held_count == 0);
		CHECK(win.stats.released[reason[i]] == 2);
		/*
		 * The write overlaps nothing queued: it goes ahead of the
		 * background writes, then those released, in one ascending
		 * batch.
		 */
		CHECK_STR(pop(0), "4000+8");
		CHECK_STR(pop(0), "8+8 9000+8");
	}
}

/*
 * Sync writes ahead of the background ones, among themselves in arrival
 * order; one that overlaps a queued write stays behind it.
 */
static void test_sync_ahead(void)
{
	setup();
	start();
	CHECK(!add(100000, 1024, 0, 0));
	CHECK(!add(200000, 1024, 0, 0));
	CHECK(!add(300000, 8, RWIN_F_SYNC, 1));
	CHECK(!add(300008, 8, RWIN_F_SYNC, 1));
	CHECK(!add(200000, 8, RWIN_F_SYNC, 1));
	CHECK(add(8, 8, 0, 2));
	CHECK(!add(8, 8, RWIN_F_SYNC, 3));
	CHECK_STR(pop(3), "300000+8");
	CHECK_STR(pop(3), "300008+8");
	CHECK_STR(pop(3), "100000+1024");
	CHECK_STR(pop(3), "200000+1024");
	CHECK_STR(pop(3), "200000+8");
	/* The held write under the sync one went first, then the rewrite. */
	CHECK_STR(pop(3), "8+8");
	CHECK_STR(pop(3), "8+8");
	CHECK_STR(pop(3), "-");
}

/*
 * Sync writers that never pause: sync writes pass a queued background
 * write until it has waited RWIN_WRITE_EXPIRE_NS, then queue behind it.
 */
static void test_sync_passes_until_expiry(void)
{
	u64 expire = RWIN_WRITE_EXPIRE_NS;

	setup();
	start();
	CHECK(!add(100000, 1024, 0, 0));
	CHECK(!add(8, 8, RWIN_F_SYNC, 1));
	CHECK_STR(pop(1), "8+8");
	CHECK(!add(16, 8, RWIN_F_SYNC, expire - 1));
	CHECK_STR(pop(expire - 1), "16+8");
	/* the background write has waited long enough: it goes first */
	CHECK(!add(24, 8, RWIN_F_SYNC, expire));
	CHECK(win.stats.sync_expired == 1);
	CHECK_STR(pop(expire), "100000+1024");
	CHECK_STR(pop(expire), "24+8");
	/* a background write released from the hold counts from then */
	CHECK(add(40000, 8, 0, expire + 1));
	rwin_drain(&win, 2 * expire);
	CHECK(!add(32, 8, RWIN_F_SYNC, 3 * expire - 1));
	CHECK_STR(pop(3 * expire - 1), "32+8");
	CHECK(!add(48, 8, RWIN_F_SYNC, 3 * expire));
	CHECK_STR(pop(3 * expire), "40000+8");
	CHECK_STR(pop(3 * expire), "48+8");
	CHECK_STR(pop(3 * expire), "-");
}

/* Sync writes put ahead leave by sector, FAT1 before its mirror in FAT2. */
static void test_sync_sorted(void)
{
	int i;

	setup();
	start();
	CHECK(!add(100000, 1024, 0, 0));
	CHECK(!add(8200, 8, RWIN_F_SYNC, 1));	/* FAT2 */
	CHECK(!add(200, 8, RWIN_F_SYNC, 1));	/* FAT1 */
	CHECK(!add(8208, 8, RWIN_F_SYNC, 1));
	CHECK(!add(208, 8, RWIN_F_SYNC, 1));
	/* Overlaps a sync write queued: it stays behind it. */
	CHECK(!add(8200, 16, RWIN_F_SYNC, 1));
	CHECK_STR(pop(2), "200+8");
	CHECK_STR(pop(2), "208+8");
	CHECK_STR(pop(2), "8200+8");
	CHECK_STR(pop(2), "8208+8");
	CHECK_STR(pop(2), "100000+1024");
	CHECK_STR(pop(2), "8200+16");
	CHECK_STR(pop(2), "-");

	/* A sync write is passed by sorting at most RWIN_SYNC_PASS_MAX times. */
	CHECK(!add(50000, 8, RWIN_F_SYNC, 3));
	for (i = 0; i < 20; i++)
		CHECK(!add(1000 - 8 * i, 8, RWIN_F_SYNC, 3));
	for (i = 0; i < 16; i++)
		CHECK(strcmp(pop(3), "50000+8"));
	CHECK_STR(pop(3), "50000+8");
}

static void test_read(void)
{
	setup();
	start();
	CHECK(add(8, 8, 0, 0));
	CHECK(add(64, 8, 0, 0));
	rwin_read(&win, 1000, 8, 0);
	CHECK(win.held_count == 2);
	rwin_read(&win, 12, 1, 0);
	CHECK(win.held_count == 1);
	CHECK(win.stats.released[RWIN_REL_READ] == 1);
	CHECK(rwin_overlaps_queued(&win, 12, 1, RWIN_NO_DEADLINE));
	CHECK_STR(pop(0), "8+8");
	CHECK(!rwin_overlaps_queued(&win, 12, 1, RWIN_NO_DEADLINE));
}

/* A newer write overlapping a held one goes after it. */
static void test_overlap_write(void)
{
	setup();
	start();
	CHECK(add(8, 8, 0, 0));
	CHECK(add(40, 8, 0, 0));
	CHECK(!add(12, 8, 0, 1));	/* overlaps 8+8 */
	CHECK(win.stats.released[RWIN_REL_OVERLAP] == 1);
	CHECK(win.held_count == 1);
	CHECK_STR(pop(1), "8+8");
	CHECK_STR(pop(1), "12+8");
}

/* A small write overlapping a queued one is not held ahead of it. */
static void test_overlap_queued(void)
{
	setup();
	start();
	CHECK(!add(1000, 512, 0, 0));
	CHECK(!add(1100, 8, 0, 0));
	CHECK(add(992, 8, 0, 0));	/* no overlap: held, merges in */
	CHECK_STR(pop(0), "992+520");
	CHECK_STR(pop(0), "1100+8");
}

static void test_drain(void)
{
	setup();
	start();
	CHECK(add(8, 8, 0, 0));
	CHECK(add(16, 8, 0, 0));
	CHECK(add(8192 * 5, 8, 0, 0));
	rwin_drain(&win, 0);
	CHECK(win.held_count == 0);
	CHECK(win.stats.released[RWIN_REL_DRAIN] == 3);
	CHECK_STR(pop(0), "8+16 40960+8");
	CHECK(rwin_next_deadline(&win) == RWIN_NO_DEADLINE);
}

static void test_max_runs(void)
{
	int i;

	setup();
	start();
	for (i = 0; i < RWIN_MAX_RUNS + 1; i++)
		CHECK(add(i * 100, 8, 0, 0));
	rwin_drain(&win, 0);
	CHECK(strlen(pop(0)) > 0 && !strstr(rendered, "1600+8"));
	CHECK_STR(pop(0), "1600+8");

	/* With data: the held writes nearest the data go with it. */
	for (i = 0; i < RWIN_MAX_RUNS; i++)
		CHECK(add(i * 100, 8, 0, 0));
	CHECK(!add(8000, 64, 0, 0));
	CHECK(!strncmp(pop(0), "100+8 ", 6));
	CHECK(win.held_count == 1);
}

/* Reversed plug: data write queued, the one in front arrives later. */
static void test_backward_hold(void)
{
	setup();
	start();
	CHECK(!add(9216, 1024, 0, 0));
	CHECK(add(8192, 1024, 0, 0));	/* behind the AU's position */
	CHECK(win.stats.holds_backward == 1);
	CHECK_STR(pop(0), "8192+2048");
}

/* A write larger than the byte bound can never be held. */
static void test_backward_too_big(void)
{
	setup();
	prm.window_bytes = 256 * 1024;
	start();
	CHECK(!add(9216, 1024, 0, 0));
	CHECK(!add(8192, 1024, 0, 0));
}

static void test_cookie_and_order(void)
{
	struct rwin_write *a, *b, *c, *it;
	struct rwin_cmd cmd;
	int n = 0;

	setup();
	start();
	a = wr_new(100, 8, 0);
	b = wr_new(108, 8, 0);
	c = wr_new(116, 1000, 0);
	a->cookie = a;
	b->cookie = b;
	c->cookie = c;
	rwin_add_write(&win, b, 0);
	rwin_add_write(&win, a, 0);
	rwin_add_write(&win, c, 0);
	CHECK(rwin_pop(&win, &cmd, 0));
	CHECK(cmd.nr_writes == 3);
	list_for_each_entry(it, &cmd.writes, link) {
		CHECK(it->cookie == (n == 0 ? a : n == 1 ? b : c));
		n++;
	}
	CHECK(n == 3);
	CHECK(a->released_ns == 0 && a->reason == RWIN_REL_ATTACH);
}

static void test_au_override(void)
{
	setup();
	prm.au_sectors = 1024;
	start();
	CHECK(add(1000, 8, 0, 0));	/* AU 0 */
	CHECK(add(1030, 8, 0, 0));	/* AU 1 */
	CHECK(!add(1100, 512, 0, 0));
	CHECK_STR(pop(0), "1030+8 1100+512");
	CHECK(win.held_count == 1);
}

/* A rewrite of exactly the range of a held write stays held behind it. */
static void test_rewrite_held(void)
{
	setup();
	start();
	CHECK(add(8, 8, 0, 0));
	CHECK(add(2056, 16, 0, 1));
	CHECK(add(8, 8, 0, 2));		/* same range: chained */
	CHECK(add(8, 8, 0, 3));
	CHECK(win.held_count == 4);
	CHECK(win.held_bytes == 40 * 512);
	CHECK(win.stats.chained == 2);
	CHECK(win.stats.released[RWIN_REL_OVERLAP] == 0);
	CHECK_STR(pop(3), "-");
	/* One ascending pass per generation, in arrival order. */
	rwin_drain(&win, 4);
	CHECK(win.stats.released[RWIN_REL_DRAIN] == 4);
	CHECK_STR(pop(4), "8+8 2056+16");
	CHECK_STR(pop(4), "8+8");
	CHECK_STR(pop(4), "8+8");
	CHECK_STR(pop(4), "-");
}

/* Each generation is ascending; writes of one generation still merge. */
static void test_rewrite_generations(void)
{
	setup();
	start();
	CHECK(add(16, 8, 0, 0));
	CHECK(add(8, 8, 0, 0));
	CHECK(add(16, 8, 0, 1));
	CHECK(add(8, 8, 0, 1));
	CHECK(add(16, 8, 0, 2));
	rwin_flush(&win, 0, 3);
	CHECK_STR(pop(3), "8+16");
	CHECK_STR(pop(3), "8+16");
	CHECK_STR(pop(3), "16+8");
}

/* The writes of one chain come out in arrival order (cookies). */
static void test_rewrite_order(void)
{
	struct rwin_write *a, *b, *c, *it;
	struct rwin_cmd cmd;
	struct rwin_write *want[3];
	int i;

	setup();
	start();
	a = wr_new(64, 8, 0);
	b = wr_new(64, 8, 0);
	c = wr_new(64, 8, 0);
	want[0] = a;
	want[1] = b;
	want[2] = c;
	CHECK(rwin_add_write(&win, a, 0));
	CHECK(rwin_add_write(&win, b, 0));
	CHECK(rwin_add_write(&win, c, 0));
	rwin_drain(&win, 0);
	for (i = 0; i < 3; i++) {
		CHECK(rwin_pop(&win, &cmd, 0));
		CHECK(cmd.nr_writes == 1);
		it = list_first_entry(&cmd.writes, struct rwin_write, link);
		CHECK(it == want[i]);
		CHECK(it->reason == RWIN_REL_DRAIN);
		rwin_complete(&win, cmd.nr_writes, 0);
	}
	CHECK(!rwin_pop(&win, &cmd, 0));
}

/* Partial overlap: the older writes (whole chain) go first, then it. */
static void test_rewrite_partial(void)
{
	setup();
	start();
	CHECK(add(8, 8, 0, 0));
	CHECK(add(8, 8, 0, 1));
	CHECK(add(40, 8, 0, 1));
	CHECK(!add(12, 8, 0, 2));	/* overlaps 8+8 in part */
	CHECK(win.stats.released[RWIN_REL_OVERLAP] == 2);
	CHECK(win.held_count == 1);
	CHECK_STR(pop(2), "8+8");
	CHECK_STR(pop(2), "8+8");
	CHECK_STR(pop(2), "12+8");
	CHECK_STR(pop(2), "-");
	/* Covering a held write with a larger range is a partial overlap. */
	CHECK(!add(32, 24, 0, 3));
	CHECK_STR(pop(3), "40+8");
	CHECK_STR(pop(3), "32+24");
}

/* A data write takes the chain head; the rewrite follows right after. */
static void test_rewrite_attach(void)
{
	setup();
	start();
	CHECK(add(8200, 8, 0, 0));
	CHECK(add(8300, 8, 0, 0));
	CHECK(add(8200, 8, 0, 1));
	CHECK(add(100, 8, 0, 1));	/* other AU: stays */
	CHECK(!add(1000000, 1024, 0, 2));
	CHECK(!add(9000, 512, 0, 2));
	CHECK_STR(pop(2), "1000000+1024");
	CHECK_STR(pop(2), "8200+8 8300+8 9000+512");
	CHECK_STR(pop(2), "8200+8");
	CHECK_STR(pop(2), "-");
	CHECK(win.held_count == 1);
	CHECK(win.stats.released[RWIN_REL_ATTACH] == 3);
}

/* Urgent, read and non-holdable rewrites still release the chain first. */
static void test_rewrite_release(void)
{
	setup();
	start();
	CHECK(add(8, 8, 0, 0));
	CHECK(add(8, 8, 0, 1));
	CHECK(!add(8, 8, RWIN_F_SYNC, 2));
	CHECK(win.stats.released[RWIN_REL_SYNC] == 2);
	CHECK_STR(pop(2), "8+8");
	CHECK_STR(pop(2), "8+8");
	CHECK_STR(pop(2), "8+8");

	setup();
	start();
	CHECK(add(8, 8, 0, 0));
	CHECK(add(8, 8, 0, 1));
	rwin_read(&win, 10, 1, 2);
	CHECK(win.stats.released[RWIN_REL_READ] == 2);
	CHECK_STR(pop(2), "8+8");
	CHECK(rwin_overlaps_queued(&win, 10, 1, RWIN_NO_DEADLINE));
	CHECK_STR(pop(2), "8+8");
	CHECK(!rwin_overlaps_queued(&win, 10, 1, RWIN_NO_DEADLINE));

	/* A rewrite that may not be held: the chain goes first. */
	setup();
	start();
	CHECK(add(8, 8, 0, 0));
	CHECK(add(8, 8, 0, 1));
	CHECK(add(64, 8, 0, 1));
	CHECK(!add(8, 8, RWIN_F_NOHOLD, 2));
	CHECK(win.stats.released[RWIN_REL_OVERLAP] == 2);
	CHECK(win.held_count == 1);
	CHECK_STR(pop(2), "8+8");
	CHECK_STR(pop(2), "8+8");
	CHECK_STR(pop(2), "8+8");
}

/* Chained writes count toward the bounds; the deadline is the oldest's. */
static void test_rewrite_bounds(void)
{
	setup();
	prm.window_reqs = 3;
	prm.hold_ns = MS(1000);
	prm.idle_ns = MS(100000);
	start();
	CHECK(add(8, 8, 0, MS(0)));
	CHECK(add(8, 8, 0, MS(10)));
	CHECK(add(9000, 8, 0, MS(20)));
	CHECK(rwin_next_deadline(&win) == MS(1000));
	/*
	 * Full: the oldest's AU group goes, chain and all; the third rewrite
	 * then overlaps a queued write, so it is not held but follows it.
	 */
	CHECK(!add(8, 8, 0, MS(30)));
	CHECK(win.stats.released[RWIN_REL_COUNT] == 2);
	CHECK(win.held_count == 1);
	CHECK_STR(pop(MS(30)), "8+8");
	CHECK_STR(pop(MS(30)), "8+8");
	CHECK_STR(pop(MS(30)), "8+8");
	CHECK_STR(pop(MS(30)), "-");
	/* With room, a rewrite stays held. */
	CHECK(add(9000, 8, 0, MS(40)));
	CHECK(win.stats.chained == 2);

	setup();
	prm.hold_ns = MS(1000);
	prm.idle_ns = MS(100000);
	start();
	CHECK(add(8, 8, 0, MS(0)));
	CHECK(add(8, 8, 0, MS(900)));
	rwin_expire(&win, MS(1000));
	CHECK(win.held_count == 0);
	CHECK(win.stats.released[RWIN_REL_DEADLINE] == 2);
	CHECK(win.stats.max_hold_ns == MS(1000));
	CHECK_STR(pop(MS(1000)), "8+8");
	CHECK_STR(pop(MS(1000)), "8+8");
}

/* ---- merges reported by the caller's block layer ---- */

static struct rwin_write *add_wr(sector_t sector, u32 sectors, u32 flags,
				 u64 now)
{
	struct rwin_write *wr = wr_new(sector, sectors, flags);

	wr->arrival_ns = now;
	rwin_add_write(&win, wr, now);
	return wr;
}

/* A held write that grows by a small bio stays held, bytes counted. */
static void test_grow_stays_held(void)
{
	struct rwin_write *a;

	setup();
	start();
	a = add_wr(100, 8, 0, 0);
	CHECK(a->state == RWIN_ST_HELD);
	CHECK(rwin_find(&win, 108, true) == a);
	CHECK(rwin_find(&win, 100, false) == a);
	CHECK(rwin_may_grow(&win, a, 100, 16));
	rwin_grow(&win, a, 100, 16, 0, 1);
	CHECK(a->state == RWIN_ST_HELD);
	CHECK(win.held_bytes == 16 * 512);
	/* a front merge moves its start: the tree must follow */
	rwin_grow(&win, a, 92, 24, 0, 2);
	CHECK(rwin_find(&win, 92, false) == a);
	CHECK(rwin_find(&win, 100, false) == NULL);
	rwin_drain(&win, 3);
	CHECK(strcmp(pop(3), "92+24") == 0);
}

/* Grown past what may be held (data joined it): it leaves, as one write. */
static void test_grow_leaves(void)
{
	struct rwin_write *a;

	setup();
	start();
	a = add_wr(100, 8, 0, 0);
	rwin_grow(&win, a, 100, 8 + 1024, 0, 1);
	CHECK(a->state == RWIN_ST_QUEUED);
	CHECK(win.held_count == 0 && win.held_bytes == 0);
	CHECK(win.stats.released[RWIN_REL_ATTACH] == 1);
	CHECK(win.stats.grow_released == 1);
	CHECK(strcmp(pop(1), "100+1032") == 0);
}

/*
 * An indirect block held at 968 in AU 1 grows with the data after it
 * while the data in front of it (from AU 0, across the boundary) is still
 * in the submitter's plug: it stays held, and leaves in the same command
 * as that data, right behind it. Sent at once it would cost the card a
 * visit to AU 1 and one back to AU 0 (the 6.1 seed trace had 20 such
 * bounces in one run).
 */
static void test_grow_ahead_waits_for_data(void)
{
	struct rwin_write *ind;

	setup();
	start();
	CHECK(strcmp((add(7112, 1024, 0, 0), pop(0)), "7112+1024") == 0);
	ind = add_wr(8192 + 968, 8, 0, 1);
	CHECK(ind->state == RWIN_ST_HELD);
	rwin_grow(&win, ind, 8192 + 968, 168, 0, 2);
	CHECK(ind->state == RWIN_ST_HELD);
	CHECK(win.stats.grow_released == 0);
	/* the data in front of it, crossing from AU 0 into AU 1 */
	CHECK(!add(8136, 1024, 0, 3));
	CHECK(strcmp(pop(3), "8136+1192") == 0);
	CHECK(win.held_count == 0);
	/* grown at its AU's write position it is the stream: it goes */
	ind = add_wr(9328, 8, 0, 4);
	CHECK(ind->state == RWIN_ST_HELD);
	rwin_grow(&win, ind, 9328, 8 + 1000, 0, 5);
	CHECK(ind->state == RWIN_ST_QUEUED);
	CHECK(strcmp(pop(5), "9328+1008") == 0);
}

/* A sync bio merged into a held write: somebody waits, it goes. */
static void test_grow_sync(void)
{
	struct rwin_write *a;

	setup();
	start();
	a = add_wr(100, 8, 0, 0);
	rwin_grow(&win, a, 100, 16, RWIN_F_SYNC, 1);
	CHECK(a->state == RWIN_ST_QUEUED);
	CHECK(win.stats.released[RWIN_REL_SYNC] == 1);
}

/* No growth over another write; a chained head is not mergeable. */
static void test_may_grow_refuses(void)
{
	struct rwin_write *a, *b;

	setup();
	start();
	a = add_wr(100, 8, 0, 0);
	b = add_wr(116, 8, 0, 1);
	CHECK(b->state == RWIN_ST_HELD);
	CHECK(!rwin_may_grow(&win, a, 100, 24));
	CHECK(rwin_may_grow(&win, a, 100, 16));
	add_wr(100, 8, 0, 2);		/* a rewrite of a: chained */
	CHECK(!rwin_mergeable(a));
	CHECK(!rwin_may_grow(&win, a, 100, 16));
	CHECK(rwin_find(&win, 108, true) == NULL);
	CHECK(!rwin_may_grow(&win, a, 100, 0));
}

/* A queued write grows over a held one: the older held write goes first. */
static void test_grow_over_held(void)
{
	struct rwin_write *d, *h;

	setup();
	start();
	h = add_wr(8300, 8, 0, 0);
	d = add_wr(8192, 100, 0, 1);
	CHECK(!rwin_may_grow(&win, d, 8192, 200));
	rwin_grow(&win, d, 8192, 200, 0, 2);
	CHECK(h->state == RWIN_ST_QUEUED);
	CHECK(strcmp(pop(2), "8300+8") == 0);
	CHECK(strcmp(pop(2), "8192+200") == 0);
}

/* NOHOLD writes (swap, discard) pass and release only what they overlap. */
static void test_nohold(void)
{
	setup();
	start();
	CHECK(add(100, 8, 0, 0));
	CHECK(add(9000, 8, 0, 0));
	CHECK(!add(104, 8, RWIN_F_NOHOLD, 1));
	CHECK(win.held_count == 1);
	CHECK(win.stats.released[RWIN_REL_OVERLAP] == 1);
}

/* rwin_set_params: only on an empty window, and it forgets AU positions. */
static void test_set_params(void)
{
	struct rwin_params p;

	setup();
	start();
	CHECK(add(100, 8, 0, 0));
	p = prm;
	p.au_sectors = 2048;
	CHECK(rwin_set_params(&win, &p) == -EINVAL);
	rwin_drain(&win, 1);
	CHECK(rwin_set_params(&win, &p) == 0);
	CHECK(win.p.au_sectors == 2048);
	p.au_sectors = 0;
	CHECK(rwin_set_params(&win, &p) == -EINVAL);
	CHECK(win.p.au_sectors == 2048);
}

static const struct harness_case unit_cases[] = {
	{ "defaults", test_defaults },
	{ "bad_params", test_bad_params },
	{ "large_passes", test_large_passes },
	{ "small_held", test_small_held },
	{ "prefix_merge", test_prefix_merge },
	{ "pass_sorted_in_au", test_pass_sorted_in_au },
	{ "attach_sorted_before", test_attach_sorted_before },
	{ "ahead_stays", test_ahead_stays },
	{ "count_bound", test_count_bound },
	{ "bytes_bound", test_bytes_bound },
	{ "deadline_group", test_deadline_group },
	{ "meta_hold", test_meta_hold },
	{ "meta_idle", test_meta_idle },
	{ "sync_grace", test_sync_grace },
	{ "sync_release_off", test_sync_release_off },
	{ "idle", test_idle },
	{ "idle_arrival", test_idle_arrival },
	{ "flush", test_flush },
	{ "flush_step_overlap", test_flush_step_overlap },
	{ "flush_step_older_only", test_flush_step_older_only },
	{ "note_write", test_note_write },
	{ "read_releases_to_front", test_read_releases_to_front },
	{ "nodata", test_nodata },
	{ "au_12mib", test_au_12mib },
	{ "waiter_probe", test_waiter_probe },
	{ "complete_handshake", test_complete_handshake },
	{ "probe_bounded", test_probe_bounded },
	{ "urgent_writes", test_urgent_writes },
	{ "sync_ahead", test_sync_ahead },
	{ "sync_sorted", test_sync_sorted },
	{ "sync_passes_until_expiry", test_sync_passes_until_expiry },
	{ "read", test_read },
	{ "overlap_write", test_overlap_write },
	{ "overlap_queued", test_overlap_queued },
	{ "drain", test_drain },
	{ "max_runs", test_max_runs },
	{ "backward_hold", test_backward_hold },
	{ "backward_too_big", test_backward_too_big },
	{ "cookie_and_order", test_cookie_and_order },
	{ "au_override", test_au_override },
	{ "rewrite_held", test_rewrite_held },
	{ "rewrite_generations", test_rewrite_generations },
	{ "rewrite_order", test_rewrite_order },
	{ "rewrite_partial", test_rewrite_partial },
	{ "rewrite_attach", test_rewrite_attach },
	{ "rewrite_release", test_rewrite_release },
	{ "rewrite_bounds", test_rewrite_bounds },
	{ "grow_stays_held", test_grow_stays_held },
	{ "grow_leaves", test_grow_leaves },
	{ "grow_sync", test_grow_sync },
	{ "grow_ahead_waits_for_data", test_grow_ahead_waits_for_data },
	{ "may_grow_refuses", test_may_grow_refuses },
	{ "grow_over_held", test_grow_over_held },
	{ "nohold", test_nohold },
	{ "set_params", test_set_params },
};

void unit_tests(const struct harness_case **cases, int *nr)
{
	int i;

	for (i = 0; i < (int)ARRAY_SIZE(unit_cases); i++)
		cases[i] = &unit_cases[i];
	*nr = i;
}
