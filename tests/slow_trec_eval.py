"""trec_eval's measures for one query, as plain loops transcribed from its m_*.c files
(tests only): the obvious implementation the vectorized registry is checked against.

``rels``: relevance values in ranked order (grade, −1 not in the qrels, −2 unjudged);
``grades``: every qrels grade of the query (negative ones included); ``level``: -l.
"""

from __future__ import annotations

import math

import numpy as np

NONPOOL, UNJUDGED = -1, -2


class Q:
    def __init__(self, rels, grades, level=1, version=10, num_docs=0):
        self.rels, self.level, self.version, self.num_docs = list(rels), level, version, num_docs
        judged = [g for g in grades if g >= 0]
        top = max(judged) if judged else -1
        self.rel_levels = [sum(1 for g in judged if g == v) for v in range(top + 1)]
        self.num_rel_levels = top + 1
        # numpy integers: a division by zero gives inf or NaN, as in C
        self.num_ret = np.int64(len(self.rels))
        self.num_rel = np.int64(sum(c for v, c in enumerate(self.rel_levels) if v >= level))
        self.num_rel_ret = np.int64(sum(1 for r in self.rels if r >= 0 and r >= level))
        self.nonpool = sum(1 for r in self.rels if r == NONPOOL)
        self.unjudged = sum(1 for r in self.rels if r == UNJUDGED)

    def rel_at(self, cut):
        return np.int64(sum(1 for r in self.rels[:cut] if r >= self.level))


def cutoff_values(q, cutoffs, fn):
    return [fn(min(k, q.num_ret), k) for k in cutoffs]


def P(q, cutoffs):
    return [q.rel_at(k) / k for k in cutoffs]


def recall(q, cutoffs):
    return [q.rel_at(k) / q.num_rel if q.num_rel else 0.0 for k in cutoffs]


def relative_P(q, cutoffs):
    return [q.rel_at(k) / min(k, q.num_rel) if q.num_rel else 0.0 for k in cutoffs]


def success(q, cutoffs):
    return [1.0 if q.rel_at(k) else 0.0 for k in cutoffs]


def unj(q, cutoffs):
    return [sum(1 for r in q.rels[:k] if r < 0) / k for k in cutoffs]


def ap_sum(q, cut=None):
    s, so_far = 0.0, 0
    for i, r in enumerate(q.rels[:cut]):
        if r >= q.level:
            so_far += 1
            s += so_far / (i + 1)
    return s, so_far


def map_(q):
    s, so_far = ap_sum(q)
    return s / q.num_rel if so_far else 0.0


def map_cut(q, cutoffs):
    return [ap_sum(q, k)[0] / q.num_rel if q.num_rel else 0.0 for k in cutoffs]


def gm_map(q):
    s, so_far = ap_sum(q)
    if so_far:
        s = s / q.num_rel
    return float(np.log(max(s, 0.00001)))


def Rprec(q):
    look = min(q.num_ret, q.num_rel)
    return q.rel_at(look) / q.num_rel if look else 0.0


def recip_rank(q):
    for i, r in enumerate(q.rels):
        if r >= q.level:
            return 1.0 / (i + 1)
    return 0.0


def bpref(q):
    num_nonrel = sum(q.rel_levels[j] for j in range(max(q.level, 0)) if j < len(q.rel_levels))
    nonrel, value = 0, 0.0
    for r in q.rels:
        if r in (NONPOOL, UNJUDGED):
            continue
        if 0 <= r < q.level:
            nonrel += 1
        else:
            value += 1.0 - min(nonrel, q.num_rel) / min(num_nonrel, q.num_rel) if nonrel else 1.0
    return value / q.num_rel if q.num_rel else value


def infAP(q):
    nonrel = rel = unj_ = 0
    value = 0.0
    for j, r in enumerate(q.rels):
        if r == NONPOOL:
            continue
        if r == UNJUDGED:
            unj_ += 1
            continue
        if 0 <= r < q.level:
            nonrel += 1
        else:
            rel += 1
            if j == 0:
                value += 1.0
            else:
                fj = float(j)
                value += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((rel - 1 + nonrel + unj_) / fj) * \
                    ((rel - 1 + 0.00001) / (rel - 1 + nonrel + 2 * 0.00001))
    return value / q.num_rel if q.num_rel else value


