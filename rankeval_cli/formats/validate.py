"""Stream invariants: contiguous groups with unique ids, unique items within a group,
and the documented limits: at most ``MAX_GROUP_ITEMS`` items per group and gold/pred
values within ±``MAX_ABS_VALUE``.

Group ids are remembered as 64-bit hashes in bounded memory (:mod:`.seen`). A hash
match within a batch is confirmed against the real ids; across batches a 64-bit
collision would be taken for a repeat (odds about 3e-8 for a million groups).
"""

from __future__ import annotations

import numpy as np

from ..batch import Batch
from ..errors import DataError
from .seen import SeenGroups, group_hashes

#: Largest |gold| or |pred| accepted. Far beyond any rank or score, it leaves room for
#: the arithmetic measures do on values (negation, differences, sums of many values)
#: to stay finite, where values near the float64 maximum (1.8e308) would overflow to inf.
MAX_ABS_VALUE = 1e300
#: Most items one group may hold. A group is held in memory whole (about 0.5 kB per row
#: while it is parsed and measured), so this bounds memory; ranking lists in MT and IR
#: evaluation hold 2 to a few thousand items.
MAX_GROUP_ITEMS = 1 << 20


class GroupTracker:
    """Checks one stream's batches against the groups seen so far (see :mod:`.seen`).

    Of the problems in a batch, the one at the earliest row is reported, so the
    message does not depend on hash order (Python salts string hashes per process).
    """

    def __init__(self, name: str):
        self.name = name
        self.seen = SeenGroups()

    def check(self, batch: Batch) -> None:
        if batch.n_groups == 0:
            return
        hashes = group_hashes(batch.group)
        order = np.argsort(hashes, kind="stable")  # equal ids in row order: each repeat pairs with its predecessor
        ordered = hashes[order]
        problems = [p for p in (_limit_problem(batch), self._repeat_problem(batch, order, ordered),
                                _item_problem(batch)) if p is not None]
        if problems:
            self.finish()  # a repeat of a spilled group in an earlier batch comes first
            row, message = min(problems, key=lambda p: p[0])
            source, line = batch.row_location(row)
            raise DataError(message, source or self.name, line)
        first_rows = batch.offsets[:-1][order]
        lines = np.zeros(len(order), dtype=np.int64) if batch.line is None else batch.line[first_rows]
        self.seen.add(ordered, lines.astype(np.int64, copy=False))

    def finish(self) -> None:
        """Raise DataError for a group that reappeared too late to be caught batch by batch."""
        repeat = self.seen.finish()
        if repeat is not None:
            line, first = repeat
            where = f" (it first appeared at line {first})" if first else ""
            raise DataError(f"a group appears again after other groups{where}; {CONTIGUOUS}",
                            self.name, line or None)

    def _repeat_problem(self, batch: Batch, order: np.ndarray, ordered: np.ndarray):
        """(first row, message) of the earliest group that appeared before, or None.

        ``ordered`` holds the batch's group hashes sorted (``order`` is the permutation):
        sorted needles keep the binary searches in the sorted runs cache-friendly.
        """
        repeated = np.zeros(batch.n_groups, dtype=bool)
        same = np.flatnonzero(ordered[1:] == ordered[:-1])
        for k in same.tolist():
            first, second = sorted((int(order[k]), int(order[k + 1])))
            if batch.group[first] == batch.group[second]:
                repeated[second] = True
        repeated[order[self.seen.contains(ordered)]] = True
        if not repeated.any():
            return None
        g = int(np.argmax(repeated))
        return int(batch.offsets[g]), f"group {batch.group[g]!r} appears again after other groups ({CONTIGUOUS})"


CONTIGUOUS = "the rows of a group must be contiguous; sort the input by group"


def check_limits(batch: Batch) -> None:
    """Group sizes up to MAX_GROUP_ITEMS and finite values within ±MAX_ABS_VALUE, else DataError."""
    problem = _limit_problem(batch)
    if problem is not None:
        source, line = batch.row_location(problem[0])
        raise DataError(problem[1], source, line)


