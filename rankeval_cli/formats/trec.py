"""TREC run and qrels files, read as trec_eval 10.0 reads them, and their join.

A *run* has one line per retrieved document, ``qid Q0 docno rank score tag``; a *qrels*
file one line per judgment, ``qid iter docno rel``, rel an integer. The reading rules
are trec_eval's (``get_trec_results.c``, ``get_qrels.c``):

- fields are separated by any run of C's white space (space, tab, CR, vertical tab,
  form feed); a file may lack its last newline; gzip, bzip2 and xz are undone;
- a run line may have fields after the tag: they are ignored; a qrels line has exactly
  four fields; the iter field (``Q0``, ``0``) and the rank field are ignored, any token;
- blank lines are skipped; so are comment lines: in a run a line whose first non-blank
  byte is ``#``, in qrels a line whose first byte is ``#`` (trec_eval reads an indented
  ``#`` in qrels as data, and so does this reader);
- the run's first tag names it (:attr:`Run.tag`); the tag of its last line is trec_eval's
  ``runid`` (:attr:`Run.last_tag`).

Stricter than trec_eval, each a one-line error at its line: a score that is not a finite
decimal number (trec_eval's ``atof`` reads ``abc`` as 0), a grade that is not an integer
(``atol``), a qid, docno or tag that is not UTF-8 or holds a NUL byte (trec_eval keeps
opaque C strings; every output here is UTF-8 text), a docno twice in one query, a
(qid, docno) judged twice (trec_eval stops at these two as well). A qrels file without a
judgment is an error too (trec_eval: "Cannot read qrels file").

As in trec_eval, the rank field is ignored: the order of a query's documents is score
descending, ties broken by docno descending in byte order (``form_res_rels.c``,
``comp_sim_docno``). The join (:func:`join`) follows ``form_res_rels.c`` and ``trec_eval.c``:

- a retrieved document absent from the qrels is unjudged (relevance value −1) and
  counts as non-relevant; a judged one carries its grade; a negative grade means
  "in the pool but not judged" (value −2): non-relevant, and not a judged
  non-relevant document for bpref;
- judged documents the run did not retrieve have no rank, but count in the number
  of relevant documents R and in the ideal ranking of nDCG;
- only queries with both qrels and a ranking are evaluated, unless ``all_queries``
  (trec_eval ``-c``) adds the qrels' queries missing from the run with an empty ranking;
- ``depth`` (trec_eval ``-M``) keeps the first N documents of each ordered ranking.

Memory follows the data. A run is read in blocks of whole lines; each block is split
into fields on its raw bytes (:mod:`.trec_fields`), its ids gathered and its scores
parsed (:func:`_parsed_blocks`), from a regular file in a second thread, a block or two
ahead of the join (:func:`rankeval_cli.prefetch.ahead`), which works on whole queries.
Query ids and docnos never become Python objects per row: they are
:class:`~.byteids.ByteIds` columns (at most 32 + 4 bytes per id, or their length + 12),
hashed and compared as 64-bit words. So a command holds O(block + longest line + the
qrels + one query's rows) of a run read in order, and a run whose queries are scattered
is read whole (from stdin or a pipe, it is copied to a temporary file as it is read, and
read again from there).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

import numpy as np

from ..batch import Batch, offsets_from_sizes, sort_within_groups
from ..errors import DataError
from ..textio import is_regular_file, open_binary, read_blocks, source_name
from .byteids import ByteIds, same
from .trec_fields import QRELS, QRELS_FIELDS, RUN, RUN_FIELDS, LineMap, check_ids, fields, integers, numbers, shown

__all__ = ["RUN_FIELDS", "QRELS_FIELDS", "LineMap", "Run", "Qrels", "Joined", "read_run", "read_qrels", "stream_join",
           "join", "qrels_of", "run_of", "empty_run", "trec_order", "docno_words", "joined_batches", "read_trec",
           "Scattered", "HashIndex", "shown"]

#: Bytes per block read at once (whole lines); parsing temporaries scale with it.
RUN_BLOCK_BYTES = 1 << 21
#: relevance value of a retrieved document that the qrels do not hold (trec_eval RELVALUE_NONPOOL)
NONPOOL = -1
#: relevance value of a retrieved document whose qrels grade is negative (trec_eval RELVALUE_UNJUDGED)
UNJUDGED = -2

@dataclass
class Run:
    """One run file (or a part of it holding whole queries) in columnar form: per row a
    query code, a docno and a score.

    ``qids[code]`` is the query id (``str``) of code ``code`` (codes in order of first
    appearance); ``docno`` a :class:`~.byteids.ByteIds` column. ``tag`` is the tag of the
    file's first line (it names the run), ``last_tag`` that of the last line read
    (trec_eval's ``runid``: the file's last). ``line_of(row)`` gives a row's line in the file.
    """

    source: str
    tag: str
    qids: list
    code: np.ndarray  # int32 per row
    docno: ByteIds
    score: np.ndarray  # float64 per row
    lines: LineMap
    last_tag: str = ""

    def __post_init__(self):
        self.docno = ByteIds.of(self.docno)

    @property
    def n_rows(self) -> int:
        return len(self.code)

    def line_of(self, row: int) -> int:
        return self.lines.line(int(row))


@dataclass
class Qrels:
    """A qrels file: judgments sorted by (qid, docno) in byte order, grades as integers."""

    source: str
    qids: list  # distinct query ids (str), sorted by their bytes
    offsets: np.ndarray  # int64, len(qids) + 1: the judgments of qids[i]
    docno: ByteIds  # sorted within each query
    grade: np.ndarray  # int64
    line: np.ndarray  # int64 line of each judgment

    def __post_init__(self):
        self.docno = ByteIds.of(self.docno)


# ---- runs ----------------------------------------------------------------------------------

class _Codes:
    """Query ids -> codes in order of first appearance (shared by the blocks of one run)."""

    def __init__(self):
        self.codes: dict[bytes, int] = {}
        self.qids: list = []

    def of(self, qid: ByteIds) -> np.ndarray:
        n = len(qid)
        change = np.ones(n, dtype=bool)
        if n > 1:
            change[1:] = ~qid.adjacent_same()
        heads = np.flatnonzero(change)
        seg_codes = np.empty(len(heads), dtype=np.int32)
        for i, value in enumerate(qid.take(heads).tolist()):
            code = self.codes.get(value)
            if code is None:
                code = self.codes[value] = len(self.qids)
                self.qids.append(value.decode("utf-8"))  # checked by check_ids
            seg_codes[i] = code
        return np.repeat(seg_codes, np.diff(np.append(heads, n)))


def _parsed_blocks(source, block_bytes: int | None = None):
    """Yield ``(lines, first_tag, last_tag, qid, docno, score)`` per block of lines with
    content. Independent of every other block, so it may run ahead of the join
    (:func:`rankeval_cli.prefetch.ahead`)."""
    name = source_name(source)
    with open_binary(source) as stream:
        for block, first_line in read_blocks(stream, name, block_bytes or RUN_BLOCK_BYTES):
            buf, starts, ends, lines = fields(block, first_line, RUN, name)
            if len(starts) == 0:
                continue
            check_ids(block, buf, starts, ends, lines, RUN, name)
            qid = ByteIds.from_fields(buf, starts[:, 0], ends[:, 0])
            docno = ByteIds.from_fields(buf, starts[:, 2], ends[:, 2])
            score = numbers(buf, starts[:, 4], ends[:, 4], lines, "score", name)
            first_tag = block[int(starts[0, 5]):int(ends[0, 5])].decode("utf-8")
            last_tag = block[int(starts[-1, 5]):int(ends[-1, 5])].decode("utf-8")
            yield lines, first_tag, last_tag, qid, docno, score


@dataclass
class _Block:
    """One block's rows, their query codes given (:func:`_run_blocks`)."""

    code: np.ndarray
    docno: ByteIds
    score: np.ndarray
    lines: LineMap
    tag: str  # the run's first tag
    last_tag: str  # the block's last tag

    def __len__(self) -> int:
        return len(self.code)

    def rows(self, lo: int, hi: int | None = None) -> "_Block":
        hi = len(self) if hi is None else hi
        return _Block(self.code[lo:hi], self.docno.slice(lo, hi), self.score[lo:hi], self.lines.slice(lo, hi),
                      self.tag, self.last_tag)

    @staticmethod
    def concat(a: "_Block", b: "_Block") -> "_Block":
        return _Block(np.concatenate((a.code, b.code)), ByteIds.concat([a.docno, b.docno]),
                      np.concatenate((a.score, b.score)), LineMap.concat((a.lines, b.lines)), a.tag, b.last_tag)


