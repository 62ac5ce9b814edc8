#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare two samples of a throughput (A = ours, B = the reference).

Usage: tests/tools/rank-test.py "a1 a2 ..." "b1 b2 ..." [--seed N]

Prints the medians, the ratio of the medians A/B, a two-sided exact
Mann-Whitney (Wilcoxon rank-sum) p-value for "A and B come from the same
distribution", and a 95 % bootstrap interval of the ratio of medians
(10000 resamples, fixed seed so the output is repeatable).

The exact p-value enumerates every split of the pooled sample (C(14, 7) =
3432 for seven pairs), so it needs no normal approximation; ties get
mid-ranks.
"""
import itertools
import random
import statistics
import sys


def ranks(values):
    """Mid-ranks (1-based) of values, ties sharing the mean rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        mid = (i + j) / 2 + 1
        for k in range(i, j + 1):
            out[order[k]] = mid
        i = j + 1
    return out


def rank_sum_p(a, b):
    """Two-sided exact p-value of the rank sum of a among a + b."""
    pooled = a + b
    r = ranks(pooled)
    n = len(a)
    observed = sum(r[:n])
    mean = n * (len(pooled) + 1) / 2
    dev = abs(observed - mean)
    hits = total = 0
    for idx in itertools.combinations(range(len(pooled)), n):
        total += 1
        if abs(sum(r[i] for i in idx) - mean) >= dev - 1e-9:
            hits += 1
    return hits / total


def bootstrap_ratio(a, b, rounds=10000, seed=1):
    rng = random.Random(seed)
    ratios = []
    for _ in range(rounds):
        ma = statistics.median(rng.choice(a) for _ in a)
        mb = statistics.median(rng.choice(b) for _ in b)
        ratios.append(ma / mb)
    ratios.sort()
    return ratios[int(0.025 * rounds)], ratios[int(0.975 * rounds) - 1]


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        a = [float(x) for x in argv[1].split()]
        b = [float(x) for x in argv[2].split()]
    except ValueError as err:
        print(f"rank-test: not a number: {err}", file=sys.stderr)
        return 2
    if len(a) < 2 or len(b) < 2 or min(a + b) <= 0:
        print("rank-test: need at least two positive values per sample",
              file=sys.stderr)
        return 2
    if len(a) + len(b) > 24:
        print("rank-test: at most 24 values in all (exact enumeration)",
              file=sys.stderr)
        return 2
    ma, mb = statistics.median(a), statistics.median(b)
    lo, hi = bootstrap_ratio(a, b)
    print(f"n={len(a)}+{len(b)} median_a={ma:.2f} median_b={mb:.2f} "
          f"ratio={ma / mb:.3f} p_rank_sum={rank_sum_p(a, b):.3f} "
          f"ratio_95ci={lo:.3f}..{hi:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
