// SPDX-License-Identifier: GPL-2.0
/*
 * blkcheck - guest-side checks of an SD block device, run inside the QEMU
 * guest on a scratch card (it overwrites data at the offsets it uses).
 *
 *   blkcheck patterns DEV      O_DIRECT writes of odd sizes at odd offsets,
 *                              read back and compared
 *   blkcheck mkpart DEV        one partition from sector 2048 (DEVp1)
 *   blkcheck readafter DEV P   a read through partition P while a small
 *                              writeback write to the same block may be held
 *                              returns the new data
 *   blkcheck overlap DEV P     two writeback writes to one block, through DEV
 *                              then through P: the later wins
 *   blkcheck flush DEV P       a writeback write, then a flush through P:
 *                              both complete and the data is there
 *   blkcheck ioctl DEV RCA     MMC_IOC_CMD / MMC_IOC_MULTI_CMD: CMD13 with the
 *                              card's RCA answers, bad arguments are refused
 *   blkcheck badioctl DEV RCA [PART]
 *                              a table of bad passthrough inputs, each with
 *                              the error mmc_block returns for it (every
 *                              stack runs the kernel's mmc_block, with or
 *                              without the coalesce scheduler); then CMD13
 *                              still answers and nothing was written. PART
 *                              (default DEVp1) is for the partition rows,
 *                              which are skipped if it does not exist
 *   blkcheck scatter DEV SECTOR COUNT SEED
 *                              COUNT buffered 4 KiB writes, one every 8 KiB
 *                              from SECTOR (never adjacent, so writeback
 *                              sends each alone: small writes a scheduler
 *                              may hold), content from (sector, SEED); no
 *                              sync: left to background writeback
 *   blkcheck scattercheck DEV SECTOR COUNT SEED NAME
 *                              O_DIRECT: those COUNT pieces hold what
 *                              scatter wrote with SEED (result NAME)
 *   blkcheck stress DEV SECONDS SEED
 *                              random O_DIRECT and buffered writes, reads
 *                              and syncs over BLKCHECK_SECTORS sectors
 *                              (default 64 MiB) from the base, for fault
 *                              injection: errors are counted, reads are
 *                              checked against a model of what may be
 *                              there; the model goes to BLKCHECK_STATE
 *                              (default /tmp/blkcheck.state). Ends early
 *                              once the file BLKCHECK_STOP names exists.
 *                              stress_bytes counts bytes written and read
 *   blkcheck verify DEV        after stress, with faults off and caches
 *                              dropped: the whole region reads back and
 *                              every acknowledged write is there
 *   blkcheck aiooverlap DEV    three overlapping O_DIRECT writes in one
 *                              io_submit() (P, X over P, M after P inside
 *                              X): the one that came last wins each sector
 *   blkcheck readmerge DEV PART STATS
 *                              a writeback write the scheduler holds, then
 *                              three O_DIRECT reads in one io_submit()
 *                              through PART, the last one over the held
 *                              write and mergeable into the first: it
 *                              reads the new data
 *   blkcheck fsyncmerge DEV PART STATS LIMIT_MS
 *                              held writeback writes A (through DEV) and B
 *                              (two AUs on, through PART, which nobody
 *                              waits for), then fdatasync() of a block
 *                              whose sync write merges into A: it is
 *                              prompt (at most LIMIT_MS; fsync_merge_ms),
 *                              and B left the window with it (the sync
 *                              rule; the debugfs list "held" of STATS'
 *                              directory no longer has it)
 *   blkcheck lists DEV STATS   six held writeback writes: the debugfs list
 *                              "held" shows each, as many as held_now, with
 *                              distinct valid tags; "queued" has valid tags
 *   blkcheck fuarace DEV       on a device that emulates FUA with a flush
 *                              (null_blk fua=0) and completes slowly: an
 *                              O_DIRECT write, an O_DSYNC one (REQ_FUA: a
 *                              write, then a flush) and a newer O_DIRECT
 *                              one to the same sectors, while the device
 *                              is busy: the newest data is what reads back
 *   blkcheck waitheld DEV STATS LIMIT_MS
 *                              a held writeback write, then fdatasync()
 *                              with nothing dirty: it sleeps on the held
 *                              write and nothing new arrives; at most
 *                              LIMIT_MS (wait_held_ms)
 *                              STATS: the scheduler's debugfs stats file,
 *                              polled for held_now ("-" on a stack without
 *                              one: a short sleep instead)
 *   blkcheck seedwrite FILE KIB SEED
 *                              the seed's file: KIB KiB in 16 KiB write()s
 *                              (dd bs=16K); each 512-byte sector starts
 *                              with its number in the file and SEED, so a
 *                              lost, misplaced or stale sector is told
 *                              from a good one (zeros never pass)
 *   blkcheck seedverify FILE KIB SEED NAME
 *                              the file reads back as seedwrite wrote it
 *                              (result NAME; first bad sector in why)
 *   blkcheck fsyncprobe DIR STOPFILE
 *                              every 250 ms, a new 4 KiB file in DIR,
 *                              written and fsync()ed, until STOPFILE exists
 *                              (at most 4096 files); with
 *                              BLKCHECK_PROBE_COUNT=N instead exactly N
 *                              files, the k-th started at 250 ms * k from
 *                              the first or as soon as the one before it
 *                              returned, so every stack does the same
 *                              work; the fsync() latency:
 *                              fsync_n, fsync_p50_ms, fsync_p99_ms,
 *                              fsync_max_ms (nearest-rank percentiles)
 *
 * Prints "MMCC RESULT pass|fail NAME [why]" and "MMCC KV key=value" lines
 * for the host, and exits non-zero if anything failed. Static, no
 * libraries: it runs on x86_64 and on the big-endian e500 guest alike.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64	/* 32-bit guests: offsets past 2 GiB */
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/fs.h>
#include <linux/mmc/ioctl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest-result.h"

/* The kernel's names, so the code reads like the driver it tests. */
typedef unsigned long long u64;
typedef unsigned int u32;
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define SECTOR		512
#define ALIGN		4096
/*
 * Scratch area: 64 MiB into the card by default (the x86_64 driver test
 * has no file system); BLKCHECK_BASE (sectors) moves it, e.g. past the
 * end of a file system that must stay intact.
 */
static unsigned long long base_sector = 64 * 1024 * 2;
#define BASE_SECTOR	base_sector

static void *xalloc(size_t len)
{
	void *p;

	if (posix_memalign(&p, ALIGN, len)) {
		perror("posix_memalign");
		exit(2);
	}
	return p;
}

/* Deterministic content: depends on the sector and a seed. */
static void fill(unsigned char *buf, size_t len, u64 sector,
		 unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)((sector + i / SECTOR) * 31 + i * 7 +
					 seed * 13);
}

static int pwrite_all(int fd, const void *buf, size_t len, off_t off)
{
	return pwrite(fd, buf, len, off) == (ssize_t)len ? 0 : -1;
}

static int pread_all(int fd, void *buf, size_t len, off_t off)
{
	return pread(fd, buf, len, off) == (ssize_t)len ? 0 : -1;
}

static int check_patterns(const char *dev)
{
	static const struct { unsigned int sector, sectors; } t[] = {
		{ 1, 1 }, { 3, 7 }, { 17, 8 }, { 1023, 2 }, { 2047, 129 },
		{ 4095, 1025 }, { 8191, 2 }, { 8192 * 3 - 5, 33 },
	};
	unsigned char *w = xalloc(2048 * SECTOR), *r = xalloc(2048 * SECTOR);
	unsigned int i;
	char why[128];
	int fd, ok = 1;

	fd = open(dev, O_RDWR | O_DIRECT);
	if (fd < 0) {
		result(0, "raw_patterns", "open failed");
		return -1;
	}
	/* Write all first, then read all: reads come after many writes. */
	for (i = 0; i < ARRAY_SIZE(t) && ok; i++) {
		u64 s = BASE_SECTOR + t[i].sector;
		size_t len = (size_t)t[i].sectors * SECTOR;

		fill(w, len, s, i);
		if (pwrite_all(fd, w, len, (off_t)s * SECTOR)) {
			snprintf(why, sizeof(why), "write %u+%u: %s",
				 t[i].sector, t[i].sectors, strerror(errno));
			ok = 0;
		}
	}
	if (ok && fsync(fd)) {
		snprintf(why, sizeof(why), "fsync: %s", strerror(errno));
		ok = 0;
	}
	for (i = 0; i < ARRAY_SIZE(t) && ok; i++) {
		u64 s = BASE_SECTOR + t[i].sector;
		size_t len = (size_t)t[i].sectors * SECTOR;

		fill(w, len, s, i);
		if (pread_all(fd, r, len, (off_t)s * SECTOR) ||
		    memcmp(w, r, len)) {
			snprintf(why, sizeof(why), "data differs at %u+%u",
				 t[i].sector, t[i].sectors);
			ok = 0;
		}
	}
	close(fd);
	result(ok, "raw_patterns", why);
	free(w);
	free(r);
	return ok ? 0 : -1;
}

/*
 * Writes that the window may hold come from page-cache writeback without
 * WB_SYNC_ALL (O_DIRECT writes are REQ_SYNC and pass straight through).
 * sync_file_range(SYNC_FILE_RANGE_WRITE) starts exactly such writeback and
 * returns without waiting. The whole disk and its partition have separate
 * page caches, so a second write or a read through the partition reaches
 * the driver while the first write may still be held.
 */
#define PART_START	2048	/* sectors; see make_partition() */
#define SCRATCH		(BASE_SECTOR + 40000)

static int start_writeback(const char *dev, off_t off, const void *buf,
			   size_t len)
{
	int fd = open(dev, O_RDWR);

	if (fd < 0)
		return -1;
	if (pwrite_all(fd, buf, len, off) ||
	    sync_file_range(fd, off, len, SYNC_FILE_RANGE_WRITE)) {
		close(fd);
		return -1;
	}
	return fd;	/* kept open: fsync() it when done */
}

static int read_direct(const char *dev, off_t off, void *buf, size_t len)
{
	int fd = open(dev, O_RDONLY | O_DIRECT), ret;

	if (fd < 0)
		return -1;
	ret = pread_all(fd, buf, len, off);
	close(fd);
	return ret;
}

/* ---- the scheduler's contract, one path each ---------------------------- */

