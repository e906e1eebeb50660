"""TREC lines split into fields as trec_eval 10.0 splits them (``get_trec_results.c``,
``get_qrels.c``), straight from a block's bytes.

:func:`fields` gives the byte offsets of the first fields of every line of a block that
holds a row: fields are separated by runs of C's white space (space, tab, CR, vertical
tab, form feed); blank lines and comment lines hold none (runs: first non-blank byte
``#``; qrels: ``#`` in column 0); a run line may have more fields than six (ignored), a
qrels line has exactly four. The common layout (single spaces, no comment) is split in a
few whole-array steps (:func:`_plain_fields`), any other with per-byte arrays
(:func:`_split_fields`), and a line far longer than a block on its own, by a regular
expression that stops after the fields it needs (:func:`_long_line_fields`), so memory
stays a small multiple of the block. Rows' line numbers are a :class:`LineMap` of
stretches of consecutive lines: skipped lines cost nothing.

Then the fields are checked and converted where they lie: ids that are not UTF-8 or hold
a NUL byte (:func:`check_ids`), scores (:func:`numbers`), grades (:func:`integers`),
each an error at its line.
"""

from __future__ import annotations

import codecs
import contextlib
import contextvars
import re
from dataclasses import dataclass
from itertools import islice

import numpy as np

from ...batch import offsets_from_sizes
from ...errors import DataError
from ..numparse import c_atof, c_atol, parse_exact, parse_fields

RUN_FIELDS = ("qid", "Q0", "docno", "rank", "score", "tag")
QRELS_FIELDS = ("qid", "iter", "docno", "rel")

#: A block longer than this holds a long line: its lines are split in stretches, the long ones alone.
VECTOR_BLOCK = 1 << 23
#: A line longer than this is split on its own (by a regular expression), not with per-byte arrays.
LONG_LINE = 1 << 20
#: Longest text of a field shown in a message.
SHOWN = 60
#: Bytes of a field decoded at once when checking that it is UTF-8.
UTF8_PIECE = 1 << 20
#: Longest score read (a double's exact decimal expansion has at most 767 significant digits).
MAX_NUMBER_BYTES = 1024

#: C's isspace: the bytes that separate fields (a newline ends the line as well)
_SPACE = np.zeros(256, dtype=bool)
_SPACE[[9, 10, 11, 12, 13, 32]] = True
_TOKEN = re.compile(rb"[^\t\n\v\f\r ]+")
_HASH = 35  # '#'


@dataclass(frozen=True)
class Layout:
    """What a line of a file holds (runs, qrels)."""

    fields: tuple
    more_fields: bool  # fields after the last are ignored (runs) or an error (qrels)
    indented_comments: bool  # '#' after leading blanks starts a comment (runs) or only in column 0 (qrels)
    ids: tuple  # the columns that are ids: UTF-8 without NUL

    @property
    def width(self) -> int:
        return len(self.fields)


RUN = Layout(RUN_FIELDS, True, True, (0, 2, 5))
QRELS = Layout(QRELS_FIELDS, False, False, (0, 2))


@dataclass
class LineMap:
    """The file line of every row of a run (or part of one), held as stretches of
    consecutive lines: ``rows[i]`` starts a stretch at line ``lines[i]``. Skipped lines
    (blank, comments) cost nothing; a row on every other line costs one stretch."""

    rows: np.ndarray
    lines: np.ndarray
    n: int  # rows mapped

    @classmethod
    def of(cls, lines: np.ndarray) -> "LineMap":
        """From the line of every row (increasing)."""
        lines = np.asarray(lines, dtype=np.int64)
        heads = np.flatnonzero(np.r_[True, np.diff(lines) != 1]) if len(lines) else np.zeros(0, np.int64)
        return cls(heads.astype(np.int64), lines[heads], len(lines))

    @classmethod
    def consecutive(cls, first_line: int, n: int) -> "LineMap":
        """``n`` rows on consecutive lines from ``first_line``."""
        return cls(np.zeros(min(n, 1), np.int64), np.full(min(n, 1), first_line, np.int64), n)

    def __len__(self) -> int:
        return self.n

    def all(self) -> np.ndarray:
        """The line of every row."""
        sizes = np.diff(np.append(self.rows, self.n))
        return np.repeat(self.lines - self.rows, sizes) + np.arange(self.n, dtype=np.int64)

    def slice(self, lo: int, hi: int) -> "LineMap":
        """The map of rows ``lo:hi``."""
        if hi <= lo:
            return LineMap.consecutive(0, 0)
        i = int(np.searchsorted(self.rows, lo, side="right")) - 1
        j = int(np.searchsorted(self.rows, hi, side="left"))
        rows = self.rows[i:j] - lo
        lines = self.lines[i:j] - np.minimum(rows, 0)
        return LineMap(np.maximum(rows, 0), lines, hi - lo)

    @classmethod
    def concat(cls, maps) -> "LineMap":
        """The maps of consecutive parts as one."""
        maps = list(maps)
        starts = offsets_from_sizes(np.array([m.n for m in maps], dtype=np.int64))
        if not maps:
            return cls.consecutive(0, 0)
        return cls(np.concatenate([m.rows + s for m, s in zip(maps, starts[:-1])]),
                   np.concatenate([m.lines for m in maps]), int(starts[-1]))

    def line(self, row: int) -> int:
        i = int(np.searchsorted(self.rows, row, side="right")) - 1
        return int(self.lines[i] + row - self.rows[i])


