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


def _signs(v):
    """(B, S, S) sign(v_i − v_j)."""
    return np.sign(v[:, :, None] - v[:, None, :])


def kendall_tau_b(x, y) -> np.ndarray:
    sx, sy = _signs(np.asarray(x, np.float64)), _signs(np.asarray(y, np.float64))
    upper = np.triu(np.ones(sx.shape[1:], bool), 1)
    prod = (sx * sy)[:, upper]
    s = prod.sum(axis=1)
    nx = (sx[:, upper] != 0).sum(axis=1)
    ny = (sy[:, upper] != 0).sum(axis=1)
    return _ratio(s, np.sqrt(nx.astype(np.float64) * ny))


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


def pairwise_accuracy(x, y) -> np.ndarray:
    sx, sy = _signs(np.asarray(x, np.float64)), _signs(np.asarray(y, np.float64))
    upper = np.triu(np.ones(sx.shape[1:], bool), 1)
    return (sx[:, upper] == sy[:, upper]).mean(axis=1) if upper.any() else np.full(len(sx), np.nan)


def soft_pairwise_accuracy(px, py) -> np.ndarray:
    """From one-sided p-values (B, P) of the pairs i < j (the order of ``np.triu_indices``)."""
    return 1.0 - np.abs(np.asarray(px) - np.asarray(py)).mean(axis=1)


def decisions(t, critical: float) -> np.ndarray:
    """+1 (i better), −1 (j better) or 0 from t statistics (B, P) at the two-sided critical value;
    a pair without a statistic (NaN: every difference 0) is no decision."""
    t = np.asarray(t, np.float64)
    return np.where(np.abs(t) > critical, np.sign(t), 0.0)


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
    var = (squares - sums * mean) / (n - 1)
    # a variance within float rounding of 0: every difference equal
    flat = var <= 1e-12 * np.maximum(squares / n, np.finfo(np.float64).tiny)
    t = np.divide(mean, np.sqrt(np.maximum(var, 0.0) / n), out=np.zeros_like(mean), where=~flat)
    return np.where(flat, np.where(mean == 0, np.nan, np.copysign(np.inf, mean)), t)


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
        self.coef = np.stack([f0, d0, 3 * (f1 - f0) - 2 * d0 - d1, 2 * (f0 - f1) + d0 + d1], axis=1)

    def upper(self, t) -> np.ndarray:
        from scipy.special import stdtr

        t = np.asarray(t, np.float64)
        a = np.abs(t)
        scaled = np.minimum(np.nan_to_num(a, nan=0.0), self.TOP) / self.STEP
        i = np.minimum(scaled.astype(np.int64), len(self.coef) - 1)
        u = scaled - i
        c = self.coef[i]
        tail = ((c[..., 3] * u + c[..., 2]) * u + c[..., 1]) * u + c[..., 0]
        far = (a >= self.TOP) & np.isfinite(a)
        if far.any():
            tail[far] = stdtr(self.df, -a[far])
        tail[np.isinf(a)] = 0.0
        out = np.where(t >= 0, tail, 1.0 - tail)
        out[np.isnan(t)] = np.nan
        return out

    def critical(self, alpha: float) -> float:
        """The two-sided critical value: P(|T| ≥ c) = α."""
        from scipy.stats import t as student

        return float(student.isf(alpha / 2.0, self.df)) if self.df > 0 else math.inf
