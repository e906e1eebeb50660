"""The statistics of a study on the observed topics and on bootstrap replicates of them.

Topics are the sampling units (Efron & Tibshirani 1993, ch. 6): replicate r draws the T
topics with replacement, ``metaeval.intervals.resample_counts(seed, ("judges", T), ...)``
giving topic t the count c_rt, and every statistic of every candidate is recomputed on the
same draw — the candidates' statistics are paired (:mod:`.versus` tests their differences).
The observed value is the same computation with every count 1.

Every input is a sum over topics, so a replicate only re-weights per-topic sums:

* label statistics: each candidate's per-topic confusion counts (:mod:`.agreement`);
* system values: the mean over topics of each system's per-topic value, Σ_t c_t v_st / T;
* paired t-tests between systems (SPA, significance agreement): Σ_t c_t d_t and Σ_t c_t d_t²
  of each pair's differences d_t = v_it − v_jt (:func:`.ranking.pair_t`).

Sums are exact: the values are put on a binary grid first (:mod:`rankeval_cli.stats.resample`:
integers below 2^51 after scaling by a power of two), so a matrix product of counts and
values is exact in float64 whatever the BLAS, its threads or the CPU, and ``--jobs`` and a
Dask cluster give the same bytes. The replicates run as executor work units (ranges of r).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..vocabulary import DEFAULT_SEED
from .agreement import LABEL_STATISTICS, fleiss_kappa, label_statistics, precision_recall
from .ranking import (RANKING_STATISTICS, TDistribution, best_rank_change, decisions, kendall_tau_b, pair_signs,
                      pair_t, pairwise_accuracy, pearson, soft_pairwise_accuracy, spearman, tau_ap, top_k_overlap)

#: replicate counts × pair columns held at once in a unit (bounds the memory of the t-tests)
CHUNK_CELLS = 1 << 20


@dataclass(frozen=True)
class Settings:
    """The settings of a study's statistics (all recorded in the signature)."""

    rel_level: int = 1
    alpha: float = 0.05
    top: int = 10
    level: float = 0.95
    bootstrap: int = 1000
    seed: int = DEFAULT_SEED


@dataclass(frozen=True)
class Column:
    """One statistic of the study: a value per replicate."""

    section: str  # labels, grades, fleiss, ranking
    candidate: int  # candidate index (-1: all candidates)
    statistic: str
    measure: str = ""
    grade: int | None = None


@dataclass
class TopicData:
    """Per-topic sums of a study (what every replicate unit shares)."""

    conf: np.ndarray  # (candidates, topics, K, K) confusion counts
    scale: np.ndarray
    fleiss: np.ndarray | None  # (topics, 2 + K) Fleiss sums, None with fewer than two candidates
    raters: int
    values: np.ndarray  # (qrels, measures, systems, topics): the reference first
    measures: list  # measure names
    settings: Settings

    @property
    def n_topics(self) -> int:
        return self.conf.shape[1]

    def grids(self) -> "_Grids":
        """The exact-sum grids, made once per process (a worker keeps them for all its units)."""
        cached = self.__dict__.get("_grids")
        if cached is None:
            cached = self.__dict__["_grids"] = _Grids.of(self)
        return cached

    def __getstate__(self):  # the grids are not sent to workers: they make their own
        return {k: v for k, v in self.__dict__.items() if k != "_grids"}

    def columns(self) -> list:
        out = []
        n_cand = self.conf.shape[0]
        for c in range(n_cand):
            out += [Column("labels", c, s) for s in LABEL_STATISTICS]
            out += [Column("grades", c, s, grade=int(g)) for s in ("precision", "recall") for g in self.scale]
        if self.fleiss is not None:
            out.append(Column("fleiss", -1, "fleiss_kappa"))
        for name in self.measures:
            for c in range(self.values.shape[0] - 1):
                out += [Column("ranking", c, s, measure=name) for s in RANKING_STATISTICS]
        return out


def observed(data: TopicData) -> np.ndarray:
    """Every column's value on the observed topics."""
    return _statistics(data, data.grids(), np.ones((1, data.n_topics)))[0]


def replicates(data: TopicData) -> np.ndarray:
    """(bootstrap, columns): every column on each replicate, the replicates as work units."""
    from ..executor import map_units, ranges

    n = data.settings.bootstrap
    parts = map_units(_replicate_unit, ranges(n), shared=data, label="bootstrap replicates")
    return np.concatenate(parts) if parts else np.zeros((0, len(data.columns())))


def topic_counts(settings: Settings, n_topics: int, start: int, stop: int) -> np.ndarray:
    """(stop − start, topics) counts of replicates start..stop-1."""
    from ..stats.metaeval.intervals import resample_counts

    return resample_counts(settings.seed, ("judges", n_topics), n_topics, start, stop).astype(np.float64)


def _replicate_unit(data: TopicData, unit) -> np.ndarray:
    start, stop = unit
    return _statistics(data, data.grids(), topic_counts(data.settings, data.n_topics, start, stop))


