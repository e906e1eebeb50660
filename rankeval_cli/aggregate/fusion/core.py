"""What a fusion is (:class:`Fusion`), what it makes (:class:`Fused`), and the fusion of stacked
runs (:func:`fuse_stacked`): a method's kernel over the candidates, then the fused order
(:func:`ranked`). The package (:mod:`rankeval_cli.aggregate.fusion`) reads the inputs and
re-exports these; :mod:`.files` fuses run files a block of queries at a time with them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .lists import Lists, Stacked, bounds
from .normalizations import DEFAULT as DEFAULT_NORMALIZATION, NORMALIZATIONS, normalize
from .table import DEFAULT_METHOD, METHODS


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


def fuse_stacked(stacked: Stacked, fusion: Fusion, qrels=None, model=None):
    """(query code, doc code, rank, fused score) per fused row, sorted by (query, score desc, doc desc).
    A learning method estimates its model from ``qrels`` (coded as :func:`rankeval_cli.aggregate.fusion.code_qrels` codes
    them), or is given it (``model``: estimated once for several stacks)."""
    from .training import judge

    fusion = fusion.checked(stacked.n_runs, qrels is not None or model is not None)
    method = METHODS[fusion.method]
    lists = Lists.of(stacked)
    lists.params = fusion.params
    if fusion.weights is not None:
        lists.weights = np.asarray(fusion.weights, dtype=np.float64)
    if method.train is not None:
        lists.model = model if model is not None else method.train(lists, judge(lists, qrels),
                                                                   fusion.params)
    if method.reads_scores:
        lists = normalize(lists, stacked.score, fusion.normalization)
    scores = method.kernel(lists, fusion.params)
    return ranked(lists.cand_query, lists.cand_doc, scores, fusion.depth)


def ranked(cand_query: np.ndarray, cand_doc: np.ndarray, scores: np.ndarray, depth: int | None = None):
    """Candidates (given in (query, doc) order) sorted by (query, score desc, doc desc), ranked
    1..n per query, the first ``depth`` kept."""
    from .grouping import by_score

    order = by_score(cand_query, scores, int(cand_query[-1]) + 1 if len(cand_query) else 0)
    q, d, s = cand_query[order], cand_doc[order], scores[order]
    edges = bounds(q)
    sizes = np.diff(edges)
    rank = np.arange(len(q), dtype=np.int64) - np.repeat(edges[:-1], sizes) + 1
    if depth is not None:
        keep = rank <= depth
        q, d, s, rank = q[keep], d[keep], s[keep], rank[keep]
    return q, d, rank, s
