// SPDX-License-Identifier: GPL-2.0
/*
 * PID 1 of the e500 (big-endian PowerPC) test guest. There is no busybox
 * for this target, so this small static program does what the x86_64
 * guest's shell /init does for the e500 boot test:
 *
 *  - mounts proc, sysfs, devtmpfs, debugfs;
 *  - waits for /dev/mmcblk0 (it can appear before the card answers);
 *  - selects the coalesce I/O scheduler, built into this kernel, the
 *    way a board's init script does (Documentation/admin-guide.md);
 *  - writes files through ext2 (made on the host), with background
 *    writeback turned eager so that the reorder window sees small
 *    metadata writes, then unmounts, remounts and verifies them;
 *  - runs /bin/blkcheck (raw patterns, read-after-write, overlap, flush,
 *    ioctl) on a scratch area the file system does not use;
 *  - checks the scheduler's statistics (it held and released writes);
 *  - powers the machine off.
 *
 * Results go to the console as "MMCC RESULT pass|fail NAME", like the
 * x86_64 guest's, followed by "MMCC DONE". KUnit suites are built in and
 * report on the console during boot.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64	/* 32-bit guests: offsets past 2 GiB */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEV	"/dev/mmcblk0"
#define SCHED	"/sys/block/mmcblk0/queue/scheduler"
#define STATS	"/sys/kernel/debug/block/mmcblk0/sched/stats"

static void result(int ok, const char *name, const char *why)
{
	printf("MMCC RESULT %s %s%s%s\n", ok ? "pass" : "fail", name,
	       ok ? "" : " ", ok ? "" : why);
	fflush(stdout);
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static int wait_for_card(void)
{
	char buf[512];
	int i, fd;

	for (i = 0; i < 300; i++) {
		fd = open(DEV, O_RDONLY);
		if (fd >= 0) {
			ssize_t n = read(fd, buf, sizeof(buf));

			close(fd);
			if (n == (ssize_t)sizeof(buf))
				return 0;
		}
		usleep(100000);
	}
	return -1;
}

static unsigned char pattern_byte(unsigned int file, size_t off)
{
	return (unsigned char)(off * 131 + off / 4096 * 7 + file * 29);
}

/* Files of several sizes; verified after a remount. */
static const size_t file_kib[] = { 4, 60, 1024, 16384 };
#define NFILES (sizeof(file_kib) / sizeof((file_kib)[0]))

static int fs_write(void)
{
	static unsigned char buf[65536];
	unsigned int f;
	char path[64];

	for (f = 0; f < NFILES; f++) {
		size_t left = file_kib[f] * 1024, off = 0;
		int fd;

		snprintf(path, sizeof(path), "/mnt/f%u", f);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			return -1;
		while (left) {
			size_t n = left < sizeof(buf) ? left : sizeof(buf), i;

			for (i = 0; i < n; i++)
				buf[i] = pattern_byte(f, off + i);
			if (write(fd, buf, n) != (ssize_t)n) {
				close(fd);
				return -1;
			}
			off += n;
			left -= n;
		}
		close(fd);
	}
	return 0;
}

static int fs_verify(void)
{
	static unsigned char buf[65536];
	unsigned int f;
	char path[64];

	for (f = 0; f < NFILES; f++) {
		size_t left = file_kib[f] * 1024, off = 0;
		int fd;

		snprintf(path, sizeof(path), "/mnt/f%u", f);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return -1;
		while (left) {
			size_t n = left < sizeof(buf) ? left : sizeof(buf), i;

			if (read(fd, buf, n) != (ssize_t)n) {
				close(fd);
				return -1;
			}
			for (i = 0; i < n; i++)
				if (buf[i] != pattern_byte(f, off + i)) {
					close(fd);
					return -1;
				}
			off += n;
			left -= n;
		}
		close(fd);
	}
	return 0;
}

static long stat_value(const char *name)
{
	char line[128], key[96];
	long v, found = -1;
	FILE *f = fopen(STATS, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%95s %ld", key, &v) == 2 && !strcmp(key, name))
			found = v;
	fclose(f);
	return found;
}

/* What a board's init does: echo coalesce > .../queue/scheduler. */
static void select_coalesce(void)
{
	char buf[256] = "";
	ssize_t n;
	int fd;

	if (write_file(SCHED, "coalesce")) {
		result(0, "sched_coalesce_selected", strerror(errno));
		return;
	}
	fd = open(SCHED, O_RDONLY);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	result(!!strstr(buf, "[coalesce]"), "sched_coalesce_selected",
	       buf);
}

static void run_blkcheck(const char *const argv[])
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
	    WEXITSTATUS(st) == 127)
		result(0, argv[1], "could not run blkcheck");
}

int main(void)
{
	char rca[32] = "0";
	int fd;

	mkdir("/proc", 0755);
	mkdir("/sys", 0755);
	mkdir("/dev", 0755);
	mkdir("/mnt", 0755);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* blkcheck's scratch area: past the 1 GiB file system */
	setenv("BLKCHECK_BASE", "4194304", 1);
	/* The ioctl is mmc_block's: check it as on the stock stack. */
	setenv("BLKCHECK_STOCK", "1", 1);
	printf("MMCC BOOTED e500\n");

	if (wait_for_card()) {
		result(0, "card_detected", "no readable " DEV " after 30 s");
		goto out;
	}
	result(1, "card_detected", "");
	select_coalesce();

	/* Eager background writeback: small writes reach the window unsynced. */
	write_file("/proc/sys/vm/dirty_background_bytes", "262144");
	write_file("/proc/sys/vm/dirty_writeback_centisecs", "10");
	if (mount(DEV, "/mnt", "ext2", 0, NULL)) {
		result(0, "mount_ext2", strerror(errno));
		goto raw;
	}
	result(!fs_write(), "fs_write", "writing files failed");
	sleep(2);	/* let background writeback run through the window */
	if (umount("/mnt")) {
		result(0, "umount", strerror(errno));
		goto raw;
	}
	write_file("/proc/sys/vm/drop_caches", "3");
	if (mount(DEV, "/mnt", "ext2", 0, NULL)) {
		result(0, "remount_ext2", strerror(errno));
		goto raw;
	}
	result(!fs_verify(), "fs_roundtrip", "file contents differ");
	umount("/mnt");

	{
		long held = stat_value("held");
		long written = stat_value("dispatched_writes");
		char why[96];

		snprintf(why, sizeof(why), "held=%ld dispatched_writes=%ld",
			 held, written);
		result(held > 0 && written > 0, "window_held_writes", why);
	}
raw:
	fd = open("/sys/block/mmcblk0/device/rca", O_RDONLY);
	if (fd >= 0) {
		ssize_t n = read(fd, rca, sizeof(rca) - 1);

		rca[n > 0 ? n : 0] = '\0';
		close(fd);
	}
	{
		const char *const pat[] = { "/bin/blkcheck", "patterns", DEV, NULL };
		const char *const ioc[] = { "/bin/blkcheck", "ioctl", DEV, rca, NULL };

		run_blkcheck(pat);
		run_blkcheck(ioc);
	}
out:
	sync();
	printf("MMCC DONE\n");
	fflush(stdout);
	reboot(RB_POWER_OFF);
	return 0;
}
