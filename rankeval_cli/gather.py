"""Gathering the summaries of several runs into one table (``rankeval table``).

Each input is a summary a rankeval command wrote (TSV or JSON lines). A record's
*row key* is its file's label plus its key columns: the columns written before
``measure`` (the ``--by`` columns) and ``level``, ``system``, ``metric`` where
present. Its *column* is the value of ``measure`` (``tau`` summaries give
``tau_micro`` and ``tau_macro``); a table without ``measure`` (``aggregate``) takes
the file's label. Cells keep their interval (``ci_low``, ``ci_high``), p-value
(``p_randomization``, ``p_bootstrap``, ``p_independence``) and significance cluster
(``cluster``) so the writer can mark them. Summaries written before 1.0 are read
under today's column names (:func:`.formats.summaries.current_names`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .formats.summaries import number, read_summaries

KEY_COLUMNS = ("level", "system", "metric")
P_COLUMNS = ("p_randomization", "p_permutation", "p_bootstrap", "p_independence")
VALUE_COLUMNS = ("value",)


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


#: the row key of a file's label while gathering (named at the end: see :func:`gather`)
_LABEL = "\0label"


def gather(sources, labels, value_column: str | None = None) -> Gathered:
    """Read every source and place each record's value at (row key, column).

    With several sources, rows are keyed by each file's label first, a column named
    ``system`` (``label`` when the summaries have a ``system`` column of their own).
    A label of None (stdin, no --label) reads ``stdin`` there; a table without a
    ``measure`` column (``aggregate``) takes the label as its column, or, for None, the
    method of its signature (``expected-wins``).
    """
    table = Gathered(key_names=[_LABEL] if len(sources) > 1 else [])
    for source, label in zip(sources, labels):
        for _line, record in read_summaries(source):
            keys = _key_columns(record)
            for name in keys:
                if name not in table.key_names:
                    table.key_names.append(name)
            row = ((_LABEL, label or "stdin"),) * (len(sources) > 1) + tuple((k, str(record[k])) for k in keys)
            for column, cell in _cells(record, label or _method(record), value_column):
                if column not in table.columns:
                    table.columns.append(column)
                table.rows.setdefault(row, {})[column] = cell
                if record.get("signature"):
                    table.signatures.setdefault(column, set()).add(str(record["signature"]))
    if _LABEL in table.key_names:
        name = "label" if "system" in table.key_names else "system"
        table.key_names = [name if k == _LABEL else k for k in table.key_names]
        table.rows = {tuple((name if k == _LABEL else k, v) for k, v in row): cells
                      for row, cells in table.rows.items()}
    return table


def _method(record: dict) -> str:
    """The method a summary's signature names (``aggregate|method:expected-wins|...``), else ``value``."""
    parts = str(record.get("signature") or "").split("|")
    found = next((p[len("method:"):] for p in parts if p.startswith("method:")), None)
    return found or (parts[0] if parts[0] in ("borda",) else "value")


def _key_columns(record: dict) -> list:
    names = list(record)
    head = names[:names.index("measure")] if "measure" in names else \
        names[:names.index("system")] if "system" in names else []
    return [n for n in names if n in head or n in KEY_COLUMNS]


def _cells(record: dict, label: str, value_column: str | None):
    """(column, Cell) pairs of one record."""
    measure = record.get("measure")
    p = next((number(record[c]) for c in P_COLUMNS if c in record and number(record[c]) is not None), None)
    cluster = number(record.get("cluster"))
    cluster = int(cluster) if cluster is not None else None
    if value_column is not None or any(c in record for c in VALUE_COLUMNS):
        name = value_column or next(c for c in VALUE_COLUMNS if c in record)
        if name not in record:
            return
        ci = (number(record.get("ci_low")), number(record.get("ci_high")))
        yield (str(measure) if measure is not None else label), Cell(
            number(record[name]), ci if None not in ci else None, p, cluster)
        return
    for average in ("micro", "macro"):  # tau summaries
        if average in record:
            ci = (number(record.get(f"{average}_ci_low")), number(record.get(f"{average}_ci_high")))
            # tau's p_independence is not a comparison: no mark (as before 1.0, when it was named p)
            yield f"{measure}_{average}", Cell(number(record[average]), ci if None not in ci else None)


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
