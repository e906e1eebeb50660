"""Run fusion read literally from the definitions, one query and one document at a time.

Runs are ``{query: {doc: score}}`` dicts; a run's list for a query is ordered by score
descending, then docno descending (trec_eval's order). Training qrels are
``{query: {doc: grade}}``. Every method of rankeval's fusion table has a function here
(tests/test_fusion.py fails for a method without one).
"""

from __future__ import annotations

import math
import statistics

SEG_BOUNDS = [0] + [10 * 2 ** (k - 1) - 5 for k in range(1, 11)]
CUTS = [0, 5, 10, 15, 20, 30, 100, 200, 500, 1000]
MIN_ODD = math.log(0.001 / 0.999)


def ordered(docs: dict) -> list:
    return [d for d, _ in sorted(docs.items(), key=lambda t: (t[1], t[0]), reverse=True)]


def normalized(docs: dict, norm: str, candidates: list) -> dict:
    order = ordered(docs)
    s = [docs[d] for d in order]
    n = len(s)
    if not n:
        return {} if norm != "borda" else {d: 0.5 - (0 - 1) / (2 * len(candidates)) for d in candidates}
    lo, hi, total = min(s), max(s), sum(s)
    if norm == "min-max":
        return {d: (docs[d] - lo) / max(hi - lo, 1e-9) for d in order}
    if norm == "min-max-inverted":
        return {d: (hi - docs[d]) / max(hi - lo, 1e-9) for d in order}
    if norm == "max":
        return {d: docs[d] / max(hi, 1e-9) for d in order}
    if norm == "sum":
        return {d: (docs[d] - lo) / max(total - n * lo, 1e-9) for d in order}
    if norm == "z-score":
        mean = total / n
        sd = math.sqrt(sum((x - mean) ** 2 for x in s) / n)
        return {d: (docs[d] - mean) / max(sd, 1e-9) for d in order}
    if norm == "rank":
        return {d: 1 - i / n for i, d in enumerate(order)}
    if norm == "borda":
        c = len(candidates)
        out = {d: 0.5 - (n - 1) / (2 * c) for d in candidates}
        out.update({d: 1 - i / c for i, d in enumerate(order)})
        return out
    return dict(docs)


def hits(run: dict, qrels: dict, q: str) -> list:
    return [1.0 if qrels.get(q, {}).get(d, 0) >= 1 else 0.0 for d in ordered(run.get(q, {}))]


def train(method: str, runs: list, qrels: dict, p: dict) -> list:
    topics = sorted(qrels)
    models = []
    for run in runs:
        lists = [hits(run, qrels, q) for q in topics]
        if method == "probfuse":
            x = int(p["segments"])
            probs = [0.0] * x
            for h in lists:
                size = math.ceil(len(h) / x)
                for k in range(x):
                    seg = h[k * size:(k + 1) * size]
                    probs[k] += sum(seg) / len(seg) if seg else 0.0
            models.append([v / len(topics) for v in probs])
        elif method == "segfuse":
            models.append([sum(sum(h[a:b]) / (b - a) for h in lists) / len(topics)
                           for a, b in zip(SEG_BOUNDS, SEG_BOUNDS[1:])])
        elif method in ("slidefuse", "posfuse"):
            width = max((len(h) for h in lists), default=0)
            models.append([sum(h[i] for h in lists if len(h) > i) / max(1, sum(len(h) > i for h in lists))
                           for i in range(width)])
        elif method == "mapfuse":
            aps = []
            for q, h in zip(topics, lists):
                r = sum(1 for g in qrels[q].values() if g >= 1)
                aps.append(sum(sum(h[:i + 1]) / (i + 1) for i in range(len(h)) if h[i]) / r if r else 0.0)
            models.append(sum(aps) / len(topics))
        elif method == "bayesfuse":
            odds = []
            for a, b in zip(CUTS, CUTS[1:]):
                prec = sum(sum(h[a:b]) / (b - a) for h in lists) / len(topics)
                prec = prec or 0.001
                odds += [math.log(prec / ((1 - prec) or 0.001))] * (b - a)
            models.append(odds)
    return models


def _condorcet(lists: list, cands: list, weights: list) -> dict:
    pos = [{d: i for i, d in enumerate(order)} for order in lists]
    inf = float("inf")

    def beats(a, b):
        va = sum(w for p, w in zip(pos, weights) if p.get(a, inf) < p.get(b, inf))
        vb = sum(w for p, w in zip(pos, weights) if p.get(b, inf) < p.get(a, inf))
        return va > vb

    copeland = {a: sum(beats(a, b) for b in cands if b != a) - sum(beats(b, a) for b in cands if b != a)
                for a in cands}
    ranking = sorted(cands, key=lambda d: (copeland[d], d), reverse=True)
    return {d: len(cands) - i for i, d in enumerate(ranking)}


