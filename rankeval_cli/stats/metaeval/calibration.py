"""Pairs of cells at a metric tie threshold, and tie calibration.

A pair of cells of a group is concordant (C), discordant (D), tied in human
only (T_h), in the metric only (T_m) or in both (T_hm). A metric tie threshold
ε makes metric pairs with |Δmetric| ≤ ε ties (Deutsch, Foster & Freitag 2023);
``min_human_diff`` keeps only the pairs with |Δhuman| ≥ d (WMT20's Kendall-like,
Mathur et al. 2020). Tie calibration chooses ε among 0 and every |Δmetric| to
maximize eq or acc-eq (mt-metrics-eval's ``KendallWithTiesOpt``).
"""

from __future__ import annotations

import numpy as np

from ...measures.pairs import pair_table
from ...measures.pair_thresholds import best_epsilon, plain_counts
from ...measures.tau import numerator_denominator

#: Pair-level computations (epsilon, min_human_diff, calibration) hold every pair in memory.
MAX_PAIRS = 20_000_000

#: Pair categories (measures/tau.py order).
PAIR_C, PAIR_D, PAIR_TH, PAIR_TM, PAIR_THM = range(5)


def pair_categories(human, metric, offsets, *, epsilon=None, min_human_diff=None):
    """(group, category, |Δmetric|, untied, tied) of every pair kept, categories C/D/T_h/T_m/T_hm.

    Pairs with |Δhuman| < ``min_human_diff`` are dropped; metric pairs with
    |Δmetric| ≤ ``epsilon`` are metric ties. ``untied``/``tied`` are each
    pair's category without / with a metric tie (for calibration).
    """
    human = np.asarray(human, np.float64)
    metric = np.asarray(metric, np.float64)
    sizes = np.diff(offsets)
    total = int((sizes * (sizes - 1) // 2).sum())
    if total > MAX_PAIRS:
        raise ValueError(f"a minimum human difference needs every pair in memory ({total} pairs; the limit "
                         f"is {MAX_PAIRS}); group by item or system instead of none")
    group, hcmp, mcmp, mdiff = pair_table(human, metric, offsets)
    untied = np.where(hcmp == 0, PAIR_TH, np.where(hcmp == mcmp, PAIR_C, PAIR_D)).astype(np.int8)
    tied = np.where(hcmp == 0, PAIR_THM, PAIR_TM).astype(np.int8)
    if min_human_diff is not None:
        _, _, _, hdiff = pair_table(metric, human, offsets)
        keep = hdiff >= min_human_diff
        group, untied, tied, mdiff = group[keep], untied[keep], tied[keep], mdiff[keep]
    eps = 0.0 if epsilon is None else float(epsilon)
    category = np.where(mdiff <= eps, tied, untied)
    return group, category, mdiff, untied, tied


def counts_from_categories(group, category, n_groups, n_items):
    """PairCounts (without tie-block statistics) from per-pair categories."""
    per_group = np.bincount(group * 5 + category, minlength=5 * n_groups).reshape(-1, 5).T
    return plain_counts(np.asarray(n_items, np.int64), np.zeros(n_groups, np.int64), per_group)


def counts_at(human, metric, offsets, epsilon: float, *, min_human_diff=None):
    """PairCounts (without tie-block statistics) at metric tie threshold ``epsilon`` ≥ 0: every pair
    enumerated (:func:`pair_categories`), or above ``SWEEP_MIN_PAIRS`` pairs counted per group in
    O(n log n) (:class:`ThresholdCounts`; not with ``min_human_diff``)."""
    from ...measures.pair_thresholds import plain_counts

    n = np.diff(offsets)
    if min_human_diff is None and int((n * (n - 1) // 2).sum()) > SWEEP_MIN_PAIRS:
        return _counts_at(ThresholdCounts(human, metric, offsets), float(epsilon), plain_counts)
    group, category, _, _, _ = pair_categories(human, metric, offsets, epsilon=epsilon,
                                               min_human_diff=min_human_diff)
    return counts_from_categories(group, category, len(n), n)


def num_den(variant, counts):
    """(numerator, denominator) per group of a Kendall variant (None for tau-c)."""
    if variant == "c":
        return None
    return numerator_denominator(variant, *(getattr(counts, k) for k in ("C", "D", "T_h", "T_m", "T_hm")))


def calibrated_counts(variant, human, metric, offsets, *, weighting="plain", min_human_diff=None, pairs=None):
    """(PairCounts at the calibrated ε, ε): the smallest ε in {0} ∪ {|Δmetric|} maximizing the
    average of ``variant`` (eq or acc-eq) over the groups — the mean (``weighting`` plain or
    items) or the pooled value (``pairs``). ``pairs`` overrides each group's number of pairs in
    the mean (a bootstrap resample's pairs without those between copies of one cell).

    Up to ``SWEEP_MIN_PAIRS`` pairs they are enumerated and scored at every threshold
    (:func:`~rankeval_cli.measures.pair_thresholds.best_epsilon`); above, :func:`sweep_calibrated_counts`
    finds the same ε and counts in bounded memory (not with ``min_human_diff``).
    """
    n = np.diff(offsets)
    if min_human_diff is None and int((n * (n - 1) // 2).sum()) > SWEEP_MIN_PAIRS:
        return sweep_calibrated_counts(variant, human, metric, offsets, weighting=weighting, pairs=pairs)
    group, _, mdiff, untied, tied = pair_categories(human, metric, offsets, min_human_diff=min_human_diff)
    kept = np.bincount(group, minlength=len(n)).astype(np.int64) if pairs is None else np.asarray(pairs, np.int64)
    average = "micro" if weighting == "pairs" else "macro"
    epsilon = best_epsilon(variant, average, group, untied, tied, mdiff, kept)
    category = np.where(mdiff <= epsilon, tied, untied)
    return counts_from_categories(group, category, len(n), n), epsilon


# Calibration without enumerating the pairs ---------------------------------------------

#: Pairs of one threshold band enumerated at once by the sweep (its memory bound).
SWEEP_BAND_PAIRS = 1 << 20
#: Pairs above which calibrated_counts sweeps instead of enumerating every pair.
SWEEP_MIN_PAIRS = 1 << 21
#: Value of a pair's category: acc-eq counts C and T_hm; eq adds -1 for D, T_h, T_m.
_GAIN = {"acc-eq": 1, "eq": 2}  # what a human-tied pair gains when it becomes a metric tie
#: Groups up to this size are counted by comparing all their pairs (Knight's sort above; measures.pairs).
_SHORT = 128


class ThresholdCounts:
    """Pair counts of every group at any metric tie threshold t, in O(n log n) per t.

    A pair is a metric tie at t when |Δmetric| ≤ t, |Δmetric| computed as the
    floating-point difference of the two scores (as when the pairs are
    enumerated). Cells are sorted by (group, metric) ("order A") and by
    (group, human, metric) ("order B"). The difference fl(m_j - m_i) grows with j
    and shrinks with i, so for each cell j of order A the cells i before it with
    fl(m_j - m_i) > t are a prefix of its group, i < lo_j(t), found by bisection
    (likewise within human tie blocks in order B). Then, per group,

    * N(t) = Σ_j (lo_j - start): pairs that are not metric ties,
    * H(t): human-tied pairs among them (order B),
    * S(t) = Σ_j Σ_{i < lo_j} sign(h_j - h_i): concordant minus discordant among them,

    so C = (N - H + S)/2, D = (N - H - S)/2, T_h = H, T_hm = H_all - H and
    T_m = pairs - N - T_hm. S(t) is a dominance count: with the points
    (2i + 1, h_i) and (2 lo_j, h_j), the Kendall S of the union minus that of each
    part is 2 S(t) (pairs across the parts compare i with lo_j; the terms over
    all i cancel, Σ_j Σ_i sign(h_j - h_i) = 0), counted by
    :func:`~rankeval_cli.measures.pairs.pair_counts` in O(n log² n).
    """

    def __init__(self, human, metric, offsets):
        from ...batch import group_index

        self.offsets = np.asarray(offsets, np.int64)
        self.n = np.diff(self.offsets)
        self.pairs = self.n * (self.n - 1) // 2
        gid = group_index(self.offsets)
        self.gid = gid
        human = np.asarray(human, np.float64)
        metric = np.asarray(metric, np.float64)
        a = np.lexsort((metric, gid))
        self.m_a, self.h_a = metric[a], human[a]
        self.start_a = self.offsets[gid]
        b = np.lexsort((metric, human, gid))
        self.m_b = metric[b]
        h_b = human[b]
        new_block = np.ones(len(b), bool)
        new_block[1:] = (h_b[1:] != h_b[:-1]) | (gid[1:] != gid[:-1])
        block_start = np.maximum.accumulate(np.where(new_block, np.arange(len(b)), 0))
        self.start_b = block_start
        self.human_tied = self._per_group(np.arange(len(b)) - block_start)  # H at t = -1: all human ties
        self.position = 2 * np.arange(len(a), dtype=np.float64) + 1
        self.s_data = self._kendall_s(self.position, self.h_a)

    def _per_group(self, per_cell) -> np.ndarray:
        return np.bincount(self.gid, weights=per_cell, minlength=len(self.n)).astype(np.int64) \
            if len(per_cell) else np.zeros(len(self.n), np.int64)

    def _kendall_s(self, x, y) -> np.ndarray:
        return kendall_s(x, y, self.offsets)

    @staticmethod
    def _first_within(values, starts, t) -> np.ndarray:
        """For every j: the first i in [starts_j, j] with fl(values_j - values_i) ≤ t (values sorted within
        each range)."""
        j = np.arange(len(values))
        lo, hi = starts.copy(), j.copy()
        while True:
            open_ = lo < hi
            if not open_.any():
                return lo
            mid = (lo + hi) // 2
            d = values - values[mid]
            tie = np.where(values == values[mid], True, d <= t)
            hi = np.where(open_ & tie, mid, hi)
            lo = np.where(open_ & ~tie, mid + 1, lo)

    def counts(self, t: float):
        """(C, D, T_h, T_m, T_hm) per group at threshold t (int64 arrays), and the windows of order A."""
        lo = self._first_within(self.m_a, self.start_a, t)
        untied = self._per_group(lo - self.start_a)
        lo_b = self._first_within(self.m_b, self.start_b, t)
        t_h = self._per_group(lo_b - self.start_b)  # human ties that are not metric ties
        if len(lo):
            from ...batch import offsets_from_sizes

            x = np.concatenate([self.position, 2.0 * lo])
            y = np.concatenate([self.h_a, self.h_a])
            # per group: its cells, then its queries (U = data ∪ queries, contiguous by group)
            order = np.argsort(np.concatenate([self.gid, self.gid]), kind="stable")
            both = kendall_s(x[order], y[order], offsets_from_sizes(2 * self.n))
            queries = self._kendall_s(2.0 * lo, self.h_a)
            s = (both - self.s_data - queries) // 2
        else:
            s = np.zeros(len(self.n), np.int64)
        C = (untied - t_h + s) // 2
        D = (untied - t_h - s) // 2
        T_hm = self.human_tied - t_h
        T_m = self.pairs - untied - T_hm
        return (C, D, t_h, T_m, T_hm), lo


def kendall_s(x, y, offsets) -> np.ndarray:
    """Kendall's S = C - D = Σ over the pairs of each group of sign(Δx)·sign(Δy) (int64 per group):
    groups of up to ``_SHORT`` items by comparing their pairs, longer ones by Knight's sort
    (:func:`~rankeval_cli.measures.pairs.pair_counts`)."""
    from ...measures.pairs import pair_counts

    offsets = np.asarray(offsets, np.int64)
    n = np.diff(offsets)
    out = np.zeros(len(n), np.int64)
    long = n > _SHORT
    if long.any():
        rows = np.repeat(long, n)
        counts = pair_counts(x[rows], y[rows], np.concatenate([[0], np.cumsum(n[long])]), small=0)
        out[long] = counts.C - counts.D
    for size in np.unique(n[(n >= 2) & ~long]):
        gids = np.flatnonzero(n == size)
        i, j = np.triu_indices(size, 1)
        for part in np.array_split(gids, max(1, len(gids) * len(i) // (1 << 20))):
            start = offsets[part][:, None]
            out[part] = (np.sign(x[start + j] - x[start + i]) * np.sign(y[start + j] - y[start + i])).sum(
                axis=1).astype(np.int64)
    return out


def group_weights(weighting: str, pairs) -> np.ndarray:
    """Weight of each group's pair-count score: 1 (pooled, ``weighting="pairs"``) or 1/P_g (the mean
    over groups), as the integers L/P_g with L = lcm of the P_g when Σ L fits in int64, so scores
    compare exactly (as :func:`~rankeval_cli.measures.pair_thresholds.best_epsilon` weighs each pair)."""
    import math

    pairs = np.asarray(pairs, np.int64)
    positive = pairs > 0
    if weighting == "pairs":
        return positive.astype(np.int64)
    sizes = np.unique(pairs[positive]).tolist()
    lcm = math.lcm(*sizes) if sizes else 1
    if 2 * lcm * max(len(pairs), 1) < 2**62:
        out = np.zeros(len(pairs), np.int64)
        out[positive] = lcm // pairs[positive]
        return out
    return np.where(positive, 1.0 / np.where(positive, pairs, 1), 0.0)


def sweep_calibrated_counts(variant, human, metric, offsets, *, weighting="plain", pairs=None,
                            band_pairs: int = SWEEP_BAND_PAIRS):
    """(PairCounts at the calibrated ε, ε), as :func:`calibrated_counts`, without holding every pair.

    Score(t) = Σ_g w_g value_g(t), value = C + T_hm (acc-eq) or C + T_hm - D - T_h - T_m
    (eq) at threshold t, w_g from :func:`group_weights` (``pairs`` overrides each group's
    pair count there). The candidates are 0 and every |Δmetric|; the answer is the
    smallest candidate of highest score. Scores are evaluated at any t in O(n log n)
    (:class:`ThresholdCounts`); between two evaluated thresholds a < b, only the human
    ties that become metric ties raise the score, each by at most ``gain`` (1 for acc-eq,
    2 for eq), so Score(a) + gain · Σ_g w_g (T_h(a) - T_h(b))_g bounds the score inside
    (a, b]. Bands are visited from small to large t, split at a sampled median of their
    differences, skipped when their bound cannot beat the best score found, and
    enumerated (their pairs sorted by |Δmetric|, scores by prefix sums) once they hold
    at most ``band_pairs`` pairs — so memory is O(n + band_pairs) and the result is exact.
    """
    from ...measures.pair_thresholds import plain_counts

    if variant not in _GAIN:
        raise ValueError(f"tie calibration applies to eq and acc-eq, not {variant!r}")
    tc = ThresholdCounts(human, metric, offsets)
    weights = group_weights(weighting, tc.pairs if pairs is None else pairs)
    gain = _GAIN[variant]
    rng = np.random.default_rng(0)  # only chooses where to split: the result does not depend on it

    def evaluate(t):
        counts, lo = tc.counts(t)
        C, D, T_h, T_m, T_hm = counts
        value = C + T_hm if variant == "acc-eq" else C + T_hm - D - T_h - T_m
        return _total(weights * value), T_h, lo

    def bound(band) -> object:
        (_, f_a, th_a, _), (_, _, th_b, _) = band
        return f_a + gain * _total(weights * (th_a - th_b))

    f0, th0, lo0 = evaluate(0.0)
    best = [f0, 0.0]

    def offer(score, t):
        if score > best[0] or (score == best[0] and t < best[1]):
            best[0], best[1] = score, t

    top = float(np.max(tc.m_a - tc.m_a[tc.start_a], initial=0.0)) if len(tc.m_a) else 0.0
    if top <= 0:
        return _counts_at(tc, 0.0, plain_counts), 0.0
    points = [(0.0, f0, th0, lo0)]
    grid = _sample_thresholds(tc, lo0, tc.start_a, rng, 15) if int((lo0 - tc.start_a).sum()) > band_pairs else []
    for t in grid + [top]:
        if t > points[-1][0]:
            f, th, lo = evaluate(t)
            offer(f, t)
            points.append((t, f, th, lo))
    stack = [(points[k], points[k + 1]) for k in range(len(points) - 1)][::-1]
    while stack:
        band = stack.pop()
        (a, f_a, th_a, lo_a), (b, f_b, th_b, lo_b) = band
        n_band = int((lo_a - lo_b).sum())
        if n_band == 0:
            continue
        ub = bound(band)
        if ub < best[0] or (ub == best[0] and best[1] <= a):
            continue
        if np.nextafter(a, np.inf) == b:  # one possible candidate: b itself
            offer(f_b, b)
            continue
        if n_band <= band_pairs:
            offer(*_band_best(tc, lo_b, lo_a, f_a, weights, variant))
            continue
        mid = _split_point(tc, lo_b, lo_a, a, b, rng)
        f_m, th_m, lo_m = evaluate(mid)
        stack.append(((mid, f_m, th_m, lo_m), (b, f_b, th_b, lo_b)))
        stack.append(((a, f_a, th_a, lo_a), (mid, f_m, th_m, lo_m)))
    return _counts_at(tc, best[1], plain_counts), best[1]


def _total(x):
    """Σ x, exact for integers (as a Python int), else a float sum."""
    return int(x.sum()) if x.dtype.kind == "i" else float(x.sum())


def _counts_at(tc, t, plain_counts):
    counts, _ = tc.counts(t)
    return plain_counts(tc.n, np.zeros(len(tc.n), np.int64), np.stack(counts))


def _band_pairs(tc, lo_right, lo_left, picks=None):
    """(i, j) in order A of the pairs with i in [lo_right_j, lo_left_j) (all of them, or the ``picks``-th)."""
    k = lo_left - lo_right
    ends = np.cumsum(k)
    if picks is None:
        picks = np.arange(int(ends[-1]) if len(ends) else 0)
    j = np.searchsorted(ends, picks, side="right")
    i = lo_right[j] + picks - (ends[j] - k[j])
    return i, j


def _differences(tc, i, j):
    return np.where(tc.m_a[j] == tc.m_a[i], 0.0, tc.m_a[j] - tc.m_a[i])


def _sample_thresholds(tc, lo_hi, lo_lo, rng, count):
    """``count`` quantiles of the differences of a sample of the pairs between two windows."""
    total = int((lo_hi - lo_lo).sum())
    if total == 0:
        return []
    i, j = _band_pairs(tc, lo_lo, lo_hi, rng.integers(0, total, size=min(4096, total)))
    d = np.sort(_differences(tc, i, j))
    return sorted({float(d[int(q * (len(d) - 1))]) for q in np.arange(1, count + 1) / (count + 1)})


def _split_point(tc, lo_right, lo_left, a, b, rng):
    """A threshold in (a, b) near the median difference of the band's pairs (a sample of them)."""
    total = int((lo_left - lo_right).sum())
    i, j = _band_pairs(tc, lo_right, lo_left, rng.integers(0, total, size=min(63, total)))
    d = np.sort(_differences(tc, i, j))
    mid = float(d[len(d) // 2])
    if mid >= b:
        below = d[d < b]
        mid = float(below[-1]) if len(below) else float(np.nextafter(b, -np.inf))
    return mid if mid > a else float(np.nextafter(a, np.inf))


def _band_best(tc, lo_right, lo_left, f_left, weights, variant):
    """(score, t) of the band's best candidate (the smallest t of highest score), its pairs enumerated:
    each pair's change of score when it becomes a metric tie, summed in order of |Δmetric|."""
    i, j = _band_pairs(tc, lo_right, lo_left)
    d = _differences(tc, i, j)
    h_i, h_j = tc.h_a[i], tc.h_a[j]
    concordant_loss = 1 if variant == "acc-eq" else 2
    change = np.where(h_i == h_j, _GAIN[variant], np.where(h_j > h_i, -concordant_loss, 0))
    change = change * weights[tc.gid[j]]
    order = np.argsort(d, kind="stable")
    d = d[order]
    score = np.cumsum(change[order])
    last = np.flatnonzero(np.append(d[1:] != d[:-1], True))
    k = last[int(np.argmax(score[last]))]
    gained = int(score[k]) if score.dtype.kind == "i" else float(score[k])
    return f_left + gained, float(d[k])
