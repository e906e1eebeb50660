"""JCML (QE XML) ranking files, read and written (Avramidis 2013 §4.2; README, Formats).

    <jcml>
      <judgedsentence id="51" langsrc="de" langtgt="en">      one group
        <src>...</src>                                      one or more
        <tgt system="limsi" rank="3" unk="0">...</tgt>      one item each
        <ref>...</ref>                                      optional
      </judgedsentence>
    </jcml>

Reading: group = the ``id`` attribute; an id that is absent or already used by
an earlier group becomes ``<id>#<n>`` (n = 1-based position of the
<judgedsentence> in the file), so repeated judgments of one sentence (common in
WMT files) stay separate groups. Item = the ``system`` attribute; a <tgt>
without one, or repeating one in its group, becomes ``tgt<k>`` (k = its position)
and the original attribute is then kept in ``tgt@system``. Gold = the
``gold_attr`` attribute (``-1``, empty or absent = blank, NaN); pred = the
``pred_attr`` attribute (absent or empty = NaN), negated when
``pred_higher_better``. Every attribute is kept as a text column:

    sentence@A      attribute A of <judgedsentence> (repeated on each row)
    src@A, ref@A    attribute A of the first <src>/<ref>; src2@A, ref2@A, ... later ones
    tgt@A           attribute A of <tgt>
    gold@A          the text of the gold attribute A (so it is written back to A)
    pred@A, score@A the text of the prediction attribute A (score@: higher = better)
    src.text, tgt.text, ref.text (src2.text, ...)   element text, with keep_text

``@`` and ``.text`` cannot occur in an XML attribute name, so no column can
collide with another or with group/item/gold/pred. Text is kept byte for byte
(whitespace included); comments, processing instructions and the indentation
between elements are not data and are not kept. The set of columns is fixed by
a first pass over the input (stdin is spooled to a temporary file), so every
batch has the same columns and bad XML fails before any output.

Safety: no DTD is loaded, no entity is resolved, no network is used, and a
document with a <!DOCTYPE> (any DTD or entity declaration) is refused before the
XML parser sees it. Memory stays flat: each <judgedsentence> is freed once read.
"""

from __future__ import annotations

import codecs
import contextlib
import hashlib
import os
import re
import tempfile
import zlib
from typing import Iterator

import numpy as np

from ..batch import BATCH_ROWS, Batch, offsets_from_sizes
from ..errors import DataError
from ..textio import open_binary, source_name
from .columns import format_numbers

CHUNK_BYTES = 1 << 20
PROLOG_LIMIT = 1 << 20  # bytes allowed before the root element
SPOOL_BYTES = 1 << 24  # stdin kept in memory up to this size, then on disk
BATCH_BYTES = 1 << 24  # a batch also ends after this much XML (rows with long texts or features)
PARSER_OPTIONS = dict(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False,
                      remove_comments=True, remove_pis=True)
DTD_REFUSED = "DTD/entity declarations are not allowed"
CHILDREN = ("src", "tgt", "ref")


def read_jcml(source, gold_attr: str = "rank", pred_attr: str | None = None,
              pred_higher_better: bool = False, keep_text: bool = False) -> Iterator[Batch]:
    """Stream batches of whole <judgedsentence> groups from a JCML file, ``-`` or a binary stream.

    ``gold_attr``/``pred_attr`` name the <tgt> attributes holding gold and predicted
    values, as in the original ``rankeval.py file.jcml <pred_attr> <gold_attr>``.
    """
    name = source_name(source)
    if "system" in (gold_attr, pred_attr):
        raise DataError("the system attribute names the item; it cannot be the gold or pred attribute", name)
    with _replayable(source, name) as reopen:
        with reopen() as stream:
            layout = _scan(_elements(stream, name), name, gold_attr, pred_attr, pred_higher_better, keep_text)
        with reopen() as stream:
            fed = [0]
            yield from _batches(_elements(stream, name, fed), layout, name, fed)


# --- input passes and safe parsing ---------------------------------------------------------------

