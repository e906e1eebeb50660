"""The run reader: a TREC run file in columnar form, read in blocks of whole lines.

A run is read in blocks of whole lines; each block is split into fields on its raw bytes
(:mod:`.fields`), its ids gathered and its scores parsed (:func:`_parsed_blocks`), from a
regular file in a second thread, a block or two ahead of its consumer
(:func:`rankeval_cli.prefetch.ahead`). Query ids and docnos never become Python objects
per row: they are :class:`~rankeval_cli.formats.byteids.ByteIds` columns (at most 32 + 4
bytes per id, or their length + 12), hashed and compared as 64-bit words. A query id
becomes a code, numbered in order of first appearance (:class:`_Codes`), shared by the
blocks of one run.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...inputs import open_binary, read_blocks, source_name
from ..byteids import ByteIds
from .fields import RUN, LineMap, check_ids, fields, numbers

#: Bytes per block read at once (whole lines); parsing temporaries scale with it.
RUN_BLOCK_BYTES = 1 << 21


@dataclass
class Run:
    """One run file (or a part of it holding whole queries) in columnar form: per row a
    query code, a docno and a score.

    ``qids[code]`` is the query id (``str``) of code ``code`` (codes in order of first
    appearance); ``docno`` a :class:`~rankeval_cli.formats.byteids.ByteIds` column. ``tag`` is
    the tag of the file's first line (it names the run), ``last_tag`` that of the last line
    read (trec_eval's ``runid``: the file's last). ``line_of(row)`` gives a row's line in the file.
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
    content. Independent of every other block, so it may run ahead of its consumer
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
class Block:
    """One block's rows, their query codes given (:func:`run_blocks`)."""

    code: np.ndarray
    docno: ByteIds
    score: np.ndarray
    lines: LineMap
    tag: str  # the run's first tag
    last_tag: str  # the block's last tag

    def __len__(self) -> int:
        return len(self.code)

    def rows(self, lo: int, hi: int | None = None) -> "Block":
        hi = len(self) if hi is None else hi
        return Block(self.code[lo:hi], self.docno.slice(lo, hi), self.score[lo:hi], self.lines.slice(lo, hi),
                     self.tag, self.last_tag)

    @staticmethod
    def concat(a: "Block", b: "Block") -> "Block":
        return Block(np.concatenate((a.code, b.code)), ByteIds.concat([a.docno, b.docno]),
                     np.concatenate((a.score, b.score)), LineMap.concat((a.lines, b.lines)), a.tag, b.last_tag)


def run_blocks(source, block_bytes: int | None = None):
    """Yield ``(codes, block)`` per block with content (``codes`` is the shared :class:`_Codes`)."""
    from ...prefetch import ahead_of_files

    codes = _Codes()
    tag = None
    for lines, first_tag, last_tag, qid, docno, score in ahead_of_files([source],
                                                                        lambda: _parsed_blocks(source, block_bytes)):
        tag = tag if tag is not None else first_tag
        yield codes, Block(codes.of(qid), docno, score, lines, tag, last_tag)


def read_run(source, block_bytes: int | None = None) -> Run:
    """Read a whole run file into a :class:`Run` (about 16 bytes per row plus its docno); a
    Parquet or Arrow file is read by :func:`..arrow.run_columns`."""
    from .. import arrow

    if arrow.sniff(source):
        return run_of(*arrow.run_columns(source))
    name = source_name(source)
    blocks, codes = [], _Codes()
    for codes, block in run_blocks(source, block_bytes):
        blocks.append(block)
    if not blocks:
        return empty_run(name)
    return Run(source=name, tag=blocks[0].tag, qids=codes.qids, code=np.concatenate([b.code for b in blocks]),
               docno=ByteIds.concat([b.docno for b in blocks]), score=np.concatenate([b.score for b in blocks]),
               lines=LineMap.concat(b.lines for b in blocks), last_tag=blocks[-1].last_tag)


def empty_run(name: str, tag: str = "", last_tag: str = "") -> Run:
    """A run that retrieved nothing."""
    return Run(name, tag, [], np.zeros(0, np.int32), ByteIds.from_list([]), np.zeros(0), LineMap.of([]), last_tag)


def run_of(name: str, qid, docno: ByteIds, score: np.ndarray, tags: tuple = ("", "")) -> Run:
    """A :class:`Run` of columns (row ``i`` reported as line ``i + 1``); ``qid`` is a
    :class:`ByteIds` column or (distinct ids, the index of every row's id among them); query
    codes are numbered in order of first appearance, as the text reader numbers them; ``tags``
    = (first, last) tag; ``qid`` None: a run without rows."""
    if qid is None:
        return empty_run(name, *tags)
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
