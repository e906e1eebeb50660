"""Reading summary records back: the TSV (header first) or JSON lines that summary commands write.

Used by ``rankeval table`` to gather several runs into one table. Values stay text
in TSV (``nan`` and empty are missing); JSON keeps its types (``null`` is missing).
"""

from __future__ import annotations

from typing import Iterator

from ..errors import DataError
from ..textio import iter_lines, source_name


def read_summaries(source) -> Iterator[tuple[int, dict]]:
    """``(line, record)`` for every summary record of ``source`` (TSV or JSON lines, sniffed)."""
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
            header = fields
            continue
        if len(fields) != len(header):
            raise DataError(f"expected {len(header)} tab-separated fields, found {len(fields)}", name, line)
        yield line, {key: _unescape(value) for key, value in zip(header, fields)}


def _json_record(text: str, name: str, line: int) -> dict:
    import json

    try:
        record = json.loads(text)
    except ValueError as exc:
        raise DataError(f"invalid JSON ({exc.msg})", name, line) from None
    if not isinstance(record, dict):
        raise DataError("a JSON line must be an object", name, line)
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
