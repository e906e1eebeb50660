"""Run fusion: several ranked lists per query (IR runs) combined into one.

Every method is one entry of :data:`.table.METHODS` and every normalization one of
:data:`.normalizations.NORMALIZATIONS`; the definitions and their sources are there and in
docs/fusion-and-trueskill.md. The input runs are stacked into one table of rows
(:mod:`.lists`); a method's kernel turns them into one fused score per candidate (a
document some run retrieved for the query). The fused list is ordered by fused score
descending, then document id descending (the order trec_eval reads a run in), and ranked
1, 2, ...; a query missing from a run is an empty list for that run.

>>> a = (["q1", "q1", "q1"], ["d1", "d2", "d3"], [3.0, 2.0, 1.0])
>>> b = (["q1", "q1"], ["d3", "d2"], [0.9, 0.8])
>>> f = fuse([a, b], "rrf")
>>> f.doc.tolist(), [round(x, 6) for x in f.score.tolist()]  # 1/63 + 1/61, 2/62, 1/61
(['d3', 'd2', 'd1'], [0.032266, 0.032258, 0.016393])
"""

from __future__ import annotations


import numpy as np

from .core import Fused, Fusion, fuse_stacked, ranked
from .lists import Stacked, stack
from .normalizations import DEFAULT as DEFAULT_NORMALIZATION, NORMALIZATIONS
from .table import DEFAULT_METHOD, METHODS

__all__ = ["Fused", "Fusion", "METHODS", "NORMALIZATIONS", "Stacked", "fuse", "fuse_files", "fuse_stacked",
           "ranked", "stack"]

DEFAULT_RRF_K = 60.0


def fuse(runs, method: str = DEFAULT_METHOD, normalization: str = DEFAULT_NORMALIZATION,
         k: float = DEFAULT_RRF_K, depth: int | None = None, *, params: dict | None = None,
         weights=None, train_qrels=None) -> Fused:
    """Fuse runs given as ``(query_ids, doc_ids, scores)`` triples; keep ``depth`` documents per query.

    ``params`` sets the method's parameters (``k`` is rrf's, kept for earlier callers);
    ``weights`` one weight per run; ``train_qrels`` a ``(query_ids, doc_ids, grades)``
    triple for the methods that learn.
    """
    params = dict(params or {})
    if method == "rrf" and "k" not in params:
        params["k"] = k
    fusion = Fusion(method, normalization, params, tuple(weights) if weights is not None else None, depth)
    extra = None if train_qrels is None else np.asarray(train_qrels[1])
    stacked = stack(runs, extra_docs=extra)
    qrels = None if train_qrels is None else code_qrels(stacked, train_qrels)
    q, d, rank, s = fuse_stacked(stacked, fusion, qrels)
    return Fused(stacked.queries[q], stacked.docs[d], rank, s)


def code_qrels(stacked: Stacked, qrels) -> tuple:
    """(query code, doc code, grade) of a ``(query_ids, doc_ids, grades)`` triple in the codes of
    ``stacked`` (whose docs include the judged ones); topics no run has get codes past the end."""
    qids, dids, grades = (np.asarray(a) for a in qrels)
    qids = qids.astype(stacked.queries.dtype) if stacked.queries.dtype.kind in "SU" else qids
    names, q_code = np.unique(qids, return_inverse=True)
    at = np.searchsorted(stacked.queries, names)
    known = (at < len(stacked.queries)) & (stacked.queries[np.minimum(at, len(stacked.queries) - 1)] == names) \
        if len(stacked.queries) else np.zeros(len(names), bool)
    code = np.where(known, at, len(stacked.queries) + np.arange(len(names)))
    doc = np.searchsorted(stacked.docs, dids.astype(stacked.docs.dtype) if stacked.docs.dtype.kind in "SU" else dids)
    return code[q_code.reshape(-1)], doc, grades.astype(np.int64)


def fuse_files(sources, fusion: Fusion | str = DEFAULT_METHOD, normalization: str = DEFAULT_NORMALIZATION,
               k: float = DEFAULT_RRF_K, depth: int | None = None, *, train_qrels=None, report=None) -> Fused:
    """Fuse TREC run files (read as :func:`rankeval_cli.formats.trec.run.read_run` reads them), a
    block of queries at a time (:func:`.files.fused_blocks`); the fused run's ``query`` is an
    object array of ``str``, its ``doc`` a :class:`~rankeval_cli.formats.byteids.ByteIds`
    column. ``train_qrels`` is a qrels file (:func:`~rankeval_cli.formats.trec.qrels.read_qrels`)
    for the methods that learn; ``report`` receives a note on what they were trained on."""
    from ...formats.byteids import ByteIds
    from .blocks import NotByQuery
    from .files import fused_blocks

    if isinstance(fusion, str):
        fusion = Fusion(fusion, normalization, {"k": k} if fusion == "rrf" else {}, None, depth)
    sources = list(sources)
    try:
        blocks = list(fused_blocks(sources, fusion, train_qrels, report))
    except NotByQuery:
        blocks = list(fused_blocks(sources, fusion, train_qrels, report, whole=True))
    query = ByteIds.concat([b.query for b in blocks]) if blocks else ByteIds.from_list([])
    return Fused(np.array(query.decode(), dtype=object), ByteIds.concat(
        [b.doc for b in blocks]) if blocks else ByteIds.from_list([]),
        np.concatenate([b.rank for b in blocks]) if blocks else np.zeros(0, np.int64),
        np.concatenate([b.score for b in blocks]) if blocks else np.zeros(0))
