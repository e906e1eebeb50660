"""System rankings from direct assessments (DA, ESA, MQM) as WMT17-24 made them.

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
2. **Segment means**: the judgments of system s on segment g (several judges,
   repeats) are averaged first: r̄_sg = mean x_k, z̄_sg = mean z_k over k with
   s(k) = s, g(k) = g.
3. **System means** over the S_s segments of s: raw_s = (1/S_s) Σ_g r̄_sg and
   z_s = (1/S_s) Σ_g z̄_sg ("Ave." and "Ave. z" of the WMT findings).
4. **Order**: by z_s (WMT17-22) or raw_s (``rank-by raw``: WMT23-24), higher
   first, equal values by system id.
5. **Significance**: for each pair i above j, the one-sided Wilcoxon rank-sum
   test (:mod:`.ranksum`) of i's segment means against j's, H₁: i's are larger;
   all segments of each (WMT20's and WMT22's official p-values, Graham et al.'s
   scripts), or only the segments both were scored on (``shared``: Appraise's
   ``ComputeWMT21Results`` and ``ComputeWMT23Results``). p < α (0.05) is a win of i
   over j and a loss of j; a system is never tested as better than one above it.
6. **Rank range** (Appraise): best = losses + 1, worst = K − wins.
   **Clusters** (Appraise; the lines of the WMT findings tables): walking down
   the order, a cluster ends after position i when every system at positions
   1..i has at least K − i wins (as many as there are systems below i).

Intervals (``bootstrap`` > 0): the segments of the partition are resampled with
replacement (each replicate draws its own counts, :func:`~rankeval_cli.executor.unit_seed`
of the seed and the replicate) and each system's mean of the ranked score is
recomputed from its segment means (z-scores stay those of the full data); the
percentile interval of the replicates. WMT published no intervals: this is an
addition, reported beside the WMT columns.

These are the ``wmt20-23`` protocol. ``protocol="wmt24"`` (:mod:`.wmt24`) keeps
steps 1-2 after replacing a judge's earlier scores of an item by the last one, and
averages per domain, tests pairs by per-domain signed-rank tests combined with
Stouffer's method, and draws WMT24's clusters; its intervals resample the segments
within each domain.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, NamedTuple

import numpy as np

from ..errors import DataError
from ..partition import Partitioner

RANK_BY = ("z", "raw")
#: wmt20-23: this module's steps; wmt24: :mod:`.wmt24`
PROTOCOLS = ("wmt20-23", "wmt24")
DEFAULT_ALPHA = 0.05
#: bootstrap replicates per work unit
REPLICATES_PER_UNIT = 250


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


# --- collecting the judgments of a stream --------------------------------------------------------

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


# --- ranking one partition -----------------------------------------------------------------------

def system_means(cells: Cells) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """(raw_s, z_s, S_s) per system code (module doc, step 3)."""
    k = len(cells.systems)
    segments = np.bincount(cells.system, minlength=k).astype(np.float64)
    raw = np.bincount(cells.system, weights=cells.raw, minlength=k) / segments
    z = None if cells.z is None else np.bincount(cells.system, weights=cells.z, minlength=k) / segments
    return raw, z, segments


def rank_cells(cells: Cells, key: tuple = (), rank_by: str = "z", shared_segments: bool = False,
               alpha: float = DEFAULT_ALPHA, test_method: str = "auto") -> ZRanking:
    """Steps 3-6 of the module doc on one partition's cells."""
    from .ranksum import ranksum_greater

    if rank_by not in RANK_BY:
        raise ValueError(f"rank_by must be one of {', '.join(RANK_BY)}, not {rank_by!r}")
    if rank_by == "z" and cells.z is None:
        raise DataError("no z-scores to rank by: the input has neither a judge column (to standardize "
                        "per judge) nor a z column; rank by the raw means (--rank-by raw)")
    raw, z, segments = system_means(cells)
    value = z if rank_by == "z" else raw
    names = np.array(cells.systems, dtype=object)
    order = np.lexsort((_id_order(names), -value))
    scores = cells.z if rank_by == "z" else cells.raw
    samples = [_samples(cells, scores, s) for s in order.tolist()]
    k = len(order)
    p = np.full((k, k), np.nan)
    for i in range(k):
        for j in range(i + 1, k):
            x, y = _paired(samples[i], samples[j]) if shared_segments else (samples[i][1], samples[j][1])
            p[i, j] = ranksum_greater(x, y, test_method)[1]
    won = p < alpha
    wins, losses = won.sum(axis=1), won.sum(axis=0)
    judgments = np.bincount(cells.system, weights=cells.judgments, minlength=k)
    return ZRanking(key=key, rank_by=rank_by, systems=names[order].tolist(), value=value[order],
                    raw=raw[order], z=None if z is None else z[order], segments=segments[order].astype(np.int64),
                    judgments=judgments[order], wins=wins, losses=losses, lo=losses + 1, hi=k - wins,
                    cluster=wmt_clusters(wins), p=p, z_source=cells.z_source)


