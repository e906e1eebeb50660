"""trec_eval's z-score file (``-Z``): lines ``qid measure mean stddev``, the mean and standard
deviation of a measure's value on a query over some reference runs (trec_eval's
``get_zscores.c``)."""

from __future__ import annotations

from ...inputs import source_name
from ...errors import DataError
from .lines import field_lines, text_id

FIELDS = ("qid", "measure", "mean", "stddev")


def read_zscores(source) -> dict:
    """{(qid, measure name): (mean, stddev)}; a later line for a pair replaces an earlier one."""
    name = source_name(source)
    out = {}
    for line, (qid, measure, mean, stddev) in field_lines(source, 4, FIELDS):
        out[(text_id(qid, "query id", name, line), text_id(measure, "measure name", name, line))] = \
            (_number(mean, "mean", name, line), _number(stddev, "stddev", name, line))
    return out


def _number(text: bytes, column: str, name: str, line: int) -> float:
    """A number as C's ``atof`` reads a whole field (``nan`` and ``inf`` too, as trec_eval's files hold)."""
    try:
        return float(text)
    except ValueError:
        raise DataError(f"{column} {text.decode('utf-8', 'replace')!r} is not a number", name, line) from None