def fuse_query(method: str, runs: list, q: str, norm: str, p: dict, weights: list, models) -> dict:
    cands = sorted({d for run in runs for d in run.get(q, {})})
    lists = [ordered(run.get(q, {})) for run in runs]
    values = [normalized(run.get(q, {}), norm, cands) for run in runs]
    if method in ("condorcet", "w-condorcet"):
        return _condorcet(lists, cands, weights)
    out = {}
    for d in cands:
        present = [r for r in range(len(runs)) if d in values[r]]
        s = [values[r][d] for r in present]
        pos = {r: lists[r].index(d) + 1 for r in range(len(runs)) if d in lists[r]}
        inv2 = sum(1 / v ** 2 for v in pos.values())
        m = len(present)
        if method == "rrf":
            out[d] = sum(weights[r] / (p["k"] + v) for r, v in pos.items())
        elif method == "combsum":
            out[d] = sum(s)
        elif method == "combmnz":
            out[d] = m * sum(s)
        elif method == "combmax":
            out[d] = max(s + ([-1e9] if m < len(runs) else []))
        elif method == "combmin":
            out[d] = min(s + ([1e9] if m < len(runs) else []))
        elif method == "combmed":
            out[d] = statistics.median(s)
        elif method == "combanz":
            out[d] = sum(s) / m
        elif method == "combgmnz":
            out[d] = sum(s) * m ** p["gamma"]
        elif method == "isr":
            out[d] = len(pos) * inv2
        elif method == "log-isr":
            out[d] = math.log(len(pos)) * inv2
        elif method == "logn-isr":
            out[d] = math.log(len(pos) + p["sigma"]) * inv2
        elif method == "rbc":
            out[d] = sum((1 - p["phi"]) * p["phi"] ** (v - 1) for v in pos.values())
        elif method == "wsum":
            out[d] = sum(weights[r] * values[r][d] for r in present)
        elif method == "wmnz":
            out[d] = sum(s) * sum(weights[r] for r in present)
        elif method == "mixed":
            out[d] = sum(weights[r] * values[r][d] for r in present) * math.sqrt(m)
        elif method in ("borda-fuse", "w-borda-fuse"):
            c = len(cands)
            out[d] = sum(weights[r] * ((c - pos[r] + 1) if r in pos else (c - len(lists[r]) + 1) / 2)
                         for r in range(len(runs)))
        elif method == "probfuse":
            total = 0.0
            for r, v in pos.items():
                size = math.ceil(len(lists[r]) / p["segments"])
                k = (v - 1) // size
                total += models[r][k] / (k + 1)
            out[d] = total
        elif method == "segfuse":
            total = 0.0
            for r, v in pos.items():
                k = next((k for k in range(10) if SEG_BOUNDS[k] <= v - 1 < SEG_BOUNDS[k + 1]), None)
                total += (models[r][k] if k is not None else 0.0) * (values[r][d] + 1)
            out[d] = total
        elif method == "slidefuse":
            total = 0.0
            for r, v in pos.items():
                a, b = max(v - 1 - p["w"], 0), min(v - 1 + p["w"], len(lists[r]) - 1)
                total += sum(models[r][i] for i in range(a, b + 1) if i < len(models[r])) / (b - a + 1)
            out[d] = total
        elif method == "posfuse":
            out[d] = sum(models[r][v - 1] if v - 1 < len(models[r]) else 0.0 for r, v in pos.items())
        elif method == "mapfuse":
            out[d] = sum(models[r] / v for r, v in pos.items())
        elif method == "bayesfuse":
            out[d] = sum((models[r][pos[r] - 1] if pos[r] - 1 < len(models[r]) else MIN_ODD) if r in pos else MIN_ODD
                         for r in range(len(runs)))
        else:
            raise KeyError(method)
    return out


def slow_fuse(runs: list, method: str, norm: str = "min-max", params: dict | None = None, weights=None,
              qrels=None) -> dict:
    """{query: {doc: fused score}} of every query some run has."""
    from rankeval_cli.aggregate.fusion import METHODS

    p = {**METHODS[method].defaults(), **(params or {})}
    weights = list(weights) if weights is not None else [1.0] * len(runs)
    models = train(method, runs, qrels, p) if METHODS[method].train else None
    queries = sorted({q for run in runs for q in run if run[q]})
    return {q: fuse_query(method, runs, q, norm, p, weights, models) for q in queries}
