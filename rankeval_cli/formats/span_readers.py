"""Readers of error-span annotations and predictions into a :class:`~.spans.SpanTable`.

* ``mqm``: Google's MQM ratings TSV (google/wmt-mqm-human-evaluation; Freitag et al. 2021):
  ``system doc doc_id seg_id rater source target category severity [comment]``, one row per
  error (``No-error`` rows for clean translations), tab-separated without quoting; the error's
  span is marked ``<v>...</v>`` in the target (or, for source errors, the source), offsets are
  taken in the text without the marks. Key ``(lp, system, seg_id)``.
* ``esa``: WMT24's ESA annotations as JSON lines (wmt-conference/wmt24-news-systems), either one
  annotation per line (``langs line_id tgt system annotator esa_spans ...``) or one segment per
  line (``doc_id`` = ``LP_#_DOMAIN_#_DOC_#_LINE``, ``tgt_text`` and ``scores`` per system, each
  score with its ``annotator`` and ``errors``); a span is ``{start_i, end_i, severity}``, its
  offsets ``"missing"`` for an omission. Key ``(lp, system, line_id)``.
* ``mtme``: google-research/mt-metrics-eval's ratings, ``LP.NAME.seg.rating``: per line
  ``SYSTEM<TAB>RATING[<TAB>RATER]`` or ``SYSTEM<TAB>None``, the k-th line of a system its
  k-th segment, RATING ``{"errors": [{"start", "end", "category", "severity", "score",
  "is_source_error"}]}`` (MTME ``ratings.py``). The translations' lengths come from the
  directory's ``system-outputs/LP/SYSTEM.txt`` (or ``references/LP.REF.txt``) when present.
  Key ``(lp, system, k)``.
* ``wmt25``: the WMT25 error-span task's TSV (its test set, gold references and
  submissions): a header with ``doc_id segment_id source_lang target_lang system_id
  hypothesis_segment start_indices end_indices error_types`` (among others); indices and
  types space-separated, ``no-error`` for none, ``missing`` for an omission. Key ``(lp,
  system_id, DOC_ID#SEGMENT_ID)``.
* ``qe``: the WMT23-24 QE error-span task's TSV: ``LP METHOD SEGNO TARGET STARTS ENDS
  TYPES`` per line (a submission's three first lines give its size; a gold file starts with a
  header), ``-1`` for no span. Key ``(lp, "", SEGNO)``; the predictor's name is METHOD.

Errors name the file and line; an unknown severity, a span outside ``0 <= start <= end``,
a ``<v>`` without ``</v>`` are errors.
"""

from __future__ import annotations

import json
import os
import re

from ..errors import DataError
from ..inputs import iter_lines, source_name
from .spans import Builder, SpanTable, severity
from .wmtids import normalize_lp

FORMATS = ("mqm", "esa", "mtme", "wmt25", "qe")
MQM_COLUMNS = ("system", "doc", "doc_id", "seg_id", "rater", "source", "target", "category", "severity")
WMT25_COLUMNS = ("doc_id", "segment_id", "source_lang", "target_lang", "system_id", "start_indices",
                 "end_indices", "error_types")
_RATING_NAME = re.compile(r"^(?P<lp>[a-z]{2,3}-[a-z]{2,3})\.(?P<name>.+)\.seg\.rating$")


def read_spans(path, fmt: str = "auto", lp: str | None = None, name: str | None = None) -> SpanTable:
    """The annotations of ``path`` in format ``fmt`` (``auto``: told from the name and first line)."""
    where = source_name(path)
    fmt = detect(path) if fmt == "auto" else fmt
    stem = os.path.basename(where).split(".")[0]
    if fmt == "mqm":
        return _mqm(path, where, lp, name or stem)
    if fmt == "esa":
        return _esa(path, where, name or stem)
    if fmt == "mtme":
        return _mtme(path, where, lp, name)
    if fmt == "wmt25":
        return _wmt25(path, where, name or stem)
    return _qe(path, where, name)


def detect(path) -> str:
    """The format of a span file from its name (``.seg.rating``) and first line."""
    where = source_name(path)
    if _RATING_NAME.match(os.path.basename(where)) or where.endswith(".rating"):
        return "mtme"
    for _, text in iter_lines(path, skip_blank=True):
        if text.lstrip().startswith("{"):
            return "esa"
        fields = text.split("\t")
        if set(WMT25_COLUMNS) <= set(fields):
            return "wmt25"
        if set(MQM_COLUMNS) <= set(fields):
            return "mqm"
        return "qe"
    raise DataError("empty span file: cannot tell its format", where)