/* Milliseconds of CLOCK_MONOTONIC. */
static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* held_now in the scheduler's stats file, or -1 if there is none */
static long stats_held(const char *stats)
{
	char line[128];
	long v = -1;
	FILE *f = NULL;

	if (strcmp(stats, "-"))
		f = fopen(stats, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "held_now %ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

/*
 * Until the scheduler holds @want writes (at most 5 s); on a stack
 * without the scheduler's stats, a fixed 300 ms for writeback to send
 * them. Prints held_before=N.
 */
static void wait_held(const char *stats, long want)
{
	double end = now_ms() + 5000;
	long h = stats_held(stats);

	if (h < 0) {
		usleep(300000);
	} else {
		while (h < want && now_ms() < end) {
			usleep(20000);
			h = stats_held(stats);
		}
	}
	printf("MMCC KV held_before=%ld\n", h);
}

/* Submit @n requests in one io_submit() (one plug) and wait for all. */
static int aio_all(struct iocb *cbs, int n)
{
	struct io_event ev[8];
	struct iocb *p[8];
	aio_context_t ctx = 0;
	int i, got = 0, ok = 1;

	if (n > 8 || syscall(__NR_io_setup, 8, &ctx))
		return -1;
	for (i = 0; i < n; i++)
		p[i] = &cbs[i];
	if (syscall(__NR_io_submit, ctx, (long)n, p) != n)
		ok = 0;
	while (ok && got < n) {
		long r = syscall(__NR_io_getevents, ctx, 1L, (long)(n - got),
				 ev, NULL);

		if (r <= 0) {
			ok = 0;
			break;
		}
		for (i = 0; i < r; i++)
			ok &= ev[i].res == (__s64)((struct iocb *)
				(uintptr_t)ev[i].obj)->aio_nbytes;
		got += (int)r;
	}
	syscall(__NR_io_destroy, ctx);
	return ok ? 0 : -1;
}

static void aio_prep(struct iocb *cb, int fd, int write, void *buf,
		     size_t len, u64 sector)
{
	memset(cb, 0, sizeof(*cb));
	cb->aio_fildes = (u32)fd;
	cb->aio_lio_opcode = write ? IOCB_CMD_PWRITE : IOCB_CMD_PREAD;
	cb->aio_buf = (u64)(uintptr_t)buf;
	cb->aio_nbytes = len;
	cb->aio_offset = (__s64)(sector * SECTOR);
}

/*
 * P = [S, S+4), X = [S, S+8), M = [S+4, S+8), submitted in that order
 * in one plug, so they reach the scheduler together and in that order.
 * An insert merge of M into P, past X, would let X's older data land on
 * [S+4, S+8) last. Expected: X on [S, S+4), M on [S+4, S+8).
 */
static int check_aiooverlap(const char *dev)
{
	u64 s = SCRATCH + 256;
	unsigned char *p = xalloc(ALIGN), *x = xalloc(ALIGN),
		      *m = xalloc(ALIGN), *r = xalloc(ALIGN);
	struct iocb cb[3];
	int fd = open(dev, O_RDWR | O_DIRECT), ok;

	fill(p, 4 * SECTOR, s, 21);
	fill(x, 8 * SECTOR, s, 22);
	fill(m, 4 * SECTOR, s + 4, 23);
	aio_prep(&cb[0], fd, 1, p, 4 * SECTOR, s);
	aio_prep(&cb[1], fd, 1, x, 8 * SECTOR, s);
	aio_prep(&cb[2], fd, 1, m, 4 * SECTOR, s + 4);
	ok = fd >= 0 && !aio_all(cb, 3) &&
	     !pread_all(fd, r, 8 * SECTOR, (off_t)s * SECTOR);
	if (ok) {
		int x_first = !memcmp(r, x, 4 * SECTOR);
		int m_last = !memcmp(r + 4 * SECTOR, m, 4 * SECTOR);

		printf("MMCC KV aio_overlap_head=%s aio_overlap_tail=%s\n",
		       x_first ? "X" : "other", m_last ? "M" : "other");
		result(x_first && m_last, "overlapping_aio_writes_last_wins",
		       "an older write landed after a newer one it overlaps");
	} else {
		result(0, "overlapping_aio_writes_last_wins",
		       "submit, write or read failed");
	}
	if (fd >= 0)
		close(fd);
	free(p);
	free(x);
	free(m);
	free(r);
	return ok ? 0 : -1;
}

/*
 * A held write H at S; then reads R1 = [S-8, S), Rx far away, R2 = [S,
 * S+8) in one plug through the partition (its own page cache: nothing
 * there waits for H). Rx keeps R2 from merging into R1 in the plug, so
 * R2 reaches the scheduler as a request and merges into R1 there.
 */
static int check_readmerge(const char *dev, const char *part,
			   const char *stats)
{
	u64 s = SCRATCH + 512, ps = s - PART_START;
	unsigned char *w = xalloc(ALIGN), *r1 = xalloc(ALIGN),
		      *rx = xalloc(ALIGN), *r2 = xalloc(ALIGN);
	struct iocb cb[3];
	int fd, pfd, ok;

	fill(w, ALIGN, s, 31);
	fd = start_writeback(dev, (off_t)s * SECTOR, w, ALIGN);
	wait_held(stats, 1);
	pfd = open(part, O_RDONLY | O_DIRECT);
	aio_prep(&cb[0], pfd, 0, r1, ALIGN, ps - 8);
	aio_prep(&cb[1], pfd, 0, rx, ALIGN, ps + 200000);
	aio_prep(&cb[2], pfd, 0, r2, ALIGN, ps);
	ok = fd >= 0 && pfd >= 0 && !aio_all(cb, 3);
	ok = ok && !memcmp(w, r2, ALIGN);
	result(ok, "read_merged_into_read_sees_held_write",
	       "a read merged into another read returned the data from before a held write");
	if (pfd >= 0)
		close(pfd);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(w);
	free(r1);
	free(rx);
	free(r2);
	return ok ? 0 : -1;
}

/* The debugfs list NAME ("held", "queued") beside the stats file. */
static FILE *open_list(const char *stats, const char *name)
{
	char path[256];
	const char *slash = strrchr(stats, '/');

	if (!slash)
		return NULL;
	snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - stats), stats,
		 name);
	return fopen(path, "r");
}

/* Is a write starting at @sector on the list "held"? -1: no list. */
static int listed_held(const char *stats, u64 sector)
{
	FILE *f = open_list(stats, "held");
	unsigned long long start;
	char line[160];
	int found = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llu+", &start) == 1 && start == sector)
			found = 1;
	fclose(f);
	return found;
}

/*
 * Held writes at A (AU of S, through DEV) and B (two AUs on, through
 * PART: its own page cache, which nothing below waits for), left by
 * writeback; then A+1 is dirtied and fdatasync()ed: its REQ_SYNC write is
 * a bio that merges into the held write at A. The sync rule lets every
 * held write go with it, B too: B is off the list "held" once fdatasync()
 * returns. Without the rule only the waiter probe would free A's waiter,
 * and nothing would free B until meta_idle_ms.
 */
static int check_fsyncmerge(const char *dev, const char *part,
			    const char *stats, unsigned int limit_ms)
{
	u64 a = SCRATCH + 1024, b = a + 2 * 8192;
	unsigned char *wa = xalloc(ALIGN), *wb = xalloc(ALIGN),
		      *wn = xalloc(ALIGN), *r = xalloc(ALIGN);
	int fd = open(dev, O_RDWR), pfd, ok, b_held = -1;
	char why[96] = "";
	double t0;
	u64 ms = 0;

	fill(wa, ALIGN, a, 41);
	fill(wb, ALIGN, b, 42);
	fill(wn, ALIGN, a + 8, 43);
	pfd = start_writeback(part, (off_t)(b - PART_START) * SECTOR, wb,
			      ALIGN);
	ok = fd >= 0 && pfd >= 0 &&
	     !pwrite_all(fd, wa, ALIGN, (off_t)a * SECTOR) &&
	     !sync_file_range(fd, (off_t)a * SECTOR, ALIGN,
			      SYNC_FILE_RANGE_WRITE);
	if (ok) {
		wait_held(stats, 2);
		ok = !pwrite_all(fd, wn, ALIGN, (off_t)(a + 8) * SECTOR);
		t0 = now_ms();
		ok = ok && !fdatasync(fd);
		ms = (u64)(now_ms() - t0);
		b_held = listed_held(stats, b);
		printf("MMCC KV fsync_merge_ms=%llu fsync_merge_b_held=%d\n",
		       ms, b_held);
	}
	if (pfd >= 0) {
		fsync(pfd);
		close(pfd);
	}
	ok = ok && !read_direct(dev, (off_t)a * SECTOR, r, ALIGN) &&
	     !memcmp(r, wa, ALIGN) &&
	     !read_direct(dev, (off_t)(a + 8) * SECTOR, r, ALIGN) &&
	     !memcmp(r, wn, ALIGN) &&
	     !read_direct(dev, (off_t)b * SECTOR, r, ALIGN) &&
	     !memcmp(r, wb, ALIGN);
	result(ok, "fsync_merged_data_intact", "write, fdatasync or read back failed");
	snprintf(why, sizeof(why), "fdatasync took %llu ms, limit %u ms", ms,
		 limit_ms);
	result(ok && ms <= limit_ms, "fsync_merged_into_held_write_is_prompt",
	       why);
	if (b_held >= 0)
		result(!b_held, "fsync_merged_releases_every_held_write",
		       "the held write in another AU stayed held");
	if (fd >= 0)
		close(fd);
	free(wa);
	free(wb);
	free(wn);
	free(r);
	return ok ? 0 : -1;
}

/*
 * Six held writeback writes, 32 KiB apart: the list "held" has a line for
 * each ("START+SECTORS ... tag=T"), as many lines as held_now says, and
 * each tag is a scheduler tag (not -1) of its own; every line of
 * "queued" has one too. Then fsync and read back.
 */
#define LIST_WRITES	6

static int check_lists(const char *dev, const char *stats)
{
	u64 s = SCRATCH + 6 * 8192;
	unsigned char *w = xalloc(ALIGN), *r = xalloc(ALIGN);
	int fd = open(dev, O_RDWR), tags[64], ntags = 0, bad_tag = 0;
	int seen = 0, lines = 0, i, k, ok = fd >= 0;
	unsigned long long start;
	char line[160], *t;
	long held = -1;
	FILE *f;

	for (k = 0; ok && k < LIST_WRITES; k++) {
		fill(w, ALIGN, s + 64 * k, 61);
		ok = !pwrite_all(fd, w, ALIGN, (off_t)(s + 64 * k) * SECTOR);
	}
	ok = ok && !sync_file_range(fd, (off_t)s * SECTOR,
				    (off_t)LIST_WRITES * 64 * SECTOR,
				    SYNC_FILE_RANGE_WRITE);
	if (ok) {
		wait_held(stats, LIST_WRITES);
		held = stats_held(stats);
		f = open_list(stats, "held");
		while (f && fgets(line, sizeof(line), f)) {
			lines++;
			if (sscanf(line, "%llu+", &start) == 1 &&
			    start >= s && start < s + 64 * LIST_WRITES &&
			    (start - s) % 64 == 0)
				seen++;
			t = strstr(line, "tag=");
			k = t ? atoi(t + 4) : -1;
			for (i = 0; i < ntags; i++)
				bad_tag |= tags[i] == k;
			bad_tag |= k < 0;
			if (ntags < 64)
				tags[ntags++] = k;
		}
		if (f)
			fclose(f);
		f = open_list(stats, "queued");
		while (f && fgets(line, sizeof(line), f)) {
			t = strstr(line, "tag=");
			bad_tag |= !t || atoi(t + 4) < 0;
		}
		if (f)
			fclose(f);
		printf("MMCC KV list_held_lines=%d list_held_seen=%d held_now=%ld\n",
		       lines, seen, held);
	}
	result(ok && seen == LIST_WRITES && lines == held,
	       "debugfs_held_list_matches_held_count",
	       "the list \"held\" does not show what held_now counts");
	result(ok && lines && !bad_tag, "debugfs_lists_show_scheduler_tags",
	       "a listed write has no tag, or shares one");
	ok = ok && !fsync(fd);
	for (k = 0; ok && k < LIST_WRITES; k++) {
		fill(w, ALIGN, s + 64 * k, 61);
		ok = !read_direct(dev, (off_t)(s + 64 * k) * SECTOR, r, ALIGN) &&
		     !memcmp(r, w, ALIGN);
	}
	result(ok, "listed_writes_data_intact", "fsync or read back failed");
	if (fd >= 0)
		close(fd);
	free(w);
	free(r);
	return ok ? 0 : -1;
}

