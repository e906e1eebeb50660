"""What a run's per-query values become: one summary record per run and measure, one record
per query, or trec_eval's printed lines."""

from __future__ import annotations


def summary_value(measure, run, settings) -> float:
    """The ``all`` value; with --all-queries, num_rel's is trec_eval's count of the judgments
    with grade > 0 (whatever --rel-level), as its ``te_calc_avg_num_rel`` computes it."""
    from ..measures.ir import summary_value as reduce

    if measure.kind == "num_rel" and settings.all_queries:
        return float(run.positive)
    return reduce(measure, run.values(measure.name))


def summary_records(runs, measures, settings, resampling=None, attach_interval=None) -> list:
    """One record per run and measure: system, measure, value, groups, signature; with
    ``resampling``, ``attach_interval(record, values)`` adds the interval of a mean
    (``(None, None)`` values for the summed counts)."""
    records = []
    for run in runs:
        for m in measures:
            values = run.values(m.name)
            record = {"system": run.label, "measure": m.name, "value": summary_value(m, run, settings),
                      "groups": len(values)}
            extra = resampling.signature() if resampling is not None and not m.summed else {}
            if resampling is not None:
                record = attach_interval(record, None if m.summed else values)
            record["signature"] = settings.signature(m, **extra)
            records.append(record)
    return records


def per_query_records(run, measures) -> list:
    columns = {m.name: run.values(m.name).tolist() for m in measures}
    return [{"system": run.label, "group": q, **{name: col[i] for name, col in columns.items()}}
            for i, q in enumerate(run.qids)]


def trec_lines(run, measures, per_query: bool, settings) -> str:
    """trec_eval's layout: ``%-22s\\t%s\\t%6.4f`` (counts as integers), per query then ``all``."""
    def fmt(m, value):
        return f"{int(round(value))}" if m.summed else f"{value:6.4f}"

    lines = []
    if per_query:
        columns = {m.name: run.values(m.name).tolist() for m in measures}
        for i, q in enumerate(run.qids):
            for m in measures:
                lines.append(f"{m.name:<22s}\t{q}\t{fmt(m, columns[m.name][i])}")
    for m in measures:
        lines.append(f"{m.name:<22s}\tall\t{fmt(m, summary_value(m, run, settings))}")
    return "".join(line + "\n" for line in lines)
