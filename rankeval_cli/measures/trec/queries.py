"""Per-query intermediates shared by every trec_eval measure: trec_eval's ``RES_RELS``
(``form_res_rels.c``) for a whole batch of queries at once, computed once and read by
every measure of the batch.

For each query q of the batch: the relevance value of each retrieved document in ranked
order (a grade ≥ 0, −1 = not in the qrels, −2 = a negative qrels grade), the number of
judged documents at each grade (``rel_levels``, retrieved or not), and from these with
ℓ = the relevance level (trec_eval ``-l``):

- n = ``num_ret``, R = ``num_rel`` (judged grades ≥ ℓ), ``num_rel_ret`` (retrieved judged
  documents with grade ≥ ℓ), ``num_nonpool``, ``num_unjudged_in_pool``;
- per row: its 1-based position, whether rel ≥ ℓ (every measure's test of relevance, taken
  literally as trec_eval does, also for ℓ ≤ 0) and the count of such rows up to it.

Sums are formed as trec_eval forms them, term after term in ranked order
(:func:`sequential_prefix`, :meth:`Events.upto`), so that a value printed to four decimals
is the very double trec_eval prints.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ...batch import distinct, offsets_from_sizes
from ..ties import padded_buckets

NONPOOL, UNJUDGED = -1, -2


def sequential_prefix(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Within each group, the running sum of ``values`` added one after the other (what a
    loop ``sum += v`` gives, to the last bit). Short groups: one vectorized step per place
    in the group (the j-th rows of every group at once); long ones: the rows of the groups
    of a size bucket form a padded matrix whose rows numpy accumulates in order."""
    values = np.asarray(values, dtype=np.float64)
    sizes = np.diff(offsets)
    if not len(values):
        return values.copy()
    if sizes.max() > SHORT_GROUPS:
        out = np.empty(len(values), dtype=np.float64)
        for rows, valid in padded_buckets(offsets):
            out[rows[valid]] = np.cumsum(np.where(valid, values[rows], 0.0), axis=1)[valid]
        return out
    out = values.copy()
    place = np.arange(len(values)) - np.repeat(offsets[:-1], sizes)
    by_place = np.argsort(place, kind="stable")
    bounds = np.concatenate(([0], np.cumsum(np.bincount(place))))
    for j in range(1, len(bounds) - 1):
        rows = by_place[bounds[j]:bounds[j + 1]]
        out[rows] = out[rows - 1] + values[rows]
    return out


#: groups up to this long are summed place by place (:func:`sequential_prefix`)
SHORT_GROUPS = 48


