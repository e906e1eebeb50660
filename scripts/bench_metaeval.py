#!/usr/bin/env python3
"""Benchmark: 1,000-trial permutation tests between two metrics on a 15-system × 1,500-segment matrix.

Usage: scripts/bench_metaeval.py [--systems 15] [--segments 1500] [--permutations 1000]

Prints the seconds per test for each statistic of the WMT21-25 tables. Synthetic
MQM-like data (integer-ish human scores with ties, continuous metric scores,
5% of cells missing), fixed seeds.
"""

import argparse
import time

import numpy as np

from rankeval_cli.stats import metaeval as me


def data(n_sys, n_seg, seed=1):
    rng = np.random.default_rng(seed)
    human = -rng.poisson(2.0, (n_sys, n_seg)).astype(float)
    human[rng.random(human.shape) < 0.05] = np.nan
    base = np.nan_to_num(human, nan=-2.0)
    a = base + rng.normal(0, 2.0, human.shape)
    b = base + rng.normal(0, 3.0, human.shape)
    return human, a, b


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--systems", type=int, default=15)
    ap.add_argument("--segments", type=int, default=1500)
    ap.add_argument("--permutations", type=int, default=1000)
    args = ap.parse_args()
    human, a, b = data(args.systems, args.segments)
    complete = np.nan_to_num(human, nan=-2.0)
    cases = [
        ("seg pearson, average_by none", dict(statistic="pearson", average_by="none")),
        ("seg pearson, average_by item", dict(statistic="pearson", average_by="item")),
        ("seg kendall b, average_by item", dict(statistic="kendall", average_by="item")),
        ("seg acc-eq calibrated, item, pairs test", dict(statistic="accuracy", average_by="item", calibrate=True)),
        ("seg kendall b, average_by none", dict(statistic="kendall", average_by="none")),
    ]
    print(f"{args.systems} systems x {args.segments} segments, {args.permutations} permutations")
    for label, kw in cases:
        t, c = time.perf_counter(), time.process_time()
        r = me.permutation_test(human, a, b, permutations=args.permutations, seed=1, **kw)
        print(f"{label:45s} {time.perf_counter() - t:7.2f} s wall {time.process_time() - c:7.2f} s CPU   p = {r.p:.3f}")
    t, c = time.perf_counter(), time.process_time()
    cmp = me.compare_metrics(complete, {"a": a, "b": b}, "spa", level="sys", permutations=args.permutations, seed=1)
    print(f"{'sys SPA (1,000 sign flips per call)':45s} {time.perf_counter() - t:7.2f} s wall {time.process_time() - c:7.2f} s CPU"
          f"   p = {cmp.p[0, 1]:.3f}")
    print("(CPU time counts all threads; with an idle machine wall time is at most the CPU time)")


if __name__ == "__main__":
    main()
