"""Segment-level statistics of a metric against human scores, per group and averaged.

Pearson's r, Spearman's ρ and every Kendall variant of ``rankeval tau``
(:mod:`rankeval_cli.measures.pairs` counts, :mod:`rankeval_cli.measures.tau`
formulas), with a metric tie threshold, a minimum human difference or tie
calibration (:mod:`.calibration`); groups and averages as :mod:`.cells` makes
them. docs/meta-evaluation-statistics.md gives every equation with its paper.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...batch import group_index
from ...measures.pairs import pair_counts
from ...measures.tau import CALIBRATED, canonical_variant, group_tau
from .calibration import calibrated_counts, counts_at, num_den
from .cells import average_groups, grouped_cells, ranks_within_groups, segment_sums

STATISTICS = ("pearson", "spearman", "kendall", "accuracy", "pdp")


def check_statistic(statistic: str, variant: str | None) -> tuple[str, str | None]:
    """(statistic, Kendall variant or None); ``accuracy`` is Kendall's acc-eq."""
    statistic = statistic.lower()
    if statistic == "accuracy":
        return "kendall", "acc-eq"
    if statistic not in STATISTICS:
        raise ValueError(f"statistic must be one of {', '.join(STATISTICS)}, not {statistic!r}")
    if statistic == "kendall":
        return statistic, canonical_variant(variant or "b")
    return statistic, None


def group_pearson(x, y, offsets) -> np.ndarray:
    """Pearson's r of every group (NaN for fewer than 2 cells or a constant vector).

    r = Σ(x-x̄)(y-ȳ) / sqrt(Σ(x-x̄)² Σ(y-ȳ)²) (Pearson 1896), two-pass; like
    scipy.stats.pearsonr, exactly ±1 for 2 cells and clipped to [-1, 1]; a
    constant vector gives NaN, as mt-metrics-eval makes it (scipy ≥ 1.14 gives 0
    or a warning).
    """
    x = np.asarray(x, np.float64)
    y = np.asarray(y, np.float64)
    sizes = np.diff(offsets)
    G = len(sizes)
    out = np.full(G, np.nan)
    if not len(x):
        return out
    gid = group_index(offsets)
    n = sizes.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        dx = x - (segment_sums(x, offsets) / n)[gid]
        dy = y - (segment_sums(y, offsets) / n)[gid]
        sxy = segment_sums(dx * dy, offsets)
        sxx = segment_sums(dx * dx, offsets)
        syy = segment_sums(dy * dy, offsets)
        r = np.clip(sxy / np.sqrt(sxx * syy), -1.0, 1.0)
    nonempty = sizes > 0
    starts = offsets[:-1][nonempty]
    constant = np.zeros(G, bool)
    constant[nonempty] = ((np.maximum.reduceat(x, starts) == np.minimum.reduceat(x, starts))
                          | (np.maximum.reduceat(y, starts) == np.minimum.reduceat(y, starts)))
    ok = (sizes >= 2) & ~constant
    out[ok] = r[ok]
    two = (sizes == 2) & ~constant
    if two.any():
        first = offsets[:-1][two]
        out[two] = np.sign(x[first + 1] - x[first]) * np.sign(y[first + 1] - y[first])
    return out


def group_spearman(x, y, offsets) -> np.ndarray:
    """Spearman's ρ: Pearson's r of the average ranks within each group (Spearman 1904)."""
    return group_pearson(ranks_within_groups(x, offsets), ranks_within_groups(y, offsets), offsets)


@dataclass
class GroupValues:
    """Per-group statistic, cells and counted pairs."""

    value: np.ndarray
    n: np.ndarray
    pairs: np.ndarray
    counts: object = None  # PairCounts for Kendall
    epsilon: float | None = None
    ratio_of: tuple | None = None  # (numerator, denominator) per group, for Kendall variants


