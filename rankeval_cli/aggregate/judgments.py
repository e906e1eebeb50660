"""The judgments of a direct-assessment stream (DA, ESA, MQM) as both WMT z-score protocols
collect them: standardized per judge and averaged per system and segment.

Notation: judgment k gives system s(k) on segment g(k) the score x_k, oriented so
that higher = better (x = gold with ``--higher-better``, else x = −gold: converted
DA, ESA and MQM streams hold gold = −score). Judge a(k) made it.

1. **Standardization** per judge (Graham, Baldwin, Moffat & Zobel 2017;
   Appraise's ``ComputeWMT21Results``): z_k = (x_k − m_a) / s_a with m_a the mean
   and s_a the sample standard deviation (divisor n_a − 1) of judge a's scores in
   the partition (``--by lp``: per language pair, as WMT). A judge with one score
   has divisor 1, and s_a = 0 is taken as 1 (both give z = 0), as Appraise does.
   Streams without a ``judge`` column but with a ``z`` column (WMT's segment-score
   files) use that column, in gold's orientation; streams with neither have no z.
   With ``last_score`` (the wmt24 protocol) a judge's last score of an item replaces
   the earlier ones first (:func:`last_scores`).
2. **Segment means**: the judgments of system s on segment g (several judges,
   repeats) are averaged first: r̄_sg = mean x_k, z̄_sg = mean z_k over k with
   s(k) = s, g(k) = g.

The :class:`Cells` of a partition are what the protocols rank (:mod:`.zscore`: wmt20-23,
:mod:`.wmt24`); a :class:`ZRanking` is what both give back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

import numpy as np

from ..errors import DataError
from ..partition import Partitioner


@dataclass
class Cells:
    """One partition's segment means: one cell per (system, segment) that was judged."""

    systems: list  # system ids, index = code
    system: np.ndarray  # system code of each cell
    segment: np.ndarray  # segment code of each cell (0..n_segments-1)
    n_segments: int
    raw: np.ndarray  # r̄_sg
    z: np.ndarray | None  # z̄_sg, None without z
    judgments: np.ndarray  # judgments per cell
    z_source: str  # "judge", "column" or "none"
    domain: np.ndarray | None = None  # domain code of each cell (the wmt24 protocol), else None
    domains: list = field(default_factory=list)  # domain ids, index = code


@dataclass
class ZRanking:
    """The WMT-style ranking of one partition: systems best first with their columns."""

    key: tuple
    rank_by: str
    systems: list
    value: np.ndarray
    raw: np.ndarray
    z: np.ndarray | None
    segments: np.ndarray
    judgments: np.ndarray
    wins: np.ndarray
    losses: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    cluster: np.ndarray
    p: np.ndarray  # p[i, j]: one-sided p of "i better than j" for i above j (NaN elsewhere);
    #                wmt24: the combined p of the tests of d_i - d_j, every i != j
    z_source: str
    blank_rows: int = 0
    ci_low: np.ndarray | None = None
    ci_high: np.ndarray | None = None
    replicates: int = 0
    languages: set = field(default_factory=set)


class _Codes:
    """Integer codes of ids in order of first appearance."""

    def __init__(self):
        self.index: dict = {}

    def encode(self, values: np.ndarray) -> np.ndarray:
        uniques, inverse = np.unique(values.astype(str), return_inverse=True)
        codes = np.fromiter((self.index.setdefault(u, len(self.index)) for u in uniques.tolist()),
                            dtype=np.int64, count=len(uniques))
        return codes[inverse.ravel()]

    @property
    def ids(self) -> list:
        return list(self.index)


