"""Filling ``pred`` from a WMT segment-level metric score file (``convert --scores``).

An item matches a score row when all of these agree:

* language pair: the item's ``lp`` column and the file's LP, both as ``xx-yy``;
* segment: the item's ``segment`` column and the file's SEGID - or, in WMT20-21
  files, ``DOCID::SEGID`` (the form of the DA ``SEGID`` and the WMT20 DARR ``SID``);
* system: both ids after :func:`wmtids.system_key` (a leading test-set component and
  the language pair next to it or at the end are stripped:
  ``newstest2015.online-B.0.de-en`` and ``newstest2013.fr-en.KIT_primary.2658``
  become ``online-B.0`` and ``KIT_primary.2658``);
* test set: when the item has a non-empty ``testset`` equal to one in the file;
  otherwise the match on the three keys above is used if it is unique.

Where the file scores one segment against several references (WMT20 en-de:
REFSET ``newstest2020``, ``newstestB2020``, ``newstestP2020``) the reference set
named like the test set is used unless ``refset`` names another; the choice is
reported. A file with several metrics needs ``metric``.

pred = -score when higher scores are better (``higher_better``), +score otherwise,
so lower pred is better as everywhere in rankeval. Items without a score get an
empty pred and are counted through ``report``; ``strict`` makes the first one a
DataError at the item's file and line. The score file is read only for the
language pairs the stream needs (a new pass when a batch brings a new one, at
most four), into a dict keyed by (lp, testset, segment, system).
"""

from __future__ import annotations

from typing import Callable, Iterable, Iterator

import numpy as np

from ..batch import Batch
from ..errors import DataError
from .wmt_scores import ScoreTable, load_scores
from .wmtids import normalize_lps, system_key, system_keys

_AMBIGUOUS = object()


def join_scores(batches: Iterable[Batch], path, higher_better: bool = True, strict: bool = False,
                report: Callable[[str], None] | None = None, refset: str | None = None,
                metric: str | None = None) -> Iterator[Batch]:
    """Pass batches through with ``pred`` taken from the metric scores in ``path``."""
    report = report or _warn
    index = ScoreIndex(path, refset=refset, metric=metric, report=report)
    missing = total = 0
    example = None
    for batch in batches:
        score, found = index.lookup(batch)
        absent = np.flatnonzero(~found)
        if len(absent):
            if strict:
                raise DataError(index.describe_missing(batch, int(absent[0])), *batch.row_location(int(absent[0])))
            missing += len(absent)
            example = example or index.describe_missing(batch, int(absent[0]))
        total += batch.n_rows
        yield batch.with_values(pred=-score if higher_better else score)
    if total and missing == total:
        raise DataError(f"no item matched a score in this file (language pair, segment, system and test set "
                        f"must agree); first unmatched: {example}", index.name)
    if missing:
        report(f"{missing} of {total} items have no score in {index.name} (pred left empty); first: {example}")