/*
 * On a device that completes each command after a second and emulates
 * FUA by a write and a flush (null_blk completion_nsec, fua=0), one
 * command at a time: X far away keeps it busy; then, one io_submit()
 * after the other, all to the same 64 KiB, O (O_DIRECT), F (RWF_DSYNC:
 * REQ_FUA, sent as a write with a flush after it) and N (O_DIRECT). N
 * came last: its data must be what reads back. (A data step at the head
 * of the scheduler, 6.5+, needs a write with REQ_PREFLUSH, which no user
 * interface to a block device sends: the test module in flushrace/ does.)
 */
static int check_fuarace(const char *dev)
{
	static const u32 seeds[4] = { 70, 71, 72, 73 };
	u64 s = 2048, at[4] = { 2048 + 8 * 8192, 2048, 2048, 2048 };
	unsigned char *w[4], *r = xalloc(65536);
	int fd = open(dev, O_RDWR | O_DIRECT), i, ok = fd >= 0;
	struct iocb cb[4], *p;
	struct io_event ev[4];
	aio_context_t ctx = 0;
	long got = 0;

	ok = ok && !syscall(__NR_io_setup, 4, &ctx);
	for (i = 0; i < 4; i++) {
		w[i] = xalloc(65536);
		fill(w[i], 65536, at[i], seeds[i]);
		aio_prep(&cb[i], fd, 1, w[i], 65536, at[i]);
		if (i == 2)
			cb[i].aio_rw_flags = RWF_DSYNC;
		p = &cb[i];
		ok = ok && syscall(__NR_io_submit, ctx, 1L, &p) == 1;
		usleep(100000);
	}
	while (ok && got < 4) {
		long n = syscall(__NR_io_getevents, ctx, 1L, 4L - got, ev, NULL);

		ok = n > 0;
		for (i = 0; ok && i < n; i++)
			ok = ev[i].res == 65536;
		got += n > 0 ? n : 0;
	}
	if (ctx)
		syscall(__NR_io_destroy, ctx);
	ok = ok && !pread_all(fd, r, 65536, (off_t)s * SECTOR);
	printf("MMCC KV fua_race_last=%s\n", !ok ? "error" :
	       !memcmp(r, w[3], 65536) ? "newest" : "older");
	result(ok && !memcmp(r, w[3], 65536),
	       "fua_write_then_newer_write_last_wins",
	       "an emulated FUA write overwrote a newer write");
	for (i = 0; i < 4; i++)
		free(w[i]);
	free(r);
	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

/*
 * A held write, then fdatasync() with nothing dirty: it only waits for
 * the page under writeback, and sends nothing that would tell the
 * scheduler. Only the scheduler noticing the sleeper frees it.
 */
static int check_waitheld(const char *dev, const char *stats,
			  unsigned int limit_ms)
{
	u64 s = SCRATCH + 4 * 8192;
	unsigned char *w = xalloc(ALIGN), *r = xalloc(ALIGN);
	char why[96] = "";
	double t0;
	u64 ms = 0;
	int fd, ok;

	fill(w, ALIGN, s, 51);
	fd = start_writeback(dev, (off_t)s * SECTOR, w, ALIGN);
	ok = fd >= 0;
	if (ok) {
		wait_held(stats, 1);
		t0 = now_ms();
		ok = !fdatasync(fd);
		ms = (u64)(now_ms() - t0);
		printf("MMCC KV wait_held_ms=%llu\n", ms);
		close(fd);
	}
	ok = ok && !read_direct(dev, (off_t)s * SECTOR, r, ALIGN) &&
	     !memcmp(r, w, ALIGN);
	result(ok, "wait_on_held_write_data_intact", "write, fdatasync or read back failed");
	snprintf(why, sizeof(why), "fdatasync slept %llu ms, limit %u ms", ms,
		 limit_ms);
	result(ok && ms <= limit_ms, "sleeper_on_held_write_freed", why);
	free(w);
	free(r);
	return ok ? 0 : -1;
}

/*
 * scatter: COUNT 4 KiB pieces at SECTOR + 16 * k, written through the page
 * cache (last first) and left there; scattercheck reads them back.
 */
#define SCATTER_PIECE	4096
#define SCATTER_STRIDE	16	/* sectors: a 4 KiB gap after each piece */

static int scatter(const char *dev, u64 sector, unsigned int count,
		   unsigned int seed)
{
	unsigned char *w = xalloc(SCATTER_PIECE);
	char why[96] = "";
	unsigned int k;
	int fd = open(dev, O_RDWR), ok = fd >= 0;

	for (k = count; ok && k-- > 0;) {
		u64 s = sector + (u64)k * SCATTER_STRIDE;

		fill(w, SCATTER_PIECE, s, seed);
		if (pwrite_all(fd, w, SCATTER_PIECE, (off_t)s * SECTOR)) {
			snprintf(why, sizeof(why), "write at %llu: %s", s,
				 strerror(errno));
			ok = 0;
		}
	}
	if (fd < 0)
		snprintf(why, sizeof(why), "open: %s", strerror(errno));
	else
		close(fd);	/* no fsync: writeback's job */
	if (!ok)
		result(0, "scatter_write", why);
	free(w);
	return ok ? 0 : -1;
}

static int scattercheck(const char *dev, u64 sector, unsigned int count,
			unsigned int seed, const char *name)
{
	unsigned char *w = xalloc(SCATTER_PIECE), *r = xalloc(SCATTER_PIECE);
	unsigned int k, bad = 0;
	char why[128] = "";
	int fd = open(dev, O_RDONLY | O_DIRECT);

	if (fd < 0) {
		result(0, name, "open failed");
		return -1;
	}
	for (k = 0; k < count; k++) {
		u64 s = sector + (u64)k * SCATTER_STRIDE;

		fill(w, SCATTER_PIECE, s, seed);
		if (!pread_all(fd, r, SCATTER_PIECE, (off_t)s * SECTOR) &&
		    !memcmp(w, r, SCATTER_PIECE))
			continue;
		if (!bad++)
			snprintf(why, sizeof(why), "piece %u (sector %llu)", k,
				 s);
	}
	close(fd);
	if (bad) {
		char all[192];

		snprintf(all, sizeof(all), "%u of %u pieces differ, first %s",
			 bad, count, why);
		result(0, name, all);
	} else {
		result(1, name, "");
	}
	free(w);
	free(r);
	return bad ? -1 : 0;
}

/* One primary partition from PART_START to the end, then re-read. */
static int make_partition(const char *dev)
{
	unsigned char mbr[SECTOR] = { 0 };
	unsigned long long sectors;
	u32 start = PART_START, len;
	int fd = open(dev, O_RDWR | O_SYNC), ok;

	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &sectors)) {
		result(0, "partition_table", "open or BLKGETSIZE64 failed");
		return -1;
	}
	sectors /= SECTOR;
	len = (u32)(sectors - start);
	mbr[446 + 4] = 0x83;			/* Linux */
	memcpy(&mbr[446 + 8], &start, 4);	/* little-endian on disk */
	memcpy(&mbr[446 + 12], &len, 4);
	if (*(const unsigned char *)&(uint16_t){ 1 } == 0) {
		/* big-endian CPU: store the two fields byte-swapped */
		u32 v[2] = { __builtin_bswap32(start),
				  __builtin_bswap32(len) };

		memcpy(&mbr[446 + 8], v, 8);
	}
	mbr[510] = 0x55;
	mbr[511] = 0xaa;
	ok = !pwrite_all(fd, mbr, SECTOR, 0) && !fsync(fd) &&
	     !ioctl(fd, BLKRRPART, 0);
	close(fd);
	result(ok, "partition_table", strerror(errno));
	return ok ? 0 : -1;
}

static int check_readafter(const char *dev, const char *part)
{
	unsigned char *w = xalloc(ALIGN), *r = xalloc(ALIGN);
	off_t off = (off_t)SCRATCH * SECTOR;
	int fd, ok;

	fill(w, ALIGN, SCRATCH, 77);
	fd = start_writeback(dev, off, w, ALIGN);
	ok = fd >= 0 &&
	     !read_direct(part, off - (off_t)PART_START * SECTOR, r, ALIGN) &&
	     !memcmp(w, r, ALIGN);
	if (fd >= 0) {
		ok &= !fsync(fd);
		close(fd);
	}
	result(ok, "read_after_pending_write", "the read did not see the write");
	free(w);
	free(r);
	return ok ? 0 : -1;
}

static int check_overlap(const char *dev, const char *part)
{
	unsigned char *a = xalloc(ALIGN), *b = xalloc(ALIGN), *r = xalloc(ALIGN);
	off_t off = (off_t)(SCRATCH + 64) * SECTOR;
	int fa, fb, ok;

	fill(a, ALIGN, SCRATCH + 64, 1);
	fill(b, ALIGN, SCRATCH + 64, 2);
	fa = start_writeback(dev, off, a, ALIGN);
	fb = start_writeback(part, off - (off_t)PART_START * SECTOR, b, ALIGN);
	ok = fa >= 0 && fb >= 0;
	if (fa >= 0) {
		ok &= !fsync(fa);
		close(fa);
	}
	if (fb >= 0) {
		ok &= !fsync(fb);
		close(fb);
	}
	ok = ok && !read_direct(dev, off, r, ALIGN) && !memcmp(b, r, ALIGN);
	result(ok, "overlapping_writes_in_order", "the later write did not win");
	free(a);
	free(b);
	free(r);
	return ok ? 0 : -1;
}

/*
 * A pending write, then a flush through the partition (nothing dirty
 * there). How long the flush took goes out as flush_us: a flush owes
 * nothing to a write that has not completed, so it need not wait for one
 * that a scheduler holds.
 */
static int check_flush(const char *dev, const char *part)
{
	unsigned char *w = xalloc(ALIGN), *r = xalloc(ALIGN);
	off_t off = (off_t)(SCRATCH + 128) * SECTOR;
	struct timespec t0, t1;
	int fd, pfd, ok;

	fill(w, ALIGN, SCRATCH + 128, 5);
	fd = start_writeback(dev, off, w, ALIGN);
	pfd = open(part, O_RDWR);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ok = fd >= 0 && pfd >= 0 && !fdatasync(pfd);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("MMCC KV flush_us=%lld\n",
	       (long long)(t1.tv_sec - t0.tv_sec) * 1000000 +
	       (t1.tv_nsec - t0.tv_nsec) / 1000);
	if (pfd >= 0)
		close(pfd);
	if (fd >= 0) {
		ok &= !fsync(fd);
		close(fd);
	}
	ok = ok && !read_direct(dev, off, r, ALIGN) && !memcmp(w, r, ALIGN);
	result(ok, "flush_with_pending_write", "write or flush failed");
	free(w);
	free(r);
	return ok ? 0 : -1;
}

static int ioc(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) ? -errno : 0;
}