class JudgmentCollector:
    """The judgments of one partition in compact arrays (codes and floats)."""

    def __init__(self, higher_better: bool, domain_column: str | None = None, last_score: bool = False):
        self.sign = 1.0 if higher_better else -1.0
        self.systems, self.segments, self.judges = _Codes(), _Codes(), _Codes()
        self.parts: list = []
        self.z_source: str | None = None
        self.blank_rows = 0
        self.languages: set = set()
        self.domain_column, self.last_score = domain_column, last_score
        self.domains = _Codes()
        self.segment_domain = np.zeros(0, dtype=np.int64)  # domain code of each segment code (-1: not yet)

    def add(self, batch) -> None:
        source = "judge" if "judge" in batch.extra else "column" if "z" in batch.extra else "none"
        if self.z_source is None:
            self.z_source = source
        elif source != self.z_source:
            raise DataError(f"the judge/z columns changed within the stream (now {source}, before "
                            f"{self.z_source})", *batch.row_location(0))
        keep = ~np.isnan(batch.gold)
        self.blank_rows += int((~keep).sum())
        if not keep.any():
            return
        if "lp" in batch.extra:
            self.languages.update(np.unique(batch.extra["lp"][keep].astype(str)).tolist())
        segment = batch.extra["segment"] if "segment" in batch.extra else np.repeat(batch.group, batch.sizes)
        rows = np.flatnonzero(keep)
        judge = z = None
        if source == "judge":
            judge = batch.extra["judge"][rows]
            empty = np.flatnonzero(judge == "")
            if len(empty):
                raise DataError("empty judge id", *batch.row_location(int(rows[empty[0]])))
            judge = self.judges.encode(judge)
        elif source == "column":
            z = self.sign * _column_numbers(batch, "z", rows)
        weight = _column_numbers(batch, "judgments", rows) if "judgments" in batch.extra else np.ones(len(rows))
        segments = self.segments.encode(segment[rows])
        domain = self._domains(batch, rows, segments) if self.domain_column is not None else None
        end_time = None
        if self.last_score and judge is not None and "end_time" in batch.extra:
            end_time = _column_numbers(batch, "end_time", rows)
        self.parts.append((self.systems.encode(batch.item[rows]), segments, judge, self.sign * batch.gold[rows],
                           z, weight, domain, end_time))

    def _domains(self, batch, rows: np.ndarray, segments: np.ndarray) -> np.ndarray:
        """Domain codes of the rows; each segment must stay in one domain."""
        column = self.domain_column
        if column not in batch.extra:
            raise DataError(f"no {column!r} column: the wmt24 protocol averages over domains (convert "
                            f"--from appraise --documents LP.docs adds one; else name it with --domain-column)",
                            *batch.row_location(int(rows[0])))
        values = batch.extra[column][rows]
        empty = np.flatnonzero(values == "")
        if len(empty):
            raise DataError(f"empty {column} (a document not in the convert --documents files?)",
                            *batch.row_location(int(rows[empty[0]])))
        domain = self.domains.encode(values)
        known = np.concatenate([self.segment_domain, np.full(len(self.segments.index) - len(self.segment_domain), -1)])
        before = known[segments]
        known[segments] = domain  # the last row of a segment in this batch: a conflict within it shows below
        bad = np.flatnonzero(((before >= 0) & (before != domain)) | (known[segments] != domain))
        if len(bad):
            row = int(bad[0])
            other = before[row] if before[row] >= 0 and before[row] != domain[row] else known[segments[row]]
            raise DataError(f"segment {self.segments.ids[segments[row]]!r} is in {column} "
                            f"{self.domains.ids[domain[row]]!r} here and {self.domains.ids[other]!r} elsewhere",
                            *batch.row_location(int(rows[row])))
        self.segment_domain = known
        return domain

    def cells(self) -> Cells:
        """Standardize (step 1) and average per system and segment (step 2)."""
        if not self.parts:  # every value blank
            none = np.zeros(0, dtype=np.int64)
            return Cells(systems=[], system=none, segment=none, n_segments=0, raw=np.zeros(0), z=np.zeros(0),
                         judgments=np.zeros(0), z_source=self.z_source or "none")
        system, segment, judge, value, z, weight, domain, end_time = (
            _concat([p[i] for p in self.parts]) for i in range(8))
        if self.last_score and judge is not None:
            keep = last_scores(judge, system, segment, end_time)
            system, segment, judge, value, weight = system[keep], segment[keep], judge[keep], value[keep], weight[keep]
            domain = None if domain is None else domain[keep]
        if self.z_source == "judge":
            z = standardize(value, judge)
        cell, first = _cells_of(system, segment, len(self.segments.index))
        counts = np.bincount(cell).astype(np.float64)
        raw = np.bincount(cell, weights=value) / counts
        zbar = None if z is None else np.bincount(cell, weights=z) / counts
        return Cells(systems=self.systems.ids, system=system[first], segment=segment[first],
                     n_segments=len(self.segments.index), raw=raw, z=zbar,
                     judgments=np.bincount(cell, weights=weight), z_source=self.z_source or "none",
                     domain=None if domain is None else domain[first], domains=self.domains.ids)


