"""Canonical JSON lines decoded by pyarrow's JSON reader (the optional ``arrow`` extra): whole
blocks of lines into columns in C++, no Python object per value.

Used by :func:`rankeval_cli.formats.jsonl.read_jsonl` for a block only where the result is
the same as the standard library's decoder would give: every line one object with the
first line's keys, ``group`` a string, ``items`` (and list extras) lists of strings, ``gold``
and ``pred`` lists of numbers or nulls of the items' length (``pred`` may be null or absent),
no ``NaN``/``Infinity`` literal, no value beyond a float64, no ``\\u`` escape of half a
surrogate pair, no integer ``-0`` (Python reads 0, pyarrow -0.0). Anything else — and any
line pyarrow refuses — sends the block to the exact decoder, which reads it as it reads every
file and names the line of an error. Numbers are parsed from their text to the nearest
float64 as Python's ``float`` does (tests compare them bit for bit).
"""

from __future__ import annotations

import io
import re

import numpy as np

from ..batch import Batch, offsets_from_sizes

#: bytes a block must reach before pyarrow is worth importing (smaller inputs: the exact decoder)
MIN_BYTES = 1 << 20
SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89abcdefABCDEF]")
#: the integer -0, which Python reads as 0 and pyarrow (a float64 column) as -0.0
MINUS_ZERO = re.compile(rb"[\[,:\s]-0(?![.0-9eE])")
_LIST_TYPES = ("int64", "double", "null")


def available() -> bool:
    try:
        import pyarrow.json  # noqa: F401
    except ImportError:
        return False
    return True


def block_batches(block: bytes, first_line: int, extras: list | None, name: str, groups_per_batch: int):
    """(batches, extras) of a block of whole lines, or None where the exact decoder must read it."""
    numbers = _object_lines(block, first_line)
    if numbers is None or SURROGATE_ESCAPE.search(block) or MINUS_ZERO.search(block):
        return None
    import pyarrow as pa
    import pyarrow.json as pj

    try:
        # one chunk per column (a block is read whole); the core columns' types given, not inferred
        # (inferring promotes int64 to double within a list, which pyarrow 26 can get wrong)
        # (one thread: rankeval reads while the previous batch is evaluated on another core)
        read = pj.ReadOptions(block_size=len(block) + 1, use_threads=False)
        table = pj.read_json(io.BytesIO(block), read_options=read,
                             parse_options=pj.ParseOptions(explicit_schema=_schema(block),
                                                           unexpected_field_behavior="infer"))
        table.validate(full=True)
    except (pa.ArrowInvalid, pa.ArrowIndexError, UnicodeDecodeError):
        return None
    if table.num_rows != len(numbers):  # two objects on one line, say
        return None
    keys = [k for k in table.column_names if k not in ("group", "items", "gold", "pred")]
    if (extras is not None and keys != extras) or not {"group", "items", "gold"} <= set(table.column_names):
        return None
    columns = _columns(table, keys)
    if columns is None:
        return None
    return list(_batches(columns, numbers, name, groups_per_batch)), keys


def _schema(block: bytes):
    import pyarrow as pa

    fields = [("group", pa.string()), ("items", pa.list_(pa.string())), ("gold", pa.list_(pa.float64()))]
    if b'"pred"' in block:
        fields.append(("pred", pa.list_(pa.float64())))
    return pa.schema(fields)


def _object_lines(block: bytes, first_line: int) -> np.ndarray | None:
    """The line number of every line holding an object; None if a line that is not blank does
    not start with ``{`` (then the exact decoder reads the block)."""
    data = np.frombuffer(block, dtype=np.uint8)
    ends = np.flatnonzero(data == 10)
    if not len(data) or data[-1] != 10:
        ends = np.append(ends, len(data))
    starts = np.concatenate(([0], ends[:-1] + 1))
    length = ends - starts
    first = data[np.minimum(starts, len(data) - 1)] if len(data) else np.zeros(0, np.uint8)
    blank = (length == 0) | ((length == 1) & (first == 13))
    if not (first[~blank] == ord("{")).all():
        return None
    return first_line + np.flatnonzero(~blank)


