// SPDX-License-Identifier: GPL-2.0
/*
 * cardtrace - what did the SD card actually receive?
 *
 * Reads a card-level trace and reconstructs the ordered list of data
 * commands (start sector, sectors), then reports how a cheap SD card
 * would have liked that order: commands, small writes, allocation-unit
 * (AU) switches, backward writes inside an AU, and an estimated card time
 * under the cost model described in Documentation/card-cost-model.md.
 *
 * Inputs (detected per line):
 *  - QEMU's "log" trace backend with the sdcard_normal_command event and
 *    sdhci_adma_loop (or sdcard_write_block/sdcard_read_block) for lengths;
 *  - blkparse text from a real board (the D, issue, events are used);
 *  - the kernel's block_rq_issue event as tracefs prints it;
 *  - this tool's own --dump format: "<time_us> <W|R> <sector> <sectors>".
 *
 * Phase markers: the guest reads one sector at marker_base + 8 * k to mark
 * the start of phase k.  Such reads are taken out of the command list and
 * turned into "# phase k" entries, so --from/--to can isolate a workload
 * from mkfs and boot.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "card-floor.h"
#include "card-model.h"

/* The kernel's spelling of fixed-size types, so the code reads the same. */
typedef unsigned int u32;
#define U64_MAX		ULLONG_MAX
#define U32_MAX		UINT_MAX

#define SECTOR_SIZE		512u
#define ADMA_ATTR_ACT_MASK	0x30u
#define ADMA_ATTR_ACT_TRAN	0x20u
#define ADMA_MAX_LEN		65536u
#define MARKER_SLOTS		128u
#define MARKER_STRIDE		8u

enum cmd_op { OP_WRITE = 'W', OP_READ = 'R', OP_PHASE = 'P' };

struct cmd {
	u64 t_us;		/* arrival at the card, microseconds */
	u64 start;		/* first sector */
	u32 sectors;	/* length; for OP_PHASE the phase number */
	char op;
};

struct cmd_list {
	struct cmd *v;
	size_t n, cap;
};

struct options {
	u64 au_sectors;
	u64 marker_base;	/* 0: no markers */
	long from_phase, to_phase;	/* -1: not given */
	u32 small_sectors;
	bool byte_addr;		/* SDSC: command arguments are bytes */
	bool dump, kv, lenient;
	long excerpt;
	/* the floor: trace times further apart than this cannot be sent together */
	u64 floor_gap_us;
	/* cost model */
	unsigned int open_aus;
	double seq_mbps, copy_mbps, cmd_overhead_us;
};

static const char *prog = "cardtrace";

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void push(struct cmd_list *l, struct cmd c)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 1024;
		struct cmd *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			die("out of memory (%ld commands)", (long)l->n);
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = c;
}

/* ------------------------------------------------------------------ */
/* Parsing                                                            */
/* ------------------------------------------------------------------ */

struct parser {
	const struct options *opt;
	struct cmd_list *out;
	long lineno;
	const char *line;
	/* QEMU state: the data command whose length is being summed */
	bool open;
	bool len_from_blocks;	/* sdcard_*_block lines seen for it */
	struct cmd cur;
	u64 adma_bytes, block_bytes;
	u32 set_block_count;	/* CMD23 argument, 0 if none */
	int errors;
};

static void bad_line(struct parser *p, const char *what)
{
	char shown[121];
	size_t n = strcspn(p->line, "\r\n");

	if (n > 120)
		n = 120;
	memcpy(shown, p->line, n);
	shown[n] = '\0';
	if (p->opt->lenient) {
		fprintf(stderr, "%s: line %ld: skipped malformed %s: %s\n",
			prog, p->lineno, what, shown);
		p->errors++;
		return;
	}
	fprintf(stderr, "%s: line %ld: malformed %s: %s\n",
		prog, p->lineno, what, shown);
	fprintf(stderr, "%s: (use --lenient to skip such lines)\n", prog);
	exit(2);
}

/* Returns the phase number if (op, start) is a marker read, else -1. */
static long marker_of(const struct options *opt, char op, u64 start)
{
	u64 off;

	if (!opt->marker_base || op != OP_READ || start < opt->marker_base)
		return -1;
	off = start - opt->marker_base;
	if (off % MARKER_STRIDE || off / MARKER_STRIDE >= MARKER_SLOTS)
		return -1;
	return (long)(off / MARKER_STRIDE);
}

