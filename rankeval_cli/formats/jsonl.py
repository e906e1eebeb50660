"""The canonical JSON lines: one object per group.

``{"group": "g1", "items": ["a", "b"], "gold": [1, 2], "pred": [2, null], "lp": ["de-en", "de-en"]}``

``gold``/``pred`` hold numbers or ``null`` (missing); every other key is an extra
column: a list with one string per item, or a scalar that applies to every item.
Writers always write lists, so a TSV → JSONL → TSV trip returns the same rows.
"""

from __future__ import annotations

import json
import math
import re
from itertools import chain
from typing import Iterator

import numpy as np

from ..batch import Batch, offsets_from_sizes
from ..errors import DataError
from ..inputs import decode, non_blank_lines, open_binary, read_blocks, source_name
from . import jsonl_arrow
from .columns import format_numbers

CORE_KEYS = ("group", "items", "gold", "pred")
GROUPS_PER_BATCH = 8192
#: a batch also ends after this many characters of JSON (long lines make smaller batches)
BATCH_CHARS = 1 << 24
#: blocks read at once (pyarrow decodes one at a time)
ARROW_BLOCK_BYTES = 1 << 24


def read_jsonl(source, **_options) -> Iterator[Batch]:
    """Stream batches from JSON lines (a path, ``-`` or a file object).

    The extra keys are those of the first object; every later object must have them.
    An input of a megabyte or more is decoded by pyarrow where it is installed (the ``arrow``
    extra; :mod:`.jsonl_arrow`), block by block, each block it cannot take as the standard
    decoder would read by that decoder: the batches are the same either way.
    """
    name = source_name(source)
    pending: list[tuple[int, str]] = []
    held = 0
    extras: list[str] | None = None
    arrow = None  # decided on the first block
    with open_binary(source) as stream:
        for block, first_line in read_blocks(stream, name, block_bytes=ARROW_BLOCK_BYTES, skip_blank=True):
            if arrow is None:
                arrow = len(block) >= jsonl_arrow.MIN_BYTES and jsonl_arrow.available()
            fast = jsonl_arrow.block_batches(block, first_line, extras, name, GROUPS_PER_BATCH) if arrow else None
            if fast is not None:
                if pending:
                    batch, extras = _batch_of(pending, extras, name)
                    yield batch
                    pending, held = [], 0
                batches, extras = fast
                yield from batches
                continue
            for number, text in non_blank_lines(decode(block, name, first_line), first_line):
                if text.strip():
                    pending.append((number, text))
                    held += len(text)
                if len(pending) >= GROUPS_PER_BATCH or held >= BATCH_CHARS:
                    batch, extras = _batch_of(pending, extras, name)
                    yield batch
                    pending, held = [], 0
    if pending:
        yield _batch_of(pending, extras, name)[0]


def _batch_of(pending: list[tuple[int, str]], extras: list[str] | None, name: str):
    records = _parse_lines(pending, name)
    if extras is None:
        extras = [k for k in records[0] if k not in CORE_KEYS]
    return _make_batch([n for n, _ in pending], records, extras, name), extras


def _parse_lines(pending: list[tuple[int, str]], name: str) -> list[dict]:
    """The objects of many lines; one decode of ``[line, line, ...]`` when it is plainly valid.

    Whenever that joined text fails or yields another count of values (a line
    holding ``1, 2``), the lines are decoded one by one so the error names its line.
    """
    try:
        records = _DECODER.decode("[" + ",".join(text for _, text in pending) + "]")
    except (ValueError, RecursionError):
        records = None
    if records is None or len(records) != len(pending):
        records = [None] * len(pending)
    for k, (number, text) in enumerate(pending):
        if type(records[k]) is not dict:
            records[k] = _decode_line(text, name, number)
        _check_line(text, records[k], name, number)
    return records


def _decode_line(text: str, name: str, number: int) -> dict:
    try:
        record = _DECODER.decode(text)
    except (ValueError, RecursionError) as exc:
        raise DataError(f"invalid JSON: {exc}", name, number) from None
    if not isinstance(record, dict):
        raise DataError("expected a JSON object per line", name, number)
    return record


def _check_line(text: str, record: dict, name: str, number: int) -> None:
    if "\\u" in text and SURROGATE_ESCAPE.search(text):
        _check_escapes(record, name, number)
    for key in ("group", "items", "gold"):
        if key not in record:
            raise DataError(f"object lacks the key {key!r}", name, number)


SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")


def _check_escapes(record: dict, name: str, number: int) -> None:
    """A ``\\ud800``-style escape of half a surrogate pair is no character: it cannot be written back."""
    try:
        json.dumps(record, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise DataError("invalid JSON: a \\u escape encodes half of a surrogate pair, not a character",
                        name, number) from None


def _reject_constant(token: str):
    raise ValueError(f"{token} is not allowed; use null for a missing value")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def _make_batch(numbers: list[int], records: list[dict], extras: list[str], name: str) -> Batch:
    return _plain_batch(numbers, records, extras, name) or _checked_batch(numbers, records, extras, name)


def _plain_batch(numbers: list[int], records: list[dict], extras: list[str], name: str) -> Batch | None:
    """The batch, built from whole flat lists, if every record is plainly valid; else None.

    Plainly valid: the extra keys of the first line, string ids, and lists with one
    value per item: int, float or null for gold and pred (null or no pred → NaN),
    strings for extras. Anything else goes to :func:`_checked_batch`, which converts
    numbers given as ids and reports the first bad value.
    """
    keys = set(CORE_KEYS[:3]) | set(extras)
    if not all(r.keys() - {"pred"} == keys for r in records) or not all(type(r["items"]) is list for r in records):
        return None
    sizes = [len(r["items"]) for r in records]
    groups = [r["group"] for r in records]
    items = _flat(records, "items", sizes, str)
    gold, pred = _flat(records, "gold", sizes, float), _flat(records, "pred", sizes, float, missing=True)
    extra = {k: _flat(records, k, sizes, str) for k in extras}
    if not all(type(g) is str for g in groups) or any(v is None for v in (items, gold, pred, *extra.values())):
        return None
    try:
        gold, pred = np.array(gold, dtype=np.float64), np.array(pred, dtype=np.float64)
    except OverflowError:
        return None
    if np.isinf(gold).any() or np.isinf(pred).any():
        return None
    sizes = np.array(sizes, dtype=np.int64)
    return Batch(group=np.array(groups, dtype=object), offsets=offsets_from_sizes(sizes),
                 item=np.array(items, dtype=object), gold=gold, pred=pred,
                 extra={k: np.array(v, dtype=object) for k, v in extra.items()},
                 line=np.repeat(np.array(numbers, dtype=np.int64), sizes), source=name)


_PLAIN_TYPES = {str: {str}, float: {int, float, type(None)}}


def _flat(records, key: str, sizes: list[int], kind, missing: bool = False) -> list | None:
    """The lists ``record[key]`` of all records joined, or None unless each is plainly valid."""
    lists = [r.get(key) for r in records]
    if missing:
        lists = [[None] * n if v is None else v for v, n in zip(lists, sizes)]
    if not all(type(v) is list for v in lists) or [len(v) for v in lists] != sizes:
        return None
    flat = list(chain.from_iterable(lists))
    return flat if set(map(type, flat)) <= _PLAIN_TYPES[kind] else None


def _checked_batch(numbers: list[int], records: list[dict], extras: list[str], name: str) -> Batch:
    """The batch, record by record: ids that are numbers become strings, and the first bad value raises."""
    sizes, groups, items, gold, pred, lines = [], [], [], [], [], []
    extra_values: dict[str, list] = {k: [] for k in extras}
    for number, record in zip(numbers, records):
        n = _check_record(record, extras, name, number)
        sizes.append(n)
        groups.append(_text(record["group"], "group", name, number))
        items.extend(_text(v, "items", name, number) for v in record["items"])
        gold.extend(_numbers(record["gold"], "gold", n, name, number))
        pred.extend(_numbers(record.get("pred"), "pred", n, name, number))
        lines.extend([number] * n)
        for key in extras:
            extra_values[key].extend(_extra(record[key], key, n, name, number))
    return Batch(
        group=np.array(groups, dtype=object),
        offsets=offsets_from_sizes(np.array(sizes, dtype=np.int64)),
        item=np.array(items, dtype=object),
        gold=np.array(gold, dtype=np.float64),
        pred=np.array(pred, dtype=np.float64),
        extra={k: np.array(v, dtype=object) for k, v in extra_values.items()},
        line=np.array(lines, dtype=np.int64),
        source=name,
    )


def _check_record(record: dict, extras: list[str], name: str, number: int) -> int:
    items = record["items"]
    if not isinstance(items, list):
        raise DataError("'items' must be a list", name, number)
    keys = [k for k in record if k not in CORE_KEYS]
    if sorted(keys) != sorted(extras):
        raise DataError(f"keys {sorted(keys)} differ from the first line's extra keys {sorted(extras)}", name, number)
    return len(items)


def _text(value, key: str, name: str, number: int) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or value is None or isinstance(value, (list, dict)):
        raise DataError(f"{key!r} values must be strings or numbers, not {json.dumps(value)}", name, number)
    return str(value)


def _numbers(values, key: str, n: int, name: str, number: int) -> list[float]:
    if values is None and key == "pred":
        return [math.nan] * n
    if not isinstance(values, list) or len(values) != n:
        raise DataError(f"{key!r} must be a list of {n} numbers or nulls, one per item", name, number)
    out = []
    for v in values:
        if v is None:
            out.append(math.nan)
        elif isinstance(v, (int, float)) and not isinstance(v, bool) and _finite(v):
            out.append(float(v))
        else:
            raise DataError(f"{key!r} holds {_short(json.dumps(v))}, not a finite number or null", name, number)
    return out


def _short(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."


def _finite(value) -> bool:
    """True for a number that is a finite float64 (an int too large for one is not)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _extra(value, key: str, n: int, name: str, number: int) -> list[str]:
    if isinstance(value, list):
        if len(value) != n:
            raise DataError(f"{key!r} has {len(value)} values for {n} items", name, number)
        return ["" if v is None else _text(v, key, name, number) for v in value]
    return [("" if value is None else _text(value, key, name, number))] * n


def write_jsonl(batches, out) -> None:
    """Write batches as JSON lines to a text stream."""
    for batch in batches:
        _write_groups(batch, out)


def _write_groups(batch: Batch, out) -> None:
    if batch.n_groups:
        columns = [("items", _json_strings(batch.item)), ("gold", _json_numbers(batch.gold)),
                   ("pred", _json_numbers(batch.pred)), *((k, _json_strings(v)) for k, v in batch.extra.items())]
        out.write(_json_lines(_json_strings(batch.group), batch.offsets, columns))


def _json_lines(groups: np.ndarray, offsets: np.ndarray, columns: list[tuple[str, np.ndarray]]) -> str:
    """The text of ``{"group": g, "items": [...], "gold": [...], ...}`` lines, as ``json.dumps`` writes them.

    Every piece of text is put at its place in one array, which is joined once.
    With k columns, a group of n rows takes 1 + k·(2n + 1) pieces: its opening,
    then per column each value followed by ", " (nothing after the last), and the
    column's closing ``], "next": [`` (``]}`` after the last column).
    """
    sizes = np.diff(offsets)
    k = len(columns)
    starts = np.arange(len(groups)) * (k + 1) + offsets[:-1] * (2 * k)
    row_group = np.repeat(np.arange(len(groups)), sizes)
    within = np.arange(offsets[-1]) - offsets[:-1][row_group]
    separators = np.full(offsets[-1], ", ", dtype=object)
    separators[within == sizes[row_group] - 1] = ""
    pieces = np.empty(len(groups) * (k + 1) + offsets[-1] * (2 * k), dtype=object)
    pieces[starts] = '{"group": ' + groups + f', {_json_string(columns[0][0])}: ['
    for c, (_, values) in enumerate(columns):
        column_start = starts + 1 + c * (2 * sizes + 1)
        value_at = column_start[row_group] + 2 * within
        pieces[value_at] = values
        pieces[value_at + 1] = separators
        pieces[column_start + 2 * sizes] = f'], {_json_string(columns[c + 1][0])}: [' if c + 1 < k else "]}\n"
    return "".join(pieces.tolist())


_json_string = json.encoder.encode_basestring  # json.dumps(text, ensure_ascii=False)


def _json_strings(values: np.ndarray) -> np.ndarray:
    """JSON text of each string; equal strings share one text."""
    texts = values.tolist()
    encoded = {text: _json_string(text) for text in dict.fromkeys(texts)}
    return np.array(list(map(encoded.__getitem__, texts)), dtype=object)


def _json_numbers(values: np.ndarray) -> np.ndarray:
    """JSON text of floats: integral ones as integers, others shortest-repr, NaN (or ±inf) as ``null``."""
    out = format_numbers(values)
    out[~np.isfinite(values)] = "null"
    return out
