"""The canonical stream, summary records and TREC runs as Parquet or Arrow IPC (pyarrow).

A stream is one row per item with rankeval's columns ``group, item, gold, pred`` (strings,
strings, float64, float64; a missing value is null) and its extra columns as strings, in
the row order of the TSV encoding: read back, it gives the same batches. Summary records
are one row per record with the columns of the first record (a later record's new column
is added, earlier rows null). A run has ir_datasets' and ranx's column names
``query_id, doc_id, score`` plus ``rank`` and ``run`` (its tag), so ranx's
``Run.from_parquet(path, q_id_col="query_id")`` and ir_datasets read it, and rankeval reads
it back to the same evaluation.

Writers take the text stream a command writes to and write bytes to its binary buffer
(a Parquet file needs a file-like object; an ``-o`` name ending in ``.gz`` compresses it).
"""

from __future__ import annotations

import numpy as np

from ..batch import BATCH_ROWS, Batch, offsets_from_sizes
from ..errors import DataError
from ..inputs import source_name
from .arrow import column_named, id_column, number_column, pyarrow, read_table

CORE = ("group", "item", "gold", "pred")


def binary(out):
    """The byte stream under a command's text output (flushed first)."""
    if hasattr(out, "buffer"):
        out.flush()
        return out.buffer
    if hasattr(out, "write") and not hasattr(out, "encoding"):
        return out  # already binary
    raise DataError("Parquet and Arrow are binary: give a file (-o FILE) or stdout, not a text stream")


def _writer(sink, schema, fmt: str):
    pyarrow()
    if fmt == "parquet":
        import pyarrow.parquet as pq

        return pq.ParquetWriter(sink, schema)  # snappy, as pandas and ranx write
    import pyarrow.ipc as ipc

    return ipc.new_file(sink, schema)


# ---- the canonical stream --------------------------------------------------------------------

def read_stream(source, **_options):
    """Batches of whole groups of a Parquet/Arrow canonical stream (a group's rows are
    consecutive, as in every encoding; the stream check reports one that comes back)."""
    name = source_name(source)
    table = read_table(source)
    for column in ("group", "item", "gold"):
        column_named(table, (column,), column, name)
    groups = id_column(table.column("group").combine_chunks(), "group", name)
    n = table.num_rows
    heads = np.flatnonzero(np.r_[True, ~groups.adjacent_same()]) if n else np.zeros(0, np.int64)
    start = 0
    while start < n:
        stop = _batch_end(heads, start, n)
        yield _batch(table.slice(start, stop - start), name, start)
        start = stop


def _batch_end(heads: np.ndarray, start: int, n: int) -> int:
    """The end of the batch from row ``start``: the last group start within BATCH_ROWS rows,
    or the end of a larger group."""
    if start + BATCH_ROWS >= n:
        return n
    i = int(np.searchsorted(heads, start + BATCH_ROWS, side="right"))
    if heads[i - 1] > start:
        return int(heads[i - 1])
    j = int(np.searchsorted(heads, start, side="right"))
    return int(heads[j]) if j < len(heads) else n


def _batch(table, name: str, start: int) -> Batch:
    """The batch of rows ``start:`` (whole groups)."""
    group = np.array(id_column(table.column("group").combine_chunks(), "group", name).decode(), dtype=object)
    item = id_column(table.column("item").combine_chunks(), "item", name).decode()
    heads = np.flatnonzero(np.r_[True, group[1:] != group[:-1]]) if len(group) else np.zeros(0, np.int64)
    offsets = offsets_from_sizes(np.diff(np.append(heads, len(group))))
    extra = {c: _strings(table.column(c).combine_chunks()) for c in table.column_names if c not in CORE}
    return Batch(group=group[heads], offsets=offsets, item=np.array(item, dtype=object),
                 gold=_optional_numbers(table, "gold", name), pred=_optional_numbers(table, "pred", name),
                 extra=extra, line=np.arange(start + 1, start + 1 + table.num_rows, dtype=np.int64), source=name)


def _optional_numbers(table, column: str, name: str) -> np.ndarray:
    """A numeric column with nulls (and NaN) as NaN; absent: all NaN."""
    import pyarrow.compute as pc

    if column not in table.column_names:
        return np.full(table.num_rows, np.nan)
    array = table.column(column).combine_chunks()
    valid = np.asarray(array.is_valid()) if array.null_count else None
    array = pc.fill_null(array, 0) if array.null_count else array
    values = number_column(array, column, name) if array.type.id != 0 else np.full(len(array), np.nan)
    if valid is not None:
        values = np.where(valid, values, np.nan)
    return values


def _strings(array) -> np.ndarray:
    import pyarrow as pa
    import pyarrow.compute as pc

    values = pc.fill_null(pc.cast(array, pa.string()), "").to_pylist()
    return np.array(values, dtype=object)


