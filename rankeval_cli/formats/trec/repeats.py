"""A docno twice in one query's ranking, as ``rankeval trec_eval`` needs to know it.

Every reader refuses such a run at the second line (:func:`rankeval_cli.formats.trec.join.join`).
trec_eval instead checks each query when it evaluates it (``form_res_rels.c``), after sorting
its ranking (score descending, docno descending) and cutting it at ``-M``, and only for
measures that read the ranking; it then stops with exit status 4 after the queries before.
Within :func:`allowing_repeats` the join records each query's repeats (:func:`repeat_positions`)
instead of refusing them, and ``rankeval trec_eval`` decides as trec_eval does.
"""

from __future__ import annotations

import contextlib
import contextvars

import numpy as np

from ..byteids import same

_ALLOWED = contextvars.ContextVar("rankeval_trec_repeats_allowed", default=False)


@contextlib.contextmanager
def allowing_repeats():
    """Joins in this context record repeated docnos (``Joined.repeats``) instead of refusing them."""
    token = _ALLOWED.set(True)
    try:
        yield
    finally:
        _ALLOWED.reset(token)


def repeats_allowed() -> bool:
    return _ALLOWED.get()


def repeat_positions(run, rows: np.ndarray, offsets: np.ndarray, qids: list) -> dict:
    """{qid: (position, docno, line, first line)} of each query whose ranking (``rows`` in trec_eval's
    order, query ``i`` at ``offsets[i]:offsets[i + 1]``) holds a docno twice: the 0-based position
    of the later copy of the earliest repeat, the docno and the run lines of both copies."""
    if len(rows) < 2:
        return {}
    slot = np.repeat(np.arange(len(qids)), np.diff(offsets))
    ids = run.docno.take(rows)
    h = ids.hash(slot)
    order = np.argsort(h, kind="stable")
    hs = h[order]
    pair = np.flatnonzero(hs[1:] == hs[:-1])
    if not len(pair):
        return {}
    a, b = order[pair], order[pair + 1]
    real = (slot[a] == slot[b]) & same(ids, a, ids, b)
    a, b = a[real], b[real]
    out = {}
    for i, j in sorted(zip(np.minimum(a, b).tolist(), np.maximum(a, b).tolist()), key=lambda p: p[1]):
        q = qids[int(slot[j])]
        if q not in out:  # the later copy nearest the top decides
            out[q] = (j - int(offsets[slot[j]]), ids[j], run.line_of(int(rows[j])), run.line_of(int(rows[i])))
    return out
