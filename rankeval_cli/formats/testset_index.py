"""The WMT test-set index (``details.LP.txt`` of the WMT20-21 metrics task).

One tab-separated line per segment of the test set, in test-set order::

    SEGNO  TESTSET  LP  DOCID  DOCSEG
    1      newstest2020  en-de  independent.281139  1

``SEGNO`` numbers the segments within the test set (from 1), ``DOCSEG`` within
their document (from 1). WMT20-21 metric score files name a segment by (DOCID,
SEGID = DOCSEG); Google's MQM scores (Freitag et al. 2021) and the
mt-metrics-eval layout name it by its test-set number or position. This index is
the one correct bridge between the two: joining on SEGID alone pairs segment 1 of
every document with test-set segment 1, without any error unless the join is
checked to be one-to-one (every join in ``sysseg`` is).

The index itself must be one-to-one: a (lp, testset, docid, docseg) or an (lp,
testset, segno) given twice is a :class:`DataError` naming both lines.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import DataError
from ..inputs import iter_lines, source_name
from .wmtids import normalize_lp

FIELDS = ("SEGNO", "TESTSET", "LP", "DOCID", "DOCSEG")


@dataclass
class TestsetIndex:
    """(lp, testset, docid, docseg) -> test-set segment number, from one or more index files."""

    segno: dict = field(default_factory=dict)  # (lp, testset, docid, docseg) -> segno
    where: dict = field(default_factory=dict)  # same key -> (source, line)
    taken: dict = field(default_factory=dict)  # (lp, testset, segno) -> (source, line)
    sources: list = field(default_factory=list)

    @property
    def lps(self) -> set[str]:
        return {key[0] for key in self.segno}

    def add(self, source) -> "TestsetIndex":
        """Read one index file into this index (several files may hold several lps)."""
        name = source_name(source)
        self.sources.append(name)
        seen_any = False
        for number, line in iter_lines(source, skip_blank=True):
            if not line.strip():
                continue
            seen_any = True
            fields = line.split("\t")
            if len(fields) != len(FIELDS):
                raise DataError(f"expected {len(FIELDS)} tab-separated fields ({' '.join(FIELDS)}), "
                                f"found {len(fields)}", name, number)
            segno, testset, lp, docid, docseg = (f.strip() for f in fields)
            if not (segno.isdigit() and docseg.isdigit()) or int(segno) < 1 or int(docseg) < 1:
                raise DataError(f"SEGNO and DOCSEG must be positive integers, found {segno!r} and {docseg!r}",
                                name, number)
            lp = normalize_lp(lp)
            key = (lp, testset, docid, int(docseg))
            if key in self.segno:
                raise DataError(f"{lp} {testset} document {docid} segment {docseg} is indexed twice "
                                f"(first at {_at(self.where[key])})", name, number)
            taken = (lp, testset, int(segno))
            if taken in self.taken:
                raise DataError(f"{lp} {testset} segment number {segno} is indexed twice "
                                f"(first at {_at(self.taken[taken])})", name, number)
            self.segno[key], self.where[key], self.taken[taken] = int(segno), (name, number), (name, number)
        if not seen_any:
            raise DataError("empty test-set index: expected lines SEGNO TESTSET LP DOCID DOCSEG", name, 1)
        return self

    def lookup(self, lp: str, testsets, docids, docsegs) -> np.ndarray:
        """Test-set numbers (int64) of rows given by parallel arrays; -1 where the index has no entry.

        Distinct keys are looked up once, so a score file of 36,000 rows costs a few
        thousand dictionary lookups.
        """
        keys = np.array([f"{t}\x00{d}\x00{s}" for t, d, s in zip(testsets, docids, docsegs)], dtype=object)
        if not len(keys):
            return np.empty(0, dtype=np.int64)
        distinct, inverse = np.unique(keys, return_inverse=True)
        found = np.empty(len(distinct), dtype=np.int64)
        for i, text in enumerate(distinct.tolist()):
            testset, docid, docseg = text.split("\x00")
            found[i] = self.segno.get((lp, testset, docid, int(docseg)) if docseg.isdigit() else None, -1)
        return found[inverse.ravel()]


def read_index(sources) -> TestsetIndex:
    """One :class:`TestsetIndex` from a path or a list of paths."""
    index = TestsetIndex()
    for source in [sources] if isinstance(sources, str) else sources:
        index.add(source)
    return index


def _at(where) -> str:
    return f"{where[0]}:{where[1]}"
