"""Paired tests over per-query values of two runs, and corrections across comparisons:
what IR papers report beside a table of means (and what PyTerrier's ``Experiment``
prints), computed from the values of the queries both runs have.

With d_q = x_q − b_q (run minus baseline) over the n paired queries:

- **paired t-test** (Student 1908): t = d̄ / (s_d / √n), s_d the sample standard deviation
  (n − 1 in the denominator), two-sided p from Student's t with n − 1 degrees of freedom;
  undefined (NaN) when n < 2 or every d_q is equal (s_d = 0). Equals ``scipy.stats.ttest_rel``.
- **Wilcoxon signed-rank test** (Wilcoxon 1945): zero differences are dropped (Wilcoxon's
  own rule, scipy's ``zero_method="wilcox"``), the m remaining |d_q| are ranked (ties get
  their mean rank), W+ = Σ ranks of the positive d_q. The two-sided p is exact, from the null
  distribution of W+ (every sign pattern equally likely), when n ≤ 50 and no d_q is 0 or
  ties in |d_q| (by counting subsets of 1..m), or when n ≤ 13 (by enumerating the 2^m
  patterns of the tied ranks): p = 2 min(P(W+ ≤ w), P(W+ ≥ w)); else the normal
  approximation z = (W+ − m(m+1)/4) / σ, σ² = m(m+1)(2m+1)/24 − Σ(t³ − t)/48 over tie
  groups of size t, without continuity correction, p = 2Φ(−|z|). This is what
  ``scipy.stats.wilcoxon`` does by default (scipy 1.17), and so PyTerrier.
- **randomization (permutation) test** (Fisher 1935; Smucker, Allan & Carterette 2007 for
  IR): each d_q's sign is flipped with probability 1/2 in each of R trials;
  p = (1 + #{trials: |mean d*| ≥ |d̄| − 1e-12}) / (1 + R) (Davison & Hinkley 1997 eq. 4.11).
- **wins / ties / losses**: queries with x_q > b_q, = , <.
- **corrections** across the m comparisons of one measure: Bonferroni p' = min(1, m·p);
  Holm (1979): sort p ascending, p'_(i) = max_{j ≤ i} min(1, (m − j + 1) p_(j)). NaN p-values
  are left out of m and stay NaN.
"""

from __future__ import annotations

import math

import numpy as np

CORRECTIONS = ("none", "holm", "bonferroni")
#: trials per chunk of the randomization test (memory: chunk × queries booleans)
CHUNK = 256


def paired_t(x, b) -> tuple[float, float]:
    """(t, two-sided p) of the paired t-test."""
    from scipy.special import stdtr

    d = np.asarray(x, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    n = len(d)
    if n < 2:
        return math.nan, math.nan
    mean = math.fsum(d.tolist()) / n
    sd = math.sqrt(math.fsum(((d - mean) ** 2).tolist()) / (n - 1))
    if sd == 0:
        return math.nan, math.nan
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
    if m == 0:
        return math.nan, math.nan
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


def randomization(x, b, trials: int, seed: int) -> float:
    """Two-sided p of the paired randomization (sign-flip) test of the mean difference."""
    d = np.asarray(x, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    n = len(d)
    if n == 0:
        return math.nan
    observed = abs(d.sum()) / n
    rng = np.random.default_rng([seed, 7])
    extreme = 0
    for start in range(0, trials, CHUNK):
        count = min(CHUNK, trials - start)
        signs = rng.integers(0, 2, size=(count, n), dtype=np.int8) * 2 - 1
        means = np.abs(signs @ d) / n
        extreme += int((means >= observed - 1e-12).sum())
    return (1 + extreme) / (1 + trials)


def wins_ties_losses(x, b) -> tuple[int, int, int]:
    x, b = np.asarray(x, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return int((x > b).sum()), int((x == b).sum()), int((x < b).sum())


def correct(pvalues, method: str) -> list[float]:
    """Bonferroni or Holm adjusted p-values (NaN kept as NaN and not counted)."""
    if method not in CORRECTIONS:
        raise ValueError(f"unknown correction {method!r}; expected one of {', '.join(CORRECTIONS)}")
    p = [float(v) for v in pvalues]
    if method == "none":
        return p
    valid = [i for i, v in enumerate(p) if not math.isnan(v)]
    m = len(valid)
    out = list(p)
    if method == "bonferroni":
        for i in valid:
            out[i] = min(1.0, m * p[i])
        return out
    order = sorted(valid, key=lambda i: p[i])
    running = 0.0
    for j, i in enumerate(order):
        running = max(running, min(1.0, (m - j) * p[i]))
        out[i] = running
    return out
