// SPDX-License-Identifier: GPL-2.0
/*
 * Per-disk statistics: /sys/kernel/debug/mmc_coalesce/mmcblkN/stats.
 * One "name value" pair a line, so scripts can read them with awk. The
 * window's counters are copied under the disk lock; the output counters
 * are the issuer's own and may be a few events behind while I/O runs.
 */
#include <linux/debugfs.h>
#include <linux/math64.h>
#include <linux/seq_file.h>

#include "mmcc.h"

static struct dentry *mmcc_debugfs_root;

static const char * const mmcc_reason_names[RWIN_REL_NR] = {
	[RWIN_REL_ATTACH] = "attach",
	[RWIN_REL_COUNT] = "count",
	[RWIN_REL_BYTES] = "bytes",
	[RWIN_REL_DEADLINE] = "deadline",
	[RWIN_REL_IDLE] = "idle",
	[RWIN_REL_FLUSH] = "flush",
	[RWIN_REL_FUA] = "fua",
	[RWIN_REL_SYNC] = "sync",
	[RWIN_REL_READ] = "read",
	[RWIN_REL_OVERLAP] = "overlap",
	[RWIN_REL_DRAIN] = "drain",
};

static int mmcc_stats_show(struct seq_file *m, void *unused)
{
	struct mmcc_disk *d = m->private;
	struct mmcc_out_stats out;
	struct rwin_stats st;
	struct rwin_params p;
	u32 held, tun[MMCC_T_NR];
	u64 held_bytes, read_wait_ns, read_wait_sectors, fifo_writes;
	int i;

	spin_lock(&d->lock);
	st = d->win.stats;
	p = d->win.p;
	held = d->win.held_count;
	held_bytes = d->win.held_bytes;
	memcpy(tun, d->tun, sizeof(tun));
	read_wait_ns = d->read_wait_max_ns;
	read_wait_sectors = d->read_wait_max_sectors;
	fifo_writes = d->fifo_writes;
	spin_unlock(&d->lock);
	out = d->out;

	for (i = 0; i < MMCC_T_NR; i++)
		seq_printf(m, "param_%s %u\n", mmcc_tunables[i].name, tun[i]);
	seq_printf(m, "au_sectors %u\n", p.au_sectors);
	seq_printf(m, "held_now %u\n", held);
	seq_printf(m, "held_bytes_now %llu\n", held_bytes);
	seq_printf(m, "writes_in %llu\n", st.writes);
	seq_printf(m, "passed %llu\n", st.passed);
	seq_printf(m, "held %llu\n", st.holds);
	seq_printf(m, "held_backward %llu\n", st.holds_backward);
	seq_printf(m, "meta %llu\n", st.meta);
	seq_printf(m, "chained %llu\n", st.chained);
	for (i = 0; i < RWIN_REL_NR; i++)
		seq_printf(m, "released_%s %llu\n", mmcc_reason_names[i],
			   st.released[i]);
	for (i = 0; i < RWIN_REL_NR; i++)
		seq_printf(m, "release_events_%s %llu\n", mmcc_reason_names[i],
			   st.release_events[i]);
	seq_printf(m, "merges %llu\n", st.merges);
	seq_printf(m, "window_commands %llu\n", st.commands);
	seq_printf(m, "extents %llu\n", st.extents);
	seq_printf(m, "reads_in %llu\n", st.reads);
	seq_printf(m, "read_waits %llu\n", st.read_waits);
	seq_printf(m, "flushes %llu\n", st.flushes);
	seq_printf(m, "max_hold_us %llu\n", div_u64(st.max_hold_ns, 1000));
	seq_printf(m, "mean_hold_us %llu\n", out.held_released ?
		   div_u64(div64_u64(out.held_ns_total, out.held_released),
			   1000) : 0);
	seq_printf(m, "max_held %u\n", st.max_held);
	seq_printf(m, "max_held_bytes %llu\n", st.max_held_bytes);
	seq_printf(m, "card_write_cmds %llu\n", out.write_cmds);
	seq_printf(m, "card_write_sectors %llu\n", out.write_sectors);
	seq_printf(m, "card_read_cmds %llu\n", out.read_cmds);
	seq_printf(m, "card_au_switches %llu\n", out.au_switches);
	seq_printf(m, "card_multi_request_cmds %llu\n", out.multi_req_cmds);
	seq_printf(m, "retries %llu\n", out.retries);
	seq_printf(m, "errors %llu\n", out.errors);
	seq_printf(m, "resets %llu\n", out.resets);
	seq_printf(m, "fifo_writes %llu\n", fifo_writes);
	seq_printf(m, "write_reqs_done %llu\n", out.write_reqs_done);
	seq_printf(m, "write_reqs_failed %llu\n", out.write_reqs_failed);
	seq_printf(m, "read_wait_max_us %llu\n", div_u64(read_wait_ns, 1000));
	seq_printf(m, "read_wait_max_write_kib %llu\n", read_wait_sectors >> 1);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mmcc_stats);

void mmcc_debugfs_add(struct mmcc_disk *d)
{
	if (!mmcc_debugfs_root)
		return;
	d->debugfs = debugfs_create_dir(d->disk->disk_name, mmcc_debugfs_root);
	debugfs_create_file("stats", 0444, d->debugfs, d, &mmcc_stats_fops);
}

void mmcc_debugfs_remove(struct mmcc_disk *d)
{
	debugfs_remove_recursive(d->debugfs);
	d->debugfs = NULL;
}

void mmcc_debugfs_init(void)
{
	mmcc_debugfs_root = debugfs_create_dir(MMCC_NAME, NULL);
}

void mmcc_debugfs_exit(void)
{
	debugfs_remove_recursive(mmcc_debugfs_root);
	mmcc_debugfs_root = NULL;
}
