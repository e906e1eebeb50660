"""``rankeval borda``: Borda count over rankings (docs/definitions.md#borda)."""

from __future__ import annotations

import click

from ..vocabulary import SUMMARY_FORMATS, VALUE_COLUMNS
from . import _common
from ._ranking import Aggregation, bootstrap_options, ranking_options, run_and_write


@click.command(name="borda")
@_common.input_options
@_common.output_options(formats=SUMMARY_FORMATS)
@_common.jobs_options
@click.option("--column", type=click.Choice(VALUE_COLUMNS), default="gold", show_default=True,
              help="Count gold, pred or both\f" "Count the gold ranks, the predicted ranks, or both side by side.")
@ranking_options
@bootstrap_options
@_common.handle_errors
def command(inputs, output, column, ranking, resampling):
    """Borda count: each list gives its item at position r of N points N - r.

    Tied items share the mean of the points of the positions they span (two items
    tied at the top of a 3-list earn (2+1)/2 = 1.5 each). A blank value is no
    position. Items absent from a list: --missing ignore (default) counts a list
    of its N ranked items only; --missing bottom extends it to all K items seen,
    the absent ones sharing the bottom positions. Output: system, value (the
    points), rank, sorted by value, then system id.

    \b
    Example: lists A>B>C, A>C>B, B>A>C give A 5, B 3, C 1.
      rankeval borda votes.tsv
      rankeval borda --points n-r+1 --missing bottom --by lp judgments.tsv
    """
    run_and_write(inputs, output, Aggregation("borda", column, ranking.by, ranking.higher_better, ranking.rules(),
                                              command="borda"), resampling.resolved())