@contextlib.contextmanager
def _replayable(source, name: str):
    """Yields ``reopen()``, a context manager giving a fresh binary stream for each pass.

    A regular file is opened again; stdin, pipes (``<(zcat f.gz)``) and streams are spooled.
    """
    if isinstance(source, (str, os.PathLike)) and source != "-" and os.path.isfile(source):
        yield lambda: open_binary(source)
        return
    with open_binary(source) as stream, tempfile.SpooledTemporaryFile(SPOOL_BYTES) as spool:
        for chunk in _chunks(stream, name):
            spool.write(chunk)

        @contextlib.contextmanager
        def reopen():
            spool.seek(0)
            yield spool

        yield reopen


def _chunks(stream, name: str) -> Iterator[bytes]:
    while True:
        try:
            chunk = stream.read(CHUNK_BYTES)
        except (EOFError, OSError, zlib.error) as exc:
            raise DataError(f"corrupt or truncated compressed input ({exc})", name) from None
        if not chunk:
            return
        yield chunk


def _elements(stream, name: str, fed: list | None = None) -> Iterator:
    """Each <judgedsentence> element, parsed safely; freed after the consumer is done with it.

    ``fed[0]``, when given, counts the bytes handed to the parser so far.
    """
    from lxml import etree

    fed = [0] if fed is None else fed
    chunks = _chunks(stream, name)
    head = _check_prolog(chunks, name)
    etree.clear_error_log()
    parser = etree.XMLPullParser(events=("start", "end"), tag=("jcml", "judgedsentence"), **PARSER_OPTIONS)
    root = None
    try:
        for chunk in _chain(head, chunks):
            fed[0] += len(chunk)
            parser.feed(chunk)
            for event, elem in parser.read_events():
                if event == "end":
                    if elem is not root:
                        yield elem
                        _free(elem, root, name)
                elif root is None:
                    root = _check_root(elem, name)
                elif elem.tag != "judgedsentence":
                    raise DataError("<jcml> inside the document; there is one <jcml> root", name, elem.sourceline)
                elif elem.getparent() is not root:
                    raise DataError("<judgedsentence> must be a child of <jcml>", name, elem.sourceline)
        root = parser.close()
    except etree.XMLSyntaxError as exc:
        raise _syntax_error(exc, name) from None
    _check_leftovers(root, name)


def _chain(head: bytes, chunks: Iterator[bytes]) -> Iterator[bytes]:
    yield head
    yield from chunks


def _free(elem, root, name: str) -> None:
    """Drop a finished <judgedsentence> and everything before it, so memory stays flat."""
    elem.clear(keep_tail=True)
    while elem.getprevious() is not None:
        _check_stray(root[0], name)
        del root[0]


def _check_stray(node, name: str) -> None:
    if node.tag != "judgedsentence":
        raise DataError(f"unexpected element <{node.tag}> in <jcml>; expected <judgedsentence>", name, node.sourceline)
    if node.tail and not node.tail.isspace():
        raise DataError("text outside any element", name, node.sourceline)


def _check_leftovers(root, name: str) -> None:
    if root.tag != "jcml":
        raise DataError(f"the root element is <{root.tag}>, expected <jcml>", name, root.sourceline)
    if root.text and not root.text.isspace():
        raise DataError("text outside any element", name, root.sourceline)
    for node in root:
        _check_stray(node, name)


def _check_root(elem, name: str):
    """The first start event must be the <jcml> root of a document without a DTD."""
    docinfo = elem.getroottree().docinfo
    if docinfo.doctype or docinfo.internalDTD is not None or docinfo.externalDTD is not None:
        raise DataError(DTD_REFUSED, name, elem.sourceline)
    if elem.getparent() is not None:
        raise DataError(f"the root element is <{elem.getparent().tag}>, expected <jcml>", name, elem.sourceline)
    return elem


def _syntax_error(exc, name: str) -> DataError:
    """The first fatal libxml2 message of this parse, with its line."""
    first = next((e for e in exc.error_log if e.level_name in ("FATAL", "ERROR")), None)
    if first is not None:
        return DataError(f"invalid XML: {_one_line(first.message)}", name, first.line or None)
    return DataError(f"invalid XML: {_one_line(exc.msg)}", name, exc.lineno or None)


def _one_line(message: str) -> str:
    """libxml2 messages end in, and may contain, newlines; errors are one line."""
    return " ".join(str(message).split())


# --- the prolog: refuse DTDs before libxml2 sees them -------------------------------------------------

