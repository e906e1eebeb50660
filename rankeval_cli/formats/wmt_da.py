"""WMT20 segment-level direct assessments turned into DARR pairs.

Input: space-separated ``SYS SEGID RAW.SCR Z.SCR N SID`` (header optional), one row
per system and segment (``SEGID`` = ``docid::segid``; ``SID`` its number). The
language pair comes from the file name (``metrics-ad-seg-scores-en-de.csv``) or
the ``lp`` option.

Pairs follow the rule of the official WMT20 script as used to build
``DArr-seglevel.en-de+cs-en.regenerated.csv.gz``: human translations (system ids
starting ``Human-``) are dropped (their number is reported), then every pair of
the remaining systems scored on the same SEGID whose raw DA scores differ by at
least ``min_diff`` (default 25) is one 2-item group, BETTER (higher raw DA, gold 1)
first, WORSE (gold 2) second. With ``min_diff <= 0`` equal scores can pair: both
get gold 1 (a tie), in file order.

Pairs come segment by segment in order of first appearance, and within a segment
in file order of the first, then the second system. Group ids are
``lp:SEGID:BETTER:WORSE``. Extra columns: ``lp``, ``segment`` (SEGID), ``diff``
(|Δ raw DA|) and the source columns ``SID``, ``RAW.SCR``, ``Z.SCR``, ``N`` of each item.
The whole file is held in memory (a segment's rows may be anywhere in it), compactly:
a text that repeats (system, SEGID, scores, N, SID) is kept once; pairs are made a
chunk of segments at a time.
"""

from __future__ import annotations

import os
import re
from array import array
from typing import Callable, Iterator

import numpy as np

from ..batch import BATCH_ROWS, Batch, offsets_from_sizes
from ..errors import DataError
from ..inputs import iter_lines, source_name
from .columns import format_numbers, is_number, parse_numbers
from .wmtids import normalize_lp

HEADER = ("SYS", "SEGID", "RAW.SCR", "Z.SCR", "N", "SID")
HUMAN_PREFIX = "human-"
_LP_IN_NAME = re.compile(r"(?:^|[-_.])([A-Za-z]{2,3}-[A-Za-z]{2,3})\.(?:csv|tsv|txt)(?:\.gz)?$")


