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
 * With "mmcc.e500=seed" on the kernel command line (qemu/run-e500.sh
 * --seed) it runs the seed's workload instead: the disk's scheduler set
 * to mmcc.elevator, the ext2 file system made over the whole card on the
 * host, phase marker 1, a buffered sequential write of mmcc.seed_mib MiB
 * in 16 KiB writes (the x86_64 seed's dd bs=16K), sync, phase marker 2,
 * the scheduler's statistics, unmount. The host checks the file's
 * contents on the card image afterwards (qemu/run-e500.sh): reading it
 * back here would take as long as writing it under TCG.
 * The markers are one-sector O_DIRECT reads at marker_base + 8 * k, so
 * that cardtrace --marker-base cuts the workload out of QEMU's card trace.
 *
 * With "mmcc.e500=lkdtm" (qemu/run-e500.sh --lkdtm) it makes each
 * detector the host's console check relies on report once through LKDTM,
 * as the x86_64 guest's lkdtm scenario does (qemu/guest/scenarios/
 * lkdtm.sh): a WARN_ON, a task in D state (the hung-task limit cut to
 * 2 s), then, after its document and "MMCC DONE", a CPU spinning with
 * preemption off (the soft-lockup limit 2 s) and the RCU grace period it
 * holds up (the stall limit 6 s, and a panic on the stall, which ends
 * QEMU). It checks the kernel log for the first two; the host checks the
 * console for all four (tests/e500-tests.sh).
 *
 * Results go to the console as a KTAP document (Documentation/dev-tools/
 * ktap.rst), each line after "MMCC " like the x86_64 guest's: "MMCC KTAP
 * version 1", "MMCC ok N NAME", "MMCC # NAME: why" and "MMCC not ok N
 * NAME" (blkcheck's results taken in and numbered on), "MMCC # Totals:
 * ...", with "MMCC KV key=value", "MMCC STAT name value" and "MMCC MARKER
 * k" in seed mode, followed by "MMCC DONE". With "mmcc.results=ttyS1"
 * (qemu/run-e500.sh gives QEMU a second serial port) the same lines also
 * go to /dev/ttyS1, which printk does not share, so that no kernel
 * message can land inside one of them. KUnit suites are built in and
 * print their own KTAP on the console during boot.
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64	/* 32-bit guests: offsets past 2 GiB */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <regex.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define DEV	"/dev/mmcblk0"
#define SCHED	"/sys/block/mmcblk0/queue/scheduler"
#define IOSCHED	"/sys/block/mmcblk0/queue/iosched/"
#define STATS	"/sys/kernel/debug/block/mmcblk0/sched/stats"

