// SPDX-License-Identifier: GPL-2.0
/*
 * card-model - the cost model of a cheap SD card; see card-model.h and
 * Documentation/card-cost-model.md.
 *
 * State: at most open_aus open AUs, replaced least recently used first.
 *  - a write to an AU that is not open, all slots full: close the least
 *    recently used AU, copying the part of it not written since it opened;
 *  - linear-only card, write ahead of the AU's write pointer: copy the gap;
 *  - linear-only card, write behind it: close the AU (copy its tail) and
 *    reopen it from its first sector (copy everything before the write);
 *  - any-order card: nothing until the AU closes, then copy the sectors
 *    not written since it was opened.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "card-model.h"

struct card_open_au {
	u64 au;
	u64 wp;		/* linear mode: next sector the card expects */
	u64 written;	/* any-order mode: sectors written since open */
	unsigned char *map;	/* any-order mode: which sectors were written */
	u64 last_use;
	bool used;
};

static bool mbps_ok(double x)
{
	return x >= CARD_MIN_MBPS && x <= CARD_MAX_MBPS;
}

int card_params_check(const struct card_params *p)
{
	if (!p || p->au_sectors < 1 || p->au_sectors > CARD_MAX_AU_SECTORS ||
	    p->open_aus < 1 || p->open_aus > CARD_MAX_OPEN_AUS ||
	    !mbps_ok(p->seq_mbps) || !mbps_ok(p->copy_mbps) ||
	    (p->read_mbps != 0 && !mbps_ok(p->read_mbps)) ||
	    !(p->cmd_us >= 0 && p->cmd_us <= CARD_MAX_CMD_US))
		return -EINVAL;
	return 0;
}

int card_model_init(struct card_model *m, const struct card_params *p)
{
	unsigned int i;

	memset(m, 0, sizeof(*m));
	if (card_params_check(p))
		return -EINVAL;
	m->p = *p;
	m->slot = calloc(p->open_aus, sizeof(*m->slot));
	if (!m->slot)
		return -ENOMEM;
	if (p->linear)
		return 0;	/* the sector map is for any-order cards */
	for (i = 0; i < p->open_aus; i++) {
		m->slot[i].map = calloc(p->au_sectors, 1);
		if (!m->slot[i].map) {
			card_model_free(m);
			return -ENOMEM;
		}
	}
	return 0;
}

void card_model_free(struct card_model *m)
{
	unsigned int i;

	if (m->slot) {
		for (i = 0; i < m->p.open_aus; i++)
			free(m->slot[i].map);
		free(m->slot);
	}
	m->slot = NULL;
}

/* Closing an AU: the card copies every sector that was not rewritten. */
static void au_close(struct card_model *m, struct card_open_au *s)
{
	u64 au = m->p.au_sectors;

	if (!s->used)
		return;
	m->au_closes++;
	if (m->p.linear)
		m->copy_sectors += (double)(au - s->wp);
	else
		m->copy_sectors += (double)(au - s->written);
	s->used = false;
}

static struct card_open_au *au_open(struct card_model *m, u64 au)
{
	struct card_open_au *s, *victim = NULL;
	unsigned int i;

	for (i = 0; i < m->p.open_aus; i++) {
		s = &m->slot[i];
		if (s->used && s->au == au)
			return s;
		if (!victim || !s->used ||
		    (victim->used && s->last_use < victim->last_use))
			victim = s;
	}
	au_close(m, victim);
	victim->used = true;
	victim->au = au;
	victim->wp = 0;
	victim->written = 0;
	if (victim->map)
		memset(victim->map, 0, m->p.au_sectors);
	return victim;
}

/* One write of n sectors at offset off inside AU au (never crosses it). */
static void au_write(struct card_model *m, u64 au, u64 off,
		     u64 n)
{
	struct card_open_au *s = au_open(m, au);
	u64 i;

	s->last_use = ++m->tick;
	if (m->p.linear) {
		if (off < s->wp) {
			/*
			 * Backward: the card finishes the AU (copying its
			 * tail), then starts it again from the beginning.
			 */
			au_close(m, s);
			s->used = true;
			s->wp = 0;
		}
		m->copy_sectors += (double)(off - s->wp);	/* skipped gap */
		s->wp = off + n;
		return;
	}
	for (i = off; i < off + n; i++) {
		if (!s->map[i]) {
			s->map[i] = 1;
			s->written++;
		}
	}
}

double card_model_copy_seconds(const struct card_model *m,
			       double copy_sectors)
{
	return copy_sectors * CARD_SECTOR_SIZE / (m->p.copy_mbps * 1e6);
}

double card_model_write(struct card_model *m, u64 start,
			u64 sectors)
{
	u64 s, e, au_sz = m->p.au_sectors;
	double copied = m->copy_sectors;

	if (!sectors)
		return 0;
	if (start > ULLONG_MAX - sectors)
		return -EINVAL;
	for (s = start, e = start + sectors; s < e;) {
		u64 au = s / au_sz;
		u64 off = s - au * au_sz;
		u64 n = au_sz - off;

		if (n > e - s)
			n = e - s;
		au_write(m, au, off, n);
		s += n;
	}
	return (double)sectors * CARD_SECTOR_SIZE / (m->p.seq_mbps * 1e6) +
	       card_model_copy_seconds(m, m->copy_sectors - copied);
}

double card_model_cmd_seconds(const struct card_model *m)
{
	return m->p.cmd_us / 1e6;
}

double card_model_read_seconds(const struct card_model *m, u64 sectors)
{
	if (m->p.read_mbps == 0)
		return 0;
	return (double)sectors * CARD_SECTOR_SIZE / (m->p.read_mbps * 1e6);
}

double card_model_finish(struct card_model *m)
{
	double copied = m->copy_sectors;
	unsigned int i;

	for (i = 0; i < m->p.open_aus; i++)
		au_close(m, &m->slot[i]);
	return card_model_copy_seconds(m, m->copy_sectors - copied);
}

double card_model_seconds(const struct card_params *p, u64 cmds,
			  u64 sectors, double copy_sectors)
{
	double bytes = (double)sectors * CARD_SECTOR_SIZE;

	return cmds * p->cmd_us / 1e6 +
	       bytes / (p->seq_mbps * 1e6) +
	       copy_sectors * CARD_SECTOR_SIZE / (p->copy_mbps * 1e6);
}
