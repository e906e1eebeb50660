"""Simple measures: BPH, average predicted (Avramidis 2013 §3.5), P@k and AP@k (Manning, Raghavan & Schütze 2008, §8.4).

BPH (best predicted vs human): per group, the human rank (``ceiling``-normalized
gold rank, 1 = best) of the item predicted best; reported as the share of groups
per human rank. Average predicted: the mean of that human rank over groups.
When several items tie for the best prediction: ``pessimistic`` takes the worst
human rank among them (the original tool), ``optimistic`` the best, ``expected``
gives each of the m tied items weight 1/m (fractional shares; the average is the
mean human rank of the tied items).

P@k = (relevant items among the first k) / k; AP@k = (1/R) Σ_{i ≤ k, i relevant}
P@i with R the number of relevant items of the group (trec_eval's ``P_k`` and
``map_cut_k``). Some learning-to-rank tutorials divide AP@k by the relevant items within the top k
instead; the two agree whenever all relevant items are within the top k, as in
its worked example. Relevant = best gold rank (or grade > 0), as for RR. A group
without a relevant item has AP undefined (NaN). Without k, k = n (whole list).
Expected values over tied blocks: a position of a block with m items, c of them
relevant, is relevant with probability c/m; for AP, given that position i (the
(j+1)-th of its block) is relevant, the expected number of relevant items up to i
is A + 1 + j(c − 1)/(m − 1), A = relevant items in earlier blocks.
"""

from __future__ import annotations

import math

import numpy as np

from ..exactsum import ExactSum

from .ties import (DEFAULT_TIE_POLICY, Prepared, block_mean, check_k, prepare_group, segment_sum,
                   stream, summarize)


def best_predicted_rank(prep: Prepared) -> np.ndarray:
    """Human rank of the item predicted best, per group (expected policy: the mean)."""
    out = np.full(prep.n_groups, np.nan)
    top = prep.block_first == 1
    if prep.tie_policy == "expected":
        weight = top / prep.block_size
        out = np.where(prep.sizes > 0, segment_sum(weight * prep.gold_rank, prep.group, prep.n_groups), np.nan)
        return out
    first = prep.offsets[:-1][prep.sizes > 0]
    out[prep.sizes > 0] = prep.gold_rank[first]
    return out


def bph_weights(prep: Prepared) -> tuple[np.ndarray, np.ndarray]:
    """``(human_rank, weight)`` pairs: what each group adds to the BPH histogram."""
    if prep.tie_policy == "expected":
        top = prep.block_first == 1
        return prep.gold_rank[top].astype(np.int64), 1.0 / prep.block_size[top]
    first = prep.offsets[:-1][prep.sizes > 0]
    return prep.gold_rank[first].astype(np.int64), np.ones(len(first))


class BPHSummary:
    """Streaming BPH histogram and average predicted rank (Avramidis 2013 §3.5).

    Counts (fractional under the expected policy) and the rank sum are exact sums,
    rounded once when read, so they do not depend on where the input was cut.
    """

    def __init__(self):
        self.groups = 0  # groups with at least one ranked item
        self.empty = 0  # groups with none (all blank)
        self.blanks = 0
        self.missing_pred = 0
        self._counts: dict[int, ExactSum] = {}
        self._sum = ExactSum()

    def add(self, prep: Prepared) -> np.ndarray:
        """Add a batch; returns its per-group best-predicted human ranks."""
        ranks, weights = bph_weights(prep)
        for rank in np.unique(ranks).tolist():
            self._counts.setdefault(int(rank), ExactSum()).add(weights[ranks == rank])
        values = best_predicted_rank(prep)
        ok = ~np.isnan(values)
        self.groups += int(ok.sum())
        self.empty += int((~ok).sum())
        self.blanks += prep.blanks
        self.missing_pred += prep.missing_pred
        self._sum.add(values[ok])
        return values

    @property
    def average(self) -> float:
        """Average predicted: mean human rank of the best-predicted item."""
        return self._sum.value / self.groups if self.groups else math.nan

    def shares(self) -> dict[int, float]:
        """Share of groups per human rank (only ranks that occur)."""
        return {r: c / self.groups for r, c in self.counts().items()}

    def counts(self) -> dict[int, float]:
        """Groups per human rank (fractional under the expected policy), ranks that occur."""
        return {r: c.value for r, c in sorted(self._counts.items()) if c.value > 0}


def bph(batches, *, tie_policy: str = DEFAULT_TIE_POLICY, relevance: str = "ranks",
        missing_pred: str = "drop") -> BPHSummary:
    """BPH shares and average predicted rank over a stream of batches."""
    summary = BPHSummary()
    options = dict(relevance=relevance, tie_policy=tie_policy, missing_pred=missing_pred)
    for _ in stream(lambda prep: summary.add(prep), batches, options):
        pass
    return summary


