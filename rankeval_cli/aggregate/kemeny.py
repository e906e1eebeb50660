"""Kemeny-Young consensus order.

The Kemeny order π minimizes the total pairwise disagreement with the groups,

    cost(π) = Σ_{i placed above j} W[j, i],

the number of comparisons j won against an item i that π puts above j. Tied
comparisons cost the same in every strict order and are left out. Finding π is
NP-hard; :func:`kemeny_order` solves it exactly by dynamic programming over subsets
(Held-Karp style): for a set R of items still to be placed below those already
placed, g(R) = min_{i ∈ R} [Σ_{j ∈ R∖i} W[j, i] + g(R ∖ i)], g(∅) = 0. Time
O(2^K K²), memory O(2^K); exact up to :data:`MAX_EXACT_ITEMS` items. Among several
optimal orders the lexicographically smallest by item index (= item id) is returned,
so the result is deterministic. ``approximate=True`` (or more items than the limit
with it) uses a local search instead: start from the order by w_i + t_i/2 (Borda),
then move single items to the position that lowers the cost most, until no move
helps; the result is a local optimum, not guaranteed optimal.
"""

from __future__ import annotations

import math

import numpy as np

#: Most items solved exactly: 2^20 subsets ≈ 8 MB of costs, about a second.
MAX_EXACT_ITEMS = 20


class TooManyItems(ValueError):
    """More items than the exact dynamic programme allows."""


def kemeny_cost(wins: np.ndarray, order) -> float:
    """Total disagreement of ``order`` (item indices, best first) with ``wins``."""
    order = np.asarray(order, dtype=np.int64)
    w = np.asarray(wins, dtype=np.float64)[np.ix_(order, order)]
    return float(np.tril(w, -1).sum())  # w[b, a] with b placed below a


def kemeny_order(wins: np.ndarray, approximate: bool = False) -> np.ndarray:
    """An optimal order (item indices, best first) minimizing :func:`kemeny_cost`."""
    w = np.asarray(wins, dtype=np.float64)
    k = w.shape[0]
    if k <= 1:
        return np.arange(k)
    if approximate:
        return _local_search(w)
    if k > MAX_EXACT_ITEMS:
        raise TooManyItems(
            f"exact Kemeny aggregation handles at most {MAX_EXACT_ITEMS} items, got {k}; "
            "ask for the local-search approximation instead")
    g = _subset_costs(w)
    return _reconstruct(w, g)


def _subset_costs(w: np.ndarray) -> np.ndarray:
    """g[R] for every bitmask R, computed layer by layer (by number of items in R)."""
    k = w.shape[0]
    masks = np.arange(1 << k, dtype=np.int64)
    size = _popcount(masks)
    shifts = np.arange(k, dtype=np.int64)
    g = np.full(1 << k, np.inf)
    g[0] = 0.0
    for layer in range(k):
        rest = masks[size == layer]  # sets already solved
        rest_bits = ((rest[:, None] >> shifts) & 1).astype(np.float64)
        # cost of putting i on top of set Q: comparisons j ∈ Q won against i
        top_cost = rest_bits @ w  # [q, i] = Σ_{j ∈ Q} W[j, i]
        free = rest_bits == 0
        q_idx, i_idx = np.nonzero(free)
        target = rest[q_idx] | (np.int64(1) << i_idx)
        np.minimum.at(g, target, g[rest[q_idx]] + top_cost[q_idx, i_idx])
    return g


def _popcount(masks: np.ndarray) -> np.ndarray:
    """Number of set bits of each non-negative int64 (byte lookup table)."""
    table = np.array([bin(b).count("1") for b in range(256)], dtype=np.int8)
    count = np.zeros(len(masks), dtype=np.int8)
    m = masks.copy()
    while m.any():
        count += table[m & 255]
        m >>= 8
    return count


def _reconstruct(w: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Walk down from the full set, taking the smallest index achieving the optimum."""
    k = w.shape[0]
    remaining = (1 << k) - 1
    order = []
    for _ in range(k):
        members = [i for i in range(k) if remaining >> i & 1]
        best, best_value = -1, np.inf
        for i in members:
            rest = remaining & ~(1 << i)
            value = g[rest] + sum(w[j, i] for j in members if j != i)
            if value < best_value:
                best, best_value = i, value
        order.append(best)
        remaining &= ~(1 << best)
    return np.array(order, dtype=np.int64)


def _local_search(w: np.ndarray) -> np.ndarray:
    """Best single-item moves from the Borda-like order until none lowers the cost."""
    k = w.shape[0]
    score = w.sum(1) - w.sum(0)
    order = list(np.lexsort((np.arange(k), -score)))
    while True:
        best_gain, best_move = 0.0, None
        for pos in range(k):
            item = order[pos]
            rest = order[:pos] + order[pos + 1:]
            # gain of inserting item at each slot relative to its current slot
            gains = _insertion_costs(w, item, rest)
            current = gains[pos]
            slot = int(np.argmin(gains))
            gain = current - gains[slot]
            if gain > best_gain:
                best_gain, best_move = gain, (pos, slot)
        if best_move is None:
            return np.array(order, dtype=np.int64)
        pos, slot = best_move
        item = order.pop(pos)
        order.insert(slot, item)


def _insertion_costs(w: np.ndarray, item: int, rest: list) -> np.ndarray:
    """Cost of the pairs involving ``item`` for each of the len(rest)+1 slots in ``rest``."""
    rest = np.asarray(rest, dtype=np.int64)
    beaten_by = w[rest, item]  # item placed above r costs W[r, item]
    beats = w[item, rest]  # item placed below r costs W[item, r]
    above = np.concatenate([[0.0], np.cumsum(beats)])  # rest items above the slot
    below = np.concatenate([np.cumsum(beaten_by[::-1])[::-1], [0.0]])
    return above + below


def kemeny_scores(wins: np.ndarray, approximate: bool = False) -> np.ndarray:
    """Scores K − position (best item K − 1 … worst 0) for wins of shape (..., K, K)."""
    wins = np.asarray(wins)
    k = wins.shape[-1]
    flat = wins.reshape(math.prod(wins.shape[:-2]), k, k)  # not -1: ambiguous when there is no item (k = 0)
    out = np.empty((len(flat), k))
    for b, w in enumerate(flat):
        order = kemeny_order(w, approximate)
        out[b, order] = np.arange(k - 1, -1, -1, dtype=np.float64)
    return out.reshape(wins.shape[:-1])
