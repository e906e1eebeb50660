"""The standard streams as every command finds them: UTF-8 out, closed ones that fail loudly.

* Output is UTF-8 whatever the locale says (an ASCII or Latin-1 ``LANG`` would otherwise
  make the first non-ASCII qid a UnicodeEncodeError); messages on stderr keep the locale's
  encoding, with what it cannot show escaped (``\\xe9``), so an error is never lost to
  the error of printing it.
* A standard stream closed by the caller (``rankeval ... >&-``) is held by a descriptor
  that refuses its direction: nothing opened later (a temporary file, a pipe to a worker)
  can take its number and receive what was meant for it, and writing to a closed stdout
  is the one-line error "cannot write" (exit 1), never a traceback nor a silent success.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys


def hold_std_streams() -> None:
    """Occupy closed standard descriptors, and make stdout UTF-8 and stderr unable to fail on a character."""
    for fd, flags in ((0, os.O_WRONLY), (1, os.O_RDONLY), (2, os.O_RDONLY)):
        if _closed(fd):
            held = os.open(os.devnull, flags)
            if held != fd:
                os.dup2(held, fd)
                os.close(held)
    if sys.stdout is None:
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8")
    elif (getattr(sys.stdout, "encoding", "") or "").lower().replace("_", "-") not in ("utf-8", "utf8"):
        with contextlib.suppress(AttributeError, ValueError, io.UnsupportedOperation):
            sys.stdout.reconfigure(encoding="utf-8")
    if sys.stderr is None:
        sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace")
    else:
        with contextlib.suppress(AttributeError, ValueError, io.UnsupportedOperation):
            sys.stderr.reconfigure(errors="backslashreplace")


def _closed(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return True
    return False


def cannot_write(exc: OSError) -> None:
    """The one line for a standard stream that cannot be written (exit 1), then stdout silenced."""
    with contextlib.suppress(Exception):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
    with contextlib.suppress(Exception):
        sys.stderr.write(f"rankeval: {exc.filename or '<stdout>'}: cannot write: {exc.strerror or exc}\n")
        sys.stderr.flush()
    sys.exit(1)