_BOMS = ((b"\xef\xbb\xbf", "utf-8"), (b"\x00\x00\xfe\xff", "utf-32-be"), (b"\xff\xfe\x00\x00", "utf-32-le"),
         (b"\xfe\xff", "utf-16-be"), (b"\xff\xfe", "utf-16-le"), (b"<\x00?\x00", "utf-16-le"),
         (b"\x00<\x00?", "utf-16-be"))
_NAME = re.compile(r"[^\s/>]+")


def _check_prolog(chunks: Iterator[bytes], name: str) -> bytes:
    """Read up to the root start tag; refuse a DOCTYPE or a root other than <jcml>. Returns the bytes read."""
    head, final = b"", False
    while True:
        if _prolog_done(_decode_head(head), name, final):
            return head
        if final:
            raise DataError("empty input: expected a <jcml> document", name, 1)
        if len(head) > PROLOG_LIMIT:
            raise DataError(f"no <jcml> root element in the first {PROLOG_LIMIT} bytes", name)
        chunk = next(chunks, b"")
        head, final = head + chunk, not chunk


def _decode_head(head: bytes) -> str:
    codec = next((c for bom, c in _BOMS if head.startswith(bom)), "latin-1")
    return codecs.decode(head, codec, errors="replace")


def _prolog_done(text: str, name: str, final: bool) -> bool:
    """True once the root start tag is seen; raises on anything but XML declaration, PIs and comments."""
    pos, n = 0, len(text)
    while True:
        while pos < n and text[pos] in " \t\r\n\ufeff":
            pos += 1
        if n - pos < 10 and not final:
            return False
        if pos >= n:
            return False
        closing = {"<?": "?>", "<!--": "-->"}
        opener = next((o for o in ("<!--", "<?") if text.startswith(o, pos)), None)
        if opener:
            end = text.find(closing[opener], pos + len(opener))
            if end < 0:
                return False
            pos = end + len(closing[opener])
            continue
        line = text.count("\n", 0, pos) + 1
        if text.startswith("<!DOCTYPE", pos):
            end = text.find("]>", pos)
            entity = text.find("<!ENTITY", pos, n if end < 0 else end)
            raise DataError(DTD_REFUSED, name, line if entity < 0 else text.count("\n", 0, entity) + 1)
        match = _NAME.match(text, pos + 1) if text.startswith("<", pos) and not text.startswith("<!", pos) else None
        if match is None:
            raise DataError("not an XML document: expected <jcml>", name, line)
        if match.end() == n and not final:
            return False
        if match.group() != "jcml":
            raise DataError(f"the root element is <{match.group()}>, expected <jcml>", name, line)
        return True


# --- first pass: the columns --------------------------------------------------------------------------

class _Layout:
    """Attribute names per element, in order of first appearance, and the reading options."""

    def __init__(self, gold_attr, pred_attr, pred_higher_better, keep_text):
        self.gold_attr, self.pred_attr = gold_attr, pred_attr
        self.pred_higher_better, self.keep_text = pred_higher_better, keep_text
        self.sentence: dict = {}
        self.tgt: dict = {}
        self.src: list[dict] = []  # one dict per position (src, src2, ...)
        self.ref: list[dict] = []
        self.carry_system = False

    def tgt_columns(self) -> list[tuple[str, str]]:
        """(column, attribute) for the per-row attribute columns, gold and pred carriers in place."""
        names = dict.fromkeys(self.tgt)
        names.pop("system", None)
        names = {self.gold_attr: None, **names} if self.gold_attr not in names else names
        if self.pred_attr and self.pred_attr not in names:
            names[self.pred_attr] = None
        columns = [(_tgt_column(a, self), a) for a in names]
        return ([("tgt@system", "system")] if self.carry_system else []) + columns

    def element_columns(self, tag: str) -> list[tuple[str, int, str | None]]:
        """(column, position, attribute or None for the text) for src or ref."""
        out = []
        for k, names in enumerate(getattr(self, tag)):
            prefix = tag if k == 0 else f"{tag}{k + 1}"
            out += [(f"{prefix}@{a}", k, a) for a in names]
            if self.keep_text:
                out.append((f"{prefix}.text", k, None))
        return out