def unmark(text: str) -> tuple[str, list[tuple[int, int]], bool]:
    """``text`` without its ``<v>...</v>`` marks, the (start, end) of each marked stretch in it, and
    whether the last ``<v>`` is never closed (then its stretch runs to the end of the text: the
    released MQM files have a few such rows)."""
    out, spans, i, length, unclosed = [], [], 0, 0, False
    while True:
        a = text.find("<v>", i)
        stray = text.find("</v>", i)
        if a < 0:
            if stray >= 0:
                raise ValueError("</v> without <v>")
            out.append(text[i:])
            break
        if 0 <= stray < a:
            raise ValueError("</v> without <v>")
        b = text.find("</v>", a + 3)
        if b < 0:
            b, unclosed = len(text), True
        inner = text[a + 3:b]
        if "<v>" in inner:
            raise ValueError("<v> inside <v>")
        length += a - i
        out += [text[i:a], inner]
        spans.append((length, length + len(inner)))
        length += len(inner)
        i = b + 4
        if unclosed:
            break
    return "".join(out), spans, unclosed


def _lp(lp, path, where):
    from .mqm import lp_and_testset

    found = lp or lp_and_testset(os.path.basename(where))[0]
    if found is None:
        raise DataError("cannot tell the language pair from the file name (mqm_TESTSET_xxyy...): give --lp", where)
    return normalize_lp(found)


def _mqm(path, where, lp, name) -> SpanTable:
    lp = _lp(lp, path, where)
    build, columns, unclosed = Builder(name, where), None, 0
    for line, text in iter_lines(path, skip_blank=True):
        fields = text.split("\t")
        if columns is None:
            missing = [c for c in MQM_COLUMNS if c not in fields]
            if missing:
                raise DataError(f"not an MQM ratings file: no {', '.join(missing)} column", where, line)
            columns = {c: fields.index(c) for c in MQM_COLUMNS}
            continue
        if len(fields) < len(MQM_COLUMNS):
            raise DataError(f"{len(fields)} fields, expected at least {len(MQM_COLUMNS)}", where, line)
        get = {c: fields[i] for c, i in columns.items()}
        try:
            target, marked, open_target = unmark(get["target"])
            _, source_marked, open_source = unmark(get["source"])
            level = severity(get["severity"])
        except ValueError as exc:
            raise DataError(str(exc), where, line) from None
        unclosed += open_target or open_source
        key = (lp, get["system"], get["seg_id"])
        ann = build.annotation(key, get["rater"], len(target), line)
        if build.lengths[ann] != len(target):
            raise DataError(f"{get['system']} segment {get['seg_id']}: the target differs from the rater's "
                            f"earlier row (line {build.lines[ann]})", where, line)
        if level is None:
            continue
        category = get["category"]
        for start, end in marked:
            build.span(ann, start, end, level, category)
        for start, end in source_marked:
            build.span(ann, start, end, level, category, on_source=True)
        if not marked and not source_marked:
            build.span(ann, -1, -1, level, category)  # an error without a position (scored, not located)
    if unclosed:
        build.notes.append(f"{where}: {unclosed} row(s) with a <v> never closed: the span runs to the end of "
                           "the text")
    return build.table()


def _esa_spans(build, ann, spans, where, line):
    for span in spans or ():
        try:
            level = severity(span["severity"])
            start, end = span["start_i"], span["end_i"]
        except (KeyError, TypeError, ValueError) as exc:
            raise DataError(f"bad ESA span {span!r}: {exc}", where, line) from None
        if level is None:
            continue
        if start == "missing" or end == "missing":
            start = end = -1
        elif not isinstance(start, int) or not isinstance(end, int) or not 0 <= start <= end:
            raise DataError(f"bad ESA span offsets {start!r}, {end!r}", where, line)
        build.span(ann, start, end, level, span.get("error_type") or "")


def _esa(path, where, name) -> SpanTable:
    build = Builder(name, where)
    for line, text in iter_lines(path, skip_blank=True):
        try:
            record = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DataError(f"not JSON: {exc.msg}", where, line) from None
        if "esa_spans" in record:  # one annotation per line
            key = (normalize_lp(record["langs"]), str(record["system"]), str(record["line_id"]))
            ann = build.annotation(key, str(record.get("annotator", "")), len(record.get("tgt", "")), line)
            _esa_spans(build, ann, record["esa_spans"], where, line)
        elif "scores" in record and "tgt_text" in record:  # one segment per line
            parts = str(record["doc_id"]).split("_#_")
            for system, scores in record["scores"].items():
                key = (normalize_lp(parts[0]), system, parts[-1])
                for score in scores:
                    ann = build.annotation(key, str(score.get("annotator", "")), len(record["tgt_text"][system]), line)
                    _esa_spans(build, ann, score.get("errors"), where, line)
        else:
            raise DataError("neither an ESA annotation (esa_spans) nor a segment (scores, tgt_text)", where, line)
    return build.table()


