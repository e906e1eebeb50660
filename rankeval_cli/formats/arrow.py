"""Parquet and Arrow IPC files: runs, qrels and canonical streams read as columns, and written.

A Parquet file starts with the bytes ``PAR1``, an Arrow IPC file with ``ARROW1`` and an
Arrow IPC stream with the continuation marker ``FF FF FF FF``: :func:`kind_of` tells them
by these magic bytes (after gzip, bzip2 or xz is undone), as the text readers tell
compressed files, never by the file name.

Column names (the first present wins; ids may be strings or integers):

- a **run**: the query ``query_id`` (ir_datasets), ``q_id`` (ranx), ``qid`` or ``group``
  (rankeval's stream); the document ``doc_id``, ``docno`` or ``item``; ``score`` (higher =
  better), or rankeval's ``pred`` (lower = better: the score is ``-pred``, and rows without
  a ``pred`` are judged documents the run did not retrieve, left out); an optional
  ``run`` or ``tag`` column names the run (as a TREC run's tag field);
- **qrels**: the same query and document names, and the grade in ``relevance``
  (ir_datasets), ``label`` (PyTerrier), ``score`` (ranx), ``rel`` or ``gold``; integers (a fractional grade is an
  error at its row);
- a **canonical stream**: rankeval's ``group, item, gold, pred`` and any extra column.

Rows are numbered from 1 and a bad value is reported at its row as a text file's line.
pyarrow is an optional dependency (``pip install 'rankeval-cli[arrow]'``); it is imported
only when a file is one of these.
"""

from __future__ import annotations

import io

import numpy as np

from ..errors import DataError
from ..inputs import is_regular_file, open_binary, source_name

#: magic bytes -> kind
MAGIC = ((b"PAR1", "parquet"), (b"ARROW1", "arrow"), (b"\xff\xff\xff\xff", "arrow"))
QUERY_COLUMNS = ("query_id", "q_id", "qid", "group")
DOC_COLUMNS = ("doc_id", "docno", "item")
GRADE_COLUMNS = ("relevance", "label", "score", "rel", "gold")
TAG_COLUMNS = ("run", "tag")
EXTRA_HINT = "pip install 'rankeval-cli[arrow]'"
#: rows converted at once (a Parquet row group is read in pieces of this size)
BATCH_ROWS = 1 << 20


def kind_of(head: bytes) -> str | None:
    """``parquet`` or ``arrow`` from a (decompressed) stream's first bytes, else None."""
    for magic, kind in MAGIC:
        if head.startswith(magic):
            return kind
    return None


def sniff(source) -> str | None:
    """:func:`kind_of` of a path's or stdin's (``-``) first bytes, peeked, not consumed; None for
    other streams (their readers peek them)."""
    if source in (None, "-"):
        import sys

        stdin = sys.stdin.buffer
        return kind_of(stdin.peek(8)[:8]) if hasattr(stdin, "peek") else None
    if not isinstance(source, str):
        return None
    from ..inputs import decoder_errors

    try:
        with open_binary(source) as stream:
            return kind_of(stream.peek(8)[:8])
    except (DataError, *decoder_errors()):
        return None  # the reader reports what is wrong with it (a damaged gzip stream, ...)


def pyarrow():
    """The pyarrow module, or a one-line error naming the extra that installs it."""
    try:
        import pyarrow as pa
    except ImportError:
        raise DataError(f"reading or writing Parquet or Arrow needs pyarrow: {EXTRA_HINT}") from None
    return pa


def read_table(source):
    """The whole file as a pyarrow Table (a regular uncompressed Parquet file is memory-mapped)."""
    pa = pyarrow()
    name = source_name(source)
    try:
        with open_binary(source) as stream:
            head = stream.peek(8)[:8]
            kind = kind_of(head)
            if kind is None:
                raise DataError("not a Parquet or Arrow file", name, 1)
            if kind == "parquet" and is_regular_file(source) and not _compressed(source):
                return _parquet_file(source).read()
            data = pa.py_buffer(stream.read())
        if kind == "parquet":
            return _parquet_file(pa.BufferReader(data)).read()
        import pyarrow.ipc as ipc

        if data.size >= 6 and data.to_pybytes()[:6] == b"ARROW1":
            return ipc.open_file(data).read_all()
        return ipc.open_stream(data).read_all()
    except (pa.ArrowException, OSError) as exc:
        raise DataError(f"cannot read as {kind or 'Parquet/Arrow'}: {str(exc).splitlines()[0]}", name) from None


def _parquet_file(source):
    """A Parquet file opened with its query ids and run tags read as dictionaries (one entry per
    distinct id: the run reader takes their indices, not a string per row)."""
    import pyarrow.parquet as pq

    options = {"memory_map": True} if isinstance(source, str) else {}
    names = pq.ParquetFile(source, **options).schema_arrow.names
    if hasattr(source, "seek"):
        source.seek(0)
    coded = [c for c in (*QUERY_COLUMNS, *TAG_COLUMNS) if c in names]
    return pq.ParquetFile(source, read_dictionary=coded, **options)


