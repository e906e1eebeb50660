"""Readers and writers by name, and the checks every stream passes.

A reader is a function ``read(source, **options) -> Iterator[Batch]``; a writer is
``write(batches, text_stream, **options)``. Both are looked up lazily by name so
that naming a format does not import the others (lxml only loads for JCML).
"""

from __future__ import annotations

import importlib
from typing import Iterable, Iterator

from ..batch import Batch
from ..errors import DataError
from ..inputs import decompressing, open_binary, source_name
from ..vocabulary import STREAM_ENCODINGS
from .detect import canonical_format, foreign_message

#: reader name -> "module:function"; ``convert --from NAME``.
READERS = {
    "tsv": "tsv:read_tsv",
    "jsonl": "jsonl:read_jsonl",
    "jcml": "jcml:read_jcml",
    "wmt-rr": "wmt_rr:read_wmt_rr",
    "wmt-scores": "wmt_scores:read_wmt_scores",
    "darr": "darr:read_darr",
    "wmt-da": "wmt_da:read_wmt_da",
    "wmt-da-scores": "wmt_da_scores:read_wmt_da_scores",
    "appraise": "appraise:read_appraise",
    "mqm": "mqm:read_mqm",
    "letor": "letor:read_letor",
    "trec": "trec.convert:read_trec",
    "parquet": "arrow_stream:read_stream",
    "arrow": "arrow_stream:read_stream",
}

#: writer name -> "module:function"; ``--output-format NAME``.
WRITERS = {
    "tsv": "tsv:write_tsv",
    "jsonl": "jsonl:write_jsonl",
    "jcml": "jcml:write_jcml",
    "parquet": "arrow_stream:write_parquet",
    "arrow": "arrow_stream:write_arrow",
}


def _load(table: dict, name: str, kind: str):
    if name not in table:
        raise ValueError(f"unknown {kind} format {name!r}; known: {', '.join(table)}")
    module, function = table[name].split(":")
    return getattr(importlib.import_module(f"{__name__}.{module}"), function)


def reader(name: str):
    """The reader function registered as ``name``."""
    return _load(READERS, name, "input")


def writer(name: str):
    """The writer function registered as ``name``."""
    return _load(WRITERS, name, "output")


def sniff(source) -> str:
    """``jsonl`` if the first non-blank byte is ``{``, ``jcml`` if it is ``<``, else ``tsv``.

    For stdin and unseekable streams this peeks without consuming.
    """
    if source is None or source == "-" or not isinstance(source, str):
        return "tsv"  # the caller peeks streams itself (see read)
    with open_binary(source) as stream:
        return canonical_format(_head(stream))


def _head(stream) -> bytes:
    """Up to 4 KiB from the start of a (decompressed) stream, not consumed.

    A stream that cannot be decompressed gives nothing here; the reader reports it.
    """
    from ..inputs import decoder_errors

    try:
        return stream.peek(4096)[:4096]
    except decoder_errors():
        return b""


def read(source, fmt: str | None = None, sniffable=STREAM_ENCODINGS, **options) -> Iterator[Batch]:
    """Stream checked batches from ``source`` in format ``fmt`` (sniffed when None/auto).

    A sniffed input with no content (zero bytes, a BOM or blank lines only) is an
    empty stream, since it is valid JSON lines; ``fmt="tsv"`` requires a header.
    A sniffed format outside ``sniffable`` (JCML where a canonical stream is
    expected) is a DataError that says how to convert it; so is a WMT, TREC or
    LETOR file, found by the TSV reader's header check (:mod:`.detect`).
    """
    if fmt in (None, "auto"):
        fmt, source = _sniff_stream(source)
        if fmt not in sniffable:
            name = source_name(source)
            raise DataError(foreign_message(fmt, name, READERS), name, 1)
        if fmt == "tsv":
            options["empty_ok"] = True  # an empty input is an empty stream in either encoding
    batches = reader(fmt)(source, **options)
    return checked(batches, source_name(source))


def _sniff_stream(source):
    """Sniff the format; stdin and streams are wrapped so the peeked bytes are not lost.

    A compressed stream is sniffed and handed on decompressed (marked so, so that
    the reader does not look for a second layer).
    """
    import io
    import sys

    if isinstance(source, str) and source != "-":
        return sniff(source), source
    if source is None or source == "-":
        stream, name = sys.stdin.buffer, "<stdin>"
    elif isinstance(source, io.TextIOBase):
        text = source.read()
        return canonical_format(text[:4096].encode("utf-8")), io.BytesIO(text.encode("utf-8"))
    else:
        stream, name = source, source_name(source)
    if not hasattr(stream, "peek"):
        stream = io.BufferedReader(stream)
    stream = decompressing(stream)
    return canonical_format(_head(stream)), _NamedStream(stream, name)


class _NamedStream:
    """A binary stream that reports a chosen name (``<stdin>``) in messages; already decompressed."""

    decompressed = True

    def __init__(self, stream, name: str):
        self._stream, self.name = stream, name

    def __getattr__(self, attr):
        return getattr(self._stream, attr)


def write(batches: Iterable[Batch], dest, fmt: str = "tsv", **options) -> None:
    """Write batches to a path (atomically), ``-`` or a text stream."""
    from ..outputs import atomic_output

    write_fn = writer(fmt)
    with atomic_output(dest) as out:
        write_fn(batches, out, **options)


def checked(batches: Iterable[Batch], name: str) -> Iterator[Batch]:
    """Pass batches through, enforcing the stream invariants every measure relies on.

    A group id may not reappear after another group (rows of a group are contiguous),
    and an item id may not appear twice in one group. A repeat of a group more than
    about 130,000 groups back is reported when the stream ends.
    """
    from .validate import GroupTracker

    tracker = GroupTracker(name)
    for batch in batches:
        tracker.check(batch)
        yield batch
    tracker.finish()