static int check_ioctl(const char *dev, unsigned int rca)
{
	struct {
		struct mmc_ioc_multi_cmd m;
		struct mmc_ioc_cmd c[2];
	} multi;
	struct mmc_ioc_cmd c;
	unsigned char *buf = xalloc(ALIGN);
	char why[96] = "";
	int fd, err, ok;

	fd = open(dev, O_RDWR);
	if (fd < 0) {
		result(0, "ioctl_cmd13", "open failed");
		return -1;
	}
	/* CMD13 SEND_STATUS to our card: R1, state TRAN (4) in bits 12:9. */
	memset(&c, 0, sizeof(c));
	c.opcode = 13;
	c.arg = rca << 16;
	c.flags = (1 << 0) | (1 << 2) | (1 << 4) | (0 << 5); /* R1, AC */
	err = ioc(fd, MMC_IOC_CMD, &c);
	ok = !err && ((c.response[0] >> 9) & 0xf) == 4;
	snprintf(why, sizeof(why), "err %d, response 0x%08x", err,
		 c.response[0]);
	result(ok, "ioctl_cmd13", why);

	memset(&multi, 0, sizeof(multi));
	multi.m.num_of_cmds = 2;
	multi.c[0] = c;
	multi.c[1] = c;
	multi.c[0].response[0] = 0;
	multi.c[1].response[0] = 0;
	err = ioc(fd, MMC_IOC_MULTI_CMD, &multi);
	ok = !err && ((multi.c[1].response[0] >> 9) & 0xf) == 4;
	snprintf(why, sizeof(why), "err %d", err);
	result(ok, "ioctl_multi_cmd13", why);

	/*
	 * Bad arguments: refused with the right error, nothing sent.
	 * (mmc_block takes blksz 0 with blocks > 0 as "no data".)
	 */
	c.data_ptr = (u64)(uintptr_t)buf;
	c.blksz = 512;
	c.blocks = 0x7fffffff;
	err = ioc(fd, MMC_IOC_CMD, &c);
	snprintf(why, sizeof(why), "got %d", err);
	result(err == -EINVAL || err == -EOVERFLOW,
	       "ioctl_rejects_huge_count", why);

	c.blocks = 1;
	c.write_flag = 1;
	c.data_ptr = 16;	/* not a valid user address */
	err = ioc(fd, MMC_IOC_CMD, &c);
	snprintf(why, sizeof(why), "got %d", err);
	result(err == -EFAULT, "ioctl_rejects_bad_pointer", why);

	memset(&multi, 0, sizeof(multi));
	multi.m.num_of_cmds = 100000;
	err = ioc(fd, MMC_IOC_MULTI_CMD, &multi);
	snprintf(why, sizeof(why), "got %d", err);
	result(err == -EINVAL, "ioctl_rejects_too_many_cmds", why);

	close(fd);
	free(buf);
	return 0;
}

/*
 * badioctl: bad inputs to mmc_block's passthrough (drivers/mmc/core/block.c
 * of the kernel), each with the error it returns. Commands that it refuses
 * are never sent; where it only finds the fault after the command ran (a
 * read whose buffer cannot take the data), the command is a harmless
 * single-block read of the scratch area. Refused writes target the scratch
 * area too, which is checked to be unchanged at the end. Inputs that
 * mmc_block sends to the card as they are (block sizes past the host's,
 * a write on a read-only descriptor, long post-sleeps) are not in the
 * table: they are not refused, and would write to the card.
 */
#define R1_AC		((1 << 0) | (1 << 2) | (1 << 4))	/* R1, AC */
#define R1_ADTC		(R1_AC | (1 << 5))			/* R1, ADTC */
#define BAD_SCRATCH	(BASE_SECTOR + 48000)	/* 64 KiB, sector address */
#define BAD_SCRATCH_LEN	(64 * 1024)

enum bad_kind {
	BK_CMD,		/* MMC_IOC_CMD with the row's command */
	BK_CMD_AT,	/* MMC_IOC_CMD, the struct itself at ptr */
	BK_CMD_EDGE,	/* MMC_IOC_CMD, struct runs into an unmapped page */
	BK_CMD_RO,	/* MMC_IOC_CMD, struct in a read-only page */
	BK_MULTI_AT,	/* MMC_IOC_MULTI_CMD, the struct itself at ptr */
	BK_MULTI_N,	/* MMC_IOC_MULTI_CMD, num_of_cmds = n, no cmds */
	BK_MULTI_2ND,	/* MMC_IOC_MULTI_CMD: CMD13, then the row's command */
	BK_MULTI_EDGE,	/* MMC_IOC_MULTI_CMD, cmds[1] in an unmapped page */
	BK_NR,		/* ioctl number n, argument a valid CMD13 */
	BK_PART,	/* valid CMD13 through the partition */
	BK_PART_MULTI,	/* valid multi CMD13 through the partition */
};

enum bad_tmpl {
	BT_STATUS,	/* CMD13 SEND_STATUS, no data */
	BT_READ,	/* CMD17/CMD18 from the scratch area */
	BT_WRITE,	/* CMD24/CMD25 to the scratch area */
};

/* ptr: 0 is NULL, small codes name test buffers, anything else is used. */
#define P_BUF		1	/* a page, followed by an inaccessible page */
#define P_TAIL		2	/* 256 bytes before that inaccessible page */
#define P_RO		3	/* a read-only page */
#define P_KERNEL	4	/* kernel address: direct map, or 0xc0000000 */
#define P_HIGH		0xffffffffffff0000ULL

struct bad_ioc {
	const char *name;
	unsigned char kind, tmpl;
	u32 blksz, blocks;
	u64 ptr;	/* data_ptr, or the ioctl argument for _AT kinds */
	u64 n;		/* num_of_cmds, or the ioctl number for BK_NR */
	int err;	/* what mmc_block returns */
};

static const struct bad_ioc bad_table[] = {
	/*
	 * Data size. mmc_block takes blksz 0 or blocks 0 as "no data"
	 * (a CMD13 then runs and answers): accepted, harmless.
	 */
	{ "zero_blksz", BK_CMD, BT_STATUS, 0, 4, P_BUF, 0, 0 },
	{ "zero_blocks", BK_CMD, BT_STATUS, 512, 0, P_BUF, 0, 0 },
	{ "blksz_2g", BK_CMD, BT_READ, 0x80000000u, 1, P_BUF, 0, -EOVERFLOW },
	/* blksz * blocks is 4 GiB + 512 and 4 GiB: 512 and 0 in 32 bits */
	{ "len_wraps_32bit", BK_CMD, BT_READ, 512, 0x800001, P_BUF, 0,
	  -EOVERFLOW },
	{ "len_wraps_to_zero", BK_CMD, BT_READ, 0x10000, 0x10000, P_BUF, 0,
	  -EOVERFLOW },
	/* SDHCI: max_blk_count 65535 */
	{ "blocks_over_host", BK_CMD, BT_READ, 512, 65536, P_BUF, 0,
	  -EOVERFLOW },
	{ "blocks_u32_max", BK_CMD, BT_READ, 512, 0xffffffffu, P_BUF, 0,
	  -EOVERFLOW },
	/* within the host's limits, past the 512 KiB per command */
	{ "len_over_512k", BK_CMD, BT_READ, 512, 1025, P_BUF, 0, -EOVERFLOW },
	{ "write_len_over_512k", BK_CMD, BT_WRITE, 512, 1025, P_BUF, 0,
	  -EOVERFLOW },
	/* data_ptr: reads fail when the data is copied out */
	{ "read_ptr_16", BK_CMD, BT_READ, 512, 1, 16, 0, -EFAULT },
	{ "read_ptr_high", BK_CMD, BT_READ, 512, 1, P_HIGH, 0, -EFAULT },
	{ "read_ptr_kernel", BK_CMD, BT_READ, 512, 1, P_KERNEL, 0, -EFAULT },
	{ "read_ptr_straddles", BK_CMD, BT_READ, 512, 1, P_TAIL, 0, -EFAULT },
	{ "read_ptr_readonly", BK_CMD, BT_READ, 512, 1, P_RO, 0, -EFAULT },
	/* data_ptr: writes fail before anything is sent */
	{ "write_ptr_16", BK_CMD, BT_WRITE, 512, 1, 16, 0, -EFAULT },
	{ "write_ptr_high", BK_CMD, BT_WRITE, 512, 1, P_HIGH, 0, -EFAULT },
	{ "write_ptr_kernel", BK_CMD, BT_WRITE, 512, 1, P_KERNEL, 0, -EFAULT },
	{ "write_ptr_straddles", BK_CMD, BT_WRITE, 512, 1, P_TAIL, 0,
	  -EFAULT },
	/* the struct mmc_ioc_cmd pointer itself */
	{ "cmd_struct_null", BK_CMD_AT, BT_STATUS, 0, 0, 0, 0, -EFAULT },
	{ "cmd_struct_16", BK_CMD_AT, BT_STATUS, 0, 0, 16, 0, -EFAULT },
	{ "cmd_struct_kernel", BK_CMD_AT, BT_STATUS, 0, 0, P_KERNEL, 0,
	  -EFAULT },
	{ "cmd_struct_straddles", BK_CMD_EDGE, BT_STATUS, 0, 0, 0, 0,
	  -EFAULT },
	/* CMD13 runs; its response cannot be stored */
	{ "cmd_struct_readonly", BK_CMD_RO, BT_STATUS, 0, 0, 0, 0, -EFAULT },
	/* struct mmc_ioc_multi_cmd */
	{ "multi_struct_16", BK_MULTI_AT, BT_STATUS, 0, 0, 16, 0, -EFAULT },
	{ "multi_struct_kernel", BK_MULTI_AT, BT_STATUS, 0, 0, P_KERNEL, 0,
	  -EFAULT },
	/* mmc_block: zero commands is an empty batch, accepted */
	{ "multi_zero_cmds", BK_MULTI_N, BT_STATUS, 0, 0, 0, 0, 0 },
	{ "multi_256_cmds", BK_MULTI_N, BT_STATUS, 0, 0, 0,
	  MMC_IOC_MAX_CMDS + 1, -EINVAL },
	{ "multi_100000_cmds", BK_MULTI_N, BT_STATUS, 0, 0, 0, 100000,
	  -EINVAL },
	/* 2^32 + 1: one command, if truncated to 32 bits */
	{ "multi_count_high_bits", BK_MULTI_N, BT_STATUS, 0, 0, 0,
	  0x100000001ULL, -EINVAL },
	{ "multi_cmds_past_mapping", BK_MULTI_EDGE, BT_STATUS, 0, 0, 0, 0,
	  -EFAULT },
	/*
	 * A bad second command: refused while the batch is copied in,
	 * before anything is sent (a second "no data" CMD13 is accepted).
	 */
	{ "multi_second_zero_blksz", BK_MULTI_2ND, BT_STATUS, 0, 1, P_BUF, 0,
	  0 },
	{ "multi_second_blocks_over_host", BK_MULTI_2ND, BT_READ, 512, 65536,
	  P_BUF, 0, -EOVERFLOW },
	{ "multi_second_len_over_512k", BK_MULTI_2ND, BT_WRITE, 512, 1025,
	  P_BUF, 0, -EOVERFLOW },
	{ "multi_second_write_ptr_16", BK_MULTI_2ND, BT_WRITE, 512, 1, 16, 0,
	  -EFAULT },
	/* ioctl numbers that are not mmc_block's: refused */
	{ "unknown_nr", BK_NR, BT_STATUS, 0, 0, 0,
	  _IOWR(MMC_BLOCK_MAJOR, 2, struct mmc_ioc_cmd), -EINVAL },
	{ "wrong_size_nr", BK_NR, BT_STATUS, 0, 0, 0,
	  _IOWR(MMC_BLOCK_MAJOR, 0, u64), -EINVAL },
	{ "wrong_dir_nr", BK_NR, BT_STATUS, 0, 0, 0,
	  _IOR(MMC_BLOCK_MAJOR, 0, struct mmc_ioc_cmd), -EINVAL },
	/* raw commands reach the whole card: never through a partition */
	{ "partition_cmd", BK_PART, BT_STATUS, 0, 0, 0, 0, -EPERM },
	{ "partition_multi_cmd", BK_PART_MULTI, BT_STATUS, 0, 0, 0, 0, -EPERM },
};

