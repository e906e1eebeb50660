"""Error-span annotations (MQM, ESA) and span predictions, as one columnar table.

An *annotation* is one rater's (or one predictor's) marking of one translation: its key
``(lp, system, segment)``, the rater, the translation's length in characters (Python
``len``, code points, as the WMT scoring scripts count; -1 when the format does not give
the text) and its error spans. A *span* has a start and an end character offset
(end exclusive; -1 for an error without a position, such as ESA's ``missing`` omissions),
a severity (lower case: ``major``, ``minor``, ``critical``, ``neutral``, ``undecided``),
a category (MQM's ``Accuracy/Mistranslation``; empty where the format has none) and
whether it marks the source text rather than the translation.

The readers (:mod:`.span_readers`) fill a :class:`SpanTable` through a :class:`Builder`;
the statistics (:mod:`rankeval_cli.stats.span_scores`,
:mod:`rankeval_cli.stats.metaeval.spans`) take its arrays.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: the severities a span can have; synonyms map to them (:func:`severity`)
SEVERITIES = ("critical", "major", "minor", "neutral", "undecided")
_SYNONYMS = {"no-error": None, "no error": None, "none": None}


def severity(text: str) -> str | None:
    """The canonical severity of ``text`` (case-insensitive); None for "no error"; ValueError otherwise."""
    key = str(text).strip().lower()
    if key in _SYNONYMS:
        return None
    if key not in SEVERITIES:
        raise ValueError(f"unknown severity {text!r} (known: {', '.join(SEVERITIES)}, no-error)")
    return key


@dataclass
class SpanTable:
    """Annotations and their spans (module docstring); ``name`` names the annotator or predictor."""

    name: str
    source: str
    keys: list = field(default_factory=list)  # (lp, system, segment) per annotation
    raters: list = field(default_factory=list)
    lengths: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    lines: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    owner: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # annotation of each span
    start: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    end: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    severity: np.ndarray = field(default_factory=lambda: np.zeros(0, object))
    category: np.ndarray = field(default_factory=lambda: np.zeros(0, object))
    on_source: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    notes: list = field(default_factory=list)  # what the reader chose for the user (for stderr)

    def __len__(self) -> int:
        return len(self.keys)

    @property
    def lps(self) -> list[str]:
        return list(dict.fromkeys(k[0] for k in self.keys))


class Builder:
    """Collects annotations and spans, then :meth:`table` makes the arrays. An annotation is opened
    once per (key, rater); a second opening returns the first (its spans accumulate)."""

    def __init__(self, name: str, source: str):
        self.name, self.source = name, source
        self.index: dict = {}
        self.keys, self.raters, self.lengths, self.lines = [], [], [], []
        self.spans: list[tuple] = []  # (annotation, start, end, severity, category, on_source)
        self.notes: list[str] = []

    def annotation(self, key: tuple, rater: str, length: int, line: int) -> int:
        """The annotation of ``key`` by ``rater`` (opened at ``line`` if new)."""
        found = self.index.get((key, rater))
        if found is None:
            found = self.index[(key, rater)] = len(self.keys)
            self.keys.append(key)
            self.raters.append(rater)
            self.lengths.append(length)
            self.lines.append(line)
        return found

    def span(self, annotation: int, start: int, end: int, severity_: str, category: str = "",
             on_source: bool = False) -> None:
        self.spans.append((annotation, start, end, severity_, category, on_source))

    def table(self) -> SpanTable:
        columns = list(zip(*self.spans)) if self.spans else [[]] * 6
        return SpanTable(self.name, self.source, self.keys, self.raters, np.array(self.lengths, np.int64),
                         np.array(self.lines, np.int64), np.array(columns[0], np.int64),
                         np.array(columns[1], np.int64), np.array(columns[2], np.int64),
                         np.array(columns[3], object), np.array(columns[4], object), np.array(columns[5], bool),
                         self.notes)


def first_rater(table: SpanTable) -> tuple[SpanTable, int]:
    """``table`` with one annotation per key, the first in file order (WMT25's error-span scoring
    takes one annotation per segment), and how many translations had more than one."""
    keep, seen = [], set()
    for i, key in enumerate(table.keys):
        if key not in seen:
            seen.add(key)
            keep.append(i)
    if len(keep) == len(table.keys):
        return table, 0
    new = np.full(len(table.keys), -1, np.int64)
    new[keep] = np.arange(len(keep))
    spans = new[table.owner] >= 0
    counts: dict = {}
    for key in table.keys:
        counts[key] = counts.get(key, 0) + 1
    several = sum(1 for c in counts.values() if c > 1)
    out = SpanTable(table.name, table.source, [table.keys[i] for i in keep], [table.raters[i] for i in keep],
                    table.lengths[keep], table.lines[keep], new[table.owner[spans]], table.start[spans],
                    table.end[spans], table.severity[spans], table.category[spans], table.on_source[spans],
                    table.notes)
    return out, several
