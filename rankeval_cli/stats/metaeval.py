"""Meta-evaluation of MT metrics on system × segment score matrices (WMT21-25).

Human and metric scores are float64 arrays of shape (n_sys, n_seg), NaN =
missing, higher = better. The definitions follow google-research/mt-metrics-eval
(``stats.py``, ``pce.py``, ``data.py``, ``tasks.py``); docs/meta-evaluation.md
gives every equation with its paper.

Grouping (``average_by``) turns the matrix into groups of cells:

* ``none``   — one group holding every (system, segment) cell, system-major;
* ``item``   — one group per segment, its cells across systems;
* ``system`` — one group per system, its cells across segments.

A cell is used when its human score is present (and, for a metric's own value,
its metric score). Each group's statistic is computed on its cells; groups with
fewer than 2 cells are skipped, undefined groups (NaN, e.g. a constant vector
for Pearson) are left out, or counted as 0 with ``undefined_as_zero``. The
average is the plain mean over groups (``weighting="plain"``), or weighted by
the group's cells (``"items"``) or its counted pairs (``"pairs"``; pooled
counts, e.g. WMT20's Kendall-like). Like mt-metrics-eval, the value is 0 when
no group counts.

Kendall's tau of any variant reuses :mod:`rankeval_cli.measures.pairs` (pair
counts on groups given by offsets) and :mod:`rankeval_cli.measures.tau`
(formulas, tie calibration). ``epsilon`` makes metric pairs with
|Δmetric| ≤ ε ties (Deutsch, Foster & Freitag 2023), ``min_human_diff`` keeps
only pairs with |Δhuman| ≥ d (WMT20's Kendall-like, Mathur et al. 2020).

System level: Pearson / Spearman / Kendall of system scores, pairwise accuracy
(Kocmi et al. 2021) and soft pairwise accuracy (Thompson et al. 2024). Metric
comparisons (permutation tests, Williams test, clusters, weighted averages over
tasks) are in :mod:`.permutation` and below.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..batch import group_index, offsets_from_sizes
from ..measures.pairs import pair_counts, pair_table
from ..measures.tau import (CALIBRATED, _plain_counts, best_epsilon, canonical_variant, group_tau,
                            numerator_denominator)

AVERAGE_BY = ("none", "item", "system")
STATISTICS = ("pearson", "spearman", "kendall", "accuracy")
WEIGHTINGS = ("plain", "items", "pairs")
#: Pair-level computations (epsilon, min_human_diff, calibration) hold every pair in memory.
MAX_PAIRS = 20_000_000
#: Seed of mt-metrics-eval's segment permutations for soft pairwise accuracy (pce.py).
SPA_SEED = 4

# Pair categories (measures/tau.py order): C, D, T_h, T_m, T_hm.
_C, _D, _TH, _TM, _THM = range(5)


def canonical_average_by(name: str) -> str:
    """``none``, ``item`` or ``system`` (mt-metrics-eval's ``sys`` accepted)."""
    key = {"sys": "system", "seg": "item", "segment": "item"}.get(name, name)
    if key not in AVERAGE_BY:
        raise ValueError(f"average_by must be one of {', '.join(AVERAGE_BY)}, not {name!r}")
    return key


# Grouping ------------------------------------------------------------------------------

def as_matrix(scores, name: str = "scores") -> np.ndarray:
    """``scores`` as a 2-d float64 array (n_sys, n_seg); None becomes NaN."""
    m = np.array(scores, dtype=np.float64)
    if m.ndim == 1:
        m = m[:, None]
    if m.ndim != 2:
        raise ValueError(f"{name} must be a (systems × segments) matrix, got shape {m.shape}")
    return m


def group_order(shape: tuple[int, int], average_by: str) -> tuple[np.ndarray, np.ndarray]:
    """(flat cell indices in group order, group offsets) of an (n_sys, n_seg) matrix.

    none: one group, system-major (the order mt-metrics-eval packs scores in);
    item: segment by segment, systems in order; system: system by system.
    """
    n_sys, n_seg = shape
    average_by = canonical_average_by(average_by)
    flat = np.arange(n_sys * n_seg, dtype=np.int64)
    if average_by == "none":
        return flat, np.array([0, n_sys * n_seg], np.int64)
    if average_by == "system":
        return flat, np.arange(0, n_sys * n_seg + 1, n_seg, dtype=np.int64)
    return flat.reshape(n_sys, n_seg).T.ravel(), np.arange(0, n_sys * n_seg + 1, n_sys, dtype=np.int64)


@dataclass
class Cells:
    """The used cells of one or more metrics, contiguous by group.

    ``index`` gives each cell's flat position in the (n_sys, n_seg) matrix.
    """

    human: np.ndarray
    metrics: list[np.ndarray]
    offsets: np.ndarray
    index: np.ndarray

    @property
    def sizes(self) -> np.ndarray:
        return np.diff(self.offsets)


def grouped_cells(human, metrics: list, average_by: str, *, require_metric: bool = True) -> Cells:
    """Cells with human present (and every metric present when ``require_metric``), grouped.

    Groups left empty are dropped (mt-metrics-eval drops them too).
    """
    human = as_matrix(human, "human")
    mats = [as_matrix(m, "metric") for m in metrics]
    for m in mats:
        if m.shape != human.shape:
            raise ValueError(f"metric shape {m.shape} differs from human shape {human.shape}")
    order, offsets = group_order(human.shape, average_by)
    h = human.ravel()[order]
    ms = [m.ravel()[order] for m in mats]
    keep = ~np.isnan(h)
    if require_metric:
        for m in ms:
            keep &= ~np.isnan(m)
    sizes = np.add.reduceat(keep.astype(np.int64), offsets[:-1]) if len(keep) else np.zeros(0, np.int64)
    sizes = sizes[sizes > 0]
    return Cells(h[keep], [m[keep] for m in ms], offsets_from_sizes(sizes), order[keep])


# Per-group statistics ------------------------------------------------------------------

def _check_statistic(statistic: str, variant: str | None) -> tuple[str, str | None]:
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


def segment_sums(values, offsets) -> np.ndarray:
    """Σ of every group (0 for an empty one), with numpy's pairwise summation within a group."""
    sizes = np.diff(offsets)
    out = np.zeros(len(sizes))
    nonempty = sizes > 0
    if nonempty.any():
        out[nonempty] = np.add.reduceat(values, offsets[:-1][nonempty])
    return out


def ranks_within_groups(values, offsets) -> np.ndarray:
    """Ranks 1..n within each group, tied values sharing their mean rank (scipy.stats.rankdata)."""
    values = np.asarray(values, np.float64)
    if not len(values):
        return values.copy()
    gid = group_index(offsets)
    order = np.lexsort((values, gid))
    v, g = values[order], gid[order]
    pos = np.arange(len(v), dtype=np.float64) - offsets[:-1][g] + 1
    new_block = np.ones(len(v), bool)
    new_block[1:] = (v[1:] != v[:-1]) | (g[1:] != g[:-1])
    block = np.cumsum(new_block) - 1
    first = pos[new_block]
    last = np.append(pos[np.flatnonzero(new_block)[1:] - 1], pos[-1])
    ranks = np.empty(len(v))
    ranks[order] = ((first + last) / 2)[block]
    return ranks


def group_spearman(x, y, offsets) -> np.ndarray:
    """Spearman's ρ: Pearson's r of the average ranks within each group (Spearman 1904)."""
    return group_pearson(ranks_within_groups(x, offsets), ranks_within_groups(y, offsets), offsets)


def pair_categories(human, metric, offsets, *, epsilon=None, min_human_diff=None):
    """(group, category, |Δmetric|, untied, tied) of every pair kept, categories C/D/T_h/T_m/T_hm.

    Pairs with |Δhuman| < ``min_human_diff`` are dropped; metric pairs with
    |Δmetric| ≤ ``epsilon`` are metric ties. ``untied``/``tied`` are each
    pair's category without / with a metric tie (for calibration).
    """
    human = np.asarray(human, np.float64)
    metric = np.asarray(metric, np.float64)
    sizes = np.diff(offsets)
    total = int((sizes * (sizes - 1) // 2).sum())
    if total > MAX_PAIRS:
        raise ValueError(f"this needs every pair in memory ({total} pairs; the limit is {MAX_PAIRS}); "
                         "group by item or system instead of none")
    group, hcmp, mcmp, mdiff = pair_table(human, metric, offsets)
    untied = np.where(hcmp == 0, _TH, np.where(hcmp == mcmp, _C, _D)).astype(np.int8)
    tied = np.where(hcmp == 0, _THM, _TM).astype(np.int8)
    if min_human_diff is not None:
        _, _, _, hdiff = pair_table(metric, human, offsets)
        keep = hdiff >= min_human_diff
        group, untied, tied, mdiff = group[keep], untied[keep], tied[keep], mdiff[keep]
    eps = 0.0 if epsilon is None else float(epsilon)
    category = np.where(mdiff <= eps, tied, untied)
    return group, category, mdiff, untied, tied


def counts_from_categories(group, category, n_groups, n_items):
    """PairCounts (without tie-block statistics) from per-pair categories."""
    per_group = np.bincount(group * 5 + category, minlength=5 * n_groups).reshape(-1, 5).T
    return _plain_counts(np.asarray(n_items, np.int64), np.zeros(n_groups, np.int64), per_group)


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
                 min_human_diff=None, weighting="plain") -> GroupValues:
    """The statistic of every group of cells (no missing values here)."""
    statistic, variant = _check_statistic(statistic, variant)
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
    if not pair_level:
        counts = pair_counts(human, metric, offsets)
        return GroupValues(group_tau(variant, counts), n, counts.pairs, counts, epsilon, _num_den(variant, counts))
    if variant == "c":
        raise ValueError("tau-c is not defined with epsilon, calibration or min_human_diff "
                         "(its denominator counts distinct values)")
    group, category, mdiff, untied, tied = pair_categories(human, metric, offsets, epsilon=epsilon,
                                                           min_human_diff=min_human_diff)
    if calibrate:
        kept = np.bincount(group, minlength=len(n)).astype(np.int64)
        average = "micro" if weighting == "pairs" else "macro"
        epsilon = best_epsilon(variant, average, group, untied, tied, mdiff, kept)
        category = np.where(mdiff <= epsilon, tied, untied)
    counts = counts_from_categories(group, category, len(n), n)
    return GroupValues(group_tau(variant, counts), n, counts.pairs if min_human_diff is None
                       else np.bincount(group, minlength=len(n)).astype(np.int64), counts, epsilon,
                       _num_den(variant, counts))


def _num_den(variant, counts):
    if variant == "c":
        return None
    return numerator_denominator(variant, *(getattr(counts, k) for k in ("C", "D", "T_h", "T_m", "T_hm")))


def average_groups(values, n, pairs, *, weighting="plain", undefined_as_zero=False, ratio_of=None):
    """(average, groups counted, groups defined), as mt-metrics-eval's AverageCorrelation.

    Groups with fewer than 2 cells are skipped; NaN values are left out, or
    counted as 0 with ``undefined_as_zero``. Weights: 1, cells or pairs. The
    average is 0 when no group counts (mt-metrics-eval returns 0 there).
    Works along the last axis (one row per permutation).

    ``ratio_of=(num, den)``: each value is num/den; when weighting by pairs and
    every den is the group's pair count, the average is computed exactly as
    Σ num / Σ den (pooled counts, e.g. pairwise accuracy over language pairs).
    """
    if weighting not in WEIGHTINGS:
        raise ValueError(f"weighting must be one of {', '.join(WEIGHTINGS)}")
    values = np.asarray(values, np.float64)
    usable = np.asarray(n) >= 2
    defined = ~np.isnan(values) & usable
    counted = usable if undefined_as_zero else defined
    w = {"plain": np.ones(np.shape(n)), "items": np.asarray(n, np.float64),
         "pairs": np.asarray(pairs, np.float64)}[weighting]
    w = np.where(counted, w, 0.0)
    total = w.sum(axis=-1)
    num = np.where(defined, values, 0.0) * w
    with np.errstate(invalid="ignore", divide="ignore"):
        avg = np.where(total > 0, num.sum(axis=-1) / np.where(total > 0, total, 1), 0.0)
        if weighting == "pairs" and ratio_of is not None and not undefined_as_zero:
            rn, rd = (np.broadcast_to(np.asarray(x, np.float64), values.shape) for x in ratio_of)
            if np.array_equal(np.where(usable, rd, 0), np.where(usable, np.broadcast_to(pairs, values.shape), 0)):
                rn_sum = np.where(defined, rn, 0.0).sum(axis=-1)
                rd_sum = np.where(defined, rd, 0.0).sum(axis=-1)
                avg = np.where(rd_sum > 0, rn_sum / np.where(rd_sum > 0, rd_sum, 1), 0.0)
    return avg, counted.sum(axis=-1), defined.sum(axis=-1)


# Segment level -------------------------------------------------------------------------

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
    variants, default b = scipy / mt-metrics-eval), accuracy (= kendall acc-eq).
    ``calibrate`` chooses the metric tie threshold ε maximizing the average
    (eq, acc-eq; mt-metrics-eval's KendallWithTiesOpt with sample_rate 1).
    """
    cells = grouped_cells(human, [metric], average_by)
    gv = group_values(statistic, cells.human, cells.metrics[0], cells.offsets, variant=variant,
                      epsilon=epsilon, calibrate=calibrate, min_human_diff=min_human_diff,
                      weighting=weighting)
    value, groups, defined = average_groups(gv.value, gv.n, gv.pairs, weighting=weighting,
                                            undefined_as_zero=undefined_as_zero, ratio_of=gv.ratio_of)
    counts = {}
    if gv.counts is not None:
        counts = {k: int(getattr(gv.counts, k).sum()) for k in ("C", "D", "T_h", "T_m", "T_hm")}
    return SegResult(float(value), int(groups), int(defined), len(cells.human), gv.epsilon, counts)


def kendall_like(human, metric, average_by: str = "item", threshold: float = 25.0) -> SegResult:
    """WMT20's Kendall-like tau (Mathur et al. 2020): pairs with |Δhuman| ≥ threshold, metric ties
    discordant, (C - D) / (C + D) pooled over groups (= penalize variant, pair-weighted)."""
    return seg_statistic(human, metric, "kendall", average_by, variant="penalize",
                         min_human_diff=threshold, weighting="pairs")


# System level --------------------------------------------------------------------------

def sys_statistic(human_sys, metric_sys, statistic: str = "pearson", *, variant: str | None = None) -> float:
    """Pearson / Spearman / Kendall (variant b by default) of system scores; NaN human = left out."""
    human = np.asarray(human_sys, np.float64).reshape(-1, 1)
    metric = np.asarray(metric_sys, np.float64).reshape(-1, 1)
    return seg_statistic(human, metric, statistic, "none", variant=variant).value


def _as_lp_list(x) -> list[np.ndarray]:
    if isinstance(x, np.ndarray) and x.ndim == 1:
        return [x.astype(np.float64)]
    if isinstance(x, (list, tuple)) and len(x) and np.ndim(x[0]) == 0:
        return [np.asarray(x, np.float64)]
    return [np.asarray(v, np.float64).ravel() for v in x]


def agreement(human_sys, metric_sys) -> tuple[int, int]:
    """(agreeing pairs, pairs): system pairs with human present, agreeing when
    sign(Δhuman) = sign(Δmetric) — so a human tie agrees only with a metric tie
    (mt-metrics-eval's Agreement). A missing metric score disagrees."""
    h = np.asarray(human_sys, np.float64)
    m = np.asarray(metric_sys, np.float64)
    i, j = np.triu_indices(len(h), 1)
    ok = ~(np.isnan(h[i]) | np.isnan(h[j]))
    agree = np.sign(h[i] - h[j]) == np.sign(m[i] - m[j])
    return int((agree & ok).sum()), int(ok.sum())


def pairwise_accuracy(human_sys, metrics_sys: dict) -> dict[str, float]:
    """Pairwise accuracy (Kocmi et al. 2021) of every metric: Σ agreeing pairs / Σ pairs.

    ``human_sys`` is one vector of system scores or a list of them (one per
    language pair); each metric's value has the same shape. Pairs are pooled
    over the language pairs (WMT22-23's global accuracy).
    """
    humans = _as_lp_list(human_sys)
    out = {}
    for name, values in metrics_sys.items():
        ms = _as_lp_list(values)
        if len(ms) != len(humans) or any(len(a) != len(b) for a, b in zip(ms, humans)):
            raise ValueError(f"metric {name!r} does not have one score per system of every language pair")
        agree = pairs = 0
        for h, m in zip(humans, ms):
            a, p = agreement(h, m)
            agree, pairs = agree + a, pairs + p
        out[name] = agree / pairs if pairs else math.nan
    return out


def permutation_signs(n_seg: int, permutations: int = 1000, seed: int = SPA_SEED) -> np.ndarray:
    """The ±1 matrix (permutations × segments, float32) of a paired permutation test.

    As mt-metrics-eval's pce.py: uniform float32 draws of ``default_rng(seed)``
    rounded to 0/1 (round half to even), times 2, minus 1 — so a run draws the
    same signs for every system pair and every call.
    """
    rng = np.random.default_rng(seed)
    signs = rng.random(size=(permutations, n_seg), dtype=np.float32)
    np.rint(signs, out=signs, casting="same_kind")
    signs *= 2.0
    signs -= 1.0
    return signs


def pairwise_p_values(seg_scores, permutations: int = 1000, seed: int = SPA_SEED, *,
                      signs: np.ndarray | None = None) -> np.ndarray:
    """One-sided paired permutation p-values of every system pair (Thompson et al. 2024).

    p[i, j] (i < j; NaN elsewhere) = #{r : Σ_s σ_rs (x_is - x_js) ≥ Σ_s (x_is - x_js)} / R:
    the share of sign flips σ of the segment differences giving a difference of
    system sums at least the observed one (the test of "i better than j").
    Computed in float32 exactly as mt-metrics-eval's ``compute_pairwise_p_values``.
    """
    # C order as pce.py receives it: the layout BLAS sees can change float32 rounding, hence ties
    seg = np.ascontiguousarray(seg_scores, dtype=np.float32)
    n_sys, n_seg = seg.shape
    if signs is None:
        signs = permutation_signs(n_seg, permutations, seed)
    sys_scores = np.sum(seg, axis=1)
    partial = np.matmul(signs, seg.T)
    i, j = np.triu_indices(n_sys, 1)
    p = np.full((n_sys, n_sys), np.nan)
    null = partial[:, i] - partial[:, j]
    test = sys_scores[i] - sys_scores[j]
    p[i, j] = np.sum(null >= test, axis=0) / signs.shape[0]
    return p


def spa_from_p_values(human_p, metric_p) -> float:
    """SPA = 1 - mean over system pairs i < j of |p_h(i, j) - p_m(i, j)| (Thompson et al. 2024)."""
    i, j = np.triu_indices(human_p.shape[0], 1)
    return float(1.0 - np.mean(np.abs(human_p - metric_p)[i, j]))


def complete_segments(human, *metrics) -> np.ndarray:
    """Segments (columns) where every system has every score (SPA needs a full matrix)."""
    ok = ~np.isnan(as_matrix(human)).any(axis=0)
    for m in metrics:
        ok &= ~np.isnan(as_matrix(m)).any(axis=0)
    return ok


def soft_pairwise_accuracy(human, metric, permutations: int = 1000, seed: int = SPA_SEED) -> float:
    """Soft pairwise accuracy of a metric (Thompson et al. 2024; WMT24's system-level statistic).

    Both matrices are (n_sys, n_seg) segment scores. Segments where any system
    lacks a score are left out (mt-metrics-eval drops missing human cells and
    reshapes, which is the same when whole segments are missing). The default
    seed 4 is mt-metrics-eval's, so values match it exactly.
    """
    human = as_matrix(human, "human")
    metric = as_matrix(metric, "metric")
    keep = complete_segments(human, metric)
    signs = permutation_signs(int(keep.sum()), permutations, seed)
    return spa_from_p_values(pairwise_p_values(human[:, keep], signs=signs),
                             pairwise_p_values(metric[:, keep], signs=signs))


# Williams test -------------------------------------------------------------------------

def williams_test(r12: float, r13: float, r23: float, n: int, one_sided: bool = True) -> float:
    """p of Williams' (1959) test that r12 > r13 for dependent correlations sharing variable 1.

    t = (r12 - r13) sqrt((n-1)(1+r23)) / sqrt(2 (n-1)/(n-3) K + r̄² (1-r23)³),
    K = 1 - r12² - r13² - r23² + 2 r12 r13 r23, r̄ = (r12 + r13)/2, with n - 3
    degrees of freedom (Graham & Baldwin 2014); one-sided p = P(T > |t|).
    """
    from scipy.stats import t as student_t

    k = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r23 * r13
    rbar = (r12 + r13) / 2
    tnum = (r12 - r13) * np.sqrt((n - 1) * (1 + r23))
    tden = np.sqrt(2 * (n - 1) / (n - 3) * k + rbar ** 2 * (1 - r23) ** 3)
    p = float(student_t.sf(np.abs(tnum / tden), n - 3))
    return p if one_sided else 2 * p


def williams(human, metric_a, metric_b, statistic: str = "pearson", average_by: str = "none",
             one_sided: bool = True, **options) -> tuple[float, float, float]:
    """(p, r_a, r_b): Williams test between two metrics' correlations with human scores.

    As mt-metrics-eval's WilliamsSigDiff: r_a, r_b against human, r_ab between
    the metrics (same statistic and grouping), n = all cells of the matrix.
    """
    human = as_matrix(human, "human")
    ra = seg_statistic(human, metric_a, statistic, average_by, **options).value
    rb = seg_statistic(human, metric_b, statistic, average_by, **options).value
    rab = seg_statistic(metric_a, metric_b, statistic, average_by, **options).value
    return williams_test(ra, rb, rab, human.size, one_sided), ra, rb


# Clusters and averages over tasks -------------------------------------------------------

def assign_ranks(p_matrix, threshold: float = 0.05) -> list[int]:
    """Significance cluster ranks of metrics sorted by decreasing score (mt-metrics-eval AssignRanks).

    p_matrix[i, j] (i < j) is the p-value of "metric i is better than metric j".
    Metric i starts a new rank when some metric of the current cluster (from the
    cluster's first metric up to i - 1) beats it at p ≤ threshold.
    """
    p = np.asarray(p_matrix, np.float64)
    ranks, rank, start = [], 1, 0
    for i in range(p.shape[0]):
        if np.any(p[start:i, i] <= threshold):
            rank += 1
            start = i
        ranks.append(rank)
    return ranks


# Comparing metrics ---------------------------------------------------------------------

#: Statistics at system level: correlations of system scores, pairwise accuracy, SPA.
SYS_STATISTICS = ("pearson", "spearman", "kendall", "accuracy", "spa")
PERM_TESTS = ("scores", "pairs")


@dataclass
class Comparison:
    """Metrics ranked on one task: values, significance matrix and clusters.

    ``names`` are sorted by decreasing value (then name, as mt-metrics-eval);
    ``p[i, j]`` (i < j) is the permutation p-value of "names[i] is better than
    names[j]" (0 when no permutations were run); ``ranks`` the significance
    cluster of each; ``draws[(i, j)]`` the (value of i's hybrid, value of j's
    hybrid) of every trial, for the weighted average over tasks; ``range`` the
    range the statistic can take ((0, 1) for accuracies, else (-1, 1)).
    """

    names: list[str]
    values: np.ndarray
    ranks: list[int]
    p: np.ndarray
    draws: dict
    trials: np.ndarray
    range: tuple[float, float]
    epsilons: dict = field(default_factory=dict)

    def as_dict(self) -> dict[str, tuple[float, int]]:
        """name -> (value, rank), mt-metrics-eval's corrs_and_ranks."""
        return {n: (float(v), r) for n, v, r in zip(self.names, self.values, self.ranks)}


def statistic_range(statistic: str, variant: str | None = None) -> tuple[float, float]:
    """(0, 1) for pairwise accuracy, SPA and acc-eq; (-1, 1) for correlations."""
    if statistic in ("accuracy", "spa") or (statistic == "kendall" and variant
                                            and canonical_variant(variant) == "acc-eq"):
        return (0.0, 1.0)
    return (-1.0, 1.0)


def compare_metrics(human, metrics: dict, statistic: str = "pearson", *, level: str = "seg",
                    average_by: str = "none", variant: str | None = None, epsilon: float | None = None,
                    calibrate: bool = False, min_human_diff: float | None = None,
                    undefined_as_zero: bool = False, weighting: str = "plain", permutations: int = 1000,
                    seed=12345, perm_test: str | None = None, early_stop=None, threshold: float = 0.05,
                    spa_permutations: int = 1000, spa_seed: int = SPA_SEED) -> Comparison:
    """Rank metrics on one task and cluster them by paired permutation tests (mt-metrics-eval CompareMetrics).

    ``level="seg"``: ``human`` and every metric are (n_sys, n_seg) matrices and
    the statistic is :func:`seg_statistic`'s. ``level="sys"``: pearson /
    spearman / kendall take system-score vectors; ``accuracy`` is pairwise
    accuracy and takes one vector or a list of vectors (one per language
    pair); ``spa`` takes the (n_sys, n_seg) segment matrices. Every pair of
    metrics i < j (in ranked order) is tested with ``permutations`` trials, one
    ``RandomState(seed)`` stream consumed pair after pair (pass a RandomState to
    continue a stream across tasks). ``perm_test``: ``scores`` (PERM-BOTH) or
    ``pairs`` (default for calibrated Kendall, as WMT23-25).
    """
    from . import permutation as pm

    if not metrics:
        raise ValueError("no metrics to compare")
    names = list(metrics)
    stat_name = statistic.lower()
    opts = dict(variant=variant, epsilon=epsilon, calibrate=calibrate, min_human_diff=min_human_diff,
                undefined_as_zero=undefined_as_zero, weighting=weighting)
    if perm_test is None:
        perm_test = "pairs" if calibrate else "scores"
    if perm_test not in PERM_TESTS:
        raise ValueError(f"perm_test must be one of {', '.join(PERM_TESTS)}")
    if perm_test == "pairs" and stat_name not in ("kendall", "accuracy"):
        raise ValueError("the pairwise-comparison test applies to Kendall variants and accuracy")

    if level == "seg":
        values = {m: seg_statistic(human, metrics[m], stat_name, average_by, **opts) for m in names}
        epsilons = {m: r.epsilon for m, r in values.items() if r.epsilon is not None}
        values = {m: r.value for m, r in values.items()}
    elif level == "sys":
        epsilons = {}
        if stat_name == "accuracy":
            values = pairwise_accuracy(human, metrics)
        elif stat_name == "spa":
            values = {m: soft_pairwise_accuracy(human, metrics[m], spa_permutations, spa_seed) for m in names}
        else:
            values = {m: sys_statistic(human, metrics[m], stat_name, variant=variant) for m in names}
    else:
        raise ValueError("level must be seg or sys")

    names.sort(key=lambda m: (-values[m], m))
    n = len(names)
    p = np.zeros((n, n))
    trials = np.zeros((n, n), np.int64)
    draws = {}
    if permutations:
        rng = pm.as_rng(seed)
        for i in range(n):
            for j in range(i + 1, n):
                res = _test_pair(pm, human, metrics[names[i]], metrics[names[j]], stat_name, level, average_by,
                                 opts, perm_test, permutations, rng, early_stop, epsilons.get(names[i]),
                                 epsilons.get(names[j]), spa_permutations, spa_seed)
                p[i, j], trials[i, j], draws[(i, j)] = res.p, res.k, res.draws
    return Comparison(names, np.array([values[m] for m in names]), assign_ranks(p, threshold), p, draws, trials,
                      statistic_range(stat_name, variant), epsilons)


def _lp_cells(human, a, b) -> Cells:
    """System-level cells across language pairs: one group per language pair."""
    hs, As, Bs = _as_lp_list(human), _as_lp_list(a), _as_lp_list(b)
    h, ma, mb = np.concatenate(hs), np.concatenate(As), np.concatenate(Bs)
    keep = ~(np.isnan(h) | np.isnan(ma) | np.isnan(mb))
    lp = np.repeat(np.arange(len(hs)), [len(x) for x in hs])
    sizes = np.bincount(lp[keep], minlength=len(hs))
    return Cells(h[keep], [ma[keep], mb[keep]], offsets_from_sizes(sizes), np.flatnonzero(keep))


def _test_pair(pm, human, a, b, stat_name, level, average_by, opts, perm_test, permutations, rng, early_stop,
               eps_a, eps_b, spa_permutations, spa_seed):
    """One permutation test of "a better than b" on the task's statistic."""
    if level == "sys" and stat_name == "spa":
        hm, am, bm = as_matrix(human), as_matrix(a), as_matrix(b)
        keep = complete_segments(hm, am, bm)
        stat = pm.SpaStatistic(hm[:, keep], spa_permutations, spa_seed)
        return pm.paired_permutation(stat, am[:, keep].ravel(), bm[:, keep].ravel(), permutations, rng,
                                     early_stop=early_stop)
    if level == "sys" and stat_name == "accuracy":
        cells = _lp_cells(human, a, b)
        stat_name, opts = "kendall", dict(variant="acc-eq", weighting="pairs")
    elif level == "sys":
        cells = grouped_cells(np.asarray(human, np.float64).reshape(-1, 1),
                              [np.asarray(a, np.float64).reshape(-1, 1), np.asarray(b, np.float64).reshape(-1, 1)],
                              "none")
        opts = dict(variant=opts["variant"])
    else:
        cells = grouped_cells(human, [a, b], average_by)
    if perm_test == "pairs":
        variant = "acc-eq" if stat_name == "accuracy" else canonical_variant(opts.get("variant") or "b")
        if opts.get("calibrate"):
            ea, eb = eps_a, eps_b
        else:
            ea = eb = opts.get("epsilon") or 0.0
        return pm.pairwise_permutation(cells.human, cells.metrics[0], cells.metrics[1], cells.offsets, variant,
                                       ea, eb, permutations, rng, early_stop=early_stop,
                                       undefined_as_zero=opts.get("undefined_as_zero", False))
    stat = make_cell_statistic(stat_name, cells.human, cells.offsets, **opts)
    return pm.paired_permutation(stat, cells.metrics[0], cells.metrics[1], permutations, rng,
                                 early_stop=early_stop)


#: Groups up to this size use per-pair categories in permutation trials.
PAIR_PATH_MAX_GROUP = 64


def make_cell_statistic(statistic, human, offsets, *, variant=None, epsilon=None, calibrate=False,
                        min_human_diff=None, undefined_as_zero=False, weighting="plain"):
    """The fastest exact evaluator of a segment-level statistic for many hybrid metrics."""
    from . import permutation as pm

    statistic, variant = _check_statistic(statistic, variant)
    sizes = np.diff(np.asarray(offsets))
    if (statistic == "kendall" and variant != "c" and not calibrate and len(sizes)
            and sizes.max() <= PAIR_PATH_MAX_GROUP):
        return pm.PairStatistic(variant, human, offsets, epsilon=epsilon, min_human_diff=min_human_diff,
                                weighting=weighting, undefined_as_zero=undefined_as_zero)
    return pm.CellStatistic(statistic, human, offsets, variant=variant, epsilon=epsilon,
                            min_human_diff=min_human_diff, weighting=weighting,
                            undefined_as_zero=undefined_as_zero, calibrate=calibrate)


def permutation_test(human, metric_a, metric_b, statistic: str = "pearson", average_by: str = "none", *,
                     permutations: int = 1000, seed=12345, perm_test: str | None = None, early_stop=None,
                     **options):
    """p of "metric a is better than metric b" on a segment-level statistic (see :func:`compare_metrics`).

    Returns :class:`~rankeval_cli.stats.permutation.PermutationResult` (p, δ, trials, draws).
    """
    from . import permutation as pm

    calibrate = options.get("calibrate", False)
    perm_test = perm_test or ("pairs" if calibrate else "scores")
    eps_a = eps_b = None
    if calibrate:
        eps_a = seg_statistic(human, metric_a, statistic, average_by, **options).epsilon
        eps_b = seg_statistic(human, metric_b, statistic, average_by, **options).epsilon
    opts = dict(variant=None, epsilon=None, calibrate=False, min_human_diff=None, undefined_as_zero=False,
                weighting="plain")
    opts.update(options)
    return _test_pair(pm, human, metric_a, metric_b, statistic.lower(), "seg", average_by, opts, perm_test,
                      permutations, pm.as_rng(seed), early_stop, eps_a, eps_b, 0, SPA_SEED)


# Averages over tasks (WMT23-25) --------------------------------------------------------

def wmt23_weights(n_lps: int) -> list[float]:
    """WMT23 task weights: global pairwise accuracy weighted n_lps, then 3 tasks per language pair
    (system Pearson, segment Pearson, segment acc-eq) weighted 1; normalized (mt-metrics-eval tasks.WMT23)."""
    w = [n_lps] + [1] * (3 * n_lps)
    return [x / sum(w) for x in w]


def uniform_weights(n_tasks: int) -> list[float]:
    """WMT24-25 task weights: all tasks equal (SPA and segment acc-eq per language pair)."""
    return [1 / n_tasks] * n_tasks


def _common_metrics(results: list[Comparison]) -> list[str]:
    sets = [set(r.names) for r in results]
    common = set.intersection(*sets) if sets else set()
    return [m for m in results[0].names if m in common] if results else []


def average_ranks(results: list[Comparison], weights=None) -> dict[str, float]:
    """Σ_t w_t · cluster rank of the metric in task t, for metrics in every task, ascending."""
    weights = list(weights) if weights is not None else uniform_weights(len(results))
    out = {}
    for m in _common_metrics(results):
        out[m] = sum(w * r.ranks[r.names.index(m)] for r, w in zip(results, weights))
    return dict(sorted(out.items(), key=lambda x: x[1]))


def _normalized(r: Comparison, x):
    b, e = r.range
    return (np.asarray(x) - b) / (e - b)


def average_scores(results: list[Comparison], weights=None) -> dict[str, float]:
    """Σ_t w_t · (value - lo_t)/(hi_t - lo_t): each task's value mapped to [0, 1], descending."""
    weights = list(weights) if weights is not None else uniform_weights(len(results))
    out = {}
    for m in _common_metrics(results):
        out[m] = float(sum(w * _normalized(r, r.values[r.names.index(m)]) for r, w in zip(results, weights)))
    return dict(sorted(out.items(), key=lambda x: -x[1]))


def _task_draws(r: Comparison, m1: str, m2: str) -> np.ndarray:
    """Trials of (m1's hybrid, m2's hybrid) in task r, whichever order the task ranked them."""
    i, j = r.names.index(m1), r.names.index(m2)
    if i < j:
        return r.draws.get((i, j), np.zeros((0, 2)))
    return r.draws.get((j, i), np.zeros((0, 2)))[:, [1, 0]]


def average_comparison(results: list[Comparison], weights=None, threshold: float = 0.05) -> Comparison:
    """Weighted average over tasks with significance clusters (mt-metrics-eval AverageCorrMatrix).

    The p-value of "i better than j" is the share of trials where
    Σ_t w_t (hybrid_i - hybrid_j)_t / (hi_t - lo_t) ≥ the observed difference of
    averages; a task with fewer trials (early stopping) repeats its trials
    cyclically up to the longest.
    """
    weights = list(weights) if weights is not None else uniform_weights(len(results))
    avg = average_scores(results, weights)
    names = list(avg)
    n = len(names)
    p = np.zeros((n, n))
    draws = {}
    for i in range(n):
        for j in range(i + 1, n):
            m1, m2 = names[i], names[j]
            per_task = [_task_draws(r, m1, m2) for r in results]
            longest = max(len(d) for d in per_task)
            if not longest:
                continue
            null = np.zeros(longest)
            for r, w, d in zip(results, weights, per_task):
                b, e = r.range
                diff = w * (d[:, 0] - d[:, 1]) / (e - b)
                null += np.tile(diff, int(np.ceil(longest / len(diff))))[:longest]
            p[i, j] = np.mean(null >= avg[m1] - avg[m2])
    return Comparison(names, np.array([avg[m] for m in names]), assign_ranks(p, threshold), p, draws,
                      np.zeros((n, n), np.int64), (0.0, 1.0))


@dataclass
class TaskSetResult:
    """The tasks of an official table, their weights and the weighted average with clusters."""

    tasks: list[tuple[str, Comparison]]  # (task name, result), in table order
    weights: list[float]
    average: Comparison


def wmt_tasks(year: int, seg: dict, sys: dict | None = None, *, permutations: int = 1000, seed=12345,
              early_stop=None, threshold: float = 0.05) -> TaskSetResult:
    """Run the WMT23 or WMT24-25 metrics task set (mt-metrics-eval tasks.WMT23 / WMT24 / WMT25).

    ``seg[lp] = (human, {metric: scores})`` with (n_sys, n_seg) matrices; ``sys[lp]`` the same
    with system-score vectors (default: each system's mean over the segments with a human
    score, for humans and metrics alike — give the official system scores where they differ,
    e.g. corpus BLEU). Language pairs are taken in sorted order; metrics missing from a
    language pair are left out of that task and of the average.

    * 23: global pairwise accuracy (weight L), then per language pair system Pearson,
      segment Pearson (no grouping) and tie-calibrated acc-eq by item (weight 1 each);
    * 24 (and 25): per language pair SPA and tie-calibrated acc-eq by item, equal weights.

    One ``RandomState(seed)`` stream runs through all tasks in order, as a TaskSet run
    after ``np.random.seed(seed)``.
    """
    from . import permutation as pm

    if year not in (23, 24, 25, 2023, 2024, 2025):
        raise ValueError("year must be 23, 24 or 25")
    year = year % 100
    lps = sorted(seg)
    rng = pm.as_rng(seed)
    common = dict(permutations=permutations, seed=rng, early_stop=early_stop, threshold=threshold)
    if sys is None:
        sys = {}
        for lp in lps:
            human, metrics = seg[lp]
            h = as_matrix(human)
            mask = ~np.isnan(h)
            mean = lambda m: np.array([row[ok].mean() if ok.any() else np.nan  # noqa: E731
                                       for row, ok in zip(as_matrix(m), mask)])
            sys[lp] = (mean(h), {name: mean(m) for name, m in metrics.items()})
    tasks = []
    if year == 23:
        shared = set.intersection(*(set(sys[lp][1]) for lp in lps)) if lps else set()
        names = sorted(shared)
        tasks.append((f"sys accuracy {','.join(lps)}", compare_metrics(
            [sys[lp][0] for lp in lps], {m: [sys[lp][1][m] for lp in lps] for m in names}, "accuracy",
            level="sys", **common)))
        for lp in lps:
            tasks.append((f"{lp} sys pearson", compare_metrics(sys[lp][0], sys[lp][1], "pearson", level="sys",
                                                               **common)))
            tasks.append((f"{lp} seg pearson none", compare_metrics(seg[lp][0], seg[lp][1], "pearson",
                                                                    average_by="none", **common)))
            tasks.append((f"{lp} seg acc-eq calibrated item", compare_metrics(
                seg[lp][0], seg[lp][1], "accuracy", average_by="item", calibrate=True, **common)))
        weights = wmt23_weights(len(lps))
    else:
        for lp in lps:
            tasks.append((f"{lp} sys spa", compare_metrics(seg[lp][0], seg[lp][1], "spa", level="sys", **common)))
            tasks.append((f"{lp} seg acc-eq calibrated item", compare_metrics(
                seg[lp][0], seg[lp][1], "accuracy", average_by="item", calibrate=True, **common)))
        weights = uniform_weights(len(tasks))
    results = [r for _, r in tasks]
    return TaskSetResult(tasks, weights, average_comparison(results, weights, threshold))