/* "mmcc.KEY=VALUE" on the kernel command line: VALUE into val. */
static int cmdline_arg(const char *key, char *val, size_t len)
{
	char line[1024], *tok, *save;
	size_t klen = strlen(key);
	int fd = open("/proc/cmdline", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	line[n > 0 ? n : 0] = '\0';
	for (tok = strtok_r(line, "\n ", &save); tok;
	     tok = strtok_r(NULL, "\n ", &save))
		if (!strncmp(tok, "mmcc.", 5) && !strncmp(tok + 5, key, klen) &&
		    tok[5 + klen] == '=') {
			snprintf(val, len, "%s", tok + 6 + klen);
			return 0;
		}
	return -1;
}

static unsigned int ktap_n, ktap_pass, ktap_fail;
static int results_fd = -1;	/* the results port, when there is one */

/*
 * One "MMCC " line, made whole before it is written: to the console, and
 * to the results port in a single write(), so that it arrives there in
 * one piece whatever else the console carries.
 */
static void mmcc(const char *fmt, ...)
{
	char line[1024] = "MMCC ";
	va_list ap;
	ssize_t n;

	va_start(ap, fmt);
	/* cut to fit, with room left for the newline */
	vsnprintf(line + 5, sizeof(line) - 6, fmt, ap);
	va_end(ap);
	n = strlen(line);
	line[n++] = '\n';
	fwrite(line, 1, n, stdout);
	fflush(stdout);
	if (results_fd >= 0 && write(results_fd, line, n) != n) {
		close(results_fd);
		results_fd = -1;
		printf("e500-init: the results port failed; results on the console only\n");
	}
}

/* /dev/ttyS1 as the results port, raw (no CR added to each line). */
static void results_open(void)
{
	char port[16] = "";
	struct termios t;

	if (cmdline_arg("results", port, sizeof(port)) || strcmp(port, "ttyS1"))
		return;
	results_fd = open("/dev/ttyS1", O_WRONLY | O_NOCTTY);
	if (results_fd < 0) {
		printf("e500-init: no /dev/ttyS1 (%s); results on the console only\n",
		       strerror(errno));
		return;
	}
	if (!tcgetattr(results_fd, &t)) {
		cfmakeraw(&t);
		tcsetattr(results_fd, TCSANOW, &t);
	}
}

/* A KTAP result: "ok N NAME", or "# NAME: WHY" and "not ok N NAME". */
static void result(int ok, const char *name, const char *why)
{
	char text[512];
	size_t i;

	ktap_n++;
	if (ok) {
		ktap_pass++;
		mmcc("ok %u %s", ktap_n, name);
		return;
	}
	ktap_fail++;
	/* the reason on one line */
	for (i = 0; why[i] && i < sizeof(text) - 1; i++)
		text[i] = why[i] == '\n' ? ' ' : why[i];
	text[i] = '\0';
	mmcc("# %s: %s", name, text);
	mmcc("not ok %u %s", ktap_n, name);
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

/*
 * The driver bound to the card's host controller, as "KV host_driver=":
 * the card's device is HOST/mmc_host/mmcN/mmcN:RCA, and HOST's "driver"
 * link names its driver (the e500 test checks which driver took the
 * node: ours, or stock sdhci-of-esdhc on the ppc-stock kernel).
 */
static void report_host_driver(void)
{
	char path[PATH_MAX], link[PATH_MAX] = "";
	char *slash;
	ssize_t n = -1;
	int i;

	if (realpath("/sys/block/mmcblk0/device", path)) {
		for (i = 0; i < 3 && (slash = strrchr(path, '/')); i++)
			*slash = '\0';
		strncat(path, "/driver", sizeof(path) - strlen(path) - 1);
		n = readlink(path, link, sizeof(link) - 1);
	}
	if (n <= 0) {
		mmcc("KV host_driver=none");
		return;
	}
	link[n] = '\0';
	slash = strrchr(link, '/');
	mmcc("KV host_driver=%s", slash ? slash + 1 : link);
}

#define OF_DRIVER	"/sys/bus/platform/drivers/sdhci-esdhc-e500-of"

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

/*
 * A line of blkcheck's: its results ("MMCC RESULT pass|fail NAME [why]",
 * qemu/guest/blkcheck.c) become results of this document; other lines
 * go to the console as they are.
 */
static void blkcheck_line(char *line)
{
	char *name, *why;
	int ok;

	line[strcspn(line, "\n")] = '\0';
	if (!strncmp(line, "MMCC RESULT pass ", 17)) {
		ok = 1;
	} else if (!strncmp(line, "MMCC RESULT fail ", 17)) {
		ok = 0;
	} else {
		if (!strncmp(line, "MMCC ", 5))
			mmcc("%s", line + 5);
		else
			printf("%s\n", line);
		return;
	}
	name = line + 17;
	why = strchr(name, ' ');
	if (why)
		*why++ = '\0';
	else
		why = "";
	result(ok, name, why);
}

static void run_blkcheck(const char *const argv[])
{
	char line[1024];
	int fd[2], st;
	FILE *in;
	pid_t pid;

	if (pipe(fd)) {
		result(0, argv[1], "could not run blkcheck (pipe)");
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(fd[1]);
	in = fdopen(fd[0], "r");
	if (in) {
		while (fgets(line, sizeof(line), in))
			blkcheck_line(line);
		fclose(in);
	} else {
		close(fd[0]);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
	    WEXITSTATUS(st) == 127)
		result(0, argv[1], "could not run blkcheck");
}

static int read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return n > 0 ? 0 : -1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#define SEED_CHUNK	16384	/* dd bs=16K, as the x86_64 seed */
#define SEED_FILE	"/mnt/seed"

static unsigned long long marker_base;

/*
 * Phase marker k, as the x86_64 guest's: sync, then read one sector at
 * marker_base + 8 * k with O_DIRECT, so that the card sees exactly that
 * read (cardtrace --marker-base turns it into "phase k").
 */
static int marker(int k)
{
	void *buf;
	int fd, ok;

	sync();
	if (posix_memalign(&buf, 4096, 4096))
		return -1;
	fd = open(DEV, O_RDONLY | O_DIRECT);
	ok = fd >= 0 &&
	     pread(fd, buf, 512, (off_t)(marker_base + 8 * k) * 512) == 512;
	if (fd >= 0)
		close(fd);
	free(buf);
	mmcc("MARKER %d", k);
	return ok ? 0 : -1;
}

/*
 * The seed file's chunk i: a fixed body, each 512-byte sector starting
 * with its sector number in the file (big-endian), so that a sector
 * written to the wrong place or lost is found. qemu/run-e500.sh checks
 * the file on the card image against the same pattern.
 */
static void seed_chunk(unsigned char *buf, unsigned int i)
{
	static unsigned char body[SEED_CHUNK];
	static int body_made;
	unsigned int s, n;

	if (!body_made) {
		for (s = 0; s < SEED_CHUNK; s++)
			body[s] = pattern_byte(7, s);
		body_made = 1;
	}
	memcpy(buf, body, SEED_CHUNK);
	for (s = 0; s < SEED_CHUNK / 512; s++) {
		n = i * (SEED_CHUNK / 512) + s;
		buf[s * 512] = n >> 24;
		buf[s * 512 + 1] = n >> 16;
		buf[s * 512 + 2] = n >> 8;
		buf[s * 512 + 3] = n;
	}
}

static int seed_write(unsigned int chunks)
{
	static unsigned char buf[SEED_CHUNK];
	unsigned int i;
	int fd = open(SEED_FILE, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return -1;
	for (i = 0; i < chunks; i++) {
		seed_chunk(buf, i);
		if (write(fd, buf, SEED_CHUNK) != SEED_CHUNK) {
			close(fd);
			return -1;
		}
	}
	return close(fd);
}

/* The scheduler's statistics as "MMCC STAT name value" lines. */
static void print_stats(void)
{
	char line[128];
	FILE *f = fopen(STATS, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		mmcc("STAT %s", line);
	}
	fclose(f);
}

/*
 * The seed's workload (workloads.sh dd_workload on x86_64) on the
 * card under ELEVATOR: a file of MIB MiB written through ext2 and synced
 * between phase markers 1 and 2.
 */
static void run_seed(const char *elevator, unsigned int mib)
{
	unsigned int chunks = mib * (1024 * 1024 / SEED_CHUNK);
	char buf[256], why[128];
	unsigned long long sectors = 0;
	double t0, ts, t1;
	struct stat st;
	int ok;

	if (!read_text("/sys/block/mmcblk0/size", buf, sizeof(buf)))
		sectors = strtoull(buf, NULL, 10);
	if (sectors < 4096) {
		result(0, "seed_card_size", buf);
		return;
	}
	marker_base = sectors - 1024;
	mmcc("KV card_sectors=%llu", sectors);
	mmcc("KV marker_base=%llu", marker_base);
	if (*elevator && write_file(SCHED, elevator)) {
		result(0, "seed_elevator", strerror(errno));
		return;
	}
	read_text(SCHED, buf, sizeof(buf));
	mmcc("KV scheduler=%s", buf);
	snprintf(why, sizeof(why), "[%s]", elevator);
	result(!*elevator || strstr(buf, why), "seed_elevator", buf);
	if (mount(DEV, "/mnt", "ext2", 0, NULL)) {
		result(0, "seed_mount", strerror(errno));
		return;
	}
	mmcc("KV fs=ext2 file_kib=%u", mib * 1024);

	ok = !marker(1);
	t0 = now_s();
	ok &= !seed_write(chunks);
	ts = now_s();
	sync();
	t1 = now_s();
	ok &= !marker(2);
	mmcc("KV guest_seconds=%.2f", t1 - t0);
	mmcc("KV guest_kbps=%.0f", mib * 1024 / (t1 - t0));
	mmcc("KV workload_kbps=%.0f", mib * 1024 / (ts - t0));
	mmcc("KV sync_seconds=%.2f", t1 - ts);
	result(ok, "seed_write", "write, sync or a marker read failed");
	print_stats();
	if (strstr(buf, "[coalesce]")) {
		long held = stat_value("held");

		snprintf(why, sizeof(why), "held=%ld writes_in=%ld", held,
			 stat_value("writes_in"));
		result(held > 0, "seed_window_held_writes", why);
	}
	ok = !stat(SEED_FILE, &st) && st.st_size == (off_t)mib << 20;
	result(ok, "seed_file_size", "not the size written");

	ok = !umount("/mnt");
	result(ok, "seed_umount", ok ? "" : strerror(errno));
}

/*
 * The kernel log shows ERE PATTERN on a line, read every 0.5 s until
 * SECONDS have passed (the deadline bounds the wait: usleep() returned
 * at once in a TCG run).
 */
static int klog_shows(const char *pattern, double seconds)
{
	static char log[1 << 18];
	double end = now_s() + seconds;
	regex_t re;
	int n, found;

	if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB | REG_NEWLINE))
		return 0;
	for (;;) {
		n = klogctl(3, log, sizeof(log) - 1);	/* SYSLOG_ACTION_READ_ALL */
		log[n > 0 ? n : 0] = '\0';
		found = !regexec(&re, log, 0, NULL, 0);
		if (found || now_s() >= end)
			break;
		usleep(500000);
	}
	regfree(&re);
	return found;
}

#define LKDTM	"/sys/kernel/debug/provoke-crash/DIRECT"

/* The detectors, each made to report once (mmcc.e500=lkdtm). */
static void run_lkdtm(void)
{
	pid_t pid;
	int fd;

	if (access(LKDTM, W_OK)) {
		result(0, "lkdtm", "no " LKDTM " (CONFIG_LKDTM, debugfs)");
		return;
	}
	write_file(LKDTM, "WARNING");
	result(klog_shows("WARNING: CPU: [0-9]+ PID: [0-9]+ at .*lkdtm", 0),
	       "lkdtm_warning", "no WARNING in the kernel log after LKDTM's WARNING");
	write_file("/proc/sys/kernel/hung_task_timeout_secs", "2");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		/* in D state for good, holding nothing of ours */
		if (results_fd >= 0)
			close(results_fd);
		fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, STDIN_FILENO);
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		write_file(LKDTM, "HUNG_TASK");
		_exit(1);
	}
	result(pid > 0 && klog_shows("blocked for more than [0-9]+ seconds", 15),
	       "lkdtm_hung_task", "no hung-task report within 15 s at a 2 s limit");
}