static void emit(struct parser *p, struct cmd c)
{
	long phase = marker_of(p->opt, c.op, c.start);

	if (phase >= 0) {
		c.op = OP_PHASE;
		c.start = 0;
		c.sectors = (u32)phase;
	}
	push(p->out, c);
}

static void qemu_close(struct parser *p)
{
	u64 bytes;

	if (!p->open)
		return;
	p->open = false;
	if (p->len_from_blocks)
		bytes = p->block_bytes;
	else if (p->adma_bytes)
		bytes = p->adma_bytes;
	else if (p->set_block_count)
		bytes = (u64)p->set_block_count * SECTOR_SIZE;
	else
		bytes = p->cur.sectors * (u64)SECTOR_SIZE;
	p->set_block_count = 0;
	if (!bytes)
		return;		/* aborted before any data moved */
	p->cur.sectors = (u32)((bytes + SECTOR_SIZE - 1) / SECTOR_SIZE);
	emit(p, p->cur);
}

static bool parse_u64(const char *s, int base, u64 *v, const char **end)
{
	char *e;

	errno = 0;
	if (!isxdigit((unsigned char)*s))
		return false;
	*v = strtoull(s, &e, base);
	if (errno || e == s)
		return false;
	if (end)
		*end = e;
	return true;
}

/* "PID@SEC.USEC:event ..." -> microseconds; 0 when there is no stamp. */
static u64 qemu_stamp(const char *line)
{
	unsigned long long sec, usec;
	const char *at = strchr(line, '@');
	const char *colon = strchr(line, ':');

	if (!at || !colon || at > colon)
		return 0;
	if (sscanf(at + 1, "%llu.%llu", &sec, &usec) != 2)
		return 0;
	return sec * 1000000ull + usec;
}

static void qemu_command(struct parser *p, const char *ev)
{
	const char *c = strstr(ev, "CMD");
	const char *a = strstr(ev, " arg 0x");
	u64 num, arg;
	bool is_app = strncmp(ev, "sdcard_app_command", 18) == 0;

	if (!c || !a || !parse_u64(c + 3, 10, &num, NULL) ||
	    !parse_u64(a + 7, 16, &arg, NULL) || arg > 0xffffffffull) {
		bad_line(p, is_app ? "sdcard_app_command" :
			 "sdcard_normal_command");
		return;
	}
	if (is_app) {
		/* ACMDs move no file data; any data they move is not ours */
		qemu_close(p);
		return;
	}
	switch (num) {
	case 12:	/* STOP_TRANSMISSION */
	case 13:	/* SEND_STATUS */
		return;
	case 23:	/* SET_BLOCK_COUNT precedes the data command */
		qemu_close(p);
		p->set_block_count = (u32)(arg & 0xffff);
		return;
	case 17: case 18: case 24: case 25: {
		u32 sbc = p->set_block_count;

		qemu_close(p);
		p->open = true;
		p->len_from_blocks = false;
		p->adma_bytes = 0;
		p->block_bytes = 0;
		p->set_block_count = sbc;
		p->cur.t_us = qemu_stamp(p->line);
		p->cur.op = (num == 24 || num == 25) ? OP_WRITE : OP_READ;
		p->cur.start = p->opt->byte_addr ? arg / SECTOR_SIZE : arg;
		/* single-block commands: one block unless lengths say more */
		p->cur.sectors = (num == 17 || num == 24) ? 1 : 0;
		return;
	}
	default:
		qemu_close(p);
		p->set_block_count = 0;
		return;
	}
}

static void qemu_adma(struct parser *p, const char *ev)
{
	const char *l = strstr(ev, "len=");
	const char *a = strstr(ev, "attr=0x");
	u64 len, attr;

	if (!l || !a || !parse_u64(l + 4, 10, &len, NULL) ||
	    !parse_u64(a + 7, 16, &attr, NULL) || len > ADMA_MAX_LEN) {
		bad_line(p, "sdhci_adma_loop");
		return;
	}
	if (!p->open || (attr & ADMA_ATTR_ACT_MASK) != ADMA_ATTR_ACT_TRAN)
		return;
	p->adma_bytes += len ? len : ADMA_MAX_LEN;
}

static void qemu_block(struct parser *p, const char *ev)
{
	const char *s = strstr(ev, "size 0x");
	u64 size;

	if (!s || !parse_u64(s + 7, 16, &size, NULL) || !size ||
	    size > ADMA_MAX_LEN) {
		bad_line(p, "sdcard block event");
		return;
	}
	if (!p->open)
		return;
	p->len_from_blocks = true;
	p->block_bytes += size;
}

