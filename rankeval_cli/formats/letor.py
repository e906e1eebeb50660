"""LETOR / SVMlight ranking files: ``rel qid:Q 1:v 2:v ... # comment``, gzip or plain.

The format of SVMlight's ranking mode (Joachims 2002) and of the LETOR and MSLR
learning-to-rank benchmarks (Qin & Liu 2013). One line is one item:

- ``rel``, the graded relevance, becomes ``gold`` (higher = better: score with
  ``--relevance grades``);
- ``qid:Q`` is the group; the lines of a query must be contiguous (LETOR files are);
- ``INDEX:VALUE`` pairs are the features, written to the columns ``f1`` .. ``fM``
  (``fI`` holds index ``I``; M is the largest index in the file). An index absent
  from a line is 0, as SVMlight defines its sparse lines (only non-zero features
  need be written); an index twice on one line, an index below 1, a value that is
  not a finite number are errors at the line.
- ``# ...`` is a comment. The item id is the comment's ``docid = X`` when it has one
  (LETOR 3.0/4.0: ``#docid = GX000-00-0000000 inc = 1 prob = 0.02``), else
  ``d<LINE>`` (the line number). When any line has a comment, its text is kept in
  the column ``comment``.

``pred`` is empty. Finding M needs one look at the whole input before the first
batch: a file is scanned twice, stdin is spooled to a temporary file first.

Every index becomes a column, so M is bounded: an index above ``max_feature_index``
(``convert --max-feature-index``, default 10,000; the largest benchmarks have a few
hundred features: 136 in MSLR-WEB, 700 in Yahoo! LTR) is an error naming its line.
Batches hold at most about twice ``CELLS`` feature values (whole queries; a longer query
is one batch), so memory follows M times the rows of a batch, not M times the file.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from itertools import chain
from typing import Iterator

import numpy as np

from ..batch import BATCH_ROWS, Batch, offsets_from_sizes
from ..errors import DataError
from ..inputs import decode, open_binary, read_blocks, source_name
from .columns import parse_numbers

BLOCK_BYTES = 1 << 22
#: the largest feature index read unless raised (each index is a column of the stream)
MAX_FEATURE_INDEX = 10_000
#: feature values per batch (rows x M), whole queries kept together
CELLS = 1 << 22
_INDEX = re.compile(rb"(?<![\w.:])(\d+):")
_COMMENT = re.compile(rb"#[^\n]*")
_DOCID = re.compile(r"\bdocid\s*=\s*(\S+)")


def read_letor(source, max_feature_index: int = MAX_FEATURE_INDEX) -> Iterator[Batch]:
    """Stream batches of whole queries from a LETOR/SVMlight file (a path, ``-`` or a file object)."""
    name = source_name(source)
    spooled = None
    if not isinstance(source, (str, os.PathLike)) or source == "-":
        spooled = _spool(source, name)
        source = spooled.name
    try:
        width, comments = _scan(source, name, max_feature_index)
        yield from _read(source, name, width, comments)
    finally:
        if spooled is not None:
            spooled.close()


def _spool(source, name: str):
    """Copy stdin or a stream to a temporary file, so it can be read twice (lines within the cap)."""
    spooled = tempfile.NamedTemporaryFile(prefix="rankeval-letor-", suffix=".txt")
    try:
        with open_binary(source) as stream:
            for block, _ in read_blocks(stream, name, BLOCK_BYTES):
                spooled.write(block)
        spooled.flush()
    except BaseException:
        spooled.close()
        raise
    return spooled


def _scan(path: str, name: str, bound: int) -> tuple[int, bool]:
    """The largest feature index in the file, and whether any line has a comment.

    An index above ``bound`` is a DataError at its line (found before any is held).
    """
    width, comments = 0, False
    digits = len(str(bound))
    with open_binary(path) as stream:
        for block, first_line in read_blocks(stream, name, BLOCK_BYTES, skip_blank=True):
            if b"#" in block:
                comments = True
                block = _COMMENT.sub(b"", block)  # (comments end at a newline: line numbers stay)
            found = _INDEX.findall(block)
            if found:
                if max(map(len, found)) > digits:
                    found = [f.lstrip(b"0") or b"0" for f in found]
                largest = max(map(int, found)) if max(map(len, found)) <= digits else bound + 1
                if largest > bound:
                    _beyond(block, first_line, name, bound)
                width = max(width, largest)
    return width, comments


def _beyond(block: bytes, first_line: int, name: str, bound: int):
    """Raise the error for the first index of ``block`` above ``bound``."""
    for match in _INDEX.finditer(block):
        index = match.group(1).lstrip(b"0") or b"0"
        if len(index) > len(str(bound)) or int(index) > bound:
            shown = index if len(index) <= 30 else index[:12] + b"..." + index[-6:]
            raise DataError(f"feature index {shown.decode()} is above the limit of {bound} (each index becomes a "
                            "column fI; raise the limit with --max-feature-index)", name,
                            first_line + block.count(b"\n", 0, match.start()))


def _read(path: str, name: str, width: int, comments: bool) -> Iterator[Batch]:
    pending: list[dict] = []
    rows = 0
    batch_rows = max(1, min(BATCH_ROWS, CELLS // max(width, 1)))
    with open_binary(path) as stream:
        for block, first_line in read_blocks(stream, name, BLOCK_BYTES, skip_blank=True):
            for parsed in _parse_block(decode(block, name, first_line), first_line, name, width, comments,
                                       batch_rows):
                pending.append(parsed)
                rows += len(parsed["gold"])
                if rows < batch_rows:
                    continue
                rows_of = _join(pending)
                qids = rows_of["qid"]
                last = len(qids) - int(np.argmax(qids[::-1] != qids[-1])) if (qids != qids[-1]).any() else 0
                if last:  # the last query may continue in the next block: keep it back
                    yield _batch({k: v[:last] for k, v in rows_of.items()}, name)
                    rest = {k: v[last:] for k, v in rows_of.items()}
                    pending, rows = [rest], len(rest["gold"])
                else:
                    pending = [rows_of]
    if pending:
        yield _batch(_join(pending), name)


def _join(parts: list[dict]) -> dict:
    if len(parts) == 1:
        return parts[0]
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def _batch(rows: dict, name: str) -> Batch:
    qids = rows.pop("qid")
    starts = np.flatnonzero(np.r_[True, qids[1:] != qids[:-1]])
    sizes = np.diff(np.r_[starts, len(qids)])
    gold, item, line = rows.pop("gold"), rows.pop("item"), rows.pop("line")
    return Batch(group=qids[starts], offsets=offsets_from_sizes(sizes), item=item, gold=gold,
                 pred=np.full(len(gold), np.nan), extra=rows, line=line, source=name)


def _parse_block(text: str, first_line: int, name: str, width: int, comments: bool,
                 rows: int) -> Iterator[dict]:
    """Row arrays of one block's lines, at most ``rows`` lines at a time (:func:`_parse_lines`)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for start in range(0, len(lines), rows):
        parsed = _parse_lines(lines[start:start + rows], first_line + start, name, width, comments)
        if parsed is not None:
            yield parsed


