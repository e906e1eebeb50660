"""Normalizations of each run's scores for one query, before a score-reading fusion method.

Each is one entry of :data:`NORMALIZATIONS`: a function of the rows (:class:`.lists.Lists`,
rows in (run, query, position) order) returning them with ``value`` set. The definitions,
and the 10⁻⁹ floor on every denominator, are those of ranx's ``fuse(norm=...)`` (Bassani
2022; ranx's own name in ``ranx``). s is a score in one run's list for a query, n the
list's length, pos its 1-based position, C_q the query's candidates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .lists import Lists

#: ranx's floor on normalization denominators.
EPS = 1e-9


@dataclass(frozen=True)
class Normalization:
    name: str
    function: Callable[[Lists, np.ndarray], Lists]
    formula: str
    description: str
    ranx: str | None  # ranx's name (None: ranx has none)
    #: may precede a method that reads positions (borda adds rows, min-max-inverted reverses the order)
    with_positions: bool = True


def _per_list(lists: Lists, score: np.ndarray):
    """(starts, sizes, max, min, sum) per (run, query) list; rows are by score descending within a list."""
    edges = lists.segments()
    starts, sizes = edges[:-1], np.diff(edges)
    return starts, sizes, score[starts], score[edges[1:] - 1], np.add.reduceat(score, starts)


def _min_max(lists: Lists, s: np.ndarray) -> Lists:
    starts, sizes, hi, lo, _ = _per_list(lists, s)
    return lists.with_values((s - np.repeat(lo, sizes)) / np.repeat(np.maximum(hi - lo, EPS), sizes))


def _min_max_inverted(lists: Lists, s: np.ndarray) -> Lists:
    starts, sizes, hi, lo, _ = _per_list(lists, s)
    return lists.with_values((np.repeat(hi, sizes) - s) / np.repeat(np.maximum(hi - lo, EPS), sizes))


def _max(lists: Lists, s: np.ndarray) -> Lists:
    starts, sizes, hi, _, _ = _per_list(lists, s)
    return lists.with_values(s / np.repeat(np.maximum(hi, EPS), sizes))


def _sum(lists: Lists, s: np.ndarray) -> Lists:
    starts, sizes, _, lo, total = _per_list(lists, s)
    den = np.maximum(total - lo * sizes, EPS)
    return lists.with_values((s - np.repeat(lo, sizes)) / np.repeat(den, sizes))


def _z_score(lists: Lists, s: np.ndarray) -> Lists:
    starts, sizes, _, _, total = _per_list(lists, s)
    centred = s - np.repeat(total / sizes, sizes)
    std = np.sqrt(np.add.reduceat(centred * centred, starts) / sizes)
    return lists.with_values(centred / np.repeat(np.maximum(std, EPS), sizes))


def _rank(lists: Lists, s: np.ndarray) -> Lists:
    return lists.with_values(1.0 - (lists.position - 1) / lists.length)


def _borda(lists: Lists, s: np.ndarray) -> Lists:
    """Every run gets a row for every candidate of the query: retrieved ones
    1 − (pos − 1)/|C_q|, the others 0.5 − (n − 1)/(2|C_q|)."""
    c = lists.candidates_per_query()
    n = lists.list_sizes()
    value = np.empty((lists.n_runs, lists.n_cand))
    value[:] = 0.5 - (n[:, lists.cand_query] - 1) / (2 * c[lists.cand_query])
    value[lists.run, lists.cand] = 1.0 - (lists.position - 1) / c[lists.query]
    runs = np.repeat(np.arange(lists.n_runs), lists.n_cand)
    cands = np.tile(np.arange(lists.n_cand), lists.n_runs)
    zero = np.zeros(len(runs), dtype=np.int64)
    return Lists(runs, lists.cand_query[cands], cands, zero, zero, lists.n_cand, lists.cand_query, lists.cand_doc,
                 lists.n_runs, lists.n_queries, value.reshape(-1), lists.weights, lists.params, lists.model)


def _none(lists: Lists, s: np.ndarray) -> Lists:
    return lists.with_values(s.copy())


NORMALIZATIONS = {n.name: n for n in (
    Normalization("min-max", _min_max, "(s − min) / max(max − min, 10⁻⁹)",
                  "scores to [0, 1] per run and query", "min-max"),
    Normalization("min-max-inverted", _min_max_inverted, "(max − s) / max(max − min, 10⁻⁹)",
                  "min-max of runs whose lower scores are better (distances)", "min-max-inverted",
                  with_positions=False),
    Normalization("max", _max, "s / max(max, 10⁻⁹)", "scores divided by the largest", "max"),
    Normalization("sum", _sum, "(s − min) / max(Σs − n·min, 10⁻⁹)", "shifted scores summing to 1", "sum"),
    Normalization("z-score", _z_score, "(s − mean) / max(std, 10⁻⁹), std the population standard deviation",
                  "zero mean, unit variance per run and query", "zmuv"),
    Normalization("rank", _rank, "1 − (pos − 1) / n", "positions, not scores: 1 for the first, 1/n for the last",
                  "rank"),
    Normalization("borda", _borda, "1 − (pos − 1) / |C_q|; a candidate the run lacks: 0.5 − (n − 1) / (2|C_q|)",
                  "Borda points over the query's candidates (every run gets every candidate)", "borda",
                  with_positions=False),
    Normalization("none", _none, "s", "the scores as they are", None),
)}
DEFAULT = "min-max"


def normalize(lists: Lists, score: np.ndarray, name: str = DEFAULT) -> Lists:
    """``lists`` with each row's score normalized by ``name`` (see :data:`NORMALIZATIONS`)."""
    if name not in NORMALIZATIONS:
        raise ValueError(f"unknown normalization {name!r}; known: {', '.join(NORMALIZATIONS)}")
    if len(score) == 0:
        return lists.with_values(score.copy())
    return NORMALIZATIONS[name].function(lists, score)
