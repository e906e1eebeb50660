"""JCML (QE XML) ranking files, the format of RankEval (Avramidis 2013 §4.2; README, Formats), read and written.

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

This module reads the input and parses it safely; :mod:`.read` turns the parsed
groups into batches (two passes), :mod:`.ids` keeps group and item ids unique,
:mod:`.write` writes JCML, :mod:`.values` converts attribute texts.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import re
import tempfile
from typing import Iterator

from ...batch import BATCH_ROWS, Batch
from ...errors import DataError
from ...inputs import open_binary, read_chunk, source_name
from .read import batches, scan
from .write import write_jcml

__all__ = ["read_jcml", "write_jcml", "PARSER_OPTIONS", "DTD_REFUSED", "PROLOG_LIMIT"]

CHUNK_BYTES = 1 << 20  # bytes handed to the parser at a time
PROLOG_LIMIT = 1 << 20  # bytes allowed before the root element
SPOOL_BYTES = 1 << 24  # stdin kept in memory up to this size, then on disk
BATCH_BYTES = 1 << 24  # a batch also ends after this much XML (rows with long texts or features)
PARSER_OPTIONS = dict(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False,
                      remove_comments=True, remove_pis=True)
DTD_REFUSED = "DTD/entity declarations are not allowed"


def read_jcml(source, gold_attr: str = "rank", pred_attr: str | None = None,
              pred_higher_better: bool = False, keep_text: bool = False) -> Iterator[Batch]:
    """Stream batches of whole <judgedsentence> groups from a JCML file, ``-`` or a binary stream.

    ``gold_attr``/``pred_attr`` name the <tgt> attributes holding gold and predicted
    values, as in the original ``rankeval.py file.jcml <pred_attr> <gold_attr>``.
    """
    name = source_name(source)
    if "system" in (gold_attr, pred_attr):
        raise DataError("the system attribute names the item; --gold-attr and --pred-attr cannot be system", name)
    with _replayable(source, name) as reopen:
        with reopen() as stream:
            layout = scan(_elements(stream, name), name, gold_attr, pred_attr, pred_higher_better, keep_text)
        with reopen() as stream:
            fed = [0]
            yield from batches(_elements(stream, name, fed), layout, name, fed, BATCH_ROWS, BATCH_BYTES)


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
        for chunk in _chunks(stream, name, CHUNK_BYTES):
            spool.write(chunk)

        @contextlib.contextmanager
        def reopen():
            spool.seek(0)
            yield spool

        yield reopen


def _chunks(stream, name: str, size: int) -> Iterator[bytes]:
    """The stream's bytes in pieces of ``size``; a damaged compressed stream is a DataError."""
    while True:
        chunk = read_chunk(stream, size, name)
        if not chunk:
            return
        yield chunk


def _elements(stream, name: str, fed: list | None = None) -> Iterator:
    """Each <judgedsentence> element, parsed safely; freed after the consumer is done with it.

    ``fed[0]``, when given, counts the bytes handed to the parser so far.
    """
    from lxml import etree

    fed = [0] if fed is None else fed
    pieces = _chunks(stream, name, CHUNK_BYTES)
    head = _check_prolog(pieces, name)
    etree.clear_error_log()
    parser = etree.XMLPullParser(events=("start", "end"), tag=("jcml", "judgedsentence"), **PARSER_OPTIONS)
    root = None
    try:
        for chunk in _chain(head, pieces):
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


def _chain(head: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    yield head
    yield from rest


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


def _check_prolog(pieces: Iterator[bytes], name: str) -> bytes:
    """Read up to the root start tag; refuse a DOCTYPE or a root other than <jcml>. Returns the bytes read."""
    head, final = b"", False
    while True:
        if _prolog_done(_decode_head(head), name, final):
            return head
        if final:
            raise DataError("empty input: expected a <jcml> document", name, 1)
        if len(head) > PROLOG_LIMIT:
            raise DataError(f"no <jcml> root element in the first {PROLOG_LIMIT} bytes", name)
        chunk = next(pieces, b"")
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
