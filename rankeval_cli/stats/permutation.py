"""Paired permutation tests between two metrics scored on the same human judgments.

PERM-BOTH (Deutsch, Dror & Roth 2021, "A statistical analysis of summarization
evaluation metrics using resampling methods", TACL), as mt-metrics-eval's
``PermutationSigDiff``: both metrics' cell scores are z-normalized, then in each
of R trials every cell's two metric scores are swapped with probability 1/2,
giving hybrid metrics m1, m2 (m1 takes metric b where the bit is 1, metric a
elsewhere; m2 the opposite). With δ = f(a) - f(b) observed (a the better
metric),

    p = #{r : f(m2_r) - f(m1_r) ≥ δ} / R

is the p-value of "a is better than b" (no +1: mt-metrics-eval's convention).

The pairwise-comparison variant (mt-metrics-eval ``PairwisePermutationSigDiff``;
used for tie-calibrated acc-eq in WMT23-25) swaps the outcome of each pair of
cells instead of the scores: each metric keeps its own (calibrated) tie
threshold, each trial takes every pair's category (C, D, T_h, T_m, T_hm) from a
or b with probability 1/2.

Random draws: ``numpy.random.RandomState(seed)``, one uniform per cell (bit =
u > 1/2, exactly ``RandomState.binomial(1, 0.5)``), trial after trial, pair
after pair — the stream mt-metrics-eval consumes after ``np.random.seed(seed)``,
so a run reproduces its p-values. The pairwise variant draws an n × n matrix per
group and uses its upper triangle, as mt-metrics-eval does. Optional early
stopping at block boundaries (mt-metrics-eval's Task defaults: blocks of 100,
stop when p < 0.02 or p > 0.5). All trials of a chunk are computed as arrays;
chunks bound memory.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..batch import group_index, offsets_from_sizes
from ..measures.tau import numerator_denominator, ratio
from . import metaeval as me

#: Random values (and hybrid cells) held in memory per chunk of trials.
CHUNK_VALUES = 1 << 22


@dataclass(frozen=True)
class EarlyStop:
    """Stop after a block of ``block_size`` trials when p < ``early_min`` or p > ``early_max``."""

    block_size: int = 100
    early_min: float = 0.02
    early_max: float = 0.5


#: mt-metrics-eval's Task defaults.
MTME_EARLY_STOP = EarlyStop(100, 0.02, 0.5)


@dataclass
class PermutationResult:
    """p of "a better than b", δ = f(a) - f(b), trials run, and the (f(hybrid a), f(hybrid b)) draws."""

    p: float
    delta: float
    k: int
    draws: np.ndarray


def as_rng(seed) -> np.random.RandomState:
    if isinstance(seed, np.random.RandomState):
        return seed
    return np.random.RandomState(seed)


def zscore(x) -> np.ndarray:
    """(x - mean) / std (population std), as scipy.stats.zscore."""
    x = np.asarray(x, np.float64)
    return (x - x.mean()) / x.std()


# Statistics of many hybrid metrics at once ----------------------------------------------

class PaddedPearson:
    """Pearson's r of every group for many metric rows, on a (groups × longest group) layout.

    Same two-pass arithmetic as :func:`metaeval.group_pearson` (means, centred
    sums; ±1 for 2 cells; NaN for a constant vector).
    """

    def __init__(self, human, offsets, average):
        self.offsets = offsets
        self.n = np.diff(offsets)
        self.G, self.S = len(self.n), int(self.n.max(initial=1))
        gid = group_index(offsets)
        slot = gid * self.S + np.arange(len(human)) - offsets[gid]
        self.index = np.zeros(self.G * self.S, np.int64)
        self.index[slot] = np.arange(len(human))
        self.mask = np.zeros(self.G * self.S, bool)
        self.mask[slot] = True
        self.mask = self.mask.reshape(self.G, self.S)
        self.index = self.index.reshape(self.G, self.S)
        nn = np.maximum(self.n, 1).astype(np.float64)
        y = np.where(self.mask, np.asarray(human)[self.index], 0.0)
        self.yc = np.where(self.mask, y - (y.sum(-1) / nn)[:, None], 0.0)
        self.syy = (self.yc * self.yc).sum(-1)
        ymax = np.where(self.mask, y, -np.inf).max(-1)
        ymin = np.where(self.mask, y, np.inf).min(-1)
        self.usable = (self.n >= 2) & (ymax != ymin)
        self.two = self.n == 2
        self.first = offsets[:-1]
        self.ysign = np.zeros(self.G)
        t = np.flatnonzero(self.two)
        self.ysign[t] = np.sign(np.asarray(human)[self.first[t] + 1] - np.asarray(human)[self.first[t]])
        self.average = average
        self.nn = nn

    def values(self, M) -> np.ndarray:
        K = M.shape[0]
        X = np.where(self.mask, M[:, self.index], 0.0)  # (K, G, S)
        mean = X.sum(-1) / self.nn
        d = np.where(self.mask, X - mean[..., None], 0.0)
        sxx = (d * d).sum(-1)  # row by row: results do not depend on the chunk size
        sxy = (d * self.yc).sum(-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.clip(sxy / np.sqrt(sxx * self.syy), -1.0, 1.0)
        xmax = np.where(self.mask, X, -np.inf).max(-1)
        xmin = np.where(self.mask, X, np.inf).min(-1)
        ok = self.usable & (xmax != xmin)
        if self.two.any():
            t = np.flatnonzero(self.two)
            r[:, t] = np.sign(M[:, self.first[t] + 1] - M[:, self.first[t]]) * self.ysign[t]
        r = np.where(ok, r, np.nan)
        return me.average_groups(r, np.broadcast_to(self.n, (K, self.G)), np.broadcast_to(self.n * (self.n - 1) // 2,
                                 (K, self.G)), **self.average)[0]


try:  # scipy's compiled discordant-pair count (Knight 1966, Fenwick tree), used by scipy.stats.kendalltau
    from scipy.stats._stats import _kendall_dis
except ImportError:  # pragma: no cover - then the vectorized merge sort of measures.pairs is used
    _kendall_dis = None

#: Up to this many groups, Kendall trials count each long group with scipy's compiled routine.
LONG_KENDALL_MAX_GROUPS = 64


class LongKendall:
    """Pair counts of a few long groups, row by row, as scipy.stats.kendalltau counts them.

    Per group: sort by metric and take dense ranks, stable-sort by human,
    count discordant pairs (scipy's compiled Fenwick-tree count), joint ties
    from runs of equal (human, metric) ranks, metric ties from rank counts;
    human ties are fixed. C = N - ties_h - ties_m + T_hm - D.
    """

    def __init__(self, variant, human, offsets, average):
        self.variant = variant
        self.offsets = offsets
        self.n = np.diff(offsets)
        self.human = [np.asarray(human[b:e], np.float64) for b, e in zip(offsets[:-1], offsets[1:])]
        self.human_ties = np.array([_tied_pairs(h) for h in self.human], np.int64)
        self.average = average

    def group_counts(self, X, g):
        """(C, D, T_h, T_m, T_hm) of group g for every row of X (K, n_g)."""
        h = self.human[g]
        perm = np.argsort(X, axis=1)
        xs = np.take_along_axis(X, perm, axis=1)
        new_x = np.ones(xs.shape, bool)
        new_x[:, 1:] = xs[:, 1:] != xs[:, :-1]
        xr = np.cumsum(new_x, axis=1, dtype=np.intp)  # metric dense ranks
        hs = h[perm]
        perm = np.argsort(hs, axis=1, kind="stable")
        xr = np.take_along_axis(xr, perm, axis=1)
        hs = np.take_along_axis(hs, perm, axis=1)  # every row: the sorted human scores
        hr = np.r_[True, hs[0, 1:] != hs[0, :-1]].cumsum(dtype=np.intp)
        dis = np.array([_kendall_dis(hr, row) for row in xr], np.int64)
        new_joint = new_x.copy()  # reused buffer: runs of equal (human, metric) ranks
        new_joint[:, 1:] = (hr[None, 1:] != hr[None, :-1]) | (xr[:, 1:] != xr[:, :-1])
        both = _run_pairs(new_joint)
        metric_ties = _run_pairs(new_x)
        total = X.shape[1] * (X.shape[1] - 1) // 2
        ht = int(self.human_ties[g])
        return total - metric_ties - ht + both - dis, dis, ht - both, metric_ties - both, both

    def values(self, M) -> np.ndarray:
        K, G = M.shape[0], len(self.n)
        counts = np.zeros((5, K, G), np.int64)
        for g in range(G):
            if self.n[g] >= 2:
                counts[:, :, g] = self.group_counts(M[:, self.offsets[g]:self.offsets[g + 1]], g)
        num_den = numerator_denominator(self.variant, *counts)
        return me.average_groups(ratio(*num_den), np.broadcast_to(self.n, (K, G)),
                                 np.broadcast_to(self.n * (self.n - 1) // 2, (K, G)), ratio_of=num_den,
                                 **self.average)[0]


def _run_pairs(starts) -> np.ndarray:
    """Per row, Σ L(L-1)/2 over runs (a run begins where ``starts`` is True): each item
    counts the earlier items of its run."""
    idx = np.arange(starts.shape[1])
    run_start = np.maximum.accumulate(np.where(starts, idx, 0), axis=1)
    return (idx - run_start).sum(axis=1)


def _tied_pairs(values) -> int:
    _, c = np.unique(values, return_counts=True)
    return int((c * (c - 1) // 2).sum())


class CellStatistic:
    """f over cells (human fixed, groups fixed), for a (K, n) batch of metric vectors."""

    def __init__(self, statistic, human, offsets, *, variant=None, epsilon=None, min_human_diff=None,
                 weighting="plain", undefined_as_zero=False, calibrate=False):
        self.statistic, self.variant = me._check_statistic(statistic, variant)
        self.human = np.asarray(human, np.float64)
        self.offsets = np.asarray(offsets, np.int64)
        self.options = dict(variant=self.variant, epsilon=epsilon, min_human_diff=min_human_diff,
                            weighting=weighting)
        self.calibrate = calibrate
        self.average = dict(weighting=weighting, undefined_as_zero=undefined_as_zero)
        if self.statistic == "pearson":
            self._pearson = PaddedPearson(self.human, self.offsets, self.average)
        self._long = None
        if (self.statistic == "kendall" and self.variant != "c" and not epsilon and min_human_diff is None
                and not calibrate and len(self.offsets) - 1 <= LONG_KENDALL_MAX_GROUPS and _kendall_dis):
            self._long = LongKendall(self.variant, self.human, self.offsets, self.average)


    def values(self, M: np.ndarray) -> np.ndarray:
        """f of every row of M (K, n)."""
        M = np.atleast_2d(M)
        K, n = M.shape
        if self.statistic == "pearson":
            return self._pearson.values(M)
        if self._long is not None:
            return self._long.values(M)
        if self.calibrate:  # re-calibrated for every row
            out = np.empty(K)
            for r in range(K):
                gv = me.group_values(self.statistic, self.human, M[r], self.offsets, calibrate=True,
                                     **self.options)
                out[r] = me.average_groups(gv.value, gv.n, gv.pairs, ratio_of=gv.ratio_of, **self.average)[0]
            return out
        G = len(self.offsets) - 1
        offs = np.append((self.offsets[:-1][None, :] + n * np.arange(K)[:, None]).ravel(), K * n)
        gv = me.group_values(self.statistic, np.tile(self.human, K), M.ravel(), offs, **self.options)
        pairs = np.broadcast_to(gv.pairs, (K * G,)).reshape(K, G)
        ratio_of = None if gv.ratio_of is None else tuple(np.reshape(x, (K, G)) for x in gv.ratio_of)
        return me.average_groups(gv.value.reshape(K, G), gv.n.reshape(K, G), pairs, ratio_of=ratio_of,
                                 **self.average)[0]

    def hybrid_values(self, ms1, ms2, bits):
        """(f(m1), f(m2)) per trial: m1 = ms1 where bit else ms2, m2 the opposite."""
        return self.values(np.where(bits, ms1, ms2)), self.values(np.where(bits, ms2, ms1))


class PairStatistic:
    """Kendall variants on short groups from per-pair categories (no re-sorting per trial).

    A pair (i, j) of a hybrid takes its metric values from ms1 or ms2 by the
    bits of i and j: 4 combinations, whose categories are computed once. Per
    group, only C, D and T_hm vary with the metric (T_h + T_hm and
    C + D + T_m are fixed by the human ties); eq and acc-eq need only C + T_hm.
    """

    def __init__(self, variant, human, offsets, *, epsilon=None, min_human_diff=None, weighting="plain",
                 undefined_as_zero=False):
        self.variant = variant
        self.human = np.asarray(human, np.float64)
        self.offsets = np.asarray(offsets, np.int64)
        self.n = np.diff(self.offsets)
        self.eps = 0.0 if epsilon is None else float(epsilon)
        self.average = dict(weighting=weighting, undefined_as_zero=undefined_as_zero)
        parts_i, parts_j = [], []  # every pair i < j of every group
        for size in np.unique(self.n[self.n >= 2]):
            gids = np.flatnonzero(self.n == size)
            a, b = np.triu_indices(size, 1)
            start = self.offsets[gids][:, None]
            parts_i.append((start + a).ravel())
            parts_j.append((start + b).ravel())
        i = np.concatenate(parts_i) if parts_i else np.zeros(0, np.int64)
        j = np.concatenate(parts_j) if parts_j else np.zeros(0, np.int64)
        gid = group_index(self.offsets)
        order = np.lexsort((j, i, gid[i]))  # by group, then i, then j (mt-metrics-eval's triu order)
        self.i, self.j = i[order], j[order]
        hd = self.human[self.j] - self.human[self.i]
        if min_human_diff is not None:
            keep = np.abs(hd) >= min_human_diff
            self.i, self.j, hd = self.i[keep], self.j[keep], hd[keep]
        group = gid[self.i]
        self.G = len(self.n)
        per_group = np.bincount(group, minlength=self.G)
        self.pairs = per_group if min_human_diff is not None else self.n * (self.n - 1) // 2
        width = int(per_group.max(initial=0))
        self.width = width if self.G * width <= 2 * len(group) + 4096 else 0
        if self.width:  # padded: pair k of group g at g * width + k; padding pairs count nowhere
            slot = group * width + np.arange(len(group)) - offsets_from_sizes(per_group)[group]
            size = self.G * width
            pi, pj, ph = np.zeros(size, np.int64), np.zeros(size, np.int64), np.ones(size)
            pi[slot], pj[slot], ph[slot] = self.i, self.j, np.sign(hd)
            self.i, self.j, self.hcmp = pi, pj, ph  # a padding pair (0, 0) is a metric-only tie: T_m
            self.real = np.zeros(size, bool)
            self.real[slot] = True
        else:
            self.hcmp = np.sign(hd)
            self.real = np.ones(len(group), bool)
            self.has_pairs = per_group > 0
            self.starts = offsets_from_sizes(per_group)[:-1][self.has_pairs]
        self.human_tied = self._sum(self.hcmp[None] == 0)[0]  # T_h + T_hm per group
        self.simple = variant in ("eq", "acc-eq")

    def categories(self, xi, xj) -> np.ndarray:
        """Category (C, D, T_h, T_m, T_hm) of every pair for metric values xi, xj (any leading shape)."""
        d = xj - xi
        tie = np.abs(d) <= self.eps
        return np.where(tie, np.where(self.hcmp == 0, me._THM, me._TM),
                        np.where(self.hcmp == 0, me._TH,
                                 np.where(np.sign(d) == self.hcmp, me._C, me._D))).astype(np.int8)

    def _sum(self, q) -> np.ndarray:
        """Per-group sums of a (K, P) pair quantity."""
        if self.width:
            return q.reshape(q.shape[0], self.G, self.width).sum(axis=-1, dtype=np.int64)
        out = np.zeros((q.shape[0], self.G), np.int64)
        if len(self.starts):
            out[:, self.has_pairs] = np.add.reduceat(q, self.starts, axis=1, dtype=np.int64)
        return out

    def _quantities(self, cat) -> list:
        if self.simple:
            return [(cat == me._C) | (cat == me._THM)]
        return [cat == me._C, cat == me._D, cat == me._THM]

    def _tau(self, sums) -> np.ndarray:
        """Averaged tau per row from the per-group sums of :meth:`_quantities`."""
        N = self.pairs[None, :]
        if self.simple:
            good = sums[0]
            num_den = (good if self.variant == "acc-eq" else 2 * good - N, np.broadcast_to(N, good.shape))
        else:
            C, D, T_hm = sums
            T_h = self.human_tied[None, :] - T_hm
            T_m = N - self.human_tied[None, :] - C - D
            num_den = numerator_denominator(self.variant, C, D, T_h, T_m, T_hm)
        tau = ratio(*num_den)
        K = tau.shape[0]
        return me.average_groups(tau, np.broadcast_to(self.n, (K, self.G)), np.broadcast_to(self.pairs, (K, self.G)),
                                 ratio_of=num_den, **self.average)[0]

    def tau_of_categories(self, cat: np.ndarray) -> np.ndarray:
        """Averaged tau of each row of a (K, P) category matrix."""
        return self._tau([self._sum(q) for q in self._quantities(np.atleast_2d(cat))])

    def values(self, M) -> np.ndarray:
        M = np.atleast_2d(M)
        return self.tau_of_categories(self.categories(M[:, self.i], M[:, self.j]))

    def hybrid_values(self, ms1, ms2, bits):
        """(f(m1), f(m2)); m1 takes ms1 where the bit is 1. Quantities of the 4 combinations, selected by bits."""
        src = (ms2, ms1)
        tables = [self._quantities(self.categories(src[c >> 1][self.i], src[c & 1][self.j])) for c in range(4)]
        bi, bj = bits[:, self.i], bits[:, self.j]
        sums1, sums2 = [], []
        for q in range(len(tables[0])):
            q00, q01, q10, q11 = (tables[c][q] for c in range(4))
            sums1.append(self._sum(_select(bi, bj, q00, q01, q10, q11)))
            sums2.append(self._sum(_select(bi, bj, q11, q10, q01, q00)))
        return self._tau(sums1), self._tau(sums2)


def _select(bi, bj, q00, q01, q10, q11):
    """q_{bi bj} elementwise, for boolean arrays, with bitwise operations only."""
    r0 = q00 ^ (bi & (q10 ^ q00))
    r1 = q01 ^ (bi & (q11 ^ q01))
    return r0 ^ (bj & (r1 ^ r0))


class SpaStatistic:
    """Soft pairwise accuracy of (K, n_sys·n_seg) system-major hybrids against fixed human p-values."""

    def __init__(self, human_matrix, permutations=1000, seed=me.SPA_SEED):
        human_matrix = np.asarray(human_matrix, np.float64)
        self.shape = human_matrix.shape
        self.signs = me.permutation_signs(self.shape[1], permutations, seed)
        self.human_p = me.pairwise_p_values(human_matrix, signs=self.signs)
        self.iu = np.triu_indices(self.shape[0], 1)

    def values(self, M) -> np.ndarray:
        """SPA of every row: one sign-flip matmul for all rows, p-values pair by pair."""
        M = np.atleast_2d(M)
        K = M.shape[0]
        n_sys, n_seg = self.shape
        seg = M.reshape(K, n_sys, n_seg).astype(np.float32)
        sys_scores = np.sum(seg, axis=-1)  # (K, n_sys), as pce.py sums each system's row
        # (R, K·n_sys) = signs @ stacked.T with every hybrid's rows C-contiguous: the operand layout
        # pce.py gives BLAS (a different layout can round float32 sums differently)
        stacked = np.ascontiguousarray(seg.reshape(K * n_sys, n_seg))
        partial = np.matmul(self.signs, stacked.T).reshape(-1, K, n_sys)  # (R, K, n_sys)
        R = self.signs.shape[0]
        err = np.zeros(K)
        for i, j in zip(*self.iu):
            null = partial[:, :, i] - partial[:, :, j]
            p = np.sum(null >= (sys_scores[:, i] - sys_scores[:, j]), axis=0) / R
            err += np.abs(self.human_p[i, j] - p)
        return 1.0 - err / len(self.iu[0])

    def hybrid_values(self, ms1, ms2, bits):
        return self.values(np.where(bits, ms1, ms2)), self.values(np.where(bits, ms2, ms1))


# The tests ------------------------------------------------------------------------------

def _chunks(total: int, per_trial: int, early_stop: EarlyStop | None):
    """Trial counts per chunk; chunks end at every block boundary (where early stopping is checked)."""
    size = max(1, CHUNK_VALUES // max(per_trial, 1))
    done = 0
    while done < total:
        step = min(size, total - done)
        if early_stop:
            to_boundary = early_stop.block_size - done % early_stop.block_size
            step = min(step, to_boundary)
        yield step
        done += step


def paired_permutation(stat, a, b, permutations: int = 1000, seed=12345, *, early_stop: EarlyStop | None = None,
                       normalize: bool = True) -> PermutationResult:
    """PERM-BOTH test of "metric a is better than metric b" on statistic ``stat`` (module docstring).

    ``a``/``b`` are the two metrics' cells (human present in both), ``stat`` one
    of the statistic classes above built on those cells.
    """
    rng = as_rng(seed)
    ms1 = zscore(b) if normalize else np.asarray(b, np.float64)
    ms2 = zscore(a) if normalize else np.asarray(a, np.float64)
    delta = float(stat.values(ms2[None])[0] - stat.values(ms1[None])[0])
    draws, large, done = [], 0, 0
    for step in _chunks(permutations, len(ms1), early_stop):
        bits = rng.random_sample((step, len(ms1))) > 0.5
        c1, c2 = stat.hybrid_values(ms1, ms2, bits)
        draws.append(np.column_stack([c2, c1]))
        large += int(np.sum(c2 - c1 >= delta))
        done += step
        if early_stop and done % early_stop.block_size == 0:
            p = large / done
            if p < early_stop.early_min or p > early_stop.early_max:
                break
    draws = np.concatenate(draws) if draws else np.zeros((0, 2))
    return PermutationResult(large / done if done else 0.0, delta, done, draws)


def pairwise_permutation(human, a, b, offsets, variant: str = "acc-eq", epsilon_a: float = 0.0,
                         epsilon_b: float = 0.0, permutations: int = 1000, seed=12345, *,
                         early_stop: EarlyStop | None = None, undefined_as_zero: bool = False) -> PermutationResult:
    """Pairwise-comparison permutation test of Kendall ``variant`` (module docstring).

    Each metric's pairs are categorized at its own threshold (``epsilon_a``,
    ``epsilon_b``: usually each metric's calibrated ε); trial r takes pair
    (i, j) of group g from b where bit (i, j) of the group's n × n draw is 1.
    As in mt-metrics-eval, early stopping is only checked at a block boundary
    whose trial reached δ.
    """
    rng = as_rng(seed)
    variant = me.canonical_variant(variant)
    if variant == "c":
        raise ValueError("tau-c is not defined on swapped pairs (it depends on the scores)")
    offsets = np.asarray(offsets, np.int64)
    st_a = PairStatistic(variant, human, offsets, epsilon=epsilon_a, undefined_as_zero=undefined_as_zero)
    st_b = PairStatistic(variant, human, offsets, epsilon=epsilon_b, undefined_as_zero=undefined_as_zero)
    cat_a = st_a.categories(np.asarray(a, np.float64)[st_a.i], np.asarray(a, np.float64)[st_a.j])
    cat_b = st_b.categories(np.asarray(b, np.float64)[st_b.i], np.asarray(b, np.float64)[st_b.j])
    delta = float(st_a.tau_of_categories(cat_a[None])[0] - st_a.tau_of_categories(cat_b[None])[0])
    # position of bit (i, j) of each pair in a trial's concatenated n_g × n_g draws
    n = np.diff(offsets)
    square_start = offsets_from_sizes(n * n)[:-1]
    g = group_index(offsets)[st_a.i]
    bit_pos = np.where(st_a.real, square_start[g] + (st_a.i - offsets[g]) * n[g] + (st_a.j - offsets[g]), 0)
    per_trial = int((n * n).sum())
    draws, large, done = [], 0, 0
    for step in _chunks(permutations, per_trial, early_stop):  # stops only at a chunk's end
        bits = (rng.random_sample((step, per_trial)) > 0.5)[:, bit_pos]
        c1 = st_a.tau_of_categories(np.where(bits, cat_b, cat_a))
        c2 = st_a.tau_of_categories(np.where(bits, cat_a, cat_b))
        for r in range(step):  # early stopping can end a chunk part-way
            done += 1
            draws.append((c2[r], c1[r]))
            if c2[r] - c1[r] >= delta:
                large += 1
                if early_stop and done % early_stop.block_size == 0:
                    p = large / done
                    if p < early_stop.early_min or p > early_stop.early_max:
                        return PermutationResult(large / done, delta, done, np.array(draws))
    return PermutationResult(large / done if done else 0.0, delta, done, np.array(draws).reshape(-1, 2))
