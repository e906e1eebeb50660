"""How a ranking agrees with the qrels' order: Compat (Clarke, Vtyurina & Smucker 2021) and pairwise
Accuracy, as ir_measures computes them (its compat and accuracy providers).

Notation as in :mod:`rankeval_cli.measures.trec.counts`; a_x the position of document x in the run,
b_x in the *ideal ranking*: the judged documents of grade > 0, grade descending, those of one grade
in the run's order (the retrieved first).
"""

from __future__ import annotations

import numpy as np

from ..trec.queries import NONPOOL
from ..trec.registry import Param, measure, spelling
from ..trec.spell import CUTOFF, REL, common, named_value
from .diversity_batch import powers


def _hypergeometric_pmf(m: int, k: int) -> np.ndarray:
    """(m × k + 1): P(X_t = h), X_t the successes among t draws (t = 0 … m − 1) from m − 1 items holding k."""
    n = m - 1
    out = np.zeros((m, k + 1))
    pmf = np.zeros(k + 1)
    pmf[0] = 1.0
    x = np.arange(k + 1)
    for t in range(m):
        out[t] = pmf
        if t < n:
            stay = pmf * np.clip(n - t - (k - x), 0, None) / (n - t)
            move = np.r_[0.0, pmf[:-1] * (k - x[:-1]) / (n - t)]
            pmf = stay + move
    return out


# ---- Compat ----------------------------------------------------------------------------------------

def _compat_parts(qb):
    """Per retrieved relevant row its ideal position b (before the ties' expectation), the per-query
    number L of documents of grade > 0 and the depth max(n, L)."""
    judged_group = qb.judged_group
    positive = qb.judged_grade > 0
    L = np.bincount(judged_group[positive], minlength=qb.n_queries)
    rows = np.flatnonzero(qb.rel > 0)
    group, grade = qb.group[rows], qb.rel[rows]
    key = group * (int(qb.rel.max(initial=0)) + 2) + grade
    order = np.lexsort((rows, key))
    first = np.r_[True, key[order][1:] != key[order][:-1]] if len(order) else np.zeros(0, dtype=bool)
    start = np.maximum.accumulate(np.where(first, np.arange(len(order)), 0)) if len(order) else order
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order)) - start
    higher = _count_higher(qb, group, grade)
    return rows, higher + rank + 1, L, np.maximum(qb.num_ret, L)


def _count_higher(qb, group, grade) -> np.ndarray:
    """Per (query, grade): the query's judged documents of a larger grade."""
    span = int(max(qb.judged_grade.max(initial=0), grade.max(initial=0))) + 2
    keys = np.sort(qb.judged_group * span + qb.judged_grade)
    return np.searchsorted(keys, (group + 1) * span, side="left") - np.searchsorted(keys, group * span + grade,
                                                                                  side="right")


def _suffix_weights(p: float, depth: np.ndarray):
    """S(m) = Σ_{d=m}^{depth} p^{d−1}/d, per query, as a function of (query, m); and Σ_{d≤depth} p^{d−1}."""
    top = int(depth.max(initial=1))
    w = powers(p, top) / np.arange(1, top + 2)
    cum = np.concatenate(([0.0], np.cumsum(w[:top])))
    norm = np.concatenate(([0.0], np.cumsum(powers(p, top)[:top])))[depth]

    def S(group, m):
        m = np.asarray(m)
        return np.where(m <= depth[group], cum[depth[group]] - cum[np.clip(m, 1, None) - 1], 0.0)
    return S, norm


@measure("compat", "Clarke, Vtyurina & Smucker 2021 (ir_measures' compat provider)", kind="named",
         named=(Param("p", "float", 0.95, "persistence of the rank-biased overlap"),
                Param("normalize", "bool", True, "divide by the ideal ranking's own overlap")),
         in_trec_eval=False, family="ordering")
def compat(qb, params):
    """Compat = RBO(run, ideal) = Σ_{d ≤ D} p^{d−1} |run_d ∩ ideal_d| / d / Σ_{d ≤ D} p^{d−1},
    D = max(n, L), run_d and ideal_d the first d documents (Clarke, Vtyurina & Smucker 2021, eq. 3
    with Webber et al. 2010's RBO); normalized by RBO(ideal, ideal); a document counts from
    d = max(a_x, b_x) on. 0 without a document of grade > 0. The expected value over tied orders: a_x
    is uniform over x's block, and b_x counts the documents of x's grade above it in the block,
    hypergeometric given a_x."""
    p = params.named()
    rows, b, L, depth = _compat_parts(qb)
    S, norm = _suffix_weights(p["p"], depth)
    group = qb.group[rows]
    if qb.expected:
        score = _expected_overlap(qb, rows, b, S)
    else:
        score = np.bincount(group, weights=S(group, np.maximum(qb.pos[rows], b)), minlength=qb.n_queries)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.where(norm > 0, score / np.where(norm > 0, norm, 1.0), 0.0)
        if p["normalize"]:
            ideal_rows = np.repeat(np.arange(qb.n_queries), L)
            at = np.arange(int(L.sum())) - np.repeat(np.cumsum(L) - L, L) + 1
            best = np.bincount(ideal_rows, weights=S(ideal_rows, at), minlength=qb.n_queries) / \
                np.where(norm > 0, norm, 1.0)
            value = np.where(best > 0, value / np.where(best > 0, best, 1.0), value)
    return value[:, None]


