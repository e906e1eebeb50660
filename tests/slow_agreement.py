"""Agreement measures read literally from their definitions (slow; for tests/test_agree.py).

A ranking is a list of tie groups, each a list of item names, best first.
"""

from __future__ import annotations

import math


def contributions(groups: list, variant: str, depth: int) -> dict:
    """item -> [c(1), ..., c(depth)]: Corsi & Urbano 2024 — an item of a group over flat ranks t..b
    (1-based) is in the prefix of depth d with 1 from d = t on (w), or (d - t + 1)/(b - t + 1) for
    t <= d < b and 1 from b on (a, b)."""
    out, t = {}, 1
    for group in groups:
        b = t + len(group) - 1
        for item in group:
            if variant == "w":
                out[item] = [1.0 if d >= t else 0.0 for d in range(1, depth + 1)]
            else:
                out[item] = [0.0 if d < t else 1.0 if d >= b else (d - t + 1) / (b - t + 1)
                             for d in range(1, depth + 1)]
        t = b + 1
    return out


def slow_rbo(x: list, y: list, p: float, variant: str) -> dict:
    n_x, n_y = sum(map(len, x)), sum(map(len, y))
    S, L = (y, x) if n_x >= n_y else (x, y)
    s, l = min(n_x, n_y), max(n_x, n_y)
    if not any(len(g) > 1 for g in S + L):
        variant = "w"
    cs, cl = contributions(S, variant, l), contributions(L, variant, l)

    def X(d):  # overlap at depth d (1-based)
        return sum(cs[i][d - 1] * cl[i][d - 1] for i in cs if i in cl)

    def total(c, d, power=1):
        return sum(v[d - 1] ** power for v in c.values())

    def agree(x_d, d, s_side):
        if variant == "w":
            return 2 * x_d / ((total(cs, d) if s_side else d) + total(cl, d))
        if variant == "a":
            return x_d / d
        return x_d / math.sqrt(total(cs, d, 2) if s_side else d) / math.sqrt(total(cl, d, 2))

    A1 = [agree(X(d), d, True) for d in range(1, s + 1)]
    flat_l = [i for g in L for i in g]
    unseen = [i for i in flat_l if i not in cs]  # L's items S lacks, in L's order
    a_s = A1[-1] if A1 else 0.0
    sec2 = {"min": [], "max": [], "ext": []}
    for d in range(s + 1, l + 1):
        seen = X(d)
        sec2["min"].append(agree(seen, d, False))
        entered = unseen[:d - s]  # S's continuation holds L's unseen items, one per depth
        sec2["max"].append(agree(seen + sum(cl[i][d - 1] for i in entered), d, False))
        started = [cl[i][d - 1] for i in unseen if cl[i][d - 1] > 0]
        mean_c = sum(started) / len(started) if started else 0.0
        sec2["ext"].append(agree(seen + (d - s) * a_s * mean_c, d, False))
    x_l = X(l)
    f = l + s - x_l
    tails = {
        "min": x_l * (math.log(1 / (1 - p)) - sum(p ** d / d for d in range(1, l + 1))),
        "max": sum((2 * d - l - s + x_l) / d * p ** d for d in _arange(l + 1, f + 1)) + p ** (f + 1) / (1 - p),
        "ext": (x_l + (l - s) * a_s) / l * p ** (l + 1) / (1 - p),
    }
    out = {}
    for name in ("min", "max", "ext"):
        agreements = A1 + sec2[name]
        out[name] = (1 - p) / p * (sum(a * p ** d for d, a in enumerate(agreements, 1)) + tails[name])
    if s == 0:
        out["min"] = out["ext"] = 0.0
    out["res"] = out["max"] - out["min"]
    return out


def _arange(start, stop):
    """start, start + 1, ... below stop (stop may be fractional), as numpy.arange counts."""
    n = max(0, math.ceil(stop - start))
    return [start + i for i in range(n)]


def rbo_min_tie_free(x: list, y: list, p: float) -> float:
    """Webber, Moffat & Zobel 2010, eq. 11: RBO_min of two tie-free lists of equal length k."""
    k = len(x)
    X = [len(set(x[:d]) & set(y[:d])) for d in range(1, k + 1)]
    return (1 - p) / p * (sum(X[d - 1] / d * p ** d for d in range(1, k + 1))
                          + X[-1] * (math.log(1 / (1 - p)) - sum(p ** d / d for d in range(1, k + 1))))


def slow_tau_ap(x: list, y: list) -> float:
    """Yilmaz, Aslam & Robertson 2008, eq. 3: x and y order the same items; y is the reference."""
    n = len(x)
    where = {item: i for i, item in enumerate(y)}
    total = 0.0
    for i in range(1, n):
        correct = sum(1 for j in range(i) if where[x[j]] < where[x[i]])
        total += correct / i
    return 2 / (n - 1) * total - 1