/* "<time_us> <W|R> <sector> <sectors>" or "# phase K" */
static bool parse_dump(struct parser *p, const char *s)
{
	unsigned long long t, start, n;
	struct cmd c;
	char op;
	int used = 0;
	long phase;

	if (sscanf(s, "# phase %ld%n", &phase, &used) == 1 && used) {
		if (phase < 0 || phase >= (long)MARKER_SLOTS) {
			bad_line(p, "phase line");
			return true;
		}
		memset(&c, 0, sizeof(c));
		c.op = OP_PHASE;
		c.sectors = (u32)phase;
		push(p->out, c);
		return true;
	}
	if (!isdigit((unsigned char)*s))
		return false;
	if (sscanf(s, "%llu %c %llu %llu %n", &t, &op, &start, &n, &used) != 4)
		return false;
	if ((op != 'W' && op != 'R') || !n || n > U32_MAX ||
	    s[used] != '\0') {
		bad_line(p, "command line");
		return true;
	}
	c.t_us = t;
	c.op = op;
	c.start = start;
	c.sectors = (u32)n;
	emit(p, c);
	return true;
}

/* A flush or a discard, in a request's "rwbs" flags, moves no data. */
static bool rwbs_moves_data(const char *rwbs)
{
	return strchr(rwbs, 'W') || strchr(rwbs, 'R');
}

/* A request the block layer issued (blkparse, tracefs): one command. */
static void emit_issue(struct parser *p, double t_s, const char *rwbs,
		       u64 start, u32 sectors)
{
	struct cmd c = {
		.t_us = (u64)(t_s * 1e6 + 0.5),
		.op = strchr(rwbs, 'W') ? OP_WRITE : OP_READ,
		.start = start,
		.sectors = sectors,
	};

	emit(p, c);
}

/*
 * blkparse default format:
 *   "  179,0    0       12     0.004200000   311  D   W 270360 + 8 [kworker]"
 * Events without a sector range (plug "P   N", unplug "U   N [x] 1",
 * messages "m   N ...") are blkparse lines too, and carry no command.
 */
static bool parse_blkparse(struct parser *p, const char *s)
{
	unsigned int maj, min, cpu;
	unsigned long long seq, start, n;
	double t;
	int pid;
	char act[8], rwbs[16];

	if (sscanf(s, " %u,%u %u %llu %lf %d %7s", &maj, &min, &cpu, &seq,
		   &t, &pid, act) != 7)
		return false;
	if (strcmp(act, "D") != 0)
		return true;	/* queue/complete events: counted at issue */
	if (sscanf(s, " %*u,%*u %*u %*u %*f %*d %*7s %15s %llu + %llu",
		   rwbs, &start, &n) != 3)
		return true;	/* an issue with no range: no data */
	if (!rwbs_moves_data(rwbs))
		return true;
	if (!n || n > U32_MAX) {
		bad_line(p, "blkparse line");
		return true;
	}
	emit_issue(p, t, rwbs, start, (u32)n);
	return true;
}

/*
 * The kernel's own block_rq_issue event, as tracefs prints it (no
 * blktrace needed on the board):
 *   "dd-311 [000] ..... 12.004200: block_rq_issue: 179,0 W 4096 () 270360 + 8 [dd]"
 * Linux 6.12 adds the I/O priority after the range. A request with no
 * data (a flush) has no range to write.
 */
static void parse_rq_issue(struct parser *p, const char *s, const char *ev)
{
	unsigned long long start, n;
	unsigned int bytes;
	char rwbs[16];
	const char *stamp = ev, *cmd;
	double t = 0;

	/* the stamp is the word before the event's name, "12.004200:" */
	while (stamp > s && stamp[-1] == ' ')
		stamp--;
	while (stamp > s && stamp[-1] != ' ')
		stamp--;
	cmd = strstr(ev, ") ");
	if (sscanf(stamp, "%lf:", &t) != 1 ||
	    sscanf(ev, "block_rq_issue: %*u,%*u %15s %u (", rwbs, &bytes) != 2 ||
	    !cmd || sscanf(cmd, ") %llu + %llu", &start, &n) != 2 || n > U32_MAX) {
		bad_line(p, "block_rq_issue line");
		return;
	}
	if (n && rwbs_moves_data(rwbs))
		emit_issue(p, t, rwbs, start, (u32)n);
}

