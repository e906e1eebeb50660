"""Expected Reciprocal Rank (Avramidis 2013 §3.4 eqs. 9-10, Algorithm 1; Chapelle et al. 2009).

ERR@k = Σ_{r ≤ k} (1/r) R_r Π_{i<r} (1 − R_i),  R = (2^rel − 1) / 2^rel_max,
computed in one pass (the products are running products, Avramidis 2013 Algorithm 1),
never by enumeration. Relevance as in :mod:`.dcg`. ``rel_max``:

``n``        the number of ranked items of the group — the original RankEval's
             choice, and the default for relevance derived from gold ranks (where
             n is the top relevance a list of n items can have);
``scale:G``  the top grade G of the grading scale (Chapelle et al., the Yahoo!
             LTR challenge and gdeval.pl use 4); the default for graded gold is
             ``scale:4``; a grade above G is an error;
``list-max`` each group's own largest relevance.

Predicted ties (``expected``): for a tied block at positions s..s+m−1 entered with
survival probability p, let x_a = 1 − R_a and E_j = e_j(x) / C(m, j) the mean of
the products of j distinct x's (E_0 = 1). Under a uniformly random order the
expected survival past the first j items of the block is E_j, and the block adds
p · Σ_{j<m} (E_j − E_{j+1}) / (s + j). E_j follows from the recurrence
E_j^(t) = ((t − j)/t) E_j^(t−1) + (j/t) x_t E_{j−1}^(t−1) (a convex combination, so
stable), O(m²) per block; blocks whose sizes share a power-of-two ceiling are done
together.
"""

from __future__ import annotations

import numpy as np

from ..errors import DataError
from .ties import (DEFAULT_TIE_POLICY, Prepared, block_table, check_k, exclusive_cumprod, padded_block_buckets,
                   prepare_group, segment_reduce, segment_sum, stream, summarize)

DEFAULT_SCALE = 4


def parse_rel_max(text: str | None, relevance: str = "ranks") -> tuple[str, float | None]:
    """``"n"``, ``"list-max"`` or ``"scale:G"`` to ``(kind, G)``; None = the default."""
    if text is None:
        return ("n", None) if relevance == "ranks" else ("scale", float(DEFAULT_SCALE))
    if text in ("n", "list-max"):
        return text, None
    if text.startswith("scale:"):
        try:
            top = float(text[len("scale:"):])
        except ValueError:
            top = -1.0
        if top > 0 and np.isfinite(top):
            return "scale", top
    raise ValueError(f"rel-max must be n, list-max or scale:G with G > 0, got {text!r}")


def format_rel_max(kind: str, top: float | None) -> str:
    return f"scale:{top:g}" if kind == "scale" else kind


def stop_probability(prep: Prepared, rel_max: tuple[str, float | None]) -> np.ndarray:
    """R = (2^rel − 1) / 2^rel_max per row (Avramidis 2013 eq. 9), as 2^(rel − max) − 2^−max."""
    kind, top = rel_max
    if kind == "n":
        high = prep.sizes[prep.group].astype(np.float64)
    elif kind == "list-max":
        high = segment_reduce(np.maximum, prep.rel, prep.offsets, 0.0)[prep.group]
    else:
        over = prep.rel > top
        if over.any():  # name the first such row of the input
            i = prep.first_in_input(over)
            raise DataError(f"relevance {prep.rel[i]:g} exceeds the scale top {top:g} (--rel-max scale:{top:g})",
                            *prep.location(i))
        high = np.full(len(prep.rel), top)
    return np.exp2(prep.rel - high) - np.exp2(-high)


def err_values(prep: Prepared, k: int | None = None, rel_max=("n", None)) -> np.ndarray:
    """ERR@k per group (NaN for a group without ranked items)."""
    check_k(k)
    if isinstance(rel_max, str) or rel_max is None:
        rel_max = parse_rel_max(rel_max, prep.relevance)
    stop = stop_probability(prep, rel_max)
    survive = exclusive_cumprod(1.0 - stop, prep.offsets)
    if prep.tie_policy == "expected":
        values = _expected_err(prep, stop, survive, k)
    else:
        weight = 1.0 / prep.pos if k is None else np.where(prep.pos <= k, 1.0 / prep.pos, 0.0)
        values = segment_sum(survive * stop * weight, prep.group, prep.n_groups)
    values[prep.sizes == 0] = np.nan
    return values


def _expected_err(prep: Prepared, stop, survive, k: int | None) -> np.ndarray:
    first_row, start, size, grp = block_table(prep)
    block_value = np.zeros(len(first_row))
    live = np.flatnonzero(np.ones(len(first_row), dtype=bool) if k is None else start <= k)
    for sub, rows, valid in padded_block_buckets(first_row[live], size[live], prep.n_rows):
        longest_first = np.argsort(-size[live[sub]], kind="stable")
        idx, rows, valid = live[sub][longest_first], rows[longest_first], valid[longest_first]
        s, m = start[idx], size[idx]
        depth = rows.shape[1] if k is None else int(min(rows.shape[1], (k - s).max() + 1))
        means = _symmetric_means(np.where(valid, 1.0 - stop[rows], 0.0), m, depth)
        j = np.arange(depth)[None, :]
        position = s[:, None] + j
        weight = np.where(j < m[:, None], 1.0 / position, 0.0)
        if k is not None:
            weight = np.where(position <= k, weight, 0.0)
        block_value[idx] = survive[first_row[idx]] * ((means[:, :-1] - means[:, 1:]) * weight).sum(axis=1)
    return segment_sum(block_value, grp, prep.n_groups)


def _symmetric_means(x: np.ndarray, m: np.ndarray, depth: int) -> np.ndarray:
    """E_0..E_depth per row of x (nb × width; row i holds m[i] real values, m descending)."""
    nb, width = x.shape
    means = np.zeros((nb, depth + 1))
    means[:, 0] = 1.0
    for t in range(1, width + 1):
        active = int(np.searchsorted(-m, -t, side="right"))  # rows with m >= t: a prefix
        j = np.arange(1, min(t, depth) + 1)
        head = means[:active]
        head[:, j] = ((t - j) / t) * head[:, j] + (j / t) * x[:active, t - 1, None] * head[:, j - 1]
    return means


def err(gold, pred, *, k: int | None = None, rel_max: str | None = None, tie_policy: str = DEFAULT_TIE_POLICY,
        relevance: str = "ranks", missing_pred: str = "drop") -> float:
    """ERR@k of one group. ``gold``/``pred`` are ranks (lower = better), NaN = missing.

    >>> err([1, 2], [1, 2])  # R = 3/4, 1/4: 3/4 + (1/2)(1/4)(1/4)
    0.78125
    """
    prep = prepare_group(gold, pred, relevance=relevance, tie_policy=tie_policy, missing_pred=missing_pred)
    return float(err_values(prep, k, parse_rel_max(rel_max, relevance))[0])


def err_stream(batches, *, k: int | None = None, rel_max: str | None = None,
               tie_policy: str = DEFAULT_TIE_POLICY, relevance: str = "ranks", missing_pred: str = "drop"):
    """Yield per-group ERR@k (:class:`~.ties.Scores`) for each batch."""
    options = dict(relevance=relevance, tie_policy=tie_policy, missing_pred=missing_pred)
    return stream(err_values, batches, options, k=k, rel_max=parse_rel_max(rel_max, relevance))


def mean_err(batches, **options):
    """Mean ERR@k over a stream of batches (:class:`~.ties.MeanSummary` named ``err``)."""
    return summarize("err", err_stream(batches, **options))