def yaap(q):
    s, _ = ap_sum(q)
    return float(np.log(np.float64(1.0 + s) / (1.0 + q.num_rel - s)))


def binG(q):
    s, so_far = 0.0, 0
    for i, r in enumerate(q.rels):
        if r >= q.level:
            so_far += 1
            s += 1.0 / math.log2(3 + i - so_far)
    return s / q.num_rel if so_far else 0.0


def _cutoffs_of_recall(q, fractions):
    if q.version >= 10:
        return [int(math.floor(x * q.num_rel + 0.5)) if x * q.num_rel >= 0 else -int(math.floor(-x * q.num_rel + 0.5))
                for x in fractions]
    return [int(x * q.num_rel + 0.9) for x in fractions]


def _interpolated(q, fractions):
    """(values per fraction) by trec_eval's backward loop."""
    cutoffs = _cutoffs_of_recall(q, fractions)
    out = [0.0] * len(cutoffs)
    cur = len(cutoffs) - 1
    while cur >= 0 and cutoffs[cur] > q.num_rel_ret:
        cur -= 1
    precis = q.num_rel_ret / q.num_ret if q.num_ret else float("nan")
    best = precis
    so_far = q.num_rel_ret
    i = q.num_ret
    while i > 0 and so_far > 0:
        precis = so_far / i
        if best < precis:
            best = precis
        if q.rels[i - 1] >= q.level:
            while cur >= 0 and so_far == cutoffs[cur]:
                out[cur] = best
                cur -= 1
            so_far -= 1
        i -= 1
    while cur >= 0:
        out[cur] = best
        cur -= 1
    return out


def iprec_at_recall(q, fractions):
    return _interpolated(q, fractions)


def eleven_pt(q, fractions):
    values = _interpolated(q, fractions)
    total = 0.0
    for v in reversed(values):
        total += v
    return total / len(fractions)


def Rprec_mult(q, fractions):
    cutoffs = [int(x * q.num_rel + 0.9) for x in fractions]
    out = [0.0] * len(cutoffs)
    cur = len(cutoffs) - 1
    while cur >= 0 and cutoffs[cur] > q.num_ret:
        out[cur] = q.num_rel_ret / cutoffs[cur]
        cur -= 1
    so_far = q.num_rel_ret
    i = q.num_ret
    while i > 0 and so_far > 0:
        while cur >= 0 and i == cutoffs[cur]:
            out[cur] = so_far / i
            cur -= 1
        if q.rels[i - 1] >= q.level:
            so_far -= 1
        i -= 1
    return out


def set_P(q):
    return q.num_rel_ret / q.num_ret if q.num_ret else 0.0


def set_relative_P(q):
    return q.num_rel_ret / min(q.num_ret, q.num_rel) if q.num_ret and q.num_rel else 0.0


def set_recall(q):
    return q.num_rel_ret / q.num_rel if q.num_rel else 0.0


def set_map(q):
    return (q.num_rel_ret * q.num_rel_ret) / (q.num_ret * q.num_rel) if q.num_ret and q.num_rel else 0.0


def set_F(q, beta=1.0):
    if not q.num_rel_ret:
        return 0.0
    p, r = q.num_rel_ret / q.num_ret, q.num_rel_ret / q.num_rel
    return (beta + 1.0) * p * r / (beta * p + r)


def utility(q, p1=1.0, p2=-1.0, p3=0.0, p4=0.0):
    a = q.num_rel_ret
    return p1 * a + p2 * (q.num_ret - a) + p3 * (q.num_rel - a) + p4 * (q.num_docs + a - q.num_ret - q.num_rel)


def num_nonrel_judged_ret(q):
    return q.num_ret - q.nonpool - q.unjudged - q.num_rel_ret