def write_stream(batches, out, fmt: str = "parquet") -> None:
    """Write batches as one Parquet (or Arrow IPC) file; the schema comes from the first batch.
    Row groups hold :data:`BATCH_ROWS` rows whatever the batches were, so the bytes depend on the
    rows alone (a stream read from TSV or from JSON lines gives the same file)."""
    pa = pyarrow()
    sink, writer, extras, pending = binary(out), None, None, []
    for batch in batches:
        if extras is None:
            extras = list(batch.extra)
        pending.append(pa.table({
            "group": pa.array(np.repeat(batch.group, batch.sizes).tolist(), pa.string()),
            "item": pa.array(batch.item.tolist(), pa.string()),
            "gold": pa.array(batch.gold, pa.float64(), mask=np.isnan(batch.gold)),
            "pred": pa.array(batch.pred, pa.float64(), mask=np.isnan(batch.pred)),
            **{c: pa.array([str(v) for v in batch.extra[c].tolist()], pa.string()) for c in extras}}))
        if writer is None:
            writer = _writer(sink, pending[0].schema, fmt)
        if sum(t.num_rows for t in pending) >= BATCH_ROWS:
            pending = _write_groups(writer, pending, final=False)
    if writer is None:
        schema = pa.schema([("group", pa.string()), ("item", pa.string()), ("gold", pa.float64()),
                            ("pred", pa.float64())])
        writer = _writer(sink, schema, fmt)
    _write_groups(writer, pending, final=True)
    writer.close()


def _write_groups(writer, pending: list, final: bool) -> list:
    """Write whole row groups of :data:`BATCH_ROWS` rows (and the rest when ``final``); returns what is left."""
    pa = pyarrow()
    if not pending:
        return []
    table = pa.concat_tables(pending)
    start = 0
    while table.num_rows - start >= BATCH_ROWS or (final and start < table.num_rows):
        part = table.slice(start, BATCH_ROWS).combine_chunks()
        if hasattr(writer, "write_table"):
            writer.write_table(part)
        start += part.num_rows
    return [table.slice(start)] if start < table.num_rows else []


def write_parquet(batches, out) -> None:
    write_stream(batches, out, "parquet")


def write_arrow(batches, out) -> None:
    write_stream(batches, out, "arrow")


# ---- summary records and runs --------------------------------------------------------------

def write_records(rows: list, out, fmt: str) -> None:
    """Records (dicts) as one table: columns in order of first appearance, NaN kept as NaN."""
    pa = pyarrow()
    columns: dict = {}
    for row in rows:
        for key in row:
            columns.setdefault(key, None)
    data = {c: [_plain(row.get(c)) for row in rows] for c in columns}
    table = pa.table({c: _array(values) for c, values in data.items()})
    writer = _writer(binary(out), table.schema, fmt)
    writer.write_table(table)
    writer.close()


def _plain(value):
    if hasattr(value, "item") and not isinstance(value, (list, dict)):
        return value.item()
    return value


def _array(values: list):
    """A column of mixed ints and floats is float64; text mixed with numbers is text."""
    pa = pyarrow()
    kinds = {type(v) for v in values if v is not None}
    if kinds <= {int, float} and float in kinds:
        values = [None if v is None else float(v) for v in values]
    elif str in kinds and len(kinds) > 1:
        values = [None if v is None else str(v) for v in values]
    try:
        return pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        import json

        return pa.array([None if v is None else json.dumps(v) for v in values], pa.string())


def write_run_table(out, query, docno, rank, score, tag, fmt: str = "parquet") -> None:
    """Rows of a run (already ordered) as ``query_id, doc_id, rank, score, run``; ``tag`` is
    one tag or one per row."""
    from .trec.write import texts

    pa = pyarrow()
    n = len(rank)
    tags = [tag] * n if isinstance(tag, str) else list(tag)
    table = pa.table({"query_id": pa.array(texts(query), pa.string()), "doc_id": pa.array(texts(docno), pa.string()),
                      "rank": pa.array(np.asarray(rank, dtype=np.int64)),
                      "score": pa.array(np.asarray(score, dtype=np.float64)),
                      "run": pa.array(tags, pa.string()).dictionary_encode()})
    writer = _writer(binary(out), table.schema, fmt)
    writer.write_table(table)
    writer.close()


def write_runs(sources, out, fmt: str = "parquet") -> None:
    """TREC runs (text, Parquet or Arrow) as one run table: per run its queries in order of first
    appearance, each in trec_eval's order (score descending, docno descending) ranked from 1; the
    run column holds the run's first tag, its last row the run's last tag (trec_eval's runid)."""
    from .trec.join import trec_order
    from .trec.run import read_run

    parts = []
    for source in sources:
        run = read_run(source)
        order = np.argsort(run.code, kind="stable")
        sizes = np.bincount(run.code, minlength=len(run.qids)) if run.n_rows else np.zeros(0, np.int64)
        offsets = offsets_from_sizes(sizes)
        rows, _ = trec_order(run, offsets, order)
        rank = np.arange(len(rows)) - np.repeat(offsets[:-1], sizes) + 1
        tags = [run.tag] * len(rows)
        if tags:
            tags[-1] = run.last_tag
        qids = np.array(run.qids, dtype=object)[run.code[rows]] if len(rows) else np.zeros(0, object)
        parts.append((qids, run.docno.take(rows), rank, run.score[rows], tags))
    if not parts:
        return
    from .byteids import ByteIds

    write_run_table(out, np.concatenate([p[0] for p in parts]), ByteIds.concat([p[1] for p in parts]),
                    np.concatenate([p[2] for p in parts]), np.concatenate([p[3] for p in parts]),
                    [t for p in parts for t in p[4]], fmt)
