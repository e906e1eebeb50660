"""Opening inputs and outputs: stdin/files, gzip, BOMs, atomic writes, broken pipes.

Inputs are read as bytes in blocks that end at a line boundary, so readers can
number lines and decode strictly; a UTF-8 error names its line.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import sys
import zlib
from typing import IO, Iterator

from .errors import DataError

BLOCK_BYTES = 1 << 22
GZIP_MAGIC = b"\x1f\x8b"
BOM = b"\xef\xbb\xbf"


def source_name(source) -> str:
    """How a source is named in messages: the path, ``<stdin>`` or the object's name."""
    if source is None or source == "-":
        return "<stdin>"
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    return getattr(source, "name", None) or "<input>"


@contextlib.contextmanager
def open_binary(source) -> Iterator[IO[bytes]]:
    """A binary stream for a path, ``-`` (stdin) or a file object; gzip is undone."""
    name = source_name(source)
    if source is None or source == "-":
        raw, close = sys.stdin.buffer, False
    elif isinstance(source, (str, os.PathLike)):
        try:
            raw, close = open(source, "rb"), True
        except OSError as exc:
            raise DataError(f"cannot open: {exc.strerror}", name) from None
    elif isinstance(source, io.TextIOBase):
        raw, close = io.BytesIO(source.read().encode("utf-8")), False
    else:
        raw, close = source, False
    try:
        stream = raw if hasattr(raw, "peek") else io.BufferedReader(raw)
        if stream.peek(2)[:2] == GZIP_MAGIC:
            import gzip

            stream = gzip.GzipFile(fileobj=stream, mode="rb")
        yield stream
    finally:
        if close:
            raw.close()


def read_blocks(stream: IO[bytes], name: str, block_bytes: int | None = None) -> Iterator[tuple[bytes, int]]:
    """Yield ``(block, first_line)``: blocks of whole lines (the last may lack its newline).

    ``block_bytes`` defaults to ``BLOCK_BYTES``, read when called (tests shrink it to cut
    batches in odd places; results must not depend on where).

    A leading UTF-8 byte-order mark is dropped; a gzip stream that ends early or a
    corrupt one is a :class:`DataError`.
    """
    block_bytes = block_bytes or BLOCK_BYTES
    line, pending, first = 1, [], True  # pending: bytes read since the last newline
    while True:
        chunk = _read(stream, block_bytes, name, line)
        if first:
            while chunk and len(chunk) < len(BOM) and BOM.startswith(chunk):  # a BOM cut by a tiny block
                more = _read(stream, block_bytes, name, line)
                if not more:
                    break
                chunk += more
            chunk, first = (chunk[len(BOM):] if chunk.startswith(BOM) else chunk), False
        if not chunk:
            if pending:
                yield b"".join(pending), line
            return
        cut = chunk.rfind(b"\n") + 1
        if cut == 0:  # a long line: keep its pieces, join once (no quadratic re-copying)
            pending.append(chunk)
            continue
        block = b"".join([*pending, chunk[:cut]]) if pending else chunk[:cut]
        pending = [chunk[cut:]] if cut < len(chunk) else []
        yield block, line
        line += block.count(b"\n")


def _read(stream, size: int, name: str, line: int) -> bytes:
    try:
        return stream.read(size)
    except (EOFError, OSError, zlib.error) as exc:
        raise DataError(f"corrupt or truncated compressed input ({exc})", name, line) from None


def decode(block: bytes, name: str, first_line: int) -> str:
    """Strict UTF-8 decoding; an invalid byte is reported with its line."""
    try:
        return block.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = first_line + block.count(b"\n", 0, exc.start)
        raise DataError(f"invalid UTF-8 (byte {block[exc.start]:#04x})", name, line) from None


def iter_lines(source) -> Iterator[tuple[int, str]]:
    """``(line_number, text)`` for each line of a source, without line endings."""
    name = source_name(source)
    with open_binary(source) as stream:
        for block, first_line in read_blocks(stream, name):
            lines = decode(block, name, first_line).split("\n")
            if lines[-1] == "":
                lines.pop()
            for offset, line in enumerate(lines):
                yield first_line + offset, line.rstrip("\r")


def _output_mode(dest: str) -> int:
    """The mode of the file being replaced, or what ``open(dest, "w")`` would give (not mkstemp's 0600)."""
    try:
        return stat.S_IMODE(os.stat(dest).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


@contextlib.contextmanager
def atomic_output(dest, binary: bool = False) -> Iterator[IO]:
    """A text stream for ``dest``: stdout for ``-``/None, else a temporary file renamed on success.

    ``binary``: a byte stream instead (figures); stdout then means its buffer.

    If the body raises, the temporary file is removed and an existing ``dest`` is left untouched.
    The new file takes the mode of the one it replaces (or the umask's, for a new file).
    Failing to create, write or rename the file is a :class:`DataError` naming ``dest``.
    """
    if dest is None or dest == "-":
        yield sys.stdout.buffer if binary else sys.stdout
        sys.stdout.flush()
        return
    if not isinstance(dest, (str, os.PathLike)):
        yield dest
        return
    dest = os.fspath(dest)
    folder = os.path.dirname(os.path.abspath(dest))
    try:
        import tempfile

        fd, tmp = tempfile.mkstemp(prefix=".rankeval-", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise DataError(f"cannot write: {exc.strerror or exc}", dest) from None
    try:
        with (os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8", newline="\n")) as out:
            yield out
        os.chmod(tmp, _output_mode(dest))
        os.replace(tmp, dest)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and exc.filename in (None, tmp, dest):  # disk full, quota, rename
            raise DataError(f"cannot write: {exc.strerror or exc}", dest) from None
        raise
