"""``rankeval mrr``: mean First Answer Reciprocal Rank (Avramidis 2013 §3.2)."""

from __future__ import annotations

import click

from . import _ci, _common, _position


@click.command(name="mrr")
@_position.measure_options("group, items, skipped, mrr")
@_position.k_option("RR@K: a first relevant item below position K scores 0 [default: no cut-off].")
@_ci.ci_options
@_common.handle_errors
def command(inputs, output, position, ir, k, resampling):
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

    _position.run_measure(
        _position.MeasureCommand("mrr", rr_values, "RR" if k is None else f"RR@{k}", dict(k=k), dict(k=k)),
        _position.MeasureSettings(inputs, output, position, ir, resampling))