def _compressed(path: str) -> bool:
    with open(path, "rb") as f:
        return f.read(4) != b"PAR1"


# ---- columns --------------------------------------------------------------------------------

def column_named(table, names, what: str, source: str, required: bool = True):
    """The first of ``names`` the table has (one chunk), or a one-line error listing what it has."""
    for name in names:
        if name in table.column_names:
            column = table.column(name)
            return column.combine_chunks() if hasattr(column, "combine_chunks") else column
    if not required:
        return None
    raise DataError(f"no {what} column: expected one of {', '.join(names)}; the file has "
                    f"{', '.join(table.column_names) or 'no columns'}", source)


def _no_nulls(array, column: str, source: str, start: int = 0) -> None:
    if array.null_count:
        valid = np.unpackbits(np.frombuffer(array.buffers()[0], np.uint8), bitorder="little")
        row = int(np.flatnonzero(valid[array.offset:array.offset + len(array)] == 0)[0])
        raise DataError(f"{column} is empty", source, start + row + 1)


def id_column(array, column: str, source: str, start: int = 0):
    """A string or integer id column as a :class:`~.byteids.ByteIds` column: a string column's
    buffers are used as they are (no Python object per row, no copy)."""
    import pyarrow as pa

    from .byteids import ByteIds

    _no_nulls(array, column, source, start)
    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    if pa.types.is_integer(array.type):
        array = array.cast(pa.string())
    if pa.types.is_string(array.type):
        width = np.int32
    elif pa.types.is_large_string(array.type):
        width = np.int64
    else:
        raise DataError(f"{column} must hold strings or integers, not {array.type}", source)
    _validity, offsets, data = array.buffers()
    n = len(array)
    offsets = np.frombuffer(offsets, dtype=width)[array.offset:array.offset + n + 1].astype(np.int64)
    buf = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
    if len(buf) and not buf[offsets[0]:offsets[-1]].all():
        row = int(np.searchsorted(offsets, int(np.flatnonzero(buf[offsets[0]:offsets[-1]] == 0)[0]) + offsets[0],
                                  side="right")) - 1
        raise DataError(f"{column} holds a NUL byte", source, start + row + 1)
    return ByteIds.from_fields(buf, offsets[:-1], offsets[1:])


def number_column(array, column: str, source: str, integer: bool = False, start: int = 0) -> np.ndarray:
    """A numeric column as float64 (``integer``: int64, a fractional value an error), finite, no nulls."""
    import pyarrow as pa

    _no_nulls(array, column, source, start)
    if not (pa.types.is_integer(array.type) or pa.types.is_floating(array.type)):
        raise DataError(f"{column} must hold numbers, not {array.type}", source)
    values = _numbers(array).astype(np.float64, copy=False)
    bad = ~np.isfinite(values)
    if integer:
        bad |= values != np.floor(values)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        kind = "an integer" if integer else "a finite number"
        raise DataError(f"{column} {values[row]!r} is not {kind}", source, start + row + 1)
    return values.astype(np.int64) if integer else values


#: arrow type name -> numpy dtype (read from the buffer: pyarrow's to_numpy would import pandas)
_NUMPY = {"double": np.float64, "float": np.float32, "halffloat": np.float16, **{
    f"{sign}int{bits}": np.dtype(f"{sign}int{bits}") for sign in ("", "u") for bits in (8, 16, 32, 64)}}


def _numbers(array) -> np.ndarray:
    """The values of a numeric array without nulls (nulls are read as whatever their slot holds)."""
    dtype = _NUMPY[str(array.type)]
    data = array.buffers()[1]
    return np.frombuffer(data, dtype=dtype)[array.offset:array.offset + len(array)]


def _text(array, row: int) -> str:
    value = array[row].as_py()
    return "" if value is None else str(value)


# ---- runs and qrels ------------------------------------------------------------------------

def run_columns(source) -> tuple:
    """The arguments of :func:`~.trec.run.run_of` for a Parquet/Arrow run, converted a row group
    at a time (memory: one row group's Arrow data beside the columns): (name, (distinct query
    ids, each row's index among them), docnos, scores, (first tag, last tag)); no rows: None
    for the three columns.

    Without a ``run``/``tag`` column the run is named after the file (its name without
    directories and suffixes), as trec_eval names a run after its tag field.
    """
    return batches_run_columns(record_batches(source), source_name(source))


def table_run_columns(table, name: str) -> tuple:
    """:func:`run_columns` of a table with a run's columns (module docstring)."""
    return batches_run_columns(table.to_batches(max_chunksize=BATCH_ROWS), name)


