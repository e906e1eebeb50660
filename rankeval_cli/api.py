"""The Python API: every measure for one group (arrays in, a value out) and for a whole stream.

Keywords are the command line's option names (``tau_variant``, ``higher_better``,
``tie_policy``, ``relevance``, ``k``, ``gain``, ``rel_max``, ``missing_pred``, ``by``, ...), with the
same defaults, so a notebook and a Makefile give the same numbers. Definitions:
docs/definitions.md.

One group: ``gold`` and ``pred`` are sequences of equal length; NaN (or None) is a missing
value. Values are ranks, lower = better, unless ``higher_better=True`` (scores) or, for gold,
``relevance="grades"`` (graded relevance, higher = better).

A whole stream: :func:`evaluate` takes a path (any format ``rankeval`` reads as a canonical
stream: TSV, JSON lines, Parquet, Arrow, gzip allowed), a pandas or polars DataFrame or a
pyarrow Table with ``group``, ``item``, ``gold``, ``pred`` columns (plus any extra, e.g. ``lp``
for ``by=["lp"]``), or a file object, and returns the summary records exactly as ``rankeval
MEASURE --output-format jsonl`` prints them (or, with ``frame="pandas"``/``"polars"``, as a
DataFrame).

Runs and qrels: :func:`ir_evaluate` and :func:`trec_eval` take DataFrames (ir_measures',
ir_datasets', PyTerrier's and ranx's column names), dicts of dicts, ir_measures tuples or
paths (:mod:`rankeval_cli.frames`).
"""

from __future__ import annotations

import io
import math

from .vocabulary import (COMPARED_MEASURES, DEFAULT_GAIN, DEFAULT_IR_TESTS, DEFAULT_LEVEL, DEFAULT_MISSING_PRED,
                         DEFAULT_RELEVANCE, DEFAULT_REPLICATES, DEFAULT_SEED, DEFAULT_TAU_VARIANT, DEFAULT_TIE_POLICY,
                         TREC_TIE_POLICY)

#: options of where the work runs (--jobs, --scheduler): accepted by :func:`evaluate`, not listed as its options
PARALLEL = ("jobs", "scheduler")
#: the commands :func:`evaluate` runs, by measure name.
MEASURE_COMMANDS = (*COMPARED_MEASURES, "report")


def _oriented(gold, pred, higher_better: bool, relevance: str = DEFAULT_RELEVANCE):
    """gold, pred as float arrays in rank order (lower = better), as the commands orient them."""
    import numpy as np

    gold = np.asarray([math.nan if g is None else g for g in gold], dtype=np.float64)
    pred = np.asarray([math.nan if p is None else p for p in pred], dtype=np.float64)
    if higher_better:
        return (gold if relevance == "grades" else -gold), -pred
    return gold, pred


def tau(gold, pred, *, tau_variant: str = DEFAULT_TAU_VARIANT, higher_better: bool = False,
        epsilon: float = 0.0) -> float:
    """Kendall's tau of one group with a tie convention (``tau_variant``: penalize, ignore, wmt14,
    include, a, b, c, eq, acc-eq); NaN when undefined. ``epsilon``: pred pairs with
    |Δpred| ≤ ε are ties (eq, acc-eq).

    >>> round(tau([1, 2, 2, 3, 4], [2, 1, 1.5, 5, 3], tau_variant="b", higher_better=True), 9)
    0.316227766
    """
    from .measures.tau import tau as group_tau

    gold, pred = _oriented(gold, pred, False)
    return group_tau(gold, pred, tau_variant, scores=higher_better, epsilon=epsilon)


def rr(gold, pred, *, k: int | None = None, tie_policy: str = DEFAULT_TIE_POLICY,
       relevance: str = DEFAULT_RELEVANCE, higher_better: bool = False,
       missing_pred: str = DEFAULT_MISSING_PRED) -> float:
    """Reciprocal rank of the best gold item (Avramidis 2013 §3.2); with grades, of the first
    relevant (grade > 0) item. ``k``: 0 beyond position k.

    >>> rr([1, 2, 3], [2, 1, 3])
    0.5
    """
    from .measures.rr import reciprocal_rank

    gold, pred = _oriented(gold, pred, higher_better, relevance)
    return reciprocal_rank(gold, pred, tie_policy=tie_policy, relevance=relevance, missing_pred=missing_pred, k=k)


