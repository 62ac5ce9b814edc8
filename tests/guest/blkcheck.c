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
 *
 * Prints "MMCC RESULT pass|fail NAME [why]" lines for the host, and exits
 * non-zero if anything failed. Static, no libraries: it runs on x86_64 and
 * on the big-endian e500 guest alike.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64	/* 32-bit guests: offsets past 2 GiB */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/mmc/ioctl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

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

static int failures;

static void result(int ok, const char *name, const char *why)
{
	if (ok) {
		printf("MMCC RESULT pass %s\n", name);
	} else {
		printf("MMCC RESULT fail %s %s\n", name, why);
		failures++;
	}
	fflush(stdout);
}

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

/* A pending write, then a flush through the partition (nothing dirty there). */
static int check_flush(const char *dev, const char *part)
{
	unsigned char *w = xalloc(ALIGN), *r = xalloc(ALIGN);
	off_t off = (off_t)(SCRATCH + 128) * SECTOR;
	int fd, pfd, ok;

	fill(w, ALIGN, SCRATCH + 128, 5);
	fd = start_writeback(dev, off, w, ALIGN);
	pfd = open(part, O_RDWR);
	ok = fd >= 0 && pfd >= 0 && !fdatasync(pfd);
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
	 * Bad arguments: refused with the right error, nothing sent. The
	 * stock driver takes blksz 0 with blocks > 0 as "no data"; ours
	 * refuses it (BLKCHECK_STOCK=1 skips that check for the control run).
	 */
	c.blksz = 0;
	c.blocks = 4;
	c.data_ptr = (u64)(uintptr_t)buf;
	if (!getenv("BLKCHECK_STOCK")) {
		err = ioc(fd, MMC_IOC_CMD, &c);
		snprintf(why, sizeof(why), "got %d", err);
		result(err == -EINVAL, "ioctl_rejects_zero_blksz", why);
	}

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

static int print_usage(void)
{
	fputs("usage: blkcheck patterns|mkpart DEV\n"
	      "       blkcheck readafter|overlap|flush DEV PART\n"
	      "       blkcheck ioctl DEV RCA\n", stderr);
	return 2;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 2 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("BLKCHECK_BASE"))
		base_sector = strtoull(getenv("BLKCHECK_BASE"), NULL, 0);
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
	else
		return print_usage();
	return failures ? 1 : 0;
}
