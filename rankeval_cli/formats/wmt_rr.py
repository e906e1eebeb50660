"""WMT human relative-ranking judgments, three layouts told apart by the header.

* WMT08 ``TASK,TYPE,ITEM_ID,ANNOTATOR_ID,TIME,SYSTEM_i,SCORE_i_A,SCORE_i_B`` (i = 0..4):
  only ``TYPE=RANK`` rows are rankings (``SCORE_i_A`` = rank); other rows are counted
  and reported. Rows may stop after fewer systems, and an empty ``SYSTEM_i`` is an
  absent item. ``TASK`` ("WMT08 French-English Europarl") gives ``lp`` and ``testset``.
* WMT10-14, 21 columns ``srclang,trglang,srcIndex,documentId,segmentId,judgeId,
  systemNNumber,systemNId (N=1..5),system1rank..system5rank``: one row is one ranking.
* WMT15-16 pairwise ``srclang,trglang,srcIndex,segmentId,judgeID,system1Id,system1rank,
  system2Id,system2rank,rankingID``: the rows of one ``rankingID`` (which must be
  contiguous, as in the released files) form one ranking of every system they name;
  a system's rank must agree across those rows.

Ranks: ``-1`` or empty = blank (NaN, never rank 1); anything else must be a positive
number. Group ids: ``lp:segment:line`` (one row per ranking) or ``lp:rankingID``.
System ids are kept as in the file (``_ref`` included). Extra columns: ``lp``
(``xx-yy``), ``testset`` (from TASK or a system-id prefix like ``newstest2013.``, else
empty), ``segment`` (srcIndex / ITEM_ID), ``judge``, then the source columns not
otherwise represented, under their header names.
"""

from __future__ import annotations

import collections
import csv
import re
from typing import Callable, Iterator

import numpy as np

from ..batch import BATCH_ROWS, Batch, offsets_from_sizes
from ..errors import DataError
from ..inputs import iter_lines, source_name
from .wmtids import lp_of, testset_of_system

WMT08_HEAD = ("task", "type", "item_id", "annotator_id", "time")
WMT10_COLUMNS = ("srclang", "trglang", "srcindex", "documentid", "segmentid", "judgeid",
                 *(f"system{i}{k}" for i in range(1, 6) for k in ("number", "id")),
                 *(f"system{i}rank" for i in range(1, 6)))
WMT15_COLUMNS = ("srclang", "trglang", "srcindex", "segmentid", "judgeid",
                 "system1id", "system1rank", "system2id", "system2rank", "rankingid")
_TASK = re.compile(r"\s*\S+\s+([A-Za-z]+)-([A-Za-z]+)(?:\s+(.*?))?\s*")


def read_wmt_rr(source, report: Callable[[str], None] | None = None) -> Iterator[Batch]:
    """Stream ranking batches from a WMT judgment CSV (a path, ``-`` or a file object)."""
    name = source_name(source)
    lines = data_lines(iter_lines(source, skip_blank=True))
    first = next(lines, None)
    if first is None:
        raise DataError("empty input: expected a WMT judgment CSV header", name, 1)
    number, text = first
    header = split_csv(text, name, number)
    lowered = tuple(h.strip().lower() for h in header)
    if lowered == WMT10_COLUMNS:
        yield from _read_wmt10(lines, name)
    elif lowered == WMT15_COLUMNS:
        yield from _read_wmt15(lines, name)
    elif _is_wmt08(lowered):
        yield from _read_wmt08(lines, header, name, report or _warn)
    else:
        raise DataError(f"unknown header for wmt-rr (expected the WMT08, WMT10-14 or WMT15-16 "
                        f"judgment columns): {text[:120]!r}", name, number)


# ---- shared line and value handling ---------------------------------------------------------

def data_lines(lines) -> Iterator[tuple[int, str]]:
    """Skip blank lines (the WMT16 files end lines with ``\\r\\r\\n``)."""
    return ((n, t) for n, t in lines if t.strip())


