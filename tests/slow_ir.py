"""Obvious one-query implementations of the IR measures, written from trec_eval's
m_*.c loops and gdeval.pl, for checking the vectorized ones (tests only)."""

from __future__ import annotations

import math

NONPOOL, UNJUDGED = -1, -2


def trec_key_sort(docs):
    """docs: [(docno, score)] -> docnos in trec_eval's order (score desc, docno desc, bytes)."""
    return [d for d, s in sorted(docs, key=lambda x: (x[1], x[0].encode()), reverse=True)]


def rel_list(ranked, qrels: dict):
    out = []
    for d in ranked:
        if d not in qrels:
            out.append(NONPOOL)
        elif qrels[d] < 0:
            out.append(UNJUDGED)
        else:
            out.append(qrels[d])
    return out


def measure(name: str, k, rels: list, qrels: dict, level: int = 1, gain: str = "linear", rel_max: float = 4):
    """Value of one measure for one query; ``rels`` = relevance values in ranked order."""
    grades = [g for g in qrels.values() if g >= 0]
    R = sum(1 for g in grades if g >= level)
    N = sum(1 for g in grades if g < level)
    rel = [1 if r >= level else 0 for r in rels]
    n = len(rels)
    if name == "p":
        return sum(rel[:k]) / k
    if name == "recall":
        return sum(rel[:k]) / R if R else 0.0
    if name == "ap":
        top = rels if k is None else rels[:k]
        s, so_far = 0.0, 0
        for i, r in enumerate(top):
            if r >= level:
                so_far += 1
                s += so_far / (i + 1)
        return s / R if R else 0.0
    if name == "rr":
        top = rel if k is None else rel[:k]
        for i, r in enumerate(top):
            if r:
                return 1.0 / (i + 1)
        return 0.0
    if name == "rprec":
        return sum(rel[:R]) / R if R and n else 0.0
    if name == "success":
        return 1.0 if any(rel[:k]) else 0.0
    if name == "num_ret":
        return float(n)
    if name == "num_rel":
        return float(R)
    if name == "num_rel_ret":
        return float(sum(rel))
    if name == "ndcg":
        g = (lambda x: x) if gain == "linear" else (lambda x: 2.0 ** x - 1)
        top = rels if k is None else rels[:k]
        dcg = sum(g(max(r, 0)) / math.log2(i + 2) for i, r in enumerate(top))
        ideal = sorted(grades, reverse=True)
        ideal = ideal if k is None else ideal[:k]
        idcg = sum(g(x) / math.log2(i + 2) for i, x in enumerate(ideal))
        return dcg / idcg if idcg > 0 else 0.0
    if name == "bpref":
        nonrel_so_far, total = 0, 0.0
        for r in rels:
            if r in (NONPOOL, UNJUDGED):
                continue
            if 0 <= r < level:
                nonrel_so_far += 1
            else:
                total += 1.0 - min(nonrel_so_far, R) / min(N, R) if nonrel_so_far > 0 else 1.0
        return total / R if R else 0.0
    if name == "err":
        top = rels if k is None else rels[:k]
        score, decay = 0.0, 1.0
        for i, r in enumerate(top):
            p = (2.0 ** max(r, 0) - 1) / 2.0 ** rel_max
            score += p * decay / (i + 1)
            decay *= 1 - p
        return score
    if name == "judged":
        top = rels[:k]
        return sum(1 for r in top if r != NONPOOL) / len(top) if top else 0.0
    raise ValueError(name)