class ScoreIndex:
    """Segment scores by (lp, testset, segment, system key) for the language pairs asked for.

    Each batch that brings a new lp reads the file again for its new lps only; after
    ``PASSES`` such reads the next one loads every lp left, so a file is read at most
    ``PASSES + 1`` times (once for a stream of one lp).
    """

    PASSES = 3

    def __init__(self, path, refset: str | None = None, metric: str | None = None, report=None):
        self.path, self.refset, self.metric, self.report = path, refset, metric, report or _warn
        self.name = str(path)
        self.exact: dict = {}
        self.loose: dict = {}
        self.ready: set = set()  # lps asked for and loaded
        self.present: set = set()  # lps the file has scores for
        self.complete = False  # the whole file has been loaded
        self.passes = 0

    def lookup(self, batch: Batch) -> tuple[np.ndarray, np.ndarray]:
        """Scores of the batch's items (NaN where absent) and a found mask."""
        for column in ("lp", "segment"):
            if column not in batch.extra:
                raise DataError(f"the input has no {column!r} column to match metric scores on "
                                "(read it with --from wmt-rr, darr or wmt-da)", *batch.row_location(0))
        lps = normalize_lps(batch.extra["lp"])
        new = set(lps.tolist()) - self.ready
        if new and not self.complete:
            self._load(new if self.passes < self.PASSES else None)
        self.ready |= new
        testsets = batch.extra.get("testset", np.full(batch.n_rows, "", dtype=object)).tolist()
        systems = system_keys(batch.item).tolist()
        segments = batch.extra["segment"].tolist()
        score = np.full(batch.n_rows, np.nan)
        found = np.zeros(batch.n_rows, dtype=bool)
        for row, key in enumerate(zip(lps.tolist(), testsets, segments, systems)):
            value = self.exact.get(key) if key[1] else None
            if value is None:
                value = self.loose.get((key[0], key[2], key[3]))
            if value is not None and value is not _AMBIGUOUS:
                score[row], found[row] = value, True
        return score, found

    def _load(self, lps: set | None) -> None:
        """Read the file for ``lps`` (None: every lp not loaded yet) and index its rows."""
        table = load_scores(self.path, lps=lps)
        self.passes += 1
        self.name = table.source
        self.complete = lps is None
        if not table.layout.startswith("seg"):
            raise DataError(f"a system-level score file ({table.layout}); --scores needs segment-level scores",
                            self.name)
        rows = self._metric_rows(table)
        codes = table.codes["lp"][rows]
        for code in np.unique(codes).tolist():
            lp = table.vocab["lp"][code]
            if lp not in self.present:
                self.present.add(lp)
                self._index(table, lp, rows[codes == code])

    def _metric_rows(self, table: ScoreTable) -> np.ndarray:
        names = table.vocab["metric"]
        used = sorted({names[c] for c in np.unique(table.codes["metric"]).tolist()})
        if self.metric is None:
            if len(used) > 1:
                raise DataError(f"the score file holds several metrics ({', '.join(used)}); choose one with --metric",
                                self.name)
            return np.arange(table.n_rows)
        if self.metric not in used and used:
            raise DataError(f"metric {self.metric!r} is not in the score file (it has {', '.join(used)})",
                            self.name)
        return np.flatnonzero(table.texts("metric") == self.metric)

    def _index(self, table: ScoreTable, lp: str, rows: np.ndarray) -> None:
        rows = self._choose_refset(table, lp, rows)
        testsets = table.texts("testset", rows).tolist()
        segments = table.texts("segment", rows)
        if "docid" in table.codes:
            segments = table.texts("docid", rows) + "::" + segments
        systems = [system_key(s) for s in table.texts("system", rows).tolist()]
        values = table.score[rows].tolist()
        lines = table.line[rows].tolist()
        for testset, segment, system, value, line in zip(testsets, segments.tolist(), systems, values, lines):
            key = (lp, testset, segment, system)
            if key in self.exact:
                raise DataError(f"a second score for system {system}, segment {segment}, {lp} {testset}",
                                self.name, line)
            self.exact[key] = value
            loose = (lp, segment, system)
            self.loose[loose] = _AMBIGUOUS if loose in self.loose else value

    def _choose_refset(self, table: ScoreTable, lp: str, rows: np.ndarray) -> np.ndarray:
        if "refset" not in table.codes:
            return rows
        refsets = table.texts("refset", rows)
        testsets = table.texts("testset", rows)
        keep = np.zeros(len(rows), dtype=bool)
        for testset in dict.fromkeys(testsets.tolist()):
            mine = testsets == testset
            present = list(dict.fromkeys(refsets[mine].tolist()))
            chosen = self.refset or (present[0] if len(present) == 1 else testset)
            if chosen not in present and not self.refset:
                raise DataError(f"{lp} {testset} is scored against reference sets {', '.join(present)}, "
                                "none named like the test set; choose one with --refset", self.name)
            if chosen not in present:
                self.report(f"{self.name}: {lp} {testset} has no reference set {chosen} "
                            f"(only {', '.join(present)}); its items get no score")
            elif len(present) > 1:
                self.report(f"{self.name}: {lp} {testset} has reference sets {', '.join(present)}; "
                            f"using {chosen}")
            keep |= mine & (refsets == chosen)
        return rows[keep]

    def describe_missing(self, batch: Batch, row: int) -> str:
        lp = batch.extra["lp"][row]
        known = "" if normalize_lps(np.array([lp], dtype=object))[0] in self.present else \
            f" (the file has no {lp} scores at all)"
        return (f"no score in {self.name} for system {batch.item[row]}, segment {batch.extra['segment'][row]}, "
                f"{lp}{known}")


def _warn(message: str) -> None:
    from ..messages import warn

    warn(message)