def split_csv(text: str, name: str | None = None, number: int | None = None) -> list[str]:
    """Fields of one CSV line; quoting is honoured only when a quote is present."""
    if '"' not in text:
        return text.split(",")
    try:
        return next(csv.reader([text]))
    except csv.Error as exc:
        raise DataError(f"malformed CSV line ({exc})", name, number) from None


#: characters of text per run of lines (long lines make shorter runs)
CHUNK_CHARS = 1 << 24


def chunks(lines, size: int, name: str | None = None) -> Iterator[tuple[np.ndarray, list[list[str]]]]:
    """(line numbers, split rows) in runs of ``size`` lines, or fewer that hold ``CHUNK_CHARS``."""
    numbers, rows, held = [], [], 0
    for number, text in lines:
        numbers.append(number)
        rows.append(split_csv(text, name, number))
        held += len(text)
        if len(rows) >= size or held >= CHUNK_CHARS:
            yield np.array(numbers, dtype=np.int64), rows
            numbers, rows, held = [], [], 0
    if rows:
        yield np.array(numbers, dtype=np.int64), rows


def parse_ranks(texts: np.ndarray, lines: np.ndarray, name: str, columns: list[str]) -> np.ndarray:
    """Ranks from a (rows, columns) text table: ``-1``/empty → NaN; otherwise a number > 0.

    Anything else is a DataError naming the column and the line (``lines`` per row).
    """
    values, inverse = np.unique(texts.astype(str), return_inverse=True)
    inverse = inverse.reshape(texts.shape)
    parsed = np.array([_rank_value(v) for v in values.tolist()], dtype=np.float64)
    bad = np.isinf(parsed)[inverse]
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise DataError(f"{columns[c]}: {texts[r, c]!r} is not a rank (a positive number, or -1 for blank)",
                        name, int(lines[r]))
    return parsed[inverse]


def _rank_value(text: str) -> float:
    """Parsed rank; NaN for blank; +inf marks an invalid value."""
    text = text.strip()
    if text in ("", "-1"):
        return np.nan
    try:
        value = float(text)
    except ValueError:
        return np.inf
    return value if np.isfinite(value) and value > 0 else np.inf


def _check_width(numbers, rows, widths, name: str, what: str) -> None:
    for number, row in zip(numbers.tolist(), rows):
        if len(row) not in widths:
            raise DataError(f"expected {what} comma-separated fields, found {len(row)}", name, number)


def _table(rows, width: int) -> np.ndarray:
    table = np.empty((len(rows), width), dtype=object)
    table[:] = ""
    for i, row in enumerate(rows):
        table[i, :len(row)] = row
    return table


def _one_row_groups(systems, ranks, numbers, row_extra, item_extra, name, rank_columns) -> Batch:
    """A batch where each table row is one ranking of the non-empty system cells.

    ``row_extra`` columns (one value per row, ``lp`` and ``segment`` among them) are
    repeated over the row's items; ``item_extra`` columns are tables like ``systems``.
    """
    present = systems != ""
    sizes = present.sum(axis=1)
    if (sizes == 0).any():
        raise DataError("a judgment naming no system", name, int(numbers[sizes == 0][0]))
    gold = parse_ranks(ranks, numbers, name, rank_columns)
    stray = ~present & ~np.isnan(gold)
    if stray.any():
        r, c = np.argwhere(stray)[0]
        raise DataError(f"a rank ({ranks[r, c]}) is given for an empty system cell", name, int(numbers[r]))
    group = np.array([f"{a}:{b}:{n}" for a, b, n in
                      zip(row_extra["lp"].tolist(), row_extra["segment"].tolist(), numbers.tolist())], dtype=object)
    item = systems[present]
    extra = {k: np.repeat(v, sizes) for k, v in row_extra.items()}
    extra["testset"] = _testsets(extra.get("testset"), item)
    extra.update({k: v[present] for k, v in item_extra.items()})
    return Batch(group=group, offsets=offsets_from_sizes(sizes), item=item, gold=gold[present],
                 pred=np.full(int(sizes.sum()), np.nan), extra=_ordered(extra),
                 line=np.repeat(numbers, sizes), source=name)


