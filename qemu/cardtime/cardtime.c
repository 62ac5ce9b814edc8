// SPDX-License-Identifier: GPL-2.0
/*
 * nbdkit-cardtime-filter - make an image behave in time like a cheap SD
 * card.
 *
 * Every request is charged by the card cost model the analyzer uses
 * (tests/tools/cardtrace/card-model.c, Documentation/card-cost-model.md):
 *  - a write pays its bytes at the write speed plus the internal copies
 *    it forces (AU switches beyond the open AUs, out-of-order writes on a
 *    linear-only card); a write that does not continue the previous
 *    request (different op, or its offset is not the previous end) starts
 *    a new card command and also pays the per-command cost.  QEMU's SD
 *    card sends 512-byte blocks one by one, so a command is a run of
 *    contiguous blocks;
 *  - a zero request is charged exactly like a write of those bytes (a
 *    card has no "write zeroes": the host sends the zeroes as data);
 *  - a read pays its bytes at the read speed, and no command cost;
 *  - trim passes uncharged but ends the current command; flush, extents
 *    and cache pass uncharged and leave the command open.
 *
 * The card is busy until busy_until (CLOCK_MONOTONIC).  A request costing
 * c completes at deadline = max(now, busy_until) + c, waited for with an
 * absolute clock_nanosleep, and busy_until becomes that deadline: the
 * filter's and the plugin's own time is absorbed, not added.
 *
 * Parameters: profile=NAME (profiles.h; default cheap12), and overrides
 * au=SIZE (K/M suffix), open=N, order=linear|any, write-mbps=X,
 * read-mbps=X, copy-mbps=X, cmd-us=X; stats=FILE gets key=value lines at
 * unload.  Among them, a "mark" line for each of the last MARKS_MAX read
 * commands: its first sector, and the seconds charged and bytes written
 * before it.  The guest's phase markers are such reads, so a phase's
 * card time can be read exactly, whatever the host's CPU did meanwhile.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * Userspace: the <stdint.h> types of nbdkit's callback signatures are used
 * throughout, not the kernel's u64/s64 (checkpatch --strict asks for those).
 */

#include <nbdkit-filter.h>

#include "card-model.h"
#include "profiles.h"

#define KIB		1024ull
#define MIB		(1024ull * 1024)
#define AU_MIN		(16 * KIB)	/* SD spec: AU_SIZE 16 KiB ... */
#define AU_MAX		(64 * MIB)	/* ... 64 MiB (SDXC) */
#define AU_STEP		(16 * KIB)
#define OPEN_MAX	64u
#define MBPS_MIN	0.1
#define MBPS_MAX	1000.0
#define CMD_US_MAX	1000000.0
#define NS_PER_S	1000000000ll
#define MARKS_MAX	32

enum op { OP_NONE, OP_WRITE, OP_READ, OP_TRIM };

/* Overrides from the command line; unset: 0 or negative. */
static struct {
	const char *profile;
	uint64_t au_bytes;
	unsigned int open_aus;
	int linear;		/* -1 unset, 0 any, 1 linear */
	double write_mbps, read_mbps, copy_mbps, cmd_us;
	const char *stats_path;
} cfg = {
	.profile = CARD_PROFILE_DEFAULT,
	.linear = -1,
	.write_mbps = -1, .read_mbps = -1, .copy_mbps = -1, .cmd_us = -1,
};

static const struct card_profile *profile;
static struct card_params params;
static struct card_model model;
static bool model_ready;
static FILE *stats_file;

/* Everything below is protected by lock. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int64_t busy_until;	/* ns, CLOCK_MONOTONIC */
static enum op last_op = OP_NONE;
static uint64_t last_end;	/* byte after the previous request */
static uint64_t last_au = UINT64_MAX;	/* AU of the last command's start */
static struct {
	uint64_t writes, reads, commands, bytes, bytes_read;
	uint64_t au_switches;
	double seconds_charged, read_seconds, copy_sectors;
} st;
static struct {
	uint64_t sector, bytes;
	double seconds;
} marks[MARKS_MAX];
static unsigned int nr_marks;	/* read commands seen; the ring's head */

static int bad_number(const char *key, const char *value, double min,
		      double max)
{
	nbdkit_error("cardtime: %s=%s: must be a number from %g to %g",
		     key, value, min, max);
	return -1;
}

