"""Diversity qrels, the TREC Web track's subtopic judgments: one line per (query, subtopic,
document), ``qid subtopic docno judgment``, judgment an integer. ndeval reads them (its
``processQrels``), and ir_measures reads them as qrels whose iteration field is the subtopic.

Read as TREC qrels are (:mod:`rankeval_cli.formats.trec`: white space, comment lines, gzip,
exactly four fields), except that a document has a line per subtopic. A (qid, subtopic,
docno) judged twice is an error at its line, as is a judgment that is not an integer. The
subtopics of a query are ordered numerically when they are whole numbers (ndeval's subtopic numbers),
others after them by their bytes: the order in which their gains are added.

:class:`DiversityQrels` holds them twice: as an ordinary :class:`~.trec.Qrels` with one
judgment per (qid, docno) — the largest of its subtopic judgments, at least 0, so a document
of the diversity qrels is judged — which the TREC join reads, and per judged document its
subtopic judgments.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import DataError
from ..inputs import source_name
from .byteids import ByteIds, same
from .trec.qrels import Qrels, judgment_blocks
from .trec.fields import integers, shown


@dataclass
class DiversityQrels:
    """Subtopic judgments (module docstring). ``qrels.docno[r]`` is the r-th judged document
    (sorted by query, then docno); its judgments are ``subtopic[doc_offsets[r]:doc_offsets[r + 1]]``
    (the subtopic's index among its query's, ascending) with ``judgment``; ``subtopics[q]`` names
    query q's subtopics in that order."""

    qrels: Qrels
    subtopics: list
    doc_offsets: np.ndarray
    subtopic: np.ndarray
    judgment: np.ndarray
    line: np.ndarray  # the line of each judgment
    cache: dict = field(default_factory=dict, repr=False, compare=False)  # what the measures make once

    @property
    def source(self) -> str:
        return self.qrels.source

    @property
    def qids(self) -> list:
        return self.qrels.qids


class _Ids:
    """Distinct ids (queries, subtopics) → codes in order of first appearance."""

    def __init__(self):
        self.codes: dict = {}
        self.names: list = []

    def of(self, ids: ByteIds) -> np.ndarray:
        distinct, inverse = ids.unique()
        codes = np.empty(len(distinct), dtype=np.int64)
        for i, value in enumerate(distinct.tolist()):
            code = self.codes.get(value)
            if code is None:
                code = self.codes[value] = len(self.names)
                self.names.append(value.decode("utf-8"))
            codes[i] = code
        return codes[inverse]


@dataclass
class _Lines:
    """Per line: query, subtopic, judgment, line, and its document among the blocks' distinct documents;
    per distinct document of a block its docno, the hash of (query, docno), its query and first line."""

    query: list = field(default_factory=list)
    sub: list = field(default_factory=list)
    judgment: list = field(default_factory=list)
    line: list = field(default_factory=list)
    doc_ref: list = field(default_factory=list)
    doc: list = field(default_factory=list)
    doc_key: list = field(default_factory=list)
    doc_query: list = field(default_factory=list)
    doc_line: list = field(default_factory=list)
    docs: int = 0


def read_diversity_qrels(source) -> DiversityQrels:
    """Read a diversity qrels file (module docstring). A block's lines keep small codes; only each
    block's distinct documents keep their docno, so memory follows the distinct documents."""
    name = source_name(source)
    queries, subtopics, lines = _Ids(), _Ids(), _Lines()
    for buf, starts, ends, line_map in judgment_blocks(source, "diversity qrels"):
        _add_block(lines, queries, subtopics, buf, starts, ends, line_map, name)
    return _assemble(lines, queries, subtopics, name)


def _add_block(lines: _Lines, queries: _Ids, subtopics: _Ids, buf, starts, ends, line_map, name) -> None:
    q = queries.of(ByteIds.from_fields(buf, starts[:, 0], ends[:, 0]))
    doc = ByteIds.from_fields(buf, starts[:, 2], ends[:, 2])
    key = doc.hash(q.astype(np.uint64))
    distinct, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    if not same(doc, first[inverse], doc).all():  # a 64-bit collision inside the block: the exact way
        first, inverse = _exact_groups(q, doc)
        distinct = key[first]
    line = line_map.all()
    lines.query.append(q.astype(np.int32))
    lines.sub.append(subtopics.of(ByteIds.from_fields(buf, starts[:, 1], ends[:, 1])).astype(np.int32))
    lines.judgment.append(integers(buf, starts[:, 3], ends[:, 3], line_map, "judgment", name).astype(np.int32))
    lines.line.append(line.astype(np.int32))
    lines.doc_ref.append((inverse.reshape(-1) + lines.docs).astype(np.int32))
    lines.doc.append(doc.take(first).compact())
    lines.doc_key.append(distinct)
    lines.doc_query.append(q[first])
    lines.doc_line.append(line[first])
    lines.docs += len(first)


def _exact_groups(q: np.ndarray, doc: ByteIds):
    """(first row, group of every row) of the rows' (query, docno), without hashes."""
    index: dict = {}
    group = np.array([index.setdefault((a, b), len(index)) for a, b in zip(q.tolist(), doc.tolist())])
    first = np.zeros(len(index), dtype=np.int64)
    first[group[::-1]] = np.arange(len(group))[::-1]
    return first, group


