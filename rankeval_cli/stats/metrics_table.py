"""The WMT22-24 metrics table: every statistic of every metric, its significance cluster, the average.

A *task* is one statistic on one language pair (or, for pairwise accuracy, on
all language pairs pooled, as WMT22-23's global accuracy). For each task the
metrics are sorted by value (then by name, as mt-metrics-eval sorts them), every
pair is compared with a paired permutation test (:mod:`.permutation`:
PERM-BOTH of Deutsch, Dror & Roth 2021 on z-normalized scores; for calibrated
acc-eq the pairwise-comparison variant, each metric keeping its own ε), and
:func:`metaeval.assign_ranks` turns the p-values into cluster ranks (a metric
starts a new rank when one above it in the current cluster beats it at
p <= 0.05).

The average over tasks is mt-metrics-eval's ``TaskSetResults.AverageCorrMatrix``
(Freitag et al. 2023 §6; Freitag et al. 2024): each task's values are rescaled to
[0, 1] from their range ([-1, 1] for correlations, [0, 1] for accuracies),
weighted (equal weights summing to 1) and summed, over the metrics present in
every task; the significance of an average difference re-uses each task's
permutation draws, rescaled and weighted the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: base name -> (level, statistic). Levels: seg (segment matrices, grouped), sys (system scores),
#: pa (pairwise accuracy of system scores), spa (soft pairwise accuracy from segment scores).
MEASURES = {
    "seg-acc-eq": ("seg", "accuracy"),
    "seg-pearson": ("seg", "pearson"),
    "seg-spearman": ("seg", "spearman"),
    "seg-kendall": ("seg", "kendall"),
    "sys-pearson": ("sys", "pearson"),
    "sys-spearman": ("sys", "spearman"),
    "sys-kendall": ("sys", "kendall"),
    "sys-pa": ("pa", "accuracy"),
    "spa": ("spa", "spa"),
}
ALIASES = {"pairwise-accuracy": "sys-pa", "pa": "sys-pa", "acc": "sys-pa", "soft-pairwise-accuracy": "spa",
           "sys-spa": "spa", "acc-eq": "seg-acc-eq", "seg-acc23": "seg-acc-eq", "acc23": "seg-acc-eq"}
#: The WMT24 table: system-level pairwise accuracy and SPA, system Pearson, segment acc-eq with
#: tie calibration grouped by item, segment Pearson without grouping and grouped by item.
DEFAULT_MEASURES = ("sys-pa", "spa", "sys-pearson", "seg-acc-eq@item", "seg-pearson@none", "seg-pearson@item")
GROUPINGS = ("none", "item", "system")


@dataclass(frozen=True)
class Measure:
    """One column of the table: ``name`` as printed (``seg-pearson@item``)."""

    name: str
    level: str
    statistic: str
    average_by: str | None = None

    @property
    def value_range(self) -> tuple[float, float]:
        """The range a value lies in, for rescaling to [0, 1] in the average."""
        return (0.0, 1.0) if self.statistic in ("accuracy", "spa") else (-1.0, 1.0)


def parse_measure(text: str, average_by: str | None = None) -> Measure:
    """A Measure from ``NAME[@GROUPING]``; segment measures without a grouping take ``average_by``.

    Raises ValueError for an unknown name or grouping.
    """
    base, _, grouping = text.strip().lower().partition("@")
    base = ALIASES.get(base, base)
    if base not in MEASURES:
        known = ", ".join([*MEASURES, *ALIASES])
        raise ValueError(f"unknown measure {text!r}; known: {known} (segment ones take @none, @item or @system)")
    level, statistic = MEASURES[base]
    if level != "seg":
        if grouping:
            raise ValueError(f"{base} is a system-level measure; it takes no @grouping")
        return Measure(base, level, statistic)
    grouping = {"sys": "system", "seg": "item", "segment": "item"}.get(grouping, grouping) or average_by or "none"
    if grouping not in GROUPINGS:
        raise ValueError(f"unknown grouping {grouping!r} in {text!r}; use none, item or system")
    return Measure(f"{base}@{grouping}", level, statistic, grouping)


def parse_measures(texts, average_by: str | None = None) -> list[Measure]:
    """Measures from repeatable, comma-separated ``-m`` values (default: the WMT24 table)."""
    names = [n for t in texts for n in t.split(",") if n.strip()] if texts else None
    if names is None:
        names = [n for n in DEFAULT_MEASURES if average_by is None or "@" not in n or n.endswith("@none")]
        if average_by is not None:  # one grouping for every segment measure
            names = [n.split("@")[0] if "@" in n else n for n in names]
    out = []
    for name in names:
        measure = parse_measure(name, average_by)
        if measure not in out:
            out.append(measure)
    return out


@dataclass
class Options:
    """Settings shared by every task."""

    permutations: int = 1000
    seed: int = 12345
    epsilon: float | None = None  # fixed metric tie threshold; None = calibrated (acc-eq)
    variant: str = "b"  # tau variant of seg-kendall / sys-kendall
    threshold: float = 0.05  # p-value at which a metric starts a new cluster
    spa_seed: int = 4  # mt-metrics-eval's seed of the SPA sign flips
    early_stop: bool = True  # mt-metrics-eval's Task default: blocks of 100, stop when p < 0.02 or p > 0.5


@dataclass
class TaskResult:
    """One column: values, extra per-metric numbers (ε), cluster ranks, p-values and permutation draws."""

    lp: str
    measure: Measure
    values: dict[str, float] = field(default_factory=dict)
    epsilons: dict[str, float] = field(default_factory=dict)
    ranks: dict[str, int] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    p: np.ndarray | None = None
    draws: dict = field(default_factory=dict)  # (m1, m2) -> (k, 2) array of hybrid values


# Values ---------------------------------------------------------------------------------

def task_values(tables, lp: str, measure: Measure, options: Options) -> TaskResult:
    """The value of every metric that has the scores ``measure`` needs."""
    from . import metaeval as me

    result = TaskResult(lp, measure)
    if measure.level == "pa":
        humans, metrics = _pooled_system_scores(tables)
        result.values = me.pairwise_accuracy(humans, metrics)
        return result
    (table,) = tables
    for name in table.metric_names:
        if measure.level == "sys":
            if table.metrics_sys[name] is None:
                continue
            result.values[name] = me.sys_statistic(table.human_sys, table.metrics_sys[name], measure.statistic,
                                                   variant=_variant(measure, options))
        elif table.metrics[name] is not None:
            if measure.level == "spa":
                result.values[name] = me.soft_pairwise_accuracy(table.human, table.metrics[name],
                                                                options.permutations, options.spa_seed)
                continue
            calibrate = measure.statistic == "accuracy" and options.epsilon is None
            seg = me.seg_statistic(table.human, table.metrics[name], measure.statistic, measure.average_by,
                                   variant=_variant(measure, options), epsilon=options.epsilon,
                                   calibrate=calibrate)
            result.values[name] = seg.value
            if measure.statistic == "accuracy":
                result.epsilons[name] = seg.epsilon if seg.epsilon is not None else 0.0
    return result


def _variant(measure: Measure, options: Options) -> str | None:
    return options.variant if measure.statistic == "kendall" else None


def _pooled_system_scores(tables):
    """Human system scores per lp and, for metrics present in every lp, theirs (global accuracy)."""
    names = [n for n in tables[0].metric_names
             if all(n in t.metrics_sys and t.metrics_sys[n] is not None for t in tables)]
    humans = [t.human_sys for t in tables]
    return humans, {n: [t.metrics_sys[n] for t in tables] for n in names}


# Significance ---------------------------------------------------------------------------

def rank_task(tables, result: TaskResult, options: Options) -> TaskResult:
    """Sort the metrics, compare every pair with a permutation test, assign cluster ranks."""
    from . import metaeval as me

    order = sorted(result.values, key=lambda n: (-_sort_value(result.values[n]), n))
    n = len(order)
    p = np.full((n, n), np.nan)
    for i in range(n):
        for j in range(i + 1, n):
            test = _compare(tables, result, order[i], order[j], options)
            p[i, j] = test.p
            result.draws[(order[i], order[j])] = test.draws
    result.order, result.p = order, p
    result.ranks = dict(zip(order, me.assign_ranks(p, options.threshold))) if n else {}
    return result


def _sort_value(value: float) -> float:
    return -np.inf if np.isnan(value) else value


def _compare(tables, result: TaskResult, a: str, b: str, options: Options):
    """The permutation test of "metric a is better than metric b" on this task."""
    from . import metaeval as me
    from . import permutation as pt

    measure = result.measure
    seed = options.seed
    stop = dict(early_stop=pt.MTME_EARLY_STOP if options.early_stop else None)
    if measure.level == "pa":
        humans, metrics = _pooled_system_scores(tables)
        human = np.concatenate(humans)
        sizes = [len(h) for h in humans]
        stat = PooledAccuracy(human, sizes)
        return pt.paired_permutation(stat, np.concatenate(metrics[a]), np.concatenate(metrics[b]),
                                     options.permutations, seed, **stop)
    (table,) = tables
    if measure.level == "sys":
        stat = pt.CellStatistic(measure.statistic, table.human_sys, np.array([0, len(table.human_sys)]),
                                variant=_variant(measure, options))
        return pt.paired_permutation(stat, table.metrics_sys[a], table.metrics_sys[b], options.permutations, seed,
                                     **stop)
    ma, mb = table.metrics[a], table.metrics[b]
    if measure.level == "spa":
        keep = me.complete_segments(table.human, ma, mb)
        stat = pt.SpaStatistic(table.human[:, keep], options.permutations, options.spa_seed)
        return pt.paired_permutation(stat, ma[:, keep].ravel(), mb[:, keep].ravel(), options.permutations, seed,
                                     **stop)
    cells = me.grouped_cells(table.human, [ma, mb], measure.average_by)
    if measure.statistic == "accuracy" and measure.average_by != "none":
        return pt.pairwise_permutation(cells.human, cells.metrics[0], cells.metrics[1], cells.offsets, "acc-eq",
                                       result.epsilons.get(a, 0.0), result.epsilons.get(b, 0.0),
                                       options.permutations, seed, **stop)
    stat = pt.CellStatistic(measure.statistic, cells.human, cells.offsets, variant=_variant(measure, options),
                            epsilon=options.epsilon,
                            calibrate=measure.statistic == "accuracy" and options.epsilon is None)
    return pt.paired_permutation(stat, cells.metrics[0], cells.metrics[1], options.permutations, seed, **stop)


class PooledAccuracy:
    """Pairwise accuracy pooled over language pairs, for (K, n) batches of system-score vectors.

    As mt-metrics-eval's ``_Accuracy`` in ``CompareMetricsWithGlobalAccuracy``: the
    vectors are the concatenated system scores of every lp; a pair counts within
    its lp only; accuracy = Σ agreeing pairs / Σ pairs (Kocmi et al. 2021).
    """

    def __init__(self, human: np.ndarray, sizes: list[int]):
        parts_i, parts_j, start = [], [], 0
        for n in sizes:
            i, j = np.triu_indices(n, 1)
            parts_i.append(i + start)
            parts_j.append(j + start)
            start += n
        self.i, self.j = np.concatenate(parts_i), np.concatenate(parts_j)
        h = np.asarray(human, np.float64)
        ok = ~(np.isnan(h[self.i]) | np.isnan(h[self.j]))
        self.i, self.j = self.i[ok], self.j[ok]
        self.sign = np.sign(h[self.i] - h[self.j])

    def values(self, M) -> np.ndarray:
        M = np.atleast_2d(M)
        agree = np.sign(M[:, self.i] - M[:, self.j]) == self.sign
        return agree.mean(axis=1) if len(self.i) else np.full(M.shape[0], np.nan)

    def hybrid_values(self, ms1, ms2, bits):
        return self.values(np.where(bits, ms1, ms2)), self.values(np.where(bits, ms2, ms1))


# The average over tasks -----------------------------------------------------------------

def average_over_tasks(results: list[TaskResult], threshold: float = 0.05):
    """({metric: average}, {metric: cluster rank}, order) over the metrics present in every task.

    Equal weights; values rescaled by each task's range (module docstring); the
    p-value of "a better than b" is the share of summed rescaled draw differences
    at least the observed average difference (mt-metrics-eval AverageCorrMatrix).
    """
    from . import metaeval as me

    if not results:
        return {}, {}, []
    common = set(results[0].values)
    for r in results[1:]:
        common &= set(r.values)
    weight = 1.0 / len(results)

    def scaled(r, v):
        lo, hi = r.measure.value_range
        return (v - lo) / (hi - lo)

    avg = {m: sum(weight * scaled(r, r.values[m]) for r in results) for m in common}
    order = sorted(avg, key=lambda m: (-_sort_value(avg[m]), m))
    n = len(order)
    p = np.full((n, n), np.nan)
    for i in range(n):
        for j in range(i + 1, n):
            a, b = order[i], order[j]
            draws = [_pair_draws(r, a, b) for r in results]
            if any(d is None or not len(d) for d in draws):
                continue
            k = max(len(d) for d in draws)
            null = np.zeros(k)
            for r, d in zip(results, draws):
                d = weight * scaled(r, d)
                diff = d[:, 0] - d[:, 1]
                null += np.tile(diff, int(np.ceil(k / len(diff))))[:k]
            p[i, j] = float(np.mean(null >= avg[a] - avg[b]))
    ranks = dict(zip(order, me.assign_ranks(p, threshold))) if n else {}
    return avg, ranks, order


def _pair_draws(result: TaskResult, a: str, b: str):
    """The (k, 2) draws of (a, b) in this task, columns in that order."""
    if (a, b) in result.draws:
        return result.draws[(a, b)]
    if (b, a) in result.draws:
        return result.draws[(b, a)][:, ::-1]
    return None
