"""First Answer Reciprocal Rank and Mean Reciprocal Rank (Avramidis 2013 §3.2, eqs. 5-6).

Per group, the relevant items are those with the best gold rank (with graded
gold, ``relevance="grades"``: grade > 0, the trec_eval convention). With r the
predicted position of the first relevant item, RR = 1/r (0 when r > k for RR@k);
MRR is the mean over groups. A group without a relevant item is undefined (NaN).

Predicted ties: ``pessimistic`` = relevant items last in their
tied block; with one relevant item in the block r is its ``ceiling`` rank, what the
original RankEval computed. With c > 1 relevant items tied together the worst order
puts the first of them at (block end − c + 1); RankEval 2013 returned 1/(block end),
a value no order reaches. ``optimistic`` = ``floor``. ``expected``: let the
first block containing a relevant item start at position s, hold m items of which
c are relevant, and J be the offset of its first relevant item under a uniformly
random order. P(J ≥ j) = Π_{t<j} (m−c−t)/(m−t), so P(J = j) = P(J ≥ j)·c/(m−j) and
E[RR] = Σ_j P(J = j) / (s + j) (terms with s + j > k dropped).
"""

from __future__ import annotations

import numpy as np

from .ties import (DEFAULT_TIE_POLICY, Prepared, blocks_by_size, check_k, prepare_group, segment_reduce,
                   stream, summarize)


def rr_values(prep: Prepared, k: int | None = None) -> np.ndarray:
    """Reciprocal rank of every group of ``prep`` (NaN without a relevant item)."""
    check_k(k)
    first = segment_reduce(np.minimum, np.where(prep.relevant, prep.pos, np.inf), prep.offsets, np.inf)
    out = np.full(prep.n_groups, np.nan)
    found = np.isfinite(first)
    if prep.tie_policy != "expected":
        out[found] = 1.0 / first[found]
        if k is not None:
            out[found & (first > k)] = 0.0
        return out
    out[found] = _expected_first_block(prep, k)
    return out


def _expected_first_block(prep: Prepared, k: int | None) -> np.ndarray:
    """E[1/r] within the first block holding a relevant item, one value per such group."""
    rel_rows = np.flatnonzero(prep.relevant)  # may be empty: no group of the batch has one
    first_rows = rel_rows[np.diff(prep.group[rel_rows], prepend=-1) != 0]
    start = prep.block_first[first_rows]
    size = prep.block_size[first_rows]
    n_relevant = np.bincount(prep.block, weights=prep.relevant)[prep.block[first_rows]]
    values = np.empty(len(first_rows))
    for idx, _ in blocks_by_size(first_rows, size):
        m = int(size[idx[0]])
        c = n_relevant[idx, None]
        j = np.arange(m)[None, :]
        ratio = np.clip((m - c - j) / np.maximum(m - j, 1), 0.0, None)  # P(J > j | J ≥ j)
        survive = np.ones((len(idx), m))
        np.cumprod(ratio[:, :-1], axis=1, out=survive[:, 1:])
        prob = survive * c / (m - j)
        position = start[idx, None] + j
        weight = 1.0 / position if k is None else np.where(position <= k, 1.0 / position, 0.0)
        values[idx] = (prob * weight).sum(axis=1)
    return values


def reciprocal_rank(gold, pred, *, tie_policy: str = DEFAULT_TIE_POLICY, relevance: str = "ranks",
                    k: int | None = None, missing_pred: str = "drop") -> float:
    """RR of one group. ``gold``/``pred`` are ranks (lower = better), NaN = missing.

    >>> reciprocal_rank([1, 2, 3], [2, 1, 3])
    0.5
    >>> reciprocal_rank([1, 2, 3], [1, 1, 3])  # pessimistic: the best item at position 2
    0.5
    """
    prep = prepare_group(gold, pred, relevance=relevance, tie_policy=tie_policy, missing_pred=missing_pred)
    return float(rr_values(prep, k)[0])


def rr_stream(batches, *, tie_policy: str = DEFAULT_TIE_POLICY, relevance: str = "ranks",
              k: int | None = None, missing_pred: str = "drop"):
    """Yield per-group RR (:class:`~.ties.Scores`) for each batch."""
    options = dict(relevance=relevance, tie_policy=tie_policy, missing_pred=missing_pred)
    return stream(rr_values, batches, options, k=k)


def mrr(batches, **options):
    """MRR over a stream of batches: a :class:`~.ties.MeanSummary` named ``mrr``."""
    return summarize("mrr", rr_stream(batches, **options))
