"""Appraise's CSV exports of direct assessments (DA, DA+SQM, ESA), one judgment per line.

Appraise (Federmann 2012; AppraiseDev/Appraise) writes the scores of a campaign
with ``ExportSystemScoresToCSV`` (``get_system_data`` of its result models), no
header, comma-separated, fields quoted only where they hold a comma::

    user, system, item, type, source language, target language, score      (segment tasks)
      [, start time, end time] [, batch number, item id]
    user, system, item, type, source language, target language, score,
      document id, complete document (True/False) [, error spans]
      [, start time, end time] [, batch number, item id]                    (document tasks)

as WMT19-24 released them (e.g. ``WMT22.Appraise.SegLvlLivSrc...csv``, WMT23's
11-field ``scores_all.csv``, WMT24's ``esa_generalMT2024_wave*.csv``). The layout
is told apart by the ninth field: ``True``/``False`` in the document layouts. A
first line whose score field is not a number and whose fourth field names the type
(``itemType``) is a header and skipped.

Item types: ``TGT`` (a system output), ``CHK`` (a repeat of an earlier item, for
quality control), ``BAD`` (a deliberately degraded output) and ``REF`` (a
reference shown as a system output). ``item_types`` keeps TGT and CHK, the rows
Appraise's ``ComputeWMT21Results``/``ComputeWMT23Results`` rank from; the rows of
other types left out are counted on stderr. WMT22-24's own scripts kept TGT only
(``--item-types TGT``).

Stream: one group per judgment (a judge scores one output of one segment, as a
relative ranking is one group per ranking), group id ``lp:segment:line``, the
system as item, gold = −score (lower = better, as every converted stream; the
score text is kept in ``score``). Extra columns: ``lp`` (``xx-yy``), ``segment``
(``DOCUMENT::ITEM`` in document tasks, where item ids count within a document,
else the item id), ``judge``, ``type``, ``score``; document tasks add ``docid``
and ``document`` (the ``True``/``False`` field: a score of the whole document,
kept as Appraise keeps it); ``start_time`` and ``end_time`` when present. Error
spans and batch fields are not carried. Repeated judgments stay separate rows.

Document tasks only: ``exclude_documents`` (shell-style patterns of the document id,
e.g. ``*#incomplete*`` and ``*#dup*``, the filler documents WMT24 left out) drops rows,
counted on stderr; ``documents`` (WMT's ``documents/LP.docs`` files: ``DOMAIN<TAB>DOCID``
per segment, as in wmt-conference/wmt24-news-systems) adds a ``domain`` column, the
domain of the row's document. Appraise names the quality-control copies of a document
``DOCID#bad``, ``DOCID#dup`` or ``DOCID#incomplete``; a document id not in the files is
looked up without its ``#`` suffix; rows of a document not found either way get an
empty domain (counted on stderr), which ``aggregate --protocol wmt24`` refuses.
"""

from __future__ import annotations

import collections
from typing import Callable, Iterator

import numpy as np

from ..batch import BATCH_ROWS, Batch, offsets_from_sizes
from ..errors import DataError
from ..inputs import iter_lines, source_name
from .columns import is_number
from .wmt_rr import split_csv
from .wmtids import lp_of

#: item types kept by default: what Appraise's ComputeWMT21Results ranks from.
DEFAULT_TYPES = ("TGT", "CHK")
SEGMENT_FIELDS = 7
_BOOL = ("True", "False")