static void parse_line(struct parser *p, const char *s)
{
	const char *ev;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s || *s == '\n')
		return;

	ev = strstr(s, "sdcard_normal_command");
	if (!ev)
		ev = strstr(s, "sdcard_app_command");
	if (ev) {
		qemu_command(p, ev);
		return;
	}
	ev = strstr(s, "sdhci_adma_loop");
	if (ev) {
		qemu_adma(p, ev);
		return;
	}
	ev = strstr(s, "sdcard_write_block");
	if (!ev)
		ev = strstr(s, "sdcard_read_block");
	if (ev) {
		qemu_block(p, ev);
		return;
	}
	ev = strstr(s, "block_rq_issue: ");
	if (ev) {
		parse_rq_issue(p, s, ev);
		return;
	}
	if (parse_blkparse(p, s) || parse_dump(p, s))
		return;
	/* Anything else: other trace events, comments, console noise. */
}

static void read_trace(FILE *f, const struct options *opt,
		       struct cmd_list *out)
{
	struct parser p = { .opt = opt, .out = out };
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	while ((len = getline(&line, &cap, f)) >= 0) {
		p.lineno++;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (memchr(line, '\0', (size_t)len)) {
			p.line = "(binary data)";
			bad_line(&p, "line (NUL byte)");
			continue;
		}
		p.line = line;
		parse_line(&p, line);
	}
	qemu_close(&p);
	free(line);
	if (ferror(f))
		die("read error after line %ld", p.lineno);
	if (p.errors)
		fprintf(stderr, "%s: %d malformed line(s) skipped\n", prog,
			p.errors);
}

/* Keep the commands between phase markers from and to. */
static void select_phases(struct cmd_list *l, const struct options *opt)
{
	size_t i, o = 0;
	bool in = opt->from_phase < 0, seen_from = in, seen_to = false;

	for (i = 0; i < l->n; i++) {
		struct cmd c = l->v[i];

		if (c.op == OP_PHASE) {
			if (!seen_from && (long)c.sectors == opt->from_phase) {
				in = true;
				seen_from = true;
			} else if (in && (long)c.sectors == opt->to_phase) {
				in = false;
				seen_to = true;
			}
		}
		if (in)
			l->v[o++] = c;
	}
	if (!seen_from)
		die("phase marker %ld not found in the trace",
		    opt->from_phase);
	if (opt->to_phase >= 0 && !seen_to)
		die("phase marker %ld not found after --from",
		    opt->to_phase);
	l->n = o;
}

/* ------------------------------------------------------------------ */
/* Report                                                             */
/* ------------------------------------------------------------------ */

struct stats {
	u64 writes, reads, small, bytes_written, bytes_read;
	u64 au_switches, distinct_aus, backward, phases;
	u64 first_us, last_us;
	/* the longest wait from one write command to the next: a stall */
	u64 last_write_us, max_write_gap_us;
	double est_linear_s, est_any_s, limit_s;
	/* the part of the estimates that closing every AU at the end adds */
	double finish_linear_s, finish_any_s;
	u64 closes_linear, closes_any;
	struct card_floor floor;	/* what any order would cost at least */
	/* 4 KiB blocks written more than once, and the writes past the first */
	u64 rewritten_blocks, rewrites;
};

#define BLOCK_SECTORS	8	/* the page a file system rewrites */

/* How many 4 KiB blocks were written more than once, and how often. */
static void count_rewrites(const struct cmd_list *l, struct stats *st)
{
	u64 nblocks = 0, b;
	unsigned char *seen;	/* writes per block, saturating */
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i].op == OP_WRITE && l->v[i].sectors) {
			b = (l->v[i].start + l->v[i].sectors - 1) /
			    BLOCK_SECTORS + 1;
			if (b > nblocks)
				nblocks = b;
		}
	seen = calloc(nblocks ? nblocks : 1, 1);
	if (!seen)
		die("out of memory (%llu blocks)", nblocks);
	for (i = 0; i < l->n; i++) {
		const struct cmd *c = &l->v[i];

		if (c->op != OP_WRITE || !c->sectors)
			continue;
		for (b = c->start / BLOCK_SECTORS;
		     b <= (c->start + c->sectors - 1) / BLOCK_SECTORS; b++) {
			if (seen[b] == 1)
				st->rewritten_blocks++;
			if (seen[b])
				st->rewrites++;
			if (seen[b] < 2)
				seen[b]++;
		}
	}
	free(seen);
}

