"""What a run's per-query values become: one summary record per run and measure, one record
per query, or trec_eval's printed lines (``report --output-format trec`` and ``rankeval
trec_eval``, whose ``all`` values are formed as trec_eval forms them)."""

from __future__ import annotations

import math

import numpy as np


def mean_value(measure, values) -> float:
    """A run's value from its queries': the mean (NaN without a query), the sum for counts
    (trec_eval), the geometric mean for gm_map and gm_bpref (their per-query values are
    log(max(v, 0.00001)): exp of the mean), the mean over the queries where it is defined for a
    measure undefined for some (Accuracy: NaN per query there)."""
    d = getattr(measure, "definition", None)
    if d is not None and d.summary == "defined":
        values = values[~np.isnan(values)]
    total = math.fsum(values.tolist())
    if measure.summed:
        return total
    if not len(values):
        return math.nan
    if d is not None and d.summary == "gmean":
        return math.exp(total / len(values))
    return total / len(values)


def summary_value(measure, run, settings) -> float:
    """The ``all`` value; with --all-queries, num_rel's is trec_eval's count of the judgments
    with grade > 0 (whatever --rel-level), as its ``te_calc_avg_num_rel`` computes it."""
    if measure.kind == "num_rel" and settings.all_queries:
        return float(run.positive)
    return mean_value(measure, run.values(measure.name))


def summary_records(runs, measures, settings, resampling=None, attach_interval=None) -> list:
    """One record per run and measure: system, measure, value, groups, signature; with
    ``resampling``, ``attach_interval(record, values)`` adds the interval of a mean
    (``(None, None)`` values for the summed counts)."""
    records = []
    for run in runs:
        for m in measures:
            values = run.values(m.name)
            d = m.definition
            if d is not None and d.summary == "defined":
                values = values[~np.isnan(values)]
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
        return f"{int(round(value))}" if m.summed else c_float(value)

    lines = []
    if per_query:
        columns = {m.name: run.values(m.name).tolist() for m in measures}
        for i, q in enumerate(run.qids):
            for m in measures:
                lines.append(f"{m.name:<22s}\t{q}\t{fmt(m, columns[m.name][i])}")
    for m in measures:
        lines.append(f"{m.name:<22s}\tall\t{fmt(m, summary_value(m, run, settings))}")
    return "".join(line + "\n" for line in lines)


# ---- rankeval trec_eval ---------------------------------------------------------------------

def c_float(value: float) -> str:
    """C's ``%6.4f``: NaN as ``nan`` or ``-nan`` by its sign bit, infinities as ``inf``."""
    if math.isnan(value):
        text = "-nan" if math.copysign(1.0, value) < 0 else "nan"
        return f"{text:>6}"
    if math.isinf(value):
        return f"{'-inf' if value < 0 else 'inf':>6}"
    return f"{value:6.4f}"


def c_long(value: float) -> str:
    """C's ``(long) value`` printed with ``%ld``: truncated toward zero."""
    if not math.isfinite(value):
        return str(-2 ** 63)
    return str(int(value))


def trec_eval_lines(evaluation, options) -> str:
    """What trec_eval prints for the run."""
    z = options.zscores is not None
    mark = "Z" if z else ""
    out = []
    if options.per_query:
        for i, qid in enumerate(evaluation.qids):
            for d, params in evaluation.requests:
                if not d.per_query:
                    continue
                for name in d.value_names(params):
                    v = evaluation.values[name][i]
                    if d.value == "str":
                        out.append(f"{name:<22s}\t{qid}\t'{v}'")
                    elif d.value == "int" and not z:
                        out.append(f"{name:<22s}\t{qid}\t{c_long(v)}")
                    else:
                        out.append(f"{mark}{name:<22s}\t{qid}\t{c_float(v)}")
    if options.summary:
        for d, params in evaluation.requests:
            for name in d.value_names(params):
                if d.summary == "runid":
                    out.append(f"{'runid':<22s}\tall\t{evaluation.runid}")
                    continue
                if d.summary == "none":
                    continue
                v = trec_eval_summary(d, name, evaluation, options)
                if d.value == "int" and not z:
                    out.append(f"{name:<22s}\tall\t{c_long(v)}")
                else:
                    out.append(f"{mark}{name:<22s}\tall\t{c_float(v)}")
    return "".join(line + "\n" for line in out)


def trec_eval_summary(d, name: str, evaluation, options) -> float:
    """The ``all`` value, formed as trec_eval forms it."""
    n_eval = len(evaluation.qids)
    n = evaluation.qrels_queries if options.complete else n_eval
    if d.summary == "queries":
        return float(n)
    if name == "num_rel" and options.complete:  # m_num_rel.c recounts it from the qrels (-Z or not)
        return float(evaluation.positive)
    column = evaluation.values[name]
    total = float(np.cumsum(column)[-1]) if len(column) else 0.0
    if d.summary == "sum":
        return total
    if d.summary == "gmean":
        if n <= 0:
            return total
        total += (n - n_eval) * math.log(0.00001)
        return math.exp(total / n)
    return total / n if n else total
