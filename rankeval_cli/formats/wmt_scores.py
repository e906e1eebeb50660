"""WMT metric score files, segment and system level, tab-separated, plain or compressed.

The layout is told from the number of fields, which must be the same on every line:

====  =====================================================================  ===========
 5    METRIC LP TESTSET SYSTEM SCORE                                          sys WMT10-16
 6    METRIC LP TESTSET SYSTEM SEGID SCORE  (5th field of line 1 an integer)   seg WMT10-16
 6    METRIC LP TESTSET REFSET SYSTEM SCORE  (otherwise)                       sys WMT20-21
 7    METRIC LP TESTSET SYSTEM SCORE ENSEMBLE AVAILABLE                       sys WMT17-19
 8    METRIC LP TESTSET SYSTEM SEGID SCORE ENSEMBLE AVAILABLE  (8th field     seg WMT17-19
      of line 1 not a number)
 8    METRIC LP TESTSET REFSET SYSTEM DOCID SEGID SCORE  (otherwise)          seg WMT20-21
====  =====================================================================  ===========

As a ranking stream (:func:`read_wmt_scores`) a group is one (metric, lp, testset
[, refset][, docid], segid) at segment level, one (metric, lp, testset[, refset]) at
system level, in order of first appearance; its items are the systems, gold is
empty and pred is the score negated (lower = better; ``higher_better=False``
keeps it as it is). Extra columns: ``metric``, ``lp`` (``xx-yy``), ``testset``,
``refset``, ``docid``, ``segment`` where the layout has them, ``score`` (the raw
text) and ``ensemble``/``available`` in WMT17-19 files.

These files are sorted by system, not by segment, so the whole file is read
before the first group comes out: memory is proportional to the file (kept
compact: one small integer code per text field, one float per score).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Iterable, Iterator

import numpy as np

from ..batch import BATCH_ROWS, Batch, offsets_from_sizes
from ..errors import DataError
from ..inputs import decode, open_binary, read_blocks, source_name
from .columns import is_number, parse_numbers
from .wmtids import normalize_lp

LAYOUTS = {
    "sys-wmt10": ("metric", "lp", "testset", "system", "score"),
    "seg-wmt10": ("metric", "lp", "testset", "system", "segment", "score"),
    "sys-wmt17": ("metric", "lp", "testset", "system", "score", "ensemble", "available"),
    "seg-wmt17": ("metric", "lp", "testset", "system", "segment", "score", "ensemble", "available"),
    "sys-wmt20": ("metric", "lp", "testset", "refset", "system", "score"),
    "seg-wmt20": ("metric", "lp", "testset", "refset", "system", "docid", "segment", "score"),
}
GROUP_KEYS = ("metric", "lp", "testset", "refset", "docid", "segment")
_INTEGER = re.compile(r"[+-]?\d+")


@dataclass
class ScoreTable:
    """A score file in columns: text fields as integer codes into ``vocab``, scores as floats."""

    layout: str
    source: str
    codes: dict[str, np.ndarray] = field(default_factory=dict)  # column -> int64 codes per row
    vocab: dict[str, list[str]] = field(default_factory=dict)  # column -> texts by code
    score: np.ndarray | None = None  # float64 per row
    score_text: np.ndarray | None = None  # the raw score texts (only when asked for)
    line: np.ndarray | None = None  # int64 source line per row
    _index: dict = field(default_factory=dict, repr=False)  # column -> {text: code} while loading

    @property
    def n_rows(self) -> int:
        return len(self.line)

    def texts(self, column: str, rows=slice(None)) -> np.ndarray:
        """The text of a column for the chosen rows, as an object array."""
        return np.array(self.vocab[column], dtype=object)[self.codes[column][rows]]

    @property
    def columns(self) -> tuple[str, ...]:
        return LAYOUTS[self.layout]


def detect_layout(fields: list[str]) -> str | None:
    """The layout name for one line split on tabs (rules in the module docstring), or None."""
    n = len(fields)
    if n == 5:
        return "sys-wmt10"
    if n == 6:
        return "seg-wmt10" if _INTEGER.fullmatch(fields[4].strip()) else "sys-wmt20"
    if n == 7:
        return "sys-wmt17"
    if n == 8:
        return "seg-wmt20" if is_number(fields[7]) else "seg-wmt17"
    return None



def load_scores(source, lps: Iterable[str] | None = None, keep_text: bool = False,
                layout: str | None = None) -> ScoreTable:
    """Read a score file into a :class:`ScoreTable`, keeping only rows whose lp is in ``lps``."""
    name = source_name(source)
    wanted = None if lps is None else set(lps)
    table = None
    lp_keep: dict[int, bool] = {}
    parts: dict[str, list] = {}
    with open_binary(source) as stream:
        for block, first_line in read_blocks(stream, name, skip_blank=True):
            lines, numbers = _split_lines(block, first_line, name)
            if not lines:
                continue
            if table is None:
                table = _start_table(lines[0], numbers[0], name, layout)
                parts = {c: [] for c in (*table.columns, "line")}
            _add_block(table, parts, lines, numbers, name, wanted, lp_keep, keep_text)
    if table is None:
        raise DataError("empty input: expected tab-separated metric scores", name, 1)
    _finish(table, parts, keep_text)
    return table


def _start_table(first: str, number: int, name: str, layout: str | None) -> ScoreTable:
    fields = first.split("\t")
    found = layout or detect_layout(fields)
    if found not in LAYOUTS:
        raise DataError(f"unknown score file layout: {len(fields)} tab-separated fields "
                        f"(expected 5-8 fields of a WMT metric score file): {first[:100]!r}", name, number)
    if len(LAYOUTS[found]) != len(fields):
        raise DataError(f"layout {found} has {len(LAYOUTS[found])} fields, found {len(fields)}", name, number)
    table = ScoreTable(layout=found, source=name)
    table.vocab = {c: [] for c in LAYOUTS[found] if c != "score"}
    table._index = {c: {} for c in table.vocab}  # text -> code while loading
    return table


def _split_lines(block: bytes, first_line: int, name: str):
    """Non-blank lines of a block (without line ends) and their numbers."""
    text = decode(block, name, first_line)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if "\r" in text:
        lines = [line.rstrip("\r") for line in lines]
    numbers = first_line + np.arange(len(lines), dtype=np.int64)
    blank = np.array([not line.strip() for line in lines], dtype=bool)
    if blank.any():
        lines = [line for line, b in zip(lines, blank.tolist()) if not b]
        numbers = numbers[~blank]
    return lines, numbers


def _add_block(table: ScoreTable, parts, lines, numbers, name, wanted, lp_keep, keep_text) -> None:
    columns = table.columns
    width = len(columns)
    tabs = np.array([line.count("\t") for line in lines], dtype=np.int64)
    wrong = tabs != width - 1
    if wrong.any():
        row = int(np.flatnonzero(wrong)[0])
        raise DataError(f"expected {width} tab-separated fields ({table.layout}, as on the first line), "
                        f"found {tabs[row] + 1}", name, int(numbers[row]))
    flat = "\t".join(lines).split("\t")
    raw = {c: flat[i::width] for i, c in enumerate(columns)}
    lp_codes = _encode(table, "lp", raw["lp"])
    if wanted is not None:
        for code in set(lp_codes.tolist()) - lp_keep.keys():
            lp_keep[code] = normalize_lp(table.vocab["lp"][code]) in wanted
        keep = np.array([lp_keep[c] for c in range(len(table.vocab["lp"]))], dtype=bool)[lp_codes]
        if not keep.all():
            mask = keep.tolist()
            raw = {c: list(itertools.compress(v, mask)) for c, v in raw.items()}
            lp_codes, numbers = lp_codes[keep], numbers[keep]
        if not len(numbers):
            return
    for column in columns:
        if column != "score":
            parts[column].append(lp_codes if column == "lp" else _encode(table, column, raw[column]))
    parts["score"].append(parse_numbers(raw["score"], "score", name, numbers))
    if keep_text:
        parts.setdefault("score_text", []).append(np.array(raw["score"], dtype=object))
    parts["line"].append(numbers)


def _encode(table: ScoreTable, column: str, texts: list[str]) -> np.ndarray:
    index, vocab = table._index[column], table.vocab[column]
    for text in set(texts).difference(index):
        index[text] = len(vocab)
        vocab.append(text)
    return np.fromiter(map(index.__getitem__, texts), dtype=np.int64, count=len(texts))


def _finish(table: ScoreTable, parts, keep_text: bool) -> None:
    def joined(key, dtype):
        return np.concatenate(parts[key]) if parts.get(key) else np.empty(0, dtype=dtype)

    table.codes = {c: joined(c, np.int64) for c in table.vocab}
    table.score = joined("score", np.float64)
    table.line = joined("line", np.int64)
    if keep_text:
        table.score_text = joined("score_text", object)
    normal = [normalize_lp(v) for v in table.vocab["lp"]]
    distinct = list(dict.fromkeys(normal))
    remap = np.array([distinct.index(v) for v in normal], dtype=np.int64)
    table.vocab["lp"], table.codes["lp"] = distinct, remap[table.codes["lp"]] if len(remap) else table.codes["lp"]
    table._index = {}


def read_wmt_scores(source, higher_better: bool = True, layout: str | None = None) -> Iterator[Batch]:
    """Stream one group per segment (or per test set at system level) with systems as items."""
    table = load_scores(source, keep_text=True, layout=layout)
    keys = [c for c in GROUP_KEYS if c in table.vocab]
    order, sizes = _group_rows(table, keys)
    yield from _batches(table, keys, order, sizes, higher_better)


def _group_rows(table: ScoreTable, keys: list[str]):
    """Row order putting each group's rows together (groups by first appearance) and group sizes."""
    if table.n_rows == 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    _, first, inverse = np.unique(combined_key(table, keys), return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first)] = np.arange(len(first))
    group_of_row = rank[inverse.ravel()]
    order = np.argsort(group_of_row, kind="stable")
    return order, np.bincount(group_of_row)