def read_appraise(source, item_types=DEFAULT_TYPES, report: Callable[[str], None] | None = None,
                  documents=None, exclude_documents=()) -> Iterator[Batch]:
    """Stream one-judgment groups from an Appraise score export (module doc)."""
    name = source_name(source)
    keep = _types(item_types)
    selection = _Documents(documents, exclude_documents)
    left_out: collections.Counter = collections.Counter()
    numbers: list = []
    rows: list = []
    layout = None
    for number, text in iter_lines(source):
        if not text or text.isspace():
            continue
        fields = split_csv(text, name, number)
        if layout is None:
            if _is_header(fields):
                continue
            layout = _Layout.of(fields, name, number)
            selection.check(layout, name, number)
        if len(fields) != layout.width:
            raise DataError(f"expected {layout.width} fields as on the first line, found {len(fields)}",
                            name, number)
        numbers.append(number)
        rows.append(fields)
        if len(rows) >= BATCH_ROWS:
            yield from _batch(rows, numbers, layout, keep, left_out, name, selection)
            numbers, rows = [], []
    if rows:
        yield from _batch(rows, numbers, layout, keep, left_out, name, selection)
    if selection.dropped:
        (report or _warn)(f"{name}: left out {selection.dropped} rows of documents matching --exclude-documents "
                          f"{' '.join(selection.patterns)}")
    if selection.unknown:
        (report or _warn)(f"{name}: {selection.unknown} rows of documents not in the --documents files (e.g. "
                          f"{selection.first_unknown!r}) have an empty domain")
    if left_out:
        counts = ", ".join(f"{n} {t}" for t, n in sorted(left_out.items()))
        (report or _warn)(f"{name}: left out {counts} rows (item types not in --item-types "
                          f"{','.join(sorted(keep))})")


def _types(item_types) -> frozenset:
    if isinstance(item_types, str):
        item_types = item_types.split(",")
    keep = frozenset(t.strip().upper() for t in item_types if t.strip())
    if not keep:
        raise ValueError("--item-types names no item type (e.g. TGT,CHK)")
    return keep


def _is_header(fields: list[str]) -> bool:
    return len(fields) >= SEGMENT_FIELDS and not is_number(fields[6]) and "type" in fields[3].lower()


class _Layout:
    """Where the optional fields of one export sit (the layout of its first line)."""

    def __init__(self, width: int, document: bool, spans: bool, times: bool):
        self.width, self.document, self.spans, self.times = width, document, spans, times

    @classmethod
    def of(cls, fields: list[str], name: str, number: int) -> "_Layout":
        width = len(fields)
        if width < SEGMENT_FIELDS:
            raise DataError(f"expected at least {SEGMENT_FIELDS} comma-separated fields (user, system, item, "
                            f"type, source language, target language, score), found {width}", name, number)
        document = width >= 9 and fields[8] in _BOOL
        rest = fields[9:] if document else fields[7:]
        spans = document and bool(rest) and not is_number(rest[0])
        if spans:
            rest = rest[1:]
        if len(rest) not in (0, 2, 4) or not all(is_number(f) for f in rest):
            raise DataError(f"not an Appraise score export: {width} fields, expected 7, 9 or 11 (segment "
                            "tasks) or 9 to 14 with a document id and True/False (document tasks)", name, number)
        return cls(width, document, spans, len(rest) >= 2)

    @property
    def time_fields(self) -> int:
        return (10 if self.spans else 9) if self.document else 7


def _batch(rows: list, numbers: list, layout: _Layout, keep: frozenset, left_out, name: str,
           selection: "_Documents"):
    """The kept rows of a run of lines as one batch (none if every row was left out)."""
    from .columns import parse_numbers

    table = np.empty((len(rows), layout.width), dtype=object)
    table[:] = rows
    kind = _objects([k.upper() for k in table[:, 3].tolist()])
    kept = np.isin(kind, list(keep))
    if not kept.all():
        left_out.update(kind[~kept].tolist())
    if layout.document and selection.patterns:
        kept[kept] = selection.kept(table[kept, 7])
    table, kind = table[kept], kind[kept]
    if not len(table):
        return
    lines = np.asarray(numbers, dtype=np.int64)[kept]
    for column, label in ((0, "user"), (1, "system"), (2, "item")):
        _first_bad(table[:, column] == "", f"empty {label} id", lines, name)
    judge, system, item, score = table[:, 0], table[:, 1], table[:, 2], table[:, 6]
    values = parse_numbers(score.tolist(), "score", name, lines)
    _first_bad(~np.isfinite(values), "score is not a finite number", lines, name)
    lp = _objects([lp_of(src, tgt) for src, tgt in zip(table[:, 4].tolist(), table[:, 5].tolist())])
    extra = {"lp": lp, "segment": item, "judge": judge, "type": kind, "score": score}
    if layout.document:
        docid, document = table[:, 7], table[:, 8]
        _first_bad(~np.isin(document, _BOOL), "expected True or False in field 9 (complete document)", lines, name)
        extra.update(segment=_objects([f"{d}::{i}" for d, i in zip(docid.tolist(), item.tolist())]), docid=docid,
                     document=document)
        if selection.domain_of is not None:
            extra["domain"] = selection.domains(docid)
    if layout.times:
        extra.update(start_time=table[:, layout.time_fields], end_time=table[:, layout.time_fields + 1])
    group = _objects([f"{l}:{s}:{n}" for l, s, n in zip(lp.tolist(), extra["segment"].tolist(), lines.tolist())])
    n = len(table)
    yield Batch(group=group, offsets=offsets_from_sizes(np.ones(n, dtype=np.int64)), item=system, gold=-values,
                pred=np.full(n, np.nan), extra=extra, line=lines, source=name)


