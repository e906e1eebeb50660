"""Writing result records (summaries, per-group rows) as TSV or JSON lines.

A record is a dict of column -> value. TSV prints a header from the first record
and numbers reproducibly (integers plain, floats as the shortest exact text,
undefined values as ``nan``); JSON prints undefined values as ``null``, never as
a bare NaN. Every summary carries a ``signature`` (:mod:`.signature`): the settings that made it.
"""

from __future__ import annotations

import math
from typing import Iterable

from .vocabulary import BINARY_FORMATS, CANONICAL_FORMATS, TABLE_FORMATS


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


#: decimal places of tables when --digits is not given.
TABLE_DIGITS = 4


def _fractional(value) -> bool:
    """A finite float with a fractional part (numpy scalars included)."""
    if hasattr(value, "item") and not isinstance(value, (list, dict)):
        value = value.item()
    return isinstance(value, float) and math.isfinite(value) and not value.is_integer()


class RecordWriter:
    """Writes records to a text stream as TSV (header once), JSON lines, or a Markdown or LaTeX table.

    TSV and JSON lines are written as records arrive; a table needs every row, so it is
    kept and written by :meth:`close` (use the writer as a context manager). ``digits``
    rounds floats to that many decimal places (tables default to 4).
    """

    def __init__(self, out, fmt: str = "tsv", digits: int | None = None):
        fmt = "jsonl" if fmt == "json" else fmt
        if fmt not in (*CANONICAL_FORMATS, *TABLE_FORMATS, *BINARY_FORMATS):
            raise ValueError(f"unknown record format {fmt!r}")
        self.out, self.fmt, self.columns = out, fmt, None
        self.explicit_digits = digits
        self.digits = TABLE_DIGITS if digits is None and fmt in TABLE_FORMATS else digits
        self.rows: list[dict] = []
        self._fractional: set = set()  # columns holding a fraction (set by close)

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        if kind is None:
            self.close()

    def write(self, record: dict) -> None:
        self.write_many([record])

    def write_many(self, records: Iterable[dict]) -> None:
        if self.fmt in TABLE_FORMATS or self.fmt in BINARY_FORMATS:
            self.rows.extend(records)
            return
        import json  # here, not at start-up: most runs write TSV

        lines = []
        for record in records:
            if self.fmt == "tsv":
                if self.columns is None:
                    self.columns = list(record)
                    lines.append("\t".join(self.columns))
                lines.append("\t".join(text_value(self._rounded(record.get(c))) for c in self.columns))
            else:
                lines.append(json.dumps({k: json_value(self._rounded(v)) for k, v in record.items()},
                                        ensure_ascii=False))
        if lines:
            self.out.write("\n".join(lines) + "\n")

    def close(self) -> None:
        """Write the table (markdown, latex); nothing to do for TSV and JSON lines.

        A table is laid out for a paper: the signatures go under it (a line to carry
        into the caption or a footnote), not in a column; an interval is one column
        ``[low, high]`` headed by its level (``95% CI``); p-values print as ``< 0.001``
        below a thousandth (never ``0``).
        """
        if self.fmt in BINARY_FORMATS:
            from .formats.arrow_stream import write_records

            write_records(self.rows, self.out, self.fmt)
        elif self.fmt in TABLE_FORMATS and self.rows:
            from .table_writers import latex_table, markdown_table, paper_columns, signature_note

            self._fractional = {c for row in self.rows for c, v in row.items() if _fractional(v)}
            columns, cells = paper_columns(self.rows, self._cell, self._p_cell)
            table = markdown_table if self.fmt == "markdown" else latex_table
            self.out.write(table(columns, cells))
            self.out.write(signature_note([row.get("signature") for row in self.rows], self.fmt))
        self.rows = []

    def _p_cell(self, value) -> str:
        """A p-value: 3 decimals (or --digits), ``< 0.001`` below the last one shown."""
        from .table_writers import p_value_text

        if hasattr(value, "item") and not isinstance(value, (list, dict)):
            value = value.item()
        if value is None or isinstance(value, str):
            return "" if value is None else value
        return p_value_text(value, self.explicit_digits)

    def _rounded(self, value):
        if self.digits is None:
            return value
        if hasattr(value, "item") and not isinstance(value, (list, dict)):
            value = value.item()
        if isinstance(value, float) and math.isfinite(value):
            return round(value, self.digits)
        return value

    def _cell(self, value, column: str | None = None) -> str:
        """A value as text: floats with the table's decimals, whole floats as integers unless their
        column holds fractions too (then ``0.000``, not ``0`` beside ``0.005``)."""
        if hasattr(value, "item") and not isinstance(value, (list, dict)):
            value = value.item()
        if isinstance(value, float) and math.isfinite(value) and (
                not value.is_integer() or column in self._fractional):
            return f"{value:.{self.digits}f}"
        if isinstance(value, float) and math.isnan(value):
            return "–"
        if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
            return str(int(value))
        return "" if value is None else str(value)
