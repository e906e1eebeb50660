"""``rankeval normalize``: rewrite gold and/or pred as ranks 1..n with a tie mode."""

from __future__ import annotations

import click

from ..vocabulary import TIED_RANKS, VALUE_COLUMNS
from . import _common


@click.command(name="normalize")
@_common.input_options
@_common.output_options()
@click.option("--tied-ranks", "ties", cls=_common.AliasOption, aliases=("--ties",), type=click.Choice(TIED_RANKS),
              default="ceiling", show_default=True,
              help="The rank tied values get: minimize=[1,2,2,3], floor=[1,2,2,4], ceiling=[1,3,3,4], "
                   "middle=[1,2.5,2.5,4] (Avramidis 2013 §3.6; docs/definitions.md#normalization).")
@click.option("--column", type=click.Choice(VALUE_COLUMNS), default="both", show_default=True,
              help="Which values to normalize.")
@_common.higher_better_option("The values are scores (higher = better): rank 1 goes to the highest.",
                              aliases=())
@_common.handle_errors
def command(inputs, output, ties, column, higher_better):
    """Rewrite values as ranks 1..n within each group.

    Every row, column and the order of rows are kept; missing values stay
    missing and take no position (a WMT -1 blank never becomes rank 1).

    \b
    Example:
      rankeval normalize --tied-ranks middle --column pred < pairs.tsv
    """
    from ..formats import writer
    from ..ranks import normalize_ranks

    columns = VALUE_COLUMNS[:2] if column == "both" else (column,)

    def normalized(batches):
        for batch in batches:
            new = {c: normalize_ranks(getattr(batch, c), batch.offsets, ties, higher_better) for c in columns}
            yield batch.with_values(**new)

    with output.stream() as out:
        writer(output.format)(normalized(inputs.read()), out)
