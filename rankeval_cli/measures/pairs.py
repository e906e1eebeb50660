"""Pair counts of Kendall's tau for every group of a batch.

For each group, over the items whose gold AND pred are present (NaN = missing),
every unordered pair of items is exactly one of

* ``C``    concordant: gold and pred order the pair the same way (strictly),
* ``D``    discordant: gold and pred order it the opposite way (strictly),
* ``T_h``  tied in gold only, ``T_m`` tied in pred only, ``T_hm`` tied in both,

so ``C + D + T_h + T_m + T_hm = n (n - 1) / 2``. The direction of the values
(ranks lower = better or scores higher = better) does not change any count as
long as gold and pred share it.

Alongside, the tie-block statistics of Kendall's tie-corrected null variance of
S = C - D (docs/definitions.md; Kendall 1970, eq. 4.4), for gold blocks of sizes t
and pred blocks of sizes u: Σt(t-1), Σt(t-1)(t-2), Σt(t-1)(2t+5) and the same for u.

Two exact algorithms, both vectorized across groups:

* groups of at most ``small`` items: bucketed by size, all pairs of a bucket
  compared at once (chunked to bound memory); the tie-block statistics come
  from the same pair comparisons, so nothing is sorted;
* longer groups: Knight (1966). Sort by (gold, pred); D is the number of strict
  inversions of pred in that order, counted by a bottom-up merge sort that is
  vectorized across all runs (and groups) of a level; the ties follow from the
  sizes of the gold, pred and joint (gold, pred) tie blocks. O(n log² n).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from ..batch import group_index, offsets_from_sizes

#: Groups up to this many items use the pair-comparison path, longer ones Knight's.
SMALL_GROUP = 40  # measured: pair comparisons 1.4-2x faster at 40 items, even at about 56
#: Pair comparisons held in memory at once by the pair-comparison path.
_CHUNK_PAIRS = 1 << 21


@dataclass
class PairCounts:
    """Per-group pair counts and tie-block statistics (one array entry per group).

    Counts are exact int64. ``gold_t3, gold_t5, pred_t3, pred_t5`` are float64:
    t(t-1)(2t+5) would overflow int64 for a tie block of about 1.6 million items,
    and they only enter the (float) variance of S.
    """

    n: np.ndarray  # items with gold and pred present
    skipped: np.ndarray  # items lacking gold or pred
    C: np.ndarray
    D: np.ndarray
    T_h: np.ndarray
    T_m: np.ndarray
    T_hm: np.ndarray
    gold_distinct: np.ndarray  # number of gold tie blocks (distinct values)
    pred_distinct: np.ndarray
    gold_t2: np.ndarray  # Σ t(t-1) over gold tie blocks
    gold_t3: np.ndarray  # Σ t(t-1)(t-2)
    gold_t5: np.ndarray  # Σ t(t-1)(2t+5)
    pred_t2: np.ndarray  # the same over pred tie blocks u
    pred_t3: np.ndarray
    pred_t5: np.ndarray

    def __len__(self) -> int:
        return len(self.n)

    @property
    def pairs(self) -> np.ndarray:
        """All pairs of present items, n(n-1)/2 = C + D + T_h + T_m + T_hm."""
        return self.n * (self.n - 1) // 2

    @property
    def S(self) -> np.ndarray:
        """Kendall's S = C - D."""
        return self.C - self.D

    def var_S(self) -> np.ndarray:
        """Null variance of S with ties (Kendall 1945; docs/definitions.md#tau-p), float64 per group.

        Var(S) = (v0 - vt - vu)/18 + v1/(2n(n-1)) + v2/(9n(n-1)(n-2)),
        v0 = n(n-1)(2n+5), v1 = Σt(t-1)·Σu(u-1), v2 = Σt(t-1)(t-2)·Σu(u-1)(u-2).
        The v1 term is 0 for n < 2 and the v2 term for n < 3 (their sums vanish).
        A side tied throughout (one block of n: Σt(t-1) = n(n-1)) makes Var(S) exactly 0,
        which the divisions would leave as a rounding residue (about 1e-16): it is set to 0.
        """
        n = self.n.astype(np.float64)
        v0 = n * (n - 1) * (2 * n + 5)
        v1 = self.gold_t2.astype(np.float64) * self.pred_t2
        v2 = self.gold_t3 * self.pred_t3
        d1 = 2 * n * (n - 1)
        d2 = 9 * n * (n - 1) * (n - 2)
        term1 = np.divide(v1, d1, out=np.zeros_like(n), where=d1 > 0)
        term2 = np.divide(v2, d2, out=np.zeros_like(n), where=d2 > 0)
        var = (v0 - self.gold_t5 - self.pred_t5) / 18 + term1 + term2
        all_tied = (self.gold_t2 == n * (n - 1)) | (self.pred_t2 == n * (n - 1))
        return np.where(all_tied, 0.0, var)

    def take(self, index) -> "PairCounts":
        """The counts of some groups (index or boolean mask)."""
        return PairCounts(**{f.name: getattr(self, f.name)[index] for f in fields(self)})

    def total(self) -> "PairCounts":
        """All groups pooled into one (each array of length 1)."""
        return PairCounts(**{f.name: getattr(self, f.name).sum(keepdims=True) for f in fields(self)})