def _id_order(names: np.ndarray) -> np.ndarray:
    """Rank of each id in sorted order (ties of the score broken by system id)."""
    order = np.argsort(names.astype(str), kind="stable")
    rank = np.empty(len(names), dtype=np.int64)
    rank[order] = np.arange(len(names))
    return rank


def _samples(cells: Cells, scores: np.ndarray, system: int) -> tuple[np.ndarray, np.ndarray]:
    """(segment codes, segment means) of one system."""
    mine = cells.system == system
    return cells.segment[mine], scores[mine]


def _paired(a: tuple, b: tuple) -> tuple[np.ndarray, np.ndarray]:
    """The segment means of a and b on the segments both were judged on."""
    shared = np.intersect1d(a[0], b[0])
    return a[1][np.isin(a[0], shared)], b[1][np.isin(b[0], shared)]


def wmt_clusters(wins: np.ndarray) -> np.ndarray:
    """Cluster numbers (1, 2, ...) down the order: a cluster ends after position i (1-based)
    when the fewest wins among positions 1..i reaches K − i (Appraise's rule).

    >>> wmt_clusters(np.array([4, 2, 2, 1, 0])).tolist()  # 1 beats all; 2, 3 beat two; 4 beats one
    [1, 2, 2, 3, 4]
    """
    k = len(wins)
    fewest = np.minimum.accumulate(np.asarray(wins)) if k else np.zeros(0, dtype=np.int64)
    boundary = fewest >= k - 1 - np.arange(k)  # after position i (0-based): K - 1 - i systems remain
    return 1 + np.concatenate([[0], np.cumsum(boundary[:-1])]).astype(np.int64) if k else np.zeros(0, np.int64)


# --- intervals -------------------------------------------------------------------------------

class Resampled(NamedTuple):
    """What the bootstrap units of one partition share: the cells (systems in the ranking's order)
    and, for the wmt24 protocol, their domains and the segments of each domain (the strata)."""

    cell_system: np.ndarray
    cell_segment: np.ndarray
    scores: np.ndarray
    n_segments: int
    k: int
    seed: int
    cell_domain: np.ndarray | None = None
    strata: tuple = ()  # segment codes of each domain, in domain code order


def bootstrap_unit(shared: dict, unit: tuple) -> np.ndarray:
    """Work unit: replicates ``start..stop`` of partition ``part``; rows = replicates, columns = systems
    (in the ranking's order), each replicate from its own ``unit_seed(seed, (part, r))``: the mean of
    the resampled segments, or with strata the mean over domains of the means of each domain's
    segments resampled within it (the wmt24 protocol)."""
    from ..executor import unit_seed

    part, start, stop = unit
    data = shared[part]
    out = np.empty((stop - start, data.k))
    for row, r in enumerate(range(start, stop)):
        rng = np.random.default_rng(unit_seed(data.seed, (part, r)))
        if data.strata:
            counts = np.zeros(data.n_segments)
            for segments in data.strata:
                counts += np.bincount(segments[rng.integers(0, len(segments), len(segments))],
                                      minlength=data.n_segments)
        else:
            counts = np.bincount(rng.integers(0, data.n_segments, data.n_segments),
                                 minlength=data.n_segments).astype(np.float64)
        weight = counts[data.cell_segment]
        out[row] = _resampled_means(data, weight)
    return out