def combined_key(table: ScoreTable, columns) -> np.ndarray:
    """One int64 per row that is equal exactly when the codes of all ``columns`` are."""
    key = np.zeros(table.n_rows, dtype=np.int64)
    for column in columns:
        radix = max(len(table.vocab[column]), 1)
        if key.size and int(key.max()) >= (1 << 62) // radix:
            key = np.unique(key, return_inverse=True)[1].ravel().astype(np.int64)
        key = key * radix + table.codes[column]
    return key


def _batches(table: ScoreTable, keys, order, sizes, higher_better) -> Iterator[Batch]:
    offsets = offsets_from_sizes(sizes)
    start = 0
    while start < len(sizes):
        stop = int(np.searchsorted(offsets, offsets[start] + BATCH_ROWS, side="right")) - 1
        stop = max(stop, start + 1)
        rows = order[offsets[start]:offsets[stop]]
        yield _batch(table, keys, rows, sizes[start:stop], higher_better)
        start = stop


def _batch(table: ScoreTable, keys, rows, sizes, higher_better) -> Batch:
    heads = rows[offsets_from_sizes(sizes)[:-1]]
    parts = [table.texts(k, heads).tolist() for k in keys]
    group = np.array([":".join(p) for p in zip(*parts)], dtype=object)
    extra = {c: table.texts(c, rows) for c in table.columns if c not in ("system", "score")}
    extra["score"] = table.score_text[rows]
    score = table.score[rows]
    return Batch(group=group, offsets=offsets_from_sizes(sizes), item=table.texts("system", rows),
                 gold=np.full(len(rows), np.nan), pred=-score if higher_better else score.copy(),
                 extra=extra, line=table.line[rows], source=table.source)