def read_wmt_da(source, min_diff: float = 25.0, lp: str | None = None,
                report: Callable[[str], None] | None = None) -> Iterator[Batch]:
    """Stream DARR-style 2-item groups built from a WMT20 DA segment-score file."""
    name = source_name(source)
    lp = normalize_lp(lp) if lp else lp_from_name(name)
    table, numbers = _read_rows(source, name)
    human = np.array([s.lower().startswith(HUMAN_PREFIX) for s in table[:, 0].tolist()], dtype=bool)
    if human.any():
        (report or _warn)(f"{name}: left out {int(human.sum())} rows of human translations (Human-*)")
        table, numbers = table[~human], numbers[~human]
    raw = parse_numbers(table[:, 2].tolist(), "RAW.SCR", name, numbers)
    if np.isnan(raw).any():
        raise DataError("RAW.SCR is empty", name, int(numbers[np.isnan(raw)][0]))
    rows, offsets = _by_segment(table, numbers, name)
    for first, second in _pairs_in_chunks(offsets, BATCH_ROWS):  # pairs are made a chunk of segments at a time
        first, second = rows[first], rows[second]
        diff = np.abs(raw[first] - raw[second])
        keep = diff >= min_diff
        first, second, diff = first[keep], second[keep], diff[keep]
        swap = raw[second] > raw[first]
        better, worse = np.where(swap, second, first), np.where(swap, first, second)
        for start in range(0, len(better), BATCH_ROWS // 2):
            part = slice(start, start + BATCH_ROWS // 2)
            yield _batch(table, numbers, lp, better[part], worse[part], diff[part], name)


def _pairs_in_chunks(offsets: np.ndarray, pairs: int):
    """:func:`_pairs` of consecutive runs of segments holding about ``pairs`` pairs each (in the same order)."""
    sizes = np.diff(offsets)
    cumulative = np.cumsum(sizes * (sizes - 1) // 2)
    start = 0
    while start < len(sizes):
        done = cumulative[start - 1] if start else 0
        stop = max(int(np.searchsorted(cumulative, done + pairs, side="right")), start + 1)
        first, second = _pairs(offsets[start:stop + 1] - offsets[start])
        yield first + offsets[start], second + offsets[start]
        start = stop


def lp_from_name(name: str) -> str:
    """``xx-yy`` from a file name like ``metrics-ad-seg-scores-en-de.csv``, else DataError."""
    match = _LP_IN_NAME.search(os.path.basename(name))
    if match is None:
        raise DataError("cannot tell the language pair from the file name (expected e.g. "
                        "metrics-ad-seg-scores-en-de.csv); give it with --lp, e.g. --lp en-de", name)
    return normalize_lp(match.group(1))


def _read_rows(source, name: str):
    """(rows x 6 object array of the fields, int64 line numbers). Texts that repeat (every field
    but Z.SCR) are kept once, each row pointing to them; rows are gathered in chunks."""
    numbers, fields, chunks, first = array("q"), [], [], True
    seen: list[dict] = [{} for _ in HEADER]
    for number, text in iter_lines(source, skip_blank=True):
        parts = text.split()
        if not parts:
            continue
        if first:
            first = False
            if _is_header(parts, name, number):
                continue
        if len(parts) != 6:
            raise DataError(f"expected 6 space-separated fields ({' '.join(HEADER)}), found {len(parts)}",
                            name, number)
        numbers.append(number)
        fields.append([p if k == 3 else seen[k].setdefault(p, p) for k, p in enumerate(parts)])
        if len(fields) >= ROWS_PER_CHUNK:
            chunks.append(_as_table(fields))
            fields = []
    chunks.append(_as_table(fields))
    return np.concatenate(chunks), np.frombuffer(numbers, dtype=np.int64).copy()


#: rows gathered as lists before they become an object array
ROWS_PER_CHUNK = 1 << 16


def _as_table(fields: list) -> np.ndarray:
    table = np.empty((len(fields), 6), dtype=object)
    if fields:
        table[:] = fields
    return table


def _is_header(parts, name: str, number: int) -> bool:
    if tuple(p.upper() for p in parts) == HEADER:
        return True
    if len(parts) >= 3 and is_number(parts[2]):
        return False
    raise DataError(f"unknown DA header {' '.join(parts)[:100]!r} (expected '{' '.join(HEADER)}')", name, number)



def _by_segment(table, numbers, name: str):
    """Row order grouping rows by SEGID (first appearance, then file order) and group offsets."""
    if not len(table):
        return np.empty(0, dtype=np.int64), np.zeros(1, dtype=np.int64)
    seg = _codes(table[:, 1])  # by first appearance
    order = np.argsort(seg, kind="stable")
    _check_unique_systems(table, numbers, order, seg, name)
    return order, offsets_from_sizes(np.bincount(seg))


def _check_unique_systems(table, numbers, order, seg, name: str) -> None:
    sys_code = _codes(table[:, 0])
    key = seg * (int(sys_code.max()) + 1) + sys_code
    sorted_rows = np.argsort(key, kind="stable")
    dup = np.flatnonzero(key[sorted_rows][1:] == key[sorted_rows][:-1])
    if len(dup):
        row = int(sorted_rows[dup[0] + 1])
        raise DataError(f"system {table[row, 0]} is scored twice on segment {table[row, 1]}", name,
                        int(numbers[row]))


def _codes(texts: np.ndarray) -> np.ndarray:
    """0, 1, ... for each distinct text in order of first appearance (the texts are kept once, as
    they are: no fixed-width copy as wide as the longest)."""
    index: dict = {}
    return np.fromiter((index.setdefault(t, len(index)) for t in texts.tolist()), dtype=np.int64, count=len(texts))


def _pairs(offsets: np.ndarray):
    """Positions (first, second) of every pair i < j within each group, in group then (i, j) order."""
    sizes = np.diff(offsets)
    firsts, seconds = [], []
    for m in np.unique(sizes[sizes > 1]).tolist():
        starts = offsets[:-1][sizes == m]
        i, j = np.triu_indices(m, 1)
        firsts.append((starts[:, None] + i).ravel())
        seconds.append((starts[:, None] + j).ravel())
    if not firsts:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    first, second = np.concatenate(firsts), np.concatenate(seconds)
    order = np.lexsort((second, first))
    return first[order], second[order]


def _batch(table, numbers, lp, better, worse, diff, name) -> Batch:
    n = len(better)
    rows = np.empty(2 * n, dtype=np.int64)
    rows[0::2], rows[1::2] = better, worse
    gold = np.tile(np.array([1.0, 2.0]), n)
    gold[1::2][diff == 0] = 1.0
    segment = table[rows, 1]
    item = table[rows, 0]
    group = np.array([f"{lp}:{s}:{b}:{w}" for s, b, w in zip(segment[0::2].tolist(), item[0::2].tolist(),
                                                               item[1::2].tolist())], dtype=object)
    extra = {"lp": np.full(2 * n, lp, dtype=object), "segment": segment,
             "diff": np.repeat(format_numbers(diff), 2), "SID": table[rows, 5], "RAW.SCR": table[rows, 2],
             "Z.SCR": table[rows, 3], "N": table[rows, 4]}
    return Batch(group=group, offsets=offsets_from_sizes(np.full(n, 2)), item=item, gold=gold,
                 pred=np.full(2 * n, np.nan), extra=extra, line=numbers[rows], source=name)


def _warn(message: str) -> None:
    from ..messages import warn

    warn(message)
