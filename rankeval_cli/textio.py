"""Opening inputs and outputs: stdin/files, compression, BOMs, atomic writes, broken pipes.

Inputs are read as bytes in blocks that end at a line boundary, so readers can
number lines and decode strictly; a UTF-8 error names its line. gzip, bzip2 and
xz inputs are recognised by their first bytes, whatever the file is called.

Outputs (``-o PATH``) replace a regular file atomically (a temporary file beside
it, renamed on success); pipes, devices, sockets and ``/dev/fd/N`` are written
straight through, never replaced. A name ending in ``.gz``, ``.bz2`` or ``.xz``
is written compressed.
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
XZ_MAGIC = b"\xfd7zXZ\x00"
BZ2_MAGIC = b"BZh"
BZ2_BLOCKS = (b"1AY&SY", b"\x17rE8P\x90")  # after "BZh" and the level: a first block, or the end of an empty stream
BOM = b"\xef\xbb\xbf"
#: output name suffix -> the stdlib module that compresses it
COMPRESSED_SUFFIXES = {".gz": "gzip", ".bz2": "bz2", ".xz": "lzma"}


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
        if not getattr(raw, "decompressed", False):
            stream = decompressing(stream)
        yield stream
    finally:
        if close:
            raw.close()


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
        chunk = read_chunk(stream, block_bytes, name, line)
        if first:
            while chunk and len(chunk) < len(BOM) and BOM.startswith(chunk):  # a BOM cut by a tiny block
                more = read_chunk(stream, block_bytes, name, line)
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
    """A text stream for ``dest``: stdout for ``-``/None, else the file at ``dest``.

    ``binary``: a byte stream instead (figures); stdout then means its buffer, and
    no compression is applied.

    * A regular file, or a name not yet taken, is written to a temporary file beside
      it and renamed over it on success; if the body raises (or SIGINT/SIGTERM
      arrive), the temporary file is removed and an existing ``dest`` is left
      untouched. A symbolic link is kept: its target is replaced. The new file takes
      the mode of the one it replaces (or the umask's, for a new file).
    * Anything else (a FIFO, a character device, a socket, ``/dev/stdout``,
      ``/dev/fd/N`` from process substitution) is written straight through and never
      replaced; a reader that goes away is a closed pipe, as on stdout.
    * A name ending in ``.gz``, ``.bz2`` or ``.xz`` is written compressed.

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
    fd = _open_in_place(dest)
    writer = _write_through if fd is not None else _write_and_rename
    with writer(dest, fd, binary) as out:
        yield out


def _descriptor_of(path: str) -> int | None:
    """N for ``/dev/fd/N``, ``/proc/self/fd/N``, ``/dev/stdout`` (1) and ``/dev/stderr`` (2); else None."""
    import re

    path = os.path.normpath(os.path.abspath(path))
    named = {"/dev/stdout": 1, "/dev/stderr": 2}
    if path in named:
        return named[path]
    match = re.fullmatch(r"/(?:dev|proc/self)/fd/(\d+)", path)
    return int(match.group(1)) if match else None


def _open_in_place(dest: str) -> int | None:
    """A descriptor to write ``dest`` through, or None when it is (or will be) a regular file to replace."""
    try:
        number = _descriptor_of(dest)
        if number is not None:  # an inherited descriptor: share it, as the shell's own redirections do
            return os.dup(number)
        if stat.S_ISREG(os.stat(dest).st_mode):
            return None
        flags = os.O_WRONLY | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(dest, flags)  # a FIFO waits here for its reader, as with the shell's '>'
    except FileNotFoundError:
        return None  # a new file, or a link to one
    except OSError as exc:
        raise DataError(f"cannot write: {exc.strerror or exc}", dest) from None
    if stat.S_ISREG(os.fstat(fd).st_mode):  # replaced by a regular file since the stat: replace it after all
        os.close(fd)
        return None
    return fd


@contextlib.contextmanager
def _write_through(dest: str, fd: int, binary: bool = False) -> Iterator[IO]:
    """Write into an open pipe, device or socket; nothing is renamed or removed."""
    raw = os.fdopen(fd, "wb")
    out = None
    try:
        out = raw if binary else _text_writer(raw, dest)
        yield out
        out.close()
    except BrokenPipeError:
        raise  # the reader went away: a closed pipe, as on stdout
    except OSError as exc:  # ENOSPC on /dev/full, EIO
        raise DataError(f"cannot write: {exc.strerror or exc}", dest) from None
    finally:
        _close_quietly(out, raw)


@contextlib.contextmanager
def _write_and_rename(dest: str, _fd=None, binary: bool = False) -> Iterator[IO]:
    """Write a temporary file beside the (link's) target and rename it over the target on success."""
    import tempfile

    target = os.path.realpath(dest)  # a symbolic link stays; what it points to is replaced
    tmp = None
    with _Interrupts.raising():
        try:
            with _Interrupts.held():  # no Ctrl-C between creating the file and knowing its name
                fd, tmp = tempfile.mkstemp(prefix=".rankeval-", suffix=".tmp", dir=os.path.dirname(target))
            raw, out = os.fdopen(fd, "wb"), None
            try:
                out = raw if binary else _text_writer(raw, dest)
                yield out
                out.close()
                raw.close()
            finally:
                _close_quietly(out, raw)
            with _Interrupts.held():  # renamed and forgotten together
                os.chmod(tmp, _output_mode(target))
                _check_replaceable(target, dest)
                os.replace(tmp, target)
                tmp = None
        except OSError as exc:
            if tmp is None or exc.filename in (None, tmp, target, dest):  # no folder, disk full, quota, rename
                raise DataError(f"cannot write: {exc.strerror or exc}", dest) from None
            raise
        finally:
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)


