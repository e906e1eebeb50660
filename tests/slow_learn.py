"""Slow, obvious implementations of the learning objectives (a loop per group and per pair)."""

from __future__ import annotations

import math


def groups(values, offsets):
    return [list(values[offsets[g]:offsets[g + 1]]) for g in range(len(offsets) - 1)]


def ranksvm(s, u, offsets, loss="squared-hinge"):
    total, pairs = 0.0, 0
    for ss, uu in zip(groups(s, offsets), groups(u, offsets)):
        for i in range(len(ss)):
            for j in range(len(ss)):
                if uu[i] > uu[j]:
                    t = max(0.0, 1.0 - (ss[i] - ss[j]))
                    total += t * t if loss == "squared-hinge" else t
                    pairs += 1
    return total / pairs if pairs else 0.0


def _softmax(v):
    m = max(v)
    e = [math.exp(x - m) for x in v]
    z = sum(e)
    return [x / z for x in e]


def listnet(s, u, offsets):
    gs, gu = groups(s, offsets), groups(u, offsets)
    total = 0.0
    for ss, uu in zip(gs, gu):
        py, ps = _softmax(uu), _softmax(ss)
        total -= sum(a * math.log(b) for a, b in zip(py, ps))
    return total / len(gs)


def listmle(s, u, offsets):
    """Breslow's rule: every item chosen among those not strictly better than it."""
    gs, gu = groups(s, offsets), groups(u, offsets)
    total = 0.0
    for ss, uu in zip(gs, gu):
        for i in range(len(ss)):
            total += math.log(sum(math.exp(ss[j]) for j in range(len(ss)) if uu[j] <= uu[i])) - ss[i]
    return total / len(gs)


def listmle_permutation(s, order):
    """Xia et al. (2008) eq. (5) for one group and one permutation (best first)."""
    total = 0.0
    for k in range(len(order)):
        total += math.log(sum(math.exp(s[order[m]]) for m in range(k, len(order)))) - s[order[k]]
    return total


def regression(s, u):
    return sum((a - b) ** 2 for a, b in zip(s, u)) / (2 * len(s))
