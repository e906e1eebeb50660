"""Opening inputs: stdin, files, pipes, compression, BOMs, blocks of whole lines, the line cap.

Inputs are read as bytes in blocks that end at a line boundary, so readers can
number lines and decode strictly; a UTF-8 error names its line. gzip, bzip2 and
xz inputs are recognised by their first bytes, whatever the file is called, and
decompressed a block at a time, never whole.

One line may hold at most :func:`max_line_bytes` bytes (64 MiB unless raised with
``rankeval --max-line-bytes SIZE`` or the environment variable
``RANKEVAL_MAX_LINE_BYTES``); a longer one is a :class:`DataError` naming its file
and line, raised before more than the cap and one block of it is held. So a reader
holds at most a block, the longest line and what it keeps per distinct id.

A source that can be read only once (stdin, a pipe, a file object) and that a reader
may have to read again is copied as it is read (:class:`~rankeval_cli.spool.Spool`).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import stat
import sys
import zlib
from typing import IO, Iterator

from .errors import DataError

BLOCK_BYTES = 1 << 22
#: the cap on one input line, in bytes, unless raised (:func:`max_line_bytes`)
DEFAULT_MAX_LINE_BYTES = 64 << 20
#: the environment variable that sets the cap (as ``rankeval --max-line-bytes`` does)
MAX_LINE_BYTES_ENV = "RANKEVAL_MAX_LINE_BYTES"
_SIZE_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_max_line_bytes: int | None = None  # set by the rankeval command (--max-line-bytes), else the environment
GZIP_MAGIC = b"\x1f\x8b"
XZ_MAGIC = b"\xfd7zXZ\x00"
BZ2_MAGIC = b"BZh"
BZ2_BLOCKS = (b"1AY&SY", b"\x17rE8P\x90")  # after "BZh" and the level: a first block, or the end of an empty stream
BOM = b"\xef\xbb\xbf"


def parse_size(text: str) -> int:
    """Bytes from ``12345``, ``64K``, ``64M``, ``1G`` or ``1T`` (powers of 1024; ``KiB``, ``MB`` and
    lower case are read the same); ValueError for anything else or a size below 1."""
    match = re.fullmatch(r"\s*(\d+)\s*([KMGT]?)(?:I?B)?\s*", str(text), re.IGNORECASE | re.ASCII)
    if not match:
        raise ValueError(f"{text!r} is not a size: expected bytes, or a number with K, M, G or T (e.g. 256M)")
    size = int(match.group(1)) * _SIZE_UNITS[match.group(2).upper()]
    if size < 1:
        raise ValueError(f"{text!r}: the size must be at least 1 byte")
    return size


def format_size(size: int) -> str:
    """``64 MiB`` for a whole number of KiB, MiB, GiB or TiB; else ``N bytes``."""
    for unit, factor in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= factor and size % factor == 0:
            return f"{size // factor} {unit}"
    return f"{size} bytes"


def max_line_bytes() -> int:
    """The cap on one input line, in bytes: what ``rankeval --max-line-bytes`` set for this run,
    else ``$RANKEVAL_MAX_LINE_BYTES``, else 64 MiB. Every reader that holds a line (or a record)
    whole asks here."""
    if _max_line_bytes is not None:
        return _max_line_bytes
    given = os.environ.get(MAX_LINE_BYTES_ENV)
    if given:
        try:
            return parse_size(given)
        except ValueError as exc:
            raise DataError(f"{MAX_LINE_BYTES_ENV}: {exc}") from None
    return DEFAULT_MAX_LINE_BYTES


def set_max_line_bytes(size: int | None) -> int | None:
    """Set the cap for this process (None: back to the environment or the default); returns the
    value it replaces, so a caller can put it back."""
    global _max_line_bytes
    previous, _max_line_bytes = _max_line_bytes, size
    return previous


def line_too_long(name: str, line: int | None, cap: int | None = None, what: str = "line") -> DataError:
    """The error for a line (or record) longer than the cap."""
    cap = max_line_bytes() if cap is None else cap
    return DataError(f"{what} longer than {format_size(cap)} (the cap on one line; raise it with "
                     f"rankeval --max-line-bytes SIZE or {MAX_LINE_BYTES_ENV})", name, line)


def source_name(source) -> str:
    """How a source is named in messages: the path, ``<stdin>`` or the object's name."""
    if source is None or source == "-":
        return "<stdin>"
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    return getattr(source, "name", None) or "<input>"


@contextlib.contextmanager
def open_binary(source) -> Iterator[IO[bytes]]:
    """A binary stream for a path, ``-`` (stdin) or a file object; gzip, bzip2 and xz are undone.

    The compression is recognised by the stream's first bytes (not the file name). A
    file object with a true ``decompressed`` attribute is taken as it is.
    """
    raw, close = open_raw(source)
    try:
        stream = raw if hasattr(raw, "peek") else io.BufferedReader(raw)
        if not getattr(raw, "decompressed", False):
            stream = decompressing(stream)
        yield stream
    finally:
        if close:
            raw.close()


