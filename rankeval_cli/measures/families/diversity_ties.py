"""The diversity measures' expected values when every block of tied scores is in uniformly
random order (``--tie-policy expected``), exactly: no enumeration, no sampling.

For a block of m documents at positions a … a + m − 1 holding r_j documents relevant to subtopic
j, and A_j documents relevant to j in the blocks above it: the document at position a + t is
relevant to j with probability r_j / m; given that, the number X of documents relevant to j
among the t block positions above it is hypergeometric (t draws from the block's m − 1 others,
r_j − 1 of them relevant), so

    E[G_{a+t}] = Σ_j (r_j / m) (1 − α)^{A_j} E[(1 − α)^X]

and every measure that sums G_i with position weights (alpha-DCG, ERR-IA, NRBP) is that sum of
expected gains; the ideal ranking does not depend on the order. AP-IA uses E[X] = t(r_j − 1)/(m − 1),
P-IA a document's chance to sit within the first k, (positions of its block ≤ k)/m, and S-recall
the chance that the first block holding a document relevant to j puts none in its t positions
within the first k, C(m − r_j, t) / C(m, t).
"""

from __future__ import annotations

import math

import numpy as np

from ..trec.queries import Events
from .diversity_batch import powers


def blocks(batch):
    """Per retrieved row: its tie block (numbered over the batch), the block's first position and size."""
    def compute():
        tb = np.asarray(batch.ranking.tie_block)
        starts = np.r_[True, tb[1:] != tb[:-1]] if len(tb) else np.zeros(0, dtype=bool)
        if len(tb):
            starts[batch.offsets[:-1][batch.n > 0]] = True
        block = np.cumsum(starts) - 1
        first_row = np.flatnonzero(starts)
        return block, first_row, np.bincount(block) if len(block) else np.zeros(0, np.int64)
    return batch.memo("blocks", compute)


def _groups(batch):
    """Per (block, subtopic) holding relevant documents: the block, the global subtopic, r (its
    relevant documents in the block) and A (those in the query's blocks above)."""
    def compute():
        row, gsub, _ = batch.pairs
        block, _, _ = blocks(batch)
        b = block[row]
        order = np.lexsort((b, gsub))
        g, bb = gsub[order], b[order]
        new = np.r_[True, (g[1:] != g[:-1]) | (bb[1:] != bb[:-1])] if len(g) else np.zeros(0, dtype=bool)
        idx = np.flatnonzero(new)
        r = np.diff(np.r_[idx, len(g)])
        g_idx, b_idx = g[idx], bb[idx]
        before = np.cumsum(r) - r
        first = np.r_[True, g_idx[1:] != g_idx[:-1]] if len(idx) else np.zeros(0, dtype=bool)
        base = np.maximum.accumulate(np.where(first, before, 0)) if len(idx) else before
        return b_idx, g_idx, r, before - base
    return batch.memo("tie_groups", compute)


def _hypergeometric_pgf(m: int, k: int, z: float) -> np.ndarray:
    """E[z^X_t] for t = 0 … m − 1, X_t the successes in t draws from m − 1 items holding k successes."""
    n = m - 1
    pmf = np.zeros(k + 1)
    pmf[0] = 1.0
    out = np.empty(m)
    zs = z ** np.arange(k + 1)
    for t in range(m):
        out[t] = float(pmf @ zs)
        if t < n:
            x = np.arange(k + 1)
            stay = pmf * (n - t - (k - x)) / (n - t)
            move = np.r_[0.0, pmf[:-1] * (k - x[:-1]) / (n - t)]
            pmf = np.clip(stay, 0.0, None) + move
    return out


def expected_gains(batch, alpha: float) -> Events:
    """E[G_i] of every position, as events."""
    def compute():
        b, g, r, A = _groups(batch)
        block, first_row, size = blocks(batch)
        z = 1.0 - alpha
        m = size[b]
        tables = {key: _hypergeometric_pgf(key[0], key[1], z) for key in set(zip(m.tolist(), (r - 1).tolist()))}
        zA = powers(z, int(A.max()) if len(A) else 0)[A]
        t = np.arange(int(m.sum())) - np.repeat(np.cumsum(m) - m, m)
        owner = np.repeat(np.arange(len(b)), m)
        pgf = np.concatenate([tables[(mm, rr - 1)] for mm, rr in zip(m.tolist(), r.tolist())]) if len(b) else \
            np.zeros(0)
        terms = np.repeat(r / m * zA, m) * pgf
        rows = first_row[b[owner]] + t
        gain = np.bincount(rows, weights=terms, minlength=len(batch.pos))
        keep = np.flatnonzero(gain > 0)
        return Events(batch.group[keep], batch.pos[keep], gain[keep], batch.n_queries)
    return batch.memo(("expected_gains", alpha), compute)


def expected_ap_totals(batch) -> np.ndarray:
    """Per subtopic j: E[Σ_{i relevant to j} (documents relevant to j up to i)/i]."""
    b, g, r, A = _groups(batch)
    _, first_row, size = blocks(batch)
    m = size[b]
    a = batch.pos[first_row[b]]
    owner = np.repeat(np.arange(len(b)), m)
    t = np.arange(int(m.sum())) - np.repeat(np.cumsum(m) - m, m)
    share = np.where(m > 1, (r - 1) / np.maximum(m - 1, 1), 0.0)
    terms = (A[owner] + 1 + t * share[owner]) / (a[owner] + t) * (r / m)[owner]
    return np.bincount(g[owner], weights=terms, minlength=len(batch.nrel)) if len(b) else np.zeros(len(batch.nrel))


def _inside(batch, k: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Per row, the chance it sits within the first k: (positions of its block ≤ k) / block size."""
    block, first_row, size = blocks(batch)
    a = batch.pos[first_row[block[rows]]]
    m = size[block[rows]]
    return np.clip(k[batch.group[rows]] - a + 1, 0, m) / m


def expected_pair_count(batch, k: np.ndarray) -> np.ndarray:
    """Per query, E[relevant (document, subtopic) pairs within the first k]."""
    row, _, _ = batch.pairs
    return np.bincount(batch.group[row], weights=_inside(batch, k, row), minlength=batch.n_queries)


def expected_coverage(batch, k: np.ndarray) -> np.ndarray:
    """Per query, E[subtopics with a relevant document within the first k]."""
    b, g, r, A = _groups(batch)
    _, first_row, size = blocks(batch)
    first = A == 0  # the first block holding a document relevant to the subtopic
    b, g, r = b[first], g[first], r[first]
    m = size[b]
    a = batch.pos[first_row[b]]
    group = batch.group[first_row[b]]
    t = np.clip(k[group] - a + 1, 0, m)
    none = np.array([_none_drawn(int(mm), int(rr), int(tt)) for mm, rr, tt in zip(m, r, t)])
    return np.bincount(group, weights=1.0 - none, minlength=batch.n_queries) if len(b) else \
        np.zeros(batch.n_queries)


def _none_drawn(m: int, r: int, t: int) -> float:
    """C(m − r, t) / C(m, t): no relevant document among t of m positions holding r."""
    if t > m - r:
        return 0.0
    return math.exp(math.lgamma(m - r + 1) - math.lgamma(m - r - t + 1) - math.lgamma(m + 1) + math.lgamma(m - t + 1))