def pair_counts(gold, pred, offsets, *, small: int = SMALL_GROUP) -> PairCounts:
    """Pair counts of every group; rows of group g are ``offsets[g]:offsets[g+1]``.

    ``small`` is the size up to which groups take the pair-comparison path
    (tests set it to 0 or to a huge value to force one algorithm).
    """
    gold = np.asarray(gold, dtype=np.float64)
    pred = np.asarray(pred, dtype=np.float64)
    offsets = np.asarray(offsets, dtype=np.int64)
    present = ~(np.isnan(gold) | np.isnan(pred))
    sizes = np.diff(offsets)
    if present.all():
        n = sizes
    else:
        n = _segment_sums(present, offsets)
        gold, pred = gold[present], pred[present]
    out = _zero_stats(len(n))
    for part, compute in ((n <= small, _short_group_counts), (n > small, _long_group_counts)):
        if part.all():
            out = compute(gold, pred, n)
        elif part.any():
            rows = np.repeat(part, n)
            for name, values in compute(gold[rows], pred[rows], n[part]).items():
                out[name][part] = values
    return PairCounts(n, sizes - n, **out)


#: PairCounts fields computed per group by the two paths (all but n and skipped).
_STATS = ("C", "D", "T_h", "T_m", "T_hm", "gold_distinct", "pred_distinct",
          "gold_t2", "gold_t3", "gold_t5", "pred_t2", "pred_t3", "pred_t5")
_FLOAT_STATS = ("gold_t3", "gold_t5", "pred_t3", "pred_t5")


def _zero_stats(n_groups) -> dict:
    return {name: np.zeros(n_groups, np.float64 if name in _FLOAT_STATS else np.int64) for name in _STATS}


def _long_group_counts(gold, pred, sizes) -> dict:
    """Every statistic of groups of any size (no NaN): Knight's method and sorted tie blocks.

    Sorts the whole input four times (dense ranks, tie blocks) plus Knight's
    merge sort, so the short path is preferred for small groups.
    """
    offsets = offsets_from_sizes(sizes)
    groups = group_index(offsets)
    gold_rank, gold_span = _dense_rank(gold)
    pred_rank, pred_span = _dense_rank(pred)
    gold_stats = _tie_block_stats(groups * gold_span + gold_rank, gold_span, groups, len(sizes))
    pred_stats = _tie_block_stats(groups * pred_span + pred_rank, pred_span, groups, len(sizes))
    D, T_hm = _knight(gold_rank, pred_rank, pred_span, offsets)
    T_h = gold_stats[1] // 2 - T_hm
    T_m = pred_stats[1] // 2 - T_hm
    C = sizes * (sizes - 1) // 2 - D - T_h - T_m - T_hm
    return dict(zip(_STATS, (C, D, T_h, T_m, T_hm, gold_stats[0], pred_stats[0], *gold_stats[1:],
                             *pred_stats[1:])))


