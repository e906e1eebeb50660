"""rankeval_cli.spool: a source read once, copied as it is read, and read again whole."""

from __future__ import annotations

import gzip
import io
import tempfile

from rankeval_cli.inputs import open_binary, read_blocks
from rankeval_cli.spool import Spool

TEXT = b"".join(b"q%d Q0 d%d 1 0.5 t\n" % (i % 7, i) for i in range(5000))


class _Pipe(io.RawIOBase):
    """A named stream that cannot seek, as stdin or a pipe."""

    name = "<pipe>"

    def __init__(self, data: bytes):
        super().__init__()
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        return self._data.readinto(b)


def test_a_spool_reads_the_source_again_whole_under_its_name():
    """The copy keeps the bytes as they came (gzip here): each reading undoes the compression."""
    with Spool(_Pipe(gzip.compress(TEXT))) as spool:
        with open_binary(spool) as stream:
            first = next(read_blocks(stream, spool.name, 4096))[0]
        again = spool.replay()
        assert spool.failure is None and again.name == spool.name == "<pipe>"
        with open_binary(again) as stream:
            whole = b"".join(block for block, _ in read_blocks(stream, again.name))
    assert TEXT.startswith(first) and 0 < len(first) < len(TEXT)
    assert whole == TEXT


def test_without_a_copy_the_source_is_still_read_once(monkeypatch):
    def no_space(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tempfile, "TemporaryFile", no_space)
    with Spool(_Pipe(TEXT)) as spool:
        with open_binary(spool) as stream:
            assert b"".join(block for block, _ in read_blocks(stream, spool.name)) == TEXT
        assert spool.replay() is None and spool.failure == "No space left on device"
