/* SPDX-License-Identifier: GPL-2.0 */
/*
 * COALESCE_TUNABLE(name, default, min, max, help): the module parameter,
 * the per-disk file in /sys/block/<disk>/queue/iosched/, their range
 * check, the statistics and the guest tests (qemu/initramfs.sh reads this
 * file). au_kb is 0 or whole 4 KiB pages from 16 (12, 24 MiB AUs exist).
 */
COALESCE_TUNABLE(enable, 1, 0, 1,
		 "Hold and reorder writes (1) or pass them in arrival order (0)")
COALESCE_TUNABLE(small_kb, 16, 0, 1024,
		 "Writes up to this many KiB may be held")
COALESCE_TUNABLE(window_reqs, 128, 1, 1024,
		 "Most writes held at once (also capped by the scheduler tags)")
COALESCE_TUNABLE(window_kb, 4096, 4, 65536,
		 "Most KiB held at once")
COALESCE_TUNABLE(hold_ms, 5000, 1, 10000,
		 "Longest hold of a write to an AU a data stream reached, in milliseconds")
COALESCE_TUNABLE(meta_hold_ms, 20000, 0, 30000,
		 "Longest hold in an AU no data write reached for hold_ms (0: hold_ms)")
COALESCE_TUNABLE(idle_ms, 200, 1, 1000,
		 "Release writes held under hold_ms after this many ms without writes")
COALESCE_TUNABLE(meta_idle_ms, 1000, 1, 10000,
		 "Release writes held under meta_hold_ms after this many ms without writes")
COALESCE_TUNABLE(sync_grace_ms, 1000, 0, 10000,
		 "Hold nothing for this many ms after a sync or FUA write")
COALESCE_TUNABLE(sync_release, 1, 0, 1,
		 "A sync write releases every held write (1) or only those it overlaps (0)")
COALESCE_TUNABLE(queue_writes, 8, 0, 1024,
		 "Most background writes queued or on the card beside the held ones (0: no bound)")
COALESCE_TUNABLE(absorb, 1, 0, 1,
		 "A write carries the updates made to its buffers while it waited (1) or not (0)")
COALESCE_TUNABLE(au_kb, 0, 0, 262144,
		 "Allocation unit in KiB: 0 = from the disk (else 4096); a multiple of 4 >= 16")
