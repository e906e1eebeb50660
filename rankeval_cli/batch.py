"""Columnar batches of ranking groups: the in-memory form of every stream.

A batch holds whole groups (a group is never split between batches) as parallel
numpy arrays, plus ``offsets`` marking group boundaries: the rows of group ``g``
are ``offsets[g]:offsets[g + 1]``. Gold and pred are float64 with NaN for a
missing value (a WMT ``-1`` blank, an empty field). Extra columns are object
arrays of strings (``""`` = empty) carried through untouched.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterable, Iterator

import numpy as np

#: Rows per batch that readers aim for; a larger group gets a batch of its own.
BATCH_ROWS = 1 << 16


@dataclass
class Batch:
    """A run of complete groups in columnar form."""

    group: np.ndarray  # object array of group ids, one per group
    offsets: np.ndarray  # int64, len(group) + 1, offsets[0] == 0
    item: np.ndarray  # object array of item ids, one per row
    gold: np.ndarray  # float64 per row, NaN = missing
    pred: np.ndarray  # float64 per row, NaN = missing
    extra: dict[str, np.ndarray] = field(default_factory=dict)  # object arrays per row
    line: np.ndarray | None = None  # int64 source line of each row, when known
    source: str | None = None  # file name the rows came from

    @property
    def n_groups(self) -> int:
        return len(self.group)

    @property
    def n_rows(self) -> int:
        return int(self.offsets[-1])

    @property
    def sizes(self) -> np.ndarray:
        """Number of rows of each group."""
        return np.diff(self.offsets)

    @property
    def group_index(self) -> np.ndarray:
        """The group number (0-based within the batch) of every row."""
        return group_index(self.offsets)

    def with_values(self, **columns) -> "Batch":
        """A copy with some columns replaced (gold, pred, extra, ...)."""
        return replace(self, **columns)

    def select_groups(self, keep: np.ndarray) -> "Batch":
        """Keep the groups where the boolean mask ``keep`` (one per group) is true."""
        rows = np.repeat(keep, self.sizes)
        sizes = self.sizes[keep]
        return self._take(self.group[keep], offsets_from_sizes(sizes), rows)

    def select_rows(self, keep: np.ndarray) -> "Batch":
        """Keep rows where ``keep`` is true; groups left empty are dropped."""
        counts = np.add.reduceat(keep.astype(np.int64), self.offsets[:-1]) if self.n_groups else np.zeros(0, np.int64)
        if self.n_rows == 0:
            counts = np.zeros(self.n_groups, np.int64)
        nonempty = counts > 0
        return self._take(self.group[nonempty], offsets_from_sizes(counts[nonempty]), keep)

    def _take(self, group, offsets, rows) -> "Batch":
        return Batch(
            group=group,
            offsets=offsets,
            item=self.item[rows],
            gold=self.gold[rows],
            pred=self.pred[rows],
            extra={k: v[rows] for k, v in self.extra.items()},
            line=None if self.line is None else self.line[rows],
            source=self.source,
        )

    def row_location(self, row: int) -> tuple[str | None, int | None]:
        """(source, line) of a row, for error messages."""
        line = None if self.line is None else int(self.line[row])
        return self.source, line


def offsets_from_sizes(sizes: np.ndarray) -> np.ndarray:
    """Group offsets (len G + 1) from group sizes."""
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    return offsets


def distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values of a 1-d array, ascending: ``np.unique(values)`` without its test for a
    masked array, which imports ``numpy.ma`` (a cost every ``rankeval trec_eval`` would pay)."""
    ordered = np.sort(np.ravel(values))
    if len(ordered) < 2:
        return ordered
    keep = np.empty(len(ordered), dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def group_index(offsets: np.ndarray) -> np.ndarray:
    """Group number of every row, from offsets."""
    return np.repeat(np.arange(len(offsets) - 1, dtype=np.int64), np.diff(offsets))


def empty_batch(extra_names: Iterable[str] = (), source: str | None = None) -> Batch:
    """A batch with no groups and the given extra columns."""
    obj = np.empty(0, dtype=object)
    return Batch(
        group=obj.copy(),
        offsets=np.zeros(1, dtype=np.int64),
        item=obj.copy(),
        gold=np.empty(0),
        pred=np.empty(0),
        extra={name: obj.copy() for name in extra_names},
        line=np.empty(0, dtype=np.int64),
        source=source,
    )


def concat(batches: list[Batch]) -> Batch:
    """One batch holding all groups of ``batches`` in order (same extra columns)."""
    if len(batches) == 1:
        return batches[0]
    first = batches[0]
    sizes = np.concatenate([b.sizes for b in batches])
    lines = None if any(b.line is None for b in batches) else np.concatenate([b.line for b in batches])
    return Batch(
        group=np.concatenate([b.group for b in batches]),
        offsets=offsets_from_sizes(sizes),
        item=np.concatenate([b.item for b in batches]),
        gold=np.concatenate([b.gold for b in batches]),
        pred=np.concatenate([b.pred for b in batches]),
        extra={k: np.concatenate([b.extra[k] for b in batches]) for k in first.extra},
        line=lines,
        source=first.source,
    )


def rebatch(batches: Iterable[Batch], max_rows: int = BATCH_ROWS) -> Iterator[Batch]:
    """Merge small batches into ones of about ``max_rows`` rows (groups stay whole)."""
    pending: list[Batch] = []
    rows = 0
    for batch in batches:
        if batch.n_groups == 0:
            continue
        pending.append(batch)
        rows += batch.n_rows
        if rows >= max_rows:
            yield concat(pending)
            pending, rows = [], 0
    if pending:
        yield concat(pending)


#: Groups of at most this many rows are sorted in buckets of equal size (see
#: :func:`sort_within_groups`); longer ones by one lexsort over their rows.
SORT_BUCKET_MAX = 64


def sort_within_groups(offsets: np.ndarray, *keys: np.ndarray) -> np.ndarray:
    """Row order sorting each group by ``keys`` (last key most significant), stably.

    The same permutation as one ``np.lexsort`` over the whole batch with the group
    number as the most significant key, computed faster:
    a batch of many short groups is mostly groups of a few sizes, so the groups of each
    size k ≤ :data:`SORT_BUCKET_MAX` are gathered into an (n_groups × k) matrix and sorted
    along its rows (stably: the same order as the global stable sort, since groups keep
    their place). Longer groups share one lexsort over their rows. Keys must not hold
    NaN (the callers replace or drop them first).
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    sizes = np.diff(offsets)
    order = np.arange(offsets[-1], dtype=np.int64)
    if len(sizes) == 0:
        return order
    for k, first, span in size_buckets(offsets, sizes, 2, SORT_BUCKET_MAX):
        mats = [bucket_matrix(key, span, k) for key in keys]
        local = np.argsort(mats[0], axis=1, kind="stable") if len(mats) == 1 else np.lexsort(mats, axis=1)
        bucket_put(order, span, first[:, None] + local)
    long = sizes > SORT_BUCKET_MAX
    if long.any():
        long_rows = np.flatnonzero(np.repeat(long, sizes))
        sub = np.lexsort((*(key[long_rows] for key in keys), group_index(offsets)[long_rows]))
        order[long_rows] = long_rows[sub]
    return order


def size_buckets(offsets: np.ndarray, sizes: np.ndarray, smallest: int, largest: int):
    """Yield ``(k, first, span)`` per group size k in [smallest, largest] that occurs:
    the first row of each such group and the rows of their (n × k) matrix, a slice
    when the groups are consecutive (every group of the batch has k rows, say), else
    an (n × k) index array."""
    counts = np.bincount(sizes[(sizes >= smallest) & (sizes <= largest)], minlength=smallest)
    for k in (np.flatnonzero(counts[smallest:]) + smallest).tolist():
        first = offsets[:-1][sizes == k]
        if first[-1] - first[0] == k * (len(first) - 1):
            yield k, first, slice(first[0], first[0] + k * len(first))
        else:
            yield k, first, first[:, None] + np.arange(k)[None, :]


def bucket_matrix(values: np.ndarray, span, k: int) -> np.ndarray:
    """The (n × k) matrix of ``values`` over the rows of a bucket (a view for a slice)."""
    return values[span].reshape(-1, k) if isinstance(span, slice) else values[span]


def bucket_put(out: np.ndarray, span, values: np.ndarray) -> None:
    """Write a bucket's (n × k) matrix of ``values`` to its rows of ``out``."""
    out[span] = values.ravel() if isinstance(span, slice) else values


def tie_block_starts(sorted_values: np.ndarray, sorted_groups: np.ndarray) -> np.ndarray:
    """Boolean per sorted row: true where a new block of equal values begins.

    A block never spans two groups. NaN values each form a block of their own.
    """
    starts = np.ones(len(sorted_values), dtype=bool)
    if len(sorted_values) > 1:
        same_value = sorted_values[1:] == sorted_values[:-1]
        same_group = sorted_groups[1:] == sorted_groups[:-1]
        starts[1:] = ~(same_value & same_group)
    return starts
