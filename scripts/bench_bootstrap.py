#!/usr/bin/env python3
"""Time the bootstrap and paired tests on per-group statistics of G groups (default a million).

    python scripts/bench_bootstrap.py [--groups G] [--replicates B]

Measures only the resampling (the statistics are made directly, not read from a file):
micro tau from the pair counts of 5-item groups (few distinct rows: multinomial path),
a mean of continuous per-group values (all rows distinct: group-index path), and the
paired bootstrap + approximate randomization of two systems of each kind.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from rankeval_cli.stats.paired_resampling import compare
from rankeval_cli.stats.resample import MeanStat, TauMicroStat, bootstrap_intervals


def tau_counts(rng, groups: int) -> np.ndarray:
    """Random pair counts of 5-item groups (10 pairs each: C, D, T_h, T_m, T_hm; c_den 0)."""
    split = rng.multinomial(10, [0.55, 0.25, 0.05, 0.1, 0.05], size=groups).astype(np.float64)
    return np.column_stack([split, np.zeros(groups)])


def timed(label: str, fn) -> None:
    start = time.perf_counter()
    result = fn()
    print(f"{label:<44} {time.perf_counter() - start:7.2f} s   {result}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=1_000_000)
    parser.add_argument("--replicates", type=int, default=1000)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    g, b = args.groups, args.replicates
    ta, tb = tau_counts(rng, g), tau_counts(rng, g)
    va, vb = rng.random(g), rng.random(g)
    timed(f"micro tau interval, {g} groups x {b}", lambda: bootstrap_intervals([TauMicroStat("penalize")], [ta],
                                                                            0.95, b, 1))
    timed(f"mean interval (continuous), {g} x {b}", lambda: bootstrap_intervals([MeanStat()], [va], 0.95, b, 1))
    timed("compare micro tau (bootstrap + randomization)",
          lambda: compare(TauMicroStat("penalize"), [ta, tb], bootstrap=b, permutations=b)[1].p_randomization)
    timed("compare mean (bootstrap + randomization)",
          lambda: compare(MeanStat(), [va, vb], bootstrap=b, permutations=b)[1].p_randomization)


if __name__ == "__main__":
    main()