def precision_values(prep: Prepared, k: int | None = None) -> np.ndarray:
    """P@k per group (k = n without a cut-off; NaN for an empty group)."""
    check_k(k)
    relevant = prep.relevant.astype(np.float64)
    if prep.tie_policy == "expected":
        relevant = block_mean(relevant, prep)
    n = prep.sizes.astype(np.float64)
    cut = n if k is None else np.full(prep.n_groups, float(k))
    in_top = prep.pos <= cut[prep.group]
    hits = segment_sum(relevant * in_top, prep.group, prep.n_groups)
    return np.divide(hits, cut, out=np.full(len(n), np.nan), where=n > 0)


def hits_up_to(relevant: np.ndarray, prep, expected: bool) -> np.ndarray:
    """Per row: rel_i · (relevant rows of its group up to and including it), the terms of AP.

    With ``expected``, the exact mean over random orders of each tied block: for a row at
    position j of a block of m holding c relevant rows, after A relevant rows in earlier
    blocks, (c/m)·(A + 1 + j(c − 1)/(m − 1)).
    """
    cum = np.cumsum(relevant)
    before = cum - relevant  # relevant rows before each row in the batch
    before_in_group = before - before[prep.offsets[prep.group]] if len(relevant) else before
    if not expected:
        return relevant * (before_in_group + 1)
    offset = prep.pos - prep.block_first  # j: position within the block
    earlier = before_in_group[np.arange(len(offset)) - offset]  # A: relevant rows in earlier blocks
    c = block_mean(relevant, prep) * prep.block_size
    m = prep.block_size
    inner = np.where(m > 1, offset * (c - 1) / np.maximum(m - 1, 1), 0.0)
    return (c / m) * (earlier + 1 + inner)


def ap_values(prep: Prepared, k: int | None = None) -> np.ndarray:
    """AP@k per group: (1/R) Σ_{i ≤ k} P@i · rel_i (NaN when R = 0)."""
    check_k(k)
    g = prep.n_groups
    relevant = prep.relevant.astype(np.float64)
    total = segment_sum(relevant, prep.group, g)
    hit_count = hits_up_to(relevant, prep, prep.tie_policy == "expected")
    if k is not None:
        hit_count = np.where(prep.pos <= k, hit_count, 0.0)
    sums = segment_sum(hit_count / prep.pos, prep.group, g)
    return np.where(total > 0, sums / np.where(total > 0, total, 1), np.nan)


def precision_at_k(gold, pred, *, k: int | None = None, tie_policy: str = DEFAULT_TIE_POLICY,
                   relevance: str = "ranks", missing_pred: str = "drop") -> float:
    """P@k of one group (see module doc).

    >>> precision_at_k([1, 0, 1, 0, 1], [1, 2, 3, 4, 5], k=5, relevance="grades")  # worked example q1
    0.6
    """
    prep = prepare_group(gold, pred, relevance=relevance, tie_policy=tie_policy, missing_pred=missing_pred)
    return float(precision_values(prep, k)[0])


def average_precision(gold, pred, *, k: int | None = None, tie_policy: str = DEFAULT_TIE_POLICY,
                      relevance: str = "ranks", missing_pred: str = "drop") -> float:
    """AP@k of one group (see module doc).

    >>> round(average_precision([1, 0, 1, 0, 1], [1, 2, 3, 4, 5], k=5, relevance="grades"), 3)
    0.756
    """
    prep = prepare_group(gold, pred, relevance=relevance, tie_policy=tie_policy, missing_pred=missing_pred)
    return float(ap_values(prep, k)[0])


def precision_stream(batches, *, k=None, tie_policy=DEFAULT_TIE_POLICY, relevance="ranks", missing_pred="drop"):
    options = dict(relevance=relevance, tie_policy=tie_policy, missing_pred=missing_pred)
    return stream(precision_values, batches, options, k=k)


def ap_stream(batches, *, k=None, tie_policy=DEFAULT_TIE_POLICY, relevance="ranks", missing_pred="drop"):
    options = dict(relevance=relevance, tie_policy=tie_policy, missing_pred=missing_pred)
    return stream(ap_values, batches, options, k=k)


def mean_precision(batches, **options):
    """Mean P@k over a stream (:class:`~.ties.MeanSummary` named ``p``)."""
    return summarize("p", precision_stream(batches, **options))


def mean_ap(batches, **options):
    """MAP@k over a stream (:class:`~.ties.MeanSummary` named ``map``)."""
    return summarize("map", ap_stream(batches, **options))


__all__ = ["best_predicted_rank", "bph_weights", "BPHSummary", "bph", "precision_values", "ap_values",
           "precision_at_k", "average_precision", "mean_precision", "mean_ap"]