def _parse_lines(lines: list[str], first_line: int, name: str, width: int, comments: bool) -> dict | None:
    """Row arrays (qid, gold, item, line and the extra columns) of consecutive lines."""
    parts = [line.rstrip("\r").partition("#") for line in lines]
    tokens = [body.split() for body, _, _ in parts]
    keep = [bool(t) for t in tokens]  # blank and comment-only lines are skipped
    numbers = (first_line + np.arange(len(lines), dtype=np.int64))[np.array(keep, dtype=bool)]
    if not all(keep):
        parts = [p for p, k in zip(parts, keep) if k]
        tokens = [t for t in tokens if t]
    if not tokens:
        return None
    for t, number in zip(tokens, numbers.tolist()):
        if len(t) < 2 or not t[1].startswith("qid:") or len(t[1]) == 4:
            raise DataError("expected 'REL qid:QUERY INDEX:VALUE ...' (SVMlight ranking format); "
                            f"found {' '.join(t[:2])[:60]!r}", name, number)
    gold = parse_numbers([t[0] for t in tokens], "relevance", name, numbers)
    qids = np.array([t[1][4:] for t in tokens], dtype=object)
    features = _features(tokens, numbers, name, width)
    extra = {f"f{i + 1}": features[:, i] for i in range(width)}
    comment_text = [c.strip() for _, _, c in parts]
    if comments:
        extra["comment"] = np.array(comment_text, dtype=object)
    docids = [_DOCID.search(c) for c in comment_text]
    item = np.array([m.group(1) if m else f"d{n}" for m, n in zip(docids, numbers.tolist())], dtype=object)
    return dict(qid=qids, gold=gold, item=item, line=numbers, **extra)


def _split_pairs(flat: list[str]):
    """Index and value texts of ``INDEX:VALUE`` tokens in a few C-speed string operations;
    (None, None) when some token is not exactly one non-empty INDEX and VALUE around one colon."""
    joined = " ".join(flat)
    if joined.count(":") != len(flat):
        return None, None
    parts = joined.replace(":", " ").split(" ")
    if len(parts) != 2 * len(flat):
        return None, None
    index_text, value_text = parts[0::2], parts[1::2]
    if "" in value_text or "" in index_text:
        return None, None
    return index_text, value_text


def _features(tokens: list[list[str]], numbers: np.ndarray, name: str, width: int) -> np.ndarray:
    """(lines x width) object array of value texts; absent indices are ``"0"``."""
    counts = np.fromiter((len(t) - 2 for t in tokens), dtype=np.int64, count=len(tokens))
    flat = list(chain.from_iterable(t[2:] for t in tokens))
    table = np.full((len(tokens), width), "0", dtype=object)
    if not flat:
        return table
    row = np.repeat(np.arange(len(tokens)), counts)
    index_text, value_text = _split_pairs(flat)
    if index_text is None or not "".join(index_text).isdigit() or not "".join(index_text).isascii():
        pairs = [f.partition(":") for f in flat]  # the slow path finds the first bad token
        bad = [i for i, p in enumerate(pairs)
               if not p[1] or not p[0].isdigit() or not p[0].isascii() or not p[2] or ":" in p[2]]
        first = bad[0] if bad else 0
        raise DataError(f"expected INDEX:VALUE with a positive integer index, found {flat[first][:60]!r}",
                        name, int(numbers[row[first]]))
    if max(map(len, index_text)) > 18:  # zeros in front of an index within the bound
        index_text = [t.lstrip("0") or "0" for t in index_text]
    index = np.array(index_text, dtype=np.int64)
    if (index < 1).any():
        first = int(np.flatnonzero(index < 1)[0])
        raise DataError(f"feature index {flat[first]!r} is below 1", name, int(numbers[row[first]]))
    parse_numbers(value_text, "feature value", name, numbers[row])  # raises at the first bad value
    key = row * (width + 1) + index
    order = np.argsort(key, kind="stable")
    repeated = np.flatnonzero(key[order][1:] == key[order][:-1])
    if len(repeated):
        first = int(order[repeated[0] + 1])
        raise DataError(f"feature index {index[first]} appears twice on the line", name, int(numbers[row[first]]))
    table[row, index - 1] = np.array(value_text, dtype=object)
    return table