@dataclass
class _Grids:
    """The per-topic values and squared pair differences on their exact-sum grids."""

    means: list  # per measure: (topics, qrels·systems) grid values and exponents
    squares: list  # per measure: (topics, qrels·pairs) grid values and exponents
    pairs: tuple

    @classmethod
    def of(cls, data: TopicData) -> "_Grids":
        from ..stats.resample import grid_exponents, on_grid

        q, m, s, t = data.values.shape
        i, j = np.triu_indices(s, 1)
        means, squares = [], []
        for k in range(m):
            v = data.values[:, k].transpose(2, 0, 1).reshape(t, q * s)
            e = grid_exponents(v, t)
            means.append((on_grid(v, e), e))
            d = data.values[:, k][:, i] - data.values[:, k][:, j]  # (qrels, pairs, topics)
            d2 = (d * d).transpose(2, 0, 1).reshape(t, q * len(i))
            e2 = grid_exponents(d2, t)
            squares.append((on_grid(d2, e2), e2))
        return cls(means, squares, (i, j))


def _statistics(data: TopicData, grids: _Grids, counts: np.ndarray) -> np.ndarray:
    """(replicates, columns) for the topic counts (replicates × topics)."""
    out = [_label_part(data, counts)]
    if data.fleiss is not None:
        out.append(fleiss_kappa(counts @ data.fleiss, data.raters)[:, None])
    for k in range(len(data.measures)):
        out.append(_ranking_part(data, grids, k, counts))
    return np.concatenate(out, axis=1)


def _label_part(data: TopicData, counts: np.ndarray) -> np.ndarray:
    conf = np.einsum("bt,ctkl->bckl", counts, data.conf)
    stats = label_statistics(conf, data.scale, data.settings.rel_level)  # (b, C, S)
    precision, recall = precision_recall(conf)  # (b, C, K)
    return np.concatenate([stats, precision, recall], axis=2).reshape(len(counts), -1)


def _ranking_part(data: TopicData, grids: _Grids, k: int, counts: np.ndarray) -> np.ndarray:
    """(replicates, candidates · RANKING_STATISTICS) of measure k."""
    from ..stats.resample import off_grid

    q, _, s, t = data.values.shape
    n_topics = counts.sum(axis=1)  # T in every replicate
    grid, e = grids.means[k]
    sums = off_grid(counts @ grid, e).reshape(len(counts), q, s)
    means = sums / n_topics[:, None, None]
    i, j = grids.pairs
    n_cand = q - 1
    spa, sig = _pair_tests(data, grids, k, counts, sums)
    out = np.empty((len(counts), n_cand, len(RANKING_STATISTICS)))
    x = means[:, 0]
    sx = pair_signs(x, i, j)
    for c in range(n_cand):
        y = means[:, c + 1]
        out[:, c] = np.stack([
            kendall_tau_b(x, y, (i, j), sx), tau_ap(x, y), spearman(x, y), pearson(x, y),
            pairwise_accuracy(x, y, (i, j), sx), spa[:, c], sig[:, c], top_k_overlap(x, y, data.settings.top),
            best_rank_change(x, y)], axis=1)
    return out.reshape(len(counts), -1)


def _pair_tests(data: TopicData, grids: _Grids, k: int, counts: np.ndarray, sums: np.ndarray):
    """(SPA, significance agreement), each (replicates, candidates), of measure k from the paired
    t-tests of every system pair under every qrels, a chunk of replicates at a time."""
    from ..stats.resample import off_grid

    i, j = grids.pairs
    reps, q, t = sums.shape[0], sums.shape[1], data.n_topics
    spa, sig = np.full((reps, q - 1), np.nan), np.full((reps, q - 1), np.nan)
    if t < 2 or not len(i):
        return spa, sig
    tdist = TDistribution(t - 1)
    critical = tdist.critical(data.settings.alpha)
    sq_grid, e2 = grids.squares[k]
    chunk = max(1, CHUNK_CELLS // (q * len(i)))
    for a in range(0, reps, chunk):
        b = slice(a, a + chunk)
        squares = off_grid(counts[b] @ sq_grid, e2).reshape(-1, q, len(i))
        tstat = pair_t(sums[b][:, :, i] - sums[b][:, :, j], squares, t)
        p = tdist.upper(tstat)
        p[np.isnan(tstat)] = 1.0  # every difference 0: no evidence either way (a permutation test's p)
        decided = decisions(tstat, critical)
        spa[b] = soft_pairwise_accuracy(p[:, :1], p[:, 1:])
        sig[b] = (decided[:, :1] == decided[:, 1:]).mean(axis=2)
    return spa, sig


def intervals(values: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Percentile intervals (type 7) of every column of the replicate values."""
    from ..stats.resample import percentile_interval

    bounds = [percentile_interval(values[:, k], level) for k in range(values.shape[1])]
    return np.array([b[0] for b in bounds]), np.array([b[1] for b in bounds])