def _tgt_column(attr: str, layout: _Layout) -> str:
    if attr == layout.gold_attr:
        return f"gold@{attr}"
    if attr == layout.pred_attr:
        return f"{'score' if layout.pred_higher_better else 'pred'}@{attr}"
    return f"tgt@{attr}"


def _scan(elements, name, gold_attr, pred_attr, pred_higher_better, keep_text) -> _Layout:
    """Validate every group and collect the attribute names (the first pass)."""
    layout = _Layout(gold_attr, pred_attr, pred_higher_better, keep_text)
    for elem in elements:
        _add_names(layout.sentence, elem, name)
        _check_text(elem.text, name, elem.sourceline)
        counts = {"src": 0, "ref": 0}
        systems: set = set()
        for child in elem:
            tag = _child_tag(child, name)
            if tag == "tgt":
                _add_names(layout.tgt, child, name)
                system = child.get("system")
                layout.carry_system |= not system or system in systems
                systems.add(system)
            else:
                slots = getattr(layout, tag)
                if counts[tag] == len(slots):
                    slots.append({})
                _add_names(slots[counts[tag]], child, name)
                counts[tag] += 1
        if not systems:
            raise DataError("<judgedsentence> has no <tgt> items", name, elem.sourceline)
    return layout


def _add_names(names: dict, elem, name: str) -> None:
    keys = elem.keys()
    if len(names) < len(keys) or not all(map(names.__contains__, keys)):
        for key in keys:
            if key.startswith("{"):
                raise DataError(f"namespaced attribute {key} is not supported", name, elem.sourceline)
            names.setdefault(key, None)


def _child_tag(child, name: str) -> str:
    tag = child.tag
    if tag not in CHILDREN:
        raise DataError(f"unexpected element <{tag}> in <judgedsentence>; expected <src>, <tgt> or <ref>",
                        name, child.sourceline)
    if len(child):
        raise DataError(f"<{tag}> may hold only text, found element <{child[0].tag}>", name, child[0].sourceline)
    _check_text(child.tail, name, child.sourceline)
    return tag


def _check_text(text, name: str, line) -> None:
    if text and not text.isspace():
        raise DataError("text directly inside <judgedsentence>; text belongs in <src>, <tgt> or <ref>", name, line)


# --- second pass: the batches -------------------------------------------------------------------------

class _Rows:
    """Column lists for the groups read since the last batch."""

    def __init__(self, layout: _Layout):
        self.layout = layout
        self.tgt_columns = layout.tgt_columns()
        self.element_columns = {t: layout.element_columns(t) for t in ("src", "ref")}
        self.sentence_columns = [(f"sentence@{a}", a) for a in layout.sentence]
        self.reset()

    def reset(self):
        self.groups, self.sizes, self.items, self.lines = [], [], [], []
        self.per_group = {c: [] for c, _ in self.sentence_columns}
        self.per_group.update({c: [] for t in ("src", "ref") for c, _, _ in self.element_columns[t]})
        self.per_row = {c: [] for c, _ in self.tgt_columns}
        self.text = []


def _batches(elements, layout: _Layout, name: str, fed: list) -> Iterator[Batch]:
    """Batches of about BATCH_ROWS rows or BATCH_BYTES of XML, whichever comes first."""
    rows = _Rows(layout)
    used = _UsedIds()
    start = 0
    for ordinal, elem in enumerate(elements, start=1):
        _read_group(elem, ordinal, rows, used)
        if len(rows.items) >= BATCH_ROWS or fed[0] - start >= BATCH_BYTES:
            yield _make_batch(rows, name)
            rows.reset()
            start = fed[0]
    if rows.groups:
        yield _make_batch(rows, name)


class _UsedIds:
    """The group ids given so far, as 64-bit BLAKE2b digests in sorted numpy runs (8 bytes an id).

    Memory stays near 8 bytes a group, not a Python string each. Two ids with the same
    digest (odds about n²/2^65) would only rename the second, which needed no renaming;
    ids stay unique and the digest is the same in every process.
    """

    FLUSH, MERGE = 4096, 8

    def __init__(self):
        self.runs: list[np.ndarray] = []
        self.recent: set[int] = set()

    @staticmethod
    def _key(text: str) -> int:
        return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little", signed=True)

    def __contains__(self, text: str) -> bool:
        key = self._key(text)
        if key in self.recent:
            return True
        for run in self.runs:
            pos = int(np.searchsorted(run, key))
            if pos < len(run) and run[pos] == key:
                return True
        return False

    def add(self, text: str) -> None:
        self.recent.add(self._key(text))
        if len(self.recent) >= self.FLUSH:
            self.runs.append(np.sort(np.fromiter(self.recent, dtype=np.int64, count=len(self.recent))))
            self.recent = set()
            if len(self.runs) > self.MERGE:
                self.runs = [np.sort(np.concatenate(self.runs))]


