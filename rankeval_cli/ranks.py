"""Rank normalization within groups (Avramidis 2013 §3.6; docs/definitions.md).

The four tie modes, shown on values [a, b, b, c, d] (a best):

==========  =====================  =====================
mode        result                 scipy ``rankdata``
==========  =====================  =====================
minimize    [1, 2, 2, 3, 4]        dense
floor       [1, 2, 2, 4, 5]        min
ceiling     [1, 3, 3, 4, 5]        max
middle      [1, 2.5, 2.5, 4, 5]    average
==========  =====================  =====================

Missing values (NaN) stay missing and take no position: they are never turned
into rank 1, which the original RankEval did with WMT's ``-1`` blanks.
All groups of a batch are ranked at once (one sort per group size), never in a Python loop.
"""

from __future__ import annotations

import numpy as np

from .batch import bucket_matrix, bucket_put, group_index, size_buckets, sort_within_groups, tie_block_starts
from .vocabulary import TIED_RANKS as TIE_MODES

#: Ceiling ranks of batches whose groups all have at most this many rows are counted
#: (k comparisons per row) instead of derived from a sort and its tie blocks.
COUNT_GROUP = 12


def normalize_ranks(values: np.ndarray, offsets: np.ndarray, ties: str = "ceiling",
                    higher_better: bool = False, order: np.ndarray | None = None) -> np.ndarray:
    """Ranks 1..n within each group, ties resolved by ``ties`` (see module doc).

    ``values`` are ranks or scores, lower = better unless ``higher_better``.
    Returns float64 ranks in input row order, NaN where the value is missing.
    ``order`` is the row order sorting each group by value, when the caller has it
    (no value missing). Ceiling ranks of groups of at most :data:`COUNT_GROUP` rows
    without missing values are counted instead of sorted (:func:`_ceiling_by_counting`).
    """
    if ties not in TIE_MODES:
        raise ValueError(f"unknown tie mode {ties!r}; expected one of {', '.join(TIE_MODES)}")
    values = np.asarray(values, dtype=np.float64)
    offsets = np.asarray(offsets, dtype=np.int64)
    key = -values if higher_better else values
    missing = np.isnan(key)
    any_missing = bool(missing.any())
    sizes = np.diff(offsets)
    if ties == "ceiling" and order is None and not any_missing and (len(sizes) == 0 or sizes.max() <= COUNT_GROUP):
        return _ceiling_by_counting(key, offsets, sizes)
    if order is None:  # missing values sort last within their group and are blanked afterwards
        order = sort_within_groups(offsets, np.where(missing, np.inf, key), missing) if any_missing \
            else sort_within_groups(offsets, key)
    groups = group_index(offsets)[order]
    sorted_key = key[order]
    sorted_missing = missing[order]

    starts = tie_block_starts(np.where(sorted_missing, np.nan, sorted_key), groups)
    position = _position_in_group(groups, offsets)  # 1-based position in sorted group
    block_id = np.cumsum(starts) - 1
    block_first = position[starts][block_id]
    block_size = np.bincount(block_id)
    block_last = block_first + block_size[block_id] - 1

    if ties == "floor":
        sorted_ranks = block_first.astype(np.float64)
    elif ties == "ceiling":
        sorted_ranks = block_last.astype(np.float64)
    elif ties == "middle":
        sorted_ranks = (block_first + block_last) / 2.0
    else:  # minimize: ordinal of the block within its group
        group_first_block = block_id[np.searchsorted(groups, groups, side="left")]
        sorted_ranks = (block_id - group_first_block + 1).astype(np.float64)

    sorted_ranks[sorted_missing] = np.nan
    ranks = np.empty_like(sorted_ranks)
    ranks[order] = sorted_ranks
    return ranks


def _ceiling_by_counting(values: np.ndarray, offsets: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Ceiling ranks of short groups: the number of values of the group ≤ each value
    (the last position of its tied block), counted in (n_groups × k) matrices."""
    ranks = np.ones(len(values), dtype=np.float64)  # groups of one row
    for k, _, span in size_buckets(offsets, sizes, 2, COUNT_GROUP):
        mat = bucket_matrix(values, span, k)
        count = np.zeros(mat.shape, dtype=np.float64)
        for j in range(k):
            count += mat[:, j, None] <= mat
        bucket_put(ranks, span, count)
    return ranks


def _position_in_group(sorted_groups: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """1-based position of each row within its group, rows sorted by group."""
    return np.arange(len(sorted_groups), dtype=np.int64) - offsets[sorted_groups] + 1


def scores_to_ranks(values: np.ndarray, offsets: np.ndarray, ties: str = "ceiling") -> np.ndarray:
    """Scores (higher = better) to ranks (1 = best) within each group."""
    return normalize_ranks(values, offsets, ties=ties, higher_better=True)