/* The AU index of the last sector any write touches, bounded for sanity. */
static u64 max_au_of(const struct cmd_list *l, const struct options *opt)
{
	u64 max = 0;
	size_t i;

	for (i = 0; i < l->n; i++) {
		const struct cmd *c = &l->v[i];
		u64 au;

		if (c->op != OP_WRITE)
			continue;
		au = (c->start + c->sectors - 1) / opt->au_sectors;
		if (au > max)
			max = au;
	}
	if (max >= (1u << 26))
		die("write beyond %llu AUs: wrong --au-kb or --sdsc?",
		    max);
	return max;
}

/* Cost model: see card-model.c and Documentation/card-cost-model.md. */
static void model_init(struct card_model *m, struct card_params *par,
		       bool linear)
{
	int r;

	par->linear = linear;
	r = card_model_init(m, par);
	if (r)
		die("card model (%u open AUs of %llu sectors): %s",
		    par->open_aus, (u64)par->au_sectors, strerror(-r));
}

static void analyze(const struct cmd_list *l, const struct options *opt,
		    struct stats *st)
{
	struct card_params par = {
		.au_sectors = opt->au_sectors, .open_aus = opt->open_aus,
		.seq_mbps = opt->seq_mbps, .copy_mbps = opt->copy_mbps,
		.cmd_us = opt->cmd_overhead_us,
	};
	struct card_model lin, any;
	u64 prev_au = U64_MAX, naus = max_au_of(l, opt) + 1;
	u64 *end_of;	/* highest end written so far, per AU */
	u64 written_sectors = 0;
	struct card_extent *ext;
	size_t i, next = 0;
	int r;

	memset(st, 0, sizeof(*st));
	end_of = calloc(naus, sizeof(*end_of));
	ext = malloc((l->n ? l->n : 1) * sizeof(*ext));
	if (!end_of || !ext)
		die("out of memory (%llu AUs, %ld commands)", naus, (long)l->n);
	model_init(&lin, &par, true);
	model_init(&any, &par, false);

	for (i = 0; i < l->n; i++) {
		const struct cmd *c = &l->v[i];
		u64 s, e, au;

		if (c->op == OP_PHASE) {
			st->phases++;
			continue;
		}
		if (!st->writes && !st->reads)
			st->first_us = c->t_us;
		st->last_us = c->t_us;
		if (c->op == OP_READ) {
			st->reads++;
			st->bytes_read += (u64)c->sectors * SECTOR_SIZE;
			continue;
		}
		if (st->writes && c->t_us > st->last_write_us &&
		    c->t_us - st->last_write_us > st->max_write_gap_us)
			st->max_write_gap_us = c->t_us - st->last_write_us;
		st->last_write_us = c->t_us;
		st->writes++;
		written_sectors += c->sectors;
		ext[next].t_us = c->t_us;
		ext[next].start = c->start;
		ext[next++].sectors = c->sectors;
		if (c->sectors <= opt->small_sectors)
			st->small++;
		au = c->start / opt->au_sectors;
		if (au != prev_au)
			st->au_switches++;
		prev_au = au;
		if (end_of[au] && c->start < end_of[au])
			st->backward++;
		/* The model splits the command at AU boundaries itself. */
		card_model_write(&lin, c->start, c->sectors);
		card_model_write(&any, c->start, c->sectors);
		for (s = c->start, e = c->start + c->sectors; s < e;) {
			u64 lim, n;

			au = s / opt->au_sectors;
			lim = (au + 1) * opt->au_sectors;
			n = (e < lim ? e : lim) - s;
			if (s + n > end_of[au])
				end_of[au] = s + n;
			s += n;
		}
	}
	st->finish_linear_s = card_model_finish(&lin);
	st->finish_any_s = card_model_finish(&any);

	st->bytes_written = written_sectors * SECTOR_SIZE;
	st->limit_s = (double)st->bytes_written / (opt->seq_mbps * 1e6);
	st->est_linear_s = card_model_seconds(&par, st->writes,
					      written_sectors, lin.copy_sectors);
	st->est_any_s = card_model_seconds(&par, st->writes, written_sectors,
					   any.copy_sectors);
	st->closes_linear = lin.au_closes;
	st->closes_any = any.au_closes;
	r = card_floor(&par, ext, next, opt->floor_gap_us, &st->floor);
	if (r)
		die("the floor: %s", strerror(-r));
	st->distinct_aus = st->floor.aus;	/* the AUs any write touched */
	count_rewrites(l, st);

