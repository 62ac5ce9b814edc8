// SPDX-License-Identifier: GPL-2.0
/*
 * Microbenchmark: nanoseconds per write for insert + release through the
 * engine, at window sizes 16, 64, 256 and 1024, next to a naive engine that
 * keeps the held writes in one sorted linked list (O(n) insert, O(n) group
 * release) doing the same work.
 *
 * Workload per window size N: 8-sector writes at random 4 KiB-aligned
 * sectors over 4096 AUs, so the window is always full and every new write
 * pushes out the AU group of the oldest held write (count bound); released
 * writes are popped as commands straight away. The figure is total time
 * divided by writes, best of 5 runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reorder_window.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define NR_WRITES	400000
#define AU_SECTORS	8192
#define NR_AUS		4096
#define RUNS		5

static u64 rng = 88172645463325252ULL;

static u64 rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static sector_t *sectors_in;
static struct rwin_write *writes;

static void make_input(void)
{
	int i;

	sectors_in = malloc(NR_WRITES * sizeof(*sectors_in));
	writes = calloc(NR_WRITES, sizeof(*writes));
	if (!sectors_in || !writes)
		exit(1);
	for (i = 0; i < NR_WRITES; i++)
		sectors_in[i] = (rnd() % ((u64)NR_AUS * AU_SECTORS)) & ~7ULL;
}

static u64 sink;

static double run_engine(u32 window)
{
	struct rwin_params p;
	struct rwin_window *w = malloc(sizeof(*w));
	struct rwin_cmd cmd;
	u64 t0, t1;
	int i;

	rwin_params_init(&p);
	p.window_reqs = window;
	p.window_bytes = (u64)window * 4096;
	p.hold_ns = ~0ULL / 2;
	p.idle_ns = ~0ULL / 2;
	if (!w || rwin_init(w, &p))
		exit(1);
	t0 = now_ns();
	for (i = 0; i < NR_WRITES; i++) {
		struct rwin_write *wr = &writes[i];

		wr->start = sectors_in[i];
		wr->sectors = 8;
		wr->flags = 0;
		wr->arrival_ns = i;
		rwin_add_write(w, wr, i);
		while (rwin_pop(w, &cmd, i)) {
			sink += cmd.nr_writes;
			rwin_complete(w, cmd.nr_writes, i);
		}
	}
	t1 = now_ns();
	free(w);
	return (double)(t1 - t0) / NR_WRITES;
}

/* The naive engine: one sorted list plus an arrival FIFO. */
struct naive_write {
	sector_t start;
	u32 sectors;
	struct list_head sorted;
	struct list_head fifo;
};

static struct naive_write *naive;

static double run_naive(u32 window)
{
	LIST_HEAD(sorted);
	LIST_HEAD(fifo);
	LIST_HEAD(out);
	u32 held = 0;
	u64 t0, t1;
	int i;

	t0 = now_ns();
	for (i = 0; i < NR_WRITES; i++) {
		struct naive_write *nw = &naive[i], *pos, *next, *oldest;
		struct list_head *before = &sorted;
		u64 au;

		nw->start = sectors_in[i];
		nw->sectors = 8;
		if (held + 1 > window) {
			/* Release the oldest write's AU group: full scan. */
			oldest = list_first_entry(&fifo, struct naive_write,
						  fifo);
			au = oldest->start / AU_SECTORS;
			list_for_each_entry_safe(pos, next, &sorted, sorted) {
				if (pos->start / AU_SECTORS != au)
					continue;
				list_del(&pos->sorted);
				list_del(&pos->fifo);
				list_add_tail(&pos->sorted, &out);
				held--;
			}
			/* "Pop": hand the group out. */
			list_for_each_entry_safe(pos, next, &out, sorted) {
				list_del(&pos->sorted);
				sink += pos->start;
			}
		}
		/* Sorted insert with the overlap check on the way. */
		list_for_each_entry(pos, &sorted, sorted) {
			if (pos->start + pos->sectors > nw->start &&
			    pos->start < nw->start + nw->sectors)
				sink++;
			if (pos->start > nw->start)
				break;
			before = &pos->sorted;
		}
		list_add(&nw->sorted, before);
		list_add_tail(&nw->fifo, &fifo);
		held++;
	}
	t1 = now_ns();
	return (double)(t1 - t0) / NR_WRITES;
}

static double best(double (*fn)(u32), u32 window)
{
	double b = 1e30, v;
	int r;

	for (r = 0; r < RUNS; r++) {
		v = fn(window);
		if (v < b)
			b = v;
	}
	return b;
}

int main(void)
{
	static const u32 sizes[] = { 16, 64, 256, 1024 };
	unsigned int i;

	make_input();
	naive = calloc(NR_WRITES, sizeof(*naive));
	if (!naive)
		return 1;
	printf("%d writes of 8 sectors, random over %d AUs, best of %d runs\n",
	       NR_WRITES, NR_AUS, RUNS);
	printf("| window (writes) | engine ns/write | sorted list ns/write |\n");
	printf("|---:|---:|---:|\n");
	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		printf("| %u | %.0f | %.0f |\n", sizes[i],
		       best(run_engine, sizes[i]), best(run_naive, sizes[i]));
	return sink == 42 ? 1 : 0;
}
