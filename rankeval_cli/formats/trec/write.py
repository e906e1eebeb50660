"""Writing a TREC run: ``qid Q0 docno rank score tag``, one line per retrieved document.

Lines are formatted in bounded chunks; ids are numpy arrays (``S`` bytes are decoded as
UTF-8, ``U`` and object arrays of ``str`` taken as they are) or
:class:`~rankeval_cli.formats.byteids.ByteIds` columns, never widened to the longest id;
scores are written with ``repr`` (the shortest text that reads back to the same float) or
rounded to ``digits`` decimals.
"""

from __future__ import annotations

import numpy as np

#: Rows formatted at once.
CHUNK = 1 << 16


def texts(values) -> list:
    """Ids as a list of ``str``."""
    if hasattr(values, "decode") and not isinstance(values, np.ndarray):  # a ByteIds column
        return values.decode()
    if values.dtype.kind == "S":
        return np.char.decode(values, "utf-8").tolist()
    if values.dtype.kind == "O":
        return [str(v) for v in values.tolist()]
    return values.astype(str).tolist()


def _chunk(values, start: int, stop: int):
    if hasattr(values, "take") and not isinstance(values, np.ndarray):  # a ByteIds column
        return values.take(np.arange(start, min(stop, len(values))))
    return values[start:stop]


def write_run(out, query: np.ndarray, docno: np.ndarray, rank: np.ndarray, score: np.ndarray, tag: str,
              digits: int | None = None) -> None:
    """Write rows (already ordered) as TREC run lines to the text stream ``out``."""
    if any(ch.isspace() for ch in tag) or not tag:
        raise ValueError(f"a run tag must be one word without spaces, not {tag!r}")
    fmt = repr if digits is None else (lambda x: f"{x:.{digits}f}")
    for start in range(0, len(rank), CHUNK):
        stop = start + CHUNK
        qs, ds = texts(_chunk(query, start, stop)), texts(_chunk(docno, start, stop))
        rs, ss = rank[start:stop].tolist(), score[start:stop].tolist()
        out.write("".join(f"{q} Q0 {d} {r} {fmt(s)} {tag}\n" for q, d, r, s in zip(qs, ds, rs, ss)))