def open_raw(source) -> tuple[IO[bytes], bool]:
    """The raw binary stream of a path, ``-`` (stdin) or a file object, and whether it is ours to close."""
    if source is None or source == "-":
        return sys.stdin.buffer, False
    if isinstance(source, (str, os.PathLike)):
        try:
            return open(source, "rb"), True
        except OSError as exc:
            raise DataError(f"cannot open: {exc.strerror}", source_name(source)) from None
    if isinstance(source, io.TextIOBase):
        return io.BytesIO(source.read().encode("utf-8")), False
    return source, False


def _mode(source) -> int | None:
    """``st_mode`` of a path, or of stdin for ``-``; None for a file object or what cannot be stat'ed."""
    try:
        if source is None or source == "-":
            return os.fstat(sys.stdin.fileno()).st_mode
        if isinstance(source, (str, os.PathLike)):
            return os.stat(source).st_mode
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass
    return None


def is_pipe(source) -> bool:
    """True when ``source`` (a path, or ``-`` for stdin) is a pipe, FIFO or socket: another program's output."""
    mode = _mode(source)
    return mode is not None and (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode))


def is_regular_file(source) -> bool:
    """True when ``source`` is the path of a regular file (not ``-``, a pipe, a FIFO or a device)."""
    if source is None or source == "-":
        return False
    mode = _mode(source)
    return mode is not None and stat.S_ISREG(mode)


def compression_of(head: bytes) -> str | None:
    """``gzip``, ``bz2`` or ``lzma`` (xz) from a stream's first 10 bytes, else None."""
    if head.startswith(GZIP_MAGIC):
        return "gzip"
    if head.startswith(XZ_MAGIC):
        return "lzma"
    if head.startswith(BZ2_MAGIC) and head[3:4] in b"123456789" and head[3:4] and head[4:10] in BZ2_BLOCKS:
        return "bz2"
    return None


def decompressing(stream: IO[bytes]) -> IO[bytes]:
    """``stream`` itself, or a decompressing reader over it when it starts with a known magic number."""
    kind = compression_of(stream.peek(10)[:10])
    if kind == "gzip":
        import gzip

        return _UpToDamage(gzip.GzipFile(fileobj=stream, mode="rb"))
    if kind == "bz2":
        import bz2

        return _UpToDamage(bz2.BZ2File(stream, mode="rb"))
    if kind == "lzma":
        import lzma

        return _UpToDamage(lzma.LZMAFile(stream, mode="rb"))
    return stream


class _UpToDamage(io.BufferedIOBase):
    """A decompressing reader whose ``read`` first returns what was decoded before a damaged or
    missing part; the next ``read`` raises. So the lines before the damage are read and the
    error names the line it reached, not the start of a block.
    """

    def __init__(self, inner):
        super().__init__()
        self._inner, self._error = inner, None

    def readable(self) -> bool:
        return True

    def peek(self, size: int = 0) -> bytes:
        return self._inner.peek(size)

    def read(self, size: int | None = -1) -> bytes:
        if self._error is not None:
            raise self._error
        parts, wanted = [], -1 if size is None or size < 0 else size
        while wanted != 0:
            try:
                piece = self._inner.read1(wanted if wanted > 0 else BLOCK_BYTES)
            except decoder_errors() as exc:
                if not parts:
                    raise
                self._error = exc
                break
            if not piece:
                break
            parts.append(piece)
            wanted = wanted - len(piece) if wanted > 0 else wanted
        return b"".join(parts)

    def read1(self, size: int = -1) -> bytes:
        return self.read(size if size and size > 0 else BLOCK_BYTES)

    def close(self) -> None:
        self._inner.close()
        super().close()


def read_blocks(stream: IO[bytes], name: str, block_bytes: int | None = None,
                skip_blank: bool = False) -> Iterator[tuple[bytes, int]]:
    """Yield ``(block, first_line)``: blocks of whole lines (the last may lack its newline).

    ``block_bytes`` defaults to ``BLOCK_BYTES``, read when called (tests shrink it to cut
    batches in odd places; results must not depend on where).

    A line longer than :func:`max_line_bytes` is a :class:`DataError` naming its line, raised
    once the cap is passed (the line is never held whole), so memory stays within one block
    plus the cap. ``skip_blank`` (for readers that skip blank lines anyway): blank lines
    (empty, or a lone CR) at the start of a block, and runs of ``BLANK_RUN_LINES`` or more
    within one, are left out, so a run of them costs a count, not memory; a block's lines
    are then numbered from its ``first_line``, which may jump past the lines left out
    since the block before.

    A leading UTF-8 byte-order mark is dropped; a gzip stream that ends early or a
    corrupt one is a :class:`DataError`.
    """
    block_bytes = block_bytes or BLOCK_BYTES
    cap = max_line_bytes()
    size = min(block_bytes, cap + 1)  # a line within one read is then at most the cap
    line, pending, held, first = 1, [], 0, True  # pending: bytes read since the last newline (held of them)
    while True:
        chunk = read_chunk(stream, size, name, line)
        if first:
            while chunk and len(chunk) < len(BOM) and BOM.startswith(chunk):  # a BOM cut by a tiny block
                more = read_chunk(stream, size, name, line)
                if not more:
                    break
                chunk += more
            chunk, first = (chunk[len(BOM):] if chunk.startswith(BOM) else chunk), False
        if not chunk:
            if pending:
                yield b"".join(pending), line
            return
        if skip_blank and not pending:
            blanks = _blank_lines(chunk)
            if blanks:
                line += chunk.count(b"\n", 0, blanks)
                chunk = chunk[blanks:]
                if not chunk:
                    continue
        cut = chunk.rfind(b"\n") + 1
        if cut == 0:  # a long line: keep its pieces, join once (no quadratic re-copying)
            pending.append(chunk)
            held += len(chunk)
            if held > cap:
                raise line_too_long(name, line, cap)
            continue
        if pending and held + chunk.find(b"\n") > cap:
            raise line_too_long(name, line, cap)
        block = b"".join([*pending, chunk[:cut]]) if pending else chunk[:cut]
        pending = [chunk[cut:]] if cut < len(chunk) else []
        held = len(chunk) - cut
        if skip_blank:
            yield from _without_blank_runs(block, line)
        else:
            yield block, line
        line += block.count(b"\n")