def _run_blocks(source, block_bytes: int | None = None):
    """Yield ``(codes, block)`` per block with content (``codes`` is the shared :class:`_Codes`)."""
    from ..prefetch import ahead_of_files

    codes = _Codes()
    tag = None
    for lines, first_tag, last_tag, qid, docno, score in ahead_of_files([source],
                                                                        lambda: _parsed_blocks(source, block_bytes)):
        tag = tag if tag is not None else first_tag
        yield codes, _Block(codes.of(qid), docno, score, lines, tag, last_tag)


def read_run(source, block_bytes: int | None = None) -> Run:
    """Read a whole run file into a :class:`Run` (about 16 bytes per row plus its docno);
    a Parquet or Arrow file is read by :func:`.arrow.read_run`."""
    from . import arrow

    if arrow.sniff(source):
        return arrow.read_run(source)
    name = source_name(source)
    blocks, codes = [], _Codes()
    for codes, block in _run_blocks(source, block_bytes):
        blocks.append(block)
    if not blocks:
        return empty_run(name)
    return Run(source=name, tag=blocks[0].tag, qids=codes.qids, code=np.concatenate([b.code for b in blocks]),
               docno=ByteIds.concat([b.docno for b in blocks]), score=np.concatenate([b.score for b in blocks]),
               lines=LineMap.concat(b.lines for b in blocks), last_tag=blocks[-1].last_tag)


