"""A TREC run read with its rank field, for ``rankeval ndeval``: ndeval orders a topic's documents
by their rank (its ``-traditional`` by score), and its topics are numbers.

Lines are split as every TREC run is (:mod:`.trec.fields`: white space, ``#`` comments, gzip;
fields after the sixth ignored). The rank is a whole number ≥ 0; the topic is a whole number
≥ 0 or, as ndeval's ``parseTopic`` reads it, a prefix up to a ``-`` followed by one (``wt09-1``
is topic 1). Each is an error at its line otherwise, as a score that is not a number is.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import DataError
from ..inputs import open_binary, read_blocks, source_name
from .byteids import ByteIds
from .trec.fields import RUN, check_ids, fields, integers, numbers, shown

#: the largest whole number ndeval's ``naturalNumber`` reads (it stops above 100000 before the last digit)
LARGEST = 1000009


@dataclass
class RankedRun:
    """One run: per row its topic number, docno, rank, score and line; ``runid`` the first line's tag."""

    source: str
    runid: str
    topic: np.ndarray
    docno: ByteIds
    rank: np.ndarray
    score: np.ndarray
    line: np.ndarray


def natural(text: str) -> int | None:
    """ndeval's ``naturalNumber``: digits only, at most about a million; None otherwise."""
    if not text or not text.isascii() or not text.isdigit() or int(text) > LARGEST:
        return None
    return int(text)


def topic_number(text: str) -> int | None:
    """ndeval's ``parseTopic``: a number, or a prefix up to the first ``-`` and a number after it."""
    if text[:1].isdigit():
        return natural(text)
    _, dash, rest = text.partition("-")
    return natural(rest) if dash else None


def read_ranked_run(source) -> RankedRun:
    """Read a run with its ranks (module docstring)."""
    name = source_name(source)
    parts: dict = {"qid": [], "doc": [], "rank": [], "score": [], "line": []}
    runid = None
    with open_binary(source) as stream:
        for block, first_line in read_blocks(stream, name):
            buf, starts, ends, lines = fields(block, first_line, RUN, name)
            if len(starts) == 0:
                continue
            check_ids(block, buf, starts, ends, lines, RUN, name)
            if runid is None:
                runid = block[int(starts[0, 5]):int(ends[0, 5])].decode("utf-8")
            parts["qid"].append(ByteIds.from_fields(buf, starts[:, 0], ends[:, 0]))
            parts["doc"].append(ByteIds.from_fields(buf, starts[:, 2], ends[:, 2]))
            parts["rank"].append(integers(buf, starts[:, 3], ends[:, 3], lines, "rank", name))
            parts["score"].append(numbers(buf, starts[:, 4], ends[:, 4], lines, "score", name))
            parts["line"].append(lines.all())
    if runid is None:
        raise DataError("the run holds no line", name)
    qid = ByteIds.concat(parts["qid"])
    rank, line = np.concatenate(parts["rank"]), np.concatenate(parts["line"])
    bad = np.flatnonzero((rank < 0) | (rank > LARGEST))
    if len(bad):
        raise DataError(f"rank {rank[bad[0]]} is not a whole number ndeval reads", name, int(line[bad[0]]))
    distinct, code = qid.unique()
    numbers_of = []
    for i, text in enumerate(distinct.decode()):
        value = topic_number(text)
        if value is None:
            row = int(np.flatnonzero(code == i)[0])
            raise DataError(f"topic {shown(text.encode())} is not a topic number (e.g. 12 or wt09-12)", name,
                            int(line[row]))
        numbers_of.append(value)
    topic = np.asarray(numbers_of, dtype=np.int64)[code]
    return RankedRun(name, runid, topic, ByteIds.concat(parts["doc"]), rank, np.concatenate(parts["score"]), line)
