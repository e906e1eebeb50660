"""System rankings from direct assessments (DA, ESA, MQM) as WMT17-24 made them.

Steps 1-2 are :mod:`.judgments`' (shared with the wmt24 protocol): judgment k gives system
s(k) on segment g(k) the score x_k, higher = better, standardized per judge (z_k), and
the judgments of system s on segment g are averaged into its segment means r̄_sg and z̄_sg.

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

from typing import Iterable, NamedTuple

import numpy as np

from ..vocabulary import RANK_BY, Z_PROTOCOLS  # protocols: wmt20-23, this module's steps; wmt24, .wmt24
from .judgments import Cells, ZRanking, checked_scores, collect, id_order
from .wmt24 import DEFAULT_TEST_METHOD, rank_cells_wmt24

DEFAULT_ALPHA = 0.05
#: bootstrap replicates per work unit
REPLICATES_PER_UNIT = 250


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
    scores = checked_scores(cells, rank_by)
    raw, z, segments = system_means(cells)
    value = z if rank_by == "z" else raw
    names = np.array(cells.systems, dtype=object)
    order = np.lexsort((id_order(names), -value))
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
    results = map_units(bootstrap_unit, units, shared=shared, label="bootstrap")
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
    if protocol not in Z_PROTOCOLS:
        raise ValueError(f"protocol must be one of {', '.join(Z_PROTOCOLS)}, not {protocol!r}")
    wmt24 = protocol == "wmt24"
    if wmt24 and shared_segments:
        raise ValueError("the wmt24 protocol always tests on the shared segments (paired tests)")
    rank_by = rank_by or ("raw" if wmt24 else "z")
    rankings, all_cells = [], []
    collectors = collect(batches, by, higher_better, domain_column if wmt24 else None, last_score=wmt24)
    for key, collector in collectors.items():
        cells = collector.cells()
        if wmt24:
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
        fields = {"method": "z-score", "protocol": "wmt24", "z": "+".join(sources), "rank-by": rank_by,
                  "test": f"signed-rank-{DEFAULT_TEST_METHOD}+stouffer", "segments": "shared",
                  "domains": domain_column, "alpha": repr(float(alpha))}
    else:
        fields = {"method": "z-score", "z": "+".join(sources), "rank-by": rank_by, "test": "ranksum",
                  "segments": "shared" if shared_segments else "all", "alpha": repr(float(alpha))}
    if resampling is not None:
        fields.update(resampling.signature())
    return fields