def _taken(parts: list) -> np.ndarray:
    out = np.concatenate(parts)
    parts.clear()
    return out


def _assemble(lines: _Lines, queries: _Ids, subtopics: _Ids, name: str) -> DiversityQrels:
    doc, doc_key = ByteIds.concat(lines.doc), _taken(lines.doc_key)
    doc_query, doc_line = _taken(lines.doc_query), _taken(lines.doc_line)
    # the blocks' distinct documents made distinct over the file, each checked on its docno
    _, first, inverse = np.unique(doc_key, return_index=True, return_inverse=True)
    if not same(doc, first[inverse], doc).all():
        raise DataError("two (qid, docno) share a 64-bit hash; rankeval cannot read this file", name)
    doc, doc_query, doc_line = doc.take(first).compact(), doc_query[first], doc_line[first]
    # queries in byte order, their documents in byte order (ndeval's ideal ranking breaks ties by docno)
    q_rank = np.argsort(np.argsort(np.array([n.encode("utf-8") for n in queries.names], dtype=object)))
    doc_query = q_rank[doc_query]
    order = np.lexsort((*doc.sort_keys(), doc_query))
    doc, doc_query, doc_line = doc.take(order).compact(), doc_query[order], doc_line[order]
    where = np.empty(len(order), dtype=np.int32 if len(order) < 2 ** 31 else np.int64)
    where[order] = np.arange(len(order))
    doc_of_line = where[inverse.reshape(-1)][_taken(lines.doc_ref)]
    q = q_rank[_taken(lines.query)]
    sub_index, names = _subtopic_index(q, _taken(lines.sub), subtopics.names, len(queries.names))
    del q
    judgment, line = _taken(lines.judgment), _taken(lines.line)
    width = int(sub_index.max()) + 1
    key = doc_of_line.astype(np.int32 if len(doc_query) * width < 2 ** 31 else np.int64) * width + sub_index
    order = np.argsort(key, kind="stable")  # by document, then subtopic; a pair twice in the file's order
    key, sub_index, judgment, line = key[order], sub_index[order], judgment[order], line[order]
    doc_of_line = doc_of_line[order]
    del order
    qids = sorted(queries.names, key=lambda n: n.encode("utf-8"))
    _no_twice(key, (doc_of_line, sub_index, line), doc, doc_query, names, qids, name)
    doc_offsets = np.searchsorted(doc_of_line, np.arange(len(doc_query) + 1)).astype(np.int64)
    best = np.maximum(np.maximum.reduceat(judgment, doc_offsets[:-1]), 0).astype(np.int64) if len(judgment) else \
        np.zeros(0, np.int64)
    q_offsets = np.searchsorted(doc_query, np.arange(len(queries.names) + 1)).astype(np.int64)
    qrels = Qrels(name, qids, q_offsets, doc, best, doc_line.astype(np.int64))
    return DiversityQrels(qrels, names, doc_offsets, sub_index, judgment, line)


def _subtopic_index(q: np.ndarray, sub: np.ndarray, sub_names: list, n_queries: int):
    """The index of every line's subtopic among its query's (whole numbers numerically, before the others
    in byte order), and each query's subtopic names in that order."""
    def key(i):
        n = sub_names[i]
        return (0, int(n), n.encode("utf-8")) if n.isdigit() and n.isascii() else (1, 0, n.encode("utf-8"))

    ordered = sorted(range(len(sub_names)), key=key)
    rank = np.empty(len(sub_names), dtype=np.int64)
    rank[ordered] = np.arange(len(ordered))
    width = len(sub_names)
    code = q.astype(np.int64) * width + rank[sub]
    if n_queries * width > 1 << 26:  # subtopic names of their own per query: the pairs that occur
        pairs, index = np.unique(code, return_inverse=True)
        start = np.searchsorted(pairs // width, pairs // width)
        by_rank = np.argsort(rank)
        names = [[] for _ in range(n_queries)]
        for p_q, r in zip((pairs // width).tolist(), (pairs % width).tolist()):
            names[p_q].append(sub_names[by_rank[r]])
        return (np.arange(len(pairs)) - start)[index.reshape(-1)].astype(np.int32), names
    used = np.zeros(n_queries * width, dtype=bool)
    used[code] = True
    index = (np.cumsum(used.reshape(n_queries, width), axis=1) - 1).reshape(-1)
    by_rank = np.argsort(rank)
    names = [[sub_names[by_rank[r]] for r in np.flatnonzero(row).tolist()] for row in used.reshape(n_queries, width)]
    return index[code].astype(np.int32), names


def _no_twice(key, per_line: tuple, doc, doc_query, names, qids, name) -> None:
    """A (qid, subtopic, docno) judged twice is an error at its second line (``key`` sorted, pairs in the
    file's order; ``per_line``: each judgment's document, subtopic index and line, in that order)."""
    doc_of_line, sub_index, line = per_line
    twice = np.flatnonzero(key[1:] == key[:-1])
    if len(twice):
        first, second = twice[0], twice[0] + 1
        d = int(doc_of_line[first])
        q = int(doc_query[d])
        raise DataError(f"docno {shown(doc[d])} judged twice for subtopic {names[q][int(sub_index[first])]} of "
                        f"query {qids[q]} (first at line {line[first]})", name, int(line[second]))