	free(ext);
	free(end_of);
	card_model_free(&lin);
	card_model_free(&any);
}

static double mbps(u64 bytes, double s)
{
	return s > 0 ? (double)bytes / s / 1e6 : 0.0;
}

static void report_kv(const struct stats *st)
{
	printf("writes=%llu\n", st->writes);
	printf("reads=%llu\n", st->reads);
	printf("small_writes=%llu\n", st->small);
	printf("bytes_written=%llu\n", st->bytes_written);
	printf("au_switches=%llu\n", st->au_switches);
	printf("distinct_aus=%llu\n", st->distinct_aus);
	printf("switch_ratio=%.2f\n", st->distinct_aus ?
	       (double)st->au_switches / st->distinct_aus : 0.0);
	printf("backward_writes=%llu\n", st->backward);
	printf("limit_s=%.3f\n", st->limit_s);
	printf("est_linear_s=%.3f\n", st->est_linear_s);
	printf("est_any_s=%.3f\n", st->est_any_s);
	printf("est_linear_mbps=%.2f\n",
	       mbps(st->bytes_written, st->est_linear_s));
	printf("est_any_mbps=%.2f\n", mbps(st->bytes_written, st->est_any_s));
	printf("au_closes_linear=%llu\n", st->closes_linear);
	printf("au_closes_any=%llu\n", st->closes_any);
	printf("span_s=%.3f\n", (st->last_us - st->first_us) / 1e6);
	printf("max_write_gap_ms=%.1f\n", st->max_write_gap_us / 1e3);
	printf("bytes_read=%llu\n", st->bytes_read);
	printf("finish_linear_s=%.3f\n", st->finish_linear_s);
	printf("finish_any_s=%.3f\n", st->finish_any_s);
	printf("floor_s=%.3f\n", st->floor.seconds);
	printf("floor_mbps=%.2f\n", mbps(st->bytes_written, st->floor.seconds));
	printf("floor_commands=%llu\n", st->floor.runs);
	printf("floor_copy_sectors=%.0f\n", st->floor.copy_sectors);
	printf("floor_linear_s=%.3f\n", st->floor.linear_seconds);
	printf("floor_linear_mbps=%.2f\n",
	       mbps(st->bytes_written, st->floor.linear_seconds));
	printf("floor_linear_copy_sectors=%.0f\n",
	       st->floor.linear_copy_sectors);
	printf("floor_linear_openings=%llu\n", st->floor.openings);
	printf("floor_switches=%llu\n", st->floor.switches);
	printf("floor_switch_ratio=%.2f\n", st->distinct_aus ?
	       (double)st->floor.switches / st->distinct_aus : 0.0);
	printf("est_linear_over_floor=%.2f\n", st->floor.linear_seconds > 0 ?
	       st->est_linear_s / st->floor.linear_seconds : 0.0);
	printf("est_any_over_floor=%.2f\n", st->floor.seconds > 0 ?
	       st->est_any_s / st->floor.seconds : 0.0);
	printf("rewritten_blocks=%llu\n", st->rewritten_blocks);
	printf("rewrites=%llu\n", st->rewrites);
}