def _group_id(elem, ordinal: int, used: _UsedIds) -> str:
    """The ``id`` attribute, or ``<id>#<ordinal>`` when it is absent or already used."""
    group = elem.get("id") or ""
    if not group or group in used:
        group = f"{group}#{ordinal}"
        while group in used:
            group += f"#{ordinal}"
    used.add(group)
    return group


def _read_group(elem, ordinal: int, rows: _Rows, used: _UsedIds) -> None:
    rows.groups.append(_group_id(elem, ordinal, used))
    attrib = elem.attrib
    for column, attr in rows.sentence_columns:
        rows.per_group[column].append(attrib.get(attr, ""))
    children = {"src": [], "tgt": [], "ref": []}
    for child in elem:
        children[child.tag].append(child)
    for tag in ("src", "ref"):
        found = children[tag]
        for column, k, attr in rows.element_columns[tag]:
            value = "" if k >= len(found) else (found[k].text or "") if attr is None else found[k].get(attr, "")
            rows.per_group[column].append(value)
    tgts = children["tgt"]
    rows.sizes.append(len(tgts))
    rows.items.extend(_items(tgts) if rows.layout.carry_system else [t.get("system") for t in tgts])
    for column, attr in rows.tgt_columns:
        rows.per_row[column].extend([t.get(attr, "") for t in tgts])
    rows.lines.extend([t.sourceline for t in tgts])
    if rows.layout.keep_text:
        rows.text.extend([t.text or "" for t in tgts])


def _items(tgts) -> list[str]:
    """System names, with ``tgt<k>`` for a missing or repeated one (never equal to another item)."""
    systems = [t.get("system") or "" for t in tgts]
    taken = set(systems)
    items, seen = [], set()
    for k, system in enumerate(systems, start=1):
        if not system or system in seen:
            system = f"tgt{k}"
            while system in taken:
                system += f"#{k}"
        seen.add(system)
        taken.add(system)
        items.append(system)
    return items


def _make_batch(rows: _Rows, name: str) -> Batch:
    layout = rows.layout
    sizes = np.array(rows.sizes, dtype=np.int64)
    lines = np.array(rows.lines, dtype=np.int64)
    gold_column = _tgt_column(layout.gold_attr, layout)
    gold = _numbers(rows.per_row[gold_column], layout.gold_attr, name, lines)
    gold[gold == -1] = np.nan
    pred = np.full(len(lines), np.nan)
    if layout.pred_attr:
        pred = _numbers(rows.per_row[_tgt_column(layout.pred_attr, layout)], layout.pred_attr, name, lines)
        if layout.pred_higher_better:
            pred = -pred
    return Batch(
        group=_objects(rows.groups),
        offsets=offsets_from_sizes(sizes),
        item=_objects(rows.items),
        gold=gold,
        pred=pred,
        extra=_extra_columns(rows, sizes),
        line=lines,
        source=name,
    )


def _extra_columns(rows: _Rows, sizes: np.ndarray) -> dict:
    """Columns in a fixed order: sentence, src, tgt (+ tgt.text), ref."""
    def per_group(column):
        return np.repeat(_objects(rows.per_group[column]), sizes)

    extra = {c: per_group(c) for c, _ in rows.sentence_columns}
    extra.update({c: per_group(c) for c, _, _ in rows.element_columns["src"]})
    extra.update({c: _objects(rows.per_row[c]) for c, _ in rows.tgt_columns})
    if rows.layout.keep_text:
        extra["tgt.text"] = _objects(rows.text)
    extra.update({c: per_group(c) for c, _, _ in rows.element_columns["ref"]})
    return extra


