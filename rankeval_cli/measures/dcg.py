"""DCG and NDCG (Avramidis 2013 §3.3, eqs. 7-8; docs/definitions.md).

DCG@k = Σ_{i ≤ k} gain(rel_i) / log2(i + 1), rel_i the relevance of the item at
predicted position i; gain ``exp`` = 2^rel − 1 (Avramidis 2013 eq. 7, the default) or
``linear`` = rel (trec_eval, sklearn, ranx). Relevance from gold ranks is
rel = n − rank + 1 over ``ceiling`` ranks (n = ranked items of the group); with
``relevance="grades"`` it is the gold grade. NDCG@k = DCG@k / IDCG@k, IDCG the DCG
of the ideal order; a group whose IDCG is 0 (all grades 0) is undefined (NaN,
counted), never 1.0 as in the original tool. Without k the whole list counts.

Predicted ties: ``pessimistic``/``optimistic`` order each tied block worst/best
gold first; ``expected`` gives every item of a block the mean discount of the
block's positions (zero beyond k) — McSherry & Najork (ECIR 2008), the value
sklearn's ``ndcg_score`` computes — which is the exact expectation by linearity.

Exponential gains are computed relative to each group's top relevance s,
(2^rel − 1)·2^−s, and scaled back, so long lists (rel > 1023) keep a finite NDCG.
"""

from __future__ import annotations

import numpy as np

from ..vocabulary import GAINS
from .ties import (DEFAULT_TIE_POLICY, Prepared, block_mean, check_choice, check_k, position_discount,
                   prepare_group, segment_reduce, segment_sum, stream, summarize)



def _scaled_gain(prep: Prepared, gain: str):
    """Gain of every row divided by 2^s (s = the group's top relevance), and s per row."""
    if check_choice(gain, GAINS, "gain") == "linear":
        return prep.rel.astype(np.float64), np.zeros(len(prep.rel))
    top = segment_reduce(np.maximum, prep.rel, prep.offsets, 0.0)[prep.group]
    return np.exp2(prep.rel - top) - np.exp2(-top), top


def dcg_parts(prep: Prepared, k: int | None = None, gain: str = "exp"):
    """``(dcg, idcg, shift)`` per group: DCG@k and IDCG@k divided by 2^shift."""
    check_k(k)
    g = prep.n_groups
    scaled, top = _scaled_gain(prep, gain)
    position_disc = position_discount(prep.pos, k)
    disc = block_mean(position_disc, prep) if prep.tie_policy == "expected" else position_disc
    dcg = segment_sum(scaled * disc, prep.group, g)
    ideal = prep.ideal
    idcg = segment_sum(scaled[ideal] * position_disc, prep.group, g)
    shift = segment_reduce(np.maximum, top, prep.offsets, 0.0)
    return dcg, idcg, shift


def ndcg_values(prep: Prepared, k: int | None = None, gain: str = "exp") -> np.ndarray:
    """NDCG@k per group, NaN where IDCG@k = 0 (or the group has no ranked item)."""
    dcg, idcg, _ = dcg_parts(prep, k, gain)
    out = np.full(len(dcg), np.nan)
    ok = idcg > 0
    out[ok] = dcg[ok] / idcg[ok]
    return out


def dcg_values(prep: Prepared, k: int | None = None, gain: str = "exp") -> np.ndarray:
    """DCG@k per group (0 for a group without ranked items)."""
    dcg, _, shift = dcg_parts(prep, k, gain)
    return dcg * np.exp2(shift)


def ndcg(gold, pred, *, k: int | None = None, gain: str = "exp", tie_policy: str = DEFAULT_TIE_POLICY,
         relevance: str = "ranks", missing_pred: str = "drop") -> float:
    """NDCG@k of one group. ``gold``/``pred`` are ranks (lower = better), NaN = missing.

    >>> ndcg([1, 2], [1, 2])
    1.0
    >>> round(ndcg([1, 2], [2, 1], gain="linear"), 6)  # (1 + 2/log2 3) / (2 + 1/log2 3)
    0.859719
    """
    prep = prepare_group(gold, pred, relevance=relevance, tie_policy=tie_policy, missing_pred=missing_pred)
    return float(ndcg_values(prep, k, gain)[0])


def dcg(gold, pred, *, k: int | None = None, gain: str = "exp", tie_policy: str = DEFAULT_TIE_POLICY,
        relevance: str = "ranks", missing_pred: str = "drop") -> float:
    """DCG@k of one group (see :func:`ndcg`)."""
    prep = prepare_group(gold, pred, relevance=relevance, tie_policy=tie_policy, missing_pred=missing_pred)
    return float(dcg_values(prep, k, gain)[0])


def ndcg_stream(batches, *, k: int | None = None, gain: str = "exp", tie_policy: str = DEFAULT_TIE_POLICY,
                relevance: str = "ranks", missing_pred: str = "drop"):
    """Yield per-group NDCG@k (:class:`~.ties.Scores`) for each batch."""
    options = dict(relevance=relevance, tie_policy=tie_policy, missing_pred=missing_pred)
    return stream(ndcg_values, batches, options, k=k, gain=gain)


def mean_ndcg(batches, **options):
    """Mean NDCG@k over a stream of batches (:class:`~.ties.MeanSummary` named ``ndcg``)."""
    return summarize("ndcg", ndcg_stream(batches, **options))
