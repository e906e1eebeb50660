"""trec_eval's preference judgments: ``prefs`` (``qid jg jsg docno level``: within a judgment
sub-group, a document is preferred to every one of a lower level) and ``qrels_prefs`` (a
qrels file, ``qid jg docno level``, each judgment group one sub-group), as its
``get_prefs.c`` and ``get_qrels_prefs.c`` read them; levels are numbers."""

from __future__ import annotations

from dataclasses import dataclass

from ...inputs import source_name
from .lines import field_lines, number, text_id

PREFS_FIELDS = ("qid", "jg", "jsg", "docno", "level")
QRELS_PREFS_FIELDS = ("qid", "jg", "docno", "level")


@dataclass
class Preferences:
    """Per query (sorted by id bytes) its lines: (jg, jsg, level, docno), ids as bytes."""

    source: str
    qids: list
    lines: list


def read_prefs(source, qrels_layout: bool = False) -> Preferences:
    name = source_name(source)
    rows = []
    width, what = (4, QRELS_PREFS_FIELDS) if qrels_layout else (5, PREFS_FIELDS)
    for line, fields in field_lines(source, width, what):
        if qrels_layout:
            qid, jg, docno, level = fields
            jsg = b"0"
        else:
            qid, jg, jsg, docno, level = fields
        rows.append((qid, docno, line, (jg, jsg, number(level, "level", name, line), docno)))
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    qids, lines = [], []
    for qid, _, line, entry in rows:
        if not qids or qids[-1][0] != qid:
            qids.append((qid, text_id(qid, "query id", name, line)))
            lines.append([])
        lines[-1].append(entry)
    return Preferences(name, [q for _, q in qids], lines)