def fields(block: bytes, first_line: int, layout: Layout, name: str):
    """(buf, starts, ends, lines): the block's bytes, the byte offsets of the first
    ``layout.width`` fields of every line with content, shaped (rows, width), and the
    rows' lines (a :class:`LineMap`). Blank lines and comment lines have no row; a line
    with too few fields (or, in qrels, too many) is an error at its line."""
    buf = np.frombuffer(block, dtype=np.uint8)
    fast = _plain_fields(block, buf, layout.width) if len(block) <= VECTOR_BLOCK else None
    if fast is not None:
        return buf, *fast, LineMap.consecutive(first_line, len(fast[0]))
    if len(block) <= VECTOR_BLOCK:
        starts, ends, lines = _split_fields(buf, 0, len(buf), first_line, layout, name)
    else:
        starts, ends, lines = _stretches(block, buf, first_line, layout, name)
    return buf, starts, ends, LineMap.of(lines)


def _plain_fields(block: bytes, buf: np.ndarray, width: int):
    """The common layout, fast: single spaces between ``width`` fields, every line ending
    in a newline, no comment line. Any other byte up to 32 (a tab, CR, a second space, a blank
    line) shifts the separators out of their (line, field) places or leaves an empty
    field, which the checks of their kinds and gaps see. Returns (starts, ends) or None."""
    if not block.endswith(b"\n") or block.startswith((b" ", b"\n")):
        return None
    sep = buf <= 32
    seps = np.flatnonzero(sep)
    if len(seps) % width:
        return None
    kinds = buf[seps]
    newlines = np.count_nonzero(kinds == 10)
    # every width-th separator a newline, all the others spaces, no two separators side by side
    if newlines * width != len(seps) or np.count_nonzero(kinds == 32) != len(seps) - newlines \
            or not (kinds[width - 1::width] == 10).all() or (sep[1:] & sep[:-1]).any():
        return None
    starts = np.empty_like(seps)
    starts[0] = 0
    np.add(seps[:-1], 1, out=starts[1:])  # a field starts after the separator before it
    starts, ends = starts.reshape(-1, width), seps.reshape(-1, width)
    if b"#" in block and (buf[starts[:, 0]] == _HASH).any():  # a comment line
        return None
    return starts, ends


def _split_fields(buf: np.ndarray, lo: int, hi: int, first_line: int, layout: Layout, name: str):
    """(starts, ends, lines) of the lines in ``buf[lo:hi]`` (whole lines, ``first_line`` the
    first), with per-byte arrays."""
    part = buf[lo:hi]
    sep = _SPACE[part]
    start = ~sep
    start[1:] &= sep[:-1]
    end = ~sep
    end[:-1] &= sep[1:]
    starts = np.flatnonzero(start)
    ends = np.flatnonzero(end) + 1
    del sep, start, end
    newlines = np.flatnonzero(part == 10)
    line = np.searchsorted(newlines, starts)  # of each token, counted from 0 in the part
    n = len(starts)
    first = np.ones(n, dtype=bool)  # the first token of its line
    first[1:] = line[1:] != line[:-1]
    comment = first & (part[starts] == _HASH)
    if not layout.indented_comments and comment.any():
        line_start = np.concatenate(([0], newlines + 1))
        comment &= starts == line_start[line]
    if comment.any():
        keep = ~np.isin(line, line[comment])
        starts, ends, line, first = starts[keep], ends[keep], line[keep], first[keep]
        n = len(starts)
    heads = np.flatnonzero(first)
    counts = np.diff(np.append(heads, n))
    bad = counts < layout.width if layout.more_fields else counts != layout.width
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise DataError(_count_message(layout, int(counts[i])), name, first_line + int(line[heads[i]]))
    index = np.arange(n) - np.repeat(heads, counts)  # of each token within its line
    if layout.more_fields and (counts > layout.width).any():
        keep = index < layout.width
        starts, ends = starts[keep], ends[keep]
    rows = (first_line + line[heads]).astype(np.int64)
    return (starts + lo).reshape(-1, layout.width), (ends + lo).reshape(-1, layout.width), rows


