// SPDX-License-Identifier: GPL-2.0
/*
 * replay - run a card-level command list through the reorder window.
 *
 * Input (stdin), one command per line:  <time_us> <W|R> <start> <sectors>
 * Lines starting with '#' are comments; "# phase NAME" marks a phase and is
 * copied to the output at the point in time where it occurred.
 *
 * Every input command is taken as arriving at the driver at time_us. The
 * simulated card does one transfer at a time and is busy for
 * overhead_us + sectors * 512 / card_mbps per transfer, so writes queue up
 * while it is busy, as they do in front of a real card. Writes go through
 * the engine; reads go to the card ahead of queued writes (they are
 * synchronous), except a read that overlaps a queued or held write, which
 * waits until those have been issued. The engine's timer is fired exactly
 * at rwin_next_deadline(). Each run of contiguous writes of a command, up to
 * --max-kb, is one card command.
 *
 * Output (stdout): the card command sequence in the input's format, with
 * the time at which each command started on the card. Statistics go to
 * stderr with --stats.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reorder_window.h"

#define NS_PER_US	1000ULL
#define NS_PER_MS	(1000ULL * 1000)

enum item_kind { ITEM_WRITE, ITEM_READ, ITEM_PHASE };

struct item {
	u64 t_ns;
	sector_t start;
	u32 sectors;
	int kind;
	char *phase;
};

struct pending_read {
	sector_t start;
	u32 sectors;
};

struct sim {
	struct rwin_window win;
	struct rwin_params p;
	u64 now;
	u64 overhead_ns;
	u64 mbps;
	/* card */
	bool busy;
	u64 done_ns;
	struct rwin_cmd cmd;
	bool cmd_active;
	struct rwin_write *next_wr;	/* first write not yet on the card */
	u32 max_sectors;
	/* reads waiting for the card, FIFO */
	struct pending_read *reads;
	size_t nr_reads, reads_head, reads_cap;
	/* tags */
	u32 tags, tags_used;
	/* output statistics */
	u64 out_writes, out_reads, au_switches, backward;
	u64 last_au;
	bool have_au;
	sector_t au_wpos[1 << 12];
};

static void die(const char *msg)
{
	fprintf(stderr, "replay: %s\n", msg);
	exit(2);
}

static u64 transfer_ns(const struct sim *s, u32 sectors)
{
	return s->overhead_ns + (u64)sectors * 512 * 1000 / s->mbps;
}

static void emit(struct sim *s, char op, sector_t start, u32 sectors)
{
	printf("%llu %c %llu %u\n", (unsigned long long)(s->now / NS_PER_US),
	       op, (unsigned long long)start, sectors);
	s->busy = true;
	s->done_ns = s->now + transfer_ns(s, sectors);
	if (op == 'R') {
		s->out_reads++;
		return;
	}
	s->out_writes++;
	{
		u64 au = start / s->p.au_sectors;
		sector_t *wpos = &s->au_wpos[au % (1 << 12)];

		if (s->have_au && au != s->last_au)
			s->au_switches++;
		if (start < *wpos)
			s->backward++;
		*wpos = start + sectors;
		s->last_au = au;
		s->have_au = true;
	}
}

static void read_push(struct sim *s, sector_t start, u32 sectors)
{
	if (s->nr_reads == s->reads_cap) {
		s->reads_cap = s->reads_cap ? 2 * s->reads_cap : 64;
		s->reads = realloc(s->reads, s->reads_cap * sizeof(*s->reads));
		if (!s->reads)
			die("out of memory");
	}
	s->reads[s->nr_reads].start = start;
	s->reads[s->nr_reads].sectors = sectors;
	s->nr_reads++;
}

static bool reads_pending(const struct sim *s)
{
	return s->reads_head < s->nr_reads;
}

/* The card went free: start the next extent, read or command. */
static void kick(struct sim *s)
{
	struct pending_read *rd;

	if (s->busy)
		return;
	if (s->cmd_active && &s->next_wr->link != &s->cmd.writes) {
		struct rwin_write *wr = s->next_wr;
		sector_t start = wr->start, end = start + wr->sectors;

		for (wr = list_next_entry(wr, link);
		     &wr->link != &s->cmd.writes && wr->start == end &&
		     end + wr->sectors - start <= s->max_sectors;
		     wr = list_next_entry(wr, link))
			end += wr->sectors;
		s->next_wr = wr;
		emit(s, 'W', start, (u32)(end - start));
		return;
	}
	if (reads_pending(s)) {
		rd = &s->reads[s->reads_head];
		if (!rwin_overlaps_queued(&s->win, rd->start, rd->sectors,
					  RWIN_NO_DEADLINE)) {
			s->reads_head++;
			emit(s, 'R', rd->start, rd->sectors);
			return;
		}
	}
	if (rwin_pop(&s->win, &s->cmd, s->now)) {
		s->cmd_active = true;
		s->next_wr = list_first_entry(&s->cmd.writes,
					      struct rwin_write, link);
		kick(s);
	}
}