/* After the document: the soft lockup and the RCU stall, then a panic. */
static void lkdtm_spin(void)
{
	write_file("/proc/sys/kernel/watchdog_thresh", "1");
	write_file("/sys/module/rcupdate/parameters/rcu_cpu_stall_timeout", "6");
	write_file("/proc/sys/kernel/panic_on_rcu_stall", "1");
	write_file(LKDTM, "SOFTLOCKUP");
}

int main(void)
{
	char rca[32] = "0", arg[64] = "";
	int fd, lkdtm;

	mkdir("/proc", 0755);
	mkdir("/sys", 0755);
	mkdir("/dev", 0755);
	mkdir("/mnt", 0755);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	results_open();
	mmcc("KTAP version 1");
	mmcc("# e500");
	/* blkcheck's scratch area: past the 1 GiB file system */
	setenv("BLKCHECK_BASE", "4194304", 1);
	/* The ioctl is mmc_block's: check it as on the stock stack. */
	setenv("BLKCHECK_STOCK", "1", 1);
	mmcc("BOOTED e500");
	lkdtm = !cmdline_arg("e500", arg, sizeof(arg)) && !strcmp(arg, "lkdtm");
	if (lkdtm) {
		run_lkdtm();
		goto out;
	}

	if (wait_for_card()) {
		result(0, "card_detected", "no readable " DEV " after 30 s");
		goto out;
	}
	result(1, "card_detected", "");
	report_host_driver();
	if (!cmdline_arg("e500", arg, sizeof(arg)) && !strcmp(arg, "seed")) {
		char elevator[32] = "";
		unsigned int mib = 128;

		cmdline_arg("elevator", elevator, sizeof(elevator));
		if (!cmdline_arg("seed_mib", arg, sizeof(arg)))
			mib = strtoul(arg, NULL, 10);
		mmcc("KV seed_mib=%u elevator=%s", mib,
		     *elevator ? elevator : "default");
		run_seed(elevator, mib ? mib : 128);
		goto out;
	}
	select_coalesce();
	/*
	 * No sync grace: the mount writes the superblock with REQ_SYNC, and
	 * on a slow host the metadata writeback that follows can fall
	 * entirely inside the grace, leaving nothing held to check.
	 */
	if (write_file(IOSCHED "sync_grace_ms", "0"))
		result(0, "sync_grace_off", strerror(errno));

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
		char why[128];

		snprintf(why, sizeof(why),
			 "held=%ld dispatched_writes=%ld grace_passed=%ld",
			 held, written, stat_value("grace_passed"));
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
	mmcc("# Totals: pass:%u fail:%u skip:0", ktap_pass, ktap_fail);
	mmcc("DONE");
	fflush(stdout);
	if (lkdtm) {
		if (results_fd >= 0)
			close(results_fd);
		lkdtm_spin();
	}
	reboot(RB_POWER_OFF);
	return 0;
}
