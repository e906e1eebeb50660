"""WMT17-21 DARR pairs: space-separated ``LP DATA SID BETTER WORSE [DIFF]``.

An optional header line ``LP DATA SID BETTER WORSE`` (a first field ``LP``) is
skipped; any other header is an error. Every line is one 2-item group: BETTER
(gold 1) then WORSE (gold 2) - except when the 6th field, the absolute raw DA
difference, is 0: the humans did not prefer either, so both get gold 1 (a tie).
Every line must have as many fields as the first data line (5, or 6 with DIFF).
``min_diff`` keeps only pairs whose DIFF is at least that (the official WMT20
evaluation used 25); it needs the 6th field.

Group ids are the line numbers. Extra columns: ``lp`` (``xx-yy``), ``testset``
(DATA), ``segment`` (SID as in the file; WMT20 files use ``docid::segid``) and
``diff`` (6-field files only).
"""

from __future__ import annotations

import re
from typing import Iterator

import numpy as np

from ..batch import BATCH_ROWS, Batch, offsets_from_sizes
from ..errors import DataError
from ..inputs import decode, open_binary, read_blocks, source_name
from .columns import parse_numbers
from .wmtids import normalize_lps

BLOCK_BYTES = 1 << 20  # about 15,000 pairs, so batches stay near BATCH_ROWS rows
HEADER = ("LP", "DATA", "SID", "BETTER", "WORSE")
_LP = re.compile(r"[A-Za-z]+-[A-Za-z]+")


def read_darr(source, min_diff: float | None = None) -> Iterator[Batch]:
    """Stream 2-item groups from a DARR file (a path, ``-`` or a file object)."""
    name = source_name(source)
    width = None
    pending, rows = [], 0
    with open_binary(source) as stream:
        for block, first_line in read_blocks(stream, name, BLOCK_BYTES, skip_blank=True):
            fields, numbers = _split(block, first_line, name)
            if width is None and fields:
                fields, numbers = _skip_header(fields, numbers, name)
                if fields:
                    width = len(fields[0])
                    if width not in (5, 6):
                        raise DataError(f"expected 5 or 6 space-separated fields (LP DATA SID BETTER WORSE "
                                        f"[DIFF]), found {width}", name, int(numbers[0]))
                    if min_diff is not None and width != 6:
                        raise DataError("--min-diff needs the 6th field (DIFF), which this file lacks", name,
                                        int(numbers[0]))
            if fields:
                batch = _block_batch(fields, numbers, width, name, min_diff)
                pending.append(batch)
                rows += batch.n_rows
            if rows >= BATCH_ROWS:
                yield from _flush(pending)
                pending, rows = [], 0
    yield from _flush(pending)


def _flush(pending) -> Iterator[Batch]:
    from ..batch import concat

    pending = [b for b in pending if b.n_groups]
    if pending:
        yield concat(pending)


def _split(block: bytes, first_line: int, name: str):
    """Whitespace-split fields of the non-blank lines of a block, and their line numbers."""
    lines = decode(block, name, first_line).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    fields = [line.split() for line in lines]
    numbers = first_line + np.arange(len(lines), dtype=np.int64)
    keep = np.array([bool(f) for f in fields], dtype=bool)
    if not keep.all():
        fields = [f for f in fields if f]
        numbers = numbers[keep]
    return fields, numbers


def _skip_header(fields, numbers, name: str):
    head = fields[0]
    if head[0].upper() == "LP":
        if tuple(h.upper() for h in head[:5]) != HEADER or len(head) > 6:
            raise DataError(f"unknown DARR header {' '.join(head)!r} (expected 'LP DATA SID BETTER WORSE')",
                            name, int(numbers[0]))
        return fields[1:], numbers[1:]
    if not _LP.fullmatch(head[0]):
        raise DataError(f"unknown DARR header or malformed first line {' '.join(head)[:100]!r} "
                        "(expected 'LP DATA SID BETTER WORSE [DIFF]' or a language pair first)",
                        name, int(numbers[0]))
    return fields, numbers


def _block_batch(fields, numbers, width: int, name: str, min_diff) -> Batch:
    counts = np.fromiter(map(len, fields), dtype=np.int64, count=len(fields))
    wrong = counts != width
    if wrong.any():
        row = int(np.flatnonzero(wrong)[0])
        raise DataError(f"expected {width} space-separated fields (LP DATA SID BETTER WORSE"
                        f"{' DIFF' if width == 6 else ''}, as on the first line), found {counts[row]}",
                        name, int(numbers[row]))
    table = np.empty((len(fields), width), dtype=object)
    table[:] = fields
    keep, diff = None, None
    if width == 6:
        diff = parse_numbers(table[:, 5].tolist(), "DIFF", name, numbers)
        if np.isnan(diff).any():
            raise DataError("DIFF is empty", name, int(numbers[np.isnan(diff)][0]))
        if min_diff is not None:
            keep = diff >= min_diff
    if keep is not None:
        table, numbers, diff = table[keep], numbers[keep], diff[keep]
    return pairs_batch(table, diff, numbers, name)


def pairs_batch(table: np.ndarray, diff: np.ndarray | None, numbers: np.ndarray, name: str) -> Batch:
    """2-item groups (better first) named by line number from the fields of each line (``table``:
    LP DATA SID BETTER WORSE, and DIFF when it has six columns); a zero ``diff`` is a tie."""
    lp, testset, segment, better, worse = (table[:, i] for i in range(5))
    diff_text = table[:, 5] if table.shape[1] == 6 else None
    n = len(lp)
    gold = np.tile(np.array([1.0, 2.0]), n)
    if diff is not None:
        gold[1::2][diff == 0] = 1.0
    extra = {"lp": np.repeat(normalize_lps(lp), 2), "testset": np.repeat(testset, 2),
             "segment": np.repeat(segment, 2)}
    if diff_text is not None:
        extra["diff"] = np.repeat(diff_text, 2)
    item = np.empty(2 * n, dtype=object)
    item[0::2], item[1::2] = better, worse
    return Batch(group=numbers.astype(str).astype(object), offsets=offsets_from_sizes(np.full(n, 2)),
                 item=item, gold=gold, pred=np.full(2 * n, np.nan), extra=extra,
                 line=np.repeat(numbers, 2), source=name)