static void card_done(struct sim *s)
{
	struct rwin_write *wr, *next;

	s->busy = false;
	if (s->cmd_active && &s->next_wr->link == &s->cmd.writes) {
		list_for_each_entry_safe(wr, next, &s->cmd.writes, link) {
			free(wr);
			s->tags_used--;
		}
		s->cmd_active = false;
		rwin_complete(&s->win, s->cmd.nr_writes, s->now);
	}
}

static void arrive(struct sim *s, struct item *it)
{
	struct rwin_write *wr;

	if (it->kind == ITEM_PHASE) {
		printf("# phase %s\n", it->phase);
		return;
	}
	if (it->kind == ITEM_READ) {
		rwin_read(&s->win, it->start, it->sectors, s->now);
		read_push(s, it->start, it->sectors);
		return;
	}
	wr = calloc(1, sizeof(*wr));
	if (!wr)
		die("out of memory");
	wr->start = it->start;
	wr->sectors = it->sectors;
	wr->arrival_ns = s->now;
	s->tags_used++;
	rwin_add_write(&s->win, wr, s->now);
}

static struct item *load(size_t *nr, u32 max_sectors)
{
	struct item *v = NULL;
	size_t n = 0, cap = 0;
	char line[512];
	unsigned long long t, start;
	unsigned int sectors;
	char op;

	while (fgets(line, sizeof(line), stdin)) {
		char *p = line;
		struct item it = { };

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\n' || !*p)
			continue;
		if (*p == '#') {
			p++;
			while (*p == ' ')
				p++;
			if (strncmp(p, "phase", 5))
				continue;
			p += 5;
			while (*p == ' ')
				p++;
			p[strcspn(p, "\r\n")] = 0;
			it.kind = ITEM_PHASE;
			it.phase = strdup(p);
			it.t_ns = n ? v[n - 1].t_ns : 0;
		} else {
			if (sscanf(p, "%llu %c %llu %u", &t, &op, &start,
				   &sectors) != 4 || !sectors ||
			    (op != 'W' && op != 'R')) {
				fprintf(stderr, "replay: bad line: %s", line);
				exit(2);
			}
			it.kind = op == 'W' ? ITEM_WRITE : ITEM_READ;
			it.t_ns = t * NS_PER_US;
			it.start = start;
			it.sectors = sectors;
		}
		if (n && it.t_ns < v[n - 1].t_ns)
			it.t_ns = v[n - 1].t_ns;	/* keep time monotonic */
		/* The block layer never sends more than max transfer. */
		do {
			struct item part = it;

			if (it.kind == ITEM_WRITE && it.sectors > max_sectors)
				part.sectors = max_sectors;
			if (n == cap) {
				cap = cap ? 2 * cap : 4096;
				v = realloc(v, cap * sizeof(*v));
				if (!v)
					die("out of memory");
			}
			v[n++] = part;
			it.start += part.sectors;
			it.sectors -= part.sectors;
		} while (it.kind == ITEM_WRITE && it.sectors);
	}
	*nr = n;
	return v;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: replay [--small-kb N] [--window-reqs N] [--window-kb N]\n"
		"              [--hold-ms N] [--idle-ms N] [--au-kb N]\n"
		"              [--meta-hold-ms N] [--meta-idle-ms N]\n"
		"              [--max-kb N] [--off] [--tags N]\n"
		"              [--card-mbps N] [--overhead-us N] [--stats]\n"
		"  < commands > commands\n");
	exit(2);
}

static const char * const reason_names[RWIN_REL_NR] = {
	"attach", "count", "bytes", "deadline", "idle", "flush", "fua",
	"sync", "read", "overlap", "drain", "waiter",
};

