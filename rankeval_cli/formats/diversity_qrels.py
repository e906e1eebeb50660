"""Diversity qrels, the TREC Web track's subtopic judgments: one line per (query, subtopic,
document), ``qid subtopic docno judgment``, judgment an integer. ndeval reads them (its
``processQrels``), and ir_measures reads them as qrels whose iteration field is the subtopic.

Read as TREC qrels are (:mod:`rankeval_cli.formats.trec`: white space, comment lines, gzip,
exactly four fields), except that a document has a line per subtopic. A (qid, subtopic,
docno) judged twice is an error at its line, as is a judgment that is not an integer. The
subtopics of a query are ordered numerically when they are all integers ≥ 0 (ndeval's subtopic
numbers) and by their bytes otherwise: the order in which their gains are added.

:class:`DiversityQrels` holds them twice: as an ordinary :class:`~.trec.Qrels` with one
judgment per (qid, docno) — the largest of its subtopic judgments, at least 0, so a document
of the diversity qrels is judged — which the TREC join reads, and per judged document its
subtopic judgments.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import DataError
from ..textio import open_binary, read_blocks, source_name
from .byteids import ByteIds
from .trec import Qrels
from .trec_fields import QRELS, check_ids, fields, integers, shown


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

    @property
    def source(self) -> str:
        return self.qrels.source

    @property
    def qids(self) -> list:
        return self.qrels.qids


def read_diversity_qrels(source) -> DiversityQrels:
    """Read a diversity qrels file (module docstring)."""
    name = source_name(source)
    parts = {"qid": [], "sub": [], "doc": [], "judgment": [], "line": []}
    empty = True
    with open_binary(source) as stream:
        for block, first_line in read_blocks(stream, name):
            empty = False
            buf, starts, ends, lines = fields(block, first_line, QRELS, name)
            if len(starts) == 0:
                continue
            check_ids(block, buf, starts, ends, lines, QRELS, name)
            for key, col in (("qid", 0), ("sub", 1), ("doc", 2)):
                parts[key].append(ByteIds.from_fields(buf, starts[:, col], ends[:, col]))
            parts["judgment"].append(integers(buf, starts[:, 3], ends[:, 3], lines, "judgment", name))
            parts["line"].append(lines.all())
    if not parts["qid"]:
        what = "is empty" if empty else "holds only blank or comment lines"
        raise DataError(f"no judgments: the diversity qrels file {what}", name)
    qid, sub, doc = (ByteIds.concat(parts[k]) for k in ("qid", "sub", "doc"))
    judgment, line = np.concatenate(parts["judgment"]), np.concatenate(parts["line"])
    distinct, q_code = qid.unique()
    order = np.lexsort((line, *doc.sort_keys(), q_code))  # by qid, docno (bytes), line
    q_code, doc, sub, judgment, line = q_code[order], doc.take(order).compact(), sub.take(order), judgment[order], \
        line[order]
    new_doc = np.r_[True, (q_code[1:] != q_code[:-1]) | ~doc.adjacent_same()] if len(q_code) > 1 else \
        np.ones(len(q_code), dtype=bool)
    doc_index = np.cumsum(new_doc) - 1
    heads = np.flatnonzero(new_doc)
    subtopics, sub_index = _subtopics(q_code, sub, len(distinct))
    _no_twice(doc_index, sub_index, line, doc, sub, distinct, q_code, name)
    order = np.lexsort((sub_index, doc_index))
    doc_index, sub_index, judgment, j_line = doc_index[order], sub_index[order], judgment[order], line[order]
    n_docs = len(heads)
    best = np.full(n_docs, 0, dtype=np.int64)
    np.maximum.at(best, doc_index, judgment)
    q_of_doc = q_code[heads]
    q_offsets = np.searchsorted(q_of_doc, np.arange(len(distinct) + 1)).astype(np.int64)
    qrels = Qrels(name, distinct.decode(), q_offsets, doc.take(heads).compact(), best, line[heads])
    doc_offsets = np.searchsorted(doc_index, np.arange(n_docs + 1)).astype(np.int64)
    return DiversityQrels(qrels, subtopics, doc_offsets, sub_index.astype(np.int64), judgment, j_line)


def _subtopics(q_code: np.ndarray, sub: ByteIds, n_queries: int):
    """Per query its subtopic names in order (numeric when all are integers ≥ 0), and the index of
    each line's subtopic among its query's."""
    names = sub.decode()
    per_query: list = [dict() for _ in range(n_queries)]
    for q, s in zip(q_code.tolist(), names):
        per_query[q].setdefault(s, None)
    subtopics = []
    for seen in per_query:
        keys = list(seen)
        numeric = all(k.isdigit() and k.isascii() for k in keys)
        keys.sort(key=(lambda k: (int(k), k)) if numeric else (lambda k: k.encode("utf-8")))
        subtopics.append(keys)
    index = [{k: i for i, k in enumerate(keys)} for keys in subtopics]
    sub_index = np.array([index[q][s] for q, s in zip(q_code.tolist(), names)], dtype=np.int64)
    return subtopics, sub_index


def _no_twice(doc_index, sub_index, line, doc, sub, distinct, q_code, name) -> None:
    """A (qid, subtopic, docno) judged twice is an error at its second line."""
    key = doc_index * (int(sub_index.max()) + 1 if len(sub_index) else 1) + sub_index
    order = np.lexsort((line, key))
    twice = np.flatnonzero(key[order][1:] == key[order][:-1])
    if len(twice):
        first, second = order[twice[0]], order[twice[0] + 1]
        raise DataError(f"docno {shown(doc[int(first)])} judged twice for subtopic {shown(sub[int(first)])} of query "
                        f"{shown(distinct[int(q_code[first])])} (first at line {line[first]})", name,
                        int(line[second]))