def _stretches(block: bytes, buf: np.ndarray, first_line: int, layout: Layout, name: str):
    """:func:`_split_fields` over a block holding a line longer than LONG_LINE: stretches of
    the other lines with per-byte arrays, each long line on its own."""
    newlines = np.flatnonzero(buf == 10)
    line_start = np.concatenate(([0], newlines + 1))
    line_end = np.append(newlines, len(buf))
    if line_start[-1] == len(buf):  # the block ends with a newline: no line after it
        line_start, line_end = line_start[:-1], line_end[:-1]
    long = np.flatnonzero(line_end - line_start > LONG_LINE)
    pieces, line = [], 0
    for i in [*long.tolist(), len(line_start)]:
        if i > line:
            pieces.append(_split_fields(buf, int(line_start[line]), int(line_end[i - 1]) + 1, first_line + line,
                                        layout, name))
        if i < len(line_start):
            pieces.append(_long_line_fields(block, int(line_start[i]), int(line_end[i]), first_line + i, layout,
                                            name))
        line = i + 1
    return tuple(np.concatenate([p[k] for p in pieces]) for k in range(3))


def _long_line_fields(block: bytes, lo: int, hi: int, line: int, layout: Layout, name: str):
    """(starts, ends, lines) of one long line, ``block[lo:hi]``, by a regular expression
    that stops after the fields it needs (memory: the line itself)."""
    width = layout.width
    tokens = list(islice(_TOKEN.finditer(block, lo, hi), width + 1))
    empty = (np.zeros((0, width), np.int64), np.zeros((0, width), np.int64), np.zeros(0, np.int64))
    if not tokens:
        return empty
    if block[tokens[0].start()] == _HASH and (layout.indented_comments or tokens[0].start() == lo):
        return empty
    if len(tokens) < width or (len(tokens) > width and not layout.more_fields):
        raise DataError(_count_message(layout, len(tokens) if len(tokens) <= width else f"more than {width}"),
                        name, line)
    tokens = tokens[:width]
    return (np.array([[t.start() for t in tokens]], dtype=np.int64),
            np.array([[t.end() for t in tokens]], dtype=np.int64), np.array([line], dtype=np.int64))


def _count_message(layout: Layout, found) -> str:
    more = "; more are ignored" if layout.more_fields else ""
    return f"expected {layout.width} fields ({' '.join(layout.fields)}{more}), found {found}"


def check_ids(block: bytes, buf: np.ndarray, starts, ends, lines, layout: Layout, name: str) -> None:
    """The id fields are UTF-8 without NUL bytes; else an error at the first bad one's line.
    Free for ASCII blocks; a block with other bytes is decoded whole first, and field by
    field only where that fails (bytes that are not UTF-8 in an ignored field or a comment
    are left alone, as trec_eval leaves them). A block holding a long line is checked field
    by field, in pieces (memory: a piece, not the line)."""
    ascii_ = block.isascii()
    if ascii_ and b"\0" not in block:
        return
    big = len(block) > VECTOR_BLOCK
    if not big:
        utf8 = ascii_ or _utf8_error(block, 0, len(block)) is None
        suspects = np.flatnonzero(buf == 0) if utf8 else np.flatnonzero((buf == 0) | (buf >= 0x80))
        if not len(suspects):
            return
    for col in layout.ids:
        s, e = starts[:, col], ends[:, col]
        rows = range(len(s)) if big else \
            np.flatnonzero(np.searchsorted(suspects, s) < np.searchsorted(suspects, e)).tolist()
        for row in rows:  # the rows whose field holds a suspect byte
            lo, hi = int(s[row]), int(e[row])
            what = f"{layout.fields[col]} '{shown(block[lo:min(hi, lo + 4 * SHOWN + 1)])}'"
            if block.find(b"\0", lo, hi) >= 0:
                raise DataError(f"a NUL byte in the {what}", name, lines.line(row))
            bad = None if ascii_ else _utf8_error(block, lo, hi)
            if bad is not None:
                raise DataError(f"the {what} is not UTF-8 (byte {bad:#04x}); convert the file first "
                                "(e.g. iconv -f latin1 -t utf-8)", name, lines.line(row))