static void report_text(const struct stats *st, const struct options *opt)
{
	double mib = st->bytes_written / 1048576.0;

	printf("card-level write commands:  %llu (%.1f MiB written, %llu reads)\n",
	       st->writes, mib, st->reads);
	printf("small writes (<= %u KiB):    %llu\n",
	       opt->small_sectors / 2, st->small);
	printf("AU size:                    %llu KiB\n",
	       opt->au_sectors / 2);
	printf("AU switches:                %llu for %llu distinct AUs (%.2f x ideal)\n",
	       st->au_switches, st->distinct_aus,
	       st->distinct_aus ? (double)st->au_switches / st->distinct_aus : 0);
	printf("backward writes inside AU:  %llu\n", st->backward);
	printf("4 KiB blocks written again: %llu (%llu writes past the first)\n",
	       st->rewritten_blocks, st->rewrites);
	printf("card model: %u open AUs, %.1f MB/s sequential, ", opt->open_aus,
	       opt->seq_mbps);
	printf("%.1f MB/s internal copy, %.0f us per command\n",
	       opt->copy_mbps, opt->cmd_overhead_us);
	printf("  sequential limit:         %.2f s (%.2f MB/s)\n", st->limit_s,
	       mbps(st->bytes_written, st->limit_s));
	printf("  linear-only card:         %.2f s, %.2f MB/s (%.2f x limit, %llu AU closes)\n",
	       st->est_linear_s, mbps(st->bytes_written, st->est_linear_s),
	       st->limit_s > 0 ? st->est_linear_s / st->limit_s : 0,
	       st->closes_linear);
	printf("  any-order-in-AU card:     %.2f s, %.2f MB/s (%.2f x limit, %llu AU closes)\n",
	       st->est_any_s, mbps(st->bytes_written, st->est_any_s),
	       st->limit_s > 0 ? st->est_any_s / st->limit_s : 0,
	       st->closes_any);
	printf("floor, no order does better (%llu commands):\n", st->floor.runs);
	printf("  linear-only card:         %.2f s, %.2f MB/s (%.2f x limit; ",
	       st->floor.linear_seconds,
	       mbps(st->bytes_written, st->floor.linear_seconds),
	       st->limit_s > 0 ? st->floor.linear_seconds / st->limit_s : 0);
	printf("%llu AU openings, %.1f MiB copied)\n", st->floor.openings,
	       st->floor.linear_copy_sectors / 2048);
	printf("  any-order-in-AU card:     %.2f s, %.2f MB/s (%.2f x limit; ",
	       st->floor.seconds, mbps(st->bytes_written, st->floor.seconds),
	       st->limit_s > 0 ? st->floor.seconds / st->limit_s : 0);
	printf("%.1f MiB copied)\n", st->floor.copy_sectors / 2048);
	printf("  AU switches:              %llu (%.2f x ideal)\n",
	       st->floor.switches, st->distinct_aus ?
	       (double)st->floor.switches / st->distinct_aus : 0);
}

static void dump(const struct cmd_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		const struct cmd *c = &l->v[i];

		if (c->op == OP_PHASE)
			printf("# phase %u\n", c->sectors);
		else
			printf("%llu %c %llu %u\n", c->t_us, c->op,
			       c->start, c->sectors);
	}
}

/* The seed-style listing: start, sectors, AU and what is odd about it. */
static void excerpt(const struct cmd_list *l, const struct options *opt)
{
	u64 prev_au = U64_MAX;
	size_t i;
	long shown = 0;

	printf("%10s %8s %6s  %s\n", "start", "sectors", "AU", "note");
	for (i = 0; i < l->n && shown < opt->excerpt; i++) {
		const struct cmd *c = &l->v[i];
		u64 au = c->start / opt->au_sectors;
		char note[64] = "";

		if (c->op != OP_WRITE)
			continue;
		if (c->sectors <= opt->small_sectors)
			strcat(note, "small");
		if (au != prev_au && prev_au != U64_MAX)
			strcat(note, *note ? ", AU switch" : "AU switch");
		prev_au = au;
		printf("%10llu %8u %6llu  %s\n", c->start,
		       c->sectors, au, note);
		shown++;
	}
}

static const char usage_text[] =
"usage: cardtrace [options] [TRACE]   (TRACE defaults to standard input)\n"
"  --au-kb N          allocation unit size in KiB (default 4096)\n"
"  --small-kb N       a write of at most N KiB is small (default 16)\n"
"  --sdsc             command arguments are byte addresses (cards <= 2 GiB)\n"
"  --marker-base S    single-sector reads at S + 8*k mark phase k\n"
"  --from K --to M    keep only commands between markers K and M\n"
"  --dump             print the command list: <time_us> <W|R> <sector> <sectors>\n"
"  --kv               print the report as key=value lines\n"
"  --excerpt N        print the first N write commands, annotated\n"
"  --lenient          skip malformed lines (counted) instead of stopping\n"
"  --open-aus N       card model: AUs the card keeps open (default 2)\n"
"  --seq-mbps X       card model: sequential write speed, MB/s (default 12)\n"
"  --copy-mbps X      card model: internal copy speed, MB/s (default 12)\n"
"  --cmd-us X         card model: overhead per write command, us (default 500)\n"
"  --floor-gap-ms N   the floor: two writes whose times are more than N ms\n"
"                     apart cannot leave together (default: no time term)\n";