def group_values(statistic, human, metric, offsets, *, variant=None, epsilon=None, calibrate=False,
                 min_human_diff=None, weighting="plain", copies=None) -> GroupValues:
    """The statistic of every group of cells (no missing values here).

    ``copies`` (per group; bootstrap resamples): pairs formed by two copies of one cell. They
    are ties in both scores at any threshold and are no pairs of the sample, so Kendall
    variants leave them out (T_hm and the pair counts lose them).
    """
    statistic, variant = check_statistic(statistic, variant)
    if statistic == "pdp":
        raise ValueError("pdp is one value pooled over the groups (pdp_values), not a statistic per group")
    offsets = np.asarray(offsets, np.int64)
    n = np.diff(offsets)
    all_pairs = n * (n - 1) // 2
    if statistic in ("pearson", "spearman"):
        if epsilon is not None or calibrate or min_human_diff is not None:
            raise ValueError("epsilon, calibrate and min_human_diff apply to kendall and accuracy only")
        fn = group_pearson if statistic == "pearson" else group_spearman
        return GroupValues(fn(human, metric, offsets), n, all_pairs)
    if calibrate and variant not in CALIBRATED:
        raise ValueError(f"tie calibration applies to {' and '.join(CALIBRATED)}, not {variant!r}")
    if calibrate and epsilon is not None:
        raise ValueError("give epsilon or calibrate, not both")
    pair_level = calibrate or min_human_diff is not None or (epsilon is not None and epsilon > 0)
    if copies is not None and (min_human_diff is not None and min_human_diff > 0):
        copies = None  # copies differ by 0 in human scores: already left out
    if not pair_level:
        counts = _without_copies(pair_counts(human, metric, offsets), copies)
        pairs = counts.pairs if copies is None else counts.pairs - copies
        return GroupValues(group_tau(variant, counts), n, pairs, counts, epsilon, num_den(variant, counts))
    if variant == "c":
        raise ValueError("tau-c is not defined with epsilon, calibration or min_human_diff "
                         "(its denominator counts distinct values)")
    if calibrate:
        pairs = None if copies is None else all_pairs - copies
        counts, epsilon = calibrated_counts(variant, human, metric, offsets, weighting=weighting,
                                            min_human_diff=min_human_diff, pairs=pairs)
    else:
        counts = counts_at(human, metric, offsets, epsilon or 0.0, min_human_diff=min_human_diff)
    counts = _without_copies(counts, copies)
    kept = counts.C + counts.D + counts.T_h + counts.T_m + counts.T_hm
    return GroupValues(group_tau(variant, counts), n, kept if (min_human_diff is not None or copies is not None)
                       else counts.pairs, counts, epsilon, num_den(variant, counts))


def _without_copies(counts, copies):
    """The counts without the pairs of copies of one cell (all in T_hm)."""
    if copies is None:
        return counts
    from dataclasses import replace

    return replace(counts, T_hm=counts.T_hm - copies)


@dataclass
class SegResult:
    """A segment-level statistic and what it was computed on."""

    value: float
    groups: int  # groups counted in the average
    defined: int  # groups whose statistic is defined
    cells: int  # (system, segment) cells used
    epsilon: float | None = None  # metric tie threshold used (calibrated or given)
    counts: dict = field(default_factory=dict)  # pooled C, D, T_h, T_m, T_hm (Kendall)


def seg_statistic(human, metric, statistic: str = "pearson", average_by: str = "none", *,
                  variant: str | None = None, epsilon: float | None = None, calibrate: bool = False,
                  min_human_diff: float | None = None, undefined_as_zero: bool = False,
                  weighting: str = "plain") -> SegResult:
    """Segment-level ``statistic`` of a metric against human scores, grouped by ``average_by``.

    ``statistic``: pearson, spearman, kendall (``variant`` as rankeval's tau
    variants, default b = scipy / mt-metrics-eval), accuracy (= kendall acc-eq),
    pdp (:func:`pdp_values`: one value pooled over the groups, not an average).
    ``calibrate`` chooses the metric tie threshold ε maximizing the average
    (eq, acc-eq; mt-metrics-eval's KendallWithTiesOpt with sample_rate 1).
    """
    cells = grouped_cells(human, [metric], average_by)
    if statistic.lower() == "pdp":
        if (variant, epsilon, calibrate, min_human_diff, undefined_as_zero, weighting) != \
                (None, None, False, None, False, "plain"):
            raise ValueError("pdp is one Pearson's r pooled over the groups: it takes no variant, epsilon, "
                             "calibration, min_human_diff, undefined_as_zero or weighting")
        value = pdp_values(cells.human, cells.metrics[0], cells.offsets)[0]
        groups = int((cells.sizes >= 2).sum())
        defined = not np.isnan(value)
        return SegResult(float(value) if defined else 0.0, groups if defined else 0, groups if defined else 0,
                         len(cells.human))
    gv = group_values(statistic, cells.human, cells.metrics[0], cells.offsets, variant=variant,
                      epsilon=epsilon, calibrate=calibrate, min_human_diff=min_human_diff,
                      weighting=weighting)
    value, groups, defined = average_groups(gv.value, gv.n, gv.pairs, weighting=weighting,
                                            undefined_as_zero=undefined_as_zero, ratio_of=gv.ratio_of)
    counts = {}
    if gv.counts is not None:
        counts = {k: int(getattr(gv.counts, k).sum()) for k in ("C", "D", "T_h", "T_m", "T_hm")}
    return SegResult(float(value), int(groups), int(defined), len(cells.human), gv.epsilon, counts)


