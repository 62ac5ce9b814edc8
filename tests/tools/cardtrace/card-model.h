/* SPDX-License-Identifier: GPL-2.0 */
/*
 * card-model - the cost model of a cheap SD card (allocation units, a few
 * open AUs, internal copies), see Documentation/card-cost-model.md.
 *
 * Shared by the offline analyzer (tests/tools/cardtrace/cardtrace.c) and the
 * nbdkit filter that makes an image behave in time like such a card
 * (qemu/cardtime/cardtime.c).  Plain C: no I/O, no exit(), no global
 * state; errors are returned as negative errno values.
 */
#ifndef CARD_MODEL_H
#define CARD_MODEL_H

#include <stdbool.h>
#include <stdint.h>

/* As in the kernel, and as the analyzer prints them: %llu. */
typedef unsigned long long u64;

#define CARD_SECTOR_SIZE	512u
/* Limits card_params_check() enforces (the analyzer's option ranges). */
#define CARD_MAX_OPEN_AUS	64u
#define CARD_MAX_AU_SECTORS	(4ull * 1024 * 1024 * 1024 / CARD_SECTOR_SIZE)
#define CARD_MIN_MBPS		0.001
#define CARD_MAX_MBPS		1e9
#define CARD_MAX_CMD_US		1e9

struct card_params {
	u64 au_sectors;	/* allocation unit, in 512-byte sectors */
	unsigned int open_aus;	/* AUs the card keeps open at once */
	bool linear;		/* true: linear-only; false: any order */
	double seq_mbps;	/* sequential write speed, MB/s (1e6 B/s) */
	double copy_mbps;	/* internal copy speed, MB/s */
	double read_mbps;	/* read speed, MB/s; 0: reads not charged */
	double cmd_us;		/* overhead per command, microseconds */
};

struct card_open_au;

struct card_model {
	struct card_params p;
	struct card_open_au *slot;	/* p.open_aus of them */
	u64 tick;			/* LRU clock */
	double copy_sectors;		/* sectors copied internally so far */
	u64 au_closes;		/* AUs closed (evicted, reopened, finish) */
};

/* 0 if the parameters are usable, else -EINVAL. */
int card_params_check(const struct card_params *p);

/* 0, -EINVAL (bad parameters) or -ENOMEM.  On error nothing to free. */
int card_model_init(struct card_model *m, const struct card_params *p);
void card_model_free(struct card_model *m);

/*
 * One write command of @sectors sectors from @start: split at AU
 * boundaries, applied to the open AUs.  Returns the seconds it is charged:
 * its bytes at the sequential speed plus the internal copies it forced.
 * The per-command overhead is not included (see card_model_cmd_seconds).
 * A zero-length write charges 0; a range past UINT64_MAX returns -EINVAL.
 */
double card_model_write(struct card_model *m, u64 start,
			u64 sectors);

/* Seconds one command costs on top of its data (the per-command cost). */
double card_model_cmd_seconds(const struct card_model *m);

/* Seconds to read @sectors sectors (0 when read_mbps is 0). */
double card_model_read_seconds(const struct card_model *m, u64 sectors);

/* Seconds the card needs to copy @copy_sectors sectors internally. */
double card_model_copy_seconds(const struct card_model *m,
			       double copy_sectors);

/*
 * Close every open AU (end of the trace).  Returns the copy it forced, in
 * seconds; the sectors are added to m->copy_sectors.
 */
double card_model_finish(struct card_model *m);

/*
 * The analyzer's total: cmds x cmd_us + sectors at the sequential speed
 * + copy_sectors at the copy speed.
 */
double card_model_seconds(const struct card_params *p, u64 cmds,
			  u64 sectors, double copy_sectors);

#endif /* CARD_MODEL_H */
