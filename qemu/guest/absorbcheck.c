// SPDX-License-Identifier: GPL-2.0
/*
 * absorbcheck - no update of the block device's buffers is lost while the
 * writes that carry them wait in the scheduler (absorption,
 * Documentation/reorder-window.md). Writers keep changing buffers that
 * writeback has already submitted; after sync, with the caches dropped,
 * everything must read back as last written.
 *
 *   absorbcheck raw DEV SECTOR BLOCKS WRITERS SECONDS STATE
 *       WRITERS processes write new versions of 4 KiB blocks of DEV from
 *       SECTOR, with buffered pwrite() and no sync, for SECONDS; writer w
 *       owns the blocks b with b % WRITERS == w. STATE gets every block's
 *       last version ("block version" lines).
 *   absorbcheck rawcheck DEV SECTOR STATE NAME
 *       O_DIRECT: every block of STATE holds its last version (result
 *       NAME; the first bad blocks in why).
 *   absorbcheck files DIR WRITERS SECONDS STATE
 *       WRITERS processes create, append to, truncate and delete small
 *       files in DIR/wN for SECONDS, no sync: inode tables, bitmaps,
 *       directories and indirect blocks (ext2), the FAT (vfat) change all
 *       the time. STATE lists what must be there ("path id length").
 *   absorbcheck filescheck DIR STATE NAME
 *       every file of STATE has its length and its content, and DIR/w*
 *       holds no other file.
 *
 * Content is a function of (block, version) or (file id, offset), so a
 * stale, lost or misplaced block is told from a good one. Prints
 * "MMCC RESULT pass|fail NAME [why]" and "MMCC KV key=value" lines.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest-result.h"

/* The kernel's names, as in blkcheck.c. */
typedef unsigned long long u64;
typedef unsigned int u32;

#define BLOCK		4096
#define MAGIC		0x6273626173626b63ULL	/* one word of each block */
#define MAX_WRITERS	16
#define MAX_FILES	256	/* per writer, alive at once */
#define MAX_FILE	(64 * 1024)	/* past ext2's 12 direct blocks */

static void die(const char *what)
{
	printf("MMCC absorbcheck: %s: %s\n", what, strerror(errno));
	exit(2);
}