def _text_lengths(path, where, lp) -> dict:
    """system -> line lengths of its translations, from the mt-metrics-eval directory around ``path``."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(where)))
    out = {}
    for folder, prefix in ((os.path.join(root, "system-outputs", lp), ""), (os.path.join(root, "references"), f"{lp}.")):
        if not os.path.isdir(folder):
            continue
        for file in os.listdir(folder):
            if file.startswith(prefix) and file.endswith(".txt"):
                with open(os.path.join(folder, file), encoding="utf-8") as f:
                    out[file[len(prefix):-4]] = [len(text.rstrip("\n")) for text in f]
    return out


def _mtme(path, where, lp, name) -> SpanTable:
    found = _RATING_NAME.match(os.path.basename(where))
    lp = normalize_lp(lp or (found["lp"] if found else _lp(None, path, where)))
    build = Builder(name or (found["name"] if found else os.path.basename(where)), where)
    lengths, counts = _text_lengths(path, where, lp), {}
    for line, text in iter_lines(path, skip_blank=True):
        fields = text.split("\t")
        if len(fields) not in (2, 3):
            raise DataError(f"{len(fields)} fields, expected SYSTEM, RATING and an optional RATER", where, line)
        system = fields[0]
        counts[system] = k = counts.get(system, 0) + 1
        if fields[1] == "None":
            continue
        known = lengths.get(system)
        length = known[k - 1] if known and k <= len(known) else -1
        ann = build.annotation((lp, system, str(k)), fields[2] if len(fields) == 3 else build.name, length, line)
        try:
            errors = json.loads(fields[1])["errors"]
            for error in errors:
                level = severity(error.get("severity") or "undecided")
                if level is not None:
                    build.span(ann, int(error["start"]), int(error["end"]), level, error.get("category") or "",
                               bool(error.get("is_source_error")))
        except (KeyError, TypeError, ValueError) as exc:
            raise DataError(f"bad rating: {exc}", where, line) from None
    return build.table()


def _indices(starts: str, ends: str, types: str, where, line) -> list[tuple]:
    """(start, end, severity) of space-separated WMT index lists; none for no-error."""
    if types.strip().lower() in ("no-error", ""):
        return []
    s, e, t = starts.split(" "), ends.split(" "), types.split(" ")
    if not len(s) == len(e) == len(t):
        raise DataError(f"{len(s)} starts, {len(e)} ends and {len(t)} error types", where, line)
    out = []
    for a, b, kind in zip(s, e, t):
        try:
            level = severity(kind)
            a, b = (-1, -1) if "missing" in (a, b) else (int(a), int(b))
        except ValueError as exc:
            raise DataError(str(exc) if "severity" in str(exc) else f"bad span offsets {a!r}, {b!r}", where,
                            line) from None
        if level is not None and (a, b) != (-1, -1):
            if not 0 <= a <= b:
                raise DataError(f"bad span offsets {a}, {b}: expected 0 <= start <= end", where, line)
        if level is not None:
            out.append((a, b, level))
    return out


def _wmt25(path, where, name) -> SpanTable:
    import csv
    import io

    from ..inputs import open_binary

    build = Builder(name, where)
    with open_binary(path) as stream:
        rows = csv.reader(io.TextIOWrapper(stream, encoding="utf-8", newline=""), delimiter="\t")
        header = next(rows, None)
        missing = [c for c in WMT25_COLUMNS if c not in (header or [])]
        if missing:
            raise DataError(f"not a WMT25 error-span TSV: no {', '.join(missing)} column", where, 1)
        col = {c: i for i, c in enumerate(header)}
        for fields in rows:
            line = rows.line_num
            if len(fields) != len(header):
                raise DataError(f"{len(fields)} fields, expected {len(header)} (the header's)", where, line)
            get = (lambda c: fields[col[c]])
            hypothesis = get("hypothesis_segment") if "hypothesis_segment" in col else None
            key = (f"{get('source_lang')}-{get('target_lang')}", get("system_id"),
                   f"{get('doc_id')}#{get('segment_id')}")
            ann = build.annotation(key, "", -1 if hypothesis is None else len(hypothesis), line)
            for start, end, level in _indices(get("start_indices"), get("end_indices"), get("error_types"),
                                              where, line):
                build.span(ann, start, end, level)
    return build.table()


def _qe(path, where, name) -> SpanTable:
    build, seen = Builder(name or "", where), 0
    for line, text in iter_lines(path, skip_blank=True):
        fields = text.rstrip("\r").split("\t")
        seen += 1
        if len(fields) == 1 and seen <= 3:
            continue  # a submission's size lines
        if len(fields) != 7:
            raise DataError(f"{len(fields)} fields, expected LP METHOD SEGNO TARGET STARTS ENDS TYPES", where, line)
        if seen == 1 and not fields[2].strip().lstrip("-").isdigit():
            continue  # a header
        lp, method, segno, target = fields[:4]
        build.name = build.name or method
        ann = build.annotation((normalize_lp(lp), "", segno), method, len(target.strip()), line)
        for start, end, level in _indices(fields[4], fields[5], fields[6], where, line):
            if (start, end) != (-1, -1):
                build.span(ann, start, end, level)
    return build.table()
