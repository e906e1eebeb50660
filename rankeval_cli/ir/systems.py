"""Systems of IR runs: every run on its own, or one system of several runs (seeds, folds) given as
``--system NAME=FILE,...``, and a system × query matrix of one measure's values for the paired
tests of :mod:`rankeval_cli.stats.comparisons` (``compare``, ``power``).
"""

from __future__ import annotations

import numpy as np

from .run_records import summary_value


def systems_of(runs, specs) -> tuple[list, dict]:
    """[(name, [RunValues])] and {file name: index}: the runs evaluated in order (each run file or
    run of a stream, then the files of every ``specs`` entry (name, files) in turn) as one system
    each, then one per spec; runs are also named by their file."""
    spec_files = sum(len(paths) for _, paths in specs)
    single = runs[:len(runs) - spec_files]
    grouped, start = [], len(single)
    for name, paths in specs:
        grouped.append((name, runs[start:start + len(paths)]))
        start += len(paths)
    systems = [(run.label, [run]) for run in single] + grouped
    aliases = {run.source: i for i, (_, group) in enumerate(systems[:len(single)]) for run in group
               if getattr(run, "source", None)}
    return systems, aliases


def partial_topics(systems) -> str | None:
    """A note when the runs hold different queries (pairs use the queries both have), else None."""
    sets = [set(run.qids) for _, group in systems for run in group]
    union = set().union(*sets)
    common = set.intersection(*sets) if sets else set()
    if len(common) < len(union):
        return (f"the runs hold {len(union)} queries, {len(common)} of them in every run: each pair is "
                "compared on the queries both have, a system of several runs on the queries all its runs "
                "have, ES_E and Tukey's HSD on the queries every run has")
    return None


def system_matrix(systems, measure, settings):
    """:class:`~rankeval_cli.stats.comparisons.Systems` of one measure: per system the per-query values
    (the mean over its runs) on every query any system has, NaN where it has none."""
    from ..stats import comparisons
    from ..stats.effect import runs_summary
    from ..stats.resample import MeanStat

    qids = sorted({q for _, group in systems for run in group for q in run.qids}, key=lambda q: q.encode("utf-8"))
    where = {q: i for i, q in enumerate(qids)}
    raws, values, runs = [], [], []
    for _, group in systems:
        per_run = np.full((len(group), len(qids)), np.nan)
        for r, run in enumerate(group):
            per_run[r, [where[q] for q in run.qids]] = run.values(measure.name)
        raws.append(per_run.mean(axis=0))  # NaN where a run lacks the query
        run_values = [summary_value(measure, run, settings) for run in group]
        values.append(run_values[0] if len(group) == 1 else float(np.mean(run_values)))
        runs.append(runs_summary(run_values) if len(group) > 1 else None)
    return comparisons.Systems([name for name, _ in systems], MeanStat(), raws, values, runs=runs)
