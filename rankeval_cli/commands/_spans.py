"""Options shared by the ``spans`` subcommands: the input format and language pair of span files."""

from __future__ import annotations

import click

from . import _common


def span_options(f):
    """--from, --lp."""
    from ..formats.span_readers import FORMATS

    f = click.option("--lp", default=None, metavar="XX-YY",
                     help="Language pair of files that do not tell it\f"
                          "The language pair of MQM ratings and rating files whose name does not tell it.")(f)
    return click.option("--from", "fmt", type=click.Choice(("auto", *FORMATS)), default="auto",
                        show_default=True,
                        help="Span file format [default: auto]\f"
                             "The span files' format (every file's, unless auto): mqm (Google's MQM ratings TSV), esa (WMT24 ESA JSON lines), "
                             "mtme (mt-metrics-eval .seg.rating), wmt25 (the WMT25 error-span TSV), qe (the "
                             "WMT23-24 QE error-span TSV); auto tells it from the name and first line.")(f)


def read(path, fmt, lp, name=None):
    """A span file's table; its reader's notes go to stderr."""
    from ..formats.span_readers import read_spans

    table = read_spans(path, fmt, lp, name)
    for note in table.notes:
        _common.warn(note)
    return table


def one_per_translation(table, what: str):
    """``table`` with one annotation per translation (the first rater's), a note when several rated one."""
    from ..formats.spans import first_rater

    table, several = first_rater(table)
    if several:
        _common.warn(f"{table.source}: {several} translation(s) annotated by several raters: the first rater's "
                     f"spans are the {what}")
    return table
