// SPDX-License-Identifier: GPL-2.0
/*
 * The coalesce scheduler's tunables (coalesce-tunables.h): module
 * parameters, the defaults of every disk, and /sys/block/DISK/queue/
 * iosched/NAME, a disk's override ("default" drops it).
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/sysfs.h>

#include "elevator.h"
#include "coalesce-iosched.h"

/* Serialises tunable changes against schedulers coming and going. */
DEFINE_MUTEX(coalesce_mutex);
LIST_HEAD(coalesce_instances);

/* Static: insmod and command-line parameters are set before any init. */
struct coalesce_tunable_desc coalesce_tunables[COALESCE_T_NR] = {
#define COALESCE_TUNABLE(_name, _def, _min, _max, _help)		\
	[COALESCE_T_##_name] = {					\
		.name = #_name, .min = _min, .max = _max, .def = _def,	\
	},
#include "coalesce-tunables.h"
#undef COALESCE_TUNABLE
};

static int coalesce_parse(enum coalesce_tunable t, const char *buf, u32 *val)
{
	const struct coalesce_tunable_desc *desc = &coalesce_tunables[t];
	u32 v;

	if (kstrtou32(buf, 0, &v) || v < desc->min || v > desc->max)
		return -EINVAL;
	if (t == COALESCE_T_au_kb && v && (v < 16 || v % 4))
		return -EINVAL;
	*val = v;
	return 0;
}

void coalesce_params_to_engine(struct coalesce_data *cd, struct rwin_params *p)
{
	u32 *tun = cd->tun;
	u32 au_kb = tun[COALESCE_T_au_kb];

	rwin_params_init(p);
	if (au_kb)
		p->au_sectors = au_kb * 2;
	else if (cd->au_sectors_queue)
		p->au_sectors = cd->au_sectors_queue;
	p->small_sectors = tun[COALESCE_T_small_kb] * 2;
	/* Held writes keep their tags: at most 3/4 of the async ones. */
	cd->held_cap = min(tun[COALESCE_T_window_reqs],
			   max(1U, cd->async_depth * 3 / 4));
	p->window_reqs = tun[COALESCE_T_enable] ? cd->held_cap : 0;
	p->window_bytes = (u64)tun[COALESCE_T_window_kb] * 1024;
	p->hold_ns = (u64)tun[COALESCE_T_hold_ms] * NSEC_PER_MSEC;
	p->idle_ns = (u64)tun[COALESCE_T_idle_ms] * NSEC_PER_MSEC;
	p->meta_hold_ns = (u64)tun[COALESCE_T_meta_hold_ms] * NSEC_PER_MSEC;
	p->meta_idle_ns = (u64)tun[COALESCE_T_meta_idle_ms] * NSEC_PER_MSEC;
	p->sync_grace_ns = (u64)tun[COALESCE_T_sync_grace_ms] * NSEC_PER_MSEC;
	p->sync_release = tun[COALESCE_T_sync_release];
}

/*
 * Pairs the engine resolves by the larger value are taken as written, but
 * said: they would otherwise do nothing silently.
 */
static void coalesce_say_overridden(const char *who, enum coalesce_tunable t,
				    const u32 *tun)
{
	u32 hold = tun[COALESCE_T_hold_ms], meta_hold = tun[COALESCE_T_meta_hold_ms];
	u32 idle = tun[COALESCE_T_idle_ms], meta_idle = tun[COALESCE_T_meta_idle_ms];

	if ((t == COALESCE_T_hold_ms || t == COALESCE_T_meta_hold_ms) &&
	    meta_hold && meta_hold <= hold)
		pr_info(COALESCE_NAME ": %s: meta_hold_ms %u is not above hold_ms %u: every write is held at most hold_ms (as meta_hold_ms 0)\n",
			who, meta_hold, hold);
	if ((t == COALESCE_T_idle_ms || t == COALESCE_T_meta_idle_ms) &&
	    meta_idle < idle)
		pr_info(COALESCE_NAME ": %s: meta_idle_ms %u is below idle_ms %u: idle_ms applies to both\n",
			who, meta_idle, idle);
}

