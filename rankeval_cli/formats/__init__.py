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
from ..textio import open_binary, source_name

#: reader name -> "module:function"; ``convert --from NAME``.
READERS = {
    "tsv": "tsv:read_tsv",
    "jsonl": "jsonl:read_jsonl",
    "jcml": "jcml:read_jcml",
    "wmt-rr": "wmt_rr:read_wmt_rr",
    "wmt-scores": "wmt_scores:read_wmt_scores",
    "darr": "darr:read_darr",
    "wmt-da": "wmt_da:read_wmt_da",
    "mqm": "mqm:read_mqm",
    "trec": "trec:read_trec",
}

#: writer name -> "module:function"; ``--output-format NAME``.
WRITERS = {
    "tsv": "tsv:write_tsv",
    "jsonl": "jsonl:write_jsonl",
    "jcml": "jcml:write_jcml",
}

#: the canonical stream formats every subcommand reads and writes.
CANONICAL = ("tsv", "jsonl")


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
        head = stream.peek(4096)[:4096] if hasattr(stream, "peek") else stream.read(4096)
    return _format_of(head)


def read(source, fmt: str | None = None, sniffable=CANONICAL, **options) -> Iterator[Batch]:
    """Stream checked batches from ``source`` in format ``fmt`` (sniffed when None/auto).

    A sniffed input with no content (zero bytes, a BOM or blank lines only) is an
    empty stream, since it is valid JSON lines; ``fmt="tsv"`` requires a header.
    A sniffed format outside ``sniffable`` (JCML where a canonical stream is
    expected) is a DataError that says how to convert it.
    """
    if fmt in (None, "auto"):
        fmt, source = _sniff_stream(source)
        if fmt not in sniffable:
            raise DataError(f"this looks like {fmt.upper()}, not a canonical TSV or JSON-lines stream; "
                            f"convert it first: rankeval convert --from {fmt} FILE", source_name(source), 1)
        if fmt == "tsv":
            options["empty_ok"] = True  # an empty input is an empty stream in either encoding
    batches = reader(fmt)(source, **options)
    return checked(batches, source_name(source))


def _sniff_stream(source):
    """Sniff the format; stdin is wrapped so the peeked bytes are not lost."""
    import io
    import sys

    if source is None or source == "-":
        stream = sys.stdin.buffer
        if not hasattr(stream, "peek"):
            stream = io.BufferedReader(stream)
        return _format_of(stream.peek(4096)), _NamedStream(stream, "<stdin>")
    if isinstance(source, str):
        return sniff(source), source
    if isinstance(source, io.TextIOBase):
        text = source.read()
        return _format_of(text[:4096].encode("utf-8")), io.BytesIO(text.encode("utf-8"))
    stream = source if hasattr(source, "peek") else io.BufferedReader(source)
    return _format_of(stream.peek(4096)), stream


def _format_of(head: bytes) -> str:
    if head[:2] == b"\x1f\x8b":
        import zlib

        try:
            head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, 4096)
        except zlib.error:
            head = b""
    head = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"<"):
        return "jcml"
    return "jsonl" if head.startswith(b"{") else "tsv"


class _NamedStream:
    """A binary stream that reports a chosen name (``<stdin>``) in messages."""

    def __init__(self, stream, name: str):
        self._stream, self.name = stream, name

    def __getattr__(self, attr):
        return getattr(self._stream, attr)


def write(batches: Iterable[Batch], dest, fmt: str = "tsv", **options) -> None:
    """Write batches to a path (atomically), ``-`` or a text stream."""
    from ..textio import atomic_output

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
