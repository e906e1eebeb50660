"""Agreement between two rankings of documents for one query: RBO, Kendall's τ_b, τ_AP, overlap.

A run's ranking of a query is read as trec_eval reads it: score descending; equal scores
are a tie group for RBO and τ_b, and are ordered by docno descending where a measure needs
one order (τ_AP, the first k). Per query, with X and Y the two rankings:

- ``rbo``: rank-biased overlap with ties (:mod:`.rbo`; Corsi & Urbano 2024), its extrapolated
  value and min/max bounds, variant w, a or b, persistence p;
- ``tau-b``: Kendall's τ_b (Kendall 1945) between the scores of the documents both retrieved
  (tied scores as τ_b counts them); undefined with fewer than two such documents or no
  untied pair;
- ``tau-ap``: AP correlation (Yilmaz, Aslam & Robertson 2008, eq. 3) of X against Y on the
  documents both retrieved, τ_AP = 2/(n − 1) Σ_{i=2}^{n} C(i)/(i − 1) − 1, C(i) the documents
  above X's i-th that Y also ranks above it; asymmetric (Y is the reference); undefined for
  n < 2;
- ``overlap@k``: |X_k ∩ Y_k| / k and ``jaccard@k``: |X_k ∩ Y_k| / |X_k ∪ Y_k|, X_k the first k
  documents (fewer if the list is shorter; jaccard of two empty sets undefined).

A document retrieved by one run only counts in RBO and the overlaps, not in τ_b and τ_AP
(they compare orders of the same items). Undefined values are NaN.
"""

from __future__ import annotations

import numpy as np

from .rbo import Ranked, rbo


def rbo_of(x_doc, x_score, y_doc, y_score, p: float, variant: str, depth: int | None = None) -> dict:
    x, y = _cut(x_doc, x_score, depth), _cut(y_doc, y_score, depth)
    return rbo(Ranked.of(*x), Ranked.of(*y), p, variant)


def _cut(doc, score, depth):
    """The first ``depth`` documents in trec_eval's order (doc codes are in docno order)."""
    if depth is None or len(doc) <= depth:
        return doc, score
    keep = np.lexsort((-doc, -score))[:depth]
    return doc[keep], score[keep]


def tau_b(x_doc, x_score, y_doc, y_score) -> float:
    """Kendall's τ_b on the common documents."""
    common, i, j = np.intersect1d(x_doc, y_doc, assume_unique=True, return_indices=True)
    if len(common) < 2:
        return float("nan")
    from ..measures.pairs import pair_counts
    from ..measures.tau import group_tau

    counts = pair_counts(np.asarray(x_score, float)[i], np.asarray(y_score, float)[j],
                         np.array([0, len(common)]))
    return float(group_tau("b", counts)[0])


def tau_ap(x_doc, x_score, y_doc, y_score) -> float:
    """τ_AP of X against the reference Y on the common documents (orders: trec_eval's)."""
    common, i, j = np.intersect1d(x_doc, y_doc, assume_unique=True, return_indices=True)
    n = len(common)
    if n < 2:
        return float("nan")
    x_rank = np.empty(n, np.int64)
    x_rank[np.lexsort((-common, -np.asarray(x_score, float)[i]))] = np.arange(n)
    y_rank = np.empty(n, np.int64)
    y_rank[np.lexsort((-common, -np.asarray(y_score, float)[j]))] = np.arange(n)
    seq = y_rank[np.argsort(x_rank)]  # Y's rank of X's 1st, 2nd, ... document
    above = np.zeros(n)
    for start in range(0, n, 512):  # C(i): earlier in X and earlier in Y, in blocks of rows
        rows = np.arange(start, min(n, start + 512))
        earlier = np.arange(n)[None, :] < rows[:, None]
        above[rows] = (earlier & (seq[None, :] < seq[rows][:, None])).sum(axis=1)
    i_ = np.arange(1, n)
    return float(2.0 / (n - 1) * np.sum(above[1:] / i_) - 1.0)


def overlaps(x_doc, x_score, y_doc, y_score, k: int) -> tuple[float, float]:
    """(overlap@k, jaccard@k)."""
    a, b = _cut(x_doc, x_score, k)[0], _cut(y_doc, y_score, k)[0]
    inter = len(np.intersect1d(a, b, assume_unique=True))
    union = len(a) + len(b) - inter
    return inter / k, (inter / union if union else float("nan"))