def ndcg(gold, pred, *, k: int | None = None, gain: str = DEFAULT_GAIN, tie_policy: str = DEFAULT_TIE_POLICY,
         relevance: str = DEFAULT_RELEVANCE, higher_better: bool = False,
         missing_pred: str = DEFAULT_MISSING_PRED) -> float:
    """NDCG@k of one group (gain ``exp`` = 2^rel − 1 or ``linear`` = rel).

    >>> # (3 + (0 + 2)/2 · (1/log2 3 + 1/log2 4)) / (3 + 2/log2 3): the tied pair shares its discounts
    >>> round(ndcg([3, 0, 2], [0.9, 0.8, 0.8], relevance="grades", higher_better=True, gain="linear",
    ...            tie_policy="expected"), 6)
    0.969279
    """
    from .measures.dcg import ndcg as group_ndcg

    gold, pred = _oriented(gold, pred, higher_better, relevance)
    return group_ndcg(gold, pred, k=k, gain=gain, tie_policy=tie_policy, relevance=relevance,
                      missing_pred=missing_pred)


def err(gold, pred, *, k: int | None = None, rel_max: str | None = None, tie_policy: str = DEFAULT_TIE_POLICY,
        relevance: str = DEFAULT_RELEVANCE, higher_better: bool = False,
        missing_pred: str = DEFAULT_MISSING_PRED) -> float:
    """ERR@k of one group (Chapelle et al. 2009); ``rel_max``: n, scale:G or list-max.

    >>> round(err([1, 2], [1, 2]), 6)  # R = (2^2 - 1)/2^2, then (2^1 - 1)/2^2 at rank 2
    0.78125
    """
    from .measures.err import err as group_err

    gold, pred = _oriented(gold, pred, higher_better, relevance)
    return group_err(gold, pred, k=k, rel_max=rel_max, tie_policy=tie_policy, relevance=relevance,
                     missing_pred=missing_pred)


def rankdcg(gold, pred, *, tie_policy: str = DEFAULT_TIE_POLICY, relevance: str = DEFAULT_RELEVANCE,
            higher_better: bool = False, missing_pred: str = DEFAULT_MISSING_PRED) -> float:
    """rankDCG of one group (Katerenchuk & Rosenberg 2016); NaN when every gold value is equal.

    >>> round(rankdcg([9, 4, 4, 2, 2, 2, 1, 1, 1, 1], [9, 4, 4, 2, 2, 1, 2, 1, 1, 1], relevance="grades",
    ...               higher_better=True), 9)  # their Table 1
    0.975
    """
    from .measures.rankdcg import rankdcg as group_rankdcg

    gold, pred = _oriented(gold, pred, higher_better, relevance)
    return group_rankdcg(gold, pred, tie_policy=tie_policy, relevance=relevance, missing_pred=missing_pred)


def precision(gold, pred, *, k: int | None = None, tie_policy: str = DEFAULT_TIE_POLICY,
              relevance: str = DEFAULT_RELEVANCE, higher_better: bool = False,
              missing_pred: str = DEFAULT_MISSING_PRED) -> float:
    """P@k of one group: the share of relevant items among the first k predicted.

    >>> precision([1, 0, 1, 0, 1], [1, 2, 3, 4, 5], k=5, relevance="grades")
    0.6
    """
    from .measures.simple import precision_at_k

    gold, pred = _oriented(gold, pred, higher_better, relevance)
    return precision_at_k(gold, pred, k=k, tie_policy=tie_policy, relevance=relevance, missing_pred=missing_pred)


def average_precision(gold, pred, *, k: int | None = None, tie_policy: str = DEFAULT_TIE_POLICY,
                      relevance: str = DEFAULT_RELEVANCE, higher_better: bool = False,
                      missing_pred: str = DEFAULT_MISSING_PRED) -> float:
    """AP@k of one group.

    >>> round(average_precision([1, 0, 1, 0, 1], [1, 2, 3, 4, 5], k=5, relevance="grades"), 3)
    0.756
    """
    from .measures.simple import average_precision as group_ap

    gold, pred = _oriented(gold, pred, higher_better, relevance)
    return group_ap(gold, pred, k=k, tie_policy=tie_policy, relevance=relevance, missing_pred=missing_pred)


