"""An output that can be started over: what was written so far is discarded on request.

A command that streams its output while reading may find out late that it has to start
again another way (run fusion reading runs side by side finds a run out of query order).
Written to a regular file, the bytes go straight to it and starting over truncates the
file back to where the command began; written anywhere else (a pipe, a terminal, a
compressed file), they go to a temporary file first (in memory up to
:data:`IN_MEMORY` bytes) and are copied to the output when the command succeeds.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import stat
import tempfile

#: bytes a spooled output keeps in memory before it moves to a temporary file
IN_MEMORY = 1 << 24


class _Direct:
    def __init__(self, buffer, start: int):
        self.buffer, self.start = buffer, start

    def write(self, data: bytes) -> None:
        self.buffer.write(data)

    def restart(self) -> None:
        self.buffer.flush()
        self.buffer.seek(self.start)
        self.buffer.truncate(self.start)


class _Spooled:
    def __init__(self):
        self.spool = tempfile.SpooledTemporaryFile(max_size=IN_MEMORY)

    def write(self, data: bytes) -> None:
        self.spool.write(data)

    def restart(self) -> None:
        self.spool.seek(0)
        self.spool.truncate(0)


@contextlib.contextmanager
def restartable(out):
    """A byte sink (``write``, ``restart``) for the text stream ``out``, written to ``out`` on success."""
    buffer = getattr(out, "buffer", None)
    direct = _direct_start(out, buffer)
    if direct is not None:
        yield _Direct(buffer, direct)
        buffer.flush()
        return
    sink = _Spooled()
    try:
        yield sink
        sink.spool.seek(0)
        if buffer is not None:
            out.flush()
            shutil.copyfileobj(sink.spool, buffer, 1 << 20)
        else:
            out.write(sink.spool.read().decode("utf-8"))
    finally:
        sink.spool.close()


def _direct_start(out, buffer) -> int | None:
    """Where a regular file ``out`` stands (its bytes from there can be truncated), else None."""
    if not isinstance(buffer, (io.BufferedWriter, io.BufferedRandom)) or not isinstance(buffer.raw, io.FileIO):
        return None
    try:
        if not stat.S_ISREG(os.fstat(buffer.fileno()).st_mode) or not buffer.seekable():
            return None
        out.flush()
        return buffer.tell()
    except (OSError, ValueError):
        return None
