"""Ranking metrics on one task: values, paired permutation tests, significance clusters.

mt-metrics-eval's ``CompareMetrics``: metrics sorted by decreasing value (then
name), every pair i < j tested with a paired permutation test
(:mod:`.permutation`), and each metric given the rank of its significance
cluster (``AssignRanks``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...vocabulary import DEFAULT_SEED
from ...measures.tau import canonical_variant
from .permutation import PERM_TESTS, as_rng, pair_test
from .segment import seg_statistic
from .system import SpaSpec, pairwise_accuracy, soft_pairwise_accuracy, sys_statistic

#: Statistics at system level: correlations of system scores, pairwise accuracy, SPA.
SYS_STATISTICS = ("pearson", "spearman", "kendall", "accuracy", "spa")


def assign_ranks(p_matrix, threshold: float = 0.05) -> list[int]:
    """Significance cluster ranks of metrics sorted by decreasing score (mt-metrics-eval AssignRanks).

    p_matrix[i, j] (i < j) is the p-value of "metric i is better than metric j".
    Metric i starts a new rank when some metric of the current cluster (from the
    cluster's first metric up to i - 1) beats it at p ≤ threshold.
    """
    p = np.asarray(p_matrix, np.float64)
    ranks, rank, start = [], 1, 0
    for i in range(p.shape[0]):
        if np.any(p[start:i, i] <= threshold):
            rank += 1
            start = i
        ranks.append(rank)
    return ranks



@dataclass
class Comparison:
    """Metrics ranked on one task: values, significance matrix and clusters.

    ``names`` are sorted by decreasing value (then name, as mt-metrics-eval);
    ``p[i, j]`` (i < j) is the permutation p-value of "names[i] is better than
    names[j]" (0 when no permutations were run); ``ranks`` the significance
    cluster of each; ``draws[(i, j)]`` the (value of i's hybrid, value of j's
    hybrid) of every trial, for the weighted average over tasks; ``range`` the
    range the statistic can take ((0, 1) for accuracies, else (-1, 1)).
    """

    names: list[str]
    values: np.ndarray
    ranks: list[int]
    p: np.ndarray
    draws: dict
    trials: np.ndarray
    range: tuple[float, float]
    epsilons: dict = field(default_factory=dict)

    def as_dict(self) -> dict[str, tuple[float, int]]:
        """name -> (value, rank), mt-metrics-eval's corrs_and_ranks."""
        return {n: (float(v), r) for n, v, r in zip(self.names, self.values, self.ranks)}


def statistic_range(statistic: str, variant: str | None = None) -> tuple[float, float]:
    """(0, 1) for pairwise accuracy, SPA and acc-eq; (-1, 1) for correlations."""
    if statistic in ("accuracy", "spa") or (statistic == "kendall" and variant
                                            and canonical_variant(variant) == "acc-eq"):
        return (0.0, 1.0)
    return (-1.0, 1.0)


@dataclass
class RankedMetrics:
    """One task's metrics ranked by value, before the permutation tests (:func:`rank_metrics`).

    ``names`` sorted by decreasing value, then name; ``pairs`` the (i, j), i < j, to test,
    in mt-metrics-eval's order; the rest is what :func:`test_pair` needs.
    """

    human: object
    metrics: dict
    stat_name: str
    level: str
    average_by: str
    variant: str | None
    opts: dict
    perm_test: str
    names: list[str]
    values: dict
    epsilons: dict
    spa: SpaSpec

    @property
    def pairs(self) -> list[tuple[int, int]]:
        n = len(self.names)
        return [(i, j) for i in range(n) for j in range(i + 1, n)]

    def cells(self) -> int:
        """Cells of one metric (a task's size, to balance work units)."""
        first = self.metrics[self.names[0]]
        return int(sum(np.size(x) for x in first) if isinstance(first, list) else np.size(first))


def rank_metrics(human, metrics: dict, statistic: str = "pearson", *, level: str = "seg",
                 average_by: str = "none", variant: str | None = None, epsilon: float | None = None,
                 calibrate: bool = False, min_human_diff: float | None = None, undefined_as_zero: bool = False,
                 weighting: str = "plain", perm_test: str | None = None,
                 spa: SpaSpec = SpaSpec()) -> RankedMetrics:
    """Every metric's value on the task, the metrics sorted (see :func:`compare_metrics`)."""
    if not metrics:
        raise ValueError("no metrics to compare")
    names = list(metrics)
    stat_name = statistic.lower()
    opts = dict(variant=variant, epsilon=epsilon, calibrate=calibrate, min_human_diff=min_human_diff,
                undefined_as_zero=undefined_as_zero, weighting=weighting)
    if perm_test is None:
        perm_test = "pairs" if calibrate else "scores"
    if perm_test not in PERM_TESTS:
        raise ValueError(f"perm_test must be one of {', '.join(PERM_TESTS)}")
    if perm_test == "pairs" and stat_name not in ("kendall", "accuracy"):
        raise ValueError("the pairwise-comparison test applies to Kendall variants and accuracy")

    if level == "seg":
        values = {m: seg_statistic(human, metrics[m], stat_name, average_by, **opts) for m in names}
        epsilons = {m: r.epsilon for m, r in values.items() if r.epsilon is not None}
        values = {m: r.value for m, r in values.items()}
    elif level == "sys":
        epsilons = {}
        if stat_name == "accuracy":
            values = pairwise_accuracy(human, metrics)
        elif stat_name == "spa":
            values = {m: soft_pairwise_accuracy(human, metrics[m], spa) for m in names}
        else:
            values = {m: sys_statistic(human, metrics[m], stat_name, variant=variant) for m in names}
    else:
        raise ValueError("level must be seg or sys")
    names.sort(key=lambda m: (-values[m], m))
    return RankedMetrics(human, metrics, stat_name, level, average_by, variant, opts, perm_test, names, values,
                         epsilons, spa)


def test_pair(ranked: RankedMetrics, i: int, j: int, permutations: int, rng, early_stop=None):
    """The permutation test of "names[i] is better than names[j]", drawing from ``rng``."""
    a, b = ranked.names[i], ranked.names[j]
    return pair_test(ranked.human, ranked.metrics[a], ranked.metrics[b], ranked.stat_name, ranked.level,
                     ranked.average_by, ranked.opts, ranked.perm_test, permutations, rng, early_stop,
                     ranked.epsilons.get(a), ranked.epsilons.get(b), ranked.spa)


test_pair.__test__ = False  # not a pytest test


def test_pairs(ranked: RankedMetrics, permutations: int, rng, early_stop=None) -> dict:
    """``{(i, j): PermutationResult}`` of every pair of a ranked task, in order, all drawing from
    the one stream ``rng`` (mt-metrics-eval's order)."""
    return {(i, j): test_pair(ranked, i, j, permutations, rng, early_stop) for i, j in ranked.pairs}


test_pairs.__test__ = False  # not a pytest test


def clusters(ranked: RankedMetrics, results: dict, threshold: float = 0.05) -> Comparison:
    """The :class:`Comparison` of a ranked task from its pair tests (``results[(i, j)]``)."""
    n = len(ranked.names)
    p = np.zeros((n, n))
    trials = np.zeros((n, n), np.int64)
    draws = {}
    for (i, j), res in results.items():
        p[i, j], trials[i, j], draws[(i, j)] = res.p, res.k, res.draws
    return Comparison(ranked.names, np.array([ranked.values[m] for m in ranked.names]), assign_ranks(p, threshold),
                      p, draws, trials, statistic_range(ranked.stat_name, ranked.variant), ranked.epsilons)


def compare_metrics(human, metrics: dict, statistic: str = "pearson", *, level: str = "seg",
                    average_by: str = "none", variant: str | None = None, epsilon: float | None = None,
                    calibrate: bool = False, min_human_diff: float | None = None,
                    undefined_as_zero: bool = False, weighting: str = "plain", permutations: int = 1000,
                    seed=DEFAULT_SEED, perm_test: str | None = None, early_stop=None, threshold: float = 0.05,
                    spa: SpaSpec = SpaSpec()) -> Comparison:
    """Rank metrics on one task and cluster them by paired permutation tests (mt-metrics-eval CompareMetrics).

    ``level="seg"``: ``human`` and every metric are (n_sys, n_seg) matrices and
    the statistic is :func:`seg_statistic`'s. ``level="sys"``: pearson /
    spearman / kendall take system-score vectors; ``accuracy`` is pairwise
    accuracy and takes one vector or a list of vectors (one per language
    pair); ``spa`` takes the (n_sys, n_seg) segment matrices. Every pair of
    metrics i < j (in ranked order) is tested with ``permutations`` trials, one
    ``RandomState(seed)`` stream consumed pair after pair (pass a RandomState to
    continue a stream across tasks), as mt-metrics-eval does. ``perm_test``:
    ``scores`` (PERM-BOTH) or ``pairs`` (default for calibrated Kendall, as WMT23-25).
    (:mod:`.pair_units` runs the pairs of a whole table in parallel, each on its own stream.)
    """
    ranked = rank_metrics(human, metrics, statistic, level=level, average_by=average_by, variant=variant,
                          epsilon=epsilon, calibrate=calibrate, min_human_diff=min_human_diff,
                          undefined_as_zero=undefined_as_zero, weighting=weighting, perm_test=perm_test,
                          spa=spa)
    results = test_pairs(ranked, permutations, as_rng(seed), early_stop) if permutations else {}
    return clusters(ranked, results, threshold)
