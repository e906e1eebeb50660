"""WMT's segment-level DA scores as segment rankings (the input of WMT's system scores).

Two space-separated layouts, a header line optional:

* ``SYS SEGID RAW.SCR Z.SCR N SID``: the WMT20 metrics task's
  ``metrics-ad-seg-scores-LP.csv`` (``SEGID`` = ``docid::segid``, ``SID`` its number);
* ``SYS SID RAW.SCR Z.SCR N``: the organisers' ``ad-seg-scores-LP.csv`` (WMT20-22 releases).

One row per system and segment: the mean raw DA score of the segment's judgments
(``RAW.SCR``), the mean of their per-annotator z-scores (``Z.SCR``) and their number
(``N``). The language pair comes from the file name (``...-en-de.csv``) or ``lp``.

Stream: one group per segment (``lp:SEGMENT``, segments in order of first
appearance, systems in file order), items = systems (human translations included,
as WMT ranks them), gold = −RAW.SCR (lower = better, as every converted stream).
Extra columns: ``lp``, ``segment`` (SEGID, else SID), ``z`` (−Z.SCR: the z-score
in gold's orientation, which ``aggregate --method z-score`` averages),
``judgments`` (N), ``SID`` where the file has SEGID, and the source texts
``RAW.SCR`` and ``Z.SCR``. The whole file is held in memory to gather the rows of
each segment (DA files are a few MB).
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from ..batch import BATCH_ROWS, Batch
from ..errors import DataError
from ..inputs import iter_lines, source_name
from .columns import is_number, parse_numbers
from .wmt_da import _by_segment, lp_from_name
from .wmtids import normalize_lp

HEADERS = {6: ("SYS", "SEGID", "RAW.SCR", "Z.SCR", "N", "SID"), 5: ("SYS", "SID", "RAW.SCR", "Z.SCR", "N")}


def read_wmt_da_scores(source, lp: str | None = None) -> Iterator[Batch]:
    """Stream one group per segment from a WMT DA segment-score file (module doc)."""
    name = source_name(source)
    lp = normalize_lp(lp) if lp else lp_from_name(name)
    table, numbers = _read_table(source, name)
    raw = _numbers(table[:, 2], "RAW.SCR", name, numbers)
    _numbers(table[:, 3], "Z.SCR", name, numbers)
    counts = table[:, 4].tolist()
    bad = [i for i, c in enumerate(counts) if not c.isdigit() or int(c) < 1]
    if bad:
        raise DataError(f"N must be a positive whole number of judgments, found {counts[bad[0]]!r}", name,
                        int(numbers[bad[0]]))
    order, offsets = _by_segment(table, numbers, name)
    for first in range(0, len(offsets) - 1, max(1, BATCH_ROWS // 32)):
        last = min(first + max(1, BATCH_ROWS // 32), len(offsets) - 1)
        rows = order[offsets[first]:offsets[last]]
        yield _batch(table, numbers, raw, lp, rows, offsets[first:last + 1] - offsets[first], name)


def _read_table(source, name: str):
    numbers, fields, width = [], [], None
    for number, text in iter_lines(source):
        parts = text.split()
        if not parts:
            continue
        if width is None:
            width = len(parts)
            if width not in HEADERS:
                raise DataError(f"expected the space-separated fields {' '.join(HEADERS[6])} or "
                                f"{' '.join(HEADERS[5])}, found {width}", name, number)
            if tuple(p.upper() for p in parts) == HEADERS[width]:
                continue
            if not is_number(parts[2]):
                raise DataError(f"unknown DA header {text[:100]!r} (expected {' '.join(HEADERS[width])!r})",
                                name, number)
        if len(parts) != width:
            raise DataError(f"expected {width} space-separated fields ({' '.join(HEADERS[width])}), "
                            f"found {len(parts)}", name, number)
        numbers.append(number)
        fields.append(parts)
    table = np.empty((len(fields), width or 6), dtype=object)
    if fields:
        table[:] = fields
    return table, np.array(numbers, dtype=np.int64)


def _numbers(texts: np.ndarray, column: str, name: str, numbers: np.ndarray) -> np.ndarray:
    values = parse_numbers(texts.tolist(), column, name, numbers)
    if np.isnan(values).any():
        raise DataError(f"{column} is empty", name, int(numbers[np.isnan(values)][0]))
    return values


def _negated(texts: np.ndarray) -> np.ndarray:
    """``-t`` for each number text, written by flipping the sign (exact, the digits kept)."""
    out = np.empty(len(texts), dtype=object)
    out[:] = [t[1:] if t.startswith("-") else "-" + t.removeprefix("+") for t in texts.tolist()]
    return out


def _batch(table, numbers, raw, lp, rows, offsets, name) -> Batch:
    segment = table[rows, 1]
    width = table.shape[1]
    extra = {"lp": np.full(len(rows), lp, dtype=object), "segment": segment, "z": _negated(table[rows, 3]),
             "judgments": table[rows, 4]}
    if width == 6:
        extra["SID"] = table[rows, 5]
    extra.update({"RAW.SCR": table[rows, 2], "Z.SCR": table[rows, 3]})
    group = np.array([f"{lp}:{s}" for s in segment[offsets[:-1]].tolist()], dtype=object)
    return Batch(group=group, offsets=offsets.astype(np.int64), item=table[rows, 0], gold=-raw[rows],
                 pred=np.full(len(rows), np.nan), extra=extra, line=numbers[rows], source=name)
