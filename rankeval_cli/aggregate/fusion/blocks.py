"""Run files read side by side, a block of whole queries at a time, in the byte order of the
query ids (the order of the fused run).

TREC runs hold each query's lines together, and most list their queries in the byte order
of their ids. Such runs are read together block by block (:func:`streamed`): the queries
below the smallest query id any unfinished run has reached are complete in every run, and
are handed on as one :class:`Block` once they hold :data:`BLOCK_ROWS` rows or more. Memory
holds a block or two of each run. A run found listing a query out of that order (or
twice) stops the stream with :class:`NotByQuery`; such runs are read whole
(:class:`WholeRuns`), their rows put in query order, and cut into blocks of whole
queries the same way.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

import numpy as np

#: rows of all runs per block (a block may hold more: whole queries, and what one read adds)
BLOCK_ROWS = 1 << 18
#: bytes of a run file read at once
PART_BYTES = 1 << 19


@dataclass
class Part:
    """One run's rows for the queries of a block, each query's rows together."""

    query: np.ndarray  # int64 per row: index into the block's names
    docno: object  # ByteIds
    score: np.ndarray  # float64
    lines: object  # LineMap, or the int64 line of every row
    source: str
    tag: str = ""  # the tag of the run's first line

    def line(self, row: int) -> int:
        return int(self.lines[row]) if isinstance(self.lines, np.ndarray) else self.lines.line(row)


@dataclass
class Block:
    """Whole queries of every run: their ids in byte order and one part per run."""

    names: list
    parts: list

    @property
    def n_rows(self) -> int:
        return sum(len(p.score) for p in self.parts)


class NotByQuery(Exception):
    """A run lists its queries out of the byte order of their ids, or one query twice."""


class _Feed:
    """The parsed blocks of every run, read ahead in one thread in the order the merge asks
    for them (:func:`_merge_order`)."""

    def __init__(self, sources):
        from ...prefetch import ahead_of_files

        self.items = ahead_of_files(sources, lambda: _merge_order(sources))
        self.stash: dict = {}

    def next_of(self, run: int):
        """The next parsed block of ``run``, None after its last."""
        if self.stash.get(run):
            return self.stash[run].pop(0)
        for r, item in self.items:
            if r == run:
                return item
            self.stash.setdefault(r, []).append(item)
        return None

    def close(self) -> None:
        self.items.close()


def _merge_order(sources):
    """(run, parsed block or None at its end): a block of every run, then always the next
    block of the run whose last query id read is smallest (the first such run), the order
    in which :func:`streamed` advances its runs."""
    from ...formats.trec.run import _parsed_blocks

    readers = [_parsed_blocks(s, PART_BYTES) for s in sources]
    last: list = [None] * len(readers)
    for r in range(len(readers)):
        yield r, _step(readers, last, r)
    while True:
        open_ = [r for r, name in enumerate(last) if name is not None]
        if not open_:
            return
        r = min(open_, key=lambda i: last[i])
        yield r, _step(readers, last, r)


def _step(readers, last, r):
    item = next(readers[r], None)
    last[r] = None if item is None else item[3][len(item[3]) - 1].decode("utf-8")
    return item


class _Cursor:
    """One run's rows not yet handed on, by query."""

    def __init__(self, feed: _Feed, run: int, source: str):
        self.feed, self.run, self.source = feed, run, source
        self.docno = self.score = self.lines = None  # the pending rows
        self.names: list = []  # query id of each pending group of rows
        self.starts: list = []  # its first pending row
        self.ended = False
        self.last_name = None  # the query of the last row read
        self.tag = ""  # the run's first tag

    @property
    def n_rows(self) -> int:
        return 0 if self.score is None else len(self.score)

    @property
    def frontier(self):
        """The query id of the last row read (its rows may go on), None once the run has ended."""
        return None if self.ended else self.last_name

    def advance(self) -> None:
        from ...formats.byteids import ByteIds
        from ...formats.trec.fields import LineMap

        item = self.feed.next_of(self.run)
        if item is None:
            self.ended = True
            return
        lines, first_tag, _, qid, docno, score = item
        if self.last_name is None:
            self.tag = first_tag
        heads = np.flatnonzero(np.r_[True, ~qid.adjacent_same()])
        names = [q.decode("utf-8") for q in qid.take(heads).tolist()]
        first = 1 if names[0] == self.last_name else 0
        for name in names[first:]:  # a new query: a larger id
            if self.last_name is not None and name <= self.last_name:
                raise NotByQuery(f"{self.source}: query '{name}' out of order")
            self.last_name = name
        self.names += names[first:]
        self.starts += (heads[first:] + self.n_rows).tolist()
        if self.score is None or not self.n_rows:
            self.docno, self.score, self.lines = docno, score, lines
        else:
            self.docno = ByteIds.concat([self.docno, docno])
            self.score = np.concatenate((self.score, score))
            self.lines = LineMap.concat((self.lines, lines))

    def below(self, bound) -> int:
        """Pending groups whose query id is below ``bound`` (None: all)."""
        return len(self.names) if bound is None else bisect_left(self.names, bound)

    def rows_below(self, bound) -> int:
        k = self.below(bound)
        return self.starts[k] if k < len(self.names) else self.n_rows

    def take(self, bound):
        """(query ids, rows per query, docnos, scores, lines) of the pending queries below
        ``bound``, handed on."""
        k, end = self.below(bound), self.rows_below(bound)
        names, sizes = self.names[:k], np.diff(np.append(self.starts[:k], end)).astype(np.int64)
        rows = (self.docno.slice(0, end), self.score[:end], self.lines.slice(0, end)) if end else None
        if end:
            self.docno, self.score, self.lines = self.docno.slice(end, self.n_rows), self.score[end:], \
                self.lines.slice(end, self.n_rows)
        self.names, self.starts = self.names[k:], [s - end for s in self.starts[k:]]
        return names, sizes, rows