def _columns(table, keys):
    """{name: (values, sizes)} with the checks of the module docstring, or None."""
    import pyarrow as pa
    import pyarrow.compute as pc

    group = table.column("group")
    if group.type != pa.string() or group.null_count:
        return None
    out = {"group": group.to_numpy(zero_copy_only=False).astype(object)}
    items = table.column("items").combine_chunks()
    if not _is_list_of(items, pa.string()) or items.null_count:
        return None
    sizes = items.value_lengths().to_numpy(zero_copy_only=False)
    out["items"] = _strings(items.flatten())
    for key in ("gold", "pred"):
        if key not in table.column_names:
            out[key] = np.full(int(sizes.sum()), np.nan)
            continue
        values = _numbers(table.column(key).combine_chunks(), sizes, missing_ok=key == "pred")
        if values is None:
            return None
        out[key] = values
    for key in keys:
        column = table.column(key).combine_chunks()
        if column.type == pa.string() and not column.null_count:
            out[key] = np.repeat(_strings(column), sizes)
        elif _is_list_of(column, pa.string()) and not column.null_count and \
                np.array_equal(column.value_lengths().to_numpy(zero_copy_only=False), sizes):
            out[key] = _strings(pc.fill_null(column.flatten(), ""))
        else:
            return None
    out["sizes"] = sizes
    return out


def _is_list_of(column, value_type) -> bool:
    import pyarrow as pa

    return pa.types.is_list(column.type) and column.type.value_type in (value_type, pa.null())


def _numbers(column, sizes, missing_ok: bool):
    """float64 values of a list column of numbers/nulls (nulls → NaN), or None."""
    import pyarrow as pa

    if not pa.types.is_list(column.type) or str(column.type.value_type) not in _LIST_TYPES:
        return None
    if column.null_count:  # a row holding null (or no key): allowed for pred, as NaNs
        if not missing_ok:
            return None
        lengths = column.value_lengths().to_numpy(zero_copy_only=False)
        nulls = column.is_null().to_numpy(zero_copy_only=False)
        if not np.array_equal(lengths[~nulls], sizes[~nulls]):
            return None
        flat = _floats(column.flatten())
        out = np.full(int(sizes.sum()), np.nan)
        at = np.repeat(~nulls, sizes)
        out[at] = flat
        return out if np.isfinite(flat[~np.isnan(flat)]).all() and _no_nan_literal(column.flatten()) else None
    if not np.array_equal(column.value_lengths().to_numpy(zero_copy_only=False), sizes):
        return None
    flat_column = column.flatten()
    values = _floats(flat_column)
    return values if _no_nan_literal(flat_column) and not np.isinf(values).any() else None


def _floats(column) -> np.ndarray:
    import pyarrow as pa

    if column.type == pa.null():
        return np.full(len(column), np.nan)
    values = column.to_numpy(zero_copy_only=False).astype(np.float64)
    if column.null_count:
        values[column.is_null().to_numpy(zero_copy_only=False)] = np.nan
    return values


def _no_nan_literal(column) -> bool:
    """True unless a value is NaN that is not a JSON null (pyarrow reads the literal ``NaN``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if column.type != pa.float64():
        return True
    return not pc.any(pc.is_nan(column)).as_py()


def _strings(column) -> np.ndarray:
    """An object array of the strings (each distinct string made once)."""
    import pyarrow.compute as pc

    encoded = pc.dictionary_encode(column)
    words = np.array(encoded.dictionary.to_pylist() + [None], dtype=object)[:-1]
    return words[encoded.indices.to_numpy(zero_copy_only=False)]


def _batches(columns, numbers, name, groups_per_batch):
    sizes = columns["sizes"]
    offsets = offsets_from_sizes(sizes)
    extra = [k for k in columns if k not in ("group", "items", "gold", "pred", "sizes")]
    for lo in range(0, len(sizes), groups_per_batch):
        hi = min(lo + groups_per_batch, len(sizes))
        a, b = offsets[lo], offsets[hi]
        yield Batch(group=columns["group"][lo:hi], offsets=offsets[lo:hi + 1] - a, item=columns["items"][a:b],
                    gold=columns["gold"][a:b], pred=columns["pred"][a:b],
                    extra={k: columns[k][a:b] for k in extra},
                    line=np.repeat(numbers[lo:hi].astype(np.int64), sizes[lo:hi]), source=name)