def batches_run_columns(batches, name: str) -> tuple:
    """:func:`run_columns` of record batches: per batch its docnos, scores and the query id of
    each stretch of rows (a query's rows are usually together)."""
    from .byteids import ByteIds

    parts, heads, lengths, start, first, last = [], [], [], 0, None, None
    for batch in batches:
        if batch.num_rows == 0:
            continue
        docno, score, ids, sizes = _run_part(batch, name, start)
        if first is None:
            first = _tag(batch, name, 0)
        last, start = _tag(batch, name, -1), start + batch.num_rows
        if len(score):
            parts.append((docno, score))
            heads.append(ids)
            lengths.append(sizes)
    if not parts:
        return name, None, None, None, (first or _tag(None, name, 0), last or _tag(None, name, 0))
    distinct, head_code = ByteIds.concat(heads).unique()
    raw = np.repeat(head_code, np.concatenate(lengths))
    return name, (distinct, raw), ByteIds.concat([p[0] for p in parts]), np.concatenate([p[1] for p in parts]), \
        (first, last)


def _run_part(batch, name: str, start: int):
    """(docnos, scores, the query id of each stretch of rows, the stretches' lengths) of one batch;
    rows without a ``pred`` (judged documents a run did not retrieve, in a stream) left out."""
    score = column_named(batch, ("score",), "score", name, required=False)
    if score is None:
        pred = column_named(batch, ("pred",), "score (score or pred)", name)
        if pred.null_count:
            import pyarrow.compute as pc

            batch = batch.filter(pc.is_valid(pred))
        values = -number_column(column_named(batch, ("pred",), "score", name), "pred", name, start=start)
    else:
        values = number_column(score, "score", name, start=start)
    docno = id_column(column_named(batch, DOC_COLUMNS, "document id", name), "document id", name, start)
    query = column_named(batch, QUERY_COLUMNS, "query id", name)
    if _is_dictionary(query):  # the dictionary's indices: no id per row
        _no_nulls(query, "query id", name, start)
        index = _numbers(query.indices)
        cut = np.flatnonzero(np.r_[True, index[1:] != index[:-1]]) if len(index) else np.zeros(0, np.int64)
        ids = id_column(query.dictionary, "query id", name).take(index[cut])
    else:
        full = id_column(query, "query id", name, start)
        cut = np.flatnonzero(np.r_[True, ~full.adjacent_same()]) if len(full) else np.zeros(0, np.int64)
        ids = full.take(cut)
    return docno, values, ids, np.diff(np.append(cut, len(values)))


def _is_dictionary(array) -> bool:
    import pyarrow as pa

    return pa.types.is_dictionary(array.type)


def record_batches(source):
    """The file's record batches: a Parquet file's row groups read one at a time (in threads),
    an Arrow file's batches."""
    pa = pyarrow()
    name = source_name(source)
    kind = None
    try:
        with open_binary(source) as stream:
            kind = kind_of(stream.peek(8)[:8])
            if kind == "parquet":
                target = source if is_regular_file(source) and not _compressed(source) else \
                    pa.BufferReader(pa.py_buffer(stream.read()))
                yield from _parquet_file(target).iter_batches(batch_size=BATCH_ROWS, use_threads=True)
                return
        yield from read_table(source).to_batches(max_chunksize=BATCH_ROWS)
    except (pa.ArrowException, OSError) as exc:
        raise DataError(f"cannot read as {kind or 'Parquet/Arrow'}: {str(exc).splitlines()[0]}", name) from None


def _tag(table, name: str, row: int) -> str:
    column = None if table is None else column_named(table, TAG_COLUMNS, "run", name, required=False)
    if column is None or len(column) == 0:
        import os

        return os.path.basename(name).split(".")[0] or "run"
    return _text(column, row if row >= 0 else len(column) - 1)


def qrels_columns(source) -> tuple:
    """The arguments of :func:`~.trec.qrels.qrels_of` for Parquet/Arrow qrels: (name, query ids,
    docnos, grades, the row of each as its line); checks as the text reader's."""
    return table_qrels_columns(read_table(source), source_name(source))


def table_qrels_columns(table, name: str) -> tuple:
    """:func:`qrels_columns` of a table with qrels columns (module docstring)."""
    if table.num_rows == 0:
        raise DataError("no judgments: the qrels file has no rows", name)
    qid = id_column(column_named(table, QUERY_COLUMNS, "query id", name), "query id", name)
    docno = id_column(column_named(table, DOC_COLUMNS, "document id", name), "document id", name)
    grade = number_column(column_named(table, GRADE_COLUMNS, "relevance", name), "relevance", name, integer=True)
    return name, qid, docno, grade, np.arange(1, table.num_rows + 1, dtype=np.int64)