def trec_eval(qrels, run, measures=(), *, per_query: bool = False, complete: bool = False,
              rel_level: int = 1, depth: int | None = None, judged_only: bool = False, rel_format: str = "qrels",
              num_docs: int = 0, zscores=None, version: int = 10, tie_policy: str = TREC_TIE_POLICY) -> str:
    """What ``rankeval trec_eval`` (trec_eval 10.0) prints for a qrels file and a run file:
    ``measures`` are ``-m`` names in any spelling of docs/ir-measures.md (``P.5,10``, ``all_trec``,
    ``nDCG@10``; none = ``official``); the keywords are the options ``-q -c -l -M -J -R -N -Z``
    and ``--trec-eval-version``, ``--tie-policy``. ``qrels`` and ``run`` are paths (TREC text,
    Parquet, Arrow; an ir_datasets id for the qrels) or DataFrames, dicts of dicts or tuples
    (docs/python-api.md). A measure name that is none raises
    :class:`ValueError`; bad data, :class:`~rankeval_cli.errors.DataError`."""
    from .ir import trec_eval as te

    rel_info = None
    if not isinstance(qrels, str):  # a DataFrame, dict or Qrels (rankeval_cli.frames)
        from .frames import qrels_from

        rel_info, qrels = qrels_from(qrels), "<qrels>"
    if not isinstance(run, str):
        from .frames import run_from

        run = run_from(run)
    options = te.Options(per_query=per_query, complete=complete, rel_level=rel_level, max_docs=depth,
                         judged_only=judged_only, rel_format=rel_format, num_docs=num_docs, zscores=zscores,
                         measures=[measures] if isinstance(measures, str) else list(measures), version=version,
                         tie_policy=tie_policy)
    return te.report(options, qrels, run, rel_info=rel_info)


def ir_evaluate(qrels, runs, measures=("nDCG@10", "AP", "RR@10"), *, per_query: bool = False,
                frame: str | None = "pandas", tie_policy: str = "trec", rel_level: int = 1, depth: int | None = None,
                all_queries: bool = False):
    """``rankeval report --qrels QRELS -m ... RUNS`` in Python: IR measures of runs against qrels.

    ``qrels`` and each run are DataFrames (pandas, polars, pyarrow; columns as in
    docs/python-api.md: ``query_id, doc_id, score`` / ``relevance`` or PyTerrier's ``qid, docno,
    score`` / ``label``), dicts ``{query_id: {doc_id: value}}``, ir_measures tuples or paths;
    ``runs`` is one run or a dict name -> run. Returns the summary records (``system, measure,
    value, groups, signature``) or, with ``per_query``, one record per run and query
    (``system, group``, one column per measure), as a DataFrame (``frame`` None: a list of dicts).

    >>> qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}}
    >>> run = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d4": 1.0, "d3": 0.5}}
    >>> [(r["measure"], r["value"]) for r in ir_evaluate(qrels, run, ["AP", "P@1"], frame=None)]
    [('AP', 0.75), ('P@1', 0.5)]
    """
    from .frames import qrels_from, run_from
    from .ir.evaluate import Settings, evaluate_runs, measures_of
    from .ir.run_records import per_query_records, summary_records

    named = runs if isinstance(runs, dict) and not _is_run_dict(runs) else {None: runs}
    chosen = measures_of([measures] if isinstance(measures, str) else list(measures))
    settings = Settings(tie_policy=tie_policy, rel_level=rel_level, depth=depth, all_queries=all_queries)
    in_memory = [run_from(run, tag=name or "run") for name, run in named.items()]
    values = evaluate_runs(in_memory, qrels_from(qrels), chosen, settings)
    for v, name in zip(values, named):
        v.label = name or v.label
    records = [r for v in values for r in per_query_records(v, chosen)] if per_query else \
        summary_records(values, chosen, settings)
    return records if frame is None else _frame(records, frame)


