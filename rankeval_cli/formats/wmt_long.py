"""WMT metric score files (``wmt_scores``) in long form, keyed by test-set segment number.

For one language pair, each metric of a file becomes a :class:`sysseg.LongScores`:
rows of one test set and one reference set, the segment given by its test-set
number. How that number is found depends on the layout:

* WMT20-21 segment files (``METRIC LP TESTSET REFSET SYSTEM DOCID SEGID SCORE``)
  count SEGID within each document: the number comes from the test-set index
  (``details.LP.txt``, :mod:`testset_index`) by (LP, TESTSET, DOCID, SEGID). A
  file of this layout without an index, or a segment the index lacks, is an error.
* WMT10-19 segment files number segments within the test set: SEGID is the number.
* System-level files: segment 0.

The test set is the one asked for (the human scores' test set) or the only one
in the file; the reference set is the one named like the test set unless
``refset`` names another (the choice is reported when there are several), as
``convert --scores`` chooses it. System ids are matched after
:func:`wmtids.system_key`.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..errors import DataError
from .sysseg import LongScores
from .wmt_scores import ScoreTable, load_scores
from .wmtids import system_keys


def wmt_long_scores(path, lps, index=None, testsets: dict | None = None, refset: str | None = None,
                    report: Callable[[str], None] | None = None) -> tuple[str, dict[str, dict[str, LongScores]]]:
    """(level ``seg`` or ``sys``, {lp: {metric: LongScores}}) from one WMT score file, read once.

    ``testsets`` maps an lp to the test set wanted (default: the only one in the file).
    """
    report = report or (lambda message: None)
    table = load_scores(path, lps=list(lps))
    level = "seg" if table.layout.startswith("seg") else "sys"
    out: dict[str, dict[str, LongScores]] = {}
    lp_of_row = table.texts("lp") if table.n_rows else np.empty(0, dtype=object)
    for lp in lps:
        rows = np.flatnonzero(lp_of_row == lp)
        if len(rows):
            out[lp] = _metrics_of(table, rows, lp, index, (testsets or {}).get(lp), refset, report)
    return level, out


def _metrics_of(table: ScoreTable, rows, lp, index, testset, refset, report) -> dict[str, LongScores]:
    rows = _choose_rows(table, rows, lp, testset, refset, report)
    segments = _segment_numbers(table, rows, lp, index)
    out = {}
    metric = table.texts("metric", rows)
    for name in dict.fromkeys(metric.tolist()):
        mine = metric == name
        chosen = rows[mine]
        out[name] = LongScores(name=name, source=table.source, system=system_keys(table.texts("system", chosen)),
                               segment=segments[mine], value=table.score[chosen], line=table.line[chosen])
    return out


def _choose_rows(table: ScoreTable, rows, lp: str, testset, refset, report) -> np.ndarray:
    testsets = table.texts("testset", rows)
    present = list(dict.fromkeys(testsets.tolist()))
    if testset is None:
        if len(present) > 1:
            raise DataError(f"{lp} is scored on several test sets ({', '.join(present)}); "
                            "name the human scores' test set", table.source)
        testset = present[0]
    if testset not in present:
        raise DataError(f"no {lp} scores for test set {testset} (the file has {', '.join(present)})",
                        table.source)
    rows = rows[testsets == testset]
    if "refset" not in table.codes:
        return rows
    refsets = table.texts("refset", rows)
    have = list(dict.fromkeys(refsets.tolist()))
    chosen = refset or (have[0] if len(have) == 1 else testset)
    if chosen not in have:
        raise DataError(f"{lp} {testset} is scored against reference sets {', '.join(have)}"
                        + (f", not {refset}" if refset else ", none named like the test set; choose one"),
                        table.source)
    if len(have) > 1:
        report(f"{table.source}: {lp} {testset} has reference sets {', '.join(have)}; using {chosen}")
    return rows[refsets == chosen]


def _segment_numbers(table: ScoreTable, rows: np.ndarray, lp: str, index) -> np.ndarray:
    if not table.layout.startswith("seg"):
        return np.zeros(len(rows), dtype=np.int64)
    segids = table.texts("segment", rows)
    if "docid" not in table.codes:
        bad = [i for i, s in enumerate(segids.tolist()) if not s.strip().isdigit()]
        if bad:
            raise DataError(f"SEGID {segids[bad[0]]!r} is not a segment number", table.source,
                            int(table.line[rows[bad[0]]]))
        return segids.astype(np.int64)
    if index is None:
        raise DataError("this file numbers segments within documents (DOCID, SEGID); joining it with "
                        "test-set segment numbers needs the test-set index (details.LP.txt)",
                        table.source, int(table.line[rows[0]]) if len(rows) else None)
    numbers = index.lookup(lp, table.texts("testset", rows), table.texts("docid", rows), segids)
    missing = np.flatnonzero(numbers < 0)
    if len(missing):
        row = rows[missing[0]]
        raise DataError(f"{lp} document {table.texts('docid', [row])[0]} segment "
                        f"{table.texts('segment', [row])[0]} is not in the test-set index "
                        f"({', '.join(index.sources)})", table.source, int(table.line[row]))
    return numbers
