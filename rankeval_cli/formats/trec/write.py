"""Writing a TREC run: ``qid Q0 docno rank score tag``, one line per retrieved document.

Lines are made a chunk at a time from numpy byte-string columns (``S`` arrays: the ids as
their UTF-8 bytes, ranks from a table of their digits, scores as ``repr`` writes them, by
:mod:`rankeval_cli.formats.floattext`) copied side by side into one byte matrix whose NUL padding is dropped, so
no Python object is made per field or line. Ids are numpy arrays (``S`` bytes are written
as they are, ``U`` and object arrays of ``str`` encoded as UTF-8) or
:class:`~rankeval_cli.formats.byteids.ByteIds` columns; scores are written with ``repr``
(the shortest text that reads back to the same float) or rounded to ``digits`` decimals.
"""

from __future__ import annotations

import numpy as np

#: Rows formatted at once.
CHUNK = 1 << 16
#: The longest id (bytes) written through fixed-width columns; rows of longer ids go line by line.
WIDE = 256


def texts(values) -> list:
    """Ids as a list of ``str``."""
    if hasattr(values, "decode") and not isinstance(values, np.ndarray):  # a ByteIds column
        return values.decode()
    if values.dtype.kind == "S":
        return np.char.decode(values, "utf-8").tolist()
    if values.dtype.kind == "O":
        return [str(v) for v in values.tolist()]
    return values.astype(str).tolist()


def byte_strings(values) -> np.ndarray:
    """Ids (ByteIds, or a numpy array of bytes, str or objects) as a numpy ``S`` array."""
    if hasattr(values, "key_words") and not isinstance(values, np.ndarray):  # a ByteIds column
        if values.width:
            return values.data.byteswap().view(f"S{values.width}").reshape(len(values))
        return values.fixed()
    values = np.asarray(values)
    if values.dtype.kind == "S":
        return values
    if values.dtype.kind != "U":
        values = values.astype(str)
    return np.char.encode(values, "utf-8") if len(values) else np.zeros(0, "S1")


def _chunk(values, start: int, stop: int):
    if hasattr(values, "take") and not isinstance(values, np.ndarray):  # a ByteIds column
        return values.slice(start, min(stop, len(values)))
    return values[start:stop]


def write_run(out, query: np.ndarray, docno: np.ndarray, rank: np.ndarray, score: np.ndarray, tag: str,
              digits: int | None = None) -> None:
    """Write rows (already ordered) as TREC run lines to the text stream ``out``."""
    if any(ch.isspace() for ch in tag) or not tag:
        raise ValueError(f"a run tag must be one word without spaces, not {tag!r}")
    rank = np.asarray(rank)
    for start in range(0, len(rank), CHUNK):
        stop = start + CHUNK
        q, d = _chunk(query, start, stop), _chunk(docno, start, stop)
        lines = run_lines(q, d, rank[start:stop], np.asarray(score[start:stop]), tag, digits)
        write_bytes(out, lines)


def run_lines(query, docno, rank: np.ndarray, score: np.ndarray, tag: str, digits: int | None = None) -> bytes:
    """The TREC lines of rows: ids as numpy arrays or ByteIds columns, ranks and scores. Ids
    longer than :data:`WIDE` bytes are not widened into columns (n × the longest id): such
    rows are formatted line by line."""
    from ..floattext import texts as float_texts

    if max(_widest(query), _widest(docno)) > WIDE:
        fmt = repr if digits is None else (lambda x: f"{x:.{digits}f}")
        return "".join(f"{q} Q0 {d} {r} {fmt(s)} {tag}\n" for q, d, r, s in zip(
            texts(query), texts(docno), rank.tolist(), score.tolist())).encode("utf-8")
    query, docno = byte_strings(query), byte_strings(docno)
    if digits is None and score.dtype == np.float64:
        scores = float_texts(score)
    else:
        fmt = repr if digits is None else (lambda x: f"{x:.{digits}f}")
        scores = np.array([fmt(x).encode("ascii") for x in score.tolist()], dtype=bytes)
    return joined([query, b" Q0 ", docno, _numbers(rank), scores, f" {tag}\n".encode("utf-8")], ids=(0, 2))


def _widest(values) -> int:
    """The longest id of a column in bytes (of a numpy array: its width)."""
    if hasattr(values, "longest") and not isinstance(values, np.ndarray):  # a ByteIds column
        return values.longest
    return np.asarray(values).itemsize


def joined(columns: list, ids: tuple = ()) -> bytes:
    """Lines made of ``columns`` (``S`` arrays of one length, or ``bytes`` repeated on every
    line) side by side: one byte matrix, the columns' NUL padding dropped. Where a value of
    the columns at ``ids`` (or a ``bytes`` column) holds a NUL byte inside it (an id the
    readers would refuse), the lines are joined value by value instead, keeping it."""
    n = next((len(c) for c in columns if isinstance(c, np.ndarray)), 0)
    if n == 0:
        return b""
    blocks = [np.frombuffer(c, np.uint8)[None, :] if isinstance(c, bytes)
              else np.ascontiguousarray(c).view(np.uint8).reshape(n, c.itemsize) for c in columns]
    for i, column in enumerate(columns):
        if i in ids:
            nonzero = blocks[i] != 0
            inside = (~nonzero[:, :-1] & nonzero[:, 1:]).any()
        else:
            inside = isinstance(column, bytes) and b"\0" in column
        if inside:  # a NUL inside a value
            line = columns[0]
            for other in columns[1:]:
                line = np.char.add(line, other)
            return b"".join(line.tolist())
    matrix = np.empty((n, sum(b.shape[1] for b in blocks)), dtype=np.uint8)
    at = 0
    for block in blocks:
        matrix[:, at:at + block.shape[1]] = block
        at += block.shape[1]
    return matrix[matrix != 0].tobytes()


def _numbers(values: np.ndarray) -> np.ndarray:
    """`` N `` for each integer N (other numbers as ``str`` writes them)."""
    global _RANKS
    if values.dtype.kind in "iu" and len(values) and 0 <= values.min() and values.max() < 1 << 20:
        top = int(values.max())
        if top >= len(_RANKS):
            _RANKS = np.array([b" %d " % i for i in range(max(2 * top, 1024))])
        return _RANKS[values]
    return np.array([f" {v} ".encode("ascii") for v in values.tolist()], dtype=bytes)


#: `` N `` for N = 0, 1, ... (grown as needed)
_RANKS = np.zeros(0, "S3")


def write_bytes(out, data: bytes) -> None:
    """Bytes to a text stream (through its buffer when it has one)."""
    buffer = getattr(out, "buffer", None)
    if buffer is None:
        out.write(data.decode("utf-8"))
        return
    out.flush()
    buffer.write(data)