def _testsets(given, items: np.ndarray) -> np.ndarray:
    """The test set where the row names one, else the system-id prefix (``newstest2013``)."""
    from_ids = np.array([testset_of_system(s) for s in items.tolist()], dtype=object)
    if given is None:
        return from_ids
    return np.where(given != "", given, from_ids)


def _ordered(extra: dict) -> dict:
    first = ("lp", "testset", "segment", "judge")
    return {**{k: extra[k] for k in first}, **{k: v for k, v in extra.items() if k not in first}}


# ---- WMT10-14: one row per ranking ---------------------------------------------------------

def _read_wmt10(lines, name: str) -> Iterator[Batch]:
    for numbers, rows in chunks(lines, BATCH_ROWS // 5, name):
        _check_width(numbers, rows, (21,), name, "21")
        table = _table(rows, 21)
        row_extra = {"lp": _lps(table[:, 0], table[:, 1]), "segment": table[:, 2], "judge": table[:, 5],
                     "documentId": table[:, 3], "segmentId": table[:, 4]}
        yield _one_row_groups(table[:, 7:16:2], table[:, 16:21], numbers, row_extra,
                              {"systemNumber": table[:, 6:15:2]}, name, [f"system{i}rank" for i in range(1, 6)])


def _lps(src: np.ndarray, trg: np.ndarray) -> np.ndarray:
    out = np.empty(len(src), dtype=object)
    out[:] = [lp_of(s, t) for s, t in zip(src.tolist(), trg.tolist())]
    return out


# ---- WMT08: TYPE=RANK rows ------------------------------------------------------------------

def _is_wmt08(lowered: tuple) -> bool:
    if lowered[:5] != WMT08_HEAD or len(lowered) < 8 or (len(lowered) - 5) % 3:
        return False
    return all(lowered[5 + 3 * i:8 + 3 * i] == (f"system_{i}", f"score_{i}_a", f"score_{i}_b")
               for i in range((len(lowered) - 5) // 3))


def _read_wmt08(lines, header: list[str], name: str, report) -> Iterator[Batch]:
    width = len(header)
    widths = tuple(range(8, width + 1, 3))
    skipped: collections.Counter = collections.Counter()
    tasks: dict[str, tuple[str, str]] = {}
    for numbers, rows in chunks(lines, BATCH_ROWS // 5, name):
        _check_width(numbers, rows, widths, name, f"5 + 3 x (1 to {(width - 5) // 3})")
        table = _table(rows, width)
        rank_rows = table[:, 1] == "RANK"
        skipped.update(table[~rank_rows, 1].tolist())
        table, numbers = table[rank_rows], numbers[rank_rows]
        if not len(table):
            continue
        parsed = [_task(t, tasks, name, n) for t, n in zip(table[:, 0].tolist(), numbers.tolist())]
        row_extra = {"lp": np.array([p[0] for p in parsed], dtype=object), "testset": np.array([p[1] for p in parsed], dtype=object),
                     "segment": table[:, 2], "judge": table[:, 3], "TASK": table[:, 0], "TIME": table[:, 4]}
        yield _one_row_groups(table[:, 5::3], table[:, 6::3], numbers, row_extra,
                              {"SCORE_B": table[:, 7::3]}, name, header[6::3])
    if skipped:
        kinds = ", ".join(f"{k or '(empty)'}: {v}" for k, v in sorted(skipped.items()))
        report(f"{name}: skipped {sum(skipped.values())} rows that are not rankings (TYPE {kinds}); "
               "only TYPE=RANK rows are read")


def _task(task: str, cache: dict, name: str, number: int) -> tuple[str, str]:
    if task not in cache:
        match = _TASK.fullmatch(task)
        if match is None:
            raise DataError(f"cannot read the language pair from TASK {task!r} "
                            "(expected e.g. 'WMT08 French-English Europarl')", name, number)
        cache[task] = (lp_of(match.group(1), match.group(2)), match.group(3) or "")
    return cache[task]


# ---- WMT15-16: pairwise rows grouped by rankingID -----------------------------------------

def _read_wmt15(lines, name: str) -> Iterator[Batch]:
    held_numbers, held_rows = np.empty(0, dtype=np.int64), []
    for numbers, rows in chunks(lines, BATCH_ROWS, name):
        _check_width(numbers, rows, (10,), name, "10")
        numbers, rows = np.concatenate((held_numbers, numbers)), held_rows + rows
        rid = np.array([r[9] for r in rows], dtype=object)
        starts = np.flatnonzero(np.append(True, rid[1:] != rid[:-1]))
        cut = int(starts[-1])
        held_numbers, held_rows = numbers[cut:], rows[cut:]
        if cut:
            yield _pairwise_batch(numbers[:cut], rows[:cut], name)
    if held_rows:
        yield _pairwise_batch(held_numbers, held_rows, name)


def _pairwise_batch(numbers: np.ndarray, rows: list[list[str]], name: str) -> Batch:
    table = _table(rows, 10)
    run = np.cumsum(np.append(True, table[1:, 9] != table[:-1, 9])) - 1
    first_row = np.flatnonzero(np.append(True, run[1:] != run[:-1]))
    _check_same_ranking(table, run, first_row, numbers, name)
    # two entries per row, row-major: (system1, system2)
    systems = table[:, [5, 7]].ravel()
    lines = np.repeat(numbers, 2)
    if (systems == "").any():
        raise DataError("a pairwise judgment with an empty system id", name, int(lines[systems == ""][0]))
    ranks = parse_ranks(table[:, [6, 8]], numbers, name, ["system1rank", "system2rank"]).ravel()
    entry_run = np.repeat(run, 2)
    _, codes = np.unique(systems.astype(str), return_inverse=True)
    key = entry_run * (int(codes.max()) + 1) + codes.ravel()
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    first_rank = ranks[first][inverse.ravel()]
    differs = ~((first_rank == ranks) | (np.isnan(first_rank) & np.isnan(ranks)))
    if differs.any():
        e = int(np.flatnonzero(differs)[0])
        raise DataError(f"system {systems[e]} has rank {_show(ranks[e])} here but {_show(first_rank[e])} "
                        f"earlier in rankingID {table[e // 2, 9]}", name, int(lines[e]))
    order = np.sort(first)
    sizes = np.bincount(entry_run[order], minlength=len(first_row))
    heads = table[first_row]
    lp = _lps(heads[:, 0], heads[:, 1])
    item = systems[order]
    row_of = order // 2
    extra = {"lp": np.repeat(lp, sizes), "testset": _testsets(None, item), "segment": table[row_of, 2],
             "judge": table[row_of, 4], "segmentId": table[row_of, 3], "rankingID": table[row_of, 9]}
    group = np.array([f"{a}:{b}" for a, b in zip(lp.tolist(), heads[:, 9].tolist())], dtype=object)
    return Batch(group=group, offsets=offsets_from_sizes(sizes), item=item, gold=ranks[order],
                 pred=np.full(len(order), np.nan), extra=extra, line=lines[order], source=name)


def _check_same_ranking(table, run, first_row, numbers, name: str) -> None:
    """All rows of one rankingID name the same languages, segment and judge."""
    lead = first_row[run]
    for col, label in ((0, "srclang"), (1, "trglang"), (2, "srcIndex"), (3, "segmentId"), (4, "judgeID")):
        differs = table[:, col] != table[lead, col]
        if differs.any():
            r = int(np.flatnonzero(differs)[0])
            raise DataError(f"rankingID {table[r, 9]}: {label} {table[r, col]!r} differs from "
                            f"{table[lead[r], col]!r} on line {int(numbers[lead[r]])}", name, int(numbers[r]))


def _show(value: float) -> str:
    return "blank" if np.isnan(value) else f"{value:g}"


def _warn(message: str) -> None:
    from ..messages import warn

    warn(message)