static int parse_double(const char *key, const char *value, double min,
			double max, double *out)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(value, &end);
	if (errno || end == value || *end || !isfinite(x) ||
	    x < min || x > max)
		return bad_number(key, value, min, max);
	*out = x;
	return 0;
}

/* A size in bytes, with an optional K or M suffix (KiB, MiB). */
static int parse_au(const char *value, uint64_t *out)
{
	unsigned long long x;
	char *end;

	errno = 0;
	x = strtoull(value, &end, 10);
	if (errno || end == value || *value == '-' || *value == '+')
		goto bad;
	if ((*end == 'K' || *end == 'k') && x <= AU_MAX) {
		x *= KIB;
		end++;
	} else if ((*end == 'M' || *end == 'm') && x <= AU_MAX) {
		x *= MIB;
		end++;
	}
	if (*end || x < AU_MIN || x > AU_MAX || x % AU_STEP)
		goto bad;
	*out = x;
	return 0;
bad:
	nbdkit_error("cardtime: au=%s: must be 16K to 64M, a multiple of 16K (K=KiB, M=MiB)",
		     value);
	return -1;
}

static int parse_open(const char *value, unsigned int *out)
{
	unsigned long x;
	char *end;

	errno = 0;
	x = strtoul(value, &end, 10);
	if (errno || end == value || *end || *value == '-' ||
	    *value == '+' || x < 1 || x > OPEN_MAX) {
		nbdkit_error("cardtime: open=%s: must be a whole number from 1 to %u",
			     value, OPEN_MAX);
		return -1;
	}
	*out = (unsigned int)x;
	return 0;
}

static void list_profiles(const char *value)
{
	char names[256] = "";
	size_t i;

	for (i = 0; i < CARD_PROFILE_COUNT; i++) {
		if (i)
			strncat(names, ", ", sizeof(names) - strlen(names) - 1);
		strncat(names, card_profiles[i].name,
			sizeof(names) - strlen(names) - 1);
	}
	nbdkit_error("cardtime: profile=%s: unknown profile; known: %s",
		     value, names);
}

static int cardtime_config(nbdkit_next_config *next, nbdkit_backend *nxdata,
			   const char *key, const char *value)
{
	if (!strcmp(key, "profile")) {
		if (!card_profile_find(value)) {
			list_profiles(value);
			return -1;
		}
		cfg.profile = value;
		return 0;
	}
	if (!strcmp(key, "au"))
		return parse_au(value, &cfg.au_bytes);
	if (!strcmp(key, "open"))
		return parse_open(value, &cfg.open_aus);
	if (!strcmp(key, "order")) {
		if (!strcmp(value, "linear")) {
			cfg.linear = 1;
		} else if (!strcmp(value, "any")) {
			cfg.linear = 0;
		} else {
			nbdkit_error("cardtime: order=%s: must be linear or any",
				     value);
			return -1;
		}
		return 0;
	}
	if (!strcmp(key, "write-mbps"))
		return parse_double(key, value, MBPS_MIN, MBPS_MAX,
				    &cfg.write_mbps);
	if (!strcmp(key, "read-mbps"))
		return parse_double(key, value, MBPS_MIN, MBPS_MAX,
				    &cfg.read_mbps);
	if (!strcmp(key, "copy-mbps"))
		return parse_double(key, value, MBPS_MIN, MBPS_MAX,
				    &cfg.copy_mbps);
	if (!strcmp(key, "cmd-us"))
		return parse_double(key, value, 0, CMD_US_MAX, &cfg.cmd_us);
	if (!strcmp(key, "stats")) {
		if (!*value) {
			nbdkit_error("cardtime: stats=: needs a file name");
			return -1;
		}
		cfg.stats_path = value;
		return 0;
	}
	return next(nxdata, key, value);
}

