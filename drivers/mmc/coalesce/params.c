// SPDX-License-Identifier: GPL-2.0
/*
 * mmc_coalesce tunables: module parameters (defaults for every card, all
 * writable at run time) and per-disk sysfs attributes that override them
 * for one card (/sys/block/mmcblkN/mmc_coalesce/).
 *
 * Every value is range checked; a bad one is refused with -EINVAL and the
 * old value stays. A change is applied by draining the window first, so a
 * write is never judged by two sets of rules.
 */
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>

#include "mmcc.h"

/* Serialises parameter changes against disks coming and going. */
DEFINE_MUTEX(mmcc_mutex);
LIST_HEAD(mmcc_disks);

const struct mmcc_tunable_desc mmcc_tunables[MMCC_T_NR] = {
	[MMCC_T_ENABLE] = { "enable", 0, 1 },
	[MMCC_T_SMALL_KB] = { "small_kb", 0, 1024 },
	[MMCC_T_WINDOW_REQS] = { "window_reqs", 1, MMCC_WINDOW_REQS_MAX },
	[MMCC_T_WINDOW_KB] = { "window_kb", 4, 65536 },
	[MMCC_T_HOLD_MS] = { "hold_ms", 1, 10000 },
	[MMCC_T_IDLE_MS] = { "idle_ms", 1, 1000 },
	[MMCC_T_AU_KB] = { "au_kb", 0, 262144 },
};

/*
 * Module-wide values. Initialised statically: parameters given to insmod
 * are set before any init code of the module runs. The defaults come from
 * replaying the stock card traces through the window
 * (Documentation/reorder-window.md): the hold curve bends at 4.5-5 s.
 */
static u32 mmcc_defaults[MMCC_T_NR] = {
	[MMCC_T_ENABLE] = 1,
	[MMCC_T_SMALL_KB] = 16,
	[MMCC_T_WINDOW_REQS] = 128,
	[MMCC_T_WINDOW_KB] = 4096,
	[MMCC_T_HOLD_MS] = 5000,
	[MMCC_T_IDLE_MS] = 20,
	[MMCC_T_AU_KB] = 0,
};

void mmcc_tunables_defaults(u32 *tun)
{
	memcpy(tun, mmcc_defaults, sizeof(mmcc_defaults));
}

int mmcc_parse_tunable(enum mmcc_tunable t, const char *buf, u32 *val)
{
	const struct mmcc_tunable_desc *desc = &mmcc_tunables[t];
	u32 v;

	if (kstrtou32(buf, 0, &v))
		return -EINVAL;
	if (v < desc->min || v > desc->max)
		return -EINVAL;
	if (t == MMCC_T_AU_KB && v && (v < 16 || !is_power_of_2(v)))
		return -EINVAL;
	*val = v;
	return 0;
}

/* Turn the disk's tunables into engine parameters. Caller holds d->lock. */
void mmcc_tunables_to_params_locked(struct mmcc_disk *d)
{
	struct rwin_params *p = &d->win.p;
	u32 au_kb = d->tun[MMCC_T_AU_KB];

	if (au_kb)
		p->au_sectors = au_kb * 2;
	else if (d->au_sectors_card)
		p->au_sectors = d->au_sectors_card;
	else
		p->au_sectors = 8192;
	p->small_sectors = d->tun[MMCC_T_SMALL_KB] * 2;
	p->window_reqs = d->tun[MMCC_T_WINDOW_REQS];
	p->window_bytes = (u64)d->tun[MMCC_T_WINDOW_KB] * 1024;
	p->hold_ns = (u64)d->tun[MMCC_T_HOLD_MS] * NSEC_PER_MSEC;
	p->idle_ns = (u64)d->tun[MMCC_T_IDLE_MS] * NSEC_PER_MSEC;
}

/*
 * Drain what the window holds under the old rules, then switch. The engine
 * keeps its statistics; only its parameters change.
 */
void mmcc_apply_tunables(struct mmcc_disk *d)
{
	spin_lock(&d->lock);
	rwin_drain(&d->win, mmcc_now());
	mmcc_tunables_to_params_locked(d);
	spin_unlock(&d->lock);
	mmcc_kick(d);
}

/* ---- module parameters: defaults for every card ---- */

static int mmcc_param_set(const char *val, const struct kernel_param *kp)
{
	enum mmcc_tunable t = (enum mmcc_tunable)(uintptr_t)kp->arg;
	struct mmcc_disk *d;
	u32 v;
	int ret;

	ret = mmcc_parse_tunable(t, val, &v);
	if (ret) {
		pr_warn(MMCC_NAME ": %s: '%s' refused: want %u..%u%s\n",
			mmcc_tunables[t].name, strim((char *)val),
			mmcc_tunables[t].min, mmcc_tunables[t].max,
			t == MMCC_T_AU_KB ? " (0 or a power of two >= 16)" : "");
		return ret;
	}
	mutex_lock(&mmcc_mutex);
	mmcc_defaults[t] = v;
	list_for_each_entry(d, &mmcc_disks, node) {
		if (test_bit(t, &d->overridden))
			continue;
		spin_lock(&d->lock);
		d->tun[t] = v;
		spin_unlock(&d->lock);
		mmcc_apply_tunables(d);
	}
	mutex_unlock(&mmcc_mutex);
	return 0;
}

