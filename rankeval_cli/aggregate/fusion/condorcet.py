"""Condorcet fuse (Montague & Aslam 2002, §3), with a defined order where majorities cycle.

Run r prefers d to e when it ranks d above e; a run that retrieved d but not e prefers d;
a run that retrieved neither abstains. d beats e when the runs preferring d outweigh
those preferring e (Σ w_r; weight 1 each unless weighted). Montague & Aslam sort the
candidates with "d beats e" as the comparison; where the majorities form a strict order
that is the order. Where they cycle or tie, the comparison is not an order and the result
of a sort depends on the algorithm and the input order (ranx's depends on the iteration
order of a Python set of strings, that is on the hash seed). rankeval orders the candidates
by their Copeland score (the candidates they beat minus those that beat them), which
respects every strict majority order and every order of the cycles among themselves, and
breaks the remaining ties by docno descending. The fused score is |C_q| − rank + 1, as in
ranx. The cost is O(|R|·|C_q|²) per query.
"""

from __future__ import annotations

import numpy as np

from .lists import Lists, bounds


def condorcet(x: Lists, p: dict) -> np.ndarray:
    out = np.zeros(x.n_cand)
    order = np.lexsort((x.run, x.query))
    rows_of = bounds(x.query[order])
    cand_of = bounds(x.cand_query)
    for i in range(len(rows_of) - 1):
        rows = order[rows_of[i]:rows_of[i + 1]]
        q = int(x.query[rows[0]])
        lo, hi = _range_of(cand_of, x.cand_query, q)
        out[lo:hi] = _query_scores(x, rows, lo, hi - lo)
    return out


def _range_of(cand_of: np.ndarray, cand_query: np.ndarray, q: int) -> tuple[int, int]:
    at = int(np.searchsorted(cand_query[cand_of[:-1]], q))
    return int(cand_of[at]), int(cand_of[at + 1])


def _query_scores(x: Lists, rows: np.ndarray, first: int, c: int) -> np.ndarray:
    """Scores |C_q| − rank + 1 of one query's candidates ``first .. first + c``."""
    position = np.full((x.n_runs, c), np.inf)
    position[x.run[rows], x.cand[rows] - first] = x.position[rows]
    votes = np.zeros((c, c))
    for r in range(x.n_runs):
        votes += x.weights[r] * (position[r][:, None] < position[r][None, :])
    copeland = (votes > votes.T).sum(axis=1) - (votes < votes.T).sum(axis=1)
    rank = np.empty(c, dtype=np.int64)
    rank[np.lexsort((-x.cand_doc[first:first + c], -copeland))] = np.arange(1, c + 1)
    return (c - rank + 1).astype(np.float64)