struct bad_ctx {
	int fd, pfd;
	unsigned int rca;
	size_t page;
	unsigned char *rw;	/* page, then an inaccessible page */
	unsigned char *ro;	/* read-only page */
};

static u64 bad_ptr(const struct bad_ctx *x, u64 p)
{
	switch (p) {
	case P_BUF:
		return (uintptr_t)x->rw;
	case P_TAIL:
		return (uintptr_t)(x->rw + x->page - 256);
	case P_RO:
		return (uintptr_t)x->ro;
	case P_KERNEL:
		/* x86_64 direct map; ppc32 PAGE_OFFSET */
		return sizeof(void *) == 8 ? 0xffff888000000000ULL : 0xc0000000;
	default:
		return p;
	}
}

/* CMD13 SEND_STATUS to our card: R1, state TRAN (4) in bits 12:9. */
static void status_cmd(struct mmc_ioc_cmd *c, unsigned int rca)
{
	memset(c, 0, sizeof(*c));
	c->opcode = 13;
	c->arg = rca << 16;
	c->flags = R1_AC;
}

static void bad_cmd(const struct bad_ctx *x, const struct bad_ioc *t,
		    struct mmc_ioc_cmd *c)
{
	status_cmd(c, x->rca);
	c->blksz = t->blksz;
	c->blocks = t->blocks;
	c->data_ptr = bad_ptr(x, t->ptr);
	switch (t->tmpl) {
	case BT_STATUS:
		break;
	case BT_READ:
	case BT_WRITE:
		c->write_flag = t->tmpl == BT_WRITE;
		c->opcode = t->blocks > 1 ? 18 : 17;
		if (c->write_flag)
			c->opcode = t->blocks > 1 ? 25 : 24;
		/* SDHC: sector address (every card here is 4 GiB) */
		c->arg = (u32)BAD_SCRATCH;
		c->flags = R1_ADTC;
		break;
	}
}