def relstring(q, length=10):
    out = ""
    for r in q.rels[:length]:
        out += ">" if r > 9 else str(r) if r >= 0 else "-" if r == NONPOOL else "." if r == UNJUDGED else "<"
    return out


# ---- gains: default parameters only (the grades) ------------------------------------------------

def _ideal(q):
    """The ideal gains: judged grades ≥ 1, highest first."""
    out = []
    for level in range(q.num_rel_levels - 1, 0, -1):
        out += [float(level)] * q.rel_levels[level]
    return out


def _gain(r):
    return float(r) if r > 0 else 0.0


def ndcg(q):
    dcg = sum(_gain(r) / math.log2(i + 2) for i, r in enumerate(q.rels) if _gain(r))
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(_ideal(q)))
    return dcg / idcg if idcg > 0 else 0.0


def ndcg_p(q):
    """m_ndcg_p.c: the first position undiscounted, then gain / log2(i); 0 without a relevant document retrieved."""
    def dcg(gains):
        return sum(g if i == 0 else g / math.log2(i + 1) for i, g in enumerate(gains) if g)
    ideal = dcg(_ideal(q))
    return np.float64(dcg([_gain(r) for r in q.rels])) / np.float64(ideal) if q.num_rel_ret > 0 else 0.0


def ndcg_cut(q, cutoffs):
    ideal = _ideal(q)
    out = []
    for k in cutoffs:
        dcg = sum(_gain(r) / math.log2(i + 2) for i, r in enumerate(q.rels[:k]) if _gain(r))
        idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal[:k]))
        out.append(dcg / idcg if idcg > 0 else dcg)
    return out


def ndcg_rel(q):
    ideal = _ideal(q)
    L = len(ideal)
    dcg, total, r_count = 0.0, 0.0, 0
    for i, r in enumerate(q.rels):
        g = _gain(r)
        if g:
            dcg += g / math.log2(i + 2)
        if g > 0:
            total += dcg / sum(x / math.log2(j + 2) for j, x in enumerate(ideal[:min(i + 1, L)]))
            r_count += 1
    idcg = sum(x / math.log2(j + 2) for j, x in enumerate(ideal))
    if L:
        total += (L - r_count) * dcg / idcg
    return total / L if total > 0 else 0.0


def Rndcg(q):
    if q.num_rel == 0:
        return 0.0
    ideal = _ideal(q)
    L, n = len(ideal), q.num_ret

    def dcg(k):
        return sum(_gain(r) / math.log2(i + 2) for i, r in enumerate(q.rels[:k]) if _gain(r))

    def idcg(k):
        return sum(x / math.log2(j + 2) for j, x in enumerate(ideal[:k]))

    total, count = 0.0, 0
    for c in range(1, L + 1):
        if c == L or ideal[c] != ideal[c - 1]:
            total += dcg(min(c, n)) / idcg(c)
            count += 1
    if L >= 1 and L + 1 < n:
        total += dcg(n) / idcg(L)
        count += 1
    return total / count if count else float("nan")


def G(q):
    ideal = _ideal(q)
    s = c = value = 0.0
    for i, r in enumerate(q.rels):
        g = _gain(r)
        s += g
        c += max(ideal[i], 1.0) if i < len(ideal) else 1.0
        if g:
            value += g / math.log2(2 + c - s)
    total = sum(ideal)
    return value / total if total > 0 else 0.0


def rbp(q, p=0.9):
    gains = [float(v) for v in range(q.num_rel_levels)]
    low, high = min([0.0] + gains), max([0.0] + gains)
    scale = (lambda g: (g - low) / (high - low)) if low < 0 or high > 1 else (lambda g: g)
    total, cur = 0.0, 1.0
    for r in q.rels:
        g = scale(float(r)) if 0 <= r < q.num_rel_levels else 0.0
        if g:
            total += g * cur
        cur *= p
    return (1.0 - p) * total


def rbp_resid(q, p=0.9):
    total, cur, unjudged = 0.0, 1.0, 0
    for r in q.rels:
        if r < 0:
            unjudged += 1
            total += cur
        cur *= p
    return cur + (1 - p) * total if unjudged else 0.0
