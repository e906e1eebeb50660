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

from dataclasses import dataclass, field

import numpy as np

from .lists import Lists, Stacked, bounds, stack
from .normalizations import DEFAULT as DEFAULT_NORMALIZATION, NORMALIZATIONS, normalize
from .table import DEFAULT_METHOD, METHODS

__all__ = ["Fused", "Fusion", "METHODS", "NORMALIZATIONS", "Stacked", "fuse", "fuse_files", "fuse_stacked",
           "stack"]

DEFAULT_RRF_K = 60.0


@dataclass(frozen=True)
class Fusion:
    """What to fuse by: a method of :data:`METHODS`, a normalization (score-reading methods),
    the method's parameters (missing ones take their defaults), one weight per run
    (weighted methods; None: 1 each) and the number of documents to keep per query."""

    method: str = DEFAULT_METHOD
    normalization: str = DEFAULT_NORMALIZATION
    params: dict = field(default_factory=dict)
    weights: tuple | None = None
    depth: int | None = None

    def checked(self, n_runs: int, trained: bool) -> "Fusion":
        """This fusion with its parameters completed; ValueError naming what is wrong."""
        method = METHODS.get(self.method)
        if method is None:
            raise ValueError(f"unknown fusion method {self.method!r}; known: {', '.join(METHODS)}")
        if self.normalization not in NORMALIZATIONS:
            raise ValueError(f"unknown normalization {self.normalization!r}; known: {', '.join(NORMALIZATIONS)}")
        if method.reads_positions and method.reads_scores and not NORMALIZATIONS[self.normalization].with_positions:
            raise ValueError(f"{method.name} reads positions: normalization {self.normalization} does not go with it")
        unknown = set(self.params) - {p.name for p in method.params}
        if unknown:
            known = ", ".join(p.name for p in method.params) or "none"
            raise ValueError(f"{method.name} has no parameter {sorted(unknown)[0]} (its parameters: {known})")
        if self.weights is not None:
            if not method.weighted:
                weighted = ", ".join(m.name for m in METHODS.values() if m.weighted)
                raise ValueError(f"{method.name} takes no weights (weighted methods: {weighted})")
            if len(self.weights) != n_runs:
                raise ValueError(f"{len(self.weights)} weights for {n_runs} runs")
        if method.train is not None and not trained:
            raise ValueError(f"{method.name} learns from training qrels: give them")
        return Fusion(self.method, self.normalization, {**method.defaults(), **self.params}, self.weights,
                      self.depth)


@dataclass
class Fused:
    """A fused run: rows sorted by (query, fused score desc, doc desc)."""

    query: np.ndarray  # query ids, one per row (as given: str or bytes)
    doc: np.ndarray  # document ids
    rank: np.ndarray  # 1..n within each query
    score: np.ndarray  # fused score


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


def fuse_stacked(stacked: Stacked, fusion: Fusion, qrels=None):
    """(query code, doc code, rank, fused score) per fused row, sorted by (query, score desc, doc desc)."""
    from . import training

    fusion = fusion.checked(stacked.n_runs, qrels is not None)
    method = METHODS[fusion.method]
    lists = Lists.of(stacked)
    lists.params = fusion.params
    if fusion.weights is not None:
        lists.weights = np.asarray(fusion.weights, dtype=np.float64)
    if method.train is not None:
        lists.model = method.train(lists, training.judge(lists, qrels), fusion.params)
    if method.reads_scores:
        lists = normalize(lists, stacked.score, fusion.normalization)
    scores = method.kernel(lists, fusion.params)
    return ranked(lists.cand_query, lists.cand_doc, scores, fusion.depth)


def ranked(cand_query: np.ndarray, cand_doc: np.ndarray, scores: np.ndarray, depth: int | None = None):
    """Candidates sorted by (query, score desc, doc desc), ranked 1..n per query, the first ``depth`` kept."""
    order = np.lexsort((-cand_doc, -scores, cand_query))
    q, d, s = cand_query[order], cand_doc[order], scores[order]
    edges = bounds(q)
    sizes = np.diff(edges)
    rank = np.arange(len(q), dtype=np.int64) - np.repeat(edges[:-1], sizes) + 1
    if depth is not None:
        keep = rank <= depth
        q, d, s, rank = q[keep], d[keep], s[keep], rank[keep]
    return q, d, rank, s


def fuse_files(sources, fusion: Fusion | str = DEFAULT_METHOD, normalization: str = DEFAULT_NORMALIZATION,
               k: float = DEFAULT_RRF_K, depth: int | None = None, *, train_qrels=None, report=None) -> Fused:
    """Fuse TREC run files (read by :func:`rankeval_cli.formats.trec.run.read_run`). Query ids
    and docnos are fused as integer codes in the ids' byte order, so that no id is held at
    the width of the longest; the fused run's ``query`` is an object array of ``str``, its
    ``doc`` a :class:`~rankeval_cli.formats.byteids.ByteIds` column. ``train_qrels`` is a
    qrels file (:func:`~rankeval_cli.formats.trec.qrels.read_qrels`) for the methods that learn;
    ``report`` receives a note on what they were trained on."""
    from .files import locate_repeat, read_stacked
    from .lists import Repeated

    if isinstance(fusion, str):
        fusion = Fusion(fusion, normalization, {"k": k} if fusion == "rrf" else {}, None, depth)
    stacked, qids, docs, qrels = read_stacked(sources, train_qrels)
    if qrels is not None and report is not None:
        topics, fused = np.unique(qrels[0]), np.unique(stacked.query)
        inside = int(np.isin(topics, fused).sum())
        report(f"{fusion.method}: trained on the {len(topics)} topics of {train_qrels}; {inside} of the "
               f"{len(fused)} fused queries are among them (fused in sample)")
    try:
        q, d, rank, s = fuse_stacked(stacked, fusion, qrels)
    except Repeated as exc:
        locate_repeat(list(sources), exc)
        raise
    names = np.array(qids, dtype=object)[stacked.queries[q]] if len(qids) else np.zeros(0, dtype=object)
    return Fused(names, docs.take(stacked.docs[d]), rank, s)
