"""Win/loss/tie counts between items, accumulated over a stream of groups.

Within a group, two items are compared when both have a value in the chosen column
(``gold`` or ``pred``); a blank (NaN, WMT's ``-1``) takes part in no comparison and in
no list position. With ranks (lower = better, the default) item *i* **wins** against
*j* when ``value_i < value_j``; equal values are a **tie**. ``higher_better`` flips the
direction for scores.

Everything every aggregation method needs is a function of
:class:`PairStats`: the K × K matrices ``wins`` (``wins[i, j]`` = comparisons *i* won
against *j*) and ``ties`` (symmetric), and per item the number of groups where it is
ranked and the summed lengths of those groups (Borda's partial-list rule needs them).
The accumulator holds only these (O(K²) memory for K items, whatever the number of
groups). Items get matrix indices from a growing dict in order of appearance;
:meth:`PairCounter.stats` reorders them by item id so that every later tie-break
"by item id" is "by index".

For the bootstrap, ``keep_groups=True`` also keeps each group's own contribution as
compact int32 entries: (group, winner, loser) per decided pair, (group, a, b) per
tie, (group, item) per ranked item and the group's length: 12 bytes per compared
pair + 8 per ranked item + 4 per group, about 165 bytes for a 5-item WMT ranking
(165 MB per million rankings). Building the bootstrap's sparse matrix from them
needs about 850 MB more per million such rankings, briefly (see :mod:`.bootstrap`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..batch import Batch, offsets_from_sizes
from ..errors import DataError

#: Largest number of distinct items: two int64/float64 K × K matrices are kept.
MAX_ITEMS = 5000
#: Pair comparisons materialized at once per size bucket.
_CHUNK_PAIRS = 1 << 21


@dataclass
class PairStats:
    """Sufficient statistics of all aggregation methods.

    Arrays may carry leading axes (bootstrap replicates); ``items`` index the last
    axes. ``wins[..., i, j]``: comparisons where *i* ranked strictly better than *j*;
    ``ties[..., i, j] == ties[..., j, i]``: comparisons where they were equal;
    ``present[..., i]``: groups where *i* is ranked; ``present_len[..., i]``: the sum
    of those groups' lengths (ranked items only); ``n_groups``: groups with at least
    one ranked item; ``total_len``: the sum of all their lengths.
    """

    items: list
    wins: np.ndarray
    ties: np.ndarray
    present: np.ndarray
    present_len: np.ndarray
    n_groups: np.ndarray
    total_len: np.ndarray

    @property
    def n_items(self) -> int:
        return len(self.items)


class GroupStore:
    """Per-group contributions kept for the bootstrap (indices in appearance order), one column
    each, added batch by batch as int32 pieces: the wins (group, winner, loser), the ties
    (group, a, b), each item's presence in a group (group, item) and each group's length."""

    COLUMNS = ("win_group", "win_a", "win_b", "tie_group", "tie_a", "tie_b", "pres_group", "pres_item", "group_len")

    def __init__(self):
        self.parts: dict[str, list] = {name: [] for name in self.COLUMNS}

    def add(self, **columns: np.ndarray) -> None:
        for name, values in columns.items():
            self.parts[name].append(values.astype(np.int32))

    def arrays(self, name: str, dtype) -> np.ndarray:
        parts = self.parts[name]
        return np.concatenate(parts).astype(dtype, copy=False) if parts else np.zeros(0, dtype)


class PairCounter:
    """Accumulates :class:`PairStats` over batches of groups.

    >>> import numpy as np
    >>> from rankeval_cli.batch import Batch
    >>> b = Batch(group=np.array(["s1"], object), offsets=np.array([0, 3]),
    ...           item=np.array(["A", "B", "C"], object), gold=np.array([1., 2., 2.]),
    ...           pred=np.full(3, np.nan))
    >>> c = PairCounter("gold"); c.add(b); s = c.stats()
    >>> s.wins.tolist(), s.ties.tolist()
    ([[0, 1, 1], [0, 0, 0], [0, 0, 0]], [[0, 0, 0], [0, 0, 1], [0, 1, 0]])
    """

    def __init__(self, column: str = "gold", higher_better: bool = False, keep_groups: bool = False):
        if column not in ("gold", "pred"):
            raise ValueError(f"column must be 'gold' or 'pred', not {column!r}")
        self.column = column
        self.higher_better = higher_better
        self.index: dict = {}
        self._wins = np.zeros((0, 0), np.int64)
        self._ties = np.zeros((0, 0), np.int64)
        self._present = np.zeros(0, np.int64)
        self._present_len = np.zeros(0, np.int64)
        self.n_groups = 0  # groups with at least one ranked item
        self.total_len = 0
        self.blank_rows = 0  # rows without a value in the column
        self.empty_groups = 0  # groups where no item is ranked
        self.store = GroupStore() if keep_groups else None

    # -- accumulation -------------------------------------------------------
    def add(self, batch: Batch) -> None:
        """Add every group of ``batch``."""
        values = batch.gold if self.column == "gold" else batch.pred
        ranked = ~np.isnan(values)
        self.blank_rows += int(np.count_nonzero(~ranked))
        sizes = np.add.reduceat(ranked.astype(np.int64), batch.offsets[:-1]) if batch.n_rows else \
            np.zeros(batch.n_groups, np.int64)
        self.empty_groups += int(np.count_nonzero(sizes == 0))
        sizes = sizes[sizes > 0]
        if len(sizes) == 0:
            return
        idx = self._indices(batch.item[ranked], batch, ranked)
        key = values[ranked]
        key = -key if self.higher_better else key
        offsets = offsets_from_sizes(sizes)
        first_group = self.n_groups
        self._add_presence(idx, sizes, first_group)
        for n in np.unique(sizes[sizes >= 2]).tolist():
            self._add_bucket(idx, key, offsets, sizes, n, first_group)

    def _indices(self, items: np.ndarray, batch: Batch, ranked: np.ndarray) -> np.ndarray:
        """Matrix index of every ranked row; new item ids extend the dict and matrices.

        Item ids are looked up in the dict row by row (hashing, in C via ``map``): a few
        times faster than ``np.unique`` over the object array, a sort of Python strings.
        Ids new in this batch are numbered in sorted order, as that sort numbered them.
        """
        ids = (items if items.dtype == object else items.astype(str)).tolist()
        index = self.index
        for item in sorted(set(ids).difference(index)):
            if len(index) >= MAX_ITEMS:
                rows = np.flatnonzero(ranked)
                source, line = batch.row_location(int(rows[ids.index(item)]))
                raise DataError(
                    f"more than {MAX_ITEMS} distinct items: aggregation keeps an items × items "
                    "count matrix and is meant for system ids, not documents", source, line)
            index[item] = len(index)
        self._grow(len(index))
        return np.fromiter(map(index.__getitem__, ids), dtype=np.int64, count=len(ids))

    def _grow(self, k: int) -> None:
        capacity = len(self._present)
        if k <= capacity:
            return
        new = max(k, 2 * capacity, 8)
        for name in ("_wins", "_ties"):
            old = getattr(self, name)
            grown = np.zeros((new, new), np.int64)
            grown[:capacity, :capacity] = old
            setattr(self, name, grown)
        for name in ("_present", "_present_len"):
            old = getattr(self, name)
            grown = np.zeros(new, np.int64)
            grown[:capacity] = old
            setattr(self, name, grown)

    def _add_presence(self, idx: np.ndarray, sizes: np.ndarray, first_group: int) -> None:
        lengths = np.repeat(sizes, sizes)
        cap = len(self._present)
        self._present += np.bincount(idx, minlength=cap)
        self._present_len += np.bincount(idx, weights=lengths, minlength=cap).astype(np.int64)
        self.n_groups += len(sizes)
        self.total_len += int(sizes.sum())
        if self.store is not None:
            self.store.add(pres_group=first_group + np.repeat(np.arange(len(sizes)), sizes), pres_item=idx,
                           group_len=sizes)

    def _add_bucket(self, idx, key, offsets, sizes, n: int, first_group: int) -> None:
        """All pairs of all groups of ``n`` ranked items, by broadcasting (chunked)."""
        groups = np.flatnonzero(sizes == n)
        ia, ib = np.triu_indices(n, 1)
        per_chunk = max(1, _CHUNK_PAIRS // len(ia))
        cap = len(self._present)
        for start in range(0, len(groups), per_chunk):
            g = groups[start:start + per_chunk]
            rows = offsets[g][:, None] + np.arange(n)
            a, b = idx[rows[:, ia]], idx[rows[:, ib]]
            va, vb = key[rows[:, ia]], key[rows[:, ib]]
            if self.store is None and 3 * cap * cap <= 4 * a.size + (1 << 16):
                self._count_outcomes(a, b, va, vb, cap)
                continue
            a_wins, b_wins, tie = va < vb, vb < va, va == vb
            winner = np.concatenate([a[a_wins], b[b_wins]])
            loser = np.concatenate([b[a_wins], a[b_wins]])
            ta, tb = a[tie], b[tie]
            _scatter(self._wins, winner * cap + loser)
            _scatter(self._ties, ta * cap + tb)
            _scatter(self._ties, tb * cap + ta)
            if self.store is not None:
                gid = np.broadcast_to((first_group + g)[:, None], a.shape)
                self.store.add(win_group=np.concatenate([gid[a_wins], gid[b_wins]]), win_a=winner, win_b=loser,
                               tie_group=gid[tie], tie_a=ta, tie_b=tb)

    def _count_outcomes(self, a, b, va, vb, cap: int) -> None:
        """Add the wins and ties of the pairs (a, b) with values (va, vb) by one bincount
        over (a, b, outcome) codes, outcome 0 = a won, 1 = b won, 2 = tie: the same counts
        as selecting winners, losers and ties first, in fewer passes (used when the
        3·cap² bins are few next to the pairs; values are never NaN here)."""
        outcome = (vb < va).astype(np.int64) + 2 * (va == vb)
        codes = ((a * cap + b) * 3 + outcome).reshape(-1)
        counts = np.bincount(codes, minlength=3 * cap * cap).reshape(cap, cap, 3)
        self._wins += counts[:, :, 0] + counts[:, :, 1].T
        self._ties += counts[:, :, 2] + counts[:, :, 2].T

    # -- results ------------------------------------------------------------
    def order(self) -> np.ndarray:
        """Appearance indices sorted by item id (position k holds the k-th item id)."""
        ids = list(self.index)
        return np.array(sorted(range(len(ids)), key=ids.__getitem__), dtype=np.int64)

    def stats(self) -> PairStats:
        """The accumulated statistics, items sorted by id."""
        perm = self.order()
        ids = list(self.index)
        return PairStats(
            items=[ids[i] for i in perm.tolist()],
            wins=self._wins[np.ix_(perm, perm)].copy(),
            ties=self._ties[np.ix_(perm, perm)].copy(),
            present=self._present[perm].copy(),
            present_len=self._present_len[perm].copy(),
            n_groups=np.int64(self.n_groups),
            total_len=np.int64(self.total_len),
        )


def _scatter(matrix: np.ndarray, flat: np.ndarray) -> None:
    """Add 1 to ``matrix.flat[k]`` for every k in ``flat`` (repeats add up)."""
    size = matrix.size
    if size <= 4 * len(flat) + (1 << 16):
        matrix += np.bincount(flat, minlength=size).reshape(matrix.shape)
    else:
        np.add.at(matrix.reshape(-1), flat, 1)


def count_pairs(batches, column: str = "gold", higher_better: bool = False) -> PairStats:
    """:class:`PairStats` of an iterable of batches (convenience for the Python API)."""
    counter = PairCounter(column, higher_better)
    for batch in batches:
        counter.add(batch)
    return counter.stats()
