"""Document groups for the fairness measures (``--doc-groups FILE``): a tab-separated file with a
header, a ``docno`` column and one column per grouping (``group`` by default, as ir_measures'
``group_col``), one line per document:

    docno	group	language
    d1	A	en
    d2	B	de

Blank lines are skipped; a docno twice, a line with another number of fields or an empty group is
an error at its line. A document's groups hold for every query.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import DataError
from .byteids import ByteIds, same
from .trec.join import HashIndex


@dataclass
class DocGroups:
    """``docno`` the documents; ``columns[name]`` each one's group (str) in that grouping."""

    source: str
    docno: ByteIds
    columns: dict

    def find(self, docnos: ByteIds) -> np.ndarray:
        """The row of each docno in this table, −1 where it has none."""
        if not len(docnos) or not len(self.docno):
            return np.full(len(docnos), -1, dtype=np.int64)
        k = max(self.docno.key_words, docnos.key_words)
        mine, theirs = self.docno.words(k), docnos.words(k)
        cand = HashIndex(self.docno.hash(None, mine)).find(docnos.hash(None, theirs))
        hit = np.flatnonzero(cand >= 0)
        real = same(self.docno, cand[hit], docnos, hit, mine, theirs)
        out = np.full(len(docnos), -1, dtype=np.int64)
        out[hit[real]] = cand[hit[real]]
        return out

    def column(self, name: str) -> list:
        if name not in self.columns:
            raise DataError(f"no column {name!r} of document groups (it has {', '.join(self.columns)})", self.source)
        return self.columns[name]


def read_doc_groups(source) -> DocGroups:
    """Read a document-groups file (module docstring)."""
    from ..inputs import iter_lines, source_name

    name = source_name(source)
    header, docnos, rows = None, [], []
    for line, text in iter_lines(source, skip_blank=True):
        fields = text.split("\t")
        if header is None:
            header = fields
            if "docno" not in header or len(set(header)) < len(header):
                raise DataError("the header names a docno column and each grouping once (docno<TAB>group)", name,
                                line)
            continue
        if len(fields) != len(header) or any(f == "" for f in fields):
            raise DataError(f"expected {len(header)} fields ({' '.join(header)}), found {len(fields)} or an empty one",
                            name, line)
        docnos.append(fields[header.index("docno")].encode("utf-8"))
        rows.append((line, fields))
    if header is None or not rows:
        raise DataError("no document groups: the file is empty", name)
    unique, first = np.unique(np.array(docnos, dtype=object), return_index=True)
    if len(unique) < len(docnos):
        twice = sorted(set(range(len(docnos))) - set(first.tolist()))[0]
        raise DataError(f"docno {docnos[twice].decode()} twice", name, rows[twice][0])
    columns = {h: [fields[i] for _, fields in rows] for i, h in enumerate(header) if h != "docno"}
    return DocGroups(name, ByteIds.of(docnos), columns)
