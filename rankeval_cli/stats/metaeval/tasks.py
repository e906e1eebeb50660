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

from .cells import as_matrix
from .compare import Comparison, assign_ranks, compare_metrics
from .permutation import as_rng, reaches


def wmt23_weights(n_lps: int) -> list[float]:
    """WMT23 task weights: global pairwise accuracy weighted n_lps, then 3 tasks per language pair
    (system Pearson, segment Pearson, segment acc-eq) weighted 1; normalized (mt-metrics-eval tasks.WMT23)."""
    w = [n_lps] + [1] * (3 * n_lps)
    return [x / sum(w) for x in w]


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
    averages (ties counted, as in :func:`.permutation.reaches`); a task with fewer trials (early stopping) repeats its trials
    cyclically up to the longest.
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


def wmt_tasks(year: int, seg: dict, sys: dict | None = None, *, permutations: int = 1000, seed=12345,
              early_stop=None, threshold: float = 0.05) -> TaskSetResult:
    """Run the WMT23 or WMT24-25 metrics task set (mt-metrics-eval tasks.WMT23 / WMT24 / WMT25).

    ``seg[lp] = (human, {metric: scores})`` with (n_sys, n_seg) matrices; ``sys[lp]`` the same
    with system-score vectors (default: each system's mean over the segments with a human
    score, for humans and metrics alike — give the official system scores where they differ,
    e.g. corpus BLEU). Language pairs are taken in sorted order; metrics missing from a
    language pair are left out of that task and of the average.

    * 23: global pairwise accuracy (weight L), then per language pair system Pearson,
      segment Pearson (no grouping) and tie-calibrated acc-eq by item (weight 1 each);
    * 24 (and 25): per language pair SPA and tie-calibrated acc-eq by item, equal weights.

    One ``RandomState(seed)`` stream runs through all tasks in order, as a TaskSet run
    after ``np.random.seed(seed)``.
    """
    if year not in (23, 24, 25, 2023, 2024, 2025):
        raise ValueError("year must be 23, 24 or 25")
    year = year % 100
    lps = sorted(seg)
    rng = as_rng(seed)
    common = dict(permutations=permutations, seed=rng, early_stop=early_stop, threshold=threshold)
    if sys is None:
        sys = {}
        for lp in lps:
            human, metrics = seg[lp]
            h = as_matrix(human)
            mask = ~np.isnan(h)
            mean = lambda m: np.array([row[ok].mean() if ok.any() else np.nan  # noqa: E731
                                       for row, ok in zip(as_matrix(m), mask)])
            sys[lp] = (mean(h), {name: mean(m) for name, m in metrics.items()})
    tasks = []
    if year == 23:
        shared = set.intersection(*(set(sys[lp][1]) for lp in lps)) if lps else set()
        names = sorted(shared)
        tasks.append((f"sys accuracy {','.join(lps)}", compare_metrics(
            [sys[lp][0] for lp in lps], {m: [sys[lp][1][m] for lp in lps] for m in names}, "accuracy",
            level="sys", **common)))
        for lp in lps:
            tasks.append((f"{lp} sys pearson", compare_metrics(sys[lp][0], sys[lp][1], "pearson", level="sys",
                                                               **common)))
            tasks.append((f"{lp} seg pearson none", compare_metrics(seg[lp][0], seg[lp][1], "pearson",
                                                                    average_by="none", **common)))
            tasks.append((f"{lp} seg acc-eq calibrated item", compare_metrics(
                seg[lp][0], seg[lp][1], "accuracy", average_by="item", calibrate=True, **common)))
        weights = wmt23_weights(len(lps))
    else:
        for lp in lps:
            tasks.append((f"{lp} sys spa", compare_metrics(seg[lp][0], seg[lp][1], "spa", level="sys", **common)))
            tasks.append((f"{lp} seg acc-eq calibrated item", compare_metrics(
                seg[lp][0], seg[lp][1], "accuracy", average_by="item", calibrate=True, **common)))
        weights = uniform_weights(len(tasks))
    results = [r for _, r in tasks]
    return TaskSetResult(tasks, weights, average_comparison(results, weights, threshold))
