"""Predicted ties and the shared preparation of every rank-position measure.

docs/definitions.md ("Ties in predictions"). A rank-position measure (RR, DCG/NDCG,
ERR, rankDCG, P@k, AP, BPH) needs a total order of the items, but predictions
tie. Three policies:

``pessimistic`` (default)
    tied items in the worst order for the measure: worst gold first. For RR with
    one best-gold item in the tied block this is the ``ceiling`` rank, what the
    original RankEval computed (Avramidis 2013 §3.2), hence the default: the numbers
    agree with the 2013 tool wherever it had no bug (checked on WMT10 data), and
    a ranker gains nothing by predicting ties.
``optimistic``
    best gold first (for RR, ``floor``).
``expected``
    the exact expected value over uniformly random orders of every tied block
    (McSherry & Najork, ECIR 2008); each measure module derives its own formula.
``trec``
    tied items by id, descending in byte order: trec_eval's order of tied scores
    (docno descending; trec_eval's ``form_res_rels.c``). Arbitrary, but what every
    published trec_eval number used.

Every measure here is monotone in the sense that, at adjacent positions, moving
the item of higher relevance up never lowers it (DCG: rearrangement inequality;
ERR: the swap changes it by (R_a − R_b)(1/r − 1/(r+1)); RR, P@k, AP, rankDCG
likewise). So ordering each tied block by gold, worst or best first, gives the
minimum or maximum over all tie orders; the tests check this by enumeration.

Rows whose gold is missing (a WMT ``-1`` blank) are not ranked: they are removed
before anything else and counted (``blanks``). Rows whose prediction is missing
follow ``missing_pred``: ``drop`` (default, as ``rankeval tau`` skips them) removes
them like blanks; ``last`` keeps them below every predicted item, tied with each
other, like relevant documents a system did not retrieve (trec_eval counts those
in IDCG and R); ``error`` refuses them. Either way they are counted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..batch import (SORT_BUCKET_MAX, Batch, bucket_matrix, bucket_put, distinct, group_index,
                     offsets_from_sizes, size_buckets, sort_within_groups, tie_block_starts)
from ..errors import DataError
from ..exactsum import ExactSum
from ..ranks import normalize_ranks
from ..vocabulary import DEFAULT_TIE_POLICY, MISSING_PRED, TIE_POLICIES
from ..vocabulary import RELEVANCE as RELEVANCE_MODES


@dataclass
class Prepared:
    """The ranked rows of a batch in predicted order, with their tie blocks.

    All row arrays are sorted by (group, predicted rank, tie-break of the policy).
    ``pos`` is the 1-based position in the group; ``block`` numbers the tied blocks
    of predicted values across the batch, ``block_first`` / ``block_size`` give the
    first position and size of each row's block. ``rel`` is the graded relevance
   , ``relevant`` the binary one (best gold rank, or grade > 0),
    ``gold_rank`` the ``ceiling``-normalized gold rank (1 = best). ``row`` is each
    sorted row's index in the input arrays and ``batch`` the batch they came from (set
    by :func:`prepare_batch`), so a kernel can name the line of a bad value.
    """

    offsets: np.ndarray  # int64, G + 1, over ranked rows only
    group: np.ndarray  # group number of every sorted row
    pos: np.ndarray
    rel: np.ndarray
    relevant: np.ndarray
    gold: np.ndarray  # gold value as given (rank, or grade with relevance="grades")
    gold_rank: np.ndarray
    block: np.ndarray
    block_first: np.ndarray
    block_size: np.ndarray
    tie_policy: str
    relevance: str
    blanks: int = 0  # rows dropped because gold is missing
    missing_pred: int = 0  # rows whose prediction is missing (placed last or dropped)
    row: np.ndarray | None = None  # input row of every sorted row
    batch: Batch | None = None

    @property
    def n_groups(self) -> int:
        return len(self.offsets) - 1

    @property
    def sizes(self) -> np.ndarray:
        """Ranked items per group (n of docs/definitions.md)."""
        return np.diff(self.offsets)

    @property
    def n_rows(self) -> int:
        return int(self.offsets[-1])

    @cached_property
    def ideal(self) -> np.ndarray:
        """Row order with each group's best gold first (stable): the ideal order of NDCG and rankDCG.

        Sorting by ``gold_rank`` gives the same permutation as sorting by −``rel``: rel is a
        strictly decreasing function of gold_rank within a group in either relevance mode.
        """
        return sort_within_groups(self.offsets, self.gold_rank)

    def first_in_input(self, mask: np.ndarray) -> int:
        """The sorted row, among those of ``mask`` (not empty), that comes first in the input."""
        rows = np.flatnonzero(mask)
        return int(rows[np.argmin(self.row[rows])])

    def location(self, i: int) -> tuple[str | None, int | None]:
        """(source, line) of sorted row ``i`` for an error message; (None, None) without a batch."""
        return (None, None) if self.batch is None else self.batch.row_location(int(self.row[i]))


def check_choice(value: str, choices: tuple[str, ...], what: str) -> str:
    if value not in choices:
        raise ValueError(f"unknown {what} {value!r}; expected one of {', '.join(choices)}")
    return value


def prepare(gold, pred, offsets, *, relevance: str = "ranks", tie_policy: str = DEFAULT_TIE_POLICY,
            missing_pred: str = "drop", item=None) -> Prepared:
    """Drop blanks, derive relevance, order every group by prediction and tie policy.

    ``gold`` and ``pred`` are per-row float arrays (NaN = missing), ``offsets`` the
    group offsets. Predictions are ranks (lower = better). With ``relevance="ranks"``
    gold holds ranks: rel = n − rank + 1 over ``ceiling`` ranks (Avramidis 2013 §3.3); with
    ``"grades"`` gold holds graded relevance (higher = better, must be ≥ 0).
    """
    check_choice(relevance, RELEVANCE_MODES, "relevance")
    check_choice(tie_policy, TIE_POLICIES, "tie policy")
    check_choice(missing_pred, MISSING_PRED, "missing-prediction rule")
    gold = np.asarray(gold, dtype=np.float64)
    pred = np.asarray(pred, dtype=np.float64)
    offsets = np.asarray(offsets, dtype=np.int64)
    n_groups = len(offsets) - 1

    blank = np.isnan(gold)
    no_pred = np.isnan(pred) & ~blank
    if missing_pred == "error" and no_pred.any():
        raise _RowError("missing prediction for a ranked item", int(np.flatnonzero(no_pred)[0]))
    keep = ~blank & ~no_pred if missing_pred == "drop" else ~blank
    rows = np.flatnonzero(keep)
    groups = group_index(offsets)[rows]
    kept_offsets = offsets_from_sizes(np.bincount(groups, minlength=n_groups))
    g, p = gold[rows], pred[rows]

    if relevance == "ranks":
        gold_rank = normalize_ranks(g, kept_offsets, "ceiling")
        rel = np.diff(kept_offsets)[groups] - gold_rank + 1
        relevant = gold_rank == segment_reduce(np.minimum, gold_rank, kept_offsets, np.inf)[groups]
    else:
        if (g < 0).any():
            raise _RowError(f"negative relevance grade {g[g < 0][0]:g}", int(rows[np.flatnonzero(g < 0)[0]]))
        gold_rank = normalize_ranks(g, kept_offsets, "ceiling", higher_better=True)
        rel = g
        relevant = g > 0

    pred_key = np.where(np.isnan(p), np.inf, p)
    if tie_policy == "trec":
        tiebreak = -_id_codes(item, rows)
    else:
        tiebreak = -rel if tie_policy == "optimistic" else rel
    order = sort_within_groups(kept_offsets, tiebreak, pred_key)
    sorted_groups = groups  # groups keep their place: groups[order] == groups
    pos = np.arange(len(order), dtype=np.int64) - kept_offsets[sorted_groups] + 1
    starts = tie_block_starts(pred_key[order], sorted_groups)
    block = np.cumsum(starts) - 1
    return Prepared(
        offsets=kept_offsets, group=sorted_groups, pos=pos, rel=rel[order], relevant=relevant[order],
        gold=g[order], gold_rank=gold_rank[order], block=block, block_first=pos[starts][block],
        block_size=np.bincount(block)[block] if len(block) else block.copy(),
        tie_policy=tie_policy, relevance=relevance,
        blanks=int(blank.sum()), missing_pred=int(no_pred.sum()), row=rows[order],
    )


def _id_codes(item, rows) -> np.ndarray:
    """Codes of the item ids of ``rows`` in code point order (= UTF-8 byte order): the
    ``trec`` policy orders tied items by id, descending, as trec_eval orders docnos."""
    if item is None:
        raise ValueError("the trec tie policy orders tied items by their ids; none were given")
    ids = np.asarray(item, dtype=object)[rows]
    if len(ids) == 0:
        return np.zeros(0)
    _, codes = np.unique(ids, return_inverse=True)  # str objects: code point order (no fixed-width copy)
    return codes.reshape(-1).astype(np.float64)


class _RowError(DataError):
    """A DataError about a row of the arrays; :func:`prepare_batch` adds the location."""

    def __init__(self, message: str, row: int):
        super().__init__(message)
        self.row = row


def prepare_batch(batch: Batch, **options) -> Prepared:
    """:func:`prepare` on a :class:`Batch`; data errors name the source line."""
    try:
        prep = prepare(batch.gold, batch.pred, batch.offsets, item=batch.item, **options)
    except _RowError as exc:
        source, line = batch.row_location(exc.row)
        raise DataError(exc.message, source, line) from None
    prep.batch = batch
    return prep


def prepare_group(gold, pred, **options) -> Prepared:
    """:func:`prepare` for a single group given as two sequences."""
    gold = np.asarray(gold, dtype=np.float64)
    return prepare(gold, pred, np.array([0, len(gold)], dtype=np.int64), **options)


# ---- segment helpers (groups of contiguous rows, possibly empty) -------------------------

def segment_reduce(ufunc: np.ufunc, values: np.ndarray, offsets: np.ndarray, empty: float) -> np.ndarray:
    """``ufunc.reduce`` over each group's rows; ``empty`` for a group without rows."""
    sizes = np.diff(offsets)
    out = np.full(len(sizes), empty, dtype=np.float64)
    nonempty = sizes > 0
    if nonempty.any():
        out[nonempty] = ufunc.reduceat(values, offsets[:-1][nonempty])
    return out