def _limit_problem(batch: Batch):
    """(row, message) of the earliest row beyond a limit, or None."""
    rows = []
    big = np.flatnonzero(batch.sizes > MAX_GROUP_ITEMS)
    if len(big):
        g = int(big[0])
        rows.append((int(batch.offsets[g]) + MAX_GROUP_ITEMS, group_too_large(batch.group[g])))
    bad = (np.abs(batch.gold) > MAX_ABS_VALUE) | (np.abs(batch.pred) > MAX_ABS_VALUE)  # NaN compares false
    if bad.any():
        row = int(np.argmax(bad))
        column = "gold" if abs(batch.gold[row]) > MAX_ABS_VALUE else "pred"
        rows.append((row, value_out_of_range(column, float(getattr(batch, column)[row]))))
    return min(rows, key=lambda p: p[0]) if rows else None


def group_too_large(group) -> str:
    return (f"group {group!r} has more than {MAX_GROUP_ITEMS} items, the largest group supported "
            "(split it, or check that the group column is right)")


def value_out_of_range(column: str, value: float) -> str:
    if not np.isfinite(value):
        return f"column {column!r}: {value!r} is not a finite number"
    return f"column {column!r}: {value!r} is outside the supported range [-{MAX_ABS_VALUE:g}, {MAX_ABS_VALUE:g}]"


def _item_problem(batch: Batch):
    """(row, message) of the earliest second occurrence of an item id in its group, or None.

    Small groups compare the id columns pairwise within each size bucket (readers
    share one str object per distinct id, so most comparisons are identity checks);
    large ones sort item hashes. Equal hashes are confirmed on the ids.
    """
    sizes = batch.sizes
    hashes = None
    rows = []
    for n in np.flatnonzero(np.bincount(sizes)).tolist():  # the sizes present (np.unique would import numpy.ma)
        block = _rows_of_size(batch.offsets, sizes, n)
        if n <= SMALL_GROUP:
            pairs = _small_pairs(batch.item, block.reshape(-1, n))
        else:
            hashes = group_hashes(batch.item) if hashes is None else hashes
            pairs = _large_pairs(hashes, block, n)
        rows.extend(second for first, second in pairs if batch.item[first] == batch.item[second])
    if not rows:
        return None
    row = min(rows)
    g = int(np.searchsorted(batch.offsets, row, side="right")) - 1
    return row, f"item {batch.item[row]!r} appears twice in group {batch.group[g]!r}"


SMALL_GROUP = 12


def _rows_of_size(offsets: np.ndarray, sizes: np.ndarray, n: int) -> np.ndarray:
    first = offsets[:-1][sizes == n]
    return (first[:, None] + np.arange(n)[None, :]).ravel()


def _small_pairs(ids: np.ndarray, rows: np.ndarray):
    """(earlier row, later row) with equal item ids, groups of n <= SMALL_GROUP rows."""
    keys = ids[rows]
    n = rows.shape[1]
    for a in range(n):
        for b in range(a + 1, n):
            for k in np.flatnonzero(keys[:, a] == keys[:, b]).tolist():
                yield int(rows[k, a]), int(rows[k, b])


def _large_pairs(hashes: np.ndarray, rows: np.ndarray, n: int):
    """(earlier row, later row) of rows adjacent in (group, hash) order with equal hashes.

    Sorting each group's hashes (a row of an (groups, n) matrix) tells cheaply whether
    any group holds equal hashes at all; only then are the rows found by a lexsort.
    """
    within = np.sort(hashes[rows].reshape(-1, n), axis=1)
    if not (within[:, 1:] == within[:, :-1]).any():
        return
    groups = np.repeat(np.arange(len(rows) // n), n)
    hashes = hashes[rows]
    order = np.lexsort((hashes, groups))
    same = (hashes[order][1:] == hashes[order][:-1]) & (groups[order][1:] == groups[order][:-1])
    for k in np.flatnonzero(same).tolist():
        first, second = sorted((int(rows[order[k]]), int(rows[order[k + 1]])))
        yield first, second
