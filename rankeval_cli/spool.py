"""A source that can be read only once (stdin, a pipe, a file object), kept so that it can be read again.

A reader that may find, part way through, that it must read its input again whole (a TREC
run whose queries come back after other queries') reads it through a :class:`Spool`: the
bytes are copied to a temporary file as they are read, and :meth:`Spool.replay` reads the
rest and gives all of it again. A regular file needs none of this: it is opened again.
"""

from __future__ import annotations

import io
from typing import IO

from .inputs import open_raw, source_name


class Spool(io.RawIOBase):
    """A source that can be read only once (stdin, a pipe, a file object), copied to a temporary
    file as it is read, so that it can be read again whole (:meth:`replay`). Used as a context
    manager, it is a raw binary stream named as the source; the copy holds the bytes as they
    came (compressed or not), so each reading undoes the compression again (:func:`open_binary`).

    Without a temporary folder, or when the disk fills up, the source is still read once:
    :meth:`replay` then returns None and :attr:`failure` says why.
    """

    def __init__(self, source):
        super().__init__()
        self.source, self.name = source, source_name(source)
        self.failure: str | None = None
        self._raw, self._close, self._copy = None, False, None

    def __enter__(self):
        import tempfile

        self._raw, self._close = open_raw(self.source)
        try:
            self._copy = tempfile.TemporaryFile(prefix="rankeval-spool-")
        except OSError as exc:
            self.failure = exc.strerror or str(exc)
        return self

    def __exit__(self, *exc):
        if self._close:
            self._raw.close()
        if self._copy is not None:
            self._copy.close()
        self.close()
        return False

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        data = self._raw.read(len(b))
        n = len(data)
        b[:n] = data
        if self._copy is not None:
            try:
                self._copy.write(data)
            except OSError as exc:  # disk full: the source is still read, once
                self._copy.close()
                self._copy, self.failure = None, exc.strerror or str(exc)
        return n

    def replay(self) -> IO[bytes] | None:
        """Read the rest of the source; a raw stream of all of it, named as the source (None
        without a copy)."""
        while self._copy is not None and self.readinto(bytearray(1 << 20)):
            pass
        if self._copy is None:
            return None
        self._copy.seek(0)
        return _Renamed(self._copy, self.name)


class _Renamed(io.RawIOBase):
    """A binary file read under another name (for messages)."""

    def __init__(self, inner, name: str):
        super().__init__()
        self.inner, self.name = inner, name

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        return self.inner.readinto(b)
