"""A statistic of many hybrid metrics at once, for permutation trials.

Each class is built once on the fixed human scores and groups, then evaluates
the statistic of every row of a (K, n) matrix of metric cells — the K hybrid
metrics of a chunk of trials — with the same arithmetic as the one-metric
functions of :mod:`.segment` and :mod:`.system`, so a trial's value equals the
statistic of that hybrid computed alone.
"""

from __future__ import annotations

import numpy as np

from ...batch import group_index, offsets_from_sizes
from ...measures.tau import numerator_denominator, ratio
from ...vocabulary import CALIBRATED_VARIANTS
from .calibration import PAIR_C, PAIR_D, PAIR_TH, PAIR_THM, PAIR_TM
from .cells import average_groups
from .segment import check_statistic, group_values, pdp_values
from .signflip import count_at_most, flip_matrix
from .system import SpaSpec, blas_threads, pairwise_p_values

#: Groups up to this size use per-pair categories in permutation trials.
PAIR_PATH_MAX_GROUP = 64


class PaddedPearson:
    """Pearson's r of every group for many metric rows, on a (groups × longest group) layout.

    Same two-pass arithmetic as :func:`.segment.group_pearson` (means, centred
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
        return average_groups(r, np.broadcast_to(self.n, (K, self.G)), np.broadcast_to(self.n * (self.n - 1) // 2,
                                 (K, self.G)), **self.average)[0]


def _kendall_dis():
    """scipy's compiled discordant-pair count (Knight 1966, Fenwick tree), used by
    scipy.stats.kendalltau; None without it (then the vectorized merge sort of measures.pairs
    is used). Imported when first needed: scipy.stats takes a second to import, which every
    worker process of a parallel run would pay."""
    try:
        from scipy.stats._stats import _kendall_dis as count
    except ImportError:  # pragma: no cover
        return None
    return count

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
        count = _kendall_dis()
        dis = np.array([count(hr, row) for row in xr], np.int64)
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
        return average_groups(ratio(*num_den), np.broadcast_to(self.n, (K, G)),
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
        self.statistic, self.variant = check_statistic(statistic, variant)
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
                and not calibrate and len(self.offsets) - 1 <= LONG_KENDALL_MAX_GROUPS and _kendall_dis() is not None):
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
                gv = group_values(self.statistic, self.human, M[r], self.offsets, calibrate=True,
                                     **self.options)
                out[r] = average_groups(gv.value, gv.n, gv.pairs, ratio_of=gv.ratio_of, **self.average)[0]
            return out
        G = len(self.offsets) - 1
        offs = np.append((self.offsets[:-1][None, :] + n * np.arange(K)[:, None]).ravel(), K * n)
        gv = group_values(self.statistic, np.tile(self.human, K), M.ravel(), offs, **self.options)
        pairs = np.broadcast_to(gv.pairs, (K * G,)).reshape(K, G)
        ratio_of = None if gv.ratio_of is None else tuple(np.reshape(x, (K, G)) for x in gv.ratio_of)
        return average_groups(gv.value.reshape(K, G), gv.n.reshape(K, G), pairs, ratio_of=ratio_of,
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
        self.simple = variant in CALIBRATED_VARIANTS

    def categories(self, xi, xj) -> np.ndarray:
        """Category (C, D, T_h, T_m, T_hm) of every pair for metric values xi, xj (any leading shape)."""
        d = xj - xi
        tie = np.abs(d) <= self.eps
        return np.where(tie, np.where(self.hcmp == 0, PAIR_THM, PAIR_TM),
                        np.where(self.hcmp == 0, PAIR_TH,
                                 np.where(np.sign(d) == self.hcmp, PAIR_C, PAIR_D))).astype(np.int8)

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
            return [(cat == PAIR_C) | (cat == PAIR_THM)]
        return [cat == PAIR_C, cat == PAIR_D, cat == PAIR_THM]

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
        return average_groups(tau, np.broadcast_to(self.n, (K, self.G)), np.broadcast_to(self.pairs, (K, self.G)),
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

    def __init__(self, human_matrix, spec: SpaSpec = SpaSpec()):
        human_matrix = np.asarray(human_matrix, np.float64)
        self.shape = human_matrix.shape
        self.spec = spec
        self.signs = spec.signs(self.shape[1])
        self.human_p = pairwise_p_values(human_matrix, signs=self.signs, sums=spec.sums)
        self.iu = np.triu_indices(self.shape[0], 1)
        self.flips = flip_matrix(self.signs) if spec.sums == "exact" else None

    def values(self, M) -> np.ndarray:
        """SPA of every row: one sign-flip product for all rows, then p-values pair by pair."""
        M = np.atleast_2d(M)
        K = M.shape[0]
        p = self._exact_p(M) if self.flips is not None else self._float32_p(M)
        gaps = np.abs(self.human_p[self.iu][None, :] - p)
        # row by row, numpy's mean over the pairs in triu order: pce.py's compute_one_minus_pce
        return 1.0 - np.mean(gaps.reshape(K, -1), axis=1)

    def _exact_p(self, M) -> np.ndarray:
        """(K, pairs) p-values, each trial decided exactly (:func:`.signflip.count_at_most`)."""
        K = M.shape[0]
        counts = count_at_most(self.flips, np.asarray(M, np.float64).reshape(K, *self.shape), *self.iu)
        return counts / self.signs.shape[0]

    def _float32_p(self, M) -> np.ndarray:
        """(K, pairs) p-values with mt-metrics-eval's float32 sums (pce.py)."""
        K = M.shape[0]
        n_sys, n_seg = self.shape
        seg = M.reshape(K, n_sys, n_seg).astype(np.float32)
        sys_scores = np.sum(seg, axis=-1)  # (K, n_sys), as pce.py sums each system's row
        # (R, K·n_sys) = signs @ stacked.T with every hybrid's rows C-contiguous: the operand layout
        # pce.py gives BLAS (a different layout can round float32 sums differently)
        stacked = np.ascontiguousarray(seg.reshape(K * n_sys, n_seg))
        with blas_threads():
            partial = np.matmul(self.signs, stacked.T).reshape(-1, K, n_sys)  # (R, K, n_sys)
        R = self.signs.shape[0]
        p = np.empty((K, len(self.iu[0])))
        for k, (i, j) in enumerate(zip(*self.iu)):
            null = partial[:, :, i] - partial[:, :, j]
            p[:, k] = np.sum(null >= (sys_scores[:, i] - sys_scores[:, j]), axis=0) / R
        return p

    def hybrid_values(self, ms1, ms2, bits):
        return self.values(np.where(bits, ms1, ms2)), self.values(np.where(bits, ms2, ms1))