#: a run of this many blank lines or more inside a block is cut out of it (:func:`_without_blank_runs`)
BLANK_RUN_LINES = 64
_RUNS = (b"\n" * (BLANK_RUN_LINES + 1), b"\r\n" * (BLANK_RUN_LINES + 1))


def _without_blank_runs(block: bytes, first_line: int) -> Iterator[tuple[bytes, int]]:
    """``block`` in pieces around its runs of at least ``BLANK_RUN_LINES`` blank lines (each piece
    numbered from its own first line), so that a reader's per-line work follows the lines that
    are not blank."""
    start, number = 0, first_line
    while True:
        runs = _RUNS if b"\r" in block else _RUNS[:1]
        found = [(at, len(run) // (BLANK_RUN_LINES + 1)) for at, run in ((block.find(run, start), run) for run in runs)
                 if at >= 0]
        if not found:
            if start < len(block):
                yield (block[start:] if start else block), number
            return
        at, ending = min(found)
        end = at if at == 0 or block[at - 1] == 10 else at + ending  # after the line before the run
        piece = block[start:end]
        if piece:
            yield piece, number
        run = _blank_lines(block, end)
        number += piece.count(b"\n") + block.count(b"\n", end, end + run)
        start = end + run


def _blank_lines(chunk: bytes, start: int = 0) -> int:
    """The length of the blank lines (``\\n`` or ``\\r\\n``) at ``chunk[start:]``, found at C speed."""
    head = _LINE_ENDS.match(chunk, start).group()
    odd = head.find(b"\r\r")  # a CR that ends no line: the blank lines stop before it
    if odd >= 0:
        head = head[:odd]
    return head.rfind(b"\n") + 1


_LINE_ENDS = re.compile(rb"[\r\n]*")


def read_chunk(stream, size: int, name: str, line: int | None = None) -> bytes:
    """``stream.read(size)``; a compressed stream that ends early or is corrupt is a DataError.

    ``line`` is the line the reader had reached (None when unknown).
    """
    try:
        return stream.read(size)
    except decoder_errors() as exc:
        raise DataError(f"corrupt or truncated compressed input ({exc})", name, line) from None


def decoder_errors() -> tuple:
    """What the gzip, bz2 and lzma readers raise on bad data (evaluated only when something was raised)."""
    errors = [EOFError, OSError, zlib.error]
    if "lzma" in sys.modules:
        errors.append(sys.modules["lzma"].LZMAError)
    return tuple(errors)


def decode(block: bytes, name: str, first_line: int) -> str:
    """Strict UTF-8 decoding; an invalid byte is reported with its line."""
    try:
        return block.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = first_line + block.count(b"\n", 0, exc.start)
        raise DataError(f"invalid UTF-8 (byte {block[exc.start]:#04x})", name, line) from None


def iter_lines(source, skip_blank: bool = False) -> Iterator[tuple[int, str]]:
    """``(line_number, text)`` for each line of a source, without line endings.

    ``skip_blank``: empty lines (and lone CRs) are not yielded; a run of them costs a
    count, however long (a line of spaces is still yielded).
    """
    name = source_name(source)
    with open_binary(source) as stream:
        for block, first_line in read_blocks(stream, name, skip_blank=skip_blank):
            text = decode(block, name, first_line)
            if skip_blank:
                yield from non_blank_lines(text, first_line)
                continue
            lines = text.split("\n")
            if lines[-1] == "":
                lines.pop()
            for offset, line in enumerate(lines):
                yield first_line + offset, line.rstrip("\r")


def non_blank_lines(text: str, first_line: int) -> Iterator[tuple[int, str]]:
    number, at = first_line, 0
    for found in _TEXT_LINE.finditer(text):
        number += text.count("\n", at, found.start())
        at = found.start()
        line = found.group().rstrip("\r")
        if line:
            yield number, line


_TEXT_LINE = re.compile(r"[^\n]+")
