"""Runs, qrels and results as DataFrames: what the Python API and the ir_measures provider take and give.

**In.** A run or qrels may be

- a pandas or polars DataFrame, or a pyarrow Table, with the column names of
  :mod:`rankeval_cli.formats.arrow` (ir_measures and ir_datasets: ``query_id, doc_id, score``
  and ``relevance``; PyTerrier: ``qid, docno, score`` and ``label``; ranx: ``q_id, doc_id, score``;
  rankeval's stream: ``group, item, pred, gold``);
- a dict of dicts ``{query_id: {doc_id: score or grade}}`` (ranx's and pytrec_eval's form);
- an iterable of ir_measures' ``ScoredDoc(query_id, doc_id, score)`` or
  ``Qrel(query_id, doc_id, relevance)`` tuples;
- a path of a TREC text, Parquet or Arrow file.

Ids may be strings or integers (integers are compared as their decimal text, as a TREC file
holds them). A DataFrame goes through pyarrow when it is installed (no Python object per
row), else through Python lists.

**Out.** :func:`frame` turns records (dicts) into a pandas or polars DataFrame, columns in
order of first appearance.
"""

from __future__ import annotations

import numpy as np

from .formats.arrow import DOC_COLUMNS, GRADE_COLUMNS, QUERY_COLUMNS

#: the DataFrame libraries :func:`frame` builds
FRAME_KINDS = ("pandas", "polars")


def is_frame(data) -> bool:
    """A pandas or polars DataFrame or a pyarrow Table (by its methods, nothing imported)."""
    return hasattr(data, "columns") and (hasattr(data, "to_numpy") or hasattr(data, "to_arrow")
                                         or hasattr(data, "column_names"))


def _arrow_table(data, groups=None):
    """``data`` as a pyarrow Table (only the first column of each of ``groups`` of names, when
    given: PyTerrier's frames carry the query text), or None when pyarrow is not installed."""
    try:
        import pyarrow as pa
    except ImportError:
        return None
    if groups is not None:
        columns = list(data.column_names if isinstance(data, pa.Table) else data.columns)
        keep = [next(c for c in names if c in columns) for names in groups if any(c in columns for c in names)]
        data = data.select(keep) if isinstance(data, pa.Table) or hasattr(data, "to_arrow") else data[keep]
    if isinstance(data, pa.Table):
        return data
    if hasattr(data, "to_arrow"):  # polars
        return data.to_arrow()
    return pa.Table.from_pandas(data, preserve_index=False)


def _pick(columns, names, what: str) -> str:
    for name in names:
        if name in columns:
            return name
    raise ValueError(f"no {what} column: expected one of {', '.join(names)}; the DataFrame has "
                     f"{', '.join(map(str, columns)) or 'no columns'}")


def _lists(data, value_names, what: str):
    """(query ids, doc ids, values) as Python lists of a DataFrame, dict of dicts or tuples."""
    if is_frame(data):
        columns = list(data.columns)
        q, d = _pick(columns, QUERY_COLUMNS, "query id"), _pick(columns, DOC_COLUMNS, "document id")
        v = _pick(columns, value_names, what)
        return list(data[q]), list(data[d]), list(data[v])
    if isinstance(data, dict):
        qids, docs, values = [], [], []
        for qid, ranked in data.items():
            qids.extend([qid] * len(ranked))
            docs.extend(ranked.keys())
            values.extend(ranked.values())
        return qids, docs, values
    qids, docs, values = [], [], []
    field = "score" if "score" in value_names[:1] else "relevance"
    for row in data:
        qids.append(row.query_id)
        docs.append(row.doc_id)
        values.append(getattr(row, field))
    return qids, docs, values


def _ids(values) -> "ByteIds":  # noqa: F821
    from .formats.byteids import ByteIds

    return ByteIds.of([v if isinstance(v, str) else str(v) for v in values])