def _close_quietly(*streams) -> None:
    """Close what an error left open (its own errors are not the one to report)."""
    for stream in filter(None, streams):
        with contextlib.suppress(OSError, ValueError):
            stream.close()


def _check_replaceable(target: str, dest: str) -> None:
    """Refuse to rename over anything but a regular file (it may have changed since ``-o`` was opened)."""
    try:
        mode = os.lstat(target).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise DataError("cannot write: no longer a regular file; not replaced", dest)


def _text_writer(raw: IO[bytes], dest: str) -> IO[str]:
    """A UTF-8 text stream over ``raw``, compressed when ``dest`` ends in .gz, .bz2 or .xz.

    Closing it finishes the compressed stream (and closes ``raw`` when there is no
    compression; closing ``raw`` again is harmless). gzip output has no name or time
    in its header, so the same rows give the same bytes.
    """
    kind = COMPRESSED_SUFFIXES.get(os.path.splitext(dest)[1].lower())
    binary = raw
    if kind == "gzip":
        import gzip

        binary = gzip.GzipFile(filename="", fileobj=raw, mode="wb", compresslevel=6, mtime=0)
    elif kind == "bz2":
        import bz2

        binary = bz2.BZ2File(raw, mode="wb")
    elif kind == "lzma":
        import lzma

        binary = lzma.LZMAFile(raw, mode="wb")
    return io.TextIOWrapper(binary, encoding="utf-8", newline="\n")


class _Interrupts:
    """SIGINT and SIGTERM while a temporary file exists: they raise (KeyboardInterrupt, exit 143),
    so that ``finally`` removes the file, but never inside a :meth:`held` section (between
    creating the file and knowing its name, or renaming it and forgetting it): there they wait
    until the section ends. Python runs signal handlers in the main thread between bytecodes,
    whichever thread the signal reached, so a flag checked by the handler is enough.
    """

    holding = 0
    pending = None

    @classmethod
    def handle(cls, signum, frame) -> None:
        if cls.holding:
            cls.pending = signum
        else:
            cls._raise(signum)

    @staticmethod
    def _raise(signum) -> None:
        import signal

        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise SystemExit(128 + signum)

    @classmethod
    @contextlib.contextmanager
    def held(cls):
        cls.holding += 1
        try:
            yield
        finally:
            cls.holding -= 1
            if not cls.holding and cls.pending is not None:
                signum, cls.pending = cls.pending, None
                cls._raise(signum)

    @classmethod
    @contextlib.contextmanager
    def raising(cls):
        """Install the handler for SIGTERM (if it has none) and SIGINT (if it has Python's)."""
        import signal
        import threading

        if threading.current_thread() is not threading.main_thread():
            yield
            return
        replaced = {}
        for signum, usual in ((signal.SIGTERM, signal.SIG_DFL), (signal.SIGINT, signal.default_int_handler)):
            if signal.getsignal(signum) is usual:
                replaced[signum] = signal.signal(signum, cls.handle)
        try:
            yield
        finally:
            for signum, previous in replaced.items():
                signal.signal(signum, previous)
