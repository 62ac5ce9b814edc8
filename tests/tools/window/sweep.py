#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Sweep replay settings over the real card traces and summarise them.

Usage: sweep.py [--bench DIR] [--replay BIN] [--cardtrace BIN]
                [--base "REPLAY OPTIONS"] AXIS VALUE [VALUE ...]

AXIS is a replay option without its dashes ("hold-ms", "window-kb",
"window-reqs", "backward-kb") whose value is swept, or "flag" to compare
the base with each VALUE taken as extra replay options ("--sweep",
"--no-backward", "--attach-ahead", "" for the base itself). Every other
option comes from --base. For each value it prints one markdown row with
the AU switches summed per scenario (seed, ext4, fio; 4 elevators each),
the switches/ideal ratio over all 12 traces and the mean estimated MB/s
for the linear-only and the any-order card, plus the stock (--off) row.
"""
import argparse
import glob
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def run(replay, cardtrace, trace, opts):
    with open(trace) as f:
        rp = subprocess.Popen([replay] + opts, stdin=f,
                              stdout=subprocess.PIPE)
        out = subprocess.run([cardtrace, "--kv"], stdin=rp.stdout,
                             capture_output=True, text=True, check=True)
        rp.stdout.close()
        if rp.wait():
            sys.exit("replay failed on %s" % trace)
    return dict(line.split("=", 1) for line in out.stdout.split())


def summary(rows):
    scen = {}
    for (sc, _), kv in rows.items():
        scen.setdefault(sc, 0)
        scen[sc] += int(kv["au_switches"])
    sw = sum(int(kv["au_switches"]) for kv in rows.values())
    ideal = sum(int(kv["distinct_aus"]) for kv in rows.values())
    n = len(rows)
    lin = sum(float(kv["est_linear_mbps"]) for kv in rows.values()) / n
    anyo = sum(float(kv["est_any_mbps"]) for kv in rows.values()) / n
    return scen, sw / ideal, lin, anyo


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", default=os.path.join(ROOT, "build", "bench"))
    ap.add_argument("--replay",
                    default=os.path.join(ROOT, "build", "host", "window",
                                         "replay"))
    ap.add_argument("--cardtrace",
                    default=os.path.join(ROOT, "build", "host", "cardtrace"))
    ap.add_argument("--base", default="")
    ap.add_argument("axis")
    ap.add_argument("values", nargs="+")
    a = ap.parse_args()

    traces = sorted(glob.glob(os.path.join(a.bench, "*-stock-*",
                                           "commands.txt")))
    if not traces:
        sys.exit("no traces under %s" % a.bench)
    keys = []
    for t in traces:
        sc, el = os.path.basename(os.path.dirname(t)).split("-stock-")
        keys.append((sc, el))
    scenarios = sorted({k[0] for k in keys}, key=["seed", "ext4", "fio"]
                       .index if all(k[0] in ("seed", "ext4", "fio")
                                     for k in keys) else None)

    print("| setting | " + " | ".join("AU sw. %s" % s for s in scenarios) +
          " | switches/ideal | mean MB/s linear | mean MB/s any |")
    print("|---" * (len(scenarios) + 4) + "|")
    settings = [("stock (--off)", ["--off"])]
    for v in a.values:
        if a.axis == "flag":
            opts = a.base.split() + v.split()
            name = v or "base"
        else:
            opts = a.base.split() + ["--" + a.axis, v]
            name = "%s %s" % (a.axis, v)
        settings.append((name, opts))
    for name, opts in settings:
        rows = {k: run(a.replay, a.cardtrace, t, opts)
                for k, t in zip(keys, traces)}
        scen, ratio, lin, anyo = summary(rows)
        print("| %s | %s | %.2f | %.2f | %.2f |" %
              (name, " | ".join(str(scen[s]) for s in scenarios), ratio,
               lin, anyo))


if __name__ == "__main__":
    main()