static u64 mix(u64 x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- raw block device ------------------------------------------------ */

static void block_fill(u64 *w, u64 block, u32 version)
{
	unsigned int i;

	w[0] = MAGIC;
	w[1] = block;
	w[2] = version;
	for (i = 3; i < BLOCK / 8; i++)
		w[i] = mix(block << 32 ^ (u64)version << 12 ^ i);
}

static void raw_writer(const char *dev, u64 sector, u32 blocks, u32 writers,
		       u32 w, double until, u32 *version)
{
	u64 *buf = aligned_alloc(BLOCK, BLOCK), rnd = mix(w + 1);
	u32 mine = (blocks - w + writers - 1) / writers, b;
	int fd = open(dev, O_RDWR);

	if (fd < 0 || !buf)
		die(dev);
	while (now_s() < until) {
		rnd = mix(rnd);
		b = w + (u32)(rnd % mine) * writers;
		block_fill(buf, b, version[b] + 1);
		if (pwrite(fd, buf, BLOCK, (off_t)(sector * 512 + (u64)b * BLOCK))
		    != BLOCK)
			die("pwrite");
		version[b]++;	/* only after the write() took it */
	}
	close(fd);
	exit(0);
}

static int raw(const char *dev, u64 sector, u32 blocks, u32 writers,
	       double seconds, const char *state)
{
	u32 *version = mmap(NULL, blocks * sizeof(u32), PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	double until = now_s() + seconds;
	u64 writes = 0;
	FILE *f;
	u32 w, b;

	if (version == MAP_FAILED || !writers || writers > MAX_WRITERS ||
	    blocks < writers)
		die("bad arguments");
	for (w = 0; w < writers; w++)
		if (!fork())
			raw_writer(dev, sector, blocks, writers, w, until,
				   version);
	while (wait(NULL) > 0)
		;
	f = fopen(state, "w");
	if (!f)
		die(state);
	for (b = 0; b < blocks; b++) {
		fprintf(f, "%u %u\n", b, version[b]);
		writes += version[b];
	}
	fclose(f);
	printf("MMCC KV absorb_raw_writes=%llu\n", (unsigned long long)writes);
	return 0;
}

static int rawcheck(const char *dev, u64 sector, const char *state,
		    const char *name)
{
	u64 *want = aligned_alloc(BLOCK, BLOCK), *got = aligned_alloc(BLOCK, BLOCK);
	unsigned int block, version, bad = 0, n = 0;
	char why[512] = "";
	int fd = open(dev, O_RDONLY | O_DIRECT);
	FILE *f = fopen(state, "r");

	if (fd < 0 || !f || !want || !got)
		die("cannot open the device or the state file");
	while (fscanf(f, "%u %u", &block, &version) == 2) {
		n++;
		if (!version)
			continue;	/* never written: nothing to hold */
		block_fill(want, block, version);
		if (pread(fd, got, BLOCK, (off_t)(sector * 512 + (u64)block * BLOCK))
		    != BLOCK)
			die("pread");
		if (!memcmp(want, got, BLOCK))
			continue;
		if (bad++ < 4) {
			size_t l = strlen(why);

			snprintf(why + l, sizeof(why) - l,
				 "block %u: version %llu, want %u; ", block,
				 got[0] == MAGIC && got[1] == block ?
				 (unsigned long long)got[2] : 0ULL, version);
		}
	}
	fclose(f);
	close(fd);
	printf("MMCC KV absorb_raw_blocks=%u\nMMCC KV absorb_raw_bad=%u\n",
	       n, bad);
	if (bad) {
		size_t l = strlen(why);

		snprintf(why + l, sizeof(why) - l, "%u of %u blocks stale", bad,
			 n);
	}
	result(n > 0 && !bad, name, n ? why : "no blocks in the state file");
	return 0;
}

/* ---- files ------------------------------------------------------------ */

struct file {
	u64 id;
	u32 len;
};

static unsigned char file_byte(u64 id, u64 off)
{
	return (unsigned char)(mix(id << 24 ^ off >> 3) >> ((off & 7) * 8));
}

static void file_path(char *p, size_t n, const char *dir, u32 w, u64 id)
{
	snprintf(p, n, "%s/w%u/f%llu", dir, w, (unsigned long long)id);
}

static void file_put(const char *path, u64 id, u32 from, u32 to, int flags)
{
	static unsigned char buf[MAX_FILE];
	int fd = open(path, O_WRONLY | flags, 0644);
	u32 o;

	if (fd < 0)
		die(path);
	for (o = from; o < to; o++)
		buf[o - from] = file_byte(id, o);
	if (write(fd, buf, to - from) != (ssize_t)(to - from))
		die("write");
	close(fd);
}

static void files_writer(const char *dir, u32 w, double until,
			 const char *state)
{
	static struct file f[MAX_FILES];
	u64 rnd = mix(w + 101), next_id = (u64)(w + 1) << 32;
	unsigned int n = 0, i, op;
	char path[512];
	FILE *out;
	u32 len;

	snprintf(path, sizeof(path), "%s/w%u", dir, w);
	if (mkdir(path, 0755) && errno != EEXIST)
		die(path);
	while (now_s() < until) {
		rnd = mix(rnd);
		op = rnd % 100;
		i = n ? (unsigned int)(rnd >> 8) % n : 0;
		len = 1 + (u32)(rnd >> 20) % 12288;
		if (!n || (op < 40 && n < MAX_FILES)) {	/* create */
			f[n].id = next_id++;
			f[n].len = len;
			file_path(path, sizeof(path), dir, w, f[n].id);
			file_put(path, f[n].id, 0, len, O_CREAT | O_EXCL);
			n++;
		} else if (op < 75) {			/* append */
			len = len / 2 + 1;
			if (f[i].len + len > MAX_FILE)
				continue;
			file_path(path, sizeof(path), dir, w, f[i].id);
			file_put(path, f[i].id, f[i].len, f[i].len + len,
				 O_APPEND);
			f[i].len += len;
		} else if (op < 85) {			/* truncate */
			file_path(path, sizeof(path), dir, w, f[i].id);
			f[i].len = f[i].len ? (u32)(rnd >> 40) % f[i].len : 0;
			if (truncate(path, f[i].len))
				die("truncate");
		} else {				/* delete */
			file_path(path, sizeof(path), dir, w, f[i].id);
			if (unlink(path))
				die("unlink");
			f[i] = f[--n];
		}
	}
	out = fopen(state, "w");
	if (!out)
		die(state);
	for (i = 0; i < n; i++) {
		file_path(path, sizeof(path), dir, w, f[i].id);
		fprintf(out, "%s %llu %u\n", path, (unsigned long long)f[i].id,
			f[i].len);
	}
	fclose(out);
	exit(0);
}

static int files(const char *dir, u32 writers, double seconds,
		 const char *state)
{
	double until = now_s() + seconds;
	char part[512], line[1024];
	FILE *out, *in;
	u32 w, nfiles = 0;

	if (!writers || writers > MAX_WRITERS)
		die("bad arguments");
	for (w = 0; w < writers; w++) {
		snprintf(part, sizeof(part), "%s.%u", state, w);
		if (!fork())
			files_writer(dir, w, until, part);
	}
	while (wait(NULL) > 0)
		;
	out = fopen(state, "w");
	if (!out)
		die(state);
	for (w = 0; w < writers; w++) {
		snprintf(part, sizeof(part), "%s.%u", state, w);
		in = fopen(part, "r");
		if (!in)
			die(part);
		while (fgets(line, sizeof(line), in)) {
			fputs(line, out);
			nfiles++;
		}
		fclose(in);
		unlink(part);
	}
	fclose(out);
	printf("MMCC KV absorb_files=%u\n", nfiles);
	return 0;
}

/* How many files DIR/w* hold: a deleted file must not come back. */
static unsigned int files_present(const char *dir)
{
	unsigned int n = 0;
	struct dirent *d, *e;
	char sub[512];
	DIR *top = opendir(dir), *s;

	if (!top)
		return 0;
	while ((d = readdir(top))) {
		if (d->d_name[0] != 'w')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, d->d_name);
		s = opendir(sub);
		if (!s)
			continue;
		while ((e = readdir(s)))
			n += e->d_name[0] == 'f';
		closedir(s);
	}
	closedir(top);
	return n;
}

static int filescheck(const char *dir, const char *state, const char *name)
{
	static unsigned char buf[MAX_FILE + 1];
	unsigned int n = 0, bad = 0, present;
	unsigned long long id;
	char path[512], why[600] = "";
	ssize_t got;
	u32 len, o;
	FILE *f = fopen(state, "r");
	int fd;

	if (!f)
		die(state);
	while (fscanf(f, "%511s %llu %u", path, &id, &len) == 3) {
		const char *what = NULL;

		n++;
		fd = open(path, O_RDONLY);
		got = fd < 0 ? -1 : read(fd, buf, sizeof(buf));
		if (fd >= 0)
			close(fd);
		if (got < 0)
			what = "missing";
		else if ((u32)got != len)
			what = "wrong length";
		for (o = 0; !what && o < len; o++)
			if (buf[o] != file_byte(id, o))
				what = "stale content";
		if (what && bad++ < 3) {
			size_t l = strlen(why);

			snprintf(why + l, sizeof(why) - l, "%s: %s (%zd of %u bytes); ",
				 path, what, got, len);
		}
	}
	fclose(f);
	present = files_present(dir);
	printf("MMCC KV absorb_files_checked=%u\nMMCC KV absorb_files_bad=%u\n",
	       n, bad);
	if (present != n) {
		size_t l = strlen(why);

		snprintf(why + l, sizeof(why) - l, "%u files present, %u expected; ",
			 present, n);
		bad++;
	}
	result(n > 0 && !bad, name, n ? why : "no files in the state file");
	return 0;
}

static int print_usage(void)
{
	fputs("usage: absorbcheck raw DEV SECTOR BLOCKS WRITERS SECONDS STATE\n"
	      "       absorbcheck rawcheck DEV SECTOR STATE NAME\n"
	      "       absorbcheck files DIR WRITERS SECONDS STATE\n"
	      "       absorbcheck filescheck DIR STATE NAME\n", stderr);
	return 2;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(cmd, "raw") && argc == 8)
		raw(argv[2], strtoull(argv[3], NULL, 0),
		    (u32)strtoul(argv[4], NULL, 0),
		    (u32)strtoul(argv[5], NULL, 0), atof(argv[6]), argv[7]);
	else if (!strcmp(cmd, "rawcheck") && argc == 6)
		rawcheck(argv[2], strtoull(argv[3], NULL, 0), argv[4], argv[5]);
	else if (!strcmp(cmd, "files") && argc == 6)
		files(argv[2], (u32)strtoul(argv[3], NULL, 0), atof(argv[4]),
		      argv[5]);
	else if (!strcmp(cmd, "filescheck") && argc == 5)
		filescheck(argv[2], argv[3], argv[4]);
	else
		return print_usage();
	return failures ? 1 : 0;
}
