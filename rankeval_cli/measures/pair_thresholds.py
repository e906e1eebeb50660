"""Tau's pairs one by one: a pred tie threshold ε, a minimum gold difference, and the choice of ε
by tie calibration (Deutsch, Foster & Freitag 2023, "Ties Matter").

Counting pair by pair (:func:`thresholded_counts`): pred pairs with |Δpred| ≤ ε count as
pred ties, and pairs with |Δgold| < ``min_diff`` are not counted. Tie calibration
(:func:`best_epsilon`) chooses ε among 0 and the observed |Δpred| to maximize the micro or
macro ``eq`` or ``acc-eq`` score (smallest ε on ties). Neither keeps the tie-block
statistics of :func:`~.pairs.pair_counts`, so no p-value is defined on these counts.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import DataError
from .pairs import PairCounts, pair_table

#: pair categories in the order of the counts: C, D, T_h, T_m, T_hm
_C, _D, _TH, _TM, _THM = range(5)
_CATEGORY_VALUE = {"acc-eq": np.array([1, 0, 0, 0, 1]), "eq": np.array([1, -1, -1, -1, 1])}


def categories(gcmp: np.ndarray, pcmp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(category if pred is not tied, category if it is) of every pair, from the signs of its gold
    and pred differences (:func:`~.pairs.pair_table`)."""
    untied = np.where(gcmp == 0, _TH, np.where(gcmp == pcmp, _C, _D))
    tied = np.where(gcmp == 0, _THM, _TM)
    return untied, tied


def check_pair_options(variant: str, epsilon, min_diff) -> None:
    """Reject what the pair-by-pair counts cannot define: tau-c, negative thresholds."""
    if variant == "c":
        raise ValueError("tau-c is not defined with a pred tie threshold or a minimum gold difference "
                         "(its denominator counts distinct values)")
    if (epsilon is not None and epsilon < 0) or (min_diff is not None and min_diff < 0):
        raise ValueError("epsilon and the minimum gold difference must be >= 0")


def check_pair_memory(batch, n, already: int, max_pairs: int, what: str) -> int:
    """Pairs so far plus this batch's; past ``max_pairs`` a DataError at the group that crosses it."""
    total = already + np.cumsum(n * (n - 1) // 2)
    if len(total) and total[-1] > max_pairs:
        g = int(np.argmax(total > max_pairs))
        source, line = batch.row_location(int(batch.offsets[g]))
        raise DataError(f"{what} and stops at {max_pairs} pairs; this input has more by group "
                        f"{batch.group[g]!r} (long groups?)", source or batch.source, line)
    return int(total[-1]) if len(total) else already


def gold_absdiff(gold, pred, offsets) -> np.ndarray:
    """|gold_j - gold_i| of every pair, in :func:`~.pairs.pair_table` order."""
    return pair_table(pred, gold, offsets)[3]


def thresholded_counts(gold, pred, offsets, epsilon=None, min_diff=None) -> PairCounts:
    """Pair counts where pred pairs with |Δpred| <= epsilon are ties and pairs with
    |Δgold| < min_diff are not counted (no tie-block statistics: p is not defined)."""
    offsets = np.asarray(offsets, dtype=np.int64)
    group, gcmp, pcmp, absdiff = pair_table(gold, pred, offsets)
    untied, tied = categories(gcmp, pcmp)
    category = np.where(absdiff <= (epsilon or 0.0), tied, untied)
    if min_diff is not None:
        keep = gold_absdiff(gold, pred, offsets) >= min_diff
        group, category = group[keep], category[keep]
    gold = np.asarray(gold, dtype=np.float64)
    pred = np.asarray(pred, dtype=np.float64)
    present = ~(np.isnan(gold) | np.isnan(pred))
    sizes = np.diff(offsets)
    n = np.bincount(np.repeat(np.arange(len(sizes)), sizes), weights=present, minlength=len(sizes)).astype(np.int64)
    per_group = np.bincount(group * 5 + category, minlength=5 * len(sizes)).reshape(-1, 5).T
    return plain_counts(n, sizes - n, per_group)


def best_epsilon(variant, average, group, untied, tied, absdiff, pairs_per_group) -> float:
    """The smallest ε in {0} ∪ {|Δpred|} maximizing the micro or macro score.

    Score(ε) = Σ_pairs w · value(category at ε), value from the variant
    (acc-eq: C, T_hm → 1; eq: also D, T_h, T_m → -1), w = 1 (micro) or 1/N_g
    (macro; as integers L/N_g with L = lcm of the N_g when that fits in int64).
    Sorting pairs by |Δpred|, the score at each threshold is a prefix sum of the
    changes value(tied) - value(untied).
    """
    if len(group) == 0:
        return 0.0  # no pair to calibrate on
    value = _CATEGORY_VALUE[variant]
    weight = _pair_weights(average, group, pairs_per_group)
    change = (value[tied] - value[untied]) * weight
    order = np.argsort(absdiff, kind="stable")
    sorted_diff = absdiff[order]
    score = np.cumsum(change[order])
    last = np.flatnonzero(np.append(sorted_diff[1:] != sorted_diff[:-1], True))
    thresholds, scores = sorted_diff[last], score[last]
    if not len(thresholds) or thresholds[0] > 0:
        thresholds = np.concatenate(([0.0], thresholds))
        scores = np.concatenate(([0], scores))
    return float(thresholds[int(np.argmax(scores))])


def _pair_weights(average, group, pairs_per_group):
    if average == "micro":
        return np.ones(len(group), np.int64)
    sizes = np.unique(pairs_per_group[pairs_per_group > 0]).tolist()
    lcm = math.lcm(*sizes) if sizes else 1
    if 2 * lcm * max(len(pairs_per_group), 1) < 2**62:
        per_group = np.zeros(len(pairs_per_group), np.int64)
        positive = pairs_per_group > 0
        per_group[positive] = lcm // pairs_per_group[positive]
        return per_group[group]
    return 1.0 / pairs_per_group[group]


def plain_counts(n, skipped, per_group) -> PairCounts:
    """PairCounts from category counts alone (no tie-block statistics: p is not defined)."""
    zeros = np.zeros(len(n), np.int64)
    return PairCounts(n, skipped, *per_group, zeros, zeros, zeros, zeros.astype(float), zeros.astype(float),
                      zeros, zeros.astype(float), zeros.astype(float))