class PdpStatistic:
    """Pairwise-difference Pearson of many metric rows (:func:`.segment.pdp_values`; 0 where undefined)."""

    def __init__(self, human, offsets):
        self.human = np.asarray(human, np.float64)
        self.offsets = np.asarray(offsets, np.int64)

    def values(self, M) -> np.ndarray:
        r = pdp_values(self.human, M, self.offsets)
        return np.where(np.isnan(r), 0.0, r)

    def hybrid_values(self, ms1, ms2, bits):
        return self.values(np.where(bits, ms1, ms2)), self.values(np.where(bits, ms2, ms1))


def make_cell_statistic(statistic, human, offsets, *, variant=None, epsilon=None, calibrate=False,
                        min_human_diff=None, undefined_as_zero=False, weighting="plain"):
    """The fastest exact evaluator of a segment-level statistic for many hybrid metrics."""
    statistic, variant = check_statistic(statistic, variant)
    if statistic == "pdp":
        if (variant, epsilon, calibrate, min_human_diff, undefined_as_zero, weighting) != \
                (None, None, False, None, False, "plain"):
            raise ValueError("pdp takes no variant, epsilon, calibration, min_human_diff, undefined_as_zero "
                             "or weighting")
        return PdpStatistic(human, offsets)
    sizes = np.diff(np.asarray(offsets))
    if (statistic == "kendall" and variant != "c" and not calibrate and len(sizes)
            and sizes.max() <= PAIR_PATH_MAX_GROUP):
        return PairStatistic(variant, human, offsets, epsilon=epsilon, min_human_diff=min_human_diff,
                             weighting=weighting, undefined_as_zero=undefined_as_zero)
    return CellStatistic(statistic, human, offsets, variant=variant, epsilon=epsilon,
                         min_human_diff=min_human_diff, weighting=weighting,
                         undefined_as_zero=undefined_as_zero, calibrate=calibrate)
