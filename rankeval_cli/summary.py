"""Writing result records (summaries, per-group rows) as TSV or JSON lines.

A record is a dict of column -> value. TSV prints a header from the first record
and numbers reproducibly (integers plain, floats as the shortest exact text,
undefined values as ``nan``); JSON prints undefined values as ``null``, never as
a bare NaN. Every summary carries a ``signature``: the settings that made it.
"""

from __future__ import annotations

import math
from typing import Iterable

from ._version import __version__


def signature(measure: str, **settings) -> str:
    """Compact settings string, e.g. ``tau|ties:penalize|avg:micro|v:0.1.0``.

    Settings whose value is None are left out; the toolkit version always ends it.
    """
    parts = [measure] + [f"{k}:{_sig_value(v)}" for k, v in settings.items() if v is not None]
    return "|".join(parts + [f"v:{__version__}"])


def _sig_value(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def text_value(value) -> str:
    """One TSV field (text escaped as the canonical TSV escapes it)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if value.is_integer() and abs(value) < 2**53:
            return str(int(value))
        return repr(value)
    if hasattr(value, "item"):  # numpy scalar
        return text_value(value.item())
    return _escape(str(value))


_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _escape(text: str) -> str:
    """Backslash, tab, newline and CR escaped as in the canonical TSV, so ids read back the same."""
    return text.translate(_ESCAPES) if any(c in text for c in "\\\t\n\r") else text


def json_value(value):
    """One JSON value: NaN/inf → null, numpy scalars → Python."""
    if hasattr(value, "item") and not isinstance(value, (list, dict)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


class RecordWriter:
    """Writes records to a text stream as TSV (header once) or JSON lines."""

    def __init__(self, out, fmt: str = "tsv"):
        if fmt not in ("tsv", "json", "jsonl"):
            raise ValueError(f"unknown record format {fmt!r}")
        self.out, self.fmt, self.columns = out, fmt, None

    def write(self, record: dict) -> None:
        self.write_many([record])

    def write_many(self, records: Iterable[dict]) -> None:
        import json  # here, not at start-up: most runs write TSV

        lines = []
        for record in records:
            if self.fmt == "tsv":
                if self.columns is None:
                    self.columns = list(record)
                    lines.append("\t".join(self.columns))
                lines.append("\t".join(text_value(record.get(c)) for c in self.columns))
            else:
                lines.append(json.dumps({k: json_value(v) for k, v in record.items()}, ensure_ascii=False))
        if lines:
            self.out.write("\n".join(lines) + "\n")