def run_of(name: str, qid, docno: ByteIds, score: np.ndarray, tags: tuple = ("", "")) -> Run:
    """A :class:`Run` of columns (row ``i`` reported as line ``i + 1``); ``qid`` is a
    :class:`ByteIds` column or (distinct ids, the index of every row's id among them); query
    codes are numbered in order of first appearance, as the text reader numbers them; ``tags``
    = (first, last) tag."""
    if isinstance(qid, ByteIds):
        heads = np.flatnonzero(np.r_[True, ~qid.adjacent_same()]) if len(qid) else np.zeros(0, np.int64)
        distinct, head_code = qid.take(heads).unique()  # ids compared once per stretch of rows
        raw = np.repeat(head_code, np.diff(np.append(heads, len(qid))))
    else:
        distinct, raw = qid
    code, seen = first_seen(raw)
    return Run(source=name, tag=tags[0], qids=distinct.take(seen).decode(), code=code, docno=docno,
               score=np.asarray(score, dtype=np.float64), lines=LineMap.consecutive(1, len(code)), last_tag=tags[1])


def first_seen(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(codes numbered in order of first appearance, the raw value of each code) of integer ids."""
    n = len(raw)
    heads = np.flatnonzero(np.r_[True, raw[1:] != raw[:-1]]) if n else np.zeros(0, np.int64)
    segment = raw[heads]
    _, first = np.unique(segment, return_index=True)
    seen = segment[np.sort(first)]
    remap = np.full(int(raw.max()) + 1 if n else 0, -1, dtype=np.int32)
    remap[seen] = np.arange(len(seen), dtype=np.int32)
    return remap[raw], seen


def empty_run(name: str, tag: str = "", last_tag: str = "") -> Run:
    """A run that retrieved nothing."""
    return Run(name, tag, [], np.zeros(0, np.int32), ByteIds.from_list([]), np.zeros(0), LineMap.of([]), last_tag)


class Scattered(Exception):
    """A query's lines are not contiguous: the run must be read whole. ``qid`` is the query
    whose lines come back at ``line``."""

    def __init__(self, qid: str, line: int):
        super().__init__(qid, line)
        self.qid, self.line = qid, line


def stream_join(source, qrels: "Qrels", *, depth: int | None = None, all_queries: bool = False,
                block_bytes: int | None = None):
    """Yield ``(joined, run_part)`` for consecutive sets of whole queries of a run file,
    joined with ``qrels``; memory holds one block of lines, not the run. A run whose
    queries are not contiguous (a query's lines after another query's) is read whole
    instead: ``(None, Scattered)`` then tells the consumer to discard the parts before (stdin,
    a pipe or a file object is copied to a temporary file as it is read, for that). With
    ``all_queries`` the qrels' queries the run lacks come last, with empty rankings. A
    Parquet or Arrow run is read whole."""
    from . import arrow

    if isinstance(source, Run) or arrow.sniff(source):  # a run in memory (rankeval_cli.frames) or a file
        yield from _whole_run(source if isinstance(source, Run) else arrow.read_run(source), qrels, depth,
                              all_queries)
        return
    if is_regular_file(source):
        yield from _stream_join_file(source, source, qrels, depth, all_queries, block_bytes)
        return
    with _Spool(source) as spool:
        yield from _stream_join_file(spool, spool.replay, qrels, depth, all_queries, block_bytes)


def _stream_join_file(source, again, qrels, depth, all_queries, block_bytes):
    """:func:`stream_join` of ``source``; ``again`` is the source to read the whole run
    from (or a function returning it)."""
    name = source_name(source)
    q_index = {q: i for i, q in enumerate(qrels.qids)}
    seen_q = np.zeros(len(qrels.qids), dtype=bool)
    last_tag = tag = ""
    try:
        for joined, part in _stream_parts(source, qrels, q_index, seen_q, depth, block_bytes):
            last_tag, tag = part.last_tag, part.tag
            yield joined, part
    except Scattered as where:
        yield None, where  # discard what came before: the whole run follows
        run = read_run(again(where) if callable(again) else again, block_bytes)
        run.source = name
        yield from _whole_run(run, qrels, depth, all_queries)
        return
    if all_queries and not seen_q.all():
        empty = empty_run(name, tag, last_tag)
        yield join(empty, qrels, queries=np.flatnonzero(~seen_q).tolist()), empty


def _whole_run(run: Run, qrels: "Qrels", depth, all_queries):
    """:func:`stream_join` of a run read whole: its join, then (``all_queries``) the qrels'
    queries it lacks with empty rankings."""
    joined = join(run, qrels, depth=depth)
    yield joined, run
    if all_queries:
        q_index = {q: i for i, q in enumerate(qrels.qids)}
        seen_q = np.zeros(len(qrels.qids), dtype=bool)
        seen_q[[q_index[q] for q in joined.qids]] = True
        if not seen_q.all():
            empty = empty_run(run.source, run.tag, run.last_tag)
            yield join(empty, qrels, queries=np.flatnonzero(~seen_q).tolist()), empty


def _stream_parts(source, qrels, q_index, seen_q, depth, block_bytes):
    name = source_name(source)
    run_to_q = np.zeros(0, dtype=np.int64)
    closed = 0  # codes below this belong to finished queries
    carry = None
    for codes, block in _run_blocks(source, block_bytes):
        if carry is not None:
            block = _Block.concat(carry, block)
        code = block.code
        last = int(np.flatnonzero(np.r_[True, code[1:] != code[:-1]])[-1])
        carry = block.rows(last)
        if last:
            run_to_q = _extend_map(run_to_q, codes, q_index)
            closed = yield from _join_part(name, codes, block.rows(0, last), qrels, q_index, seen_q, depth, closed,
                                           run_to_q)
    if carry is not None:
        run_to_q = _extend_map(run_to_q, codes, q_index)
        yield from _join_part(name, codes, carry, qrels, q_index, seen_q, depth, closed, run_to_q)


def _extend_map(run_to_q, codes, q_index):
    if len(run_to_q) < len(codes.qids):
        extra = np.array([q_index.get(q, -1) for q in codes.qids[len(run_to_q):]], dtype=np.int64)
        run_to_q = np.concatenate((run_to_q, extra))
    return run_to_q


def _join_part(name, codes, block: _Block, qrels, q_index, seen_q, depth, closed, run_to_q):
    """Join the whole queries of one part; returns the new count of closed codes."""
    code = block.code
    if code[0] < closed or (len(code) > 1 and (code[1:] < code[:-1]).any()):
        # a query seen before comes back where the codes (numbered as first seen) go down
        row = 0 if code[0] < closed else int(np.flatnonzero(code[1:] < code[:-1])[0]) + 1
        raise Scattered(codes.qids[code[row]], block.lines.line(row))
    part = Run(name, block.tag, codes.qids, code, block.docno, block.score, block.lines, block.last_tag)
    joined = join(part, qrels, depth=depth, run_to_q=run_to_q)  # errors name lines of the file
    for q in joined.qids:
        seen_q[q_index[q]] = True
    yield joined, part
    return int(code[-1]) + 1


class _Spool(io.RawIOBase):
    """A source read once (stdin, a pipe, a file object), copied to a temporary file as it
    is read, so that it can be read again whole (:meth:`replay`)."""

    def __init__(self, source):
        super().__init__()
        self.source, self.name = source, source_name(source)
        self._raw = self._copy = None

    def __enter__(self):
        import sys
        import tempfile

        if self.source is None or self.source == "-":
            self._raw, self._close = sys.stdin.buffer, False
        elif isinstance(self.source, (str, bytes)) or hasattr(self.source, "__fspath__"):
            try:
                self._raw, self._close = open(self.source, "rb"), True
            except OSError as exc:
                raise DataError(f"cannot open: {exc.strerror}", self.name) from None
        elif isinstance(self.source, io.TextIOBase):
            self._raw, self._close = io.BytesIO(self.source.read().encode("utf-8")), False
        else:
            self._raw, self._close = self.source, False
        self._copy, self._failed = None, None
        try:
            self._copy = tempfile.TemporaryFile(prefix="rankeval-run-")
        except OSError as exc:  # no temporary folder: the run is still read, once
            self._failed = exc.strerror or str(exc)
        return self

    def __exit__(self, *exc):
        if self._close:
            self._raw.close()
        if self._copy is not None:
            self._copy.close()
        self.close()
        return False

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        data = self._raw.read(len(b))
        n = len(data)
        b[:n] = data
        if self._copy is not None:
            try:
                self._copy.write(data)
            except OSError as exc:  # disk full: the run is still read, once
                self._copy.close()
                self._copy, self._failed = None, exc.strerror or str(exc)
        return n

    def replay(self, where: "Scattered"):
        """Read the rest of the source; a stream of all of it (named as the source). The
        queries are scattered (``where``): without a copy, that is an error at its line."""
        while self._copy is not None and self.readinto(bytearray(1 << 20)):
            pass
        if self._copy is None:
            raise DataError(f"the lines of query {shown(where.qid.encode())} come back after another query's, and "
                            f"the copy kept to read the run again failed ({self._failed}); sort the run by query "
                            "first (sort -s -k1,1)", self.name, where.line)
        self._copy.seek(0)
        return _Named(self._copy, self.name)


class _Named(io.RawIOBase):
    """A binary file read under another name (for messages)."""

    def __init__(self, inner, name: str):
        super().__init__()
        self.inner, self.name = inner, name

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        return self.inner.readinto(b)


# ---- qrels ---------------------------------------------------------------------------------

def read_qrels(source) -> Qrels:
    """Read a qrels file; a duplicate (qid, docno), a malformed line, a non-integer grade
    is a :class:`DataError` at its line, a file without judgments one without a line; a
    Parquet or Arrow file is read by :func:`.arrow.read_qrels`, an ir_datasets id that is no
    file by :func:`rankeval_cli.datasets.qrels`."""
    from .. import datasets
    from . import arrow

    if datasets.is_dataset_id(source):  # --qrels msmarco-passage/dev/small
        return datasets.qrels(source)
    if arrow.sniff(source):
        return arrow.read_qrels(source)
    name = source_name(source)
    q_parts, d_parts, g_parts, l_parts = [], [], [], []
    empty = True
    with open_binary(source) as stream:
        for block, first_line in read_blocks(stream, name):
            empty = False
            buf, starts, ends, lines = fields(block, first_line, QRELS, name)
            if len(starts) == 0:
                continue
            check_ids(block, buf, starts, ends, lines, QRELS, name)
            q_parts.append(ByteIds.from_fields(buf, starts[:, 0], ends[:, 0]))
            d_parts.append(ByteIds.from_fields(buf, starts[:, 2], ends[:, 2]))
            g_parts.append(integers(buf, starts[:, 3], ends[:, 3], lines, "relevance grade", name))
            l_parts.append(lines.all())
    if not q_parts:
        what = "is empty" if empty else "holds only blank or comment lines"
        raise DataError(f"no judgments: the qrels file {what}", name)
    return qrels_of(name, ByteIds.concat(q_parts), ByteIds.concat(d_parts), np.concatenate(g_parts),
                    np.concatenate(l_parts))


def qrels_of(name: str, qid: ByteIds, docno: ByteIds, grade: np.ndarray, line: np.ndarray) -> Qrels:
    """:class:`Qrels` of judgment columns (``line``: each one's line, for messages), sorted by
    (qid, docno); a (qid, docno) judged twice is a :class:`DataError` at the second line."""
    distinct, q_code = qid.unique()
    order = np.lexsort((line, *docno.sort_keys(), q_code))  # by qid, docno (bytes), line
    q_code, docno, grade, line = q_code[order], docno.take(order).compact(), grade[order], line[order]
    n = len(q_code)
    if n > 1:
        twice = (q_code[1:] == q_code[:-1]) & docno.adjacent_same()
        if twice.any():
            i = int(np.flatnonzero(twice)[0])
            raise DataError(f"docno {shown(docno[i + 1])} judged twice for query "
                            f"{shown(distinct[int(q_code[i])])} (first at line {line[i]})", name,
                            int(max(line[i], line[i + 1])))
    heads = np.flatnonzero(np.r_[True, q_code[1:] != q_code[:-1]])
    offsets = np.append(heads, n).astype(np.int64)
    return Qrels(name, distinct.decode(), offsets, docno, grade, line)


# ---- the join ----------------------------------------------------------------------------

@dataclass
class Joined:
    """A run joined with qrels: per evaluated query its ordered ranking and its judgments.

    ``rel`` holds, per retrieved row in trec_eval order (depth applied), the grade of a
    judged document, :data:`NONPOOL` (−1) or :data:`UNJUDGED` (−2); ``row`` the run row;
    ``qrels_row`` the qrels row that judged it (−1: none). ``judged_grade`` holds each
    query's non-negative qrels grades, highest first (the ideal ranking; R and bpref's
    judged non-relevant count come from it); ``judged_row`` the qrels row of each,
    ``judged_retrieved`` whether the run retrieved it. ``tie_block`` numbers the blocks of
    equal scores (for the other tie policies).
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
    qrels_row: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    @property
    def n_queries(self) -> int:
        return len(self.qids)

    @property
    def sizes(self) -> np.ndarray:
        return np.diff(self.offsets)


def docno_words(docno: np.ndarray) -> np.ndarray:
    """(n × w/8) big-endian 64-bit words of a fixed-width ``S`` array of ids: comparing the
    rows word by word is comparing the bytes (shorter ids are zero-padded, so a prefix
    sorts first, as strcmp)."""
    width = docno.dtype.itemsize
    if width % 8:
        docno = docno.astype(f"S{-(-width // 8) * 8}")
        width = docno.dtype.itemsize
    return np.ascontiguousarray(docno).view(">u8").reshape(len(docno), width // 8).astype(np.uint64)


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
        local = np.lexsort((*run.docno.take(rows[where]).sort_keys(descending=True), block[where]))
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
    row_slot = np.where(keep, slot[np.maximum(q_of_code, 0)], -1) if len(slot) else np.full(run.n_rows, -1)
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
    q_rows = np.concatenate([np.arange(qrels.offsets[q], qrels.offsets[q + 1]) for q in q_list]) \
        if q_list else np.zeros(0, np.int64)
    q_slot = np.repeat(np.arange(len(q_list)), np.diff(qrels.offsets)[q_list]) if q_list else \
        np.zeros(0, np.int64)
    r_slot = np.repeat(np.arange(len(q_list)), sizes)
    found, cand = _lookup(qrels.docno.take(q_rows), q_slot, run.docno.take(rows), r_slot)
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
        judged_retrieved=retrieved[j_rows], skipped_queries=skipped, tag=run.tag,
        qrels_row=np.where(found, q_rows[cand] if len(q_rows) else -1, -1))


def _lookup(q_ids: ByteIds, q_slot: np.ndarray, r_ids: ByteIds, r_slot: np.ndarray):
    """(found, index into ``q_ids``) of every (r_slot, r_id) among the (q_slot, q_id): one
    probe of a hash table each, the match checked on the ids themselves."""
    if not len(q_ids) or not len(r_ids):
        return np.zeros(len(r_ids), bool), np.zeros(len(r_ids), np.int64)
    k = max(q_ids.key_words, r_ids.key_words)
    q_words, r_words = q_ids.words(k), r_ids.words(k)
    q_hash, r_hash = q_ids.hash(q_slot, q_words), r_ids.hash(r_slot, r_words)
    if len(np.unique(q_hash)) < len(q_hash):  # a 64-bit collision inside the qrels: the exact way
        index = {key: i for i, key in enumerate(zip(q_slot.tolist(), q_ids.tolist()))}
        cand = np.array([index.get(key, -1) for key in zip(r_slot.tolist(), r_ids.tolist())], dtype=np.int64)
        return cand >= 0, np.maximum(cand, 0)
    cand = HashIndex(q_hash).find(r_hash)
    hit = np.flatnonzero(cand >= 0)  # checked on the ids: a hash may collide
    real = (q_slot[cand[hit]] == r_slot[hit]) & same(q_ids, cand[hit], r_ids, hit, q_words, r_words)
    found = np.zeros(len(r_ids), dtype=bool)
    found[hit[real]] = True
    return found, np.maximum(cand, 0)


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


def _check_duplicates(run: Run, rows: np.ndarray, key: np.ndarray) -> None:
    """A docno twice in one query's ranking is an error at its second line."""
    if len(rows) < 2:
        return
    ids = run.docno.take(rows)
    h = ids.hash(key)
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
    a, b = maybe[order[dup]], maybe[order[dup + 1]]
    real = (key[a] == key[b]) & same(ids, a, ids, b)
    if real.any():  # report the repeat that comes first in the file
        ra, rb = rows[a[real]], rows[b[real]]
        i = int(np.argmin(np.maximum(ra, rb)))
        first, second = int(min(ra[i], rb[i])), int(max(ra[i], rb[i]))
        raise DataError(f"docno {shown(run.docno[second])} retrieved twice for query "
                        f"{shown(run.qids[run.code[second]].encode())} (first at line {run.line_of(first)})",
                        run.source, run.line_of(second))


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
    items = np.empty(total, dtype=object)
    items[r_dest] = run.docno.take(joined.row).decode()
    items[u_dest] = qrels.docno.take(u_rows).decode()
    gold = np.full(total, np.nan)
    rel = joined.rel.astype(np.float64)
    # negative grades: the qrels value, not the internal code
    gold[r_dest] = np.where(joined.rel == NONPOOL, np.nan, rel)
    neg = joined.rel == UNJUDGED
    if neg.any():
        gold[r_dest[neg]] = qrels.grade[joined.qrels_row[neg]]
    gold[u_dest] = qrels.grade[u_rows]
    pred = np.full(total, np.nan)
    pred[r_dest] = -run.score[joined.row]
    group = np.array([group_prefix + q for q in joined.qids], dtype=object)
    extra = {}
    if run_column is not None:
        extra["run"] = np.full(total, run_column, dtype=object)
    return Batch(group=group, offsets=offsets, item=items, gold=gold, pred=pred, extra=extra, source=run.source)


def read_trec(source, qrels=None, depth: int | None = None, all_queries: bool = False,
              prefix_groups: bool = False, report=None, **_options):
    """Reader for ``convert --from trec --qrels FILE RUN``: the canonical stream of a run
    joined with its qrels (see :func:`joined_batches`), one batch per part of the run;
    ``prefix_groups`` writes group ids ``TAG:QID``. The run's queries without qrels are
    left out, as trec_eval leaves them, and counted on stderr (``report``)."""
    if qrels is None:
        raise DataError("--from trec needs --qrels FILE (the judgments to join the run with)",
                        source_name(source))
    q = qrels if isinstance(qrels, Qrels) else read_qrels(qrels)
    tag, skipped = None, 0
    for joined, run in stream_join(source, q, depth=depth, all_queries=all_queries):
        if joined is None:
            raise DataError(f"the lines of query {shown(run.qid.encode())} come back after another query's; sort "
                            "the run by query first (sort -s -k1,1)", source_name(source), run.line)
        tag = tag or run.tag
        skipped += joined.skipped_queries
        yield joined_batches(joined, run, q, run_column=tag, group_prefix=f"{tag}:" if prefix_groups else "")
    if skipped:
        (report or _warn)(f"{source_name(source)}: {skipped} queries without qrels skipped (as trec_eval)")


def _warn(message: str) -> None:
    from ..messages import warn

    warn(message)
