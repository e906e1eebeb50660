"""Aggregating a stream of groups into system rankings, optionally per partition.

``by`` names extra columns (e.g. ``lp``) whose value is constant within a group;
each distinct value gets its own :class:`~.win_counts.PairCounter` and its own
ranking, as WMT ranks the systems of each language pair separately.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import numpy as np

from ..batch import Batch
from ..errors import DataError
from .methods import sort_order
from .win_counts import PairCounter, PairStats
from .registry import FUSION, SCORES, canonical, scorer
from ..partition import Partitioner  # noqa: F401  (re-exported: aggregate.run.Partitioner)

COLUMNS = ("gold", "pred")


@dataclass
class Ranking:
    """One system ranking: items best first, with score, rank and bootstrap ranges."""

    key: tuple  # values of the ``by`` columns
    column: str  # "gold" or "pred"
    method: str
    items: list  # best first (score, then item id)
    scores: np.ndarray
    ranks: np.ndarray  # 1..K, the position in ``items``
    stats: PairStats  # items sorted by id
    n_groups: int  # groups with at least one ranked item
    blank_rows: int  # rows without a value in ``column``
    empty_groups: int  # groups with no ranked item
    lo: np.ndarray | None = None  # bootstrap 95% rank range
    hi: np.ndarray | None = None
    cluster: np.ndarray | None = None
    replicates: int = 0
    idle_plays: int = 0  # TrueSkill plays whose pair was never compared

    def score_of(self) -> dict:
        """item -> score."""
        return dict(zip(self.items, self.scores.tolist()))


def count_stream(batches: Iterable[Batch], columns=("gold",), by: Iterable[str] = (),
                 higher_better: dict | None = None, keep_groups: bool = False) -> dict:
    """``{(key, column): PairCounter}`` over the whole stream (first-seen key order)."""
    higher_better = higher_better or {}
    partitioner = Partitioner(by)
    counters: dict = {}
    for batch in batches:
        for key, part in partitioner.split(batch):
            for column in columns:
                counter = counters.get((key, column))
                if counter is None:
                    counter = counters[(key, column)] = PairCounter(
                        column, higher_better.get(column, False), keep_groups)
                counter.add(part)
    return counters


def rank_counter(counter: PairCounter, key: tuple, method: str, bootstrap: int = 0, seed: int | None = None,
                 level: float = 0.95, **options) -> Ranking:
    """The :class:`Ranking` of one counter (with bootstrap ranges at ``level`` if ``bootstrap`` > 0)."""
    method = canonical(method)
    if method == "trueskill":  # random even without resampling: seed None = the default seed
        from .trueskill import DEFAULT_SEED

        return rank_trueskill(counter, key, bootstrap, DEFAULT_SEED if seed is None else seed, level)
    seed = 0 if seed is None else seed
    score = scorer(method, **options)
    stats = counter.stats()
    scores = np.asarray(score(stats), dtype=np.float64)
    order = sort_order(scores)
    ranking = Ranking(
        key=key, column=counter.column, method=method,
        items=[stats.items[i] for i in order.tolist()], scores=scores[order],
        ranks=np.arange(1, len(order) + 1), stats=stats, n_groups=counter.n_groups,
        blank_rows=counter.blank_rows, empty_groups=counter.empty_groups)
    if bootstrap > 0:
        from .bootstrap import bootstrap_ranks, clusters, rank_ranges

        ranks = bootstrap_ranks(counter, score, bootstrap, seed)
        lo, hi = rank_ranges(ranks, level)
        ranking.lo, ranking.hi = lo[order], hi[order]
        ranking.cluster = clusters(lo, hi, order)[order]
        ranking.replicates = bootstrap
    return ranking


def rank_trueskill(counter: PairCounter, key: tuple, runs: int = 0, seed: int = 0,
                   level: float = 0.95) -> Ranking:
    """TrueSkill as WMT14-16 ran it (see :mod:`.trueskill`): one run on the data as given
    (``runs`` = 0), or ``runs`` runs on resampled comparisons with rank ranges at ``level``
    and clusters; the score is the (mean) μ."""
    from . import trueskill

    stats = counter.stats()
    result = trueskill.play(trueskill.comparisons(counter), runs=max(runs, 1), seed=seed, resample=runs > 0)
    mean, order = trueskill.final_order(result)
    ranking = Ranking(
        key=key, column=counter.column, method="trueskill",
        items=[stats.items[i] for i in order.tolist()], scores=mean[order],
        ranks=np.arange(1, len(order) + 1), stats=stats, n_groups=counter.n_groups,
        blank_rows=counter.blank_rows, empty_groups=counter.empty_groups)
    ranking.idle_plays = result.idle_plays
    if runs > 0:
        ranks = trueskill.run_ranks(result.mu, result.sigma2)
        lo, hi = trueskill.wmt_rank_ranges(ranks, level)
        ranking.lo, ranking.hi = lo[order], hi[order]
        ranking.cluster = trueskill.wmt_clusters(lo, hi, order)[order]
        ranking.replicates = runs
    return ranking


def aggregate(batches: Iterable[Batch], method: str = "expected-wins", *, column: str = "gold",
              by: Iterable[str] = (), gold_higher_better: bool = False, pred_higher_better: bool = False,
              bootstrap: int = 0, seed: int = 0, level: float = 0.95, **options) -> list[Ranking]:
    """System rankings of a stream of groups (one per ``by`` key and column).

    ``column`` is ``"gold"``, ``"pred"`` or ``"both"``. Method options:
    ``borda_missing``, ``borda_points``, ``fv_denominator``, ``approximate`` (Kemeny),
    ``bt_alpha``, ``bt_ties`` (see :func:`.registry.scorer`).

    >>> import numpy as np
    >>> from rankeval_cli.batch import Batch, offsets_from_sizes
    >>> votes = [["A", "B", "C"], ["A", "C", "B"], ["B", "A", "C"]]  # three votes
    >>> b = Batch(group=np.array(["1", "2", "3"], object), offsets=offsets_from_sizes(np.array([3, 3, 3])),
    ...           item=np.array(sum(votes, []), object), gold=np.tile([1., 2., 3.], 3), pred=np.full(9, np.nan))
    >>> [(r.items, r.scores.tolist()) for r in aggregate([b], "borda")]
    [(['A', 'B', 'C'], [5.0, 3.0, 1.0])]
    """
    columns = COLUMNS if column == "both" else (column,)
    for c in columns:
        if c not in COLUMNS:
            raise ValueError(f"column must be gold, pred or both, not {column!r}")
    if canonical(method) in FUSION:
        raise ValueError(f"{method} fuses IR runs: use aggregate.fusion.fuse")
    if canonical(method) in SCORES:
        raise ValueError(f"{method} ranks by mean scores: use aggregate.zscore.rank_stream")
    counters = count_stream(batches, columns, by, {"gold": gold_higher_better, "pred": pred_higher_better},
                            keep_groups=bootstrap > 0 and canonical(method) != "trueskill")
    return [rank_counter(counter, key, method, bootstrap, seed, level, **options)
            for (key, _column), counter in counters.items()]
