"""The WMT22-24 metrics table: which statistics, on which tasks, and the average over them.

A *task* is one statistic (a :class:`Measure`) on one language pair's
:class:`~rankeval_cli.formats.sysseg.SysSegTable`, or pairwise accuracy on all
language pairs pooled (WMT22-23's global accuracy, when there are several).
Each task is ranked as :func:`metaeval.compare.compare_metrics` ranks it: metrics sorted by
value, every pair compared with a paired permutation test (all pairs of all tasks as work
units, :mod:`metaeval.pair_units`), cluster ranks. The average
over tasks is :func:`metaeval.tasks.average_comparison` with equal weights (WMT24's
choice): every per-lp task, with pairwise accuracy counted once, pooled, when
there are several language pairs. docs/meta-evaluation-statistics.md defines each statistic.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..vocabulary import DEFAULT_SEED
from ..vocabulary import GROUPINGS, PERMUTATION_STREAMS, TASK_SET_WEIGHTS

#: base name -> (level, statistic). Levels: seg (segment matrices, grouped), sys (system scores),
#: pa (pairwise accuracy of system scores), spa (soft pairwise accuracy from segment scores).
MEASURES = {
    "seg-acc-eq": ("seg", "accuracy"),
    "seg-pearson": ("seg", "pearson"),
    "seg-spearman": ("seg", "spearman"),
    "seg-kendall": ("seg", "kendall"),
    "seg-pdp": ("seg", "pdp"),
    "sys-pearson": ("sys", "pearson"),
    "sys-spearman": ("sys", "spearman"),
    "sys-kendall": ("sys", "kendall"),
    "sys-pa": ("pa", "accuracy"),
    "spa": ("spa", "spa"),
}
ALIASES = {"pairwise-accuracy": "sys-pa", "pa": "sys-pa", "acc": "sys-pa", "soft-pairwise-accuracy": "spa",
           "sys-spa": "spa", "pdp": "seg-pdp", "acc-eq": "seg-acc-eq", "seg-acc23": "seg-acc-eq", "acc23": "seg-acc-eq"}
#: The WMT24 table: system-level pairwise accuracy and SPA, system Pearson, segment acc-eq with
#: tie calibration grouped by item, segment Pearson without grouping and grouped by item.
DEFAULT_MEASURES = ("sys-pa", "spa", "sys-pearson", "seg-acc-eq@item", "seg-pearson@none", "seg-pearson@item")
#: The WMT24-25 task set (mt-metrics-eval tasks.WMT24, tasks.WMT25): per language pair SPA and
#: tie-calibrated acc-eq grouped by item, equal weights; the measures of ``--task-weights wmt25``.
WMT25_MEASURES = ("spa", "seg-acc-eq@item")
#: The WMT23 task set (mt-metrics-eval tasks.WMT23): pairwise accuracy pooled over the language
#: pairs, then per language pair system Pearson, segment Pearson and tie-calibrated acc-eq by item.
WMT23_MEASURES = ("sys-pa", "sys-pearson", "seg-pearson@none", "seg-acc-eq@item")
#: The WMT22 task set (mt-metrics-eval's wmt22_metrics notebook): pooled pairwise accuracy, then per
#: language pair system Pearson and Kendall, segment Pearson and Kendall by none, system and item.
WMT22_MEASURES = ("sys-pa", "sys-pearson", "sys-kendall", "seg-pearson@none", "seg-kendall@none",
                  "seg-pearson@system", "seg-kendall@system", "seg-pearson@item", "seg-kendall@item")
#: ``--task-weights`` (vocabulary.TASK_WEIGHTS): the scheme, and the measures it takes by default.
#: wmt22 and wmt23 weigh whatever measures are given; wmt24 and wmt25 (the same task set) average
#: only theirs.
WEIGHT_SCHEMES = {"uniform": DEFAULT_MEASURES, "wmt22": WMT22_MEASURES, "wmt23": WMT23_MEASURES,
                  "wmt24": WMT25_MEASURES, "wmt25": WMT25_MEASURES}
TASK_SET_ONLY = TASK_SET_WEIGHTS


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


def parse_measures(texts, average_by: str | None = None, weights: str = "uniform") -> list[Measure]:
    """Measures from repeatable, comma-separated ``-m`` values (default: the WMT24 table; with
    ``weights="wmt22"`` ... ``"wmt25"`` that year's task set)."""
    default = WEIGHT_SCHEMES.get(weights, DEFAULT_MEASURES)
    names = [n for t in texts for n in t.split(",") if n.strip()] if texts else list(default)
    if not texts and average_by is not None:  # one grouping for every segment measure of the default
        names = [n.split("@")[0] for n in names]
    out = []
    for name in names:
        measure = parse_measure(name, average_by)
        if measure not in out:
            out.append(measure)
    return out


#: where the permutation trials draw from (:mod:`.metaeval.pair_units`)
STREAMS = PERMUTATION_STREAMS


@dataclass
class Options:
    """Settings shared by every task."""

    permutations: int = 1000
    seed: int = DEFAULT_SEED
    epsilon: float | None = None  # fixed metric tie threshold; None = calibrated (acc-eq)
    variant: str = "b"  # tau variant of seg-kendall / sys-kendall
    threshold: float = 0.05  # p-value at which a metric starts a new cluster
    early_stop: bool = True  # mt-metrics-eval's Task default: blocks of 100, stop when p < 0.02 or p > 0.5
    weights: str = "uniform"  # WEIGHT_SCHEMES: every task, wmt22, wmt23, or the WMT24-25 task set (task_weights)
    stream: str = "per-pair"  # STREAMS: each pair of metrics its own random stream, or mt-metrics-eval's one
    spa_sums: str = "exact"  # metaeval.system.SPA_SUMS: SPA's sign-flip sums exact, or mt-metrics-eval's float32

    @property
    def spa(self):
        from .metaeval.system import SpaSpec

        return SpaSpec(sums=self.spa_sums)


@dataclass
class TaskInputs:
    """What one task reads: the human scores and each metric's (those with the scores it needs)."""

    kind: str  # pa (system scores, pooled over tables), sys, spa (segment matrices), seg
    human: object
    metrics: dict


def task_inputs(tables, measure: Measure) -> TaskInputs | None:
    """The inputs of ``measure`` on one table, or on all of them for pooled pairwise accuracy;
    None when no metric has the scores it needs."""
    if measure.level == "pa":
        names = [n for n in tables[0].metric_names if all(t.metrics_sys.get(n) is not None for t in tables)]
        metrics = {n: [t.metrics_sys[n] for t in tables] for n in names}
        return TaskInputs("pa", [t.human_sys for t in tables], metrics) if metrics else None
    (table,) = tables
    if measure.level == "sys":
        metrics = {n: table.metrics_sys[n] for n in table.metric_names if table.metrics_sys[n] is not None}
        return TaskInputs("sys", table.human_sys, metrics) if metrics else None
    metrics = {n: table.metrics[n] for n in table.metric_names if table.metrics[n] is not None}
    return TaskInputs(measure.level, table.human, metrics) if metrics else None


def _seg_options(measure: Measure, options: Options) -> dict:
    """The segment-level options of ``measure`` (no None entries)."""
    out = {"variant": _variant(measure, options)}
    if measure.statistic == "accuracy":
        out["epsilon"] = options.epsilon
        out["calibrate"] = options.epsilon is None
    return {k: v for k, v in out.items() if v is not None and v is not False}


def rank_task(tables, measure: Measure, options: Options):
    """:class:`metaeval.compare.RankedMetrics` of the metrics that have the scores ``measure``
    needs (None when none has); ``tables``: one table, or all of them for pooled pairwise accuracy."""
    from .metaeval import compare

    inputs = task_inputs(tables, measure)
    if inputs is None:
        return None
    if inputs.kind == "pa":
        return compare.rank_metrics(inputs.human, inputs.metrics, "accuracy", level="sys")
    if inputs.kind == "sys":
        return compare.rank_metrics(inputs.human, inputs.metrics, measure.statistic, level="sys",
                                    variant=_variant(measure, options))
    if inputs.kind == "spa":
        return compare.rank_metrics(inputs.human, inputs.metrics, "spa", level="sys", spa=options.spa)
    return compare.rank_metrics(inputs.human, inputs.metrics, measure.statistic, level="seg",
                                average_by=measure.average_by, **_seg_options(measure, options))


def pair_tests(ranked: dict, options: Options) -> dict:
    """Every task's pair tests: each pair on its own stream as work units (``stream="per-pair"``),
    or mt-metrics-eval's single stream in table order (``"mtme"``); see :mod:`.metaeval.pair_units`."""
    from .metaeval import pair_units, permutation

    stop = permutation.MTME_EARLY_STOP if options.early_stop else None
    if options.stream == "mtme":
        return pair_units.serial_tests(ranked, options.permutations, options.seed, stop)
    return pair_units.parallel_tests(ranked, options.permutations, options.seed, stop)


def _variant(measure: Measure, options: Options) -> str | None:
    return options.variant if measure.statistic == "kendall" else None


@dataclass
class TableResult:
    """Every task's :class:`metaeval.Comparison` (key (lp, measure name); lp "all" for pooled pairwise
    accuracy), the averaged tasks with their weights, the average, and the intervals if asked for:
    ``intervals[key] = {metric: (low, high)}``, ``average_intervals = {metric: (low, high)}``."""

    results: dict
    keys: list
    weights: list
    average: object
    intervals: dict | None = None
    average_intervals: dict | None = None


def run_table(tables, measures: list[Measure], options: Options, *, ci: float | None = None,
              replicates: int = 1000, workers: int | None = None, scheduler: str | None = None) -> TableResult:
    """Every task, the average over tasks, and with ``ci`` the bootstrap intervals (:func:`table_intervals`).

    Per-lp tasks for every measure; with several language pairs, pairwise
    accuracy also pooled over them (key ``("all", "sys-pa")``), and that pooled
    task, not the per-lp ones, enters the average.
    """
    from .metaeval.compare import clusters
    from .metaeval.tasks import average_comparison

    ranked = {}  # (lp, measure) -> RankedMetrics
    pooled = len(tables) > 1
    for measure in measures:  # pooled pairwise accuracy first, as mt-metrics-eval's task sets
        if measure.level == "pa" and pooled:
            ranked[("all", measure.name)] = rank_task(tables, measure, options)
    for table in tables:
        for measure in measures:
            ranked[(table.lp, measure.name)] = rank_task([table], measure, options)
    keys = averaged_keys([k for k, r in ranked.items() if r is not None], pooled, options.weights)
    order = [*keys, *(k for k in ranked if k not in keys)]  # mt-metrics-eval's task order, then the rest
    tests = pair_tests({k: ranked[k] for k in order if ranked[k] is not None}, options)
    results = {k: None if r is None else clusters(r, tests[k], options.threshold) for k, r in ranked.items()}
    tasks = [results[k] for k in keys]
    weights = task_weights(keys, len(tables), options.weights)
    average = average_comparison(tasks, weights, threshold=options.threshold) if tasks else None
    out = TableResult(results, keys, weights, average)
    if ci is not None:
        table_intervals(out, tables, measures, options, ci, replicates, workers, scheduler)
    return out


def table_intervals(table: TableResult, tables, measures, options: Options, level: float, replicates: int,
                    workers: int | None = None, scheduler: str | None = None) -> None:
    """Bootstrap intervals of every task and of the average (:mod:`.metaeval.intervals`).

    Segment-level tasks resample the segments of their language pair, system-level ones
    (correlations of system scores, pairwise accuracy, SPA) its systems; every task of a
    language pair that resamples the same units draws the same resamples (seed ``--seed``),
    and the pooled pairwise accuracy uses each language pair's system resamples. Replicate
    r of the average is the weighted average of the tasks' replicates r. The intervals are
    percentile intervals of the replicates, except Fisher's z interval for system-level
    Pearson, Spearman and tau-b (:func:`fisher_z_applies`), whose replicates still enter the
    average's.
    """
    import numpy as np

    from .metaeval import intervals as iv

    by_lp = {t.lp: t for t in tables}
    measure_by_name = {m.name: m for m in measures}
    jobs, job_keys = [], []
    for (lp, name), comparison in table.results.items():
        if comparison is None:
            continue
        measure = measure_by_name[name]
        group = tables if lp == "all" else [by_lp[lp]]
        inputs = task_inputs(group, measure)
        names = list(inputs.metrics)
        scores = [inputs.metrics[n] for n in names]
        systems = [(t.lp, "systems") for t in group], [len(t.systems) for t in group]
        if inputs.kind == "pa":
            job = iv.Job("pa", inputs.human, scores, *systems)
        elif inputs.kind == "sys":
            job = iv.Job("sys", inputs.human, scores, *systems, statistic=measure.statistic,
                         variant=_variant(measure, options))
        elif inputs.kind == "spa":
            job = iv.Job("spa", inputs.human, scores, *systems, spa=options.spa)
        else:
            spec = iv.SegSpec(measure.statistic, measure.average_by, _seg_options(measure, options))
            job = iv.Job("seg", inputs.human, scores, [(lp, "segments")], [group[0].human.shape[1]], spec=spec)
        jobs.append(job)
        job_keys.append(((lp, name), names))
    values = iv.run_jobs(jobs, replicates, options.seed, workers=workers, scheduler=scheduler)
    table.intervals = {}
    draws = {}
    for (key, names), reps, job in zip(job_keys, values, jobs):
        low, high = iv.percentiles(reps, level)
        table.intervals[key] = {n: (float(lo), float(hi)) for n, lo, hi in zip(names, low, high)}
        if fisher_z_applies(job.kind, job.statistic, job.variant):
            comparison = table.results[key]
            for n, metric in zip(names, job.metrics):
                present = int(np.sum(~(np.isnan(np.asarray(job.human, float)) | np.isnan(np.asarray(metric, float)))))
                value = float(comparison.values[comparison.names.index(n)])
                table.intervals[key][n] = iv.fisher_z_interval(value, present, job.statistic, level)
        draws[key] = {n: reps[:, k] for k, n in enumerate(names)}
    table.average_intervals = {}
    if table.average is not None:
        names = list(table.average.names)
        avg = np.zeros((replicates, len(names)))
        for key, w in zip(table.keys, table.weights):
            lo, hi = table.results[key].range
            avg += np.column_stack([w * (draws[key][n] - lo) / (hi - lo) for n in names])
        low, high = iv.percentiles(avg, level)
        table.average_intervals = {n: (float(a), float(b)) for n, a, b in zip(names, low, high)}


def averaged_keys(keys, pooled: bool, scheme: str) -> list:
    """The tasks the average takes, in mt-metrics-eval's order (pooled pairwise accuracy first, then
    each language pair's): every task, pairwise accuracy only pooled when there are several
    language pairs; for wmt24 and wmt25 only their task set."""
    keys = [(lp, name) for lp, name in keys if lp == "all" or not (pooled and name == "sys-pa")]
    if scheme in TASK_SET_ONLY:
        keys = [(lp, name) for lp, name in keys if name in WEIGHT_SCHEMES[scheme]]
    return keys


def fisher_z_applies(kind: str, statistic: str | None, variant: str | None) -> bool:
    """Whether a task's interval is Fisher's z (system-level Pearson, Spearman, Kendall's tau-b)
    rather than the percentile bootstrap (every other statistic)."""
    return kind == "sys" and statistic in ("pearson", "spearman", "kendall") and \
        (statistic != "kendall" or (variant or "b") == "b")


def interval_methods(measures, variant: str | None) -> str:
    """The signature's name of the interval methods of ``measures``: ``percentile``,
    ``fisher-z`` or both (``fisher-z+percentile``)."""
    kinds = {"fisher-z" if fisher_z_applies("sys" if m.level == "sys" else m.level, m.statistic, variant)
             else "percentile" for m in measures}
    return "+".join(sorted(kinds))


def task_weights(keys, n_lps: int, scheme: str) -> list[float]:
    """Weights of the averaged tasks, summing to 1.

    ``uniform``: all equal. ``wmt22``: split evenly among the language pairs (pooled pairwise
    accuracy counting as one), within each among the levels, then the groupings, then the
    statistics (mt-metrics-eval's ``AssignWeights``, as its WMT22 notebook weighs the tasks).
    ``wmt23``: pairwise accuracy (pooled over the language pairs) weighs as many as there are
    language pairs, every other task 1 (WMT23, Freitag et al. 2023; with its four statistics
    this is mt-metrics-eval's ``tasks.WMT23``). ``wmt24``, ``wmt25``: all equal, ``keys``
    being their task set (per language pair SPA and acc-eq by item; ``tasks.WMT24``, ``WMT25``).
    """
    if scheme == "wmt22":
        from .metaeval.tasks import nested_weights

        return nested_weights([_task_attributes(lp, parse_measure(name)) for lp, name in keys])
    raw = [float(n_lps) if scheme == "wmt23" and name == "sys-pa" else 1.0 for _, name in keys]
    total = sum(raw)
    return [w / total for w in raw]


def _task_attributes(lp: str, measure: Measure) -> tuple:
    """(language pair, level, grouping, statistic) of a task, as mt-metrics-eval's Task names them."""
    level = "seg" if measure.level == "seg" else "sys"
    return lp, level, measure.average_by or "none", measure.name.split("@")[0]


def pair_rows(table: TableResult) -> list[dict]:
    """One row per pair of metrics per task, then per pair of the average over tasks (lp ``all``,
    statistic ``avg``): the better metric, the other, the difference of their values and the
    permutation p-value of "metric is better than against" (with the trials it ran), in table
    order — the numbers behind each task's clusters."""
    rows = []
    tasks = [(key, c) for key, c in table.results.items() if c is not None]
    if table.average is not None:
        tasks.append((("all", "avg"), table.average))
    for (lp, statistic), comparison in tasks:
        names, values = comparison.names, comparison.values
        for i in range(len(names)):
            for j in range(i + 1, len(names)):
                trials = int(comparison.trials[i, j])
                rows.append({"lp": lp, "statistic": statistic, "metric": names[i], "against": names[j],
                             "delta": float(values[i] - values[j]), "p_permutation": float(comparison.p[i, j]),
                             "trials": trials or None})
    return rows
