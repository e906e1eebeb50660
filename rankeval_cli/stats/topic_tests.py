"""Paired tests over per-topic values of two systems: what IR papers report beside a table of
means (and what PyTerrier's ``Experiment`` prints), computed from the values of the topics
both systems have. The randomization and bootstrap tests are those of :mod:`.paired_resampling` (any
statistic of per-group sums, a mean included); corrections are in :mod:`.multitest`.

With d_q = x_q − b_q (run minus baseline) over the n paired queries:

- **paired t-test** (Student 1908): t = d̄ / (s_d / √n), s_d the sample standard deviation
  (n − 1 in the denominator), two-sided p from Student's t with n − 1 degrees of freedom;
  undefined (NaN) when n < 2 or every d_q is 0. When every d_q equals the same nonzero
  value (s_d = 0), t = ±∞ and p = 0. Equals ``scipy.stats.ttest_rel``, these cases included.
- **Wilcoxon signed-rank test** (Wilcoxon 1945): zero differences are dropped (Wilcoxon's
  own rule, scipy's ``zero_method="wilcox"``), the m remaining |d_q| are ranked (ties get
  their mean rank), W+ = Σ ranks of the positive d_q. The two-sided p is exact, from the null
  distribution of W+ (every sign pattern equally likely), when n ≤ 50 and no d_q is 0 or
  ties in |d_q| (by counting subsets of 1..m), or when n ≤ 13 (by enumerating the 2^m
  patterns of the tied ranks): p = 2 min(P(W+ ≤ w), P(W+ ≥ w)); else the normal
  approximation z = (W+ − m(m+1)/4) / σ, σ² = m(m+1)(2m+1)/24 − Σ(t³ − t)/48 over tie
  groups of size t, without continuity correction, p = 2Φ(−|z|). This is what
  ``scipy.stats.wilcoxon`` does by default (scipy 1.17), and so PyTerrier. When every d_q is 0
  there is no evidence of a difference: W = 0 and p = 1. scipy agrees for n ≤ 13 (its exact
  permutation of nothing); for n ≥ 14 its normal approximation divides 0 by 0 and gives NaN.
- **wins / ties / losses**: queries with x_q > b_q, = , <.
"""

from __future__ import annotations

import math

import numpy as np

from .multitest import CORRECTIONS  # noqa: F401  (re-exported)


def paired_t(x, b) -> tuple[float, float]:
    """(t, two-sided p) of the paired t-test."""
    from scipy.special import stdtr

    d = np.asarray(x, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    n = len(d)
    if n < 2:
        return math.nan, math.nan
    mean = math.fsum(d.tolist()) / n
    sd = math.sqrt(math.fsum(((d - mean) ** 2).tolist()) / (n - 1))
    if sd == 0:  # every difference equal: scipy's t is ±inf (p 0) or, all zero, undefined
        return (math.nan, math.nan) if mean == 0 else (math.copysign(math.inf, mean), 0.0)
    t = mean / (sd / math.sqrt(n))
    return t, float(2 * stdtr(n - 1, -abs(t)))


def wilcoxon(x, b) -> tuple[float, float]:
    """(W = min(W+, W−), two-sided p) of the Wilcoxon signed-rank test (see the module doc)."""
    from scipy.special import ndtr
    from scipy.stats import rankdata

    d = np.asarray(x, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    n = len(d)
    d = d[d != 0]
    m = len(d)
    if m == 0:  # no evidence of a difference (scipy: 1.0 for n <= 13, NaN from its normal approximation above)
        return (0.0, 1.0) if n else (math.nan, math.nan)
    ranks = rankdata(np.abs(d))
    w_plus = float(ranks[d > 0].sum())
    w_minus = float(ranks[d < 0].sum())
    stat = min(w_plus, w_minus)
    _, counts = np.unique(np.abs(d), return_counts=True)
    if n <= 50 and m == n and (counts == 1).all():
        dist = _signed_rank_counts(m)
        k = int(round(stat))
        p = 2.0 * dist[: k + 1].sum() / 2.0 ** m
        return stat, min(1.0, float(p))
    if n <= 13:  # ties or zeros: the exact distribution of W+ over the 2^m sign patterns
        patterns = (np.arange(2 ** m)[:, None] >> np.arange(m)[None, :]) & 1
        every = patterns @ ranks
        low = float((every <= w_plus + 1e-9).mean())
        high = float((every >= w_plus - 1e-9).mean())
        return stat, min(1.0, 2.0 * min(low, high))
    mean = m * (m + 1) / 4.0
    var = m * (m + 1) * (2 * m + 1) / 24.0 - float(((counts ** 3) - counts).sum()) / 48.0
    if var <= 0:
        return stat, math.nan
    z = (w_plus - mean) / math.sqrt(var)
    return stat, float(2.0 * ndtr(-abs(z)))


def _signed_rank_counts(m: int) -> np.ndarray:
    """Number of sign patterns of ranks 1..m with W+ = k, for k = 0..m(m+1)/2 (exact in float64 for m ≤ 50)."""
    top = m * (m + 1) // 2
    counts = np.zeros(top + 1)
    counts[0] = 1.0
    for r in range(1, m + 1):
        new = counts.copy()
        new[r:] += counts[:-r]
        counts = new
    return counts


def wins_ties_losses(x, b) -> tuple[int, int, int]:
    x, b = np.asarray(x, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return int((x > b).sum()), int((x == b).sum()), int((x < b).sum())


def correct(pvalues, method: str) -> list[float]:
    """Adjusted p-values of one family (:func:`.multitest.adjust`)."""
    from .multitest import adjust

    return adjust(pvalues, method)
