"""System-level rankings from many rankings, and their correlations.

Python API::

    from rankeval_cli import read
    from rankeval_cli.aggregate import aggregate, correlate_rankings

    rankings = aggregate(read("wmt12.tsv"), "expected-wins", by=["lp"], bootstrap=1000, seed=1)
    for r in rankings:
        print(r.key, r.items[:3], r.scores[:3], r.lo[:3], r.hi[:3], r.cluster[:3])

Modules: :mod:`.win_counts` (streaming win/loss/tie counts), :mod:`.methods` (Borda, FV,
≥/> others, expected wins, Copeland), :mod:`.kemeny`, :mod:`.bradley_terry`,
:mod:`.bootstrap` (rank ranges, clusters), :mod:`.correlate`, :mod:`.run` (streams,
partitions), :mod:`.ranking_records` (output records); :mod:`.zscore` (WMT17-24 rankings from direct
assessments: rank-sum clusters, intervals) on the judgments :mod:`.judgments` collects
(per-judge z-scores, segment means), with :mod:`.ranksum` and :mod:`.wmt24`.
"""

from __future__ import annotations

from .correlate import Correlation, SegmentSpearman, system_correlations
from .win_counts import PairCounter, PairStats, count_pairs
from .registry import ALIASES, METHODS, canonical, scorer
from .run import Ranking, aggregate
from .zscore import ZRanking, rank_stream

__all__ = [
    "ALIASES", "METHODS", "Correlation", "PairCounter", "PairStats", "Ranking", "SegmentSpearman", "ZRanking",
    "aggregate", "rank_stream", "borda", "canonical", "correlate_rankings", "count_pairs", "scorer", "segment_spearman",
    "system_correlations",
]


def borda(batches, *, missing: str = "ignore", points: str = "n-r", **options) -> list[Ranking]:
    """Borda count (de Borda 1781) of a stream of groups; see :func:`.methods.borda` for the rules."""
    return aggregate(batches, "borda", borda_missing=missing, borda_points=points, **options)


def correlate_rankings(x: Ranking, y: Ranking) -> list[Correlation]:
    """Spearman, Pearson and Kendall τ_b between two rankings' scores, on their shared items."""
    from .correlate import join_scores

    _, xs, ys, _ = join_scores(x.score_of(), y.score_of())
    return system_correlations(xs, ys)


def segment_spearman(batches, *, gold_higher_better: bool = False, pred_higher_better: bool = False) -> SegmentSpearman:
    """Average per-group Spearman ρ between gold and pred (Duh 2008 Table 3): ``.mean``, ``.defined``."""
    seg = SegmentSpearman(gold_higher_better, pred_higher_better)
    for batch in batches:
        seg.add(batch)
    return seg