def _objects(values: list) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _numbers(texts: list[str], attr: str, name: str, lines: np.ndarray) -> np.ndarray:
    """Float64 values of attribute texts; empty = NaN; anything not a finite number is an error."""
    try:
        values = np.array([t or "nan" for t in texts], dtype=np.float64)
    except ValueError:
        values = np.array([_float(t) for t in texts], dtype=np.float64)
    bad = ~np.isfinite(values) & np.array([t != "" for t in texts], dtype=bool)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise DataError(f"<tgt> attribute {attr}={texts[row]!r} is not a finite number", name, int(lines[row]))
    return values


def _float(text: str) -> float:
    try:
        return float(text) if text else np.nan
    except ValueError:
        return np.inf  # flagged as bad by the caller


# --- writing -----------------------------------------------------------------------------------------

XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<jcml>\n'
_NCNAME_START = ("A-Z_a-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u1fff\u200c-\u200d"
                 "\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd\U00010000-\U000effff")
_NCNAME = re.compile(f"[{_NCNAME_START}][{_NCNAME_START}\\-.0-9\u00b7\u0300-\u036f\u203f-\u2040]*\\Z")
_NOT_XML_CHAR = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_ATTR_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;",
                               "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"})
_TEXT_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "\r": "&#13;"})
_COLUMN = re.compile(r"(?:(sentence|tgt|gold|pred|score)@(.+)|(src|ref)([2-9]|[1-9][0-9]+)?(?:@(.+)|\.(text)))\Z")


def write_jcml(batches, out) -> None:
    """Write batches as JCML, one <judgedsentence> per group, streaming batch by batch.

    Columns map back to XML as the reader names them (see the module docstring);
    any other extra column becomes a <tgt> attribute of the same name. Gold goes to
    the ``gold@A`` attribute A (default ``rank``; NaN as ``-1``), pred to its
    ``pred@A``/``score@A`` attribute A (else ``predicted_rank``; NaN omitted). A
    carried attribute text is kept where it still equals the value, so a
    JCML → TSV → JCML trip reproduces every attribute exactly. An empty value
    writes no attribute; a group without items writes nothing (a <judgedsentence>
    needs a <tgt>, as in TSV a group needs a row).
    """
    out.write(XML_HEAD)
    plan = None
    for batch in batches:
        if plan is None:
            plan = _Plan(list(batch.extra), batch.source)
        if (batch.sizes == 0).any():
            batch = batch.select_groups(batch.sizes > 0)
        if batch.n_groups:
            out.write(_render(batch, plan))
    out.write("</jcml>\n")


class _Plan:
    """Where each column goes: element, attribute or text; checked for clashes once per stream.

    ``tgt`` lists ``(kind, column, attribute)`` in column order, kind being ``attr``
    (a carried text), ``gold`` or ``pred`` (the value, with its carried text if any).
    """

    def __init__(self, columns: list[str], where):
        self.sentence: list = []
        self.tgt: list = []
        self.tgt_text = None
        self.elements: dict = {}
        self.pred_sign = 1.0
        for column in columns:
            self._place(column, where)
        self.sentence_id = any(a == "id" for _, a in self.sentence)
        self.system = "tgt@system" if "tgt@system" in columns else None
        self._add_defaults()
        self._check_clashes(where)

    def _place(self, column: str, where) -> None:
        match = _COLUMN.match(column)
        if match and match.group(3):
            slot = self.elements.setdefault((match.group(3), int(match.group(4) or 1)), {"attrs": [], "text": None})
            if match.group(6):
                slot["text"] = column
            else:
                slot["attrs"].append((column, _attr_name(match.group(5), column, where)))
            return
        kind, attr = (match.group(1), match.group(2)) if match else (None, column)
        if kind == "sentence":
            self.sentence.append((column, _attr_name(attr, column, where)))
        elif column == "tgt.text":
            self.tgt_text = column
        elif kind in ("gold", "pred", "score"):
            role = "gold" if kind == "gold" else "pred"
            if any(k == role for k, _, _ in self.tgt):
                raise DataError(f"two columns carry the {role} attribute (the second is {column})", where)
            self.pred_sign = -1.0 if kind == "score" else self.pred_sign
            self.tgt.append((role, column, _attr_name(attr, column, where)))
        else:
            self.tgt.append(("attr", column, _attr_name(attr, column, where)))

    def _add_defaults(self) -> None:
        """Gold without a carrier goes to ``rank``; pred to ``predicted_rank`` (or the first free name)."""
        taken = {a for _, _, a in self.tgt}
        if not any(k == "gold" for k, _, _ in self.tgt):
            self.tgt.append(("gold", None, "rank"))
            taken.add("rank")
        if not any(k == "pred" for k, _, _ in self.tgt):
            names = ["predicted_rank", "pred"] + [f"pred{k}" for k in range(2, len(taken) + 3)]
            self.tgt.append(("pred", None, next(n for n in names if n not in taken)))

    def _check_clashes(self, where) -> None:
        tgt = [(a, c or k) for k, c, a in self.tgt] + ([] if self.system else [("system", "item")])
        elements = [("tgt", tgt), ("judgedsentence", [(a, c) for c, a in self.sentence])]
        elements += [(f"{t}{k if k > 1 else ''}", [(a, c) for c, a in s["attrs"]])
                     for (t, k), s in self.elements.items()]
        for element, pairs in elements:
            seen: dict = {}
            for attr, column in pairs:
                if attr in seen:
                    raise DataError(f"{seen[attr]} and {column} would both write attribute {attr} of <{element}>",
                                    where)
                seen[attr] = column