def run_from(data, name: str = "<run>", tag: str = "run"):
    """A :class:`~rankeval_cli.formats.trec.run.Run` of any form above (``tag`` names it unless a
    ``run``/``tag`` column does)."""
    from .formats import arrow
    from .formats.trec.run import Run, empty_run, read_run, run_of

    if isinstance(data, Run):
        return data
    if isinstance(data, str):
        return read_run(data)
    if is_frame(data):
        table = _arrow_table(data, (QUERY_COLUMNS, DOC_COLUMNS, ("score", "pred"), arrow.TAG_COLUMNS))
        if table is not None:
            if not any(c in table.column_names for c in arrow.TAG_COLUMNS):
                table = table.append_column("run", _constant(tag, table.num_rows))
            return run_of(*arrow.table_run_columns(table, name))
        if "score" not in data.columns and "pred" in data.columns:
            raise ValueError("a DataFrame with pred (lower = better) needs pyarrow; give a score column")
    qids, docs, scores = _lists(data, ("score",), "score")
    score = np.asarray(scores, dtype=np.float64)
    if not np.isfinite(score).all():
        raise ValueError(f"{name}: score {score[~np.isfinite(score)][0]!r} is not a finite number")
    if not qids:
        return empty_run(name, tag, tag)
    return run_of(name, _ids(qids), _ids(docs), score, (tag, tag))


def _constant(value: str, n: int):
    import pyarrow as pa

    return pa.DictionaryArray.from_arrays(np.zeros(n, np.int32), pa.array([value]))


def qrels_from(data, name: str = "<qrels>"):
    """A :class:`~rankeval_cli.formats.trec.qrels.Qrels` of any form above (grades integers)."""
    from .errors import DataError
    from .formats import arrow
    from .formats.trec.qrels import Qrels, qrels_of, read_qrels

    if isinstance(data, Qrels):
        return data
    if isinstance(data, str):
        return read_qrels(data)
    if is_frame(data):
        table = _arrow_table(data, (QUERY_COLUMNS, DOC_COLUMNS, GRADE_COLUMNS))
        if table is not None:
            return qrels_of(*arrow.table_qrels_columns(table, name))
    qids, docs, grades = _lists(data, GRADE_COLUMNS, "relevance")
    if not qids:
        raise DataError("no judgments: the qrels are empty", name)
    grade = np.asarray(grades, dtype=np.float64)
    if not (np.isfinite(grade) & (grade == np.floor(grade))).all():
        row = int(np.flatnonzero(~(np.isfinite(grade) & (grade == np.floor(grade))))[0])
        raise DataError(f"relevance {grades[row]!r} is not an integer", name, row + 1)
    return qrels_of(name, _ids(qids), _ids(docs), grade.astype(np.int64),
                         np.arange(1, len(qids) + 1, dtype=np.int64))


def frame(records: list, kind: str = "pandas"):
    """Records (dicts) as a pandas or polars DataFrame; columns in order of first appearance."""
    columns: dict = {}
    for record in records:
        for key in record:
            columns.setdefault(key, None)
    data = {c: [_plain(r.get(c)) for r in records] for c in columns}
    if kind == "pandas":
        import pandas as pd

        return pd.DataFrame(data, columns=list(columns))
    if kind == "polars":
        import polars as pl

        return pl.DataFrame(data, strict=False)
    raise ValueError(f"unknown DataFrame kind {kind!r}; expected one of {', '.join(FRAME_KINDS)}")


def _plain(value):
    if hasattr(value, "item") and not isinstance(value, (list, dict)):
        return value.item()
    return value


def parquet_bytes(data):
    """A polars DataFrame or pyarrow Table as an in-memory Parquet file (read back by magic bytes)."""
    import io

    import pyarrow.parquet as pq

    table = _arrow_table(data)
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    buffer.seek(0)
    buffer.name = "<DataFrame>"
    return buffer


def query_parts(run, rows: int):
    """The run as runs of whole queries of about ``rows`` rows each (a larger query alone; its
    rows grouped by query first when they are not), sharing its query ids: for evaluating in
    bounded memory."""
    from .formats.trec.fields import LineMap
    from .formats.trec.run import Run

    code, order, lines = run.code, None, None
    if len(code) > 1 and (code[1:] < code[:-1]).any():
        order = np.argsort(code, kind="stable")
        code, lines = code[order], run.lines.all()[order]
    ends = np.flatnonzero(np.r_[code[1:] != code[:-1], True]) + 1 if len(code) else np.zeros(0, np.int64)
    start = 0
    while start < len(code):
        i = int(np.searchsorted(ends, start + rows, side="right")) - 1  # the last query end within the budget
        if i < 0 or ends[i] <= start:
            i = int(np.searchsorted(ends, start, side="right"))  # a query larger than the budget
        stop = int(ends[i])
        if order is None:
            taken, part_lines = np.arange(start, stop), run.lines.slice(start, stop)
        else:
            taken, part_lines = order[start:stop], LineMap.of(lines[start:stop])
        yield Run(run.source, run.tag, run.qids, run.code[taken], run.docno.take(taken), run.score[taken],
                  part_lines, run.last_tag)
        start = stop
