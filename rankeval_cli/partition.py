"""Splitting a stream into partitions by the values of extra columns (``--by lp``).

Every command that takes ``--by`` keeps one accumulator per partition key; the key
is the tuple of the ``by`` columns' values, which must be constant within a group.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from .batch import Batch
from .errors import DataError


class Partitioner:
    """Splits batches into sub-batches per value of the ``by`` columns."""

    def __init__(self, by: Iterable[str] = ()):
        self.by = tuple(by)

    def split(self, batch: Batch):
        """Yield ``(key, sub_batch)`` for each distinct key in the batch (first-seen order)."""
        if not self.by:
            yield (), batch
            return
        codes, group_code = self.codes(batch)
        for key, code in codes.items():
            yield key, batch.select_groups(group_code == code)

    def codes(self, batch: Batch) -> tuple[dict, np.ndarray]:
        """``({key: code}, code of each group)``, keys in first-seen order; checks constancy."""
        columns = []
        for name in self.by:
            if name not in batch.extra:
                raise DataError(f"no column {name!r} to group by (columns: "
                                f"{', '.join(['group', 'item', 'gold', 'pred', *batch.extra]) })", batch.source)
            values = batch.extra[name]
            first = np.repeat(values[batch.offsets[:-1]], batch.sizes)
            bad = np.flatnonzero(values != first)
            if len(bad):
                source, line = batch.row_location(int(bad[0]))
                raise DataError(f"column {name!r} changes within group {batch.group[batch.group_index[bad[0]]]!r}",
                                source, line)
            columns.append(values[batch.offsets[:-1]])
        keys = list(zip(*[c.tolist() for c in columns]))
        codes: dict = {}
        group_code = np.fromiter((codes.setdefault(k, len(codes)) for k in keys), dtype=np.int64, count=len(keys))
        return codes, group_code


def split_aligned(partitioner: Partitioner, batches: list):
    """``(key, [sub_batch, ...])`` for aligned batches (the same groups in each), keyed by the first."""
    if not partitioner.by:
        yield (), batches
        return
    codes, group_code = partitioner.codes(batches[0])
    for key, code in codes.items():
        keep = group_code == code
        yield key, [batch.select_groups(keep) for batch in batches]


def partitioned(batches: Iterable[Batch], by: Iterable[str] = ()):
    """``(key, sub_batch)`` pairs of a stream; the key is ``()`` without ``by``."""
    partitioner = Partitioner(by)
    for batch in batches:
        yield from partitioner.split(batch)


def keyed(record: dict, by: Iterable[str], key: tuple) -> dict:
    """``record`` with the ``by`` columns' values first."""
    return {**dict(zip(by, key)), **record}