def _is_run_dict(runs: dict) -> bool:
    """{query_id: {doc_id: score}} (one run), not {name: run}."""
    first = next(iter(runs.values()), None)
    return isinstance(first, dict) and all(isinstance(v, (int, float)) for v in first.values())


def evaluate(data, measure: str = "report", *, frame: str | None = None, **options):
    """The summary records of ``rankeval MEASURE`` on ``data``, as its JSON lines (a pandas or
    polars DataFrame of them with ``frame="pandas"`` or ``"polars"``).

    ``measure`` is tau, mrr, ndcg, err, rankdcg or report; ``options`` are the command's
    options by their Python names (``tau_variant`` is ``variant`` on the command line's
    ``--tau-variant``: both are accepted), e.g. ``evaluate(df, "ndcg", k=10, by=["lp"])``.
    Bad data raises :class:`~rankeval_cli.errors.DataError`; an unknown option, TypeError.
    """
    import json

    from .cli import call_body, main

    if measure not in MEASURE_COMMANDS:
        raise ValueError(f"unknown measure {measure!r}; known: {', '.join(MEASURE_COMMANDS)}")
    command = main.get_command(None, measure)  # (its -h stays -h: see cli.LazyGroup)
    params = {p.name: p for p in command.params if p.expose_value}
    if "tau_variant" in options:
        options["variant"] = options.pop("tau_variant")
    unknown = set(options) - set(params) - {"by"}
    if unknown:
        raise TypeError(f"rankeval {measure} has no option {', '.join(sorted(unknown))}; "
                        f"known: {', '.join(sorted(set(params) - {'files', 'output', 'output_format', *PARALLEL}))}")
    defaults = command.make_context(measure, [], resilient_parsing=True).params  # as the command line parses them
    kwargs = {name: _value(param, options[name]) if name in options else defaults.get(name)
              for name, param in params.items()}
    out = io.StringIO()
    kwargs.update(files=(_source(data),), output=out, output_format="jsonl", input_format="auto")
    call_body(command, **kwargs)
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    return records if frame is None else _frame(records, frame)


def _frame(records, kind):
    from .frames import frame

    return frame(records, kind)


def _value(param, value):
    """An option's value as the command receives it (callbacks parse names such as tau variants)."""
    if param.multiple and isinstance(value, str):
        value = (value,)
    if param.callback is not None and value is not None and not isinstance(value, bool):
        return param.callback(None, param, value)
    return value


def _source(data):
    """A path, a file object, or a DataFrame: pandas written as the canonical TSV in memory,
    polars and pyarrow as Parquet in memory."""
    from .frames import is_frame

    if is_frame(data) and not hasattr(data, "to_csv"):
        from .frames import parquet_bytes

        return parquet_bytes(data)
    if hasattr(data, "to_csv") and hasattr(data, "columns"):
        missing = [c for c in ("group", "item", "gold") if c not in data.columns]
        if missing:
            raise ValueError(f"the DataFrame needs the columns group, item, gold (and pred): missing "
                             f"{', '.join(missing)}")
        text = data.to_csv(sep="\t", index=False, na_rep="", lineterminator="\n")
        buffer = io.BytesIO(text.encode("utf-8"))
        buffer.name = "<DataFrame>"
        return buffer
    return data


# --- comparisons of systems, topic set size and power (docs/significance.md) ---------------------

