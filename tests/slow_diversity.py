"""A slow, obvious transcription of ndeval 4.5's per-topic computations (``ndeval.c``: idealResult,
computeDCG, computeERR, computeNRBP, computeMAP, computePrecision, computeSTRecall), for any
cut-off, one topic at a time in plain Python: the reference of tests/test_ndeval.py."""

from __future__ import annotations

import math


def ideal(judgments: dict, alpha: float) -> list:
    """ndeval's greedy ideal ranking: {docno: set of relevant subtopics} → the docnos in order."""
    gain = {j: 1.0 for rel in judgments.values() for j in rel}
    left = sorted(judgments)
    out = []
    while left:
        best, where = 0.0, None
        for d in left:  # docno ascending; a tie goes to the later (larger) docno
            score = sum(gain[j] for j in sorted(judgments[d]))
            if where is None or score > best or score == best:
                best, where = score, d
        out.append(where)
        left.remove(where)
        for j in judgments[where]:
            gain[j] *= 1.0 - alpha
    return out


def gains(ranking: list, judgments: dict, alpha: float) -> list:
    """G_i of each position: Σ_j over the document's relevant subtopics of (1 − α)^{earlier j-relevant}."""
    gain, out = {}, []
    for d in ranking:
        score = 0.0
        for j in sorted(judgments.get(d, ())):
            g = gain.setdefault(j, 1.0)
            score += g
            gain[j] = g * (1.0 - alpha)
        out.append(score)
    return out


def topic(ranking: list, judgments: dict, alpha: float = 0.5, beta: float = 0.5, k: int = 20) -> dict:
    """Every measure of one topic at cut-off k (``judgments``: relevant subtopics per judged docno)."""
    subs = sorted({j for rel in judgments.values() for j in rel})
    S = len(subs)
    if S == 0:
        return dict(err=0.0, nerr=0.0, dcg=0.0, ndcg=0.0, nrbp=0.0, nnrbp=math.nan, ap=0.0, p=0.0, strec=0.0)
    run, best = gains(ranking, judgments, alpha), gains(ideal(judgments, alpha), judgments, alpha)

    def summed(values, weight):
        total, g = 0.0, 0.0
        ideal_ideal, gain = 0.0, float(S)
        for i in range(k):
            total += (values[i] if i < len(values) else 0.0) * weight(i + 1)
            ideal_ideal += gain * weight(i + 1)
            gain *= 1.0 - alpha
        return total / ideal_ideal if k > 1 else total

    def disc(p):
        return math.log(2.0) / math.log(p + 1.0)

    def nrbp(values):
        total, decay = 0.0, 1.0
        for v in values:
            total += v * decay
            decay *= beta
        return total * ((1.0 - (1.0 - alpha) * beta) / S)

    dcg, idcg = summed(run, disc), summed(best, disc)
    err, ierr = summed(run, lambda p: 1.0 / p), summed(best, lambda p: 1.0 / p)
    nrel = {j: sum(j in rel for rel in judgments.values()) for j in subs}
    ap, count = 0.0, {}
    totals = {j: 0.0 for j in subs}
    for i, d in enumerate(ranking):
        for j in sorted(judgments.get(d, ())):
            count[j] = count.get(j, 0) + 1
            totals[j] += count[j] / (i + 1)
    for j in subs:
        ap += totals[j] / nrel[j]
    pairs = sum(len(judgments.get(d, ())) for d in ranking[:k])
    covered = len({j for d in ranking[:k] for j in judgments.get(d, ())})
    run_any = any(v for v in run[:k])
    return dict(err=err, nerr=err / ierr if run_any else 0.0, dcg=dcg, ndcg=dcg / idcg if run_any else 0.0,
                nrbp=nrbp(run), nnrbp=nrbp(run) / nrbp(best), ap=ap / S, p=pairs / (k * S), strec=covered / S)