static int mmcc_param_get(char *buf, const struct kernel_param *kp)
{
	enum mmcc_tunable t = (enum mmcc_tunable)(uintptr_t)kp->arg;

	return sysfs_emit(buf, "%u\n", READ_ONCE(mmcc_defaults[t]));
}

static const struct kernel_param_ops mmcc_param_ops = {
	.set = mmcc_param_set,
	.get = mmcc_param_get,
};

/* The parameter's kernel_param.arg is its enum mmcc_tunable. */
module_param_cb(enable, &mmcc_param_ops, (void *)(uintptr_t)MMCC_T_ENABLE, 0644);
MODULE_PARM_DESC(enable,
		 "Hold and reorder writes (1, default) or pass them in arrival order (0)");
module_param_cb(small_kb, &mmcc_param_ops, (void *)(uintptr_t)MMCC_T_SMALL_KB, 0644);
MODULE_PARM_DESC(small_kb,
		 "Writes up to this size in KiB may be held (0-1024, default 16)");
module_param_cb(window_reqs, &mmcc_param_ops, (void *)(uintptr_t)MMCC_T_WINDOW_REQS, 0644);
MODULE_PARM_DESC(window_reqs,
		 "Most writes held at once (1-256, default 128)");
module_param_cb(window_kb, &mmcc_param_ops, (void *)(uintptr_t)MMCC_T_WINDOW_KB, 0644);
MODULE_PARM_DESC(window_kb,
		 "Most KiB held at once (4-65536, default 4096)");
module_param_cb(hold_ms, &mmcc_param_ops, (void *)(uintptr_t)MMCC_T_HOLD_MS, 0644);
MODULE_PARM_DESC(hold_ms,
		 "Longest hold of a write in ms (1-10000, default 5000)");
module_param_cb(idle_ms, &mmcc_param_ops, (void *)(uintptr_t)MMCC_T_IDLE_MS, 0644);
MODULE_PARM_DESC(idle_ms,
		 "Release all held writes after the card is idle this long, ms (1-1000, default 20)");
module_param_cb(au_kb, &mmcc_param_ops, (void *)(uintptr_t)MMCC_T_AU_KB, 0644);
MODULE_PARM_DESC(au_kb,
		 "Allocation unit in KiB: 0 = the card's (default), else a power of two >= 16");

/* ---- per-disk sysfs: /sys/block/mmcblkN/mmc_coalesce/NAME ---- */

struct mmcc_attr {
	struct device_attribute dattr;
	enum mmcc_tunable t;
};

static struct mmcc_disk *mmcc_dev_to_disk(struct device *dev)
{
	return dev_to_disk(dev)->private_data;
}

static ssize_t mmcc_attr_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	struct mmcc_attr *a = container_of(attr, struct mmcc_attr, dattr);
	struct mmcc_disk *d = mmcc_dev_to_disk(dev);

	return sysfs_emit(buf, "%u\n", READ_ONCE(d->tun[a->t]));
}

/* A value overrides the module default for this disk; "default" undoes it. */
static ssize_t mmcc_attr_store(struct device *dev,
			       struct device_attribute *attr,
			       const char *buf, size_t count)
{
	struct mmcc_attr *a = container_of(attr, struct mmcc_attr, dattr);
	struct mmcc_disk *d = mmcc_dev_to_disk(dev);
	bool reset = sysfs_streq(buf, "default");
	u32 v;

	if (!reset && mmcc_parse_tunable(a->t, buf, &v))
		return -EINVAL;
	mutex_lock(&mmcc_mutex);
	if (reset) {
		v = mmcc_defaults[a->t];
		clear_bit(a->t, &d->overridden);
	} else {
		set_bit(a->t, &d->overridden);
	}
	spin_lock(&d->lock);
	d->tun[a->t] = v;
	spin_unlock(&d->lock);
	mmcc_apply_tunables(d);
	mutex_unlock(&mmcc_mutex);
	return count;
}

#define MMCC_ATTR(_name, _t)						\
	static struct mmcc_attr mmcc_attr_##_name = {			\
		.dattr = __ATTR(_name, 0644, mmcc_attr_show, mmcc_attr_store), \
		.t = _t,						\
	}

MMCC_ATTR(enable, MMCC_T_ENABLE);
MMCC_ATTR(small_kb, MMCC_T_SMALL_KB);
MMCC_ATTR(window_reqs, MMCC_T_WINDOW_REQS);
MMCC_ATTR(window_kb, MMCC_T_WINDOW_KB);
MMCC_ATTR(hold_ms, MMCC_T_HOLD_MS);
MMCC_ATTR(idle_ms, MMCC_T_IDLE_MS);
MMCC_ATTR(au_kb, MMCC_T_AU_KB);

static struct attribute *mmcc_disk_attrs[] = {
	&mmcc_attr_enable.dattr.attr,
	&mmcc_attr_small_kb.dattr.attr,
	&mmcc_attr_window_reqs.dattr.attr,
	&mmcc_attr_window_kb.dattr.attr,
	&mmcc_attr_hold_ms.dattr.attr,
	&mmcc_attr_idle_ms.dattr.attr,
	&mmcc_attr_au_kb.dattr.attr,
	NULL,
};

static const struct attribute_group mmcc_disk_group = {
	.name = "mmc_coalesce",
	.attrs = mmcc_disk_attrs,
};

const struct attribute_group *mmcc_disk_groups[] = {
	&mmcc_disk_group,
	NULL,
};