def segment_sum(values: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
    """Sum of ``values`` per group number (rows summed in array order)."""
    return np.bincount(group, weights=values, minlength=n_groups).astype(np.float64)


def exclusive_cumprod(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Within each group, the product of the values of the rows before each row.

    Vectorized by group size: the groups of each size k ≤ :data:`~rankeval_cli.batch.SORT_BUCKET_MAX` form an
    (n × k) matrix (a view when they are consecutive), longer groups whose sizes share a
    power-of-two ceiling are padded with ones into one matrix; either is multiplied
    along its rows, so the products are formed in row order exactly as a sequential
    loop would (padding comes after the real rows and changes nothing).
    """
    out = np.ones(len(values), dtype=np.float64)
    sizes = np.diff(offsets)
    for k, _, span in size_buckets(offsets, sizes, 2, SORT_BUCKET_MAX):
        bucket_put(out, span, _exclusive_row_cumprod(bucket_matrix(values, span, k)))
    for rows, valid in padded_buckets(offsets, SORT_BUCKET_MAX + 1):
        out[rows[valid]] = _exclusive_row_cumprod(np.where(valid, values[rows], 1.0))[valid]
    return out


def _exclusive_row_cumprod(mat: np.ndarray) -> np.ndarray:
    """Per row of ``mat``, the product of the entries left of each entry (1 for the first)."""
    excl = np.ones_like(mat)
    np.cumprod(mat[:, :-1], axis=1, out=excl[:, 1:])
    return excl


def padded_buckets(offsets: np.ndarray, min_size: int = 1):
    """Yield ``(rows, valid)`` matrices: one row per group of a size bucket.

    ``rows[i, j]`` is the array index of the j-th row of the i-th group of the bucket
    (clipped for padding), ``valid`` marks real rows. Buckets are sizes in (2^b−1, 2^b],
    so padding at most doubles the work and there are at most log2(max size) buckets.
    Only groups of at least ``min_size`` rows are included.
    """
    sizes = np.diff(offsets)
    if len(sizes) == 0 or sizes.max() < max(min_size, 1):
        return
    width = np.where(sizes >= max(min_size, 1), 1 << np.ceil(np.log2(np.maximum(sizes, 1))).astype(np.int64), 0)
    for w in distinct(width[width > 0]):
        sel = np.flatnonzero(width == w)
        cols = np.arange(w)
        valid = cols[None, :] < sizes[sel, None]
        rows = np.minimum(offsets[sel, None] + cols[None, :], offsets[-1] - 1)
        yield rows, valid


def block_table(prep: Prepared):
    """Per tie block: first sorted row, first position, size and group number."""
    first_row = np.flatnonzero(np.r_[True, prep.block[1:] != prep.block[:-1]]) if len(prep.block) else \
        np.zeros(0, dtype=np.int64)
    return first_row, prep.pos[first_row], prep.block_size[first_row], prep.group[first_row]


def blocks_by_size(first_row: np.ndarray, size: np.ndarray):
    """Yield ``(index, rows)`` per distinct block size m: the blocks' numbers in the
    table and an (nb × m) matrix of their sorted row indices."""
    for m in np.unique(size):
        idx = np.flatnonzero(size == m)
        yield idx, first_row[idx, None] + np.arange(m)[None, :]


def padded_block_buckets(first_row: np.ndarray, size: np.ndarray, n_rows: int):
    """Yield ``(index, rows, valid)`` per power-of-two bucket of block sizes: the blocks'
    numbers in the table, an (nb × width) matrix of their sorted row indices (clipped for
    padding) and the mask of real rows."""
    if len(size) == 0:
        return
    width = 1 << np.ceil(np.log2(size)).astype(np.int64)
    for w in np.unique(width):
        idx = np.flatnonzero(width == w)
        cols = np.arange(w)[None, :]
        yield idx, np.minimum(first_row[idx, None] + cols, n_rows - 1), cols < size[idx, None]


def position_discount(pos: np.ndarray, k: int | None) -> np.ndarray:
    """1 / log2(pos + 1), zero beyond the cut-off ``k`` (Avramidis 2013 eq. 7)."""
    disc = 1.0 / np.log2(pos + 1.0)
    if k is not None:
        disc = np.where(pos <= k, disc, 0.0)
    return disc


def block_mean(values: np.ndarray, prep: Prepared) -> np.ndarray:
    """Per row, the mean of ``values`` over the row's tie block."""
    sums = np.bincount(prep.block, weights=values) if len(values) else np.zeros(0)
    return (sums / np.bincount(prep.block))[prep.block] if len(values) else values.copy()


def check_k(k: int | None) -> int | None:
    if k is not None and k < 1:
        raise ValueError(f"cut-off k must be at least 1, got {k}")
    return k


# ---- streaming ---------------------------------------------------------------------------

@dataclass
class Scores:
    """Per-group values of one measure over one batch (NaN = undefined for that group)."""

    batch: Batch
    values: np.ndarray
    prep: Prepared


def stream(kernel, batches, prepare_options: dict, **kernel_options):
    """Yield :class:`Scores` for each batch: ``kernel(prepared, **kernel_options)``."""
    for batch in batches:
        prep = prepare_batch(batch, **prepare_options)
        yield Scores(batch, kernel(prep, **kernel_options), prep)


class MeanSummary:
    """Streaming mean over the groups where a measure is defined, with counts.

    Holds only counts and an exact running sum (:class:`~rankeval_cli.exactsum.ExactSum`,
    rounded once when the mean is read), so the mean is the correctly rounded sum of all
    defined values over their count, bit for bit the same however the input was cut into
    batches (a TSV and a JSON lines reading of the same data are cut differently).
    """

    def __init__(self, name: str):
        self.name = name
        self.groups = 0
        self.defined = 0
        self.blanks = 0
        self.missing_pred = 0
        self._sum = ExactSum()

    def add(self, scores: Scores) -> Scores:
        values = scores.values
        ok = ~np.isnan(values)
        self.groups += len(values)
        self.defined += int(ok.sum())
        self.blanks += scores.prep.blanks
        self.missing_pred += scores.prep.missing_pred
        self._sum.add(values[ok])
        return scores

    @property
    def undefined(self) -> int:
        return self.groups - self.defined

    @property
    def mean(self) -> float:
        return self._sum.value / self.defined if self.defined else math.nan

    def as_dict(self) -> dict:
        return {"measure": self.name, "value": self.mean, "groups": self.defined, "undefined": self.undefined, "blanks": self.blanks, "missing_pred": self.missing_pred}


def summarize(name: str, scores_iter) -> MeanSummary:
    """Consume a stream of :class:`Scores` into a :class:`MeanSummary`."""
    summary = MeanSummary(name)
    for scores in scores_iter:
        summary.add(scores)
    return summary