def pdp_values(human, metrics, offsets) -> np.ndarray:
    """Pairwise-difference Pearson (PDP; mt-metrics-eval 2025, ``Pearson(pdp=True)``) of each row of
    ``metrics`` (K, n) or of one metric vector, against ``human``; NaN where undefined.

    Within each group g, every ordered pair (a, b) of its cells — both orders and a = b
    included — gives the human difference h_b - h_a and the metric difference m_b - m_a;
    PDP is Pearson's r of those differences pooled over all groups. Over the n_g² pairs
    of a group, Σ (h_b - h_a) = 0 and Σ (h_b - h_a)(m_b - m_a) = 2 n_g Σ_a (h_a - h̄_g)(m_a - m̄_g),
    so with S^hm_g, S^hh_g, S^mm_g the centred sums of products of group g,

        PDP = Σ_g n_g S^hm_g / sqrt(Σ_g n_g S^hh_g · Σ_g n_g S^mm_g),

    computed in O(n) without forming the pairs. Undefined (NaN) when every human or every
    metric difference is 0 (each group constant); mt-metrics-eval reports 0 there. With one
    group (``none``) PDP is Pearson's r.
    """
    h = np.asarray(human, np.float64)
    M = np.atleast_2d(np.asarray(metrics, np.float64))
    offsets = np.asarray(offsets, np.int64)
    n = np.diff(offsets).astype(np.float64)
    if not len(h):
        return np.full(M.shape[0], np.nan)
    hc, mc = _centred(h[None], offsets), _centred(M, offsets)
    starts = offsets[:-1]
    # row by row (no matrix product), so a row's value does not depend on the other rows
    sxy = (np.add.reduceat(hc * mc, starts, axis=-1) * n).sum(axis=-1)
    sxx = (np.add.reduceat(hc * hc, starts, axis=-1) * n).sum(axis=-1)
    syy = (np.add.reduceat(mc * mc, starts, axis=-1) * n).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.clip(sxy / np.sqrt(sxx * syy), -1.0, 1.0)
    return np.where((sxx > 0) & (syy > 0), r, np.nan)


def _centred(X, offsets) -> np.ndarray:
    """Each row of X (K, n) minus its group means; exactly 0 in a group whose values are all equal."""
    starts = offsets[:-1]
    gid = group_index(offsets)
    mean = np.add.reduceat(X, starts, axis=-1) / np.diff(offsets)
    constant = np.maximum.reduceat(X, starts, axis=-1) == np.minimum.reduceat(X, starts, axis=-1)
    return np.where(constant[:, gid], 0.0, X - mean[:, gid])


def kendall_like(human, metric, average_by: str = "item", threshold: float = 25.0) -> SegResult:
    """WMT20's Kendall-like tau (Mathur et al. 2020): pairs with |Δhuman| ≥ threshold, metric ties
    discordant, (C - D) / (C + D) pooled over groups (= penalize variant, pair-weighted)."""
    return seg_statistic(human, metric, "kendall", average_by, variant="penalize",
                         min_human_diff=threshold, weighting="pairs")


