"""A run joined with its qrels a part at a time: memory holds a block of lines, not the run.

:func:`stream_join` reads a run block by block (:func:`~.run.run_blocks`) and joins each
set of whole queries (:func:`~.join.join`) as soon as the next query begins. So a command
holds O(block + longest line + the qrels + one query's rows) of a run read in order. A run
whose queries are scattered (a query's lines after another query's) is read whole instead:
from a regular file by reading it again, from stdin, a pipe or a file object from the copy
kept while it was read (:class:`~rankeval_cli.spool.Spool`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...errors import DataError
from ...inputs import is_regular_file, source_name
from ...spool import Spool
from .fields import shown
from .join import join
from .qrels import Qrels
from .run import Block, Run, empty_run, read_run, run_blocks


class Scattered(Exception):
    """A query's lines are not contiguous: the run must be read whole. ``qid`` is the query
    whose lines come back at ``line``."""

    def __init__(self, qid: str, line: int):
        super().__init__(qid, line)
        self.qid, self.line = qid, line


def stream_join(source, qrels: Qrels, *, depth: int | None = None, all_queries: bool = False,
                block_bytes: int | None = None):
    """Yield ``(joined, run_part)`` for consecutive sets of whole queries of a run file,
    joined with ``qrels``; memory holds one block of lines, not the run. A run whose
    queries are not contiguous (a query's lines after another query's) is read whole
    instead: ``(None, Scattered)`` then tells the consumer to discard the parts before (stdin,
    a pipe or a file object is copied to a temporary file as it is read, for that). With
    ``all_queries`` the qrels' queries the run lacks come last, with empty rankings. A run in
    memory (:mod:`rankeval_cli.frames`) or a Parquet or Arrow file is joined whole."""
    from .. import arrow

    if isinstance(source, Run) or arrow.sniff(source):
        run = source if isinstance(source, Run) else read_run(source)
        yield from _whole_run(run, _Progress(run.source, qrels, depth, block_bytes), all_queries)
        return
    progress = _Progress(source_name(source), qrels, depth, block_bytes)
    if is_regular_file(source):
        yield from _joined_parts(source, lambda _where: source, progress, all_queries)
        return
    with Spool(source) as spool:
        yield from _joined_parts(spool, lambda where: _replayed(spool, where), progress, all_queries)


def _replayed(spool: Spool, where: Scattered):
    """The whole run again from the copy kept while it was read; without a copy, an error at ``where``."""
    stream = spool.replay()
    if stream is None:
        raise DataError(f"the lines of query {shown(where.qid.encode())} come back after another query's, and "
                        f"the copy kept to read the run again failed ({spool.failure}); sort the run by query "
                        "first (sort -s -k1,1)", spool.name, where.line)
    return stream


@dataclass
class _Progress:
    """How far the join of one run has come: which qrels queries were evaluated, the qrels
    index of each run query code so far (−1: no qrels), and the codes of finished queries."""

    name: str
    qrels: Qrels
    depth: int | None
    block_bytes: int | None
    q_index: dict = field(init=False)
    seen_q: np.ndarray = field(init=False)
    run_to_q: np.ndarray = field(init=False)
    closed: int = 0  # codes below this belong to finished queries

    def __post_init__(self):
        self.q_index = {q: i for i, q in enumerate(self.qrels.qids)}
        self.seen_q = np.zeros(len(self.qrels.qids), dtype=bool)
        self.run_to_q = np.zeros(0, dtype=np.int64)

    def joined(self, codes, block: Block) -> tuple:
        """``(joined, part)`` of the whole queries of one part of the run."""
        if len(self.run_to_q) < len(codes.qids):
            extra = np.array([self.q_index.get(q, -1) for q in codes.qids[len(self.run_to_q):]], dtype=np.int64)
            self.run_to_q = np.concatenate((self.run_to_q, extra))
        code = block.code
        if code[0] < self.closed or (len(code) > 1 and (code[1:] < code[:-1]).any()):
            # a query seen before comes back where the codes (numbered as first seen) go down
            row = 0 if code[0] < self.closed else int(np.flatnonzero(code[1:] < code[:-1])[0]) + 1
            raise Scattered(codes.qids[code[row]], block.lines.line(row))
        part = Run(self.name, block.tag, codes.qids, code, block.docno, block.score, block.lines, block.last_tag)
        joined = join(part, self.qrels, depth=self.depth, run_to_q=self.run_to_q)  # errors name lines of the file
        self.mark(joined.qids)
        self.closed = int(code[-1]) + 1
        return joined, part

    def mark(self, qids: list) -> None:
        for q in qids:
            self.seen_q[self.q_index[q]] = True


def _joined_parts(source, again, progress: _Progress, all_queries: bool):
    """:func:`stream_join` of ``source``; ``again(where)`` gives the source to read the whole run from."""
    last_tag = tag = ""
    try:
        for joined, part in _parts(source, progress):
            last_tag, tag = part.last_tag, part.tag
            yield joined, part
    except Scattered as where:
        yield None, where  # discard what came before: the whole run follows
        run = read_run(again(where), progress.block_bytes)
        run.source = progress.name
        progress.seen_q[:] = False
        yield from _whole_run(run, progress, all_queries)
        return
    yield from _missing(progress, all_queries, tag, last_tag)


def _whole_run(run: Run, progress: _Progress, all_queries: bool):
    """:func:`stream_join` of a run read whole: its join, then (``all_queries``) the qrels'
    queries it lacks with empty rankings."""
    joined = join(run, progress.qrels, depth=progress.depth)
    progress.mark(joined.qids)
    yield joined, run
    yield from _missing(progress, all_queries, run.tag, run.last_tag)


def _missing(progress: _Progress, all_queries: bool, tag: str, last_tag: str):
    if all_queries and not progress.seen_q.all():
        missing = np.flatnonzero(~progress.seen_q)
        empty = empty_run(progress.name, tag, last_tag)
        yield join(empty, progress.qrels, queries=missing.tolist()), empty


def _parts(source, progress: _Progress):
    """``(joined, part)`` per set of whole queries: a block's rows up to its last query, whose
    rows are carried into the next block (they may go on there)."""
    codes = carry = None
    for codes, block in run_blocks(source, progress.block_bytes):
        if carry is not None:
            block = Block.concat(carry, block)
        code = block.code
        last = int(np.flatnonzero(np.r_[True, code[1:] != code[:-1]])[-1])
        carry = block.rows(last)
        if last:
            yield progress.joined(codes, block.rows(0, last))
    if carry is not None:
        yield progress.joined(codes, carry)
