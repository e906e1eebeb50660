"""trec_eval's ``qrels_jg`` format: qrels of several judgment groups (users) per query,
``qid jg docno rel`` (rel an integer; negative = in the pool but not judged), read as
trec_eval's ``get_qrels_jg.c`` reads it: lines sorted by query, group and docno (their bytes),
a docno judged twice in one group an error."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import DataError
from ...inputs import source_name
from .lines import field_lines, integer, text_id

FIELDS = ("qid", "jg", "docno", "rel")


@dataclass
class JudgmentGroupQrels:
    """Per query (sorted by id bytes) its groups (sorted), each with docnos (sorted) and grades."""

    source: str
    qids: list  # str
    groups: list  # per query: [(jg bytes, docnos: S array sorted, grades: int64 array)]

    def positive_judgments(self) -> int:
        """Judgments with grade > 0 over every group (trec_eval -c's num_rel)."""
        return int(sum((g > 0).sum() for query in self.groups for _, _, g in query))


def read_qrels_jg(source) -> JudgmentGroupQrels:
    name = source_name(source)
    rows = []
    for line, (qid, jg, docno, rel) in field_lines(source, 4, FIELDS):
        rows.append((qid, jg, docno, integer(rel, "relevance grade", name, line), line))
    rows.sort(key=lambda r: (r[0], r[1], r[2], r[4]))
    qids, groups = [], []
    for i, (qid, jg, docno, grade, line) in enumerate(rows):
        if i and rows[i - 1][:3] == (qid, jg, docno):
            raise DataError(f"docno {docno.decode('utf-8', 'replace')} judged twice in judgment group "
                            f"{jg.decode('utf-8', 'replace')} of query {qid.decode('utf-8', 'replace')} "
                            f"(first at line {rows[i - 1][4]})", name, line)
        if not qids or rows[i - 1][0] != qid:
            qids.append(text_id(qid, "query id", name, line))
            groups.append([])
        if not groups[-1] or groups[-1][-1][0] != jg:
            groups[-1].append((jg, [], []))
        groups[-1][-1][1].append(docno)
        groups[-1][-1][2].append(grade)
    groups = [[(jg, np.array(d, dtype=bytes), np.array(g, dtype=np.int64)) for jg, d, g in query]
              for query in groups]
    return JudgmentGroupQrels(name, qids, groups)