def _attr_name(attr: str, column: str, where) -> str:
    if not _NCNAME.match(attr) or attr == "xmlns":
        raise DataError(f"column {column!r} cannot be written as a JCML attribute ({attr!r} is not an XML name)",
                        where)
    return attr


def _render(batch: Batch, plan: _Plan) -> str:
    """The <judgedsentence> elements of one batch as text, rows placed between group heads and tails."""
    first = batch.offsets[:-1]
    empty = batch.sizes == 0
    heads = _group_heads(batch, plan, first, empty)
    tails = _element_lines(batch, plan, "ref", first, empty) + "\t</judgedsentence>"
    g = np.arange(batch.n_groups)
    pieces = np.empty(batch.n_rows + 2 * batch.n_groups, dtype=object)
    pieces[first + 2 * g] = heads
    pieces[batch.offsets[1:] + 2 * g + 1] = tails
    pieces[np.arange(batch.n_rows) + 2 * batch.group_index + 1] = _tgt_lines(batch, plan)
    return "\n".join(pieces.tolist()) + "\n"


def _group_heads(batch: Batch, plan: _Plan, first: np.ndarray, empty: np.ndarray) -> np.ndarray:
    attrs = [] if plan.sentence_id else [_attribute("id", _objects(batch.group.tolist()), batch, first)]
    attrs += [_attribute(a, _per_group(batch, c, first, empty), batch, first) for c, a in plan.sentence]
    return "\t<judgedsentence" + _sum(attrs, batch.n_groups) + ">" + _element_lines(batch, plan, "src", first, empty)


def _element_lines(batch: Batch, plan: _Plan, tag: str, first: np.ndarray, empty: np.ndarray) -> np.ndarray:
    """The <src> (or <ref>) elements of each group, one per position with a non-empty value.

    Sources follow the <judgedsentence> tag (each after a newline); references precede
    its end tag (each before a newline).
    """
    out = np.full(batch.n_groups, "", dtype=object)
    for (kind, k), slot in sorted(plan.elements.items()):
        if kind != tag:
            continue
        values = [_per_group(batch, c, first, empty) for c, _ in slot["attrs"]]
        text = _per_group(batch, slot["text"], first, empty) if slot["text"] else None
        present = np.zeros(batch.n_groups, dtype=bool)
        for column in values + ([] if text is None else [text]):
            present |= column != ""
        attrs = _sum([_attribute(a, v, batch, first) for (_, a), v in zip(slot["attrs"], values)], batch.n_groups)
        body = "/>" if text is None else ">" + _escape(text, _TEXT_ESCAPES, batch, first) + f"</{tag}>"
        element = f"\n\t\t<{tag}" + attrs + body if tag == "src" else f"\t\t<{tag}" + attrs + body + "\n"
        out[present] = out[present] + element[present]
    return out