def streamed(sources, block_rows: int | None = None):
    """Blocks of the runs read side by side (module docstring), of about ``block_rows`` rows
    [:data:`BLOCK_ROWS`]; NotByQuery where a run is not in query order (raised before the
    block that would need it)."""
    from ...inputs import source_name

    feed = _Feed(sources)
    cursors = [_Cursor(feed, r, source_name(s)) for r, s in enumerate(sources)]
    try:
        yield from _merged(cursors, block_rows or BLOCK_ROWS)
    finally:
        feed.close()


def _merged(cursors, block_rows: int):
    for cursor in cursors:
        cursor.advance()
    while True:
        open_ = [c.frontier for c in cursors if not c.ended]
        bound = min(open_) if open_ else None
        if bound is not None and sum(c.rows_below(bound) for c in cursors) < block_rows:
            for cursor in cursors:
                if cursor.frontier == bound:
                    cursor.advance()
            continue
        while True:  # blocks of about block_rows rows from what is complete
            cut = _cut(cursors, bound, block_rows)
            taken = [c.take(cut) for c in cursors]
            names = sorted({q for qs, _, _ in taken for q in qs})
            if names:
                yield Block(names, [_part(c, names, qs, sizes, rows) for c, (qs, sizes, rows) in zip(cursors, taken)])
            if cut == bound:
                break
        if bound is None:
            return


def _cut(cursors, bound, block_rows: int):
    """The smallest query id past ``block_rows`` rows of the pending queries below ``bound``
    (``bound`` when they hold fewer)."""
    rows: dict = {}
    for c in cursors:
        k = c.below(bound)
        ends = c.starts[1:k + 1] if k < len(c.starts) else c.starts[1:] + [c.n_rows]
        for name, start, end in zip(c.names[:k], c.starts[:k], ends):
            rows[name] = rows.get(name, 0) + end - start
    total = 0
    for name in sorted(rows):
        if total >= block_rows:
            return name
        total += rows[name]
    return bound


def _part(cursor: _Cursor, names, qs, sizes, rows) -> Part:
    from ...formats.byteids import ByteIds
    from ...formats.trec.fields import LineMap

    if rows is None:
        return Part(np.zeros(0, np.int64), ByteIds.from_list([]), np.zeros(0), LineMap.consecutive(0, 0),
                    cursor.source, cursor.tag)
    index = {q: i for i, q in enumerate(names)}
    query = np.repeat(np.array([index[q] for q in qs], dtype=np.int64), sizes)
    return Part(query, *rows, cursor.source, cursor.tag)


def query_blocks(sources, whole: bool = False):
    """The blocks of the runs: read side by side (:func:`streamed`) unless ``whole`` or a source
    is not a regular file (then :class:`WholeRuns`)."""
    from ...inputs import is_regular_file

    if whole or not all(map(is_regular_file, sources)):
        return WholeRuns(sources).blocks()
    return streamed(sources)


class WholeRuns:
    """Runs read whole, each one's rows put in the byte order of their query ids (a stable
    sort where they are not), cut into blocks of whole queries."""

    def __init__(self, sources):
        from ...formats.trec.run import read_run

        self.runs = [read_run(s) for s in sources]
        self._lines: dict = {}
        self.names = sorted({q for run in self.runs for q in run.qids})
        index = {q: i for i, q in enumerate(self.names)}
        self.order, self.offsets = [], []
        for run in self.runs:
            rank = np.array([index[q] for q in run.qids], dtype=np.int64)[run.code] if run.n_rows \
                else np.zeros(0, np.int64)
            order = None if (rank[1:] >= rank[:-1]).all() else np.argsort(rank, kind="stable")
            self.order.append(order)
            ranked = rank if order is None else rank[order]
            self.offsets.append(np.searchsorted(ranked, np.arange(len(self.names) + 1)))

    def blocks(self, block_rows: int | None = None):
        block_rows = block_rows or BLOCK_ROWS
        sizes = sum(np.diff(o) for o in self.offsets) if self.runs else np.zeros(0, np.int64)
        total = np.cumsum(sizes)
        lo = 0
        while lo < len(self.names):
            hi = max(int(np.searchsorted(total, (total[lo - 1] if lo else 0) + block_rows)) + 1, lo + 1)
            hi = min(hi, len(self.names))
            yield self.block(lo, hi)
            lo = hi

    def block(self, lo: int, hi: int, keep=None) -> Block:
        """The block of queries ``names[lo:hi]`` (only those where ``keep`` is true, if given)."""
        parts = []
        for run, order, offsets in zip(self.runs, self.order, self.offsets):
            rows = np.arange(offsets[lo], offsets[hi]) if order is None else order[offsets[lo]:offsets[hi]]
            query = np.repeat(np.arange(hi - lo, dtype=np.int64), np.diff(offsets[lo:hi + 1]))
            if keep is not None:
                rows, query = rows[keep[query]], query[keep[query]]
            lines = self._line_array(len(parts))[rows] if order is not None or keep is not None else \
                run.lines.slice(int(offsets[lo]), int(offsets[hi]))
            parts.append(Part(query, run.docno.take(rows) if order is not None or keep is not None
                              else run.docno.slice(int(offsets[lo]), int(offsets[hi])),
                              run.score[rows], lines, run.source, run.tag))
        return Block(self.names[lo:hi], parts)

    def _line_array(self, r: int) -> np.ndarray:
        if r not in self._lines:
            self._lines[r] = self.runs[r].lines.all()
        return self._lines[r]
