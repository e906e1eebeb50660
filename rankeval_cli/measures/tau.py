"""Kendall's tau with every tie convention in use (Avramidis 2013 eqs. 1-4; docs/definitions.md).

With the pair counts of :mod:`.pairs` (C, D, T_h gold-only ties, T_m pred-only
ties, T_hm ties in both, N = all pairs, n items):

=========  ==================================================  ===========================
variant    formula                                             source
=========  ==================================================  ===========================
penalize   (C - D - T_m) / (C + D + T_m)                       Avramidis 2013 eq. 2; WMT08-12, DARR
ignore     (C - D) / (C + D)                                   Avramidis 2013 eq. 1; WMT13
wmt14      (C - D) / (C + D + T_m)                             WMT14-16
include    (C - D + T_hm) / N                                  Avramidis 2013 tie inclusion
a          (C - D) / N                                         Kendall 1938
b          (C - D) / sqrt((C + D + T_h)(C + D + T_m))          Kendall 1945; scipy default
c          2(C - D) / (n² (m - 1) / m), m = min(#distinct)     Stuart 1953
eq         (C + T_hm - D - T_h - T_m) / N                      Deutsch et al. 2023
acc-eq     (C + T_hm) / N                                      Deutsch et al. 2023; WMT23-25
=========  ==================================================  ===========================

A group's tau is undefined (NaN) when its denominator is 0. Micro averaging
(Avramidis 2013 τ_μ) pools the counts of all groups, then applies the formula; for the
ratio variants this is Σ numerator / Σ denominator, which is also how ``c`` is
pooled (Σ 2S / Σ n²(m-1)/m). Macro averaging (τ_m) is the mean of the defined
group taus; undefined groups are counted, and a tau of exactly 0 is kept (the
original RankEval dropped it).

p-values: per group Avramidis 2013 eqs. 3-4, z = τ / sqrt((4n+10) / (9n(n-1))) with n
the number of ranked items, p = erfc(|z|/√2) (not defined for ``acc-eq``, an
accuracy that is not centred on 0). For a whole data set, z = ΣS / sqrt(ΣVar(S))
with Kendall's tie-corrected null variance of S per group.

Tie calibration (Deutsch, Foster & Freitag 2023, "Ties Matter"): for ``eq`` and
``acc-eq``, pred pairs with |Δpred| ≤ ε count as pred ties, ε chosen among 0 and
the observed |Δpred| to maximize the micro or macro score (smallest ε on ties);
the pairs are counted one by one (:mod:`.pair_thresholds`).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable, Iterable

import numpy as np

from ..exactsum import ExactSum
from ..vocabulary import CALIBRATED_VARIANTS as CALIBRATED
from ..vocabulary import TAU_ALIASES as ALIASES
from ..vocabulary import TAU_AVERAGES as AVERAGES
from ..vocabulary import TAU_VARIANTS as VARIANTS
from .pair_thresholds import (best_epsilon, categories, check_pair_memory, check_pair_options, gold_absdiff,
                              plain_counts, thresholded_counts)
from .pairs import PairCounts, pair_counts, pair_table

#: Tie calibration holds every pair in memory (about 17 bytes each).
CALIBRATION_MAX_PAIRS = 20_000_000
_COUNTS = ("C", "D", "T_h", "T_m", "T_hm")
_LOG_MAX_FLOAT = math.log(sys.float_info.max)  # e^(-x²) underflows for x² above this


def canonical_variant(name: str) -> str:
    """The variant called ``name`` (case-insensitive, ``_`` = ``-``, aliases resolved)."""
    key = name.strip().lower().replace("_", "-")
    key = ALIASES.get(key, key)
    if key not in VARIANTS:
        known = ", ".join(VARIANTS + tuple(ALIASES))
        raise ValueError(f"unknown tau variant {name!r}; known: {known}")
    return key


def c_denominator(n, m) -> np.ndarray:
    """Stuart's tau-c denominator n²(m - 1)/m (0 when m = 0, i.e. no items)."""
    n = np.asarray(n, dtype=np.float64)
    m = np.asarray(m, dtype=np.float64)
    return np.divide(n * n * (m - 1), m, out=np.zeros_like(n), where=m > 0)


