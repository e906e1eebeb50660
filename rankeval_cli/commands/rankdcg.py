"""``rankeval rankdcg``: rankDCG (Katerenchuk & Rosenberg 2016)."""

from __future__ import annotations

import click

from ..vocabulary import IR_SUMMARY_FORMATS
from . import _ci, _common, _ir, _position


@click.command(name="rankdcg")
@_common.input_options
@_common.output_options(formats=IR_SUMMARY_FORMATS)
@_common.jobs_options
@_position.position_options("group, items, skipped, rankdcg")
@_ir.ir_options
@_ci.ci_options
@_common.handle_errors
def command(files, input_format, exclude_systems, output, output_format, tie_policy, relevance, higher_better,
            missing_pred, per_group, by, qrels, rel_level, depth, all_queries, ci, bootstrap, seed):
    """rankDCG of the predicted order, averaged over groups.

    rel' = dense rank of the gold value from the bottom (1 .. K distinct values);
    the discount of position i is the dense rank from the top of the item at
    ideal position i; rankDCG = (DCG' - min) / (max - min), in [0, 1]. A group
    whose gold values are all equal is undefined (nan, counted). The reference
    code breaks predicted ties pessimistically (the default here).

    With --qrels FILE the FILES are TREC runs: rankDCG of each ranking by the
    qrels grades (unjudged = 0), one summary per run.

    --ci LEVEL adds a percentile bootstrap interval over groups (ci_low,
    ci_high) of the mean; see 'rankeval compare' for paired tests.

    \b
    Examples:
      rankeval rankdcg --tie-policy expected judgments.tsv
      rankeval rankdcg --ci 0.95 judgments.tsv
      rankeval rankdcg --qrels examples/trec/qrels.txt examples/trec/bm25.run
    """
    from ..measures.rankdcg import rankdcg_values

    batches = _ir.single_measure(
        "rankDCG", files=files, qrels=qrels, tie_policy=tie_policy, rel_level=rel_level, depth=depth,
        all_queries=all_queries, scores=higher_better, input_format=input_format, exclude_systems=exclude_systems,
        output=output, output_format=output_format, per_group=per_group, ci=ci, bootstrap=bootstrap,
        seed=seed, by=by)
    if batches is None:
        return
    _position.run_mean_measure(
        "rankdcg", rankdcg_values, files=files, input_format=input_format, exclude_systems=exclude_systems,
        output=output, output_format=output_format, per_group=per_group, tie_policy=tie_policy,
        relevance=relevance, missing_pred=missing_pred, higher_better=higher_better, by=by, ci=ci, bootstrap=bootstrap,
        seed=seed, batches=batches, settings={})
