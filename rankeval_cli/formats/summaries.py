"""Reading summary records back: the TSV (header first) or JSON lines that summary commands write.

Used by ``rankeval table`` to gather several runs into one table. Values stay text
in TSV (``nan`` and empty are missing); JSON keeps its types (``null`` is missing).
A column named twice in the header, or a key twice in a JSON object, is an error at
its line (one of the two would be dropped); so is a value that is not a number where
a number belongs (:func:`strict_number`).
"""

from __future__ import annotations

import math
from typing import Iterator

from ..errors import DataError
from ..textio import iter_lines, source_name


def read_summaries(source, on_header=None) -> Iterator[tuple[int, dict]]:
    """``(line, record)`` for every summary record of ``source`` (TSV or JSON lines, sniffed).

    ``on_header(line, columns)`` is called with a TSV header when it is read.
    """
    name = source_name(source)
    header = None
    for line, text in iter_lines(source, skip_blank=True):
        if not text.strip():
            continue
        if header is None and text.lstrip().startswith("{"):
            header = "json"
        if header == "json":
            yield line, _json_record(text, name, line)
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
        yield line, {key: _unescape(value) for key, value in zip(header, fields)}


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
