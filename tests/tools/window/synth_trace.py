#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Synthetic card-level command list shaped like the stock 6.1 ext2 dd trace
(Documentation in /work/shared/notes/stock-6.1-card-trace.md): 512 KiB data
writes ascending, an 8-sector indirect block in front of every 4 MiB of data
(often written ahead, for AUs the data has not reached), bitmap and inode
table writes in AU 0 and at block-group starts, and plug-reversed pairs.
Output: "<time_us> <W|R> <start> <sectors>" for the replay tool (tests/tools/window/replay.c)."""
import random
import sys

rnd = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
t = 0
data = 114688 + 96
out = ["# phase dd"]


def w(start, sectors):
    out.append("%d W %d %d" % (t, start, sectors))


for i in range(1024):                 # 512 MiB of data in 512 KiB writes
    t += rnd.randint(20000, 30000)    # the writeback stream's pace
    if i % 8 == 0:
        ind = data + 8192 * rnd.randint(0, 4) - 8
        w(ind, 8)                     # indirect block, maybe ahead
    if rnd.random() < 0.06:           # plug reversal: data, then the front
        w(data + 96, 1024)
        w(data, 96)
        data += 1120
        continue
    w(data, 1024)
    data += 1024
    if rnd.random() < 0.15:           # bitmap / inode table / descriptor
        w(rnd.choice([8, 2056, 6168, 4104]) + 8 * rnd.randint(0, 3), 8)
    if rnd.random() < 0.05:
        w(262144 * rnd.randint(0, 3) + 8 * rnd.randint(0, 40), 16)
out.append("# phase sync")
t += 5000000
print("\n".join(out))
