"""TREC run and qrels files, read as trec_eval reads them, and their join.

A *run* has one line per retrieved document, ``qid Q0 docno rank score tag``, fields
separated by any run of spaces or tabs (a CR before the newline is allowed, gzip is
undone). As in trec_eval, the rank field is ignored: the order of a query's
documents is score descending, ties broken by docno descending in byte order
(trec_eval's ``form_res_rels.c``, ``comp_sim_docno``). A *qrels* file has one line per
judgment, ``qid iter docno rel``, rel an integer.

The join (:func:`join`) follows ``form_res_rels.c`` and ``trec_eval.c``:

- a retrieved document absent from the qrels is unjudged (relevance value −1) and
  counts as non-relevant; a judged one carries its grade; a negative grade means
  "in the pool but not judged" (value −2): non-relevant, and not a judged
  non-relevant document for bpref;
- judged documents the run did not retrieve have no rank, but count in the number
  of relevant documents R and in the ideal ranking of nDCG;
- only queries with both qrels and a ranking are evaluated, unless ``all_queries``
  (trec_eval ``-c``) adds the qrels' queries missing from the run with an empty ranking;
- ``depth`` (trec_eval ``-M``) keeps the first N documents of each ordered ranking.

A run is read in blocks of whole lines; each block is split, its ids gathered and its
scores parsed (:func:`_parsed_blocks`), from a regular file in a second thread, a block or
two ahead of the join (:func:`rankeval_cli.prefetch.ahead`), which works on the blocks in
file order.

Docnos never become Python objects per row: they are fixed-width byte arrays
(``numpy`` ``S`` dtype) gathered straight from the file's bytes; their big-endian
64-bit words compare in byte order, which gives trec_eval's tie-break, and a 64-bit
hash of (query, docno) finds the qrels grade of every row with one binary search.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..batch import Batch, offsets_from_sizes, sort_within_groups
from ..errors import DataError
from ..textio import open_binary, read_blocks, source_name
from .numparse import parse_exact, parse_fields
from .tsv import _fixed

#: Bytes per block read at once (whole lines); parsing temporaries scale with it.
RUN_BLOCK_BYTES = 1 << 21
#: relevance value of a retrieved document that the qrels do not hold (trec_eval RELVALUE_NONPOOL)
NONPOOL = -1
#: relevance value of a retrieved document whose qrels grade is negative (trec_eval RELVALUE_UNJUDGED)
UNJUDGED = -2

RUN_FIELDS = ("qid", "Q0", "docno", "rank", "score", "tag")
QRELS_FIELDS = ("qid", "iter", "docno", "rel")


@dataclass
class Run:
    """One run file in columnar form: per row a query code, a docno and a score.

    ``qids[code]`` is the query id (``str``) of code ``code`` (codes in order of first
    appearance); ``docno`` is a fixed-width bytes array (``S`` dtype, zero-padded).
    ``line_of(row)`` gives a row's line in the file.
    """

    source: str
    tag: str
    qids: list
    code: np.ndarray  # int32 per row
    docno: np.ndarray  # S<w> per row
    score: np.ndarray  # float64 per row
    blank_before: np.ndarray  # rows that follow each skipped blank line (sorted)

    @property
    def n_rows(self) -> int:
        return len(self.code)

    first_row: int = 0  # rows of the file before this part (a part of a streamed run)
    last_tag: str = ""  # the tag of the run's last line read so far (trec_eval's runid: the file's last)

    def line_of(self, row: int) -> int:
        return self.first_row + int(row) + 1 + int(np.searchsorted(self.blank_before, row, side="right"))


@dataclass
class Qrels:
    """A qrels file: judgments sorted by (qid, docno), grades as integers."""

    source: str
    qids: list  # distinct query ids (str), sorted by their bytes
    offsets: np.ndarray  # int64, len(qids) + 1: the judgments of qids[i]
    docno: np.ndarray  # S<w>, sorted within each query
    grade: np.ndarray  # int64
    line: np.ndarray  # int64 line of each judgment


# ---- tokenizing -------------------------------------------------------------------------

def _fields(block: bytes, first_line: int, width: int, name: str, what: str):
    """(buf, starts, ends, lines, n_lines): the block's bytes, the byte offsets of the
    ``width`` fields of every non-blank line, shaped (lines, width), their line numbers, and
    the number of lines in the block, blank ones included; any run of spaces, tabs or a CR
    separates."""
    buf = np.frombuffer(block, dtype=np.uint8)
    fast = _plain_fields(block, buf, width)
    if fast is not None:
        return buf, *fast, first_line + np.arange(len(fast[0]), dtype=np.int64), len(fast[0])
    sep = (buf == 32) | (buf == 9) | (buf == 13) | (buf == 10)
    tok = ~sep
    start = tok.copy()
    start[1:] &= sep[:-1]
    end = tok.copy()
    end[:-1] &= sep[1:]
    starts = np.flatnonzero(start)
    ends = np.flatnonzero(end) + 1
    newlines = np.flatnonzero(buf == 10)
    n_lines = len(newlines) + (0 if block.endswith(b"\n") or not block else 1)
    line_index = np.searchsorted(newlines, starts)
    counts = np.bincount(line_index, minlength=n_lines)
    bad = (counts != 0) & (counts != width)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise DataError(f"expected {width} fields ({' '.join(what)}), found {counts[i]}", name, first_line + i)
    lines = first_line + np.flatnonzero(counts)
    return buf, starts.reshape(-1, width), ends.reshape(-1, width), lines, n_lines


def _plain_fields(block: bytes, buf: np.ndarray, width: int):
    """The common layout, fast: single spaces between fields, every line ending in a
    newline. Any other byte up to 32 (a tab, CR, a second space, a blank line) shifts the
    separators out of their (line, field) places or leaves an empty field, which the
    checks of their kinds and gaps see. Returns (starts, ends) or None."""
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
    return starts.reshape(-1, width), seps.reshape(-1, width)


#: zero bytes after a block, so that ids up to this long gather without a copy of the block
_PAD = 256


def _gather(buf: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Fields ``buf[start:end]`` as a zero-padded fixed-width bytes array (``S`` dtype, width a
    multiple of 8), gathered as the TSV reader gathers its ids (:func:`.tsv._fixed`). ``buf``
    may end with padding (see :func:`_padded`); it is added when too short."""
    length = end - start
    words = max(-(-int(length.max()) // 8), 1) if len(length) else 1
    need = int(start.max()) + 8 * words + 8 if len(start) else 8
    padded = buf if len(buf) >= need else np.concatenate((buf, np.zeros(need - len(buf), dtype=np.uint8)))
    return _fixed(padded, start, length)


def _numbers(buf, start, end, lines, column: str, name: str) -> np.ndarray:
    values, bad = parse_exact(buf, start, end)
    if bad is not None:
        raise DataError(f"{column} {_text(buf, start[bad], end[bad])!r} is not a finite number", name, int(lines[bad]))
    return values


def _integers(buf, start, end, lines, column: str, name: str) -> np.ndarray:
    """Integer fields (an optional sign, then digits); anything else is an error at its line."""
    length = end - start
    width = int(length.max()) if len(length) else 0
    if width > 15:
        row = int(np.argmax(length))
        raise DataError(f"{column} {_text(buf, start[row], end[row])!r} is not an integer", name, int(lines[row]))
    padded = np.concatenate((buf, np.zeros(width + 1, dtype=np.uint8)))
    chars = padded[start[:, None] + np.arange(max(width, 1))[None, :]]
    inside = np.arange(max(width, 1))[None, :] < length[:, None]
    sign = (chars[:, 0] == 45) | (chars[:, 0] == 43)
    digit = (chars >= 48) & (chars <= 57)
    ok = np.where(inside, digit, True)
    ok[:, 0] |= sign
    ok = ok.all(axis=1) & (length > sign)
    if not ok.all():
        row = int(np.flatnonzero(~ok)[0])
        raise DataError(f"{column} {_text(buf, start[row], end[row])!r} is not an integer", name, int(lines[row]))
    values, _ = parse_fields(buf, start, end)
    return values.astype(np.int64)


def _text(buf, start, end) -> str:
    return bytes(buf[int(start):int(end)]).decode("utf-8", "replace")


def _decode_ids(fixed: np.ndarray, name: str, lines) -> list:
    """``str`` of each fixed-width id (UTF-8)."""
    out = []
    for i, value in enumerate(fixed.tolist()):
        try:
            out.append(value.decode("utf-8"))
        except UnicodeDecodeError:
            raise DataError("invalid UTF-8 in a query id", name, int(lines[i])) from None
    return out


# ---- runs ----------------------------------------------------------------------------------

class _Codes:
    """Query ids -> codes in order of first appearance (shared by the blocks of one run)."""

    def __init__(self):
        self.codes: dict[bytes, int] = {}
        self.qids: list = []
        self.last_tag = ""  # the tag of the last line read

    def of(self, qid: np.ndarray, lines, name: str) -> np.ndarray:
        n = len(qid)
        words = qid.view(np.uint64).reshape(n, -1)  # compared as words, not as strings
        change = np.ones(n, dtype=bool)
        change[1:] = (words[1:] != words[:-1]).any(axis=1) if words.shape[1] > 1 else words[1:, 0] != words[:-1, 0]
        heads = np.flatnonzero(change)
        seg_codes = np.empty(len(heads), dtype=np.int32)
        for i, value in enumerate(qid[heads].tolist()):
            code = self.codes.get(value)
            if code is None:
                code = self.codes[value] = len(self.qids)
                self.qids.append(_decode_ids(np.array([value]), name, [lines[heads[i]]])[0])
            seg_codes[i] = code
        return np.repeat(seg_codes, np.diff(np.append(heads, n)))


def _parsed_blocks(source, block_bytes: int | None = None):
    """Yield ``(first_line, n_lines, parsed)`` per block of lines, ``parsed`` =
    ``(lines, tag, qid, docno, score, last_tag)`` or None for a block of blank lines. Independent of
    every other block, so it may run ahead of the join (:func:`rankeval_cli.prefetch.ahead`)."""
    name = source_name(source)
    with open_binary(source) as stream:
        for block, first_line in read_blocks(stream, name, block_bytes or RUN_BLOCK_BYTES):
            buf, starts, ends, lines, n_lines = _fields(block, first_line, 6, name, RUN_FIELDS)
            if len(lines) == 0:
                yield first_line, n_lines, None
                continue
            padded = np.concatenate((buf, np.zeros(_PAD, dtype=np.uint8)))
            tag = _text(buf, starts[0, 5], ends[0, 5])
            qid = _gather(padded, starts[:, 0], ends[:, 0])
            docno = _gather(padded, starts[:, 2], ends[:, 2])
            score = _numbers(buf, starts[:, 4], ends[:, 4], lines, "score", name)
            last_tag = _text(buf, starts[-1, 5], ends[-1, 5])
            yield first_line, n_lines, (lines, tag, qid, docno, score, last_tag)


def _run_blocks(source, block_bytes: int | None = None):
    """Yield ``(tag, codes, code, docno, score, first_row, blank_before)`` per block of lines
    (``codes`` is the shared :class:`_Codes`)."""
    from ..prefetch import ahead_of_files

    name = source_name(source)
    codes = _Codes()
    tag, rows = None, 0
    for first_line, n_lines, parsed in ahead_of_files([source], lambda: _parsed_blocks(source, block_bytes)):
        if parsed is None:
            yield tag, codes, None, None, None, rows, [rows] * n_lines
            continue
        lines, first_tag, qid, docno, score, codes.last_tag = parsed
        n = len(lines)
        blank = []
        if n != n_lines:  # blank lines, inside the block or at its end: the rows they precede
            gaps = np.diff(np.concatenate(([first_line - 1], lines, [first_line + n_lines]))) - 1
            blank = np.repeat(rows + np.arange(n + 1), gaps).tolist()
        tag = tag if tag is not None else first_tag
        yield tag, codes, codes.of(qid, lines, name), docno, score, rows, blank
        rows += n


def read_run(source, block_bytes: int | None = None) -> Run:
    """Read a whole run file into a :class:`Run` (about 12 bytes per row plus the docno width)."""
    name = source_name(source)
    parts_code, parts_docno, parts_score, blank_before = [], [], [], []
    tag, codes = None, _Codes()
    for tag, codes, code, docno, score, _, blank in _run_blocks(source, block_bytes):
        blank_before.extend(blank)
        if code is not None:
            parts_code.append(code)
            parts_docno.append(docno)
            parts_score.append(score)
    width = max((p.dtype.itemsize for p in parts_docno), default=8)
    return Run(
        source=name, tag=tag or name, qids=codes.qids,
        code=np.concatenate(parts_code) if parts_code else np.zeros(0, np.int32),
        docno=np.concatenate([p.astype(f"S{width}") for p in parts_docno]) if parts_docno else
        np.zeros(0, "S8"),
        score=np.concatenate(parts_score) if parts_score else np.zeros(0),
        blank_before=np.asarray(blank_before, dtype=np.int64), last_tag=codes.last_tag,
    )


class _Scattered(Exception):
    """A query's lines are not contiguous: the run must be read whole."""


def stream_join(source, qrels: "Qrels", *, depth: int | None = None, all_queries: bool = False,
                block_bytes: int | None = None):
    """Yield ``(joined, run_part)`` for consecutive sets of whole queries of a run file,
    joined with ``qrels``; memory holds one block of lines, not the run. A run whose
    queries are not contiguous (a query's lines after another query's) is read whole
    instead (from a file; from stdin it is an error): ``(None, None)`` then tells the
    consumer to discard the parts before. With ``all_queries`` the qrels' queries the run
    lacks come last, with empty rankings."""
    name = source_name(source)
    q_index = {q: i for i, q in enumerate(qrels.qids)}
    seen_q = np.zeros(len(qrels.qids), dtype=bool)
    try:
        for joined, part in _stream_join(source, qrels, q_index, seen_q, depth, block_bytes):
            yield joined, part
    except _Scattered:
        if source in (None, "-") or not isinstance(source, str):
            raise DataError("a query's lines come after another query's; runs on stdin must keep each "
                            "query's lines together (give the file instead)", name) from None
        yield None, None  # discard what came before: the whole run follows
        run = read_run(source, block_bytes)
        joined = join(run, qrels, depth=depth)
        seen_q[:] = False
        seen_q[[q_index[q] for q in joined.qids]] = True
        yield joined, run
    if all_queries and not seen_q.all():
        missing = np.flatnonzero(~seen_q)
        empty = Run(name, "", [], np.zeros(0, np.int32), np.zeros(0, "S8"), np.zeros(0), np.zeros(0, np.int64))
        yield join(empty, qrels, queries=missing.tolist()), empty


def _stream_join(source, qrels, q_index, seen_q, depth, block_bytes):
    name = source_name(source)
    run_to_q = np.zeros(0, dtype=np.int64)
    closed = 0  # codes below this belong to finished queries
    carry = None
    blanks: list = []
    tag = None
    for tag, codes, code, docno, score, first_row, blank in _run_blocks(source, block_bytes):
        blanks.extend(blank)
        if code is None:
            continue
        if carry is not None:
            code = np.concatenate((carry[0], code))
            width = max(carry[1].dtype.itemsize, docno.dtype.itemsize)
            docno = np.concatenate((carry[1].astype(f"S{width}"), docno.astype(f"S{width}")))
            score = np.concatenate((carry[2], score))
            first_row = carry[3]
        last = int(np.flatnonzero(np.r_[True, code[1:] != code[:-1]])[-1])
        carry = (code[last:], docno[last:], score[last:], first_row + last)
        if last:
            closed = yield from _join_part(name, tag, codes, code[:last], docno[:last], score[:last], first_row,
                                           blanks, qrels, q_index, seen_q, depth, closed, run_to_q)
            run_to_q = _extend_map(run_to_q, codes, q_index)
    if carry is not None:
        yield from _join_part(name, tag, codes, *carry[:3], carry[3], blanks, qrels, q_index, seen_q, depth,
                              closed, run_to_q)


def _extend_map(run_to_q, codes, q_index):
    if len(run_to_q) < len(codes.qids):
        extra = np.array([q_index.get(q, -1) for q in codes.qids[len(run_to_q):]], dtype=np.int64)
        run_to_q = np.concatenate((run_to_q, extra))
    return run_to_q


def _join_part(name, tag, codes, code, docno, score, first_row, blanks, qrels, q_index, seen_q, depth, closed,
               run_to_q):
    """Join the whole queries of one part; returns the new count of closed codes."""
    if code[0] < closed or (len(code) > 1 and (code[1:] < code[:-1]).any()):
        raise _Scattered()
    run_to_q = _extend_map(run_to_q, codes, q_index)
    part = Run(name, tag or name, codes.qids, code, docno, score,
               np.asarray(blanks, dtype=np.int64) - first_row, first_row=first_row, last_tag=codes.last_tag)
    joined = join(part, qrels, depth=depth, run_to_q=run_to_q)  # errors name lines of the file
    for q in joined.qids:
        seen_q[q_index[q]] = True
    yield joined, part
    return int(code[-1]) + 1


# ---- qrels ---------------------------------------------------------------------------------

def read_qrels(source) -> Qrels:
    """Read a qrels file; a duplicate (qid, docno), a malformed line or a non-integer
    grade is a :class:`DataError` at its line."""
    name = source_name(source)
    q_parts, d_parts, g_parts, l_parts = [], [], [], []
    with open_binary(source) as stream:
        for block, first_line in read_blocks(stream, name):
            buf, starts, ends, lines, _ = _fields(block, first_line, 4, name, QRELS_FIELDS)
            if len(lines) == 0:
                continue
            q_parts.append(_gather(buf, starts[:, 0], ends[:, 0]))
            d_parts.append(_gather(buf, starts[:, 2], ends[:, 2]))
            g_parts.append(_integers(buf, starts[:, 3], ends[:, 3], lines, "relevance grade", name))
            l_parts.append(lines)
    if not q_parts:
        return Qrels(name, [], np.zeros(1, np.int64), np.zeros(0, "S8"), np.zeros(0, np.int64),
                     np.zeros(0, np.int64))
    qw = max(p.dtype.itemsize for p in q_parts)
    dw = max(p.dtype.itemsize for p in d_parts)
    qid = np.concatenate([p.astype(f"S{qw}") for p in q_parts])
    docno = np.concatenate([p.astype(f"S{dw}") for p in d_parts])
    grade, line = np.concatenate(g_parts), np.concatenate(l_parts)
    order = np.lexsort((line, *_word_keys(docno), *_word_keys(qid)))  # by qid, docno (bytes), line
    qid, docno, grade, line = qid[order], docno[order], grade[order], line[order]
    same = (qid[1:] == qid[:-1]) & (docno[1:] == docno[:-1])
    if same.any():
        i = int(np.flatnonzero(same)[0])
        raise DataError(f"docno {docno[i + 1].decode('utf-8', 'replace')} judged twice for query "
                        f"{qid[i + 1].decode('utf-8', 'replace')} (first at line {line[i]})", name,
                        int(max(line[i], line[i + 1])))
    heads = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
    offsets = np.append(heads, len(qid)).astype(np.int64)
    return Qrels(name, _decode_ids(qid[heads], name, line[heads]), offsets, docno, grade, line)


# ---- the join ----------------------------------------------------------------------------

@dataclass
class Joined:
    """A run joined with qrels: per evaluated query its ordered ranking and its judgments.

    ``rel`` holds, per retrieved row in trec_eval order (depth applied), the grade of a
    judged document, :data:`NONPOOL` (−1) or :data:`UNJUDGED` (−2); ``row`` the run row
    (or −1). ``judged_grade`` holds each query's non-negative qrels grades, highest first
    (the ideal ranking; R and bpref's judged non-relevant count come from it);
    ``judged_row`` the qrels row of each, ``judged_retrieved`` whether the run retrieved it.
    ``tie_block`` numbers the blocks of equal scores (for the other tie policies).
    """

    qids: list
    offsets: np.ndarray
    rel: np.ndarray
    row: np.ndarray
    tie_block: np.ndarray
    judged_offsets: np.ndarray
    judged_grade: np.ndarray
    judged_row: np.ndarray
    judged_retrieved: np.ndarray
    skipped_queries: int = 0  # run queries without qrels
    tag: str = ""

    @property
    def n_queries(self) -> int:
        return len(self.qids)

    @property
    def sizes(self) -> np.ndarray:
        return np.diff(self.offsets)


def docno_words(docno: np.ndarray) -> np.ndarray:
    """(n × w/8) big-endian 64-bit words of fixed-width docnos: comparing the rows word by
    word is comparing the bytes (shorter ids are zero-padded, so a prefix sorts first, as strcmp)."""
    width = docno.dtype.itemsize
    if width % 8:
        docno = docno.astype(f"S{-(-width // 8) * 8}")
        width = docno.dtype.itemsize
    return np.ascontiguousarray(docno).view(">u8").reshape(len(docno), width // 8).astype(np.uint64)


def _word_keys(fixed: np.ndarray) -> list:
    """Sort keys of fixed-width ids for ``np.lexsort`` (last key primary): their 64-bit words,
    the last word first, so that the keys order the ids by their bytes."""
    words = docno_words(fixed)
    return [words[:, j] for j in range(words.shape[1] - 1, -1, -1)]


def _hash(code: np.ndarray, words: np.ndarray) -> np.ndarray:
    """A 64-bit mix of (query code, docno words) (splitmix64 steps; wraps by design)."""
    with np.errstate(over="ignore"):
        h = code.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        for j in range(words.shape[1]):
            h ^= words[:, j]
            h ^= h >> np.uint64(31)
            h *= np.uint64(0xBF58476D1CE4E5B9)
            h ^= h >> np.uint64(27)
            h *= np.uint64(0x94D049BB133111EB)
        h ^= h >> np.uint64(31)
    return h


def trec_order(run: Run, offsets: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``rows`` (grouped by query, ``offsets``) reordered within each query by score
    descending, then docno descending; and the tie-block number of each ordered row."""
    score = run.score[rows]
    n = len(rows)
    same_group = np.ones(n, dtype=bool)
    if n:
        same_group[offsets[:-1][np.diff(offsets) > 0]] = False
    if n > 1 and not ((score[1:] <= score[:-1]) | ~same_group[1:]).all():
        order = sort_within_groups(offsets, -score)
        rows, score = rows[order], score[order]
    tie = np.zeros(n, dtype=bool)  # row equal in score to the row before, same query
    if n > 1:
        tie[1:] = (score[1:] == score[:-1]) & same_group[1:]
    block = np.cumsum(~tie) - 1
    tied = tie.copy()
    tied[:-1] |= tie[1:]
    if tied.any():
        where = np.flatnonzero(tied)
        words = docno_words(run.docno[rows[where]])
        keys = [~words[:, j] for j in range(words.shape[1] - 1, -1, -1)]
        local = np.lexsort((*keys, block[where]))
        rows = rows.copy()
        rows[where] = rows[where][local]
    return rows, block


def join(run: Run, qrels: Qrels, *, depth: int | None = None, all_queries: bool = False,
         run_to_q: np.ndarray | None = None, queries: list | None = None) -> Joined:
    """Join a run with qrels by trec_eval's rules (module docstring). ``run_to_q`` (the
    qrels index of every run query code, −1 without qrels) may be given when known;
    ``queries`` (qrels indexes) replaces the evaluated queries."""
    if run_to_q is None:
        q_index = {q: i for i, q in enumerate(qrels.qids)}
        run_to_q = np.array([q_index.get(q, -1) for q in run.qids], dtype=np.int64)
    q_of_code = run_to_q[run.code] if run.n_rows else np.zeros(0, np.int64)
    present = _distinct_sorted(run.code) if run.n_rows else np.zeros(0, np.int64)
    skipped = int((run_to_q[present] < 0).sum())
    q_list = list(range(len(qrels.qids))) if all_queries else \
        np.unique(run_to_q[present][run_to_q[present] >= 0]).tolist()
    if queries is not None:
        q_list = list(queries)
    # rows of every evaluated query, grouped in qrels (byte) order of the qids
    q_of_code = run_to_q[run.code] if run.n_rows else np.zeros(0, np.int64)
    keep = q_of_code >= 0
    slot = np.full(len(qrels.qids), -1, dtype=np.int64)
    slot[q_list] = np.arange(len(q_list))
    row_slot = np.where(keep, slot[np.maximum(q_of_code, 0)], -1)
    rows = np.flatnonzero(keep)
    key = row_slot[rows]
    if len(key) > 1 and not (key[1:] >= key[:-1]).all():
        rows = rows[np.argsort(key, kind="stable")]
        key = row_slot[rows]
    sizes = np.bincount(key, minlength=len(q_list)) if len(key) else np.zeros(len(q_list), np.int64)
    offsets = offsets_from_sizes(sizes)
    _check_duplicates(run, rows, key)
    rows, block = trec_order(run, offsets, rows)
    if depth is not None:
        pos = np.arange(len(rows)) - offsets[:-1][np.repeat(np.arange(len(q_list)), sizes)]
        cut = pos < depth
        rows, block = rows[cut], block[cut]
        sizes = np.minimum(sizes, depth)
        offsets = offsets_from_sizes(sizes)
    # grades of the retrieved rows: hash of (query, docno), one binary search
    width = max(run.docno.dtype.itemsize, qrels.docno.dtype.itemsize)
    width = -(-width // 8) * 8
    q_rows = np.concatenate([np.arange(qrels.offsets[q], qrels.offsets[q + 1]) for q in q_list]) \
        if q_list else np.zeros(0, np.int64)
    q_slot = np.repeat(np.arange(len(q_list)), np.diff(qrels.offsets)[q_list]) if q_list else \
        np.zeros(0, np.int64)
    q_words = docno_words(qrels.docno[q_rows].astype(f"S{width}"))
    q_hash = _hash(q_slot, q_words)
    r_slot = np.repeat(np.arange(len(q_list)), sizes)
    r_words = docno_words(run.docno[rows].astype(f"S{width}"))
    r_hash = _hash(r_slot, r_words)
    if len(q_hash):
        cand = HashIndex(q_hash).find(r_hash)
        found = cand >= 0
        cand = np.maximum(cand, 0)
        found &= (q_slot[cand] == r_slot) & (q_words[cand] == r_words).all(axis=1)
        if len(np.unique(q_hash)) < len(q_hash):  # a 64-bit collision inside the qrels: the exact way
            found, cand = _exact_lookup(q_slot, q_words, r_slot, r_words)
    else:
        found, cand = np.zeros(len(rows), bool), np.zeros(len(rows), np.int64)
    grade = qrels.grade[q_rows]
    rel = np.full(len(rows), NONPOOL, dtype=np.int64)
    rel[found] = np.where(grade[cand[found]] >= 0, grade[cand[found]], UNJUDGED)
    retrieved = np.zeros(len(q_rows), dtype=bool)
    retrieved[cand[found]] = True
    # judged documents per query, grade descending (negative grades are not judgments)
    judged = grade >= 0
    j_rows = np.flatnonzero(judged)
    j_order = np.lexsort((-grade[j_rows], q_slot[j_rows]))
    j_rows = j_rows[j_order]
    j_sizes = np.bincount(q_slot[j_rows], minlength=len(q_list)) if len(j_rows) else np.zeros(len(q_list), np.int64)
    return Joined(
        qids=[qrels.qids[q] for q in q_list], offsets=offsets, rel=rel, row=rows, tie_block=block,
        judged_offsets=offsets_from_sizes(j_sizes), judged_grade=grade[j_rows], judged_row=q_rows[j_rows],
        judged_retrieved=retrieved[j_rows], skipped_queries=skipped, tag=run.tag)


def _distinct_sorted(code: np.ndarray) -> np.ndarray:
    """Distinct query codes: one per run of equal codes when they are grouped, else np.unique."""
    heads = code[np.r_[True, code[1:] != code[:-1]]]
    return heads if len(heads) < 2 or (heads[1:] > heads[:-1]).all() else np.unique(code)


class HashIndex:
    """An open-addressing table (linear probing, load ≤ 1/8) of 64-bit keys, built and
    probed with whole-array steps: ``find`` gives each key's position in the input, or −1.
    A slot is filled only once and never emptied, so a key sits after an unbroken run of
    filled slots from its home slot, and a probe may stop at the first empty one."""

    def __init__(self, keys: np.ndarray):
        size = 1 << max(4, int(len(keys) * 8 - 1).bit_length())
        self.mask = np.uint64(size - 1)
        self.keys = np.zeros(size, dtype=np.uint64)
        self.index = np.full(size, -1, dtype=np.int64)
        pending = np.arange(len(keys), dtype=np.int64)
        slot = keys & self.mask
        while len(pending):
            at = slot[pending]
            free = self.index[at] < 0
            first = np.zeros(len(pending), dtype=bool)
            if free.any():
                _, winners = np.unique(at[free], return_index=True)
                first[np.flatnonzero(free)[winners]] = True
            self.index[at[first]] = pending[first]
            self.keys[at[first]] = keys[pending[first]]
            pending = pending[~first]
            slot[pending] = (slot[pending] + np.uint64(1)) & self.mask
        self.filled = self.index >= 0

    def find(self, keys: np.ndarray) -> np.ndarray:
        out = np.full(len(keys), -1, dtype=np.int64)
        slot = keys & self.mask
        active = np.flatnonzero(self.filled[slot])  # a key whose home slot is empty is absent
        slot = slot[active]
        while len(active):
            index = self.index[slot]
            hit = (index >= 0) & (self.keys[slot] == keys[active])
            out[active[hit]] = index[hit]
            more = (index >= 0) & ~hit
            active, slot = active[more], (slot[more] + np.uint64(1)) & self.mask
        return out


def _exact_lookup(q_slot, q_words, r_slot, r_words):
    """(found, qrels row) by a lexicographic sort of the keys themselves (slow, exact)."""
    keys_q = [q_words[:, j] for j in range(q_words.shape[1] - 1, -1, -1)] + [q_slot]
    order = np.lexsort(keys_q)
    index = {(int(q_slot[i]), q_words[i].tobytes()): int(i) for i in order.tolist()}
    cand = np.array([index.get((int(s), w.tobytes()), -1) for s, w in zip(r_slot.tolist(), r_words)],
                    dtype=np.int64)
    return cand >= 0, np.maximum(cand, 0)


def _check_duplicates(run: Run, rows: np.ndarray, key: np.ndarray) -> None:
    """A docno twice in one query's ranking is an error at its second line."""
    if len(rows) < 2:
        return
    words = docno_words(run.docno[rows])
    h = _hash(key, words)
    # Rows alone in their slot of a table 4x their number cannot repeat; each round keeps
    # those that share a slot (about 1/5), the next round uses the next bits of the hash.
    maybe, shift = np.arange(len(h)), 64
    while len(maybe) > 64:
        bits = max(4, int(len(maybe) * 4 - 1).bit_length())
        if bits > shift:
            break
        shift -= bits
        slot = ((h[maybe] >> np.uint64(shift)) & np.uint64((1 << bits) - 1)).astype(np.intp)
        shared = np.bincount(slot, minlength=1 << bits)[slot] > 1
        if shared.all():
            break
        maybe = maybe[shared]
    if len(maybe) < 2:
        return
    hm = h[maybe]
    order = np.argsort(hm, kind="stable")
    hs = hm[order]
    dup = np.flatnonzero(hs[1:] == hs[:-1])
    if len(dup) == 0:
        return
    a, b = rows[maybe[order[dup]]], rows[maybe[order[dup + 1]]]
    real = (run.code[a] == run.code[b]) & (run.docno[a] == run.docno[b])
    if real.any():
        i = int(np.flatnonzero(real)[0])
        first, second = sorted((int(a[i]), int(b[i])))
        raise DataError(f"docno {run.docno[second].decode('utf-8', 'replace')} retrieved twice for query "
                        f"{run.qids[run.code[second]]} (first at line {run.line_of(first)})", run.source,
                        run.line_of(second))


# ---- the canonical stream ------------------------------------------------------------------

def joined_batches(joined: Joined, run: Run, qrels: Qrels, run_column: str | None = None,
                   group_prefix: str = "") -> Batch:
    """The canonical rows of a joined run, one group per evaluated query:

    - a retrieved row: ``item`` = docno, ``pred`` = −score (lower = better, as every
      converted score; rows in trec_eval's order), ``gold`` = its grade, empty when the
      qrels do not hold it (unjudged), a negative grade as given;
    - a judged document the run did not retrieve: ``pred`` empty, ``gold`` = its grade.

    The ``run`` column names the run; ``group_prefix`` (``RUN:`` when several runs share
    one stream) keeps group ids unique.
    """
    n_q = joined.n_queries
    r_sizes = joined.sizes
    unret = ~joined.judged_retrieved
    j_slot = np.repeat(np.arange(n_q), np.diff(joined.judged_offsets))
    u_rows = joined.judged_row[unret]
    u_slot = j_slot[unret]
    u_sizes = np.bincount(u_slot, minlength=n_q) if len(u_slot) else np.zeros(n_q, np.int64)
    sizes = r_sizes + u_sizes
    offsets = offsets_from_sizes(sizes)
    total = int(offsets[-1])
    r_pos = np.arange(len(joined.row)) - joined.offsets[:-1][np.repeat(np.arange(n_q), r_sizes)]
    r_dest = offsets[:-1][np.repeat(np.arange(n_q), r_sizes)] + r_pos
    u_pos = np.arange(len(u_rows)) - offsets_from_sizes(u_sizes)[:-1][u_slot] if len(u_rows) else np.zeros(0, np.int64)
    u_dest = offsets[:-1][u_slot] + r_sizes[u_slot] + u_pos
    item_bytes = np.empty(total, dtype=f"S{max(run.docno.dtype.itemsize, qrels.docno.dtype.itemsize)}")
    item_bytes[r_dest] = run.docno[joined.row]
    item_bytes[u_dest] = qrels.docno[u_rows]
    gold = np.full(total, np.nan)
    rel = joined.rel.astype(np.float64)
    # negative grades: the qrels value, not the internal code
    gold[r_dest] = np.where(joined.rel == NONPOOL, np.nan, rel)
    neg = joined.rel == UNJUDGED
    if neg.any():
        gold[r_dest[neg]] = _negative_grades(joined, run, qrels, neg)
    gold[u_dest] = qrels.grade[u_rows]
    pred = np.full(total, np.nan)
    pred[r_dest] = -run.score[joined.row]
    items = np.array(b"\n".join(item_bytes.tolist()).decode("utf-8").split("\n"), dtype=object) if total else \
        np.empty(0, dtype=object)
    group = np.array([group_prefix + q for q in joined.qids], dtype=object)
    extra = {}
    if run_column is not None:
        extra["run"] = np.full(total, run_column, dtype=object)
    return Batch(group=group, offsets=offsets, item=items, gold=gold, pred=pred, extra=extra, source=run.source)


def _negative_grades(joined, run, qrels, neg):
    """The qrels grades (negative) of retrieved rows coded UNJUDGED."""
    q_index = {q: i for i, q in enumerate(qrels.qids)}
    slot = np.repeat(np.arange(joined.n_queries), joined.sizes)[neg]
    out = np.empty(int(neg.sum()))
    for i, (s, r) in enumerate(zip(slot.tolist(), joined.row[neg].tolist())):
        q = q_index[joined.qids[s]]
        lo, hi = qrels.offsets[q], qrels.offsets[q + 1]
        j = lo + int(np.searchsorted(qrels.docno[lo:hi], run.docno[r]))
        out[i] = qrels.grade[j]
    return out


def read_trec(source, qrels=None, depth: int | None = None, all_queries: bool = False,
              prefix_groups: bool = False, **_options):
    """Reader for ``convert --from trec --qrels FILE RUN``: the canonical stream of a run
    joined with its qrels (see :func:`joined_batches`), one batch per run file;
    ``prefix_groups`` writes group ids ``TAG:QID``."""
    if qrels is None:
        raise DataError("--from trec needs --qrels FILE (the judgments to join the run with)",
                        source_name(source))
    q = qrels if isinstance(qrels, Qrels) else read_qrels(qrels)
    tag = None
    for joined, run in stream_join(source, q, depth=depth, all_queries=all_queries):
        if joined is None:
            raise DataError("a query's lines come after another query's; sort the run by query first "
                            "(sort -s -k1,1)", source_name(source))
        tag = tag or run.tag
        yield joined_batches(joined, run, q, run_column=tag, group_prefix=f"{tag}:" if prefix_groups else "")
