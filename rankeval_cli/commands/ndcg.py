"""``rankeval ndcg``: normalized discounted cumulative gain at k (Avramidis 2013 §3.3)."""

from __future__ import annotations

import click

from ..vocabulary import DEFAULT_GAIN, GAINS
from . import _ci, _common, _position


@click.command(name="ndcg")
@_position.measure_options("group, items, skipped, ndcg")
@_position.k_option("NDCG@K: count the first K positions [default: the whole list].")
@click.option("--gain", type=click.Choice(GAINS), default=None,
              help="Gain: exp (2^rel - 1) or linear [default: exp; TREC: linear]\f"
                   "exp: 2^rel - 1 (Avramidis 2013 eq. 7, Burges); linear: rel (trec_eval, sklearn, ranx) "
                   "[default: exp; linear with TREC input].")
@_ci.ci_options
@_common.handle_errors
def command(inputs, output, position, ir, k, gain, resampling):
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

    options = dict(k=k, gain=gain or DEFAULT_GAIN)
    _position.run_measure(
        _position.MeasureCommand("ndcg", ndcg_values, "nDCG" if k is None else f"nDCG@{k}", options, options,
                                 ir_options=dict(gain=gain)),
        _position.MeasureSettings(inputs, output, position, ir, resampling))
