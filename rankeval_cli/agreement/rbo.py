"""Rank-biased overlap with ties (Corsi & Urbano 2024), of two rankings of any lengths.

RBO (Webber, Moffat & Zobel 2010, eq. 7) weighs the agreement A_d = X_d / d of the two
prefixes of depth d (X_d their overlap) by (1 − p) p^(d−1). Corsi & Urbano 2024 ("The
treatment of ties in rank-biased overlap", SIGIR, §3-4) generalize it to tied items: an item
of a tie group spanning flat ranks t..b (1-based, t ≤ b) belongs to the prefix of depth d
with a *contribution* c(d) — variant w (ties are equal ranks): 1 from d = t on; variants a
and b (ties are uncertain orders): (d − t + 1)/(b − t + 1) for t ≤ d < b, the probability
that a random order of the group puts it within the first d, and 1 from d = b on. Then
X_d = Σ_i c_S(i, d) c_L(i, d) and

    w:  A_d = 2 X_d / (Σ_i c_S(i, d) + Σ_i c_L(i, d))
    a:  A_d = X_d / d                     (the expected RBO over random orders of the ties)
    b:  A_d = X_d / √(Σ_i c_S(i, d)²) / √(Σ_i c_L(i, d)²)

For rankings of lengths s ≤ l (S the shorter, L the longer) the sum over d has three
sections (Webber et al. 2010 §4.1-4.3, with ties as Corsi & Urbano 2024 §4): d ≤ s, both
prefixes seen; s < d ≤ l, only L's, where S's unseen items are assumed to overlap nothing
(RBO_min: S's prefix taken to hold d items), as much as possible (RBO_max: S continues with
L's items it lacks, in L's order) or as much as seen (RBO_ext: L's unseen items each
overlapping with the agreement A_s times their mean contribution); and d > l, in closed form:

    min: X_l (ln 1/(1 − p) − Σ_{d=1}^{l} p^d / d)
    max: Σ_{d=l+1}^{f} (2d − l − s + X_l)/d · p^d + p^(f+1)/(1 − p),  f = l + s − X_l
    ext: (X_l + (l − s) A_s) / l · p^(l+1)/(1 − p)

and RBO = (1 − p)/p · (Σ_{d=1}^{l} A_d p^d + that tail); res = max − min. Without ties the
three variants are the same. This is the formulation of the authors' reference code
(julian-urbano/sigir2024-rbo), including its sum for f when X_l is fractional (a and b).

Where rankeval defines what the definitions leave open: two empty rankings have no RBO
(NaN, counted as undefined); an empty and a non-empty ranking have min = ext = 0 and the
max above with s = 0.

Each query costs O(s + l + the tied stretches): contributions are constant outside tie
groups, so only the depths inside a tie group are enumerated.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..vocabulary import RBO_TIES as VARIANTS
SCORES = ("ext", "min", "max", "res")


@dataclass
class Ranked:
    """One ranking as flat positions: item codes, and each item's tie group [t, b] (0-based)."""

    item: np.ndarray
    top: np.ndarray
    bottom: np.ndarray

    @classmethod
    def of(cls, item, score) -> "Ranked":
        """Items ranked by score descending; equal scores form a tie group (any order inside)."""
        item, score = np.asarray(item), np.asarray(score, dtype=np.float64)
        order = np.argsort(-score, kind="stable")
        item, score = item[order], score[order]
        n = len(score)
        new = np.r_[True, score[1:] != score[:-1]] if n else np.zeros(0, bool)
        starts = np.flatnonzero(new)
        sizes = np.diff(np.r_[starts, n])
        top = np.repeat(starts, sizes)
        return cls(item, top, top + np.repeat(sizes, sizes) - 1)

    def __len__(self) -> int:
        return len(self.item)

    @property
    def tied(self) -> bool:
        return bool((self.top != self.bottom).any())


def _ramps(top, bottom, weight, l: int, enter=None, power: int = 1) -> np.ndarray:
    """F[d] = Σ_i weight_i · c_i(d)^power [d ≥ enter_i] for 0-based depths d < l, where c_i is the a/b
    contribution of tie group [top_i, bottom_i] (w: give bottom = top)."""
    out = np.zeros(l + 1)
    if len(top) == 0 or l == 0:
        return out[:l]
    enter = top if enter is None else np.maximum(enter, top)
    full = np.maximum(bottom, enter)  # from here on c = 1
    np.add.at(out, np.minimum(full, l), weight)
    span = np.clip(np.minimum(full, l) - enter, 0, None)
    if span.sum():
        rows = np.repeat(np.arange(len(top)), span)
        d = np.arange(len(rows)) - np.repeat(np.cumsum(span) - span, span) + enter[rows]
        c = (d - top[rows] + 1) / (bottom[rows] - top[rows] + 1)
        ramp = np.bincount(d, weights=weight[rows] * c ** power, minlength=l + 1)
        return (np.cumsum(out) + ramp)[:l]
    return np.cumsum(out)[:l]


