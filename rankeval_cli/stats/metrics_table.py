"""The WMT22-24 metrics table: which statistics, on which tasks, and the average over them.

A *task* is one statistic (a :class:`Measure`) on one language pair's
:class:`~rankeval_cli.formats.sysseg.SysSegTable`, or pairwise accuracy on all
language pairs pooled (WMT22-23's global accuracy, when there are several).
Each task is ranked by :func:`metaeval.compare.compare_metrics`: metrics sorted by value,
every pair compared with a paired permutation test, cluster ranks. The average
over tasks is :func:`metaeval.tasks.average_comparison` with equal weights (WMT24's
choice): every per-lp task, with pairwise accuracy counted once, pooled, when
there are several language pairs. docs/meta-evaluation.md defines each statistic.
"""

from __future__ import annotations

from dataclasses import dataclass

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
    names = [n for t in texts for n in t.split(",") if n.strip()] if texts else list(DEFAULT_MEASURES)
    if not texts and average_by is not None:  # one grouping for every segment measure of the default
        names = [n.split("@")[0] for n in names]
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
    early_stop: bool = True  # mt-metrics-eval's Task default: blocks of 100, stop when p < 0.02 or p > 0.5
    weights: str = "uniform"  # uniform (WMT24) or wmt23 (pooled pairwise accuracy weighs as many lps)


def compare_task(tables, measure: Measure, options: Options, rng):
    """:class:`metaeval.Comparison` of the metrics that have the scores ``measure`` needs.

    ``tables``: one table, or all of them for pooled pairwise accuracy. ``rng`` is
    one ``RandomState`` stream that every task consumes in turn (as mt-metrics-eval
    runs its tasks), so the whole table follows from ``--seed``.
    """
    from .metaeval import compare, permutation

    stop = permutation.MTME_EARLY_STOP if options.early_stop else None
    common = dict(permutations=options.permutations, seed=rng, early_stop=stop, threshold=options.threshold,
                  spa_permutations=options.permutations)
    if measure.level == "pa":
        names = [n for n in tables[0].metric_names if all(t.metrics_sys.get(n) is not None for t in tables)]
        if not names:
            return None
        metrics = {n: [t.metrics_sys[n] for t in tables] for n in names}
        return compare.compare_metrics([t.human_sys for t in tables], metrics, "accuracy", level="sys", **common)
    (table,) = tables
    if measure.level == "sys":
        metrics = {n: table.metrics_sys[n] for n in table.metric_names if table.metrics_sys[n] is not None}
        if not metrics:
            return None
        return compare.compare_metrics(table.human_sys, metrics, measure.statistic, level="sys",
                                  variant=_variant(measure, options), **common)
    metrics = {n: table.metrics[n] for n in table.metric_names if table.metrics[n] is not None}
    if not metrics:
        return None
    if measure.level == "spa":
        return compare.compare_metrics(table.human, metrics, "spa", level="sys", **common)
    calibrate = measure.statistic == "accuracy" and options.epsilon is None
    return compare.compare_metrics(table.human, metrics, measure.statistic, level="seg", average_by=measure.average_by,
                              variant=_variant(measure, options),
                              epsilon=options.epsilon if measure.statistic == "accuracy" else None,
                              calibrate=calibrate, **common)


def _variant(measure: Measure, options: Options) -> str | None:
    return options.variant if measure.statistic == "kendall" else None


def run_table(tables, measures: list[Measure], options: Options):
    """({(lp, measure name): Comparison}, the average Comparison or None).

    Per-lp tasks for every measure; with several language pairs, pairwise
    accuracy also pooled over them (key ``("all", "sys-pa")``), and that pooled
    task, not the per-lp ones, enters the average.
    """
    from .metaeval import permutation
    from .metaeval.tasks import average_comparison

    rng = permutation.as_rng(options.seed)
    results = {}
    for table in tables:
        for measure in measures:
            results[(table.lp, measure.name)] = compare_task([table], measure, options, rng)
    pooled = len(tables) > 1
    for measure in measures:
        if measure.level == "pa" and pooled:
            results[("all", measure.name)] = compare_task(tables, measure, options, rng)
    keys = [(lp, name) for (lp, name), r in results.items()
            if r is not None and (lp == "all" or not (pooled and name == "sys-pa"))]
    tasks = [results[k] for k in keys]
    weights = task_weights(keys, len(tables), options.weights)
    average = average_comparison(tasks, weights, threshold=options.threshold) if tasks else None
    return results, average


def task_weights(keys, n_lps: int, scheme: str) -> list[float]:
    """Weights of the averaged tasks, summing to 1.

    ``uniform``: all equal (WMT24-25). ``wmt23``: pairwise accuracy (pooled over the
    language pairs) weighs as many as there are language pairs, every other task 1
    (WMT23, Freitag et al. 2023; with its four statistics this is mt-metrics-eval's
    ``wmt23_weights``).
    """
    raw = [float(n_lps) if scheme == "wmt23" and name == "sys-pa" else 1.0 for _, name in keys]
    total = sum(raw)
    return [w / total for w in raw]