def compare_systems(values, names=None, *, baselines=None, all_pairs: bool = False,
                    tests=DEFAULT_IR_TESTS, correction: str = "none", ci: float = DEFAULT_LEVEL,
                    bootstrap: int = DEFAULT_REPLICATES, permutations: int = DEFAULT_REPLICATES,
                    seed: int = DEFAULT_SEED,
                    higher_better: bool = True, jobs: int | None = None, frame: str | None = None):
    """``rankeval compare``'s records for a systems × topics matrix of per-topic values (NaN = missing).

    ``values`` is a 2-D array, a dict name → per-topic values, or a DataFrame with a row per
    system (its index names them) and a column per topic; ``frame="pandas"`` or ``"polars"``
    returns the records as a DataFrame. ``baselines`` names or
    indexes the baselines (default: the first system), ``all_pairs`` compares every pair.
    The value of a system is its mean over its topics.

    >>> # d = 0.1, 0.2, 0.1, 0.2: t = 0.15 / (√(0.01/3) / 2) = 3√3 with 3 degrees of freedom
    >>> rows = compare_systems([[0.2, 0.4, 0.3, 0.5], [0.3, 0.6, 0.4, 0.7]], ["bm25", "dense"], tests=["t"])
    >>> rows[1]["system"], round(rows[1]["delta"], 3), round(rows[1]["p_t"], 4)
    ('dense', 0.15, 0.0138)
    """
    import math

    import numpy as np

    from .stats.records import records
    from .stats import comparisons
    from .stats.resample import MeanStat

    if isinstance(values, dict):
        names, values = list(values) if names is None else names, list(values.values())
    elif hasattr(values, "index") and hasattr(values, "to_numpy"):  # a pandas DataFrame
        names, values = [str(n) for n in values.index] if names is None else names, values.to_numpy(float)
    matrix = np.atleast_2d(np.asarray(values, dtype=np.float64))
    names = [f"system{i}" for i in range(len(matrix))] if names is None else list(names)
    if len(names) != len(matrix):
        raise ValueError(f"{len(names)} names for {len(matrix)} systems")
    index = {name: i for i, name in enumerate(names)}
    chosen = [index[b] if b in index else int(b) for b in (baselines or [])]
    pairs = comparisons.pairs_of(len(names), chosen or [0], all_pairs)
    means = [math.fsum(v.tolist()) / len(v) if len(v) else math.nan for v in (r[np.isfinite(r)] for r in matrix)]
    systems = comparisons.Systems(names, MeanStat(), list(matrix), means, higher_better=higher_better)
    settings = comparisons.Settings(tests=tuple(tests), level=ci, bootstrap=bootstrap, permutations=permutations,
                                 seed=seed, correction=correction, jobs=jobs)
    outcome = comparisons.compare(systems, pairs, settings)
    rows = records(outcome, systems, settings, "value", None)
    return rows if frame is None else _frame(rows, frame)


def variance_estimates(values) -> dict:
    """The variance estimates of a complete systems × topics matrix that ``rankeval power`` uses:
    ``within`` (one-way ANOVA, Sakai 2016), ``residual`` (two-way ANOVA), ``paired`` (mean variance of
    the pairwise differences)."""
    from .stats.power import variance_estimates as estimate

    v = estimate(values)
    return {"systems": v.systems, "topics": v.topics, "within": v.within, "residual": v.residual,
            "paired": v.paired}


def topic_set_size(difference: float, variance: float, *, design: str = "t", alpha: float = 0.05,
                   power: float = 0.8, systems: int = 2) -> int:
    """Topics needed to detect ``difference`` (``anova``: the range of the means; ``ci``: the expected
    interval width) with ``power`` at ``alpha``, ``variance`` being the within-system variance σ²
    (the paired designs use σ_d² = 2σ², as ``rankeval power --variance V``; Sakai 2016).

    >>> topic_set_size(0.05, 0.04, design="t")
    254
    """
    from .stats import power as P

    if design == "t":
        return P.ttest_topics(difference, 2 * variance, alpha, power)
    if design == "anova":
        return P.anova_topics(difference, variance, systems, alpha, power)
    if design == "ci":
        return P.ci_topics(difference, 2 * variance, alpha)
    raise ValueError(f"unknown design {design!r}; expected t, anova or ci")


def achieved_power(difference: float, variance: float, topics: int, *, design: str = "t", alpha: float = 0.05,
                   systems: int = 2) -> float:
    """The power of a comparison over ``topics`` to detect ``difference`` (σ² = ``variance``, as above)."""
    from .stats import power as P

    if design == "t":
        return P.ttest_power(difference, 2 * variance, topics, alpha)
    if design == "anova":
        return P.anova_power(difference, variance, systems, topics, alpha)
    raise ValueError(f"unknown design {design!r}; expected t or anova")