def _resampled_means(data: Resampled, weight: np.ndarray) -> np.ndarray:
    """Each system's mean of the resampled cells (macro over domains with strata); NaN when none drawn."""
    if data.strata:
        n_domains = len(data.strata)
        index = data.cell_system * n_domains + data.cell_domain
        size = data.k * n_domains
    else:
        n_domains, index, size = 1, data.cell_system, data.k
    total = np.bincount(index, weights=weight * data.scores, minlength=size)
    drawn = np.bincount(index, weights=weight, minlength=size)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(drawn > 0, total / np.where(drawn > 0, drawn, 1), np.nan)
    if not data.strata:
        return means
    means = means.reshape(data.k, n_domains)
    present = ~np.isnan(means)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(present, means, 0.0).sum(axis=1) / present.sum(axis=1)


def add_intervals(rankings: list, cells: list, replicates: int, seed: int, level: float) -> None:
    """ci_low/ci_high of each ranking's value by the segment bootstrap (module doc)."""
    from ..executor import map_units
    from ..stats.resample import percentile_interval

    shared, units = {}, []
    for part, (ranking, cell) in enumerate(zip(rankings, cells)):
        position = {s: i for i, s in enumerate(ranking.systems)}
        cell_system = np.array([position[cell.systems[c]] for c in cell.system.tolist()], dtype=np.int64)
        scores = cell.z if ranking.rank_by == "z" else cell.raw
        strata = ()
        if cell.domain is not None:
            segment_domain = np.full(cell.n_segments, -1, dtype=np.int64)
            segment_domain[cell.segment] = cell.domain
            strata = tuple(np.flatnonzero(segment_domain == d) for d in range(len(cell.domains)))
        shared[part] = Resampled(cell_system, cell.segment, scores, cell.n_segments, len(ranking.systems), seed,
                                 cell.domain, strata)
        units += [(part, start, min(start + REPLICATES_PER_UNIT, replicates))
                  for start in range(0, replicates, REPLICATES_PER_UNIT)]
    results = map_units(bootstrap_unit, units, shared=shared, label="bootstrap",
                        sizes=[stop - start for _, start, stop in units])
    for part, ranking in enumerate(rankings):
        values = np.vstack([r for u, r in zip(units, results) if u[0] == part])
        bounds = [percentile_interval(values[:, i], level) for i in range(values.shape[1])]
        ranking.ci_low = np.array([b[0] for b in bounds])
        ranking.ci_high = np.array([b[1] for b in bounds])
        ranking.replicates = replicates


# --- the whole stream --------------------------------------------------------------------------

def rank_stream(batches: Iterable, *, by: Iterable[str] = (), higher_better: bool = False, rank_by: str | None = None,
                shared_segments: bool = False, alpha: float = DEFAULT_ALPHA, bootstrap: int = 0,
                seed: int = 0, level: float = 0.95, protocol: str = "wmt20-23", domain_column: str = "domain",
                test_method: str | None = None) -> list[ZRanking]:
    """One :class:`ZRanking` per ``by`` key (module doc; ``protocol="wmt24"``: :mod:`.wmt24`).
    ``rank_by`` defaults to z (wmt20-23) or raw (wmt24); ``test_method`` is the rank-sum
    method (:mod:`.ranksum`) or, for wmt24, the signed-rank rule (:mod:`.signed_rank`).

    >>> import numpy as np
    >>> from rankeval_cli.batch import Batch, offsets_from_sizes
    >>> scores = [80., 60., 70., 50.]  # judge J: A gets 80 and 70, B 60 and 50
    >>> b = Batch(group=np.array(["s1", "s2"], object), offsets=offsets_from_sizes(np.array([2, 2])),
    ...           item=np.array(["A", "B", "A", "B"], object), gold=-np.array(scores), pred=np.full(4, np.nan),
    ...           extra={"judge": np.array(["J"] * 4, object)})
    >>> r = rank_stream([b])[0]
    >>> r.systems, r.raw.tolist(), [round(v, 6) for v in r.z.tolist()]
    (['A', 'B'], [75.0, 55.0], [0.774597, -0.774597])
    """
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol must be one of {', '.join(PROTOCOLS)}, not {protocol!r}")
    wmt24 = protocol == "wmt24"
    if wmt24 and shared_segments:
        raise ValueError("the wmt24 protocol always tests on the shared segments (paired tests)")
    rank_by = rank_by or ("raw" if wmt24 else "z")
    rankings, all_cells = [], []
    collectors = collect(batches, by, higher_better, domain_column if wmt24 else None, last_score=wmt24)
    for key, collector in collectors.items():
        cells = collector.cells()
        if wmt24:
            from .wmt24 import DEFAULT_TEST_METHOD, rank_cells_wmt24

            ranking = rank_cells_wmt24(cells, key, rank_by, alpha, test_method or DEFAULT_TEST_METHOD)
        else:
            ranking = rank_cells(cells, key, rank_by, shared_segments, alpha, test_method or "auto")
        ranking.blank_rows, ranking.languages = collector.blank_rows, collector.languages
        rankings.append(ranking)
        all_cells.append(cells)
    if bootstrap > 0 and rankings:
        add_intervals(rankings, all_cells, bootstrap, seed, level)
    return rankings


