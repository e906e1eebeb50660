"""Tukey's HSD test over all pairs of m systems on the same n topics.

Both tests control the family-wise error rate over the m(m − 1)/2 pairs at once, so their
p-values need no further correction (``compare`` reports them as they are, with the family
of all pairs). x̄_i is the mean of system i over the n topics.

**Tukey HSD after the two-way ANOVA without replication** (Tukey 1953; Sakai 2018,
*Laboratory Experiments in IR*, ch. 4): with V_E and φ_E = (m − 1)(n − 1) of :mod:`.anova`,

    q_ij = |x̄_i − x̄_j| / √(V_E / n),   p_ij = P(Q_{m, φ_E} ≥ q_ij),

(q = 0 and p = 1 for equal means, even when V_E = 0; p = 0 for different means when V_E = 0)

Q the studentized range of m means with φ_E degrees of freedom (``scipy.stats.studentized_range``).

**Randomized Tukey HSD** (Carterette 2012, "Multiple testing in statistical analysis of
systems-based information retrieval experiments", ACM TOIS 30(1); Sakai 2014,
"Statistical reform in information retrieval?", SIGIR Forum 48(1); Sakai 2018, ch. 4): under
the null hypothesis that all systems are equivalent, the m values of each topic are
exchangeable. Each of B trials permutes every topic's values across the systems
independently and records the range of the permuted system means,
R*_b = max_i x̄*_i − min_i x̄*_i; then

    p_ij = (1 + #{b : R*_b ≥ |x̄_i − x̄_j|}) / (1 + B)

(Davison & Hinkley 1997, eq. 4.11; Carterette and Sakai count without the +1s, i.e.
#{…}/B: the two differ by at most 1/B). Ranges are compared with a tolerance of 1e-9 so
that float rounding does not decide a tie.

The trials are work units (:mod:`rankeval_cli.executor`): chunk k of :data:`CHUNK` trials
draws from ``unit_seed(seed, ("tukey", k))``, so the p-values depend only on the seed, B and
the matrix — never on ``--jobs``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

#: trials per work unit (fixed, so results do not depend on how units are scheduled)
CHUNK = 200
#: values of one permutation batch held in memory (trials × systems × topics)
BATCH_CELLS = 1 << 21
TOLERANCE = 1e-9


@dataclass(frozen=True)
class TukeyResult:
    """p-values of every pair (symmetric m × m matrices; NaN on the diagonal)."""

    means: np.ndarray
    p: np.ndarray
    q: np.ndarray | None = None  # the studentized ranges (parametric test)
    df: int | None = None
    trials: int | None = None


def _matrix(values) -> np.ndarray:
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 2 or not np.isfinite(x).all():
        raise ValueError("Tukey's HSD needs a complete systems × topics matrix of finite values")
    return x


def _means(x: np.ndarray) -> np.ndarray:
    return np.array([math.fsum(r.tolist()) for r in x]) / x.shape[1] if x.shape[1] else np.full(len(x), np.nan)


def tukey_hsd(values) -> TukeyResult:
    """Tukey's HSD after the two-way ANOVA without replication (module docstring)."""
    from scipy.stats import studentized_range

    from .anova import two_way

    x = _matrix(values)
    m, n = x.shape
    means = _means(x)
    table = two_way(x)
    diff = np.abs(means[:, None] - means[None, :])
    p = np.full((m, m), np.nan)
    q = np.full((m, m), np.nan)
    if m >= 2 and table.df_residual > 0:
        se = math.sqrt(table.residual_variance / n)
        with np.errstate(divide="ignore", invalid="ignore"):
            q = np.where(diff == 0, 0.0, diff / se if se > 0 else np.inf)  # equal means: q = 0, p = 1
        off = ~np.eye(m, dtype=bool)
        finite = off & np.isfinite(q)
        with warnings.catch_warnings():  # scipy's quadrature warns far in the tail, where p is ~0 anyway
            warnings.simplefilter("ignore")
            p[finite] = studentized_range.sf(q[finite], m, table.df_residual)
        p[off & np.isinf(q)] = 0.0  # V_E = 0: the differences are exact
        np.fill_diagonal(q, np.nan)
    return TukeyResult(means, p, q, table.df_residual)


def range_counts(shared, unit) -> np.ndarray:
    """Work unit: for chunk ``unit = (k, trials)``, how many permuted ranges reach each threshold.

    ``shared = (matrix, thresholds, seed)``; returns counts aligned with ``thresholds``.
    """
    from ..executor import unit_seed

    x, thresholds, seed = shared
    k, trials = unit
    rng = np.random.default_rng(unit_seed(seed, ("tukey", k)))
    m, n = x.shape
    counts = np.zeros(len(thresholds), dtype=np.int64)
    per_batch = max(1, BATCH_CELLS // max(m * n, 1))
    done = 0
    while done < trials:
        b = min(per_batch, trials - done)
        order = np.argsort(rng.random((b, m, n)), axis=1)  # one random permutation of each topic's values
        permuted = np.take_along_axis(np.broadcast_to(x, (b, m, n)), order, axis=1)
        means = permuted.sum(axis=2) / n
        ranges = means.max(axis=1) - means.min(axis=1)
        counts += (ranges[:, None] >= thresholds[None, :] - TOLERANCE).sum(axis=0)
        done += b
    return counts


def randomized_tukey_hsd(values, trials: int, seed: int, *, jobs: int | None = None,
                         scheduler: str | None = None) -> TukeyResult:
    """The randomized Tukey HSD test with ``trials`` permutations (module docstring)."""
    from ..executor import map_units

    x = _matrix(values)
    m = len(x)
    means = _means(x)
    diff = np.abs(means[:, None] - means[None, :])
    upper = np.triu_indices(m, 1)
    thresholds = diff[upper]
    units = [(k, min(CHUNK, trials - start)) for k, start in enumerate(range(0, trials, CHUNK))]
    counts = np.zeros(len(thresholds), dtype=np.int64)
    if len(thresholds) and trials:
        for part in map_units(range_counts, units, shared=(x, thresholds, seed), jobs=jobs, scheduler=scheduler,
                              label="randomized Tukey HSD", sizes=[count for _, count in units]):
            counts += part
    p = np.full((m, m), np.nan)
    if trials:
        p[upper] = (1 + counts) / (1 + trials)
        p.T[upper] = p[upper]
    return TukeyResult(means, p, trials=trials)