def _expected_overlap(qb, rows, b, S) -> np.ndarray:
    """E[Σ_x S(max(a_x, b_x))] when tied blocks are in random order (see :func:`compat`)."""
    block = qb.block
    first_pos = qb.pos[np.searchsorted(block, np.arange(int(block.max(initial=-1)) + 1))] if len(block) else \
        np.zeros(0, np.int64)
    size = np.bincount(block) if len(block) else np.zeros(0, np.int64)
    blk, grade = block[rows], qb.rel[rows]
    key = blk * (int(qb.rel.max(initial=0)) + 2) + grade
    out = np.zeros(qb.n_queries)
    for k in np.unique(key).tolist():
        members = np.flatnonzero(key == k)
        x = members[0]
        m, c = int(size[blk[x]]), len(members)
        a = int(first_pos[blk[x]])
        base = int(b[members].min())  # the ideal position of the block's first of this grade
        pmf = _hypergeometric_pmf(m, c - 1)
        t = np.arange(m)[:, None]
        h = np.arange(c)[None, :]
        group = np.full((m, c), qb.group[rows[x]])
        out[qb.group[rows[x]]] += c / m * float((pmf * S(group, np.maximum(a + t, base + h))).sum())
    return out


compat.expected(compat)


@spelling("Compat", params=(Param("p", "float", 0.95, "persistence of the rank-biased overlap"),
                            Param("normalize", "bool", True, "divide by the ideal ranking's own overlap")),
          peer="compat", examples=("Compat", "Compat(p=0.8)", "Compat(normalize=False)"))
def _spell_compat(name, p, version):
    return named_value(name, "compat", p)


# ---- Accuracy --------------------------------------------------------------------------------------

@measure("accuracy", "ir_measures (its accuracy provider)", kind="named", named=(CUTOFF,), summary="defined",
         in_trec_eval=False, family="ordering")
def accuracy(qb, params):
    """Accuracy@k = (pairs of a relevant and a non-relevant document among the first k with the relevant
    one above) / (relevant × non-relevant documents there); undefined (left out of the mean, as
    ir_measures leaves it out) without both. A document the qrels lack has grade 0. The expected
    value over tied orders: a pair within a block is in order with probability 1/2, and the block
    cut by k holds a hypergeometric share of its relevant documents; the mean over the orders where it
    is defined."""
    cutoff = params.named()["cutoff"]
    keep = np.ones(len(qb.rel), dtype=bool) if cutoff is None else qb.pos <= cutoff
    relevant = (np.where(qb.rel == NONPOOL, 0, qb.rel) >= qb.level).astype(np.float64)  # unjudged: grade 0
    if qb.expected:
        return _expected_accuracy(qb, relevant, cutoff)[:, None]
    group = qb.group[keep]
    rel = relevant[keep]
    nonrel_above = np.cumsum(1.0 - rel) - (1.0 - rel)
    nonrel_above -= np.repeat(np.r_[0.0, np.cumsum(np.bincount(group, weights=1.0 - rel,
                                                                 minlength=qb.n_queries))][:-1],
                              np.bincount(group, minlength=qb.n_queries))
    wrong = np.bincount(group, weights=rel * nonrel_above, minlength=qb.n_queries)
    R = np.bincount(group, weights=rel, minlength=qb.n_queries)
    N = np.bincount(group, weights=1.0 - rel, minlength=qb.n_queries)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(R * N > 0, 1.0 - wrong / (R * N), np.nan)[:, None]


def _expected_accuracy(qb, relevant, cutoff) -> np.ndarray:
    """E[Accuracy@k | defined] over the orders of tied blocks (see :func:`accuracy`)."""
    out = np.full(qb.n_queries, np.nan)
    for q in range(qb.n_queries):
        lo, hi = qb.offsets[q], qb.offsets[q + 1]
        rel, block, pos = relevant[lo:hi], qb.block[lo:hi], qb.pos[lo:hi]
        k = hi - lo if cutoff is None else min(cutoff, hi - lo)
        R = N = right = 0.0
        start = 0
        while start < k:
            end = start + int(np.sum(block == block[start]))
            r, n = float(rel[start:end].sum()), float((end - start) - rel[start:end].sum())
            if end > k:  # the block cut by k: a hypergeometric share of it within
                out[q] = _cut_block(R, N, right, r, n, k - start)
                break
            right += R * n + r * n / 2.0
            R, N = R + r, N + n
            start = end
        else:
            out[q] = 1.0 - (R * N - right) / (R * N) if R * N > 0 else np.nan
    return out


def _cut_block(R, N, right, r, n, t) -> float:
    """E[accuracy | defined] when t of a block of r relevant and n other documents fall within the cut."""
    from math import comb

    total = weight = 0.0
    for r_in in range(max(0, t - int(n)), min(int(r), t) + 1):
        n_in = t - r_in
        prob = comb(int(r), r_in) * comb(int(n), n_in) / comb(int(r + n), t)
        pairs = (R + r_in) * (N + n_in)
        if pairs > 0 and prob > 0:
            total += prob * (right + R * n_in + r_in * n_in / 2.0) / pairs
            weight += prob
    return total / weight if weight > 0 else np.nan


accuracy.expected(accuracy)


@spelling("Accuracy", params=(CUTOFF, REL), at="cutoff", peer="accuracy",
          examples=("Accuracy", "Accuracy@10", "Accuracy(rel=2)@5"))
def _spell_accuracy(name, p, version):
    return named_value(name, "accuracy", p, **common(p))