def _short_group_counts(gold, pred, sizes) -> dict:
    """Every statistic of short groups (no NaN), all pairs compared at once per group size.

    Groups of one size form a matrix with one column per group and one row per
    item position, compared pair of positions by pair of positions (chunked to
    bound memory). Groups of 0 or 1 items have no pair and 0 or 1 tie block.
    """
    offsets = offsets_from_sizes(sizes)
    out = _zero_stats(len(sizes))
    out["gold_distinct"] = np.minimum(sizes, 1)
    out["pred_distinct"] = out["gold_distinct"].copy()
    size_counts = np.bincount(sizes)
    for size in np.flatnonzero(size_counts[2:]) + 2:
        gids = np.flatnonzero(sizes == size)
        later, earlier = np.tril_indices(size, -1)  # pairs (earlier < later) grouped by later
        step = max(1, _CHUNK_PAIRS // len(later))
        for start in range(0, len(gids), step):
            chunk = gids[start:start + step]
            item_rows = offsets[chunk] + np.arange(size)[:, None]  # row r: item r of every group
            counts = _position_pair_counts(gold[item_rows], pred[item_rows], earlier, later)
            for name, values in counts.items():
                out[name][chunk] = values
    return out


def _position_pair_counts(gold, pred, earlier, later) -> dict:
    """Statistics of groups of one size k from (k, groups) matrices of gold and pred.

    ``earlier``/``later`` list the position pairs i < j, grouped by j as
    ``np.tril_indices(k, -1)`` orders them. A pair tied in neither is
    discordant when gold and pred order it differently.
    """
    g_i, g_j, p_i, p_j = gold[earlier], gold[later], pred[earlier], pred[later]
    tie_g, tie_p = g_i == g_j, p_i == p_j  # == also ties inf with inf, like _cmp
    T_hm = _count(tie_g & tie_p)
    T_h, T_m = _count(tie_g) - T_hm, _count(tie_p) - T_hm
    D = _count(((g_i < g_j) != (p_i < p_j)) & ~(tie_g | tie_p))
    C = len(earlier) - D - T_h - T_m - T_hm
    gold_stats = _position_tie_stats(tie_g, T_h + T_hm, len(gold))
    pred_stats = _position_tie_stats(tie_p, T_m + T_hm, len(gold))
    return dict(zip(_STATS, (C, D, T_h, T_m, T_hm, gold_stats[0], pred_stats[0], *gold_stats[1:],
                             *pred_stats[1:])))


def _position_tie_stats(tied, tied_pairs, k):
    """#blocks, Σt(t-1), Σt(t-1)(t-2), Σt(t-1)(2t+5) over tie blocks, from pair ties.

    ``tied`` has one row per position pair (i < j, grouped by j). Let e_j be
    the number of earlier items tied with item j: within a block of t items
    these are 0, 1, ..., t-1, so the block has one item with e = 0,
    Σ e = t(t-1)/2 and Σ e(e-1) = t(t-1)(t-2)/3; t(t-1)(2t+5) is
    2·t(t-1)(t-2) + 9·t(t-1).
    """
    blocks = np.full(tied.shape[1], k, np.int64)
    e_e1 = np.zeros(tied.shape[1], np.int64)  # Σ e(e-1)
    for j in range(1, k):
        e = _count(tied[j * (j - 1) // 2:j * (j + 1) // 2])  # the pairs (0..j-1, j)
        blocks -= e > 0
        e_e1 += e * (e - 1)
    t2 = 2 * tied_pairs
    t3 = 3 * e_e1.astype(np.float64)
    return blocks, t2, t3, 2 * t3 + 9 * t2


def _count(flags):
    """Number of True per column."""
    return flags.sum(axis=0, dtype=np.int64)


def pair_table(gold, pred, offsets):
    """Every pair (i < j) of present items, for tie calibration.

    Returns ``(group, gold_cmp, pred_cmp, pred_absdiff)``: the group of the pair,
    sign(gold_j - gold_i), sign(pred_j - pred_i) (int8) and |pred_j - pred_i|.
    Memory is proportional to Σ n(n-1)/2; callers bound it.
    """
    gold = np.asarray(gold, dtype=np.float64)
    pred = np.asarray(pred, dtype=np.float64)
    offsets = np.asarray(offsets, dtype=np.int64)
    present = ~(np.isnan(gold) | np.isnan(pred))
    n = _group_sums(group_index(offsets), present.astype(np.int64), len(offsets) - 1)
    gold, pred, offsets = gold[present], pred[present], offsets_from_sizes(n)
    parts = []
    for size in np.unique(n[n >= 2]):
        gids = np.flatnonzero(n == size)
        i, j = np.triu_indices(size, 1)
        rows = offsets[gids][:, None]
        gi, gj = gold[rows + i], gold[rows + j]
        pi, pj = pred[rows + i], pred[rows + j]
        absdiff = np.where(pi == pj, 0.0, np.abs(pj - pi))  # inf == inf is a tie
        parts.append((np.repeat(gids, len(i)), _cmp(gi, gj).ravel(), _cmp(pi, pj).ravel(),
                      absdiff.ravel()))
    if not parts:
        return np.zeros(0, np.int64), np.zeros(0, np.int8), np.zeros(0, np.int8), np.zeros(0)
    group, gcmp, pcmp, absdiff = (np.concatenate(p) for p in zip(*parts))
    order = np.argsort(group, kind="stable")
    return group[order], gcmp[order], pcmp[order], absdiff[order]


def _cmp(a, b):
    """sign(b - a) as int8, exact also for infinite values."""
    return (b > a).astype(np.int8) - (b < a).astype(np.int8)


def _knight(gold_rank, pred_rank, pred_span, offsets):
    """(D, T_hm) per group by Knight's (1966) method; ranks are dense int64.

    Rows sorted by (group, gold, pred): the joint tie blocks give T_hm, and the
    strict inversions of pred in that order are exactly the discordant pairs
    (within a gold tie block pred is ascending, so those pairs add none).
    Sorting keeps every group in its rows, so the group of a row is unchanged.
    """
    groups = group_index(offsets)
    joint = groups * (gold_rank.max(initial=0) + 1) + gold_rank
    if joint.max(initial=0) < (1 << 62) // max(int(pred_span), 1):
        key = np.sort(joint * pred_span + pred_rank)  # one int64 key: no argsort, no gathers
        pred_sorted = key % pred_span
        tied_both = _tied_pairs(groups, len(offsets) - 1, key)
    else:
        order = np.lexsort((pred_rank, gold_rank, groups))
        pred_sorted = pred_rank[order]
        tied_both = _tied_pairs(groups, len(offsets) - 1, gold_rank[order], pred_sorted)
    return _inversions(pred_sorted, offsets), tied_both


def _inversions(values, offsets):
    """Per group, the pairs i < j (in row order) with values[i] > values[j].

    Bottom-up merge sort over all groups at once. At level L the rows form
    blocks of 2w rows, w = 2^L (never across groups), whose two halves are
    sorted; one stable sort of the int64 key

        key = ((block start) · span + value) · 2 + (1 in the right half)

    merges every block at once (fast: the input is made of sorted runs; on
    equal values left stays before right, so they do not count). A right half
    element at row i that lands at row m moved over exactly the i - m left
    half elements greater than it, so the level adds Σ row · (is_right before
    - is_right after). For the next level a row in the right half of its new
    block of 4w rows has a block start 2w lower: its key changes by
    is_right' · (1 - span · 4w) - is_right after, with no need to rebuild it.
    """
    n_groups = len(offsets) - 1
    if len(values) < 2:
        return np.zeros(n_groups, np.int64)
    groups = group_index(offsets)
    row = np.arange(len(values), dtype=np.int64)
    pos = row - offsets[groups]  # position within the group
    width_limit = int(np.diff(offsets).max())
    span = np.int64(values.max() + 1)
    is_right = pos & 1
    key = ((row - is_right) * span + values) * 2 + is_right
    shifted = np.zeros(len(values), np.int64)  # Σ over levels of is_right before - after
    level = 0
    while True:
        key.sort(kind="stable")
        landed_right = key & 1
        shifted += is_right - landed_right
        level += 1
        if (1 << level) >= width_limit:
            break
        is_right = (pos >> level) & 1
        key += is_right * (1 - (span << (level + 1))) - landed_right
    return _group_sums(groups, row * shifted, n_groups)


def _dense_rank(values):
    """Dense ranks 0..K-1 of float values (int64) and K."""
    if len(values) == 0:
        return np.zeros(0, np.int64), np.int64(1)
    order = np.argsort(values)  # ties get one rank whatever their order
    sorted_values = values[order]
    new = np.ones(len(values), dtype=np.int64)
    new[1:] = sorted_values[1:] != sorted_values[:-1]
    ranks = np.empty(len(values), np.int64)
    ranks[order] = np.cumsum(new) - 1
    return ranks, np.int64(ranks[order[-1]] + 1)


def _block_starts(sorted_groups, *sorted_keys):
    """True where a block of equal (group, *keys) begins, rows sorted by them."""
    starts = np.ones(len(sorted_groups), dtype=bool)
    if len(sorted_groups) > 1:
        change = sorted_groups[1:] != sorted_groups[:-1]
        for key in sorted_keys:
            change |= key[1:] != key[:-1]
        starts[1:] = change
    return starts


def _block_sizes(sorted_groups, *sorted_keys):
    """(group, size) of every block of equal keys, rows sorted by (group, keys)."""
    first = np.flatnonzero(_block_starts(sorted_groups, *sorted_keys))
    sizes = np.diff(np.append(first, len(sorted_groups)))
    return sorted_groups[first], sizes.astype(np.int64)


def _tied_pairs(sorted_groups, n_groups, *sorted_keys):
    """Per group, the pairs tied on all keys: Σ b(b-1)/2 over blocks b."""
    block_group, b = _block_sizes(sorted_groups, *sorted_keys)
    return _group_sums(block_group, b * (b - 1) // 2, n_groups)


def _tie_block_stats(keys, span, groups, n_groups):
    """Per group: #blocks, Σt(t-1) (int64), Σt(t-1)(t-2), Σt(t-1)(2t+5) (float64).

    ``keys`` (int64) order the rows by (group, value): group * span + dense rank.
    Blocks are the runs of equal keys, in key order: counted by ``bincount``
    when the keys span few values (few groups, many ties), else found by
    sorting the keys (rows are in group order, so each group keeps its rows).
    """
    if len(keys) and keys.max() < 2 * len(keys):
        t = np.bincount(keys)
        block_key = np.flatnonzero(t)
        block_group, t = block_key // span, t[block_key]
    else:
        block_group, t = _block_sizes(groups, np.sort(keys))
    tf = t.astype(np.float64)
    return (_group_sums(block_group, np.ones_like(t), n_groups),
            _group_sums(block_group, t * (t - 1), n_groups),
            np.bincount(block_group, weights=tf * (tf - 1) * (tf - 2), minlength=n_groups).astype(np.float64),
            np.bincount(block_group, weights=tf * (tf - 1) * (2 * tf + 5), minlength=n_groups).astype(np.float64))


def _segment_sums(values, offsets):
    """Exact int64 sums of ``values`` over rows ``offsets[g]:offsets[g+1]``."""
    cum = np.concatenate(([0], np.cumsum(values, dtype=np.int64)))
    return cum[offsets[1:]] - cum[offsets[:-1]]


def _group_sums(sorted_index, values, n_groups):
    """Exact int64 sums of ``values`` per group; ``sorted_index`` is nondecreasing."""
    bounds = np.searchsorted(sorted_index, np.arange(n_groups + 1), side="left")
    cum = np.concatenate(([0], np.cumsum(values, dtype=np.int64)))
    return cum[bounds[1:]] - cum[bounds[:-1]]
