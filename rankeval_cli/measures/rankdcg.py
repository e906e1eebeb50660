"""rankDCG (Katerenchuk & Rosenberg 2016 §4; reference code dkaterenchuk/ranking_measures).

With K distinct gold values in a group: rel'(item) = dense rank of its gold value
counted from the bottom (worst gold → 1, best → K); the ideal order sorts items by
gold, best first, and the discount of position i is the dense rank from the top of
the item at ideal position i (a step function, not a log).
DCG' = Σ_i rel'(item at predicted position i) / D_i; max = DCG' of the ideal order,
min = DCG' with the ideal rel' list reversed under the same discounts;
rankDCG = (DCG' − min) / (max − min). The paper prints (max − DCG')/(max − min), a
typo: its own Table 1 and code use (DCG' − min). Undefined (NaN) when all gold
values of a group are equal (max = min).

Only the order of values matters, so gold may be ranks (lower = better) or grades
(``relevance="grades"``, higher = better); predictions are ranks as everywhere
(negate predicted scores). Predicted ties: the reference code is ``pessimistic``
(its stable sort puts the worst gold first within a tie); ``optimistic`` puts the
best gold first; ``expected`` gives every item of a tied block the block's mean
rel' (exact by linearity, as the discounts do not depend on the prediction).
"""

from __future__ import annotations

import numpy as np

from ..batch import group_index
from ..ranks import normalize_ranks
from .ties import (DEFAULT_TIE_POLICY, Prepared, block_mean, prepare_group, segment_reduce, segment_sum,
                   stream, summarize)


def rankdcg_values(prep: Prepared) -> np.ndarray:
    """rankDCG per group (NaN when all gold values are equal or the group is empty)."""
    g = prep.n_groups
    ideal = prep.ideal  # from_top is a monotone function of gold_rank: the same (stable) order
    from_top = normalize_ranks(prep.gold_rank, prep.offsets, "minimize", order=ideal)
    distinct = segment_reduce(np.maximum, from_top, prep.offsets, 0.0)
    rel = distinct[prep.group] - from_top + 1
    discount = from_top[ideal]  # D of each position slot
    gained = block_mean(rel, prep) if prep.tie_policy == "expected" else rel
    ideal_rel = rel[ideal]
    score = segment_sum(gained / discount, prep.group, g)
    top = segment_sum(ideal_rel / discount, prep.group, g)
    bottom = segment_sum(ideal_rel[_reversed_within_groups(prep.offsets)] / discount, prep.group, g)
    out = np.full(g, np.nan)
    ok = distinct > 1
    out[ok] = (score[ok] - bottom[ok]) / (top[ok] - bottom[ok])
    return out


def _reversed_within_groups(offsets: np.ndarray) -> np.ndarray:
    """Row order reversing every group: the worst-first order of values sorted best first
    (rel is equal within a tie block, so the rel values are those of a sort by −rel)."""
    groups = group_index(offsets)
    return offsets[groups] + offsets[groups + 1] - 1 - np.arange(len(groups))


def rankdcg(gold, pred, *, tie_policy: str = DEFAULT_TIE_POLICY, relevance: str = "ranks",
            missing_pred: str = "drop") -> float:
    """rankDCG of one group. ``gold``/``pred`` are ranks (lower = better), NaN = missing.

    >>> L = [9, 4, 4, 2, 2, 2, 1, 1, 1, 1]  # Katerenchuk & Rosenberg 2016 Table 1, gold as grades
    >>> round(rankdcg(L, [-v for v in [9, 4, 4, 2, 2, 1, 2, 1, 1, 1]], relevance="grades"), 12)
    0.975
    """
    prep = prepare_group(gold, pred, relevance=relevance, tie_policy=tie_policy, missing_pred=missing_pred)
    return float(rankdcg_values(prep)[0])


def rankdcg_stream(batches, *, tie_policy: str = DEFAULT_TIE_POLICY, relevance: str = "ranks",
                   missing_pred: str = "drop"):
    """Yield per-group rankDCG (:class:`~.ties.Scores`) for each batch."""
    options = dict(relevance=relevance, tie_policy=tie_policy, missing_pred=missing_pred)
    return stream(rankdcg_values, batches, options)


def mean_rankdcg(batches, **options):
    """Mean rankDCG over a stream of batches (:class:`~.ties.MeanSummary` named ``rankdcg``)."""
    return summarize("rankdcg", rankdcg_stream(batches, **options))
