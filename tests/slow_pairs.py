"""Slow obvious pair counts and tie-block statistics (every pair looked at), the reference the
pair-counting paths of measures/pairs.py are checked against (test_pairs, test_tau_pair_paths)."""

from __future__ import annotations

import itertools
import math
from collections import Counter

COUNTS = ("C", "D", "T_h", "T_m", "T_hm")


def slow_counts(gold, pred):
    """(C, D, T_h, T_m, T_hm) by looking at every pair."""
    items = [(g, p) for g, p in zip(gold, pred) if not (math.isnan(g) or math.isnan(p))]
    out = dict.fromkeys(COUNTS, 0)
    for (g1, p1), (g2, p2) in itertools.combinations(items, 2):
        if g1 == g2 and p1 == p2:
            out["T_hm"] += 1
        elif g1 == g2:
            out["T_h"] += 1
        elif p1 == p2:
            out["T_m"] += 1
        elif (g1 < g2) == (p1 < p2):
            out["C"] += 1
        else:
            out["D"] += 1
    return tuple(out[k] for k in COUNTS)


def slow_blocks(values):
    """(#distinct, Σt(t-1), Σt(t-1)(t-2), Σt(t-1)(2t+5)) of the values' tie blocks."""
    t = Counter(values).values()
    return (len(t), sum(x * (x - 1) for x in t), sum(x * (x - 1) * (x - 2) for x in t),
            sum(x * (x - 1) * (2 * x + 5) for x in t))


def slow_var_S(gold, pred):
    """docs/definitions.md#tau Var(S), written out directly from the tie blocks."""
    n = len(gold)
    _, g2, g3, g5 = slow_blocks(gold)
    _, p2, p3, p5 = slow_blocks(pred)
    var = (n * (n - 1) * (2 * n + 5) - g5 - p5) / 18
    if n >= 2:
        var += g2 * p2 / (2 * n * (n - 1))
    if n >= 3:
        var += g3 * p3 / (9 * n * (n - 1) * (n - 2))
    return var
