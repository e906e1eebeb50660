"""``rankeval report``: every segment-level measure in one pass, as RankEval 2013's rankeval.py printed."""

from __future__ import annotations

import click

from ..vocabulary import DEFAULT_GAIN, GAINS, REL_MAX_VALUES, REPORT_ROWS
from . import _ci, _common, _ir, _position
from .tau import variant_option


@click.command(name="report", cls=_ir.MeasureHelp)
@_position.measure_options("group, items, skipped, tau, rr, ndcg, err, rankdcg, best_predicted")
@_ir.doc_groups_option
@_ir.measure_option("Measures: trec_eval, ir_measures or MT names [default: MT rows; TREC: map, P_10, ...]\f"
                    "Measures to report (repeatable; comma lists): IR names of trec_eval (map, map_cut_K, "
                    "P_K, recall_K, ndcg, ndcg_cut_K, recip_rank, Rprec, bpref, success_K, num_ret, num_rel, "
                    "num_rel_ret) or ir_measures (AP, AP@K, P@K, R@K, nDCG, nDCG@K, RR, RR@K, Rprec, Bpref, "
                    "Success@K, ERR@K, Judged@K), or rows of the MT report (tau_micro, mrr, ndcg, ...) "
                    "[default: every MT row; with TREC input map, P_10, recall_1000, ndcg, ndcg_cut_10, "
                    "recip_rank, Rprec, bpref, num_ret, num_rel, num_rel_ret].")
@_position.k_option("Cut-off of NDCG and ERR [default: none]\f"
                    "Cut-off for NDCG and ERR; also adds p@K and map@K rows [default: whole lists].")
@variant_option(help_text="Tau variant [default: penalize]\f"
                          "Kendall tau variant, as for 'rankeval tau' (penalize = RankEval 2013 and WMT08-12).",
                aliases=("--tau-ties",))
@click.option("--gain", type=click.Choice(GAINS), default=None,
              help="NDCG gain [default: exp; TREC: linear]\f"
                   "NDCG gain: 2^rel - 1 or rel [default: exp; linear (trec_eval) with TREC input].")
@click.option("--rel-max", default=None, callback=_position.check_rel_max, metavar="MAX",
              shell_complete=_common.completion_of(REL_MAX_VALUES),
              help="ERR denominator [default: n; grades: scale:4]\f"
                   "ERR denominator 2^rel_max (see 'rankeval err') [default: n with ranks, scale:4 with grades].")
@_ci.ci_options
@_common.handle_errors
def command(inputs, output, position, ir, doc_groups, measures, k, variant, gain, rel_max, resampling):
    """All measures at once: tau, MRR, NDCG, ERR, rankDCG, BPH shares and the
    average predicted rank of MT rankings; with --qrels, IR measures of runs.

    MT rows: tau (micro, macro, counts, p), MRR, NDCG, ERR, rankDCG, BPH shares
    per human rank and the average predicted rank.

    One row per measure: measure, value, groups (the groups it averages or
    pools), undefined (groups left out: no defined value), and the signature
    of its settings. The input is read once and never held in
    memory: the summary keeps only sums and counts. With --per-group, one row
    per group (group, items, skipped, tau, rr, ndcg, err, rankdcg, best_predicted)
    goes to the output and the summary to stderr.

    With --ci LEVEL, the rows that are means over groups (tau_micro from the
    groups' pair counts, tau_macro, mrr, ndcg, err, rankdcg, p@k, map@k,
    avg_predicted) get ci_low and ci_high: a percentile bootstrap over groups,
    all measures from the same resampled groups. Other rows leave them empty.

    With --qrels FILE the FILES are TREC runs, evaluated as trec_eval does
    (one summary per run: system, measure, value, groups, signature); a stream
    written by 'rankeval convert --from trec' gives the same numbers.
    --per-group --output-format trec writes trec_eval -q's lines.

    \b
    Examples (RankEval 2013's "rankeval.py file.jcml unk rank"; TREC runs):
      rankeval convert --from jcml --pred-attr unk examples/wmt10-de-en.xf.jcml \\
        | rankeval report --ci 0.95
      rankeval report --qrels examples/trec/qrels.txt -m map,P_10,nDCG@10 \\
        examples/trec/bm25.run examples/trec/dense.run
    """
    from ..measures.err import parse_rel_max
    from ..partition import keyed, partitioned
    from ..signature import exclusion
    from ..stats.group_means import oriented
    from ..stats.report import Report

    mt_names = _mt_names(k)
    route = _ir.route(inputs, ir, measures, mt_names, output.format)
    if route.is_ir:
        _ir.no_by(position.by)
        ir_settings = _ir.ir_settings(position, ir, gain=gain, rel_max=rel_max, doc_groups=doc_groups)
        _ir.run_ir(_ir.parse_measures(measures), route.runs, ir_settings, output, position.per_group,
                   resampling.resolved())
        return
    wanted = _wanted_rows(measures, mt_names)
    positions = position.positions()
    settings = dict(tau_variant=variant, k=k, gain=gain or DEFAULT_GAIN,
                    rel_max=parse_rel_max(rel_max, position.relevance), resampling=resampling.resolved(),
                    exclude=exclusion(inputs.exclude_systems))
    reports: dict = {}  # --by key -> Report
    with output.stream() as out:
        rows_out = _common.record_writer(out, output.format) if position.per_group else None
        for key, batch in partitioned(oriented(route.batches, position.higher_better, position.relevance),
                                      position.by):
            report = reports.get(key) or reports.setdefault(key, Report(positions, **settings))
            rows = report.add(batch, per_group=position.per_group)
            if rows_out:
                rows_out.write_many(rows)
        if not position.by and not reports:
            reports[()] = Report(positions, **settings)
        records = [keyed(record, position.by, key) for key, report in reports.items() for record in report.records()
                   if wanted is None or record["measure"] in wanted
                   or (record["measure"].startswith("bph_") and "bph" in wanted)]
        _common.write_summary(out, records, output.format, position.per_group, rows_out)
    _position.warn_counts(sum(r.blanks for r in reports.values()), sum(r.missing_pred for r in reports.values()),
                          position.missing_pred)


def _mt_names(k) -> tuple:
    return REPORT_ROWS + ((f"p@{k}", f"map@{k}") if k is not None else ())


def _wanted_rows(measures, mt_names):
    """The MT rows -m names (None = all); an unknown name is a usage error."""
    from ..measures.trec.names import split_names

    names = split_names(measures)
    if not names:
        return None
    unknown = [n for n in names if n not in mt_names]
    if unknown:
        raise click.BadParameter(f"{unknown[0]!r}: not a row of the MT report ({', '.join(mt_names)}); IR "
                                 "measures need TREC input (--qrels or a 'convert --from trec' stream)",
                                 param_hint="'-m'")
    return set(names)
