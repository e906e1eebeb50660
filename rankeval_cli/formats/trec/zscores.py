"""trec_eval's z-score file (``-Z``): lines ``qid measure mean stddev``, the mean and standard
deviation of a measure's value on a query over some reference runs (trec_eval's
``get_zscores.c``)."""

from __future__ import annotations

from ...inputs import source_name
from ...errors import DataError
from .lines import c_float, field_lines, text_id

FIELDS = ("qid", "measure", "mean", "stddev")


def read_zscores(source) -> dict:
    """{(qid, measure name): (mean, stddev)}; a later line for a pair replaces an earlier one.

    Numbers are whole C doubles (``nan`` and ``inf`` too, as trec_eval's files hold); a file
    without a single z-score line is an error, as trec_eval refuses it."""
    name = source_name(source)
    out = {}
    for line, (qid, measure, mean, stddev) in field_lines(source, 4, FIELDS):
        out[(text_id(qid, "query id", name, line), text_id(measure, "measure name", name, line))] = \
            (c_float(mean, "mean", name, line), c_float(stddev, "stddev", name, line))
    if not out:
        raise DataError("no z-score line (qid measure mean stddev) in the file", name)
    return out
