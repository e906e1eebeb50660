"""The qrels reader: a TREC qrels file, judgments sorted by (qid, docno) in byte order."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import DataError
from ...inputs import open_binary, read_blocks, source_name
from ..byteids import ByteIds
from .fields import QRELS, check_ids, fields, integers, shown


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


def read_qrels(source) -> Qrels:
    """Read a qrels file; a duplicate (qid, docno), a malformed line, a non-integer grade
    is a :class:`DataError` at its line, a file without judgments one without a line; a
    Parquet or Arrow file is read by :func:`..arrow.qrels_columns`, an ir_datasets id that is
    no file by :func:`rankeval_cli.datasets.judgments`."""
    from ... import datasets
    from .. import arrow

    if datasets.is_dataset_id(source):  # --qrels msmarco-passage/dev/small
        qids, docnos, grades = datasets.judgments(source)
        return qrels_of(source, ByteIds.of(qids), ByteIds.of(docnos), grades, np.arange(1, len(grades) + 1))
    if arrow.sniff(source):
        return qrels_of(*arrow.qrels_columns(source))
    name = source_name(source)
    q_parts, d_parts, g_parts, l_parts = [], [], [], []
    for buf, starts, ends, lines in judgment_blocks(source, "qrels"):
        q_parts.append(ByteIds.from_fields(buf, starts[:, 0], ends[:, 0]))
        d_parts.append(ByteIds.from_fields(buf, starts[:, 2], ends[:, 2]))
        g_parts.append(integers(buf, starts[:, 3], ends[:, 3], lines, "relevance grade", name))
        l_parts.append(lines.all())
    return qrels_of(name, ByteIds.concat(q_parts), ByteIds.concat(d_parts), np.concatenate(g_parts),
                    np.concatenate(l_parts))


def judgment_blocks(source, what: str):
    """Each block of a qrels-shaped file (``qid iter docno rel``) that holds judgments, as
    ``(buf, starts, ends, lines)`` with its ids checked; a file without one is a
    :class:`DataError` ("no judgments: the WHAT file is empty", or "holds only blank or comment
    lines"). Shared by the qrels and the diversity qrels readers."""
    name = source_name(source)
    empty, judged = True, False
    with open_binary(source) as stream:
        for block, first_line in read_blocks(stream, name):
            empty = False
            buf, starts, ends, lines = fields(block, first_line, QRELS, name)
            if len(starts) == 0:
                continue
            check_ids(block, buf, starts, ends, lines, QRELS, name)
            judged = True
            yield buf, starts, ends, lines
    if not judged:
        state = "is empty" if empty else "holds only blank or comment lines"
        raise DataError(f"no judgments: the {what} file {state}", name)


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
