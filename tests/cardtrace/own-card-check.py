#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Independent check of the expected values of blkparse-text cases.

Usage: tests/cardtrace/own-card-check.py CASE_DIR NAME...

For each case, reads CASE_DIR/NAME.trace (blkparse's default text), the
model options of CASE_DIR/NAME.args if there is one, and computes, from
the definitions in Documentation/card-cost-model.md and not by running
cardtrace, the keys below for the linear-only card; then compares each
with CASE_DIR/NAME.expect, at the number of decimals the .expect prints.
Output is KTAP-like: "ok N NAME/KEY" or "not ok N NAME/KEY computed X,
expect Y"; keys of the .expect computed nowhere here are named on "#"
lines and left to cardtrace. Exit status: 0 all equal, 1 a mismatch, 2 a
case this script cannot check (no .expect, not blkparse text, an option
it does not model).

What counts (as the admin guide and the cost model page say): each issue
(action "D") event with a sector range is one command to the card; its
RWBS flags say a write (a "W") or a read (an "R"); a flush ("FN") or an
event without a range moves no data. Queue, completion, plug and message
lines are not commands.

Keys, model defaults 4 MiB AU, 2 open AUs, 12 MB/s, 12 MB/s copy, 500 us
per command, small = at most 16 KiB:
  writes, reads      the write and read commands;
  small_writes       writes of at most --small-kb KiB;
  au_switches        writes whose first sector lies in another AU than
                     the previous write's (the first write counts);
  distinct_aus       AUs any write touches;
  switch_ratio       au_switches / distinct_aus;
  est_linear_mbps    bytes written / est. time on the linear-only card,
                     time = writes x cmd + bytes / seq + copied x 512 / copy;
  floor_linear_s     the floor on that card: runs of contiguous written
                     sectors x cmd + bytes / seq + per AU written
                     max(k x AU - W, AU - distinct sectors), k the AU's
                     openings (without --floor-gap-ms: the most writes
                     that cover one of its sectors), W its sectors written;
  floor_switches     without --floor-gap-ms: one visit per AU in which a
                     write starts;
  est_linear_over_floor  the two times' ratio.
"""
import os
import sys

SECTOR = 512

# model options of a case's .args that this script understands
MODEL_OPTIONS = {
    "--au-kb": ("au_kb", int),
    "--open-aus": ("open_aus", int),
    "--seq-mbps": ("seq_mbps", float),
    "--copy-mbps": ("copy_mbps", float),
    "--cmd-us": ("cmd_us", float),
    "--small-kb": ("small_kb", int),
}


class CannotCheck(Exception):
    """A case outside what this script models."""


def model_of(args_path):
    model = {"au_kb": 4096, "open_aus": 2, "seq_mbps": 12.0,
             "copy_mbps": 12.0, "cmd_us": 500.0, "small_kb": 16}
    if not os.path.exists(args_path):
        return model
    with open(args_path, encoding="utf-8") as f:
        words = f.read().split()
    while words:
        opt = words.pop(0)
        if opt not in MODEL_OPTIONS or not words:
            raise CannotCheck(f"{args_path}: option {opt!r} not modelled here")
        key, kind = MODEL_OPTIONS[opt]
        model[key] = kind(words.pop(0))
    return model


def read_blkparse(path):
    """The issued commands, in trace order: ('W' or 'R', start, sectors)."""
    cmds, issues = [], 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            w = line.split()
            # "MAJ,MIN CPU SEQ TIME PID ACTION RWBS [START + N] [...]"
            if len(w) < 7 or w[0].count(",") != 1 or w[5] != "D":
                continue
            if not all(x.isdigit() for x in w[0].split(",")):
                continue
            issues += 1
            if len(w) < 10 or w[8] != "+" or not (w[7].isdigit() and
                                                   w[9].isdigit()):
                continue        # no sector range: no data
            rwbs = w[6]
            if "W" in rwbs:
                op = "W"
            elif "R" in rwbs:
                op = "R"
            else:
                continue        # a flush or a discard
            cmds.append((op, int(w[7]), int(w[9])))
    if not issues:
        raise CannotCheck(f"{path}: no blkparse issue (D) event")
    return cmds


def split_by_au(start, sectors, au):
    """(AU, offset in it, length) of each part of a range inside one AU."""
    pos, end = start, start + sectors
    while pos < end:
        a, off = divmod(pos, au)
        n = min(end - pos, au - off)
        yield a, off, n
        pos += n


def linear_card_copied(writes, au, open_max):
    """Sectors the linear-only card copies for these writes, in this order."""
    lru = []        # [AU, write pointer], least recently used first
    copied = 0
    for start, sectors in writes:
        for a, off, n in split_by_au(start, sectors, au):
            slot = next((s for s in lru if s[0] == a), None)
            if slot is None:
                if len(lru) == open_max:
                    evicted = lru.pop(0)
                    copied += au - evicted[1]       # its unwritten tail
                slot = [a, 0]
            else:
                lru.remove(slot)
            if off < slot[1]:
                copied += au - slot[1]  # behind: finish the AU ...
                slot[1] = 0             # ... and start it again
            copied += off - slot[1]     # skipped ahead (or the head again)
            slot[1] = off + n
            lru.append(slot)
    for _, wp in lru:                   # the end of the trace
        copied += au - wp
    return copied


def depth_and_cover(ranges):
    """Most ranges over one sector, and the sectors covered at least once."""
    edges = []
    for s, e in ranges:
        edges.append((s, 1))
        edges.append((e, -1))
    edges.sort()            # at one sector an end (-1) before a start (+1)
    depth = deepest = covered = 0
    last = None
    for pos, step in edges:
        if depth > 0:
            covered += pos - last
        depth += step
        deepest = max(deepest, depth)
        last = pos
    return deepest, covered


def contiguous_runs(ranges):
    runs, run_end = 0, None
    for s, e in sorted(ranges):
        if run_end is not None and s <= run_end:
            run_end = max(run_end, e)
        else:
            runs += 1
            run_end = e
    return runs


def compute(cmds, m):
    au = m["au_kb"] * 2
    cmd_s = m["cmd_us"] / 1e6
    seq_bps = m["seq_mbps"] * 1e6
    copy_bps = m["copy_mbps"] * 1e6
    writes = [(s, n) for op, s, n in cmds if op == "W"]
    v = {"writes": len(writes), "reads": sum(op == "R" for op, _, _ in cmds)}
    v["small_writes"] = sum(n <= m["small_kb"] * 2 for _, n in writes)

    switches, prev = 0, None
    for s, _ in writes:
        if s // au != prev:
            switches += 1
        prev = s // au
    v["au_switches"] = switches
    per_au = {}         # AU -> the ranges written in it, offsets in the AU
    for s, n in writes:
        for a, off, k in split_by_au(s, n, au):
            per_au.setdefault(a, []).append((off, off + k))
    v["distinct_aus"] = len(per_au)
    if per_au:
        v["switch_ratio"] = switches / len(per_au)

    sectors = sum(n for _, n in writes)
    data_s = sectors * SECTOR / seq_bps
    copied = linear_card_copied(writes, au, m["open_aus"])
    est_s = len(writes) * cmd_s + data_s + copied * SECTOR / copy_bps
    if est_s > 0:
        v["est_linear_mbps"] = sectors * SECTOR / est_s / 1e6

    floor_copy = 0
    for ranges in per_au.values():
        openings, distinct = depth_and_cover(ranges)
        written = sum(e - s for s, e in ranges)
        floor_copy += max(openings * au - written, au - distinct)
    runs = contiguous_runs([(s, s + n) for s, n in writes])
    floor_s = runs * cmd_s + data_s + floor_copy * SECTOR / copy_bps
    v["floor_linear_s"] = floor_s
    v["floor_switches"] = len({s // au for s, _ in writes})
    if floor_s > 0:
        v["est_linear_over_floor"] = est_s / floor_s
    return v


def shown(value, like):
    """VALUE printed with as many decimals as the expected text LIKE."""
    if "." in like:
        return f"{value:.{len(like.split('.', 1)[1])}f}"
    return str(int(value))


def check_case(case_dir, name):
    path = os.path.join(case_dir, name)
    if not os.path.exists(path + ".expect"):
        raise CannotCheck(f"{path}.expect: no such file")
    values = compute(read_blkparse(path + ".trace"), model_of(path + ".args"))
    results, left = [], []
    with open(path + ".expect", encoding="utf-8") as f:
        for line in f:
            key, sep, want = line.rstrip("\n").partition("=")
            if not sep:
                continue
            if key not in values:
                left.append(key)
                continue
            got = shown(values[key], want)
            results.append((f"{name}/{key}", got, want))
    if not results:
        raise CannotCheck(f"{path}.expect: no key computed here")
    return results, left


def main(argv):
    if len(argv) < 3:
        print("usage: own-card-check.py CASE_DIR NAME...", file=sys.stderr)
        return 2
    case_dir, names = argv[1], argv[2:]
    checked = []
    try:
        for name in names:
            checked.append((name,) + check_case(case_dir, name))
    except (CannotCheck, OSError, ValueError) as e:
        print(f"own-card-check: {e}", file=sys.stderr)
        return 2
    print("KTAP version 1")
    print(f"1..{sum(len(r) for _, r, _ in checked)}")
    n = failed = 0
    for name, results, left in checked:
        for key in left:
            print(f"# {name}/{key}: not computed here, left to cardtrace")
        for test, got, want in results:
            n += 1
            if got == want:
                print(f"ok {n} {test}")
            else:
                failed += 1
                print(f"not ok {n} {test} computed {got}, expect {want}")
    print(f"# Totals: pass:{n - failed} fail:{failed} skip:0")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
