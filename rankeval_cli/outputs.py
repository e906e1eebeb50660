"""Opening outputs: atomic replacement of files, pipes and devices written through, compression
by suffix, and the signals that must not leave a temporary file behind.

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
from typing import IO, Iterator

from .errors import DataError

#: output name suffix -> the stdlib module that compresses it
COMPRESSED_SUFFIXES = {".gz": "gzip", ".bz2": "bz2", ".xz": "lzma"}


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
    fd = _open_in_place(dest)
    writer = _write_through if fd is not None else _write_and_rename
    with writer(dest, fd, binary) as out:
        yield out


def _descriptor_of(path: str) -> int | None:
    """N for ``/dev/fd/N``, ``/proc/self/fd/N``, ``/dev/stdout`` (1) and ``/dev/stderr`` (2); else None."""
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
