"""Slow, obvious pure-Python aggregation straight from the definitions (docs/definitions.md#aggregation).

A profile is a list of groups; a group is a list of (item, value) with value None for
a blank; lower value = better. Nothing here shares code with rankeval_cli.aggregate.
"""

from __future__ import annotations

import math
from collections import defaultdict
from itertools import combinations


def ranked(group):
    return [(item, v) for item, v in group if v is not None]


def outcomes(profile):
    """wins[(i, j)], ties[(i, j)] (both orders), compared[(i, j)] (both orders)."""
    wins, ties, compared = defaultdict(int), defaultdict(int), defaultdict(int)
    for group in profile:
        for (a, va), (b, vb) in combinations(ranked(group), 2):
            compared[a, b] += 1
            compared[b, a] += 1
            if va < vb:
                wins[a, b] += 1
            elif vb < va:
                wins[b, a] += 1
            else:
                ties[a, b] += 1
                ties[b, a] += 1
    return wins, ties, compared


def items_of(profile):
    return sorted({item for group in profile for item, v in ranked(group)})


def ge_others(profile):
    wins, ties, compared = outcomes(profile)
    out = {}
    for i in items_of(profile):
        good = sum(wins[i, j] + ties[i, j] for j in items_of(profile) if j != i)
        total = sum(compared[i, j] for j in items_of(profile) if j != i)
        out[i] = good / total if total else math.nan
    return out


def gt_others(profile):
    wins, _, _ = outcomes(profile)
    out = {}
    for i in items_of(profile):
        w = sum(wins[i, j] for j in items_of(profile))
        lost = sum(wins[j, i] for j in items_of(profile))
        out[i] = w / (w + lost) if w + lost else math.nan
    return out


def expected_wins(profile):
    wins, _, _ = outcomes(profile)
    items = items_of(profile)
    out = {}
    for i in items:
        total = 0.0
        for j in items:
            if j != i and wins[i, j] + wins[j, i]:
                total += wins[i, j] / (wins[i, j] + wins[j, i])
        out[i] = total / (len(items) - 1) if len(items) > 1 else math.nan
    return out


def fv(profile, denominator="pair"):
    """Duh: P_ij = groups where i ranks above j / groups with both (or all groups)."""
    items = items_of(profile)
    n_groups = sum(1 for g in profile if ranked(g))
    out = {}
    for i in items:
        total = 0.0
        for j in items:
            if j == i:
                continue
            above = both = 0
            for group in profile:
                values = dict(ranked(group))
                if i in values and j in values:
                    both += 1
                    above += values[i] < values[j]
            den = both if denominator == "pair" else n_groups
            total += above / den if den else 0.0
        out[i] = total
    return out


def copeland(profile):
    wins, _, _ = outcomes(profile)
    items = items_of(profile)
    return {i: float(sum((wins[i, j] > wins[j, i]) - (wins[i, j] < wins[j, i]) for j in items if j != i))
            for i in items}


def borda(profile, missing="ignore", points="n-r"):
    """Positions written out: sort each (extended) list, give N − r (+1), ties share the mean."""
    items = items_of(profile)
    out = {i: 0.0 for i in items}
    for group in profile:
        values = dict(ranked(group))
        if not values:
            continue
        if missing == "bottom":
            worst = max(values.values()) + 1
            values.update({i: worst for i in items if i not in values})
        n = len(values)
        order = sorted(values, key=values.get)
        pos = 0
        while pos < n:
            end = pos
            while end + 1 < n and values[order[end + 1]] == values[order[pos]]:
                end += 1
            span = range(pos + 1, end + 2)  # 1-based positions of the tie block
            share = sum(n - r + (1 if points == "n-r+1" else 0) for r in span) / len(span)
            for k in range(pos, end + 1):
                out[order[k]] += share
            pos = end + 1
    return out


def batch_of(profile, extra=None, pred=None):
    """A Batch with the profile's values as gold (pred: a parallel profile of values, or NaN)."""
    import numpy as np

    from rankeval_cli.batch import Batch, offsets_from_sizes

    items = [item for group in profile for item, _ in group]
    gold = [math.nan if v is None else float(v) for group in profile for _, v in group]
    if pred is None:
        pred_values = [math.nan] * len(items)
    else:
        pred_values = [math.nan if v is None else float(v) for group in pred for _, v in group]
    sizes = np.array([len(g) for g in profile], dtype=np.int64)
    return Batch(group=np.array([f"g{k}" for k in range(len(profile))], dtype=object),
                 offsets=offsets_from_sizes(sizes), item=np.array(items, dtype=object),
                 gold=np.array(gold), pred=np.array(pred_values),
                 extra={k: np.array(v, dtype=object) for k, v in (extra or {}).items()})


def random_profile(rng, n_groups, n_items, max_size=6, blank=0.1, levels=4):
    """Random partial lists with ties (values 1..levels) and blanks."""
    names = [f"s{k:02d}" for k in range(n_items)]
    profile = []
    for _ in range(n_groups):
        size = int(rng.integers(1, min(max_size, n_items) + 1))
        members = rng.choice(n_items, size=size, replace=False)
        profile.append([(names[m], None if rng.random() < blank else int(rng.integers(1, levels + 1)))
                        for m in members])
    return profile
