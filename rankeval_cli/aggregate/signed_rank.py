"""The Wilcoxon signed-rank test of paired differences, as scipy computes it (WMT24 tests per domain).

For differences d₁..dₙ (system a's segment score minus system b's on the same segment),
the zeros are dropped (Wilcoxon 1945's rule; scipy's ``zero_method="wilcox"``), the m
non-zero |dᵢ| are ranked 1..m (tied values share the mean of their ranks), and

    T⁺ = Σ_{i: dᵢ > 0} rank(|dᵢ|).

Under the null hypothesis (the dᵢ symmetric about 0) every sign pattern is equally
likely, so T⁺ = Σᵢ rᵢBᵢ with independent Bᵢ ∈ {0, 1} of probability ½, and

    E T⁺ = m(m + 1)/4,    Var T⁺ = m(m + 1)(2m + 1)/24 − Σ_t (t³ − t)/48

(t over the sizes of the groups of tied |dᵢ|). Two ways to a p-value:

* **asymptotic**: z = (T⁺ − m(m + 1)/4) / √Var T⁺, without continuity correction
  (scipy's default ``correction=False``); two-sided p = 2Φ(−|z|), ``greater``
  (a's larger) Φ(−z), ``less`` Φ(z). NaN when m = 0.
* **exact**: the null distribution of T⁺ over the 2^m sign patterns of the ranks rᵢ
  (mid-ranks included: the 2rᵢ are integers, so the counts are subset sums counted in
  integers); ``greater`` P(T⁺ ≥ t), ``less`` P(T⁺ ≤ t), two-sided
  min(1, 2 min(P(T⁺ ≤ t), P(T⁺ ≥ t))), each correctly rounded. Without ties this is
  Wilcoxon's table; with ties or zeros it is the permutation distribution scipy
  enumerates (``permutation_test`` over the 2ⁿ sign patterns).

``method`` chooses:

* ``auto`` — scipy ≥ 1.15: exact when n ≤ 50 and no dᵢ is zero and no |dᵢ| tied, or
  when n ≤ 13 (ties or zeros: the enumeration); asymptotic otherwise. n counts the zeros.
* ``scipy-1.14`` — scipy up to 1.14 (read in 1.11.1 and 1.13.1; replaced in 1.15), what
  WMT24's scripts ran in 2024: when n ≤ 50 and no dᵢ is zero, Wilcoxon's table of the
  untied ranks 1..m evaluated at ⌊T⁺⌋ — with tied |dᵢ|, T⁺ can be a half-integer, so
  the p of d and of −d can differ; asymptotic otherwise. All dᵢ zero: scipy raised an
  error (WMT24's script would stop); the p-value is NaN here.
* ``asymptotic``, ``exact``: that computation whatever the sample.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

METHODS = ("auto", "scipy-1.14", "asymptotic", "exact")
ALTERNATIVES = ("two-sided", "greater", "less")
#: scipy's sizes: the exact table up to this n, the enumeration of sign patterns up to ENUMERATED
EXACT_MAX = 50
ENUMERATED = 13


def signed_rank(d, alternative: str = "two-sided", method: str = "auto") -> tuple[float, float]:
    """(T⁺, p) of the Wilcoxon signed-rank test of the differences ``d`` (module doc).

    >>> signed_rank([1.0, -2.0, 3.0])  # T+ = 1 + 3; P(T+ >= 4) = 3/8 of the 8 sign patterns
    (4.0, 0.75)
    >>> signed_rank([1.0, -2.0, 3.0], "greater")
    (4.0, 0.375)
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {', '.join(ALTERNATIVES)}, not {alternative!r}")
    from scipy.stats import rankdata

    d = np.asarray(d, dtype=np.float64)
    n = len(d)
    nonzero = d[d != 0]
    m = len(nonzero)
    ranks = rankdata(np.abs(nonzero)) if m else np.zeros(0)
    t_plus = float(ranks[nonzero > 0].sum())
    if n == 0:
        return t_plus, math.nan
    tied = m > len(np.unique(np.abs(nonzero)))
    if method == "auto":
        method = "exact" if (n <= EXACT_MAX and m == n and not tied) or n <= ENUMERATED else "asymptotic"
    elif method == "scipy-1.14":
        if n <= EXACT_MAX and m == n:
            return t_plus, _tail_p(_null_counts(np.arange(2, 2 * m + 1, 2)), 2 * math.floor(t_plus), m,
                                   alternative)
        method = "asymptotic"
    if method == "exact":
        return t_plus, _tail_p(_null_counts(np.round(2 * ranks).astype(np.int64)), int(round(2 * t_plus)), m,
                               alternative)
    return t_plus, asymptotic_p(t_plus, m, _tie_term(np.abs(nonzero)), alternative)


def asymptotic_p(t_plus: float, m: int, tie_term: float = 0.0, alternative: str = "two-sided") -> float:
    """The normal approximation (module doc); ``tie_term`` = Σ(t³ − t) over groups of tied |dᵢ|.
    Computed in scipy's order: σ = √((m(m+1)(2m+1) − tie_term/2)/24), z = (T⁺ − m(m+1)/4)/σ."""
    from scipy.special import ndtr

    if m == 0:
        return math.nan
    mean = m * (m + 1.0) * 0.25
    sigma = math.sqrt((m * (m + 1.0) * (2.0 * m + 1.0) - tie_term / 2) / 24)
    z = (t_plus - mean) / sigma
    if alternative == "greater":
        return float(ndtr(-z))
    if alternative == "less":
        return float(ndtr(z))
    return float(2 * ndtr(-abs(z)))


def _null_counts(doubled_ranks: np.ndarray) -> np.ndarray:
    """counts[k] = number of the 2^m sign patterns with 2T⁺ = k (subset sums of the doubled ranks)."""
    total = int(np.sum(doubled_ranks))
    dtype = np.int64 if len(doubled_ranks) <= 62 else object  # 2^62 patterns still fit in int64
    counts = np.zeros(total + 1, dtype=dtype)
    counts[0] = 1
    for r in np.asarray(doubled_ranks).tolist():
        shifted = counts[:total + 1 - r].copy()
        counts[r:] += shifted
    return counts


def _tail_p(counts: np.ndarray, doubled_t: int, m: int, alternative: str) -> float:
    """P(T⁺ ≥ t), P(T⁺ ≤ t) or the two-sided p from the counts of 2T⁺, correctly rounded."""
    patterns = 2 ** m
    doubled_t = min(max(doubled_t, 0), len(counts) - 1)
    upper = Fraction(int(counts[doubled_t:].sum()), patterns)
    lower = Fraction(int(counts[:doubled_t + 1].sum()), patterns)
    if alternative == "greater":
        return float(upper)
    if alternative == "less":
        return float(lower)
    return float(min(Fraction(1), 2 * min(upper, lower)))


def _tie_term(values: np.ndarray) -> float:
    """Σ(t³ − t) over the groups of equal values."""
    _, sizes = np.unique(values, return_counts=True)
    sizes = sizes.astype(np.float64)
    return float((sizes ** 3 - sizes).sum())
