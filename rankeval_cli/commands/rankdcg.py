"""``rankeval rankdcg``: rankDCG (Katerenchuk & Rosenberg 2016)."""

from __future__ import annotations

import click

from . import _ci, _common, _position


@click.command(name="rankdcg")
@_position.measure_options("group, items, skipped, rankdcg")
@_ci.ci_options
@_common.handle_errors
def command(inputs, output, position, ir, resampling):
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

    _position.run_measure(_position.MeasureCommand("rankdcg", rankdcg_values, "rankDCG"),
                          _position.MeasureSettings(inputs, output, position, ir, resampling))