/* Release what is held under the old rules, switch, run the queue. */
void coalesce_apply_tunables(struct coalesce_data *cd)
{
	struct rwin_params p;
	int ret;

	spin_lock_irq(&cd->lock);
	rwin_drain(&cd->win, ktime_get_ns());
	coalesce_params_to_engine(cd, &p);
	ret = rwin_set_params(&cd->win, &p);
	WRITE_ONCE(cd->ready, true);
	spin_unlock_irq(&cd->lock);
	/* Every value was range checked: the engine cannot refuse them. */
	WARN_ON_ONCE(ret);
	blk_mq_run_hw_queues(cd->q, true);
}

/* kernel_param.arg is the tunable's default, coalesce_tunables[t].def. */
static int coalesce_param_set(const char *val, const struct kernel_param *kp)
{
	const struct coalesce_tunable_desc *desc =
		container_of(kp->arg, struct coalesce_tunable_desc, def);
	enum coalesce_tunable t = desc - coalesce_tunables;
	u32 v, def[COALESCE_T_NR];
	struct coalesce_data *cd;
	int i;

	if (coalesce_parse(t, val, &v)) {
		/* the value as written, without the newline echo adds */
		pr_warn(COALESCE_NAME ": %s: '%.*s' refused: want %u..%u%s\n",
			desc->name, (int)strcspn(val, "\n"), val, desc->min,
			desc->max,
			t == COALESCE_T_au_kb ?
			" (0, or a multiple of 4 from 16)" : "");
		return -EINVAL;
	}
	mutex_lock(&coalesce_mutex);
	WRITE_ONCE(coalesce_tunables[t].def, v);
	list_for_each_entry(cd, &coalesce_instances, node) {
		/* an unchanged value releases nothing */
		if (test_bit(t, &cd->overridden) || cd->tun[t] == v)
			continue;
		WRITE_ONCE(cd->tun[t], v);
		coalesce_apply_tunables(cd);
	}
	for (i = 0; i < COALESCE_T_NR; i++)
		def[i] = coalesce_tunables[i].def;
	coalesce_say_overridden("default", t, def);
	mutex_unlock(&coalesce_mutex);
	return 0;
}

static const struct kernel_param_ops coalesce_param_ops = {
	.set = coalesce_param_set,
	.get = param_get_uint,
};

#define COALESCE_TUNABLE(_name, _def, _min, _max, _help)		\
	module_param_cb(_name, &coalesce_param_ops,			\
			&coalesce_tunables[COALESCE_T_##_name].def, 0644); \
	MODULE_PARM_DESC(_name, _help " (" __stringify(_min) "-"	\
			 __stringify(_max) ", default "			\
			 __stringify(_def) ")");
#include "coalesce-tunables.h"
#undef COALESCE_TUNABLE

static ssize_t coalesce_attr_store(struct elevator_queue *e, const char *page,
				   size_t count, enum coalesce_tunable t)
{
	struct coalesce_data *cd = e->elevator_data;
	bool reset = sysfs_streq(page, "default");
	u32 v = 0;

	if (!reset && coalesce_parse(t, page, &v))
		return -EINVAL;
	mutex_lock(&coalesce_mutex);
	if (reset) {
		v = coalesce_tunables[t].def;
		clear_bit(t, &cd->overridden);
	} else {
		set_bit(t, &cd->overridden);
	}
	if (cd->tun[t] != v) {
		WRITE_ONCE(cd->tun[t], v);
		coalesce_apply_tunables(cd);
	}
	coalesce_say_overridden(cd->q->disk ? cd->q->disk->disk_name : "queue",
				t, cd->tun);
	mutex_unlock(&coalesce_mutex);
	return count;
}

#define COALESCE_TUNABLE(_name, _def, _min, _max, _help)		\
static ssize_t coalesce_##_name##_show(struct elevator_queue *e,	\
				       char *page)			\
{									\
	struct coalesce_data *cd = e->elevator_data;			\
									\
	return sysfs_emit(page, "%u\n",					\
			  READ_ONCE(cd->tun[COALESCE_T_##_name]));	\
}									\
static ssize_t coalesce_##_name##_store(struct elevator_queue *e,	\
					const char *page, size_t count)	\
{									\
	return coalesce_attr_store(e, page, count, COALESCE_T_##_name);	\
}

#include "coalesce-tunables.h"
#undef COALESCE_TUNABLE

struct elv_fs_entry coalesce_attrs[] = {
#define COALESCE_TUNABLE(_name, _def, _min, _max, _help)		\
	__ATTR(_name, 0644, coalesce_##_name##_show, coalesce_##_name##_store),
#include "coalesce-tunables.h"
#undef COALESCE_TUNABLE
	__ATTR_NULL
};