static int cardtime_config_complete(nbdkit_next_config_complete *next,
				    nbdkit_backend *nxdata)
{
	int r;

	profile = card_profile_find(cfg.profile);
	params.au_sectors = (cfg.au_bytes ? cfg.au_bytes : profile->au_bytes) /
			    CARD_SECTOR_SIZE;
	params.open_aus = cfg.open_aus ? cfg.open_aus : profile->open_aus;
	params.linear = cfg.linear >= 0 ? cfg.linear : profile->linear;
	params.seq_mbps = cfg.write_mbps > 0 ? cfg.write_mbps :
			  profile->write_mbps;
	params.read_mbps = cfg.read_mbps > 0 ? cfg.read_mbps :
			   profile->read_mbps;
	params.copy_mbps = cfg.copy_mbps > 0 ? cfg.copy_mbps :
			   profile->copy_mbps;
	params.cmd_us = cfg.cmd_us >= 0 ? cfg.cmd_us : profile->cmd_us;

	r = card_model_init(&model, &params);
	if (r) {
		nbdkit_error("cardtime: cannot set up the card model: %s",
			     strerror(-r));
		return -1;
	}
	model_ready = true;
	if (cfg.stats_path) {
		/* opened now: nbdkit may change directory when it forks */
		stats_file = fopen(cfg.stats_path, "w");
		if (!stats_file) {
			nbdkit_error("cardtime: stats=%s: %s", cfg.stats_path,
				     strerror(errno));
			return -1;
		}
	}
	nbdkit_debug("cardtime: profile %s, AU %" PRIu64 " KiB, %u open, %s",
		     profile->name, params.au_sectors / 2, params.open_aus,
		     params.linear ? "linear" : "any order");
	nbdkit_debug("cardtime: write %g, read %g, copy %g MB/s, %g us/command",
		     params.seq_mbps, params.read_mbps, params.copy_mbps,
		     params.cmd_us);
	return next(nxdata);
}

static int cardtime_thread_model(void)
{
	return NBDKIT_THREAD_MODEL_SERIALIZE_REQUESTS;
}

static void write_stats(void)
{
	double finish_copy = model.copy_sectors;
	double finish_s = card_model_finish(&model);
	unsigned int i;

	finish_copy = model.copy_sectors - finish_copy;
	fprintf(stats_file, "profile=%s\n", profile->name);
	fprintf(stats_file, "au_bytes=%llu\n",
		params.au_sectors * CARD_SECTOR_SIZE);
	fprintf(stats_file, "open_aus=%u\n", params.open_aus);
	fprintf(stats_file, "order=%s\n", params.linear ? "linear" : "any");
	fprintf(stats_file, "write_mbps=%g\n", params.seq_mbps);
	fprintf(stats_file, "read_mbps=%g\n", params.read_mbps);
	fprintf(stats_file, "copy_mbps=%g\n", params.copy_mbps);
	fprintf(stats_file, "cmd_us=%g\n", params.cmd_us);
	fprintf(stats_file, "writes=%" PRIu64 "\n", st.writes);
	fprintf(stats_file, "reads=%" PRIu64 "\n", st.reads);
	fprintf(stats_file, "commands=%" PRIu64 "\n", st.commands);
	fprintf(stats_file, "bytes=%" PRIu64 "\n", st.bytes);
	fprintf(stats_file, "bytes_read=%" PRIu64 "\n", st.bytes_read);
	fprintf(stats_file, "seconds_charged=%.6f\n", st.seconds_charged);
	fprintf(stats_file, "read_seconds=%.6f\n", st.read_seconds);
	fprintf(stats_file, "copy_sectors=%.0f\n", st.copy_sectors);
	fprintf(stats_file, "au_switches=%" PRIu64 "\n", st.au_switches);
	fprintf(stats_file, "au_closes=%llu\n", model.au_closes);
	fprintf(stats_file, "finish_copy_sectors=%.0f\n", finish_copy);
	fprintf(stats_file, "finish_seconds=%.6f\n", finish_s);
	i = nr_marks > MARKS_MAX ? nr_marks - MARKS_MAX : 0;
	for (; i < nr_marks; i++)
		fprintf(stats_file, "mark=%" PRIu64 " %.6f %" PRIu64 "\n",
			marks[i % MARKS_MAX].sector,
			marks[i % MARKS_MAX].seconds,
			marks[i % MARKS_MAX].bytes);
}