/* n bytes at the end of a mapping whose next page is unmapped */
static void *edge_map(const struct bad_ctx *x, size_t n)
{
	unsigned char *p = mmap(NULL, 2 * x->page, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	munmap(p + x->page, x->page);
	return p + x->page - n;
}

static int bad_run(const struct bad_ctx *x, const struct bad_ioc *t)
{
	struct {
		struct mmc_ioc_multi_cmd m;
		struct mmc_ioc_cmd c[2];
	} multi;
	struct mmc_ioc_multi_cmd *em;
	struct mmc_ioc_cmd c, *ec;
	size_t off;
	int err;

	bad_cmd(x, t, &c);
	memset(&multi, 0, sizeof(multi));
	switch (t->kind) {
	case BK_CMD:
		return ioc(x->fd, MMC_IOC_CMD, &c);
	case BK_CMD_AT:
		return ioc(x->fd, MMC_IOC_CMD,
			   (void *)(uintptr_t)bad_ptr(x, t->ptr));
	case BK_MULTI_AT:
		return ioc(x->fd, MMC_IOC_MULTI_CMD,
			   (void *)(uintptr_t)bad_ptr(x, t->ptr));
	case BK_CMD_EDGE:
		/* data_ptr and everything after it unmapped */
		off = offsetof(struct mmc_ioc_cmd, data_ptr);
		ec = edge_map(x, off);
		if (!ec)
			return 1;
		memcpy(ec, &c, off);
		err = ioc(x->fd, MMC_IOC_CMD, ec);
		munmap((unsigned char *)ec + off - x->page, x->page);
		return err;
	case BK_CMD_RO:
		ec = edge_map(x, x->page);
		if (!ec)
			return 1;
		*ec = c;
		mprotect(ec, x->page, PROT_READ);
		err = ioc(x->fd, MMC_IOC_CMD, ec);
		munmap(ec, x->page);
		return err;
	case BK_MULTI_N:
		multi.m.num_of_cmds = t->n;
		return ioc(x->fd, MMC_IOC_MULTI_CMD, &multi);
	case BK_MULTI_2ND:
		multi.m.num_of_cmds = 2;
		status_cmd(&multi.c[0], x->rca);
		multi.c[1] = c;
		return ioc(x->fd, MMC_IOC_MULTI_CMD, &multi);
	case BK_MULTI_EDGE:
		/* cmds[0] is the last thing in the page, cmds[1] is not mapped */
		off = offsetof(struct mmc_ioc_multi_cmd, cmds) + sizeof(c);
		em = edge_map(x, off);
		if (!em)
			return 1;
		em->num_of_cmds = 2;
		em->cmds[0] = c;
		err = ioc(x->fd, MMC_IOC_MULTI_CMD, em);
		munmap((unsigned char *)em + off - x->page, x->page);
		return err;
	case BK_NR:
		return ioc(x->fd, (unsigned long)t->n, &c);
	case BK_PART:
		return ioc(x->pfd, MMC_IOC_CMD, &c);
	case BK_PART_MULTI:
		multi.m.num_of_cmds = 1;
		multi.c[0] = c;
		return ioc(x->pfd, MMC_IOC_MULTI_CMD, &multi);
	}
	return 1;
}

static int cmd13_tran(int fd, unsigned int rca, char *why, size_t len)
{
	struct mmc_ioc_cmd c;
	int err;

	status_cmd(&c, rca);
	err = ioc(fd, MMC_IOC_CMD, &c);
	snprintf(why, len, "err %d, response 0x%08x", err, c.response[0]);
	return !err && ((c.response[0] >> 9) & 0xf) == 4;
}

/* The partition node: PART if given, else DEVp1 (DEV1 after a letter). */
static int open_part(const char *dev, const char *part)
{
	char name[256];
	size_t n = strlen(dev);

	if (!part) {
		snprintf(name, sizeof(name), "%s%s1", dev,
			 n && dev[n - 1] >= '0' && dev[n - 1] <= '9' ? "p" : "");
		part = name;
	}
	return open(part, O_RDWR);
}

static int check_badioctl(const char *dev, unsigned int rca, const char *part)
{
	const off_t soff = (off_t)BAD_SCRATCH * SECTOR;
	unsigned char *w = xalloc(BAD_SCRATCH_LEN);
	unsigned char *r = xalloc(BAD_SCRATCH_LEN);
	struct bad_ctx x = { .rca = rca };
	char name[80], why[128];
	unsigned int i;
	int err, want, ok;

	x.page = (size_t)sysconf(_SC_PAGESIZE);
	x.rw = mmap(NULL, 2 * x.page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	x.ro = mmap(NULL, x.page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	x.fd = open(dev, O_RDWR);
	if (x.rw == MAP_FAILED || x.ro == MAP_FAILED || x.fd < 0 ||
	    mprotect(x.rw + x.page, x.page, PROT_NONE)) {
		result(0, "ioctl_bad_setup", strerror(errno));
		return -1;
	}
	memset(x.rw, 0x5a, x.page);
	x.pfd = open_part(dev, part);
	if (x.pfd < 0)
		fprintf(stderr, "blkcheck: no partition node, %s\n",
			"skipping the partition rows");

	/* Marker in the scratch area that refused writes aim at. */
	fill(w, BAD_SCRATCH_LEN, BAD_SCRATCH, 91);
	err = open(dev, O_RDWR | O_DIRECT);
	ok = err >= 0 && !pwrite_all(err, w, BAD_SCRATCH_LEN, soff) &&
	     !fsync(err);
	if (err >= 0)
		close(err);
	result(ok, "ioctl_bad_scratch_marker", strerror(errno));

	ok = cmd13_tran(x.fd, rca, why, sizeof(why));
	result(ok, "ioctl_bad_precheck_cmd13", why);

	for (i = 0; i < ARRAY_SIZE(bad_table); i++) {
		const struct bad_ioc *t = &bad_table[i];

		want = t->err;
		if (x.pfd < 0 &&
		    (t->kind == BK_PART || t->kind == BK_PART_MULTI))
			continue;
		err = bad_run(&x, t);
		snprintf(name, sizeof(name), "ioctl_bad_%s", t->name);
		snprintf(why, sizeof(why), "got %d (%s), want %d", err,
			 err > 0 ? "test setup failed" :
			 err ? strerror(-err) : "accepted", want);
		result(err == want, name, why);
	}

	/* No bad input wedged the card or wrote anything. */
	ok = cmd13_tran(x.fd, rca, why, sizeof(why));
	result(ok, "ioctl_bad_card_still_answers", why);
	ok = !read_direct(dev, soff, r, BAD_SCRATCH_LEN) &&
	     !memcmp(w, r, BAD_SCRATCH_LEN);
	result(ok, "ioctl_bad_nothing_written", "scratch area changed");

	if (x.pfd >= 0)
		close(x.pfd);
	close(x.fd);
	munmap(x.rw, 2 * x.page);
	munmap(x.ro, x.page);
	free(w);
	free(r);
	return 0;
}

/*
 * stress and verify: a data-integrity load that survives I/O errors, for
 * runs with fault injection (fail_mmc_request): a failed write may or may
 * not have reached the card, an acknowledged one must stay.
 *
 * Every sector written is self-describing, little-endian on every CPU:
 *   0 magic, 4 FNV-1a of bytes 8..511, 8 sector (u64), 16 generation,
 *   20 seed, 24 run id, 28 zero, 32..511 filler from (sector, gen, run).
 * The generation counts write calls; the run id tells this run's sectors
 * from an earlier run's. The model keeps, per sector, the generation of
 * the last acknowledged write and the range of generations of writes that
 * failed since: a read must find one of those. A sector never acknowledged
 * may hold anything but an unexplained sector of this run.
 */
#define ST_MAGIC	0x31636b62u	/* "bkc1" */
#define ST_SUM		4
#define ST_SECTOR	8
#define ST_GEN		16
#define ST_SEED		20
#define ST_RUN		24
#define ST_HDR		32
#define ST_MAX		2048		/* sectors per read or write: 1 MiB */
#define ST_REPORT	10		/* bad sectors and errors printed */
#define ST_FILE_MAGIC	"BLKCHKS1"
#define ST_FILE_HDR	40
#define FNV_INIT	2166136261u

/* Region: BLKCHECK_SECTORS sectors from BASE_SECTOR, 64 MiB by default. */
static unsigned long long region_sectors = 64 * 1024 * 2;

struct st_sector {
	u32 acked;	/* generation of the last acknowledged write, 0 none */
	u32 fmin, fmax;	/* generations of failed writes since, 0 none */
};

struct stress {
	int dfd, bfd;		/* O_DIRECT, buffered */
	u64 base, nsec;
	u32 seed, run, gen;
	u64 rng;
	struct st_sector *m;
	unsigned char *buf;
	u64 writes, write_errors, reads, read_errors, fsync_errors, bytes;
	u64 bad, landed, errors_shown;
	char first_bad[160];
	char fatal[160];
};

enum { CK_OK, CK_LANDED, CK_BAD };

static void put_le(unsigned char *p, u64 v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static u64 get_le(const unsigned char *p, int n)
{
	u64 v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

static u32 fnv1a(u32 h, const unsigned char *p, size_t len)
{
	while (len--)
		h = (h ^ *p++) * 16777619u;
	return h;
}

static u64 splitmix64(u64 x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static u64 xorshift64(u64 *s)
{
	u64 x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

static void st_sector(const struct stress *st, unsigned char *p, u64 sector,
		      u32 gen)
{
	u64 r = splitmix64(sector ^ (u64)gen << 40 ^ (u64)st->run << 8) | 1;
	int i;

	memset(p, 0, ST_HDR);
	put_le(p, ST_MAGIC, 4);
	put_le(p + ST_SECTOR, sector, 8);
	put_le(p + ST_GEN, gen, 4);
	put_le(p + ST_SEED, st->seed, 4);
	put_le(p + ST_RUN, st->run, 4);
	for (i = ST_HDR; i < SECTOR; i += 8)
		put_le(p + i, xorshift64(&r), 8);
	put_le(p + ST_SUM, fnv1a(FNV_INIT, p + 8, SECTOR - 8), 4);
}

static int st_check(const struct stress *st, u64 idx, const unsigned char *p,
		    char *why, size_t len)
{
	const struct st_sector *m = &st->m[idx];
	unsigned long long sector = st->base + idx, hs;
	unsigned char want[SECTOR];
	u32 gen;

	if (get_le(p, 4) != ST_MAGIC || get_le(p + ST_RUN, 4) != st->run) {
		if (!m->acked)
			return CK_OK;	/* never acknowledged: anything */
		snprintf(why, len, "sector %llu: %s, want gen %u", sector,
			 get_le(p, 4) != ST_MAGIC ? "not a blkcheck sector" :
			 "stale, from another run", m->acked);
		return CK_BAD;
	}
	hs = get_le(p + ST_SECTOR, 8);
	gen = (u32)get_le(p + ST_GEN, 4);
	st_sector(st, want, hs, gen);
	if (memcmp(p, want, SECTOR)) {
		snprintf(why, len, "sector %llu: %s (gen %u)", sector,
			 get_le(p + ST_SUM, 4) !=
			 fnv1a(FNV_INIT, p + 8, SECTOR - 8) ?
			 "bad checksum" : "content differs", gen);
		return CK_BAD;
	}
	if (hs != sector) {
		snprintf(why, len, "sector %llu: holds sector %llu gen %u",
			 sector, hs, gen);
		return CK_BAD;
	}
	if (gen == m->acked)
		return CK_OK;
	if (m->fmin && gen >= m->fmin && gen <= m->fmax)
		return CK_LANDED;	/* a failed write that got there */
	snprintf(why, len, "sector %llu: gen %u, want %u%s (failed %u-%u)",
		 sector, gen, m->acked, gen < m->acked ? ", lost write" : "",
		 m->fmin, m->fmax);
	return CK_BAD;
}

static void st_bad(struct stress *st, const char *why)
{
	if (!st->bad)
		snprintf(st->first_bad, sizeof(st->first_bad), "%s", why);
	if (st->bad++ < ST_REPORT)
		fprintf(stderr, "blkcheck: bad %s\n", why);
}

/* Check n sectors in buf from index idx; returns the number of bad ones. */
static u64 st_check_buf(struct stress *st, u64 idx, u64 n)
{
	char why[160];
	u64 i, bad = 0;
	int ck;

	for (i = 0; i < n; i++) {
		ck = st_check(st, idx + i, st->buf + i * SECTOR, why,
			      sizeof(why));
		if (ck == CK_LANDED)
			st->landed++;
		if (ck == CK_BAD) {
			st_bad(st, why);
			bad++;
		}
	}
	return bad;
}

/* Acknowledged: gen is what is there. Failed: gen may be there. */
static void st_mark(struct stress *st, u64 idx, u64 n, u32 gen, int ok)
{
	struct st_sector *m = &st->m[idx];

	for (; n; n--, m++) {
		if (ok) {
			m->acked = gen;
			m->fmin = 0;
			m->fmax = 0;
			continue;
		}
		if (!m->fmin || gen < m->fmin)
			m->fmin = gen;
		if (gen > m->fmax)
			m->fmax = gen;
	}
}

/*
 * Whether a read, write or sync went through. An I/O error is what fault
 * injection causes: counted. A usage error is a bug here: fatal.
 */
static int st_done(struct stress *st, ssize_t ret, size_t len,
		   const char *op, u64 idx, u64 n)
{
	char where[64] = "";
	int err = errno;

	if (ret == (ssize_t)len)
		return 1;
	if (ret >= 0)
		err = EIO;	/* short: the rest failed */
	if (n)
		snprintf(where, sizeof(where), " %llu+%llu",
			 (unsigned long long)(st->base + idx),
			 (unsigned long long)n);
	if (err == EINVAL || err == EFAULT || err == EBADF) {
		snprintf(st->fatal, sizeof(st->fatal), "%s%s: %s", op, where,
			 strerror(err));
		return 0;
	}
	if (st->errors_shown++ < ST_REPORT)
		fprintf(stderr, "blkcheck: %s%s failed: %s\n", op, where,
			strerror(err));
	return 0;
}

static off_t st_off(const struct stress *st, u64 idx)
{
	return (off_t)((st->base + idx) * SECTOR);
}

/* A count of sectors in [lo, hi], at most the region. */
static u64 st_len(struct stress *st, u64 lo, u64 hi)
{
	u64 n = lo + xorshift64(&st->rng) % (hi - lo + 1);

	return n < st->nsec ? n : st->nsec;
}

/* Where n sectors start, at random in the region. */
static u64 st_pick(struct stress *st, u64 n)
{
	return xorshift64(&st->rng) % (st->nsec - n + 1);
}

static void st_fill(struct stress *st, u64 idx, u64 n, u32 gen)
{
	u64 i;

	for (i = 0; i < n; i++)
		st_sector(st, st->buf + i * SECTOR, st->base + idx + i, gen);
}

static void st_direct_write(struct stress *st, u64 n)
{
	u64 idx = st_pick(st, n);
	size_t len = n * SECTOR;
	u32 gen = ++st->gen;
	int ok;

	st_fill(st, idx, n, gen);
	st->writes++;
	ok = st_done(st, pwrite(st->dfd, st->buf, len, st_off(st, idx)), len,
		     "write", idx, n);
	if (ok)
		st->bytes += len;
	else
		st->write_errors++;
	st_mark(st, idx, n, gen, ok);
}

/*
 * Up to four buffered writes of 4 KiB..64 KiB, then fdatasync. Nothing is
 * acknowledged before the fdatasync; if it fails, all may or may not be
 * there. Applied in generation order: a later write to a sector wins.
 */
static void st_buffered(struct stress *st)
{
	struct { u64 idx, n; u32 gen; int ok; } w[4];
	int i, k = 1 + (int)(xorshift64(&st->rng) % 4), ok;

	for (i = 0; i < k; i++) {
		size_t len;

		w[i].n = st_len(st, 8, 128);
		w[i].idx = st_pick(st, w[i].n);
		w[i].gen = ++st->gen;
		len = w[i].n * SECTOR;
		st_fill(st, w[i].idx, w[i].n, w[i].gen);
		st->writes++;
		w[i].ok = st_done(st, pwrite(st->bfd, st->buf, len,
					     st_off(st, w[i].idx)),
				  len, "buffered write", w[i].idx, w[i].n);
		if (w[i].ok)
			st->bytes += len;
		else
			st->write_errors++;
	}
	ok = st_done(st, fdatasync(st->bfd), 0, "fdatasync", 0, 0);
	if (!ok)
		st->fsync_errors++;
	for (i = 0; i < k; i++)
		st_mark(st, w[i].idx, w[i].n, w[i].gen, ok && w[i].ok);
}

static void st_read(struct stress *st, u64 n)
{
	u64 idx = st_pick(st, n);
	size_t len = n * SECTOR;

	st->reads++;
	if (!st_done(st, pread(st->dfd, st->buf, len, st_off(st, idx)), len,
		     "read", idx, n)) {
		st->read_errors++;
		return;
	}
	st->bytes += len;
	st_check_buf(st, idx, n);
}

static void st_fsync(struct stress *st, int fd)
{
	if (!st_done(st, fsync(fd), 0, "fsync", 0, 0))
		st->fsync_errors++;
}

static u64 dev_sectors(int fd)
{
	unsigned long long bytes;
	struct stat sb;

	if (fstat(fd, &sb))
		return 0;
	if (!S_ISBLK(sb.st_mode))
		return (u64)sb.st_size / SECTOR;
	return ioctl(fd, BLKGETSIZE64, &bytes) ? 0 : bytes / SECTOR;
}

/* The model: 12 bytes a sector, 1.5 MiB for 64 MiB. */
static int st_alloc(struct stress *st)
{
	if (!st->nsec || st->nsec > SIZE_MAX / sizeof(*st->m))
		return -1;
	st->m = calloc((size_t)st->nsec, sizeof(*st->m));
	return st->m ? 0 : -1;
}

static int st_free(struct stress *st, int ret)
{
	if (st->dfd >= 0)
		close(st->dfd);
	if (st->bfd >= 0)
		close(st->bfd);
	free(st->m);
	free(st->buf);
	return ret;
}

/* One "MMCC KV" line of n key=value pairs. */
static void print_kv(const char *const *key, const u64 *v, int n)
{
	char line[512];
	int i, len = snprintf(line, sizeof(line), "MMCC KV");

	for (i = 0; i < n && len < (int)sizeof(line); i++)
		len += snprintf(line + len, sizeof(line) - len, " %s=%llu",
				key[i], v[i]);
	printf("%s\n", line);
}

static const char *state_path(void)
{
	const char *p = getenv("BLKCHECK_STATE");

	return p && *p ? p : "/tmp/blkcheck.state";
}

/* Header, 12 bytes a sector, FNV-1a of all that; little-endian. */
static int st_save(const struct stress *st)
{
	unsigned char b[ST_FILE_HDR + 256 * 12];
	const char *path = state_path();
	char tmp[512];
	u64 i, j, n;
	u32 h;
	FILE *f;
	int ok;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "wb");
	if (!f)
		return -1;
	memcpy(b, ST_FILE_MAGIC, 8);
	put_le(b + 8, st->base, 8);
	put_le(b + 16, st->nsec, 8);
	put_le(b + 24, st->seed, 4);
	put_le(b + 28, st->run, 4);
	put_le(b + 32, st->gen, 4);
	put_le(b + 36, 0, 4);
	h = fnv1a(FNV_INIT, b, ST_FILE_HDR);
	ok = fwrite(b, ST_FILE_HDR, 1, f) == 1;
	for (i = 0; i < st->nsec && ok; i += n) {
		n = st->nsec - i < 256 ? st->nsec - i : 256;
		for (j = 0; j < n; j++) {
			put_le(b + j * 12, st->m[i + j].acked, 4);
			put_le(b + j * 12 + 4, st->m[i + j].fmin, 4);
			put_le(b + j * 12 + 8, st->m[i + j].fmax, 4);
		}
		h = fnv1a(h, b, n * 12);
		ok = fwrite(b, n * 12, 1, f) == 1;
	}
	put_le(b, h, 4);
	ok = ok && fwrite(b, 4, 1, f) == 1 && !fflush(f) && !fsync(fileno(f));
	ok = !fclose(f) && ok && !rename(tmp, path);
	return ok ? 0 : -1;
}

static int st_load(struct stress *st, char *why, size_t len)
{
	unsigned char b[ST_FILE_HDR + 256 * 12];
	const char *path = state_path();
	u64 i, j, n;
	FILE *f;
	u32 h;

	f = fopen(path, "rb");
	if (!f) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fread(b, ST_FILE_HDR, 1, f) != 1 ||
	    memcmp(b, ST_FILE_MAGIC, 8)) {
		snprintf(why, len, "%s: not a blkcheck state file", path);
		goto bad;
	}
	st->base = get_le(b + 8, 8);
	st->nsec = get_le(b + 16, 8);
	st->seed = (u32)get_le(b + 24, 4);
	st->run = (u32)get_le(b + 28, 4);
	st->gen = (u32)get_le(b + 32, 4);
	h = fnv1a(FNV_INIT, b, ST_FILE_HDR);
	if (st_alloc(st)) {
		snprintf(why, len, "%s: cannot hold %llu sectors", path,
			 (unsigned long long)st->nsec);
		goto bad;
	}
	for (i = 0; i < st->nsec; i += n) {
		n = st->nsec - i < 256 ? st->nsec - i : 256;
		if (fread(b, n * 12, 1, f) != 1)
			break;
		h = fnv1a(h, b, n * 12);
		for (j = 0; j < n; j++) {
			st->m[i + j].acked = (u32)get_le(b + j * 12, 4);
			st->m[i + j].fmin = (u32)get_le(b + j * 12 + 4, 4);
			st->m[i + j].fmax = (u32)get_le(b + j * 12 + 8, 4);
		}
	}
	if (i < st->nsec || fread(b, 4, 1, f) != 1 || get_le(b, 4) != h ||
	    fread(b, 1, 1, f) != 0) {
		snprintf(why, len, "%s: truncated or damaged", path);
		goto bad;
	}
	fclose(f);
	return 0;
bad:
	fclose(f);
	return -1;
}

/* Different in every run, so that an earlier run's sectors do not pass. */
static u32 run_id(u32 seed)
{
	struct timespec ts;
	u32 id;

	clock_gettime(CLOCK_REALTIME, &ts);
	id = (u32)splitmix64((u64)ts.tv_sec << 30 ^ (u64)ts.tv_nsec ^
			     (u64)getpid() << 40 ^ seed);
	return id ? id : 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int st_open(struct stress *st, const char *dev, int flags, char *why,
		   size_t len)
{
	u64 have;

	st->dfd = open(dev, flags | O_DIRECT);
	if (st->dfd < 0) {
		snprintf(why, len, "open %s: %s", dev, strerror(errno));
		return -1;
	}
	have = dev_sectors(st->dfd);
	if (st->base + st->nsec > have) {
		snprintf(why, len, "region %llu+%llu past the end (%llu)",
			 (unsigned long long)st->base,
			 (unsigned long long)st->nsec,
			 (unsigned long long)have);
		return -1;
	}
	st->buf = xalloc(ST_MAX * SECTOR);
	return 0;
}

static int check_stress(const char *dev, unsigned int seconds, u32 seed)
{
	struct stress st = {
		.dfd = -1, .bfd = -1,
		.base = BASE_SECTOR, .nsec = region_sectors,
	};
	static const char *const kv1[] = {
		"stress_writes", "stress_write_errors", "stress_reads",
		"stress_read_errors", "stress_fsync_errors", "stress_bytes",
	};
	static const char *const kv2[] = {
		"stress_bad_sector_reads", "stress_failed_landed",
		"stress_generation",
	};
	const char *name = "stress_no_silent_corruption";
	const char *stop = getenv("BLKCHECK_STOP");
	char why[256] = "";
	u64 v[6];
	double end;
	u32 op;

	st.seed = seed;
	st.run = run_id(seed);
	st.rng = splitmix64(seed) | 1;
	if (st_alloc(&st)) {
		result(0, name, "region empty or too large for memory");
		return st_free(&st, -1);
	}
	if (st_open(&st, dev, O_RDWR, why, sizeof(why))) {
		result(0, name, why);
		return st_free(&st, -1);
	}
	st.bfd = open(dev, O_RDWR);
	if (st.bfd < 0) {
		result(0, name, "open without O_DIRECT failed");
		return st_free(&st, -1);
	}
	end = now() + seconds;
	while (!st.fatal[0] && now() < end && (!stop || access(stop, F_OK))) {
		op = (u32)(xorshift64(&st.rng) % 100);
		if (op < 35)
			st_direct_write(&st, st_len(&st, 1, 32));
		else if (op < 50)
			st_direct_write(&st, st_len(&st, 128, ST_MAX));
		else if (op < 65)
			st_buffered(&st);
		else if (op < 81)
			st_read(&st, st_len(&st, 1, 32));
		else if (op < 97)
			st_read(&st, st_len(&st, 128, ST_MAX));
		else
			st_fsync(&st, st.dfd);
	}
	st_fsync(&st, st.bfd);
	st_fsync(&st, st.dfd);

	v[0] = st.writes;
	v[1] = st.write_errors;
	v[2] = st.reads;
	v[3] = st.read_errors;
	v[4] = st.fsync_errors;
	v[5] = st.bytes;
	print_kv(kv1, v, 6);
	v[0] = st.bad;
	v[1] = st.landed;
	v[2] = st.gen;
	print_kv(kv2, v, 3);
	if (st_save(&st))
		snprintf(st.fatal, sizeof(st.fatal), "saving %s: %s",
			 state_path(), strerror(errno));
	if (st.bad)
		snprintf(why, sizeof(why), "%llu bad sector reads, first %s",
			 (unsigned long long)st.bad, st.first_bad);
	else
		snprintf(why, sizeof(why), "%s", st.fatal);
	result(!st.bad && !st.fatal[0], name, why);
	return st_free(&st, st.bad || st.fatal[0] ? -1 : 0);
}

static int check_verify(const char *dev)
{
	static const char *const kv1[] = {
		"verify_sectors", "verify_uncertain", "verify_bad",
	};
	static const char *const kv2[] = {
		"verify_read_errors", "verify_failed_landed",
		"verify_never_written",
	};
	const char *name = "verify_acknowledged_writes_intact";
	u64 uncertain = 0, never = 0, rerr = 0, v[3];
	struct stress st = { .dfd = -1, .bfd = -1 };
	char why[256] = "";
	u64 i, j, n;

	if (st_load(&st, why, sizeof(why)) ||
	    st_open(&st, dev, O_RDONLY, why, sizeof(why))) {
		result(0, name, why);
		return st_free(&st, -1);
	}
	for (i = 0; i < st.nsec; i++) {
		uncertain += st.m[i].fmin != 0;
		never += !st.m[i].acked && !st.m[i].fmin;
	}
	for (i = 0; i < st.nsec; i += n) {
		n = st.nsec - i < ST_MAX ? st.nsec - i : ST_MAX;
		if (pread(st.dfd, st.buf, n * SECTOR, st_off(&st, i)) ==
		    (ssize_t)(n * SECTOR)) {
			st_check_buf(&st, i, n);
			continue;
		}
		/* Find the sectors that do not read. */
		for (j = 0; j < n; j++) {
			if (pread(st.dfd, st.buf, SECTOR, st_off(&st, i + j)) ==
			    SECTOR) {
				st_check_buf(&st, i + j, 1);
				continue;
			}
			snprintf(why, sizeof(why), "sector %llu: read error",
				 (unsigned long long)(st.base + i + j));
			st_bad(&st, why);
			rerr++;
		}
	}
	v[0] = st.nsec;
	v[1] = uncertain;
	v[2] = st.bad;
	print_kv(kv1, v, 3);
	v[0] = rerr;
	v[1] = st.landed;
	v[2] = never;
	print_kv(kv2, v, 3);
	snprintf(why, sizeof(why), "%llu bad sectors, first %s",
		 (unsigned long long)st.bad, st.first_bad);
	result(!st.bad, name, why);
	return st_free(&st, st.bad ? -1 : 0);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest rank: the smallest sample with at least @pct % at or below it. */
static double percentile(const double *sorted, size_t n, unsigned int pct)
{
	size_t rank = (n * pct + 99) / 100;

	return sorted[rank ? rank - 1 : 0];
}

#define PROBE_MAX	4096
#define PROBE_PERIOD_MS	250

/*
 * What an application's fsync() of a small new file waits while something
 * else keeps the card busy: the latency a write-holding scheduler must
 * bound (an fsync() can wait on a page whose write is held).
 */
/*
 * Where a slow fsync() waits: a child samples the probe's kernel stack
 * (/proc/PID/stack) every 100 ms while an fsync() has been running for a
 * second, into memory shared with the probe, which prints the last sample
 * of every fsync() that took 2 s or more. Without kallsyms the frames are
 * addresses: resolve them with the guest kernel's System.map.
 */
#define PROBE_STACK_BYTES	1024

/*
 * Shared between the probe and its sampler: flags through __atomic, all
 * of them int (32-bit PowerPC has no 8-byte atomics without libatomic).
 */
struct probe_watch {
	double base_ms;			/* set before the sampler starts */
	int fsync_start_ms;		/* 0: not in fsync(); else since base + 1 */
	int done;
	int have;			/* a sample was taken for this fsync */
	char stack[PROBE_STACK_BYTES];
};

#define PW_GET(f)	__atomic_load_n(&(f), __ATOMIC_ACQUIRE)
#define PW_SET(f, v)	__atomic_store_n(&(f), (v), __ATOMIC_RELEASE)

static void probe_sample(struct probe_watch *pw, pid_t pid)
{
	char path[64], raw[PROBE_STACK_BYTES], *line, *save = NULL;
	size_t len = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stack", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	n = read(fd, raw, sizeof(raw) - 1);
	close(fd);
	if (n <= 0)
		return;
	raw[n] = 0;
	/* "[<0>] frame" lines -> "frame,frame,..." */
	for (line = strtok_r(raw, "\n", &save); line && len < sizeof(pw->stack) - 2;
	     line = strtok_r(NULL, "\n", &save)) {
		char *frame = strchr(line, ']');

		frame = frame ? frame + 1 : line;
		while (*frame == ' ')
			frame++;
		len += snprintf(pw->stack + len, sizeof(pw->stack) - len,
				"%s%s", len ? "," : "", frame);
	}
	PW_SET(pw->have, 1);
}

static pid_t probe_watch_start(struct probe_watch *pw)
{
	pid_t parent = getpid(), child = fork();

	if (child)
		return child;	/* -1: no sampling, the probe runs anyway */
	while (!PW_GET(pw->done)) {
		int start;

		usleep(100 * 1000);
		start = PW_GET(pw->fsync_start_ms);
		if (start && now_ms() - pw->base_ms - (start - 1) > 1000)
			probe_sample(pw, parent);
	}
	_exit(0);
}

static int fsync_probe(const char *dir, const char *stopfile)
{
	static double lat[PROBE_MAX];
	struct probe_watch *pw;
	pid_t watcher = -1;
	unsigned char buf[4096];
	char path[256], why[320];
	const char *count_env = getenv("BLKCHECK_PROBE_COUNT");
	size_t n = 0, count = count_env ? strtoul(count_env, NULL, 0) : 0;
	double start = now_ms(), next;
	int bad = 0;

	if (count > PROBE_MAX)
		count = PROBE_MAX;
	memset(buf, 0x6d, sizeof(buf));
	pw = mmap(NULL, sizeof(*pw), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (pw != MAP_FAILED) {
		memset(pw, 0, sizeof(*pw));
		pw->base_ms = now_ms();
		watcher = probe_watch_start(pw);
	} else {
		pw = NULL;
	}
	while (count ? n < count : n < PROBE_MAX && access(stopfile, F_OK)) {
		double t0, t1;
		int fd;

		snprintf(path, sizeof(path), "%s/probe%zu", dir, n);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf)) {
			snprintf(why, sizeof(why), "%s: %s", path,
				 strerror(errno));
			bad = 1;
			if (fd >= 0)
				close(fd);
			break;
		}
		t0 = now_ms();
		if (pw) {
			PW_SET(pw->have, 0);
			PW_SET(pw->fsync_start_ms, (int)(t0 - pw->base_ms) + 1);
		}
		if (fsync(fd)) {
			snprintf(why, sizeof(why), "fsync %s: %s", path,
				 strerror(errno));
			bad = 1;
			close(fd);
			break;
		}
		t1 = now_ms();
		if (pw) {
			PW_SET(pw->fsync_start_ms, 0);
			if (t1 - t0 >= 2000 && PW_GET(pw->have))
				printf("MMCC KV fsync_slow_ms=%.0f fsync_stack=%s\n",
				       t1 - t0, pw->stack);
		}
		close(fd);
		lat[n++] = t1 - t0;
		if (!count) {
			usleep(PROBE_PERIOD_MS * 1000);
			continue;
		}
		if (n == count)
			break;
		/* On a fixed clock: a slow fsync delays no later record. */
		next = start + (double)n * PROBE_PERIOD_MS;
		if (next > now_ms())
			usleep((useconds_t)((next - now_ms()) * 1000));
	}
	if (pw) {
		PW_SET(pw->done, 1);
		if (watcher > 0)
			waitpid(watcher, NULL, 0);
		munmap(pw, sizeof(*pw));
	}
	if (!bad && !n)
		snprintf(why, sizeof(why), "%s existed before the first probe",
			 stopfile);
	if (n) {
		qsort(lat, n, sizeof(lat[0]), cmp_double);
		printf("MMCC KV fsync_n=%zu fsync_p50_ms=%.1f", n,
		       percentile(lat, n, 50));
		printf(" fsync_p99_ms=%.1f fsync_max_ms=%.1f\n",
		       percentile(lat, n, 99), lat[n - 1]);
	}
	result(!bad && n, "fsync_probe", why);
	return bad || !n ? -1 : 0;
}

/*
 * The seed's file. One 16 KiB body is made once per seed; each sector
 * gets its own header, so the CPU cost per write is a copy and 32
 * stamps (under TCG the guest's CPU time adds to what is measured).
 */
#define SEED_CHUNK	(16 * 1024)

static void seed_stamp(unsigned char *p, u64 sector, u32 seed)
{
	put_le(p, sector, 8);
	put_le(p + 8, seed, 4);
}

static void seed_body(unsigned char *body, u32 seed)
{
	fill(body, SEED_CHUNK, 0, seed);
}

static int seed_write(const char *path, u64 kib, u32 seed)
{
	unsigned char *body = xalloc(SEED_CHUNK), *buf = xalloc(SEED_CHUNK);
	u64 chunk, chunks = kib / (SEED_CHUNK / 1024);
	unsigned int s;
	int fd, ret = 0;

	seed_body(body, seed);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(path);
		ret = -1;
	}
	for (chunk = 0; !ret && chunk < chunks; chunk++) {
		memcpy(buf, body, SEED_CHUNK);
		for (s = 0; s < SEED_CHUNK / SECTOR; s++)
			seed_stamp(buf + s * SECTOR,
				   chunk * (SEED_CHUNK / SECTOR) + s, seed);
		if (write(fd, buf, SEED_CHUNK) != SEED_CHUNK) {
			perror("seedwrite: write");
			ret = -1;
		}
	}
	if (fd >= 0 && close(fd)) {
		perror("seedwrite: close");
		ret = -1;
	}
	free(body);
	free(buf);
	result(!ret, "seed_written", "write failed");
	return ret;
}

static int seed_verify(const char *path, u64 kib, u32 seed, const char *name)
{
	unsigned char *body = xalloc(SEED_CHUNK), *buf = xalloc(SEED_CHUNK);
	unsigned char want[12];
	u64 chunk, chunks = kib / (SEED_CHUNK / 1024), sector, bad = 0;
	u64 first = 0, held_sector = 0, held_seed = 0;
	unsigned int s;
	char why[200] = "";
	int fd;

	seed_body(body, seed);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		snprintf(why, sizeof(why), "open: %s", strerror(errno));
	for (chunk = 0; fd >= 0 && chunk < chunks; chunk++) {
		if (pread_all(fd, buf, SEED_CHUNK, (off_t)chunk * SEED_CHUNK)) {
			snprintf(why, sizeof(why), "short read at KiB %llu",
				 (unsigned long long)chunk * 16);
			break;
		}
		for (s = 0; s < SEED_CHUNK / SECTOR; s++) {
			sector = chunk * (SEED_CHUNK / SECTOR) + s;
			seed_stamp(want, sector, seed);
			if (!memcmp(buf + s * SECTOR, want, sizeof(want)) &&
			    !memcmp(buf + s * SECTOR + sizeof(want),
				    body + s * SECTOR + sizeof(want),
				    SECTOR - sizeof(want)))
				continue;
			if (!bad++) {
				first = sector;
				held_sector = get_le(buf + s * SECTOR, 8);
				held_seed = get_le(buf + s * SECTOR + 8, 4);
			}
		}
	}
	if (fd >= 0)
		close(fd);
	if (bad && !why[0])
		snprintf(why, sizeof(why),
			 "%llu of %llu sectors wrong, the first at sector %llu of the file (holds sector %llu, seed %llu)",
			 (unsigned long long)bad,
			 (unsigned long long)chunks * (SEED_CHUNK / SECTOR),
			 (unsigned long long)first,
			 (unsigned long long)held_sector,
			 (unsigned long long)held_seed);
	free(body);
	free(buf);
	result(!why[0], name, why);
	return why[0] ? -1 : 0;
}

static int print_usage(void)
{
	fputs("usage: blkcheck patterns|mkpart DEV\n"
	      "       blkcheck readafter|overlap|flush DEV PART\n"
	      "       blkcheck ioctl DEV RCA\n"
	      "       blkcheck badioctl DEV RCA [PART]\n"
	      "       blkcheck scatter DEV SECTOR COUNT SEED\n"
	      "       blkcheck scattercheck DEV SECTOR COUNT SEED NAME\n"
	      "       blkcheck stress DEV SECONDS SEED\n"
	      "       blkcheck verify DEV\n"
	      "       blkcheck aiooverlap DEV\n"
	      "       blkcheck readmerge DEV PART STATS\n"
	      "       blkcheck fsyncmerge DEV PART STATS LIMIT_MS\n"
	      "       blkcheck waitheld DEV STATS LIMIT_MS\n"
	      "       blkcheck lists DEV STATS\n"
	      "       blkcheck fuarace DEV\n"
	      "       blkcheck seedwrite FILE KIB SEED\n"
	      "       blkcheck seedverify FILE KIB SEED NAME\n"
	      "       blkcheck fsyncprobe DIR STOPFILE\n"
	      "env:   BLKCHECK_BASE (sectors), BLKCHECK_SECTORS (stress),\n"
	      "       BLKCHECK_STATE (stress state file)\n",
	      stderr);
	return 2;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 2 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("BLKCHECK_BASE"))
		base_sector = strtoull(getenv("BLKCHECK_BASE"), NULL, 0);
	if (getenv("BLKCHECK_SECTORS"))
		region_sectors = strtoull(getenv("BLKCHECK_SECTORS"), NULL, 0);
	if (!strcmp(cmd, "patterns"))
		check_patterns(argv[2]);
	else if (!strcmp(cmd, "mkpart"))
		make_partition(argv[2]);
	else if (!strcmp(cmd, "readafter") && argc > 3)
		check_readafter(argv[2], argv[3]);
	else if (!strcmp(cmd, "overlap") && argc > 3)
		check_overlap(argv[2], argv[3]);
	else if (!strcmp(cmd, "flush") && argc > 3)
		check_flush(argv[2], argv[3]);
	else if (!strcmp(cmd, "ioctl") && argc > 3)
		check_ioctl(argv[2], (unsigned int)strtoul(argv[3], NULL, 0));
	else if (!strcmp(cmd, "badioctl") && argc > 3)
		check_badioctl(argv[2], (unsigned int)strtoul(argv[3], NULL, 0),
			       argc > 4 ? argv[4] : NULL);
	else if (!strcmp(cmd, "scatter") && argc > 5)
		scatter(argv[2], strtoull(argv[3], NULL, 0),
			(unsigned int)strtoul(argv[4], NULL, 0),
			(unsigned int)strtoul(argv[5], NULL, 0));
	else if (!strcmp(cmd, "scattercheck") && argc > 6)
		scattercheck(argv[2], strtoull(argv[3], NULL, 0),
			     (unsigned int)strtoul(argv[4], NULL, 0),
			     (unsigned int)strtoul(argv[5], NULL, 0), argv[6]);
	else if (!strcmp(cmd, "stress") && argc > 4)
		check_stress(argv[2], (unsigned int)strtoul(argv[3], NULL, 0),
			     (u32)strtoul(argv[4], NULL, 0));
	else if (!strcmp(cmd, "verify"))
		check_verify(argv[2]);
	else if (!strcmp(cmd, "aiooverlap"))
		check_aiooverlap(argv[2]);
	else if (!strcmp(cmd, "readmerge") && argc > 4)
		check_readmerge(argv[2], argv[3], argv[4]);
	else if (!strcmp(cmd, "fsyncmerge") && argc > 5)
		check_fsyncmerge(argv[2], argv[3], argv[4],
				 (unsigned int)strtoul(argv[5], NULL, 0));
	else if (!strcmp(cmd, "lists") && argc > 3)
		check_lists(argv[2], argv[3]);
	else if (!strcmp(cmd, "fuarace"))
		check_fuarace(argv[2]);
	else if (!strcmp(cmd, "waitheld") && argc > 4)
		check_waitheld(argv[2], argv[3],
			       (unsigned int)strtoul(argv[4], NULL, 0));
	else if (!strcmp(cmd, "seedwrite") && argc > 4)
		seed_write(argv[2], strtoull(argv[3], NULL, 0),
			   (u32)strtoul(argv[4], NULL, 0));
	else if (!strcmp(cmd, "seedverify") && argc > 5)
		seed_verify(argv[2], strtoull(argv[3], NULL, 0),
			    (u32)strtoul(argv[4], NULL, 0), argv[5]);
	else if (!strcmp(cmd, "fsyncprobe") && argc > 3)
		fsync_probe(argv[2], argv[3]);
	else
		return print_usage();
	return failures ? 1 : 0;
}
