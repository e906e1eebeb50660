"""Averages over tasks (WMT23-25): task weights, weighted averages and their significance clusters.

A *task* is one column of an official table (a statistic, a level, a language
pair), ranked by :func:`.compare.compare_metrics`. Each task's value is mapped
to [0, 1] by its range and averaged with task weights; the clusters of the
average reuse each task's permutation draws (mt-metrics-eval ``tasks.py``:
``TaskSetResults.AverageCorrMatrix``, ``WMT23``, ``WMT24``, ``WMT25``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...vocabulary import DEFAULT_SEED
from ...vocabulary import GROUPINGS
from .cells import as_matrix
from .compare import Comparison, assign_ranks, compare_metrics
from .permutation import as_rng, reaches


def wmt23_weights(n_lps: int) -> list[float]:
    """WMT23 task weights: global pairwise accuracy weighted n_lps, then 3 tasks per language pair
    (system Pearson, segment Pearson, segment acc-eq) weighted 1; normalized (mt-metrics-eval tasks.WMT23)."""
    w = [n_lps] + [1] * (3 * n_lps)
    return [x / sum(w) for x in w]


def nested_weights(attributes: list[tuple], total: float = 1.0) -> list[float]:
    """WMT22 task weights (mt-metrics-eval ``TaskSetResults.AssignWeights``): ``total`` split evenly
    among the values of each task's first attribute (the language pair), each share split evenly
    among the values of the next (level, grouping, statistic) within it, and so on; the tasks that
    agree on every attribute share the last share equally."""
    weights = [0.0] * len(attributes)

    def assign(tasks, depth, share):
        if depth == (len(attributes[0]) if attributes else 0):
            for t in tasks:
                weights[t] = share / len(tasks)
            return
        groups: dict = {}
        for t in tasks:
            groups.setdefault(attributes[t][depth], []).append(t)
        for members in groups.values():
            assign(members, depth + 1, share / len(groups))

    if attributes:
        assign(list(range(len(attributes))), 0, total)
    return weights


def uniform_weights(n_tasks: int) -> list[float]:
    """WMT24-25 task weights: all tasks equal (SPA and segment acc-eq per language pair)."""
    return [1 / n_tasks] * n_tasks


def _common_metrics(results: list[Comparison]) -> list[str]:
    sets = [set(r.names) for r in results]
    common = set.intersection(*sets) if sets else set()
    return [m for m in results[0].names if m in common] if results else []


def average_ranks(results: list[Comparison], weights=None) -> dict[str, float]:
    """Σ_t w_t · cluster rank of the metric in task t, for metrics in every task, ascending."""
    weights = list(weights) if weights is not None else uniform_weights(len(results))
    out = {}
    for m in _common_metrics(results):
        out[m] = sum(w * r.ranks[r.names.index(m)] for r, w in zip(results, weights))
    return dict(sorted(out.items(), key=lambda x: x[1]))


def _normalized(r: Comparison, x):
    b, e = r.range
    return (np.asarray(x) - b) / (e - b)


def average_scores(results: list[Comparison], weights=None) -> dict[str, float]:
    """Σ_t w_t · (value - lo_t)/(hi_t - lo_t): each task's value mapped to [0, 1], descending."""
    weights = list(weights) if weights is not None else uniform_weights(len(results))
    out = {}
    for m in _common_metrics(results):
        out[m] = float(sum(w * _normalized(r, r.values[r.names.index(m)]) for r, w in zip(results, weights)))
    return dict(sorted(out.items(), key=lambda x: -x[1]))


def _task_draws(r: Comparison, m1: str, m2: str) -> np.ndarray:
    """Trials of (m1's hybrid, m2's hybrid) in task r, whichever order the task ranked them."""
    i, j = r.names.index(m1), r.names.index(m2)
    if i < j:
        return r.draws.get((i, j), np.zeros((0, 2)))
    return r.draws.get((j, i), np.zeros((0, 2)))[:, [1, 0]]


def average_comparison(results: list[Comparison], weights=None, threshold: float = 0.05) -> Comparison:
    """Weighted average over tasks with significance clusters (mt-metrics-eval AverageCorrMatrix).

    The p-value of "i better than j" is the share of trials where
    Σ_t w_t (hybrid_i - hybrid_j)_t / (hi_t - lo_t) ≥ the observed difference of
    averages (ties counted, as in :func:`.permutation.reaches`); a task with fewer trials (early
    stopping) repeats its trials cyclically up to the longest.
    """
    weights = list(weights) if weights is not None else uniform_weights(len(results))
    avg = average_scores(results, weights)
    names = list(avg)
    n = len(names)
    p = np.zeros((n, n))
    draws = {}
    for i in range(n):
        for j in range(i + 1, n):
            m1, m2 = names[i], names[j]
            per_task = [_task_draws(r, m1, m2) for r in results]
            longest = max(len(d) for d in per_task)
            if not longest:
                continue
            null = np.zeros(longest)
            for r, w, d in zip(results, weights, per_task):
                b, e = r.range
                diff = w * (d[:, 0] - d[:, 1]) / (e - b)
                null += np.tile(diff, int(np.ceil(longest / len(diff))))[:longest]
            p[i, j] = np.mean(reaches(null, avg[m1] - avg[m2]))
    return Comparison(names, np.array([avg[m] for m in names]), assign_ranks(p, threshold), p, draws,
                      np.zeros((n, n), np.int64), (0.0, 1.0))


