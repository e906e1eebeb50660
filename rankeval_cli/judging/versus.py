"""Which judge is better: paired bootstrap tests between candidates and significance clusters.

For one statistic (a column of every candidate), candidate a and b have the observed values
θ_a, θ_b and, on every bootstrap replicate r (the same topics drawn for both: paired),
θ*_ar, θ*_br. With δ = θ_a − θ_b oriented so that a positive δ favours a (the sign is flipped
for a statistic that is better when lower), the p-value of "a is better than b" is Koehn's
(2004) paired bootstrap criterion, how often the better judge loses, with Davison & Hinkley's
(1997, eq. 4.11) +1s:

    p = (1 + #{r : δ*_r ≤ 0}) / (1 + B'),

B' the replicates where both values are defined. The candidates are sorted by value (best
first, then by name) and given the rank of their significance cluster as meta-eval ranks
metrics (mt-metrics-eval's AssignRanks: a candidate opens a new cluster when some member of
the current cluster beats it at p ≤ α; :func:`rankeval_cli.stats.metaeval.assign_ranks`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Ranked:
    """One statistic's candidates: their order, cluster ranks and pairwise tests."""

    order: list  # candidate indexes, best first
    ranks: list  # cluster rank of order[i]
    p: np.ndarray  # p[i, j] (i < j, positions in ``order``): "order[i] is better than order[j]"
    delta: np.ndarray  # observed θ_order[i] − θ_order[j] (not oriented)
    ci_low: np.ndarray
    ci_high: np.ndarray


def rank_candidates(names, values, reps, *, lower_is_better: bool = False, alpha: float = 0.05,
                    level: float = 0.95) -> Ranked:
    """Sort, test and cluster the candidates of one statistic (module docstring).

    ``values`` (C,) observed, ``reps`` (B, C) replicate values; undefined values sort last."""
    from ..stats.metaeval import assign_ranks
    from ..stats.resample import percentile_interval

    sign = -1.0 if lower_is_better else 1.0
    values = np.asarray(values, np.float64)
    key = [(np.isnan(v), -sign * v if not np.isnan(v) else 0.0, str(n)) for v, n in zip(values, names)]
    order = sorted(range(len(values)), key=lambda c: key[c])
    n = len(order)
    p = np.ones((n, n))
    delta = np.full((n, n), np.nan)
    low, high = np.full((n, n), np.nan), np.full((n, n), np.nan)
    for a in range(n):
        for b in range(a + 1, n):
            ca, cb = order[a], order[b]
            d = reps[:, ca] - reps[:, cb]
            d = d[np.isfinite(d)]
            p[a, b] = (1.0 + np.count_nonzero(sign * d <= 0)) / (1.0 + len(d))
            delta[a, b] = values[ca] - values[cb]
            low[a, b], high[a, b] = percentile_interval(d, level)
    ranks = assign_ranks(p, alpha) if n else []
    return Ranked(order, ranks, p, delta, low, high)