def numerator_denominator(variant, C, D, T_h, T_m, T_hm, c_den=None):
    """(numerator, denominator) of ``variant`` from counts (float64 arrays)."""
    C, D, T_h, T_m, T_hm = (np.asarray(x, dtype=np.float64) for x in (C, D, T_h, T_m, T_hm))
    table = {  # functions, so that only the variant asked for is computed
        "penalize": lambda: (C - D - T_m, C + D + T_m),
        "ignore": lambda: (C - D, C + D),
        "wmt14": lambda: (C - D, C + D + T_m),
        "include": lambda: (C - D + T_hm, C + D + T_h + T_m + T_hm),
        "a": lambda: (C - D, C + D + T_h + T_m + T_hm),
        "b": lambda: (C - D, np.sqrt((C + D + T_h) * (C + D + T_m))),
        "c": lambda: (2 * (C - D), c_den),
        "eq": lambda: (C + T_hm - D - T_h - T_m, C + D + T_h + T_m + T_hm),
        "acc-eq": lambda: (C + T_hm, C + D + T_h + T_m + T_hm),
    }
    return table[variant]()


def ratio(num, den) -> np.ndarray:
    """num / den, NaN where den is 0 (the tau is undefined)."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    return np.divide(num, den, out=np.full(np.broadcast(num, den).shape, np.nan), where=den > 0)


def group_tau(variant: str, counts: PairCounts) -> np.ndarray:
    """The tau of every group (NaN where undefined)."""
    c_den = c_denominator(counts.n, np.minimum(counts.gold_distinct, counts.pred_distinct)) if variant == "c" else None
    return ratio(*numerator_denominator(variant, *(getattr(counts, k) for k in _COUNTS), c_den))


def group_p(variant: str, tau, n) -> np.ndarray:
    """Avramidis 2013 eqs. 3-4: p = erfc(|τ| / sqrt((4n+10)/(9n(n-1))) / √2), n = ranked items.

    NaN for n < 2, undefined tau, and for ``acc-eq``. scipy is imported here,
    not at module level: its import costs about 0.2 s and only per-group rows
    need a vectorized erfc.
    """
    from scipy.special import erfc

    tau = np.asarray(tau, dtype=np.float64)
    if variant == "acc-eq":
        return np.full(tau.shape, np.nan)
    n = np.asarray(n, dtype=np.float64)
    sd = np.sqrt(ratio(4 * n + 10, 9 * n * (n - 1)))
    return erfc(np.abs(tau / sd) / math.sqrt(2))


def set_p(S: float, var_S: float) -> float:
    """Two-sided normal p of z = ΣS / sqrt(ΣVar(S)); NaN when the variance is 0.

    ``math.erfc`` (the C library's, no scipy import) differs from scipy's
    (cephes) in the last digits, by up to about 1e-14 relative, being the
    more accurate of the two (within 3 ulp of the exact value; cephes up to
    about 250); like scipy, p is 0 where e^(-x²) underflows, not subnormal.
    """
    if not var_S > 0:
        return math.nan
    x = abs(S) / math.sqrt(var_S) / math.sqrt(2)
    return 0.0 if x * x > _LOG_MAX_FLOAT else math.erfc(x)


@dataclass
class GroupRows:
    """Per-group results of one batch, in input order.

    ``p`` is computed on first use (only per-group output needs it).
    """

    group: np.ndarray
    counts: PairCounts
    tau: np.ndarray
    variant: str

    @cached_property
    def p(self) -> np.ndarray:
        """Per-group p-values (Avramidis 2013 eqs. 3-4), see :func:`group_p`."""
        return group_p(self.variant, self.tau, self.counts.n)

    def records(self) -> list[dict]:
        """One dict per group: group, items, skipped, C, D, T_h, T_m, T_hm, tau, p_independence."""
        c = self.counts
        columns = {"group": self.group.tolist(), "items": c.n.tolist(), "skipped": c.skipped.tolist(),
                   **{k: getattr(c, k).tolist() for k in _COUNTS},
                   "tau": self.tau.tolist(), "p_independence": self.p.tolist()}
        return [dict(zip(columns, values)) for values in zip(*columns.values())]


@dataclass
class TauSummary:
    """Micro and macro tau of a data set with the pooled counts and the set p-value."""

    variant: str
    micro: float
    macro: float
    C: int
    D: int
    T_h: int
    T_m: int
    T_hm: int
    groups: int  # all groups seen, defined or not
    undefined: int  # groups whose tau is undefined (left out of the macro mean)
    skipped: int  # items lacking gold or pred
    S: int
    var_S: float
    p: float
    epsilon: float | None = None  # the calibrated pred tie threshold


@dataclass
class TauAccumulator:
    """Streams per-group taus and sums what the summary needs (O(1) memory).

    ``add(batch)`` (or ``add_counts``) returns the batch's per-group rows at once;
    ``summary()`` gives the micro/macro result of everything added.
    """

    variant: str = "penalize"
    set_p_value: bool = True  # False when pred ties are not tie blocks (calibration)
    epsilon: float | None = None  # pred pairs with |Δpred| <= epsilon are ties (any variant but c)
    min_diff: float | None = None  # only pairs with |Δgold| >= min_diff are counted
    max_pairs: int = CALIBRATION_MAX_PAIRS  # per batch, when counting pair by pair
    totals: dict = field(default_factory=lambda: dict.fromkeys(_COUNTS + ("skipped", "groups", "undefined"), 0))
    c_den: ExactSum = field(default_factory=ExactSum)  # sums exact across batches, so results do
    var_S: ExactSum = field(default_factory=ExactSum)  # not depend on where the input was cut
    macro_sum: ExactSum = field(default_factory=ExactSum)

    def __post_init__(self):
        self.variant = canonical_variant(self.variant)
        if self.pair_level:
            check_pair_options(self.variant, self.epsilon, self.min_diff)
            self.set_p_value = False  # ε-ties are not tie blocks; dropped pairs break the null variance

    @property
    def pair_level(self) -> bool:
        return bool(self.epsilon) or self.min_diff is not None

    def add(self, batch) -> GroupRows:
        if self.pair_level:
            present = ~(np.isnan(batch.gold) | np.isnan(batch.pred))
            n = np.bincount(batch.group_index, weights=present, minlength=batch.n_groups).astype(np.int64)
            check_pair_memory(batch, n, 0, self.max_pairs, "--epsilon and --min-diff count pair by pair")
            counts = thresholded_counts(batch.gold, batch.pred, batch.offsets, self.epsilon, self.min_diff)
            return self.add_counts(batch.group, counts)
        return self.add_counts(batch.group, pair_counts(batch.gold, batch.pred, batch.offsets))

    def add_counts(self, group, counts: PairCounts) -> GroupRows:
        tau = group_tau(self.variant, counts)
        defined = ~np.isnan(tau)
        for key in _COUNTS + ("skipped",):
            self.totals[key] += int(getattr(counts, key).sum())
        self.totals["groups"] += len(counts)
        self.totals["undefined"] += int((~defined).sum())
        self.macro_sum.add(tau[defined])
        if self.variant == "c":
            self.c_den.add(c_denominator(counts.n, np.minimum(counts.gold_distinct, counts.pred_distinct)))
        if self.set_p_value:
            self.var_S.add(counts.var_S())
        return GroupRows(np.asarray(group, dtype=object), counts, tau, self.variant)

    def summary(self, epsilon: float | None = None) -> TauSummary:
        t = self.totals
        counts = [t[k] for k in _COUNTS]
        micro = float(ratio(*numerator_denominator(self.variant, *counts, self.c_den.value)))
        defined = t["groups"] - t["undefined"]
        macro = self.macro_sum.value / defined if defined else math.nan
        S = t["C"] - t["D"]
        var_S = self.var_S.value if self.set_p_value else math.nan
        return TauSummary(self.variant, micro, macro, *counts, t["groups"], t["undefined"], t["skipped"],
                          S, var_S, set_p(S, var_S), self.epsilon if epsilon is None else epsilon)


# Tie calibration ---------------------------------------------------------------------

@dataclass
class TieCalibrator:
    """Collects every pair of a stream, then finds the best pred tie threshold ε.

    Not streaming: ε depends on all pairs, so per-group rows come at the end.
    Memory grows with the number of pairs, bounded by ``max_pairs``.
    """

    variant: str = "acc-eq"
    average: str = "macro"
    max_pairs: int = CALIBRATION_MAX_PAIRS
    min_diff: float | None = None  # only pairs with |Δgold| >= min_diff are counted
    _pairs: list = field(default_factory=list)
    _groups: list = field(default_factory=list)
    _n_pairs: int = 0
    _n_groups: int = 0

    def __post_init__(self):
        self.variant = canonical_variant(self.variant)
        if self.variant not in CALIBRATED:
            raise ValueError(f"tie calibration applies to {' and '.join(CALIBRATED)}, not {self.variant!r}")
        if self.average not in AVERAGES:
            raise ValueError(f"average must be one of {', '.join(AVERAGES)}")

    def add(self, batch) -> None:
        present = ~(np.isnan(batch.gold) | np.isnan(batch.pred))
        n = np.bincount(batch.group_index, weights=present, minlength=batch.n_groups).astype(np.int64)
        self._n_pairs = check_pair_memory(batch, n, self._n_pairs, self.max_pairs,
                                          "tie calibration keeps every item pair in memory")
        group, gcmp, pcmp, absdiff = pair_table(batch.gold, batch.pred, batch.offsets)
        untied, tied = categories(gcmp, pcmp)
        if self.min_diff is not None:
            keep = gold_absdiff(batch.gold, batch.pred, batch.offsets) >= self.min_diff
            group, untied, tied, absdiff = group[keep], untied[keep], tied[keep], absdiff[keep]
        kept = np.bincount(group, minlength=len(n)).astype(np.int64)
        self._pairs.append((group + self._n_groups, untied.astype(np.int8), tied.astype(np.int8), absdiff))
        self._groups.append((np.asarray(batch.group, dtype=object), n, batch.sizes - n, kept))
        self._n_groups += len(n)

    def finish(self) -> tuple[float, GroupRows, TauSummary]:
        """(ε, per-group rows at ε, summary at ε)."""
        group_ids, n, skipped, kept = (np.concatenate(parts) for parts in zip(*self._groups)) if self._groups \
            else (np.zeros(0, object), np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64))
        group, untied, tied, absdiff = (np.concatenate(p) for p in zip(*self._pairs)) if self._pairs \
            else (np.zeros(0, np.int64), np.zeros(0, np.int8), np.zeros(0, np.int8), np.zeros(0))
        epsilon = best_epsilon(self.variant, self.average, group, untied, tied, absdiff, kept)
        category = np.where(absdiff <= epsilon, tied, untied)
        per_group = np.bincount(group * 5 + category, minlength=5 * len(n)).reshape(-1, 5).T
        counts = plain_counts(n, skipped, per_group)
        acc = TauAccumulator(self.variant, set_p_value=False)
        rows = acc.add_counts(group_ids, counts)
        return epsilon, rows, acc.summary(epsilon)


# Python API --------------------------------------------------------------------------

def tau(gold, pred, variant: str = "penalize", *, scores: bool = False, epsilon: float = 0.0,
        min_diff: float | None = None) -> float:
    """Kendall's tau of one group (NaN when undefined).

    ``gold`` and ``pred`` are ranks (lower = better) or, with ``scores=True``,
    scores (higher = better); the value is the same either way, since a pair's
    concordance does not depend on the shared direction. NaN marks a missing
    value (the item is left out). ``epsilon`` makes pred pairs with
    |Δpred| ≤ ε ties; ``min_diff`` counts only pairs with |Δgold| ≥ min_diff
    (neither is defined for tau-c).

    >>> round(tau([1, 2, 2, 3, 4], [2, 1, 1.5, 5, 3], "b", scores=True), 9)
    0.316227766
    """
    del scores  # documents the direction; concordance is direction-free
    variant = canonical_variant(variant)
    gold = np.asarray(gold, dtype=np.float64)
    pred = np.asarray(pred, dtype=np.float64)
    if gold.shape != pred.shape or gold.ndim != 1:
        raise ValueError("gold and pred must be 1-d arrays of the same length")
    offsets = np.array([0, len(gold)])
    if epsilon or min_diff is not None:
        check_pair_options(variant, epsilon, min_diff)
        return float(group_tau(variant, thresholded_counts(gold, pred, offsets, epsilon, min_diff))[0])
    return float(group_tau(variant, pair_counts(gold, pred, offsets))[0])


def tau_stream(batches: Iterable, variant: str = "penalize", *,
               on_groups: Callable[[GroupRows], None] | None = None,
               calibrate: str | None = None) -> TauSummary:
    """Tau of a stream of :class:`~rankeval_cli.batch.Batch`; returns the summary.

    ``on_groups`` receives each batch's per-group rows as soon as they are
    computed. ``calibrate="micro"|"macro"`` runs tie calibration (eq, acc-eq)
    for that average; then the rows arrive once, at the end.
    """
    rows_of = (lambda _key, rows: on_groups(rows)) if on_groups else None
    return tau_partitions(batches, variant, on_groups=rows_of, calibrate=calibrate)[()]


def tau_partitions(batches: Iterable, variant: str = "penalize", by: Iterable[str] = (), *,
                   on_groups: Callable[[tuple, GroupRows], None] | None = None, calibrate: str | None = None,
                   epsilon: float | None = None, min_diff: float | None = None) -> dict:
    """``{key: TauSummary}`` of a stream, one per value of the ``by`` columns (``()`` without them,
    present even for an empty stream). ``on_groups(key, rows)`` receives per-group rows as they
    are computed (with ``calibrate``, once per key at the end)."""
    from ..partition import partitioned

    def new():
        if calibrate:
            return TieCalibrator(variant, calibrate, min_diff=min_diff)
        return TauAccumulator(variant, epsilon=epsilon, min_diff=min_diff)

    accumulators: dict = {} if by else {(): new()}
    for key, batch in partitioned(batches, by):
        acc = accumulators.get(key) or accumulators.setdefault(key, new())
        rows = acc.add(batch)
        if on_groups and not calibrate:
            on_groups(key, rows)
    summaries = {}
    for key, acc in accumulators.items():
        if calibrate:
            _epsilon, rows, summaries[key] = acc.finish()
            if on_groups:
                on_groups(key, rows)
        else:
            summaries[key] = acc.summary()
    return summaries
