"""Opening inputs and outputs: stdin/files, compression, BOMs, atomic writes, broken pipes.

Inputs are read as bytes in blocks that end at a line boundary, so readers can
number lines and decode strictly; a UTF-8 error names its line. gzip, bzip2 and
xz inputs are recognised by their first bytes, whatever the file is called, and
decompressed a block at a time, never whole.

One line may hold at most :func:`max_line_bytes` bytes (64 MiB unless raised with
``rankeval --max-line-bytes SIZE`` or the environment variable
``RANKEVAL_MAX_LINE_BYTES``); a longer one is a :class:`DataError` naming its file
and line, raised before more than the cap and one block of it is held. So a reader
holds at most a block, the longest line and what it keeps per distinct id.

Outputs (``-o PATH``) replace a regular file atomically (a temporary file beside
it, renamed on success); pipes, devices, sockets and ``/dev/fd/N`` are written
straight through, never replaced. A name ending in ``.gz``, ``.bz2`` or ``.xz``
is written compressed.
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
#: output name suffix -> the stdlib module that compresses it
COMPRESSED_SUFFIXES = {".gz": "gzip", ".bz2": "bz2", ".xz": "lzma"}


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
                yield from _non_blank_lines(text, first_line)
                continue
            lines = text.split("\n")
            if lines[-1] == "":
                lines.pop()
            for offset, line in enumerate(lines):
                yield first_line + offset, line.rstrip("\r")


def _non_blank_lines(text: str, first_line: int) -> Iterator[tuple[int, str]]:
    number, at = first_line, 0
    for found in _TEXT_LINE.finditer(text):
        number += text.count("\n", at, found.start())
        at = found.start()
        line = found.group().rstrip("\r")
        if line:
            yield number, line


_TEXT_LINE = re.compile(r"[^\n]+")


def _take_over(tmp: str, target: str) -> None:
    """Give the temporary file the owner, group and mode of the file it replaces (as the shell's
    ``>`` keeps them by writing in place), or what ``open(target, "w")`` would give a new file
    (not mkstemp's 0600). An owner this user may not give (not root) is kept where it can be:
    the group, if the user belongs to it."""
    try:
        old = os.stat(target)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        return
    new = os.stat(tmp)
    if (new.st_uid, new.st_gid) != (old.st_uid, old.st_gid):
        try:
            os.chown(tmp, old.st_uid, old.st_gid)
        except PermissionError:
            with contextlib.suppress(OSError):
                os.chown(tmp, -1, old.st_gid)
    os.chmod(tmp, stat.S_IMODE(old.st_mode))  # after chown, which may clear the set-id bits


def _check_writable(target: str, dest: str) -> None:
    """Refuse to replace a file this user may not write (a 0444 file, another user's file), as the
    shell's ``>`` would: a rename only asks for the folder's permission, not the file's."""
    effective = os.access in os.supports_effective_ids
    if os.path.exists(target) and not os.access(target, os.W_OK, effective_ids=effective):
        raise DataError("cannot write: Permission denied (the file is not writable; not replaced)", dest)


@contextlib.contextmanager
def atomic_output(dest, binary: bool = False) -> Iterator[IO]:
    """A text stream for ``dest``: stdout for ``-``/None, else the file at ``dest``.

    ``binary``: a byte stream instead (figures); stdout then means its buffer, and
    no compression is applied.

    * A regular file, or a name not yet taken, is written to a temporary file beside
      it and renamed over it on success; if the body raises (or a signal arrives),
      the temporary file is removed and an existing ``dest`` is left untouched. A symbolic link is kept: its target is replaced. The new file takes
      the owner, group and mode of the one it replaces (or the umask's mode, for a new
      file); a file this user may not write is not replaced (an error, as with ``>``).
      Every catchable signal that would end the program (HUP, INT, QUIT, TERM, ALRM,
      USR1, USR2, XCPU, VTALRM, PROF) removes the temporary file first.
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
    if dest.endswith(("/", "/.", "/..")):  # a folder's name, even when no such folder exists
        import click

        raise click.BadParameter(f"{dest!r} names a directory; give a file name", param_hint="'-o' / '--output'")
    fd = _open_in_place(dest)
    writer = _write_through if fd is not None else _write_and_rename
    with writer(dest, fd, binary) as out:
        yield out


def _descriptor_of(path: str) -> int | None:
    """N for ``/dev/fd/N``, ``/proc/self/fd/N``, ``/dev/stdout`` (1) and ``/dev/stderr`` (2), or a
    symbolic link (of links) to one of them; else None."""
    import re

    named = {"/dev/stdout": 1, "/dev/stderr": 2}
    fd_path = re.compile(rf"/(?:dev|proc/self|proc/{os.getpid()})/fd/(\d+)")
    path = os.path.abspath(path)
    for _ in range(40):  # the kernel's limit on links followed
        path = os.path.normpath(path)
        if path in named:
            return named[path]
        match = fd_path.fullmatch(path)
        if match:
            return int(match.group(1))
        if not os.path.islink(path):
            return None
        path = os.path.join(os.path.dirname(path), os.readlink(path))
    return None


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
    _check_writable(target, dest)
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
                _take_over(tmp, target)
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


#: the signals that end a program unless caught, and that a temporary file must not outlive
#: (SIGPIPE is ignored by Python: a closed pipe is an error of the write; SIGXFSZ likewise)
ENDING_SIGNALS = ("SIGHUP", "SIGINT", "SIGQUIT", "SIGTERM", "SIGALRM", "SIGUSR1", "SIGUSR2", "SIGXCPU",
                  "SIGVTALRM", "SIGPROF")


class _Interrupts:
    """The ending signals while a temporary file exists: they raise (KeyboardInterrupt for SIGINT,
    exit 128 + N for the others), so that ``finally`` removes the file, but never inside a
    :meth:`held` section (between creating the file and knowing its name, or renaming it and
    forgetting it): there they wait until the section ends. Python runs signal handlers in the
    main thread between bytecodes, whichever thread the signal reached, so a flag checked by the
    handler is enough.
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
        """Install the handler for each ending signal whose handler is the default one (SIGINT:
        Python's); one set by someone else, or an ignored signal, is left as it is."""
        import signal
        import threading

        if threading.current_thread() is not threading.main_thread():
            yield
            return
        replaced = {}
        for name in ENDING_SIGNALS:
            signum = getattr(signal, name, None)
            if signum is None:
                continue
            usual = signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL
            if signal.getsignal(signum) is usual:
                replaced[signum] = signal.signal(signum, cls.handle)
        try:
            yield
        finally:
            for signum, previous in replaced.items():
                signal.signal(signum, previous)