def _column_numbers(batch, column: str, rows: np.ndarray) -> np.ndarray:
    from ..formats.columns import parse_numbers

    values = parse_numbers(batch.extra[column][rows].tolist(), column, batch.source,
                           batch.line[rows] if batch.line is not None else np.zeros(len(rows), np.int64))
    bad = np.flatnonzero(~np.isfinite(values))
    if len(bad):
        raise DataError(f"column {column!r} is empty", *batch.row_location(int(rows[bad[0]])))
    return values


def _concat(parts: list):
    if not parts or parts[0] is None:
        return None
    return np.concatenate(parts)


def _cells_of(system: np.ndarray, segment: np.ndarray, n_segments: int):
    """(cell number of each judgment, first judgment of each cell); cells in order of first judgment."""
    key = system * max(n_segments, 1) + segment
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    order = np.argsort(first, kind="stable")
    rank[order] = np.arange(len(first))
    return rank[inverse.ravel()], first[order]


def last_scores(judge: np.ndarray, system: np.ndarray, segment: np.ndarray,
                end_time: np.ndarray | None) -> np.ndarray:
    """Mask of the judgments to keep when a judge's last score of an item replaces the earlier ones
    (WMT24): per (judge, system, segment) the latest end time, equal times (or no end times) by the
    later row of the stream.

    >>> last_scores(np.array([0, 0, 1]), np.array([0, 0, 0]), np.array([5, 5, 5]), np.array([2., 1., 1.])).tolist()
    [True, False, True]
    """
    index = np.arange(len(judge))
    time = index.astype(np.float64) if end_time is None else end_time
    order = np.lexsort((index, time, segment, system, judge))
    key = np.stack([judge[order], system[order], segment[order]])
    last = np.ones(len(order), dtype=bool)
    last[:-1] = (key[:, 1:] != key[:, :-1]).any(axis=0)
    keep = np.zeros(len(judge), dtype=bool)
    keep[order[last]] = True
    return keep


def standardize(values: np.ndarray, judge: np.ndarray) -> np.ndarray:
    """z_k = (x_k − m_a)/s_a per judge a (module doc, step 1), sums in judgment order."""
    n = np.bincount(judge).astype(np.float64)
    mean = np.bincount(judge, weights=values) / n
    deviation = values - mean[judge]
    variance = np.bincount(judge, weights=deviation * deviation) / np.maximum(n - 1, 1)
    sd = np.sqrt(variance)
    sd[sd == 0] = 1.0
    return deviation / sd[judge]


def collect(batches: Iterable, by: Iterable[str] = (), higher_better: bool = False,
            domain_column: str | None = None, last_score: bool = False) -> dict:
    """``{key: JudgmentCollector}`` over a stream (partitions in first-seen order)."""
    partitioner = Partitioner(by)
    collectors: dict = {}
    for batch in batches:
        for key, part in partitioner.split(batch):
            collector = collectors.get(key)
            if collector is None:
                collector = collectors[key] = JudgmentCollector(higher_better, domain_column, last_score)
            collector.add(part)
    return collectors


def checked_scores(cells: Cells, rank_by: str) -> np.ndarray:
    """The segment means to rank by: z̄_sg for ``z`` (an error when the input has no z), else r̄_sg."""
    if rank_by != "z":
        return cells.raw
    if cells.z is None:
        raise DataError("no z-scores to rank by: the input has neither a judge column (to standardize "
                        "per judge) nor a z column; rank by the raw means (--rank-by raw)")
    return cells.z


def id_order(names: np.ndarray) -> np.ndarray:
    """Rank of each id in sorted order (ties of the score broken by system id)."""
    order = np.argsort(names.astype(str), kind="stable")
    rank = np.empty(len(names), dtype=np.int64)
    rank[order] = np.arange(len(names))
    return rank