static u64 arg_u64(const char *opt, const char *v, u64 min, u64 max)
{
	u64 x;
	const char *end;

	if (!v || !parse_u64(v, 10, &x, &end) || *end || x < min || x > max) {
		fprintf(stderr, "%s: %s needs a whole number from %llu to %llu, not '%s'\n",
			prog, opt, min, max, v ? v : "");
		exit(2);
	}
	return x;
}

static double arg_double(const char *opt, const char *v, double min)
{
	char *end;
	double x;

	errno = 0;
	x = v ? strtod(v, &end) : 0;
	if (!v || errno || end == v || *end || !(x >= min) || x > 1e9) {
		fprintf(stderr, "%s: %s needs a number >= %g, not '%s'\n",
			prog, opt, min, v ? v : "");
		exit(2);
	}
	return x;
}

int main(int argc, char **argv)
{
	struct options opt = {
		.au_sectors = 8192, .small_sectors = 32,
		.from_phase = -1, .to_phase = -1,
		.open_aus = 2, .seq_mbps = 12, .copy_mbps = 12,
		.cmd_overhead_us = 500, .floor_gap_us = CARD_FLOOR_NO_GAP,
	};
	struct cmd_list l = { 0 };
	const char *path = NULL;
	struct stats st;
	FILE *f = stdin;
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage_text, stdout);
			return 0;
		} else if (!strcmp(a, "--au-kb")) {
			opt.au_sectors = arg_u64(a, v, 1, 1 << 22) * 2; i++;
		} else if (!strcmp(a, "--small-kb")) {
			opt.small_sectors = (u32)arg_u64(a, v, 0, 1 << 20) * 2; i++;
		} else if (!strcmp(a, "--marker-base")) {
			opt.marker_base = arg_u64(a, v, 1, U64_MAX / 2); i++;
		} else if (!strcmp(a, "--from")) {
			opt.from_phase = (long)arg_u64(a, v, 0, MARKER_SLOTS - 1); i++;
		} else if (!strcmp(a, "--to")) {
			opt.to_phase = (long)arg_u64(a, v, 0, MARKER_SLOTS - 1); i++;
		} else if (!strcmp(a, "--excerpt")) {
			opt.excerpt = (long)arg_u64(a, v, 1, 1000000); i++;
		} else if (!strcmp(a, "--open-aus")) {
			opt.open_aus = (unsigned int)arg_u64(a, v, 1, 64); i++;
		} else if (!strcmp(a, "--seq-mbps")) {
			opt.seq_mbps = arg_double(a, v, 0.001); i++;
		} else if (!strcmp(a, "--copy-mbps")) {
			opt.copy_mbps = arg_double(a, v, 0.001); i++;
		} else if (!strcmp(a, "--floor-gap-ms")) {
			opt.floor_gap_us = arg_u64(a, v, 0, 1000000000) * 1000; i++;
		} else if (!strcmp(a, "--cmd-us")) {
			opt.cmd_overhead_us = arg_double(a, v, 0); i++;
		} else if (!strcmp(a, "--sdsc")) {
			opt.byte_addr = true;
		} else if (!strcmp(a, "--dump")) {
			opt.dump = true;
		} else if (!strcmp(a, "--kv")) {
			opt.kv = true;
		} else if (!strcmp(a, "--lenient")) {
			opt.lenient = true;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "%s: unknown option '%s'\n", prog, a);
			fputs(usage_text, stderr);
			return 2;
		} else if (!path) {
			path = a;
		} else {
			fprintf(stderr, "%s: only one TRACE file, got '%s' too\n",
				prog, a);
			return 2;
		}
	}
	if (opt.to_phase >= 0 && opt.from_phase < 0) {
		fprintf(stderr, "%s: --to needs --from\n", prog);
		return 2;
	}
	if (path && strcmp(path, "-")) {
		f = fopen(path, "r");
		if (!f) {
			fprintf(stderr, "%s: %s: %s\n", prog, path,
				strerror(errno));
			return 2;
		}
	}
	read_trace(f, &opt, &l);
	if (f != stdin)
		fclose(f);
	if (opt.from_phase >= 0)
		select_phases(&l, &opt);

	if (opt.dump) {
		dump(&l);
	} else if (opt.excerpt) {
		excerpt(&l, &opt);
	} else {
		analyze(&l, &opt, &st);
		if (opt.kv)
			report_kv(&st);
		else
			report_text(&st, &opt);
	}
	free(l.v);
	return 0;
}