static void print_stats(struct sim *s)
{
	struct rwin_stats *st = &s->win.stats;
	int i;

	fprintf(stderr, "writes in %llu, held %llu (backward %llu, long %llu), passed %llu\n",
		(unsigned long long)st->writes,
		(unsigned long long)st->holds,
		(unsigned long long)st->holds_backward,
		(unsigned long long)st->holds_long,
		(unsigned long long)st->passed);
	fprintf(stderr, "released:");
	for (i = 0; i < RWIN_REL_NR; i++)
		fprintf(stderr, " %s %llu", reason_names[i],
			(unsigned long long)st->released[i]);
	fprintf(stderr, "\n");
	fprintf(stderr,
		"commands %llu, max hold %llu us, peak held %u (%llu KiB)\n",
		(unsigned long long)st->commands,
		(unsigned long long)(st->max_hold_ns / NS_PER_US),
		st->max_held,
		(unsigned long long)(st->max_held_bytes >> 10));
	fprintf(stderr,
		"card: %llu writes, %llu reads, %llu AU switches, %llu backward in an AU, end %llu us\n",
		(unsigned long long)s->out_writes,
		(unsigned long long)s->out_reads,
		(unsigned long long)s->au_switches,
		(unsigned long long)s->backward,
		(unsigned long long)(s->now / NS_PER_US));
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "small-kb", required_argument, NULL, 's' },
		{ "window-reqs", required_argument, NULL, 'r' },
		{ "window-kb", required_argument, NULL, 'w' },
		{ "hold-ms", required_argument, NULL, 'h' },
		{ "idle-ms", required_argument, NULL, 'i' },
		{ "meta-hold-ms", required_argument, NULL, 'M' },
		{ "meta-idle-ms", required_argument, NULL, 'I' },
		{ "au-kb", required_argument, NULL, 'a' },
		{ "max-kb", required_argument, NULL, 'm' },
		{ "off", no_argument, NULL, 'O' },
		{ "tags", required_argument, NULL, 't' },
		{ "card-mbps", required_argument, NULL, 'c' },
		{ "overhead-us", required_argument, NULL, 'o' },
		{ "stats", no_argument, NULL, 'v' },
		{ }
	};
	struct sim *s = calloc(1, sizeof(*s));
	bool stats = false, off = false;
	struct item *in;
	size_t nr, idx = 0;
	int c;

	if (!s)
		die("out of memory");
	rwin_params_init(&s->p);
	s->overhead_ns = 100 * NS_PER_US;
	s->mbps = 20;
	s->max_sectors = 1024;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		unsigned long long v = optarg ? strtoull(optarg, NULL, 0) : 0;

		switch (c) {
		case 's':
			s->p.small_sectors = v * 2;
			break;
		case 'r':
			s->p.window_reqs = v;
			break;
		case 'w':
			s->p.window_bytes = v * 1024;
			break;
		case 'h':
			s->p.hold_ns = v * NS_PER_MS;
			break;
		case 'i':
			s->p.idle_ns = v * NS_PER_MS;
			break;
		case 'M':
			s->p.meta_hold_ns = v * NS_PER_MS;
			break;
		case 'I':
			s->p.meta_idle_ns = v * NS_PER_MS;
			break;
		case 'a':
			s->p.au_sectors = v * 2;
			break;
		case 'm':
			s->max_sectors = v * 2;
			break;
		case 'O':
			off = true;
			break;
		case 't':
			s->tags = v;
			break;
		case 'c':
			s->mbps = v ? v : 1;
			break;
		case 'o':
			s->overhead_ns = v * NS_PER_US;
			break;
		case 'v':
			stats = true;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (off) {
		/* Baseline: the engine only queues, as a stock driver would. */
		s->p.window_reqs = 0;
	}
	if (rwin_init(&s->win, &s->p))
		die("invalid parameters");
	if (!s->tags)
		s->tags = s->p.window_reqs + 64;

	in = load(&nr, s->max_sectors);

	for (;;) {
		u64 t_arr = RWIN_NO_DEADLINE, t_card, t_timer, t;

		/* An arrival needs a free tag, as in blk-mq. */
		if (idx < nr && (in[idx].kind != ITEM_WRITE ||
				 s->tags_used < s->tags))
			t_arr = in[idx].t_ns;
		t_card = s->busy ? s->done_ns : RWIN_NO_DEADLINE;
		t_timer = rwin_next_deadline(&s->win);
		t = t_arr < t_card ? t_arr : t_card;
		t = t < t_timer ? t : t_timer;
		if (t == RWIN_NO_DEADLINE) {
			if (idx < nr)
				die("stuck: all tags held and no timer");
			if (s->win.held_count) {
				rwin_drain(&s->win, s->now);
				kick(s);
				continue;
			}
			break;
		}
		if (t > s->now)
			s->now = t;
		if (t == t_card)
			card_done(s);
		else if (t == t_timer)
			rwin_expire(&s->win, s->now);
		else
			arrive(s, &in[idx++]);
		kick(s);
	}

	if (stats)
		print_stats(s);
	return 0;
}
