"""Agreement of two system rankings: the systems' values under the reference (x) and under a
candidate (y), each statistic vectorized over bootstrap replicates (arrays (B, S), B
replicates of S systems; one value per replicate).

- Kendall's tau-b (Kendall 1945): (C − D) / √((C + D + T_x)(C + D + T_y)) over the S(S − 1)/2
  system pairs, T_x (T_y) the pairs tied in x only (y only); ``scipy.stats.kendalltau``.
- tau_AP (Yilmaz, Aslam & Robertson 2008, eq. 3): τ_AP = 2/(S − 1) Σ_{i=2}^{S} C(i)/(i − 1) − 1,
  the systems in the candidate's order (best first) and C(i) the systems above the i-th that
  the reference also places above it (strictly higher x). Candidate ties are ordered by x
  ascending (a tie is never credited as an agreement); a reference tie is no agreement either.
- Spearman's rho: Pearson's r of the mid-ranks; Pearson's r of the values.
- pairwise accuracy (Kocmi et al. 2021): the share of system pairs with sign(Δx) = sign(Δy)
  (a tie agrees with a tie only; mt-metrics-eval's definition).
- soft pairwise accuracy (Thompson, Mathur, Deutsch & Khayrallah 2024, eq. 1):
  1 − mean over pairs i < j of |p_x(i, j) − p_y(i, j)|, p(i, j) the one-sided p-value of
  "system i is better than system j", here of the paired t-test over topics (Student 1908).
- significance agreement: the share of pairs given the same decision under both qrels by the
  two-sided paired t-test at level α (``compare``'s t-test): i better, j better, or neither.
- top-k overlap: |top_k(x) ∩ top_k(y)| / k, the k best systems of each (ties by system order).
- best-system rank change: the rank under y of the reference's best system, minus 1 (0: the
  candidate keeps it first); rank = 1 + the systems with a strictly higher y.
"""

from __future__ import annotations

import math

import numpy as np

#: the system-ranking statistics, in output order; ``best_rank_change`` is better when lower
RANKING_STATISTICS = ("tau_b", "tau_ap", "spearman", "pearson", "accuracy", "spa", "sig_agreement",
                      "top_k_overlap", "best_rank_change")
LOWER_IS_BETTER = ("best_rank_change",)


def _ratio(num, den):
    num, den = np.asarray(num, np.float64), np.asarray(den, np.float64)
    return np.divide(num, den, out=np.full(np.broadcast(num, den).shape, np.nan), where=den != 0)


def pair_signs(v, i, j) -> np.ndarray:
    """(B, P) int8 sign(v_i − v_j) of the pairs (i, j)."""
    a, b = v[:, i], v[:, j]
    return (a > b).astype(np.int8) - (a < b).astype(np.int8)


def kendall_tau_b(x, y, pairs=None, sx=None) -> np.ndarray:
    """Kendall's tau-b; ``pairs`` (i, j) and the reference's signs ``sx`` may be given when known."""
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    i, j = pairs if pairs is not None else np.triu_indices(x.shape[1], 1)
    sx = pair_signs(x, i, j) if sx is None else sx
    sy = pair_signs(y, i, j)
    s = np.einsum("bp,bp->b", sx, sy, dtype=np.int64)
    nx = np.count_nonzero(sx, axis=1).astype(np.float64)
    ny = np.count_nonzero(sy, axis=1).astype(np.float64)
    return _ratio(s, np.sqrt(nx * ny))


def tau_ap(x, y) -> np.ndarray:
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    b, s = x.shape
    order = np.lexsort((x, -y), axis=1) if b else np.zeros((0, s), np.int64)
    xs = np.take_along_axis(x, order, axis=1)
    above = np.tril(np.ones((s, s), bool), -1)  # [i, j]: j placed above i
    correct = (xs[:, None, :] > xs[:, :, None]) & above
    c = correct.sum(axis=2)[:, 1:].astype(np.float64)
    return 2.0 / (s - 1) * (c / np.arange(1, s)).sum(axis=1) - 1.0 if s > 1 else np.full(b, np.nan)


def _midranks(v):
    """(B, S) average ranks of each row."""
    from scipy.stats import rankdata

    return rankdata(v, axis=1) if v.shape[1] else v


def pearson(x, y) -> np.ndarray:
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    dx = x - x.mean(axis=1, keepdims=True)
    dy = y - y.mean(axis=1, keepdims=True)
    return _ratio((dx * dy).sum(axis=1), np.sqrt((dx * dx).sum(axis=1) * (dy * dy).sum(axis=1)))


def spearman(x, y) -> np.ndarray:
    return pearson(_midranks(np.asarray(x, np.float64)), _midranks(np.asarray(y, np.float64)))


def pairwise_accuracy(x, y, pairs=None, sx=None) -> np.ndarray:
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    i, j = pairs if pairs is not None else np.triu_indices(x.shape[1], 1)
    if not len(i):
        return np.full(len(x), np.nan)
    sx = pair_signs(x, i, j) if sx is None else sx
    return (sx == pair_signs(y, i, j)).mean(axis=1)


