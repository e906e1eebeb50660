"""Gathering the summaries of several runs into one table (``rankeval table``).

Each input is a summary a rankeval command wrote (TSV or JSON lines). A record's
*row key* is its file's label plus its key columns: the columns written before
``measure`` (the ``--by`` columns) and ``level``, ``system``, ``item``, ``metric``
where present. Its *column* is the value of ``measure`` (``tau`` summaries give
``tau_micro`` and ``tau_macro``); a table without ``measure`` (``aggregate``) takes
the file's label. Cells keep their interval (``ci_low``, ``ci_high``), p-value
(``p_randomization``, ``p_bootstrap``, ``p_value``) and significance cluster
(``cluster``) so the writer can mark them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import DataError
from .formats.summaries import read_summaries, strict_number
from .textio import source_name

KEY_COLUMNS = ("level", "system", "item", "metric")
P_COLUMNS = ("p_randomization", "p_permutation", "p_bootstrap", "p_value")
VALUE_COLUMNS = ("value", "score", "points")


@dataclass
class Cell:
    value: float | None
    ci: tuple | None = None
    p: float | None = None
    cluster: int | None = None


@dataclass
class Gathered:
    key_names: list
    columns: list = field(default_factory=list)
    rows: dict = field(default_factory=dict)  # row key -> {column: Cell}
    signatures: dict = field(default_factory=dict)  # column -> set of signatures


def gather(sources, labels, value_column: str | None = None) -> Gathered:
    """Read every source and place each record's value at (row key, column).

    A record without a value column (not a summary), a value that is not a number and a
    second value for the same row and column are errors naming the file and line: none
    is shown as missing, none is dropped.
    """
    table = Gathered(key_names=["run"] if len(sources) > 1 else [])
    placed: dict = {}  # (row, column) -> (source, line) of its value
    for source, label in zip(sources, labels):
        name, records, header = source_name(source), 0, []

        def check_header(line, columns, name=name):
            header.append(columns)
            if not any(c in columns for c in (value_column,) if c) and \
                    not any(c in columns for c in (*VALUE_COLUMNS, "micro", "macro")):
                raise DataError(_no_value(dict.fromkeys(columns), value_column), name, line)

        for line, record in read_summaries(source, on_header=check_header):
            records += 1
            keys = _key_columns(record)
            for key in keys:
                if key not in table.key_names:
                    table.key_names.append(key)
            row = (("run", label),) * (len(sources) > 1) + tuple((k, str(record[k])) for k in keys)
            cells = list(_cells(record, label, value_column, _reader(name, line)))
            if not cells:
                raise DataError(_no_value(record, value_column), name, line)
            for column, cell in cells:
                if (row, column) in placed:
                    first = placed[row, column]
                    hint = "; tell the runs apart with --label" if first[0] != name or len(sources) > 1 else ""
                    raise DataError(f"a second value for {_row_text(row)} in column {column!r} (the first at "
                                    f"{first[0]}:{first[1]}){hint}", name, line)
                placed[row, column] = (name, line)
                if column not in table.columns:
                    table.columns.append(column)
                table.rows.setdefault(row, {})[column] = cell
                if record.get("signature"):
                    table.signatures.setdefault(column, set()).add(str(record["signature"]))
        if not records and not header:
            raise DataError("not a summary: no records (expected the TSV or JSON lines a rankeval summary "
                            "command writes)", name, 1)
    return table


def _reader(name: str, line: int):
    """A record's value as a float (None when missing); anything else is an error at its line."""
    return lambda value, column: strict_number(value, column, name, line)


def _no_value(record: dict, value_column: str | None) -> str:
    if value_column is not None:
        return f"no column {value_column!r} (--values) in this record"
    return (f"not a summary: no value column ({', '.join(VALUE_COLUMNS)}, or micro and macro; --values names "
            f"another); found {', '.join(map(repr, list(record)[:8]))}")


