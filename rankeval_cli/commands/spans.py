"""``rankeval spans``: MQM and ESA error spans: scores from spans, and span predictions meta-evaluated.

A click group whose subcommands load lazily from their own modules (``spans_<name>.py``,
each defining ``command``), as ``learn``'s do.
"""

from __future__ import annotations

import click

from ._subcommands import lazy_group

#: subcommand -> (module, one-line help)
SUBCOMMANDS = {
    "score": ("spans_score", "MQM or ESA segment scores recomputed from error spans."),
    "eval": ("spans_eval", "Error-span predictions against gold spans: P, R, F1."),
}


@click.group(name="spans", cls=lazy_group(SUBCOMMANDS))
def command():
    """Error spans (MQM, ESA): segment scores from spans, and span predictions
    meta-evaluated as the WMT24-25 error-span tasks do.

    Reads Google's MQM ratings TSV (errors marked <v>...</v>), WMT24's ESA JSON
    lines, mt-metrics-eval's LP.NAME.seg.rating files, the WMT25 error-span
    TSV and the WMT23-24 QE error-span TSV (--from; told from the file).

    \b
    Examples:
      rankeval spans score --layout mqm mqm_ted_ende.tsv
      rankeval spans eval --gold task2_refs.tsv system-a.tsv system-b.tsv \\
        --ci 0.95 | rankeval table --ci 0.95
    """
