"""``rankeval agree``: how similar are two or more runs? RBO, Kendall's tau, tau_AP, overlap."""

from __future__ import annotations

import click

from dataclasses import replace

from ..vocabulary import AGREEMENT_MEASURES as MEASURES
from ..vocabulary import DEFAULT_LEVEL, RBO_TIES, SUMMARY_FORMATS
from . import _ci, _common


def _measures(ctx, param, values):
    names = [v.strip().lower() for value in values for v in value.split(",") if v.strip()]
    unknown = [n for n in names if n not in MEASURES]
    if unknown:
        raise click.BadParameter(f"unknown measure {unknown[0]!r}; known: {', '.join(MEASURES)}")
    return tuple(dict.fromkeys(names)) or MEASURES


@click.command(name="agree")
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False, allow_dash=False))
@_common.output_options(formats=SUMMARY_FORMATS)
@click.option("-m", "--measure", "measures", multiple=True, callback=_measures, metavar="MEASURE",
              shell_complete=_common.completion_of(MEASURES),
              help="rbo, tau-b, tau-ap, overlap, jaccard [default: all]\f"
                   "Measures, repeatable or comma-separated: rbo, tau-b, tau-ap, overlap, jaccard [default: all].")
@click.option("--p", "p", type=_common.FiniteFloat(0, 1, min_open=True, max_open=True), default=0.9,
              show_default=True, metavar="P", help="RBO's persistence p")
@click.option("--rbo-ties", type=click.Choice(RBO_TIES), default="a", show_default=True,
              help="RBO's tie variant\f"
                   "RBO's tie variant (Corsi & Urbano 2024): w, ties are equal ranks; a, ties are unknown orders "
                   "(the expected RBO over random orders); b, a corrected for the information ties lose.")
@click.option("--depth", type=click.IntRange(min=1), default=None, metavar="K",
              help="Cut every ranking at K documents\f"
                   "Cut every ranking at its first K documents (trec_eval's order) before comparing [default: "
                   "all].")
@click.option("--k", "k", type=click.IntRange(min=1), default=10, show_default=True, metavar="K",
              help="k of overlap@k and jaccard@k")
@click.option("--per-group", is_flag=True, help="One row per query and pair")
@click.option("--matrix", is_flag=True, help="Each measure as a runs x runs table\f"
              "Write each measure's means as a runs x runs table (rows: system; columns: the runs as "
              "baselines) instead of one record per pair.")
@_ci.ci_options
@_common.handle_errors
def command(files, output, measures, p, rbo_ties, depth, k, per_group, matrix, resampling):
    """Agreement between TREC runs, query by query, for every pair of runs:
    rank-biased overlap with ties, Kendall's tau-b, tau_AP, overlap@k and
    jaccard@k; means over queries with bootstrap intervals.

    RBO (Webber, Moffat & Zobel 2010) with Corsi & Urbano 2024's treatment of
    ties: rbo_ext (extrapolated), rbo_min and rbo_max (bounds of the unseen
    rest) and rbo_res = max - min, for lists of any lengths; --rbo-ties w|a|b.
    tau-b is Kendall's tau_b of the scores of the documents both runs
    retrieved; tau-ap (Yilmaz, Aslam & Robertson 2008) is asymmetric: the
    system's order against the baseline's, both in trec_eval's order
    (ties by docno). overlap@k = |X_k and Y_k| / k, jaccard@k = |X_k and Y_k| /
    |X_k or Y_k|. A query one run lacks is an empty ranking there.
    Definitions: docs/agreement.md.

    \b
    Means are over the queries where a value is defined (groups; undefined:
    the others), each with a percentile bootstrap interval over queries
    (--ci LEVEL, default 0.95; --bootstrap N, --seed S).

    \b
    Output columns: system baseline measure value ci_low ci_high groups
    undefined signature; --per-group: system baseline group measure value;
    --matrix: measure system and one column per run.

    \b
    Examples:
      rankeval agree examples/trec/bm25.run examples/trec/dense.run
      rankeval agree -m rbo --p 0.95 --rbo-ties b --matrix run1 run2 run3
    """
    from ..agreement.runs import AgreementSettings, mean_with_interval, pair_queries, per_query, read_runs
    from ..signature import signature

    if len(files) < 2:
        raise click.UsageError("give two or more run files")
    level = DEFAULT_LEVEL if resampling.ci is None else resampling.ci
    resampling = replace(resampling, ci=level).resolved()
    settings = AgreementSettings(measures, p, rbo_ties, depth, k)
    runs, qids = read_runs(files)
    for i, x in enumerate(runs):
        for y in runs[i + 1:]:
            lacking = len(set(x.lists) ^ set(y.lists))
            if lacking:
                _common.warn(f"{x.name} and {y.name}: {lacking} of {len(pair_queries(x, y))} queries in one run "
                             f"only (an empty ranking in the other)")
    sig = signature("agree", p=p if "rbo" in measures else None, ties=rbo_ties if "rbo" in measures else None,
                    depth=depth, k=k if {"overlap", "jaccard"} & set(measures) else None,
                    level=resampling.level, bootstrap=resampling.replicates, seed=resampling.seed)
    records, cells = [], {}
    for i, x in enumerate(runs):
        for j, y in enumerate(runs):
            if i == j or (j < i and measures == ("tau-ap",)):
                continue
            queries = pair_queries(x, y)
            values = per_query(x, y, queries, settings)
            for name, v in values.items():
                if j < i and name != "tau-ap":
                    continue  # symmetric: each pair once
                if per_group:
                    records += [{"system": x.name, "baseline": y.name, "group": qids[q], "measure": name,
                                 "value": float(v[at]), "signature": sig} for at, q in enumerate(queries)]
                    continue
                mean, low, high, defined, undefined = mean_with_interval(v, resampling.level, resampling.replicates,
                                                                         resampling.seed)
                cells[(name, i, j)] = mean
                if name != "tau-ap":
                    cells[(name, j, i)] = mean
                records.append({"system": x.name, "baseline": y.name, "measure": name, "value": mean,
                                "ci_low": low, "ci_high": high, "groups": defined, "undefined": undefined,
                                "signature": sig})
    if matrix and not per_group:
        names = list(dict.fromkeys(name for name, _, _ in cells))
        records = [{"measure": name, "system": x.name,
                    **{y.name: cells.get((name, i, j)) for j, y in enumerate(runs)}}
                   for name in names for i, x in enumerate(runs)]
    with output.stream() as out, _common.record_writer(out, output.format) as writer:
        writer.write_many(records)