# --- output ----------------------------------------------------------------------------------

def records(rankings: list, by: Iterable[str], sig: str):
    """Output rows: ``[BY...] system value raw z groups judgments wins losses rank rank_ci_low
    rank_ci_high cluster [ci_low ci_high] signature``, best first (``groups``: the segments whose
    z-scores the value averages)."""
    by = tuple(by)
    for ranking in rankings:
        head = dict(zip(by, ranking.key))
        for i, system in enumerate(ranking.systems):
            row = {**head, "system": system, "value": float(ranking.value[i]), "raw": float(ranking.raw[i]),
                   "z": None if ranking.z is None else float(ranking.z[i]),
                   "groups": int(ranking.segments[i]), "judgments": _whole(ranking.judgments[i]),
                   "wins": int(ranking.wins[i]), "losses": int(ranking.losses[i]), "rank": i + 1,
                   "rank_ci_low": int(ranking.lo[i]), "rank_ci_high": int(ranking.hi[i]),
                   "cluster": int(ranking.cluster[i])}
            if ranking.ci_low is not None:
                row.update(ci_low=float(ranking.ci_low[i]), ci_high=float(ranking.ci_high[i]))
            row["signature"] = sig
            yield row


def _whole(value: float):
    return int(value) if float(value).is_integer() else float(value)


def report(rankings: list, by: Iterable[str], warn) -> None:
    """Blank values and several language pairs in one ranking go to stderr."""
    by = tuple(by)
    for ranking in rankings:
        where = ", ".join(f"{b}={k}" for b, k in zip(by, ranking.key))
        where = f" ({where})" if where else ""
        if ranking.blank_rows:
            warn(f"gold{where}: {ranking.blank_rows} blank values not ranked")
        if len(ranking.languages) > 1:
            warn(f"one ranking{where} mixes {len(ranking.languages)} language pairs "
                 f"({', '.join(sorted(ranking.languages)[:4])}...); WMT ranks each apart: --by lp")


def signature_fields(rankings: list, rank_by: str, shared_segments: bool, alpha: float,
                     resampling=None, protocol: str = "wmt20-23", domain_column: str = "domain") -> dict:
    """The settings recorded in the signature (the wmt20-23 protocol's fields name no protocol)."""
    sources = sorted({r.z_source for r in rankings}) or ["none"]
    if protocol == "wmt24":
        from .wmt24 import DEFAULT_TEST_METHOD

        fields = {"method": "z-score", "protocol": "wmt24", "z": "+".join(sources), "rank-by": rank_by,
                  "test": f"signed-rank-{DEFAULT_TEST_METHOD}+stouffer", "segments": "shared",
                  "domains": domain_column, "alpha": repr(float(alpha))}
    else:
        fields = {"method": "z-score", "z": "+".join(sources), "rank-by": rank_by, "test": "ranksum",
                  "segments": "shared" if shared_segments else "all", "alpha": repr(float(alpha))}
    if resampling is not None:
        fields.update(resampling.signature())
    return fields