def sequential_sum(values: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
    """Per group, the sum of its ``values`` added in array order (``np.bincount`` adds
    each weight to its bin in turn)."""
    return np.bincount(group, weights=values, minlength=n_groups).astype(np.float64) if len(values) else \
        np.zeros(n_groups)


_LOG2 = np.zeros(2)


def log2_table(top: int) -> np.ndarray:
    """log2(i) for i = 0..top (entry 0 unused), grown as needed and kept."""
    global _LOG2
    if len(_LOG2) <= top:
        size = max(top + 1, 2 * len(_LOG2))
        _LOG2 = np.array([-np.inf] + [math.log2(i) for i in range(1, size)])
    return _LOG2


def default_nan() -> float:
    """The NaN the processor makes of 0/0 (on x86 its sign bit is set: C prints it ``-nan``)."""
    with np.errstate(invalid="ignore"):
        return float(np.float64(0.0) / np.float64(0.0))


def c_log(values) -> np.ndarray:
    """Natural logarithm of each value by the C library (``math.log``); −inf at 0, the
    processor's NaN below 0, NaN kept."""
    out = []
    for v in np.asarray(values, dtype=np.float64).tolist():
        out.append(math.log(v) if v > 0 else (-math.inf if v == 0 else (v if v != v else default_nan())))
    return np.array(out, dtype=np.float64)


class Events:
    """Rows of interest of each query (say, the relevant ones), in ranked order, with a
    term each; :meth:`upto` gives per query the running sum of the terms of the rows at
    positions ≤ k, formed as trec_eval's loop forms it."""

    def __init__(self, group: np.ndarray, pos: np.ndarray, terms: np.ndarray, n_queries: int):
        self.group, self.pos, self.terms, self.n_queries = group, pos, np.asarray(terms, dtype=np.float64), n_queries
        self.offsets = offsets_from_sizes(np.bincount(group, minlength=n_queries)) if len(group) else \
            np.zeros(n_queries + 1, dtype=np.int64)

    @cached_property
    def prefix(self) -> np.ndarray:
        return sequential_prefix(self.terms, self.offsets)

    @cached_property
    def total(self) -> np.ndarray:
        return self.upto(None)

    @cached_property
    def key(self) -> np.ndarray:
        """(query, position) of every event as one sortable integer."""
        return (self.group << 32) + self.pos

    def count_upto(self, k) -> np.ndarray:
        """Per query, the number of its events at positions ≤ k (k a number or one per query)."""
        if k is None:
            return np.diff(self.offsets)
        limit = np.clip(np.asarray(k, dtype=np.int64), 0, (1 << 32) - 1)
        queries = np.arange(self.n_queries, dtype=np.int64)
        if limit.ndim == 2:  # (queries × cut-offs)
            queries, offsets = queries[:, None], self.offsets[:-1, None]
        else:
            offsets = self.offsets[:-1]
        return np.searchsorted(self.key, (queries << 32) + limit, side="right") - offsets

    def upto(self, k) -> np.ndarray:
        """Per query, the sum of the terms of its events at positions ≤ k (0 without one); k a
        number, one per query, or (queries × cut-offs)."""
        count = self.count_upto(k)
        last = (self.offsets[:-1, None] if count.ndim == 2 else self.offsets[:-1]) + count - 1
        return np.where(count > 0, self.prefix[np.maximum(last, 0)] if len(self.prefix) else 0.0, 0.0)


@dataclass(frozen=True)
class BatchSettings:
    """What a :class:`QueryBatch` is evaluated under: the relevance level (-l), the expected tie
    policy, trec_eval's -N, its version, and the top of ERR's grade scale."""

    rel_level: int = 1
    expected: bool = False
    num_docs_in_coll: int = 0
    version: int = 10
    rel_max: float = 4.0


class QueryBatch:
    """trec_eval's per-query intermediates for a batch of queries (module docstring).

    ``offsets``/``rel``: the ranked relevance values (after -M and -J); ``judged_offsets``/
    ``judged_grade``: every non-negative qrels grade of each query. ``tie_block`` numbers
    the blocks of tied scores (read by the ``expected`` tie policy only); ``rel_max`` is the
    top of ERR's grade scale.
    """

    def __init__(self, offsets, rel, judged_offsets, judged_grade, *, tie_block=None,
                 settings: BatchSettings | None = None):
        settings = settings or BatchSettings()
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.rel = np.asarray(rel, dtype=np.int64)
        self.judged_offsets = np.asarray(judged_offsets, dtype=np.int64)
        self.judged_grade = np.asarray(judged_grade, dtype=np.int64)
        self.level = int(settings.rel_level)
        self.tie_block = tie_block
        self.expected = settings.expected
        self.num_docs_in_coll = settings.num_docs_in_coll
        self.version = settings.version
        self.rel_max = settings.rel_max  # the top of ERR's grade scale (rankeval's ERR)
        self.n_queries = len(self.offsets) - 1
        self._cache: dict = {}

    def memo(self, key, compute):
        """A value shared by the measures of this batch (computed by the first that asks)."""
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    # ---- rows (dense: every retrieved row; read by the expected tie policy and a few measures)
    @cached_property
    def num_ret(self) -> np.ndarray:
        return np.diff(self.offsets)

    @cached_property
    def group(self) -> np.ndarray:
        return np.repeat(np.arange(self.n_queries, dtype=np.int64), self.num_ret)

    @cached_property
    def pos(self) -> np.ndarray:
        """1-based position of every row in its ranking."""
        return np.arange(len(self.rel), dtype=np.int64) - self.offsets[self.group] + 1

    # ---- pooled rows (sparse: most retrieved documents are in no qrels and most measures
    # skip them, so the measures read only the rows with rel ≠ −1, unless ℓ ≤ −1)
    @cached_property
    def pooled(self) -> np.ndarray:
        """Indices of the rows in the pool (relevance value ≠ −1), or of every row when ℓ ≤ −1."""
        if self.level <= NONPOOL:
            return np.arange(len(self.rel), dtype=np.int64)
        return np.flatnonzero(self.rel != NONPOOL)

    @cached_property
    def p_group(self) -> np.ndarray:
        return np.searchsorted(self.offsets, self.pooled, side="right") - 1

    @cached_property
    def p_pos(self) -> np.ndarray:
        return self.pooled - self.offsets[self.p_group] + 1

    @cached_property
    def p_rel(self) -> np.ndarray:
        return self.rel[self.pooled]

    @cached_property
    def p_relevant(self) -> np.ndarray:
        """Per pooled row: relevance value ≥ ℓ (every measure's test, taken literally)."""
        return self.p_rel >= self.level

    def pooled_where(self, mask: np.ndarray, terms) -> "Events":
        """:class:`Events` of the pooled rows of ``mask`` with their ``terms``."""
        return Events(self.p_group[mask], self.p_pos[mask], terms, self.n_queries)

    @cached_property
    def relevant_rows(self) -> "Events":
        """The relevant rows as events; ``rank`` = c_i, the relevant rows up to each."""
        events = self.pooled_where(self.p_relevant, np.zeros(int(self.p_relevant.sum())))
        events.rank = np.arange(len(events.group), dtype=np.int64) - events.offsets[events.group] + 1
        return events

    def rel_upto(self, k) -> np.ndarray:
        """Per query, relevant rows among the first min(k, n) (k a number, one per query, or a
        (queries × cut-offs) matrix)."""
        k = np.asarray(k, dtype=np.int64)
        n = self.num_ret[:, None] if k.ndim == 2 else self.num_ret
        return self.relevant_rows.count_upto(np.minimum(k, n))

    def cutoffs(self, values) -> np.ndarray:
        """(queries × cut-offs) matrix of the cut-off values."""
        return np.broadcast_to(np.asarray(values, dtype=np.int64)[None, :], (self.n_queries, len(values)))

    def before(self, mask: np.ndarray) -> np.ndarray:
        """Per pooled row, the pooled rows of ``mask`` above it in its ranking."""
        cum = np.cumsum(mask, dtype=np.int64)
        base = np.concatenate(([0], cum))[np.searchsorted(self.p_group, np.arange(self.n_queries))]
        return cum - mask - base[self.p_group] if len(cum) else cum

    # ---- counts
    @cached_property
    def num_rel_ret(self) -> np.ndarray:
        """Retrieved judged documents with grade ≥ ℓ (trec_eval counts these among rel ≥ 0 only)."""
        return np.bincount(self.p_group[(self.p_rel >= 0) & self.p_relevant], minlength=self.n_queries)

    @cached_property
    def num_nonpool(self) -> np.ndarray:
        return np.bincount(self.p_group[self.p_rel == NONPOOL], minlength=self.n_queries) \
            if self.level <= NONPOOL else self.num_ret - np.bincount(self.p_group, minlength=self.n_queries)

    @cached_property
    def num_unjudged_in_pool(self) -> np.ndarray:
        return np.bincount(self.p_group[self.p_rel == UNJUDGED], minlength=self.n_queries)

    @cached_property
    def judged_group(self) -> np.ndarray:
        return np.repeat(np.arange(self.n_queries, dtype=np.int64), np.diff(self.judged_offsets))

    @cached_property
    def grades(self) -> np.ndarray:
        """The distinct judged grades of the batch, ascending."""
        return distinct(self.judged_grade)

    @cached_property
    def rel_levels(self) -> np.ndarray:
        """(queries × len(grades)) counts of judged documents per grade (``rel_levels``)."""
        g = len(self.grades)
        column = np.searchsorted(self.grades, self.judged_grade)
        return np.bincount(self.judged_group * g + column, minlength=self.n_queries * g).reshape(self.n_queries, g)

    def count_graded(self, low=None, high=None) -> np.ndarray:
        """Per query, judged documents with low ≤ grade < high."""
        keep = np.ones(len(self.grades), dtype=bool)
        if low is not None:
            keep &= self.grades >= low
        if high is not None:
            keep &= self.grades < high
        return self.rel_levels[:, keep].sum(axis=1)

    @cached_property
    def num_rel(self) -> np.ndarray:
        """R: judged documents with grade ≥ ℓ."""
        return self.count_graded(low=self.level)

    @cached_property
    def num_nonrel(self) -> np.ndarray:
        """Judged documents with 0 ≤ grade < ℓ (bpref's N)."""
        return self.count_graded(high=self.level)

    @cached_property
    def num_rel_levels(self) -> np.ndarray:
        """Per query, 1 + the highest grade judged (0 without a judgment)."""
        top = np.full(self.n_queries, -1, dtype=np.int64)
        np.maximum.at(top, self.judged_group, self.judged_grade)
        return top + 1

    def level_count(self, grade: int) -> np.ndarray:
        """Per query, judged documents of one grade."""
        i = np.searchsorted(self.grades, grade)
        if i < len(self.grades) and self.grades[i] == grade:
            return self.rel_levels[:, i]
        return np.zeros(self.n_queries, dtype=np.int64)

    def log2(self, x: np.ndarray) -> np.ndarray:
        """log2 of positive integers as C's ``log2`` gives it (a table made with ``math.log2``,
        which is the C library's, so no vectorized numpy kernel rounds differently)."""
        return log2_table(int(x.max()) if len(x) else 1)[x]

    # ---- the expected tie policy
    @cached_property
    def block(self) -> np.ndarray:
        """Tie block number of every row, consecutive over the batch."""
        b = np.asarray(self.tie_block, dtype=np.int64)
        starts = np.r_[True, b[1:] != b[:-1]] if len(b) else np.zeros(0, dtype=bool)
        if len(b):
            starts[self.offsets[:-1][self.num_ret > 0]] = True
        return np.cumsum(starts) - 1

    def block_mean(self, values: np.ndarray) -> np.ndarray:
        """Per row, the mean of ``values`` over its tie block: the expected value at the row's
        place when every tied block is in uniformly random order."""
        if not len(values):
            return np.asarray(values, dtype=np.float64)
        sums = np.bincount(self.block, weights=values)
        return (sums / np.bincount(self.block))[self.block]