@dataclass
class TaskSetResult:
    """The tasks of an official table, their weights and the weighted average with clusters."""

    tasks: list[tuple[str, Comparison]]  # (task name, result), in table order
    weights: list[float]
    average: Comparison


#: Per language pair, each year's tasks in mt-metrics-eval's order: (name, level, statistic, options).
_CALIBRATED_ITEM = dict(average_by="item", calibrate=True)
#: mt-metrics-eval's order of the groupings (average_by none, sys, item)
_MTME_ORDER = {"none": 0, "system": 1, "item": 2}
PER_LP_TASKS = {
    22: [("sys pearson", "sys", "pearson", {}), ("sys kendall", "sys", "kendall", {}),
         *((f"seg {stat} {g}", "seg", stat, dict(average_by=g)) for g in sorted(GROUPINGS, key=_MTME_ORDER.get)
           for stat in ("pearson", "kendall"))],
    23: [("sys pearson", "sys", "pearson", {}), ("seg pearson none", "seg", "pearson", dict(average_by="none")),
         ("seg acc-eq calibrated item", "seg", "accuracy", _CALIBRATED_ITEM)],
    24: [("sys spa", "spa", "spa", {}), ("seg acc-eq calibrated item", "seg", "accuracy", _CALIBRATED_ITEM)],
}


def wmt_tasks(year: int, seg: dict, sys: dict | None = None, *, permutations: int = 1000, seed=DEFAULT_SEED,
              early_stop=None, threshold: float = 0.05) -> TaskSetResult:
    """Run a WMT22-25 metrics task set (mt-metrics-eval's WMT22 notebook, tasks.WMT23 / WMT24 / WMT25).

    ``seg[lp] = (human, {metric: scores})`` with (n_sys, n_seg) matrices; ``sys[lp]`` the same
    with system-score vectors (default: each system's mean over the segments with a human
    score, for humans and metrics alike — give the official system scores where they differ,
    e.g. corpus BLEU). Language pairs are taken in sorted order; metrics missing from a
    language pair are left out of that task and of the average.

    * 22: global pairwise accuracy (with several language pairs), then per language pair system
      Pearson and Kendall, segment Pearson and Kendall by none, system and item; weights
      :func:`nested_weights` (language pair, level, grouping, statistic);
    * 23: global pairwise accuracy (weight L), then per language pair system Pearson,
      segment Pearson (no grouping) and tie-calibrated acc-eq by item (weight 1 each);
    * 24 (and 25): per language pair SPA and tie-calibrated acc-eq by item, equal weights.

    One ``RandomState(seed)`` stream runs through all tasks in order, as a TaskSet run
    after ``np.random.seed(seed)``.
    """
    if year not in (22, 23, 24, 25, 2022, 2023, 2024, 2025):
        raise ValueError("year must be 22, 23, 24 or 25")
    year = min(year % 100, 24)
    lps = sorted(seg)
    sys = sys if sys is not None else {lp: _system_means(*seg[lp]) for lp in lps}
    common = dict(permutations=permutations, seed=as_rng(seed), early_stop=early_stop, threshold=threshold)
    tasks, attributes = [], []
    if year == 23 or (year == 22 and len(lps) > 1):
        names = sorted(set.intersection(*(set(sys[lp][1]) for lp in lps))) if lps else []
        tasks.append((f"sys accuracy {','.join(lps)}", compare_metrics(
            [sys[lp][0] for lp in lps], {m: [sys[lp][1][m] for lp in lps] for m in names}, "accuracy",
            level="sys", **common)))
        attributes.append((",".join(lps), "sys", "none", "accuracy"))
    for lp in lps:
        for name, level, statistic, options in PER_LP_TASKS[year]:
            human, metrics = sys[lp] if level == "sys" else seg[lp]
            tasks.append((f"{lp} {name}", compare_metrics(human, metrics, statistic, level=level.replace("spa", "sys"),
                                                          **options, **common)))
            attributes.append((lp, "seg" if level == "seg" else "sys", options.get("average_by", "none"), statistic))
    weights = {22: lambda: nested_weights(attributes), 23: lambda: wmt23_weights(len(lps)),
               24: lambda: uniform_weights(len(tasks))}[year]()
    results = [r for _, r in tasks]
    return TaskSetResult(tasks, weights, average_comparison(results, weights, threshold))


def _system_means(human, metrics) -> tuple:
    """Each system's mean over the segments with a human score, for the humans and every metric."""
    mask = ~np.isnan(as_matrix(human))

    def mean(m):
        return np.array([row[ok].mean() if ok.any() else np.nan for row, ok in zip(as_matrix(m), mask)])

    return mean(human), {name: mean(m) for name, m in metrics.items()}