def _row_text(row: tuple) -> str:
    return "the row " + (", ".join(f"{k}={v}" for k, v in row) if row else "(no key columns)")


def _key_columns(record: dict) -> list:
    names = list(record)
    head = names[:names.index("measure")] if "measure" in names else \
        names[:names.index("item")] if "item" in names else []
    return [n for n in names if n in head or n in KEY_COLUMNS]


def _cells(record: dict, label: str, value_column: str | None, number):
    """(column, Cell) pairs of one record; ``number(value, column)`` reads a value."""
    measure = record.get("measure")
    p = next((v for c in P_COLUMNS if c in record and (v := number(record[c], c)) is not None), None)
    cluster = number(record.get("cluster"), "cluster")
    cluster = int(cluster) if cluster is not None else None
    if value_column is not None or any(c in record for c in VALUE_COLUMNS):
        name = value_column or next(c for c in VALUE_COLUMNS if c in record)
        if name not in record:
            return
        ci = (number(record.get("ci_low"), "ci_low"), number(record.get("ci_high"), "ci_high"))
        yield (str(measure) if measure is not None else label), Cell(
            number(record[name], name), ci if None not in ci else None, p, cluster)
        return
    for average in ("micro", "macro"):  # tau summaries
        if average in record:
            ci = tuple(number(record.get(f"{average}_ci_{end}"), f"{average}_ci_{end}") for end in ("low", "high"))
            yield f"{measure}_{average}", Cell(number(record[average], average), ci if None not in ci else None, p)


def table_records(table: Gathered, digits: int, show_ci: bool, alpha: float | None, markup: str) -> list[dict]:
    """Records ready for the writer: cells formatted as text with their marks.

    ``markup`` is ``markdown``, ``latex`` or ``plain``: how clusters (best cluster in
    bold, the cluster number as a superscript) and significance (a dagger when
    p < alpha) are drawn.
    """
    counts = {column for column in table.columns  # columns of whole numbers print without decimals
              if all(c.value is None or float(c.value).is_integer()
                     for cells in table.rows.values() if (c := cells.get(column)) is not None)}
    records = []
    for row, cells in table.rows.items():
        record = dict(row)
        for column in table.columns:
            cell = cells.get(column)
            record[column] = "" if cell is None else format_cell(
                cell, 0 if column in counts else digits, show_ci, alpha, markup)
        records.append(record)
    return records


def format_cell(cell: Cell, digits: int, show_ci: bool, alpha: float | None, markup: str) -> str:
    """One cell as text: the value, its interval, the dagger of p < alpha, its cluster."""
    text = fixed(cell.value, digits)
    if show_ci and cell.ci:
        text += f" [{fixed(cell.ci[0], digits)}, {fixed(cell.ci[1], digits)}]"
    significant = alpha is not None and cell.p is not None and cell.p < alpha
    if markup == "latex":
        text = text.replace("–", "--")
        if cell.cluster == 1:
            text = f"\\textbf{{{text}}}"
        marks = ("\\dagger" if significant else "") + (f"^{{{cell.cluster}}}" if cell.cluster else "")
        return text + (f"${marks}$" if marks else "")
    if markup == "markdown":
        if cell.cluster == 1:
            text = f"**{text}**"
        return text + ("†" if significant else "") + (f"<sup>{cell.cluster}</sup>" if cell.cluster else "")
    return text + ("*" if significant else "") + (f" ({cell.cluster})" if cell.cluster else "")


def fixed(value: float | None, digits: int) -> str:
    """``value`` with ``digits`` decimals; tiny non-zero values in scientific notation; – when undefined."""
    if value is None:
        return "–"
    if digits == 0:
        return f"{value:.0f}"
    if value != 0 and abs(value) < 0.5 * 10 ** -digits:
        return f"{value:.{max(digits - 2, 1)}e}"
    return f"{value:.{digits}f}"