def _utf8_error(block: bytes, lo: int, hi: int) -> int | None:
    """The first byte of ``block[lo:hi]`` that breaks UTF-8, or None; decoded in pieces of
    UTF8_PIECE bytes."""
    view = memoryview(block)[lo:hi]
    decoder = codecs.getincrementaldecoder("utf-8")()
    for at in range(0, len(view), UTF8_PIECE):
        try:
            decoder.decode(view[at:at + UTF8_PIECE], final=at + UTF8_PIECE >= len(view))
        except UnicodeDecodeError as exc:
            return exc.object[exc.start]
    return None


def shown(value: bytes) -> str:
    """An id or field for a message: bytes that are not UTF-8 and control characters
    escaped (``\\xe9``), cut to SHOWN characters."""
    text = value[:4 * SHOWN].decode("utf-8", "backslashreplace")
    text = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
    return text if len(text) <= SHOWN and len(value) <= 4 * SHOWN else text[:SHOWN] + "…"


#: ``rankeval trec_eval`` reads scores and grades as trec_eval does (C's atof and atol); every
#: other command refuses what they would guess (:func:`c_readings`)
_C_READINGS = contextvars.ContextVar("rankeval_trec_c_readings", default=False)


@contextlib.contextmanager
def c_readings():
    """Within it, a score that is not a finite number is read as C's ``atof`` reads it (``inf``,
    ``nan``, ``0x10``, ``5.5abc`` as 5.5, ``abc`` as 0, ``1e400`` as infinity) and a grade that is
    not an integer as ``atol`` reads it (``1.9`` as 1, ``x`` as 0): trec_eval's readings."""
    token = _C_READINGS.set(True)
    try:
        yield
    finally:
        _C_READINGS.reset(token)


def _c_read(buf, start, end, read) -> np.ndarray:

    convert = c_atof if read == "atof" else c_atol
    texts = (bytes(buf[int(a):int(b)]).decode("latin-1") for a, b in zip(start.tolist(), end.tolist()))
    return np.array([convert(t) for t in texts], dtype=np.float64 if read == "atof" else np.int64)


def numbers(buf, start, end, lines, column: str, name: str) -> np.ndarray:
    if _C_READINGS.get():
        values, bad = parse_exact(buf, start, end) if (end - start <= MAX_NUMBER_BYTES).all() else (None, 0)
        return values if bad is None else _c_read(buf, start, end, "atof")
    long = np.flatnonzero(end - start > MAX_NUMBER_BYTES)
    if len(long):
        row = int(long[0])
        raise DataError(f"{column} '{_text(buf, start[row], end[row])}' is not a number we read (longer than "
                        f"{MAX_NUMBER_BYTES} characters)", name, lines.line(row))
    values, bad = parse_exact(buf, start, end)
    if bad is not None:
        raise DataError(f"{column} '{_text(buf, start[bad], end[bad])}' is not a finite number", name,
                        lines.line(bad))
    return values


def integers(buf, start, end, lines, column: str, name: str) -> np.ndarray:
    """Integer fields (an optional sign, then digits); anything else is an error at its line
    (within :func:`c_readings`, read as C's ``atol`` reads it)."""
    length = end - start
    width = int(length.max()) if len(length) else 0
    ok = _integer_rows(buf, start, length, width) if width <= 15 else None
    if ok is None or not ok.all():
        if _C_READINGS.get():
            return _c_read(buf, start, end, "atol")
        row = int(np.argmax(length)) if ok is None else int(np.flatnonzero(~ok)[0])
        raise DataError(f"{column} '{_text(buf, start[row], end[row])}' is not an integer", name, lines.line(row))
    values, _ = parse_fields(buf, start, end)
    return values.astype(np.int64)


def _integer_rows(buf, start, length, width) -> np.ndarray:
    """Per field: an optional sign, then one digit or more."""
    at = np.minimum(start[:, None] + np.arange(max(width, 1))[None, :], len(buf) - 1)
    chars = buf[at]
    inside = np.arange(max(width, 1))[None, :] < length[:, None]
    sign = (chars[:, 0] == 45) | (chars[:, 0] == 43)
    digit = (chars >= 48) & (chars <= 57)
    ok = np.where(inside, digit, True)
    ok[:, 0] |= sign
    return ok.all(axis=1) & (length > sign)


def _text(buf, start, end) -> str:
    return shown(bytes(buf[int(start):min(int(end), int(start) + 4 * SHOWN + 1)]))