def soft_pairwise_accuracy(px, py) -> np.ndarray:
    """From one-sided p-values (..., P) of the pairs i < j (the order of ``np.triu_indices``)."""
    return 1.0 - np.abs(np.asarray(px) - np.asarray(py)).mean(axis=-1)


def decisions(t, critical: float) -> np.ndarray:
    """+1 (i better), −1 (j better) or 0 from t statistics (B, P) at the two-sided critical value;
    a pair without a statistic (NaN: every difference 0) is no decision."""
    t = np.asarray(t, np.float64)
    return (t > critical).astype(np.int8) - (t < -critical).astype(np.int8)


def top_k_overlap(x, y, k: int) -> np.ndarray:
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    k = min(k, x.shape[1])
    if k < 1:
        return np.full(len(x), np.nan)
    tx = np.argsort(-x, axis=1, kind="stable")[:, :k]
    ty = np.argsort(-y, axis=1, kind="stable")[:, :k]
    hits = (tx[:, :, None] == ty[:, None, :]).any(axis=2).sum(axis=1)
    return hits / k


def best_rank_change(x, y) -> np.ndarray:
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    if not x.shape[1]:
        return np.full(len(x), np.nan)
    best = np.argmax(x, axis=1)
    at = y[np.arange(len(y)), best]
    return (y > at[:, None]).sum(axis=1).astype(np.float64)


# --- paired t-tests over topics, every system pair at once -----------------------------------

def pair_t(sums, squares, n: int) -> np.ndarray:
    """t statistics of the paired t-test (Student 1908) of every pair from the sums of the
    differences d = x_i − x_j over the n (resampled) topics and the sums of d²:
    t = d̄ / (s_d / √n), s_d² = (Σd² − (Σd)²/n) / (n − 1); ±inf when every difference is the
    same nonzero value, NaN when every one is 0 (``topic_tests.paired_t``)."""
    sums, squares = np.asarray(sums, np.float64), np.asarray(squares, np.float64)
    mean = sums / n
    scale = sums * mean
    np.subtract(squares, scale, out=scale)
    var = scale
    var /= n - 1
    # a variance within float rounding of 0: every difference equal
    flat = var <= np.maximum(squares * (1e-12 / n), np.finfo(np.float64).tiny)
    np.maximum(var, 0.0, out=var)
    var /= n
    np.sqrt(var, out=var)
    t = np.divide(mean, var, out=var, where=~flat)
    if flat.any():
        t[flat] = np.where(mean[flat] == 0, np.nan, np.copysign(np.inf, mean[flat]))
    return t


class TDistribution:
    """The upper tail P(T ≥ t) of Student's t with ``df`` degrees of freedom, for many t at once:
    the cubic Hermite interpolant between nodes h = 1/512 apart on [0, 64] of scipy's ``stdtr``
    and the density (its error is at most h⁴/384 times the fourth derivative: below 1e-13),
    ``stdtr`` itself beyond; P(T ≥ −t) = 1 − P(T ≥ t); NaN stays NaN."""

    STEP, TOP = 1.0 / 512, 64.0

    def __init__(self, df: int):
        from scipy.special import stdtr
        from scipy.stats import t as student

        self.df = df
        nodes = np.arange(0.0, self.TOP + self.STEP / 2, self.STEP)
        f = stdtr(df, -nodes)
        d = -student.pdf(nodes, df) * self.STEP
        f0, f1, d0, d1 = f[:-1], f[1:], d[:-1], d[1:]
        # p(u) = c0 + c1 u + c2 u² + c3 u³ on [node_i, node_i+1], u in [0, 1]
        self.coef = (f0, d0, 3 * (f1 - f0) - 2 * d0 - d1, 2 * (f0 - f1) + d0 + d1)

    def upper(self, t) -> np.ndarray:
        from scipy.special import stdtr

        t = np.asarray(t, np.float64)
        a = np.abs(t)
        scaled = np.fmin(a, self.TOP) * (1.0 / self.STEP)  # NaN becomes the top (masked below)
        i = scaled.astype(np.int32)
        np.minimum(i, len(self.coef[0]) - 1, out=i)
        u = scaled
        u -= i
        c0, c1, c2, c3 = (np.take(c, i) for c in self.coef)
        tail = c3
        tail *= u
        tail += c2
        tail *= u
        tail += c1
        tail *= u
        tail += c0
        far = (a >= self.TOP) & np.isfinite(a)
        if far.any():
            tail[far] = stdtr(self.df, -a[far])
        tail[np.isinf(a)] = 0.0
        negative = t < 0
        tail[negative] = 1.0 - tail[negative]
        tail[np.isnan(t)] = np.nan
        return tail

    def critical(self, alpha: float) -> float:
        """The two-sided critical value: P(|T| ≥ c) = α."""
        from scipy.stats import t as student

        return float(student.isf(alpha / 2.0, self.df)) if self.df > 0 else math.inf
