"""The mean over groups of a measure with one value per group (RR, NDCG@k, ERR@k, rankDCG):
what ``mrr``, ``ndcg``, ``err`` and ``rankdcg`` compute, and ``report`` row by row.

Each batch is put in rank order (:func:`oriented`), prepared under the tie policy
(:func:`~rankeval_cli.measures.ties.prepare_batch`) and scored by the measure's kernel; the mean is over the groups
where the value is defined (Avramidis 2013 §3), one per ``--by`` key, each group's value kept
when a bootstrap interval of the mean is asked for (:mod:`.intervals`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..measures.ties import MeanSummary, Scores, prepare_batch
from ..partition import keyed
from ..settings import Positions
from .intervals import mean_interval, with_interval


@dataclass(frozen=True)
class GroupMeasure:
    """A measure of one value per group: ``kernel(prepared, **options)`` gives a batch's values
    (NaN where undefined); ``name`` heads its column and its summary."""

    name: str
    kernel: Callable
    options: dict = field(default_factory=dict)


def oriented(batches, higher_better: bool, relevance: str):
    """Score columns in rank order (negated) when the values are scores (``higher_better``);
    grades stay grades."""
    for batch in batches:
        if higher_better:
            gold = batch.gold if relevance == "grades" else -batch.gold
            batch = batch.with_values(gold=gold, pred=-batch.pred)
        yield batch


def group_records(batch, prep, columns: dict) -> list[dict]:
    """Per-group rows: group, items (ranked), skipped (rows without gold or dropped), then ``columns``."""
    n = prep.sizes
    skipped = batch.sizes - n
    names = list(columns)
    values = [columns[c].tolist() for c in names]
    return [dict(group=g, items=int(n[i]), skipped=int(skipped[i]), **{c: v[i] for c, v in zip(names, values)})
            for i, g in enumerate(batch.group.tolist())]


class GroupMeans:
    """Per partition key, the :class:`~rankeval_cli.measures.ties.MeanSummary` of a measure and (``keep``)
    every group's value."""

    def __init__(self, measure: GroupMeasure, positions: Positions, keep: bool = False):
        self.measure, self.positions, self.keep = measure, positions, keep
        self.summaries: dict = {}  # key -> MeanSummary
        self.kept: dict = {}  # key -> [values of each batch]

    def add(self, key, batch, rows: bool = False) -> list[dict] | None:
        """Score one batch (of one key); with ``rows`` return its per-group rows (a dict per group
        costs more than the measure, so they are built only when written)."""
        summary = self.summaries.get(key) or self.summaries.setdefault(key, MeanSummary(self.measure.name))
        prep = prepare_batch(batch, **self.positions.preparation())
        values = self.measure.kernel(prep, **self.measure.options)
        summary.add(Scores(batch, values, prep))
        if self.keep:
            self.kept.setdefault(key, []).append(values)
        return group_records(batch, prep, {self.measure.name: values}) if rows else None

    def empty(self, key=()) -> None:
        """A summary of no groups for ``key`` (an empty input still gets its summary row)."""
        self.summaries.setdefault(key, MeanSummary(self.measure.name))

    def kept_values(self, key) -> np.ndarray:
        """Every group's value of ``key``, in input order."""
        parts = self.kept.get(key, [])
        return np.concatenate(parts) if parts else np.zeros(0)

    def records(self, by, signature: str, resampling=None) -> list[dict]:
        """The summary of every key (its ``by`` columns first), with the bootstrap interval of the
        mean (ci_low, ci_high after value) under ``resampling``, and the ``signature``."""
        records = []
        for key, summary in self.summaries.items():
            record = summary.as_dict()
            if resampling:
                record = with_interval(record, "value", mean_interval(self.kept_values(key), resampling))
            record["signature"] = signature
            records.append(keyed(record, by, key))
        return records

    @property
    def blanks(self) -> int:
        return sum(s.blanks for s in self.summaries.values())

    @property
    def missing_pred(self) -> int:
        return sum(s.missing_pred for s in self.summaries.values())