def _overlap(S: Ranked, L: Ranked, l: int) -> np.ndarray:
    """X_d = Σ_i c_S(i, d) c_L(i, d) over the items of both, for d < l."""
    common, i_s, i_l = np.intersect1d(S.item, L.item, assume_unique=True, return_indices=True)
    out = np.zeros(l + 1)
    if len(common) == 0:
        return out[:l]
    ts, bs, tl, bl = S.top[i_s], S.bottom[i_s], L.top[i_l], L.bottom[i_l]
    start, full = np.maximum(ts, tl), np.maximum(bs, bl)
    np.add.at(out, np.minimum(full, l), 1.0)
    out = np.cumsum(out)
    span = np.clip(np.minimum(full, l) - start, 0, None)
    if span.sum():
        rows = np.repeat(np.arange(len(common)), span)
        d = np.arange(len(rows)) - np.repeat(np.cumsum(span) - span, span) + start[rows]
        c_s = np.minimum((d - ts[rows] + 1) / (bs[rows] - ts[rows] + 1), 1.0)
        c_l = np.minimum((d - tl[rows] + 1) / (bl[rows] - tl[rows] + 1), 1.0)
        out += np.bincount(d, weights=c_s * c_l, minlength=l + 1)
    return out[:l]


def _w_form(r: Ranked) -> Ranked:
    return Ranked(r.item, r.top, r.top)


def rbo(x: Ranked, y: Ranked, p: float, variant: str = "a") -> dict:
    """{'ext', 'min', 'max', 'res'} of RBO between ``x`` and ``y`` with persistence ``p``."""
    if not 0 < p < 1:
        raise ValueError(f"p must be in (0, 1), not {p}")
    if variant not in VARIANTS:
        raise ValueError(f"the tie variant is one of {', '.join(VARIANTS)}, not {variant!r}")
    S, L = (y, x) if len(x) >= len(y) else (x, y)
    s, l = len(S), len(L)
    if l == 0:
        return dict.fromkeys(SCORES, float("nan"))
    if variant == "w" or not (S.tied or L.tied):
        variant, S, L = "w", _w_form(S), _w_form(L)
    depth = np.arange(1, l + 1, dtype=np.float64)
    X = _overlap(S, L, l)
    ones_s, ones_l = np.ones(s), np.ones(l)
    if variant == "w":
        sum_s, sum_l = _ramps(S.top, S.bottom, ones_s, l), _ramps(L.top, L.bottom, ones_l, l)
    else:
        sq_s, sq_l = _ramps(S.top, S.bottom, ones_s, l, power=2), _ramps(L.top, L.bottom, ones_l, l, power=2)

    def agreement(x_d, first, stop, short_side):
        d = depth[first:stop]
        if variant == "w":
            return 2 * x_d / ((sum_s[first:stop] if short_side else d) + sum_l[first:stop])
        if variant == "a":
            return x_d / d
        return x_d / np.sqrt(sq_s[first:stop] if short_side else d) / np.sqrt(sq_l[first:stop])

    a1 = agreement(X[:s], 0, s, True)
    lds = ~np.isin(L.item, S.item)  # L's items S lacks, in L's order
    t_u, b_u = L.top[lds], L.bottom[lds]
    n_u = len(t_u)
    a_s = a1[s - 1] if s else 0.0
    x2 = X[s:]
    unseen_max = _ramps(t_u, b_u, np.ones(n_u), l, enter=s + np.arange(n_u))[s:]
    c_sum = _ramps(t_u, b_u, np.ones(n_u), l)[s:]
    started = np.cumsum(np.bincount(np.minimum(t_u, l), minlength=l + 1))[:l][s:]
    mean_c = np.divide(c_sum, started, out=np.zeros_like(c_sum), where=started > 0)
    ext2 = x2 + (depth[s:] - s) * a_s * mean_c
    weights = p ** depth
    x_l = X[l - 1]
    tail_min = x_l * (np.log(1 / (1 - p)) - np.sum(weights / depth))
    f = l + s - x_l
    d3 = np.arange(l + 1, f + 1)
    tail_max = np.sum((2 * d3 - l - s + x_l) / d3 * p ** d3) + p ** (f + 1) / (1 - p)
    tail_ext = (x_l + (l - s) * a_s) / l * p ** (l + 1) / (1 - p)
    scale = (1 - p) / p
    head = np.sum(a1 * weights[:s])
    out = {}
    for name, x_part, tail in (("min", x2, tail_min), ("max", x2 + unseen_max, tail_max), ("ext", ext2, tail_ext)):
        out[name] = float(scale * (head + np.sum(agreement(x_part, s, l, False) * weights[s:]) + tail))
    if s == 0:
        out["min"] = out["ext"] = 0.0
    out["res"] = out["max"] - out["min"]
    return {k: out[k] for k in SCORES}