class _Documents:
    """The document options: ids dropped by pattern, and the domain of each document."""

    def __init__(self, documents, exclude_documents):
        if isinstance(documents, (str, bytes)):
            documents = [documents]
        self.domain_of = read_documents(documents) if documents else None
        self.patterns = tuple(exclude_documents or ())
        self.dropped = self.unknown = 0
        self.first_unknown: str | None = None

    def check(self, layout: _Layout, name: str, number: int) -> None:
        if not layout.document and (self.patterns or self.domain_of is not None):
            raise DataError("--exclude-documents and --documents need a document-task export (a document id "
                            "and True/False after the score)", name, number)

    def kept(self, docid: np.ndarray) -> np.ndarray:
        """False for the rows whose document matches an --exclude-documents pattern (counted)."""
        if not self.patterns:
            return np.ones(len(docid), dtype=bool)
        from fnmatch import fnmatchcase

        if not len(docid):
            return np.ones(0, dtype=bool)
        uniques, inverse = np.unique(docid.astype(str), return_inverse=True)
        out = np.array([not any(fnmatchcase(u, p) for p in self.patterns) for u in uniques.tolist()],
                       dtype=bool)[inverse.ravel()]
        self.dropped += int((~out).sum())
        return out

    def domains(self, docid: np.ndarray) -> np.ndarray:
        """The domain of each row's document (its id without a #suffix when the id itself is unknown;
        empty, and counted, when neither is in the files)."""
        if not len(docid):
            return _objects([])
        uniques, inverse = np.unique(docid.astype(str), return_inverse=True)
        found = _objects([self.domain_of.get(u) or self.domain_of.get(u.split("#", 1)[0]) or ""
                          for u in uniques.tolist()])[inverse.ravel()]
        unknown = found == ""
        self.unknown += int(unknown.sum())
        if unknown.any() and self.first_unknown is None:
            self.first_unknown = str(docid[np.argmax(unknown)])
        return found


def read_documents(paths) -> dict:
    """``{document id: domain}`` from WMT ``.docs`` files (``DOMAIN<TAB>DOCID`` per segment); a
    document given two domains is an error."""
    domain_of: dict = {}
    for path in paths:
        for number, text in iter_lines(path):
            if not text.strip():
                continue
            fields = text.split("\t")
            if len(fields) != 2 or not all(f.strip() for f in fields):
                raise DataError("expected DOMAIN<TAB>DOCUMENT-ID", source_name(path), number)
            domain, document = fields
            if domain_of.setdefault(document, domain) != domain:
                raise DataError(f"document {document!r} is in domain {domain!r} here and {domain_of[document]!r} "
                                "before", source_name(path), number)
    return domain_of


def _first_bad(bad: np.ndarray, message: str, lines: np.ndarray, name: str) -> None:
    if bad.any():
        raise DataError(message, name, int(lines[np.argmax(bad)]))


def _objects(values) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


def _warn(message: str) -> None:
    from ..messages import warn

    warn(message)
