"""``rankeval ndcg``: normalized discounted cumulative gain at k (Avramidis 2013 §3.3)."""

from __future__ import annotations

import click

from ..vocabulary import GAINS, IR_SUMMARY_FORMATS
from . import _ci, _common, _ir, _position


@click.command(name="ndcg")
@_common.input_options
@_common.output_options(formats=IR_SUMMARY_FORMATS)
@_common.jobs_options
@_position.position_options("group, items, skipped, ndcg")
@_ir.ir_options
@_position.k_option("NDCG@K: count the first K positions [default: the whole list].")
@click.option("--gain", type=click.Choice(GAINS), default=None,
              help="Gain: exp (2^rel - 1) or linear [default: exp; TREC: linear]\f"
                   "exp: 2^rel - 1 (Avramidis 2013 eq. 7, Burges); linear: rel (trec_eval, sklearn, ranx) "
                   "[default: exp; linear with TREC input].")
@_ci.ci_options
@_common.handle_errors
def command(files, input_format, exclude_systems, output, output_format, tie_policy, relevance, higher_better,
            missing_pred, per_group, by, qrels, rel_level, depth, all_queries, k, gain, ci, bootstrap, seed):
    """NDCG@k of the predicted order, averaged over groups.

    DCG@k = sum over predicted positions i <= k of gain(rel_i) / log2(i + 1);
    NDCG@k = DCG@k / IDCG@k. Relevance from gold ranks is n - rank + 1 over
    ceiling ranks (n = ranked items); with --relevance grades it is the grade.
    A group whose IDCG is 0 (all grades 0) is undefined (nan, counted), not 1.
    --tie-policy expected gives tied items the mean discount of their positions
    (McSherry & Najork 2008; sklearn's ndcg_score).

    With --qrels FILE the FILES are TREC runs: trec_eval's ndcg / ndcg_cut_k
    (linear gain, unretrieved judged documents in the ideal ranking), one
    summary per run.

    --ci LEVEL adds a percentile bootstrap interval over groups (ci_low,
    ci_high) of the mean; see 'rankeval compare' for paired tests.

    \b
    Examples:
      rankeval ndcg --k 3 --ci 0.95 judgments.tsv
      rankeval ndcg --relevance grades --gain linear --k 10 run.tsv
      rankeval ndcg --qrels examples/trec/qrels.txt --k 10 examples/trec/bm25.run
    """
    from ..measures.dcg import ndcg_values

    batches = _ir.single_measure(
        "nDCG" if k is None else f"nDCG@{k}", files=files, qrels=qrels, tie_policy=tie_policy, rel_level=rel_level, depth=depth,
        all_queries=all_queries, scores=higher_better, input_format=input_format, exclude_systems=exclude_systems,
        output=output, output_format=output_format, per_group=per_group, ci=ci, bootstrap=bootstrap,
        seed=seed, by=by, gain=gain)
    if batches is None:
        return
    gain = gain or "exp"
    _position.run_mean_measure(
        "ndcg", ndcg_values, files=files, input_format=input_format, exclude_systems=exclude_systems,
        output=output, output_format=output_format, per_group=per_group, tie_policy=tie_policy,
        relevance=relevance, missing_pred=missing_pred, higher_better=higher_better, by=by, ci=ci, bootstrap=bootstrap,
        seed=seed, batches=batches, settings=dict(k=k, gain=gain),
        k=k, gain=gain)