def _per_group(batch: Batch, column: str, first: np.ndarray, empty: np.ndarray) -> np.ndarray:
    """A column's value on each group's first row; it must be the same on every row of the group."""
    values = batch.extra[column]
    if batch.n_rows == 0:
        return np.full(batch.n_groups, "", dtype=object)
    at_first = values[np.minimum(first, batch.n_rows - 1)]
    differs = np.flatnonzero(values != np.repeat(at_first, batch.sizes))
    if len(differs):
        source, line = batch.row_location(int(differs[0]))
        group = batch.group[batch.group_index[differs[0]]]
        raise DataError(f"column {column} differs within group {group!r}; it is written once per <judgedsentence>",
                        source, line)
    at_first[empty] = ""
    return at_first


def _tgt_lines(batch: Batch, plan: _Plan) -> np.ndarray:
    attrs = [] if plan.system else [_attribute("system", batch.item, batch, None, keep_empty=True)]
    for kind, column, attr in plan.tgt:
        if kind == "attr":
            values = batch.extra[column]
        else:
            values = _gold_texts(batch, column) if kind == "gold" else _pred_texts(batch, column, plan.pred_sign)
        attrs.append(_attribute(attr, values, batch, None))
    if plan.tgt_text:
        body = ">" + _escape(batch.extra[plan.tgt_text], _TEXT_ESCAPES, batch, None) + "</tgt>"
    else:
        body = "/>"
    return "\t\t<tgt" + _sum(attrs, batch.n_rows) + body


def _gold_texts(batch: Batch, column: str | None) -> np.ndarray:
    """Gold as attribute text: the carried text where it still holds the value, else the value (NaN = -1)."""
    minus_one = np.flatnonzero(batch.gold == -1)
    if len(minus_one):
        source, line = batch.row_location(int(minus_one[0]))
        raise DataError("a gold value of -1 cannot be written to JCML, where rank=\"-1\" means a blank; "
                        "normalize the ranks first", source, line)
    text = format_numbers(batch.gold)
    text[np.isnan(batch.gold)] = "-1"
    if column is None:
        return text
    carried = batch.extra[column]
    parsed = _parse_quietly(carried)
    blank = (carried == "") | (parsed == -1)
    return np.where((parsed == batch.gold) | (np.isnan(batch.gold) & blank), carried, text)


def _pred_texts(batch: Batch, column: str | None, sign: float) -> np.ndarray:
    """Pred as attribute text (negated back for a ``score@`` carrier); NaN writes nothing."""
    value = sign * batch.pred
    text = format_numbers(value)
    if column is None:
        return text
    carried = batch.extra[column]
    keep = (_parse_quietly(carried) == value) | (np.isnan(value) & (carried == ""))
    return np.where(keep, carried, text)


def _parse_quietly(texts: np.ndarray) -> np.ndarray:
    """Float values of texts; empty or unparsable = NaN."""
    values = texts.tolist()
    try:
        return np.array([t or "nan" for t in values], dtype=np.float64)
    except ValueError:
        return np.array([_float(t) for t in values], dtype=np.float64)


def _attribute(attr: str, values: np.ndarray, batch: Batch, rows, keep_empty: bool = False) -> np.ndarray:
    """`` attr="value"`` per entry, or ``""`` where the value is empty (an absent attribute)."""
    fragment = f' {attr}="' + _escape(values, _ATTR_ESCAPES, batch, rows) + '"'
    return fragment if keep_empty else np.where(values == "", "", fragment)


def _escape(values: np.ndarray, table: dict, batch: Batch, rows) -> np.ndarray:
    """XML-escaped texts; a character XML 1.0 cannot hold is an error naming the row's line."""
    texts = values.tolist()
    joined = "".join(texts)
    bad = _NOT_XML_CHAR.search(joined)
    if bad:
        index = next(i for i, t in enumerate(texts) if _NOT_XML_CHAR.search(t))
        row = index if rows is None else int(rows[index])
        source, line = batch.row_location(min(row, batch.n_rows - 1)) if batch.n_rows else (batch.source, None)
        raise DataError(f"value {texts[index]!r} holds a character XML 1.0 cannot represent "
                        f"(U+{ord(bad.group()):04X})", source, line)
    if not any(chr(code) in joined for code in table):
        return _objects(texts)
    return _objects([t.translate(table) for t in texts])


def _sum(fragments: list, n: int) -> np.ndarray:
    """Elementwise concatenation of object arrays of text."""
    total = np.full(n, "", dtype=object)
    for fragment in fragments:
        total = total + fragment
    return total