static void cardtime_unload(void)
{
	pthread_mutex_lock(&lock);
	if (stats_file) {
		if (model_ready)
			write_stats();
		fclose(stats_file);
		stats_file = NULL;
	}
	if (model_ready)
		card_model_free(&model);
	model_ready = false;
	pthread_mutex_unlock(&lock);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

/* Charge one request to the card; returns its deadline in ns. */
static int64_t charge(enum op op, uint32_t count, uint64_t offset)
{
	uint64_t first = offset / CARD_SECTOR_SIZE;
	uint64_t end = (offset + count + CARD_SECTOR_SIZE - 1) /
		       CARD_SECTOR_SIZE;
	double cost = 0, copied, c;
	int64_t start, deadline;

	pthread_mutex_lock(&lock);
	if (op == OP_WRITE) {
		if (last_op != OP_WRITE || offset != last_end) {
			uint64_t au = first / params.au_sectors;

			cost += card_model_cmd_seconds(&model);
			st.commands++;
			if (au != last_au)
				st.au_switches++;
			last_au = au;
		}
		copied = model.copy_sectors;
		c = card_model_write(&model, first, end - first);
		if (c > 0)
			cost += c;
		st.copy_sectors += model.copy_sectors - copied;
		st.writes++;
		st.bytes += count;
	} else if (op == OP_READ) {
		if (last_op != OP_READ || offset != last_end) {
			unsigned int m = nr_marks++ % MARKS_MAX;

			marks[m].sector = first;
			marks[m].seconds = st.seconds_charged;
			marks[m].bytes = st.bytes;
		}
		c = card_model_read_seconds(&model, end - first);
		cost += c;
		st.read_seconds += c;
		st.reads++;
		st.bytes_read += count;
	}
	last_op = op;
	last_end = offset + count;
	st.seconds_charged += cost;

	start = now_ns();
	if (start < busy_until)
		start = busy_until;
	deadline = start + (int64_t)llround(cost * 1e9);
	busy_until = deadline;
	pthread_mutex_unlock(&lock);
	return deadline;
}

static void wait_until(int64_t deadline)
{
	struct timespec ts = {
		.tv_sec = deadline / NS_PER_S,
		.tv_nsec = deadline % NS_PER_S,
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

static int cardtime_pread(nbdkit_next *next, void *handle, void *buf,
			  uint32_t count, uint64_t offset, uint32_t flags,
			  int *err)
{
	int64_t deadline = charge(OP_READ, count, offset);
	int r = next->pread(next, buf, count, offset, flags, err);

	wait_until(deadline);
	return r;
}

static int cardtime_pwrite(nbdkit_next *next, void *handle,
			   const void *buf, uint32_t count, uint64_t offset,
			   uint32_t flags, int *err)
{
	int64_t deadline = charge(OP_WRITE, count, offset);
	int r = next->pwrite(next, buf, count, offset, flags, err);

	wait_until(deadline);
	return r;
}

static int cardtime_zero(nbdkit_next *next, void *handle, uint32_t count,
			 uint64_t offset, uint32_t flags, int *err)
{
	int64_t deadline = charge(OP_WRITE, count, offset);
	int r = next->zero(next, count, offset, flags, err);

	wait_until(deadline);
	return r;
}

static int cardtime_trim(nbdkit_next *next, void *handle, uint32_t count,
			 uint64_t offset, uint32_t flags, int *err)
{
	charge(OP_TRIM, count, offset);	/* costs 0, ends the command */
	return next->trim(next, count, offset, flags, err);
}

static struct nbdkit_filter filter = {
	.name = "cardtime",
	.longname = "nbdkit SD card timing filter",
	.description = "charge requests the time a cheap SD card would take",
	.config = cardtime_config,
	.config_complete = cardtime_config_complete,
	.config_help =
		"profile=NAME     card profile (default " CARD_PROFILE_DEFAULT ")\n"
		"au=SIZE          allocation unit, 16K-64M\n"
		"open=N           open AUs, 1-64\n"
		"order=linear|any order the card accepts inside an open AU\n"
		"write-mbps=X     sequential write speed, MB/s\n"
		"read-mbps=X      read speed, MB/s\n"
		"copy-mbps=X      internal copy speed, MB/s\n"
		"cmd-us=X         cost of one write command, microseconds\n"
		"stats=FILE       key=value statistics written at unload",
	.thread_model = cardtime_thread_model,
	.unload = cardtime_unload,
	.pread = cardtime_pread,
	.pwrite = cardtime_pwrite,
	.zero = cardtime_zero,
	.trim = cardtime_trim,
};

NBDKIT_REGISTER_FILTER(filter)
