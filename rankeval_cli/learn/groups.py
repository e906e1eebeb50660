"""Vectorized operations within groups (rows ``offsets[g]:offsets[g+1]``), no loop per group."""

from __future__ import annotations

import numpy as np

from ..batch import group_index, sort_within_groups, tie_block_starts


def segment_sum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Sum of ``values`` over the rows of each (non-empty) group."""
    return np.add.reduceat(values, offsets[:-1]) if len(offsets) > 1 else np.zeros(0)


def segment_max(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Maximum of ``values`` over the rows of each (non-empty) group."""
    return np.maximum.reduceat(values, offsets[:-1]) if len(offsets) > 1 else np.zeros(0)


def segment_softmax(values: np.ndarray, offsets: np.ndarray, rows: np.ndarray | None = None):
    """Softmax within each group, and the log of each group's normaliser (stable: max subtracted).

    Returns ``(p, log_z)`` with p per row and ``log_z`` per group: log Σ_j exp(v_j).
    """
    rows = group_index(offsets) if rows is None else rows
    top = segment_max(values, offsets)
    e = np.exp(values - top[rows])
    z = segment_sum(e, offsets)
    return e / z[rows], np.log(z) + top


def within_group_pairs(utility: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row indices ``(better, worse)`` of every within-group pair whose utility differs.

    Pairs are generated as index arrays: row r at position p of a group of n rows is
    paired with the n - 1 - p rows after it. Memory is linear in the number of pairs,
    Σ_g n_g(n_g - 1)/2.
    """
    sizes = np.diff(offsets)
    rows = group_index(offsets)
    position = np.arange(offsets[-1]) - offsets[:-1][rows]
    after = (sizes[rows] - 1 - position).astype(np.int64)
    total = int(after.sum())
    first = np.repeat(np.arange(offsets[-1], dtype=np.int64), after)
    starts = np.zeros(len(after) + 1, dtype=np.int64)
    np.cumsum(after, out=starts[1:])
    step = np.arange(total, dtype=np.int64) - np.repeat(starts[:-1], after) + 1
    second = first + step
    u1, u2 = utility[first], utility[second]
    differ = u1 != u2
    first, second, u1, u2 = first[differ], second[differ], u1[differ], u2[differ]
    swap = u2 > u1
    better = np.where(swap, second, first)
    worse = np.where(swap, first, second)
    return better, worse


def ascending_blocks(utility: np.ndarray, offsets: np.ndarray):
    """Rows sorted by utility ascending within each group, and the tie structure of that order.

    Returns ``(order, block_first, block_last)``: for every sorted position, the sorted
    positions of the first and last row of its block of equal utility in its group.
    """
    order = sort_within_groups(offsets, utility)
    sorted_u = utility[order]
    rows = group_index(offsets)
    starts = tie_block_starts(sorted_u, rows)
    n = len(order)
    block_id = np.cumsum(starts) - 1
    first_pos = np.flatnonzero(starts)
    last_pos = np.r_[first_pos[1:] - 1, n - 1] if n else first_pos
    return order, first_pos[block_id], last_pos[block_id]


def size_plan(offsets: np.ndarray) -> list[np.ndarray]:
    """Index matrices, one per distinct group size k: the (groups of size k) x k row indices.

    With them a within-group cumulative sum is a row-wise ``np.cumsum`` of a matrix:
    exact per group (no running total across groups to subtract), one numpy call per
    distinct size rather than a loop over groups.
    """
    sizes = np.diff(offsets)
    plan = []
    for k in np.unique(sizes[sizes > 0]).tolist():
        first = offsets[:-1][sizes == k]
        plan.append(first[:, None] + np.arange(k)[None, :])
    return plan


def segment_cumsum(values: np.ndarray, plan: list[np.ndarray], reverse: bool = False) -> np.ndarray:
    """Cumulative sum of ``values`` within each group (from its last row when ``reverse``)."""
    out = np.empty_like(values)
    for index in plan:
        matrix = values[index]
        if reverse:
            out[index] = np.cumsum(matrix[:, ::-1], axis=1)[:, ::-1]
        else:
            out[index] = np.cumsum(matrix, axis=1)
    return out
