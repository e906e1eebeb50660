"""``rankeval mrr``: mean First Answer Reciprocal Rank (Avramidis 2013 §3.2)."""

from __future__ import annotations

import click

from ..vocabulary import IR_SUMMARY_FORMATS
from . import _ci, _common, _ir, _position


@click.command(name="mrr")
@_common.input_options
@_common.output_options(formats=IR_SUMMARY_FORMATS)
@_common.jobs_options
@_position.position_options("group, items, skipped, mrr")
@_ir.ir_options
@_position.k_option("RR@K: a first relevant item below position K scores 0 [default: no cut-off].")
@_ci.ci_options
@_common.handle_errors
def command(files, input_format, exclude_systems, output, output_format, tie_policy, relevance, higher_better,
            missing_pred, per_group, by, qrels, rel_level, depth, all_queries, k, ci, bootstrap, seed):
    """Mean reciprocal rank of the best gold item.

    Per group, among the items with the best gold rank (with --relevance grades:
    grade > 0), take the best predicted position r: RR = 1/r. MRR is the mean
    over groups; a group without any ranked item is undefined and counted.
    With --tie-policy pessimistic (default) the tied block is in its worst
    order: r is the ceiling rank of the best item, as RankEval 2013 computed,
    unless several best items tie together (then the first of them counts);
    expected averages over random orders of the tied block.

    With --qrels FILE the FILES are TREC runs: trec_eval's recip_rank (RR@k
    with --k), one summary per run.

    --ci LEVEL adds a percentile bootstrap interval over groups (ci_low,
    ci_high) of the mean; see 'rankeval compare' for paired tests.

    \b
    Examples:
      rankeval mrr --tie-policy expected --ci 0.95 judgments.tsv
      rankeval mrr --qrels examples/trec/qrels.txt --k 10 examples/trec/bm25.run
    """
    from ..measures.rr import rr_values

    batches = _ir.single_measure(
        "RR" if k is None else f"RR@{k}", files=files, qrels=qrels, tie_policy=tie_policy, rel_level=rel_level, depth=depth,
        all_queries=all_queries, scores=higher_better, input_format=input_format, exclude_systems=exclude_systems,
        output=output, output_format=output_format, per_group=per_group, ci=ci, bootstrap=bootstrap,
        seed=seed, by=by)
    if batches is None:
        return
    _position.run_mean_measure(
        "mrr", rr_values, files=files, input_format=input_format, exclude_systems=exclude_systems,
        output=output, output_format=output_format, per_group=per_group, tie_policy=tie_policy,
        relevance=relevance, missing_pred=missing_pred, higher_better=higher_better, by=by, ci=ci, bootstrap=bootstrap,
        seed=seed, batches=batches, settings=dict(k=k), k=k)
