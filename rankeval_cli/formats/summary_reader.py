"""Reading summary records back: the TSV (header first) or JSON lines that summary commands write.

Used by ``rankeval table`` to gather several runs into one table, by ``plot`` and
by ``correlate --aggregates``. Values stay text in TSV (``nan`` and empty are
missing); JSON keeps its types (``null`` is missing). Summaries written before 1.0
used other column names (``run``, ``item``, ``score``, ``queries``, ...): they are
read under the current names (:data:`OLD_COLUMNS`, listed in docs/vocabulary.md).
A column named twice in the header, or a key twice in a JSON object, is an error at
its line (one of the two would be dropped); so is a value that is not a number where
a number belongs (:func:`strict_number`).
"""

from __future__ import annotations

import math
from typing import Iterator

from ..errors import DataError
from ..inputs import iter_lines, source_name


#: a column name of summaries written before 1.0 -> its current name (read until 2.0).
OLD_COLUMNS = {
    "run": "system", "item": "system",
    "score": "value", "points": "value",
    "gold_score": "gold_value", "gold_points": "gold_value", "pred_score": "pred_value", "pred_points": "pred_value",
    "lo": "rank_ci_low", "hi": "rank_ci_high",
    "gold_lo": "gold_rank_ci_low", "gold_hi": "gold_rank_ci_high",
    "pred_lo": "pred_rank_ci_low", "pred_hi": "pred_rank_ci_high",
    "queries": "groups", "count": "groups", "defined": "groups",
    "p": "p_independence", "p_value": "p_independence",
}


def current_names(record: dict) -> dict:
    """``record`` with the column names of summaries written before 1.0 replaced by today's.

    ``count`` (report) and ``defined`` (mrr, ndcg, err, rankdcg) held the groups a value
    averages, now ``groups``; the old ``groups`` beside them (all groups seen) is dropped.
    ``n`` was the items of a group in per-group rows, and in ``correlate`` the systems
    (system level) or groups (segment level) correlated.
    """
    if not any(name in OLD_COLUMNS or name == "n" for name in record) and "judgments" not in record:
        return record
    replaced = ("count" in record or "defined" in record)
    out = {}
    for name, value in record.items():
        if name == "groups" and replaced:
            continue
        if name == "n":
            name = "items" if "level" not in record else "groups" if record["level"] == "segment" else "systems"
        elif name == "segments" and "judgments" in record:  # aggregate --method z-score
            name = "groups"
        else:
            name = OLD_COLUMNS.get(name, name)
        out.setdefault(name, value)
    return out


def read_summaries(source, on_header=None, current: bool = True) -> Iterator[tuple[int, dict]]:
    """``(line, record)`` for every summary record of ``source`` (TSV or JSON lines, sniffed).

    ``on_header(line, columns)`` is called with a TSV header when it is read (the names as
    written). With ``current`` (the default), old column names are read as today's
    (:func:`current_names`).
    """
    name = source_name(source)
    rename = current_names if current else (lambda record: record)
    header = None
    for line, text in iter_lines(source, skip_blank=True):
        if not text.strip():
            continue
        if header is None and text.lstrip().startswith("{"):
            header = "json"
        if header == "json":
            yield line, rename(_json_record(text, name, line))
            continue
        fields = text.split("\t")
        if header is None:
            if len(fields) < 2:
                raise DataError("not a summary table: the header has no tab-separated columns "
                                "(expected the TSV or JSON lines a rankeval summary command writes)", name, line)
            twice = sorted({f for f in fields if fields.count(f) > 1})
            if twice:
                raise DataError(f"the header names column(s) {', '.join(map(repr, twice))} twice", name, line)
            header = fields
            if on_header is not None:
                on_header(line, header)
            continue
        if len(fields) != len(header):
            raise DataError(f"expected {len(header)} tab-separated fields, found {len(fields)}", name, line)
        yield line, rename({key: _unescape(value) for key, value in zip(header, fields)})


def _json_record(text: str, name: str, line: int) -> dict:
    import json

    try:
        record = json.loads(text, object_pairs_hook=_no_repeated_keys)
    except _RepeatedKey as exc:
        raise DataError(f"the key {exc.key!r} appears twice in one object", name, line) from None
    except RecursionError:
        raise DataError("invalid JSON (nested too deeply)", name, line) from None
    except ValueError as exc:
        raise DataError(f"invalid JSON ({getattr(exc, 'msg', exc)})", name, line) from None
    if not isinstance(record, dict):
        raise DataError("a JSON line must be an object", name, line)
    return record


class _RepeatedKey(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _no_repeated_keys(pairs: list) -> dict:
    record = dict(pairs)
    if len(record) != len(pairs):
        seen = set()
        raise _RepeatedKey(next(k for k, _ in pairs if k in seen or seen.add(k)))
    return record


def _unescape(text: str) -> str:
    if "\\" not in text:
        return text
    return text.replace("\\\\", "\0").replace("\\t", "\t").replace("\\n", "\n").replace("\\r", "\r") \
        .replace("\0", "\\")


def number(value) -> float | None:
    """A record's value as a float (None when missing or not a number)."""
    if value is None or value == "" or isinstance(value, bool):
        return None
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return None if out != out else out


def strict_number(value, column: str, name: str, line: int) -> float | None:
    """A record's value as a float; None when missing (empty, ``nan``, null); anything else that
    is not a number is a DataError at the line, never shown as missing."""
    if value is None or value == "" or isinstance(value, str) and value.strip().lower() == "nan":
        return None
    from .numparse import is_decimal

    if isinstance(value, str) and (is_decimal(value) or value.strip().lower() in _INFINITIES):
        return float(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            out = float(value)
        except OverflowError:
            out = math.inf if value > 0 else -math.inf
        return None if out != out else out
    shown = value if not isinstance(value, str) or len(value) <= 40 else value[:37] + "..."
    raise DataError(f"column {column!r}: {shown!r} is not a number", name, line)


_INFINITIES = ("inf", "+inf", "-inf", "infinity", "+infinity", "-infinity")
