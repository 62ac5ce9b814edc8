#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What-if: small writes to stream-less AUs sent in step with the stream's AU boundaries.

Usage: cardtrace [--marker-base B --from 1 --to 2] --dump TRACE |
           tests/tools/in-step-order.py [--au-kb N] [--small-kb N] |
           cardtrace --kv [--au-kb N ...]

Reads a command list (cardtrace --dump: "<time_us> <W|R> <sector>
<sectors>") and writes the same commands in another order: a small write
(at most --small-kb, default 16) to an AU that no large write reaches
after it (an AU without a data stream: bitmaps, inode tables, the
superblock; not an indirect block ahead of its data, which the window
already sends with that data) is put off until a large write enters
another AU than the one before it, and then goes just before that write,
with the others put off in their order, stamped with its time. Every
other command keeps its place; what is still put off at the end goes
last. Nothing is dropped, and same-sector writes keep their order: a
put-off write moves later only past writes of other AUs (a large write
of its AU would come after it, which none does) and past small writes
of its AU, which are put off too and stay behind it.

Scoring both orders with cardtrace's card model gives what the what-if
would save; it ignores the holds' bounds and the writers that sleep on a
held write, so it is an upper bound on what the rule could save.
"""
import sys


def main(argv):
    au_kb, small_kb = 4096, 16
    args = argv[1:]
    while args:
        opt = args.pop(0)
        if opt in ("--au-kb", "--small-kb") and args:
            val = int(args.pop(0))
            if val <= 0:
                sys.exit(f"in-step-order: {opt} must be positive")
            if opt == "--au-kb":
                au_kb = val
            else:
                small_kb = val
        else:
            sys.exit(__doc__.split("\n\n")[1])
    au_sectors, small = au_kb * 2, small_kb * 2
    cmds = []
    for line in sys.stdin:
        if line.startswith("#") or not line.strip():
            continue
        t, op, start, sectors = line.split()
        cmds.append((t, op, int(start), int(sectors)))
    last_large = {}
    for i, (_, op, start, sectors) in enumerate(cmds):
        if op == "W" and sectors > small:
            last_large[start // au_sectors] = i
    stream_au = None
    held = []
    moved = 0
    for i, (t, op, start, sectors) in enumerate(cmds):
        au = start // au_sectors
        if op == "W" and sectors > small:
            if stream_au is not None and au != stream_au:
                for _, h_op, h_start, h_sectors in held:
                    print(t, h_op, h_start, h_sectors)
                held = []
            stream_au = au
        elif op == "W" and au != stream_au and last_large.get(au, -1) < i:
            held.append((t, op, start, sectors))
            moved += 1
            continue
        print(t, op, start, sectors)
    for t, op, start, sectors in held:
        print(t, op, start, sectors)
    print(f"in-step-order: {moved} small writes put off", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv)
