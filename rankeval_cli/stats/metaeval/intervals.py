"""Percentile bootstrap intervals of meta-evaluation statistics.

A replicate draws the sampling units of a task with replacement (Efron & Tibshirani
1993, ch. 6) and recomputes the statistic on them: segments for segment-level
statistics (a segment brings its cells of every system), systems for system-level
ones (system-score correlations, pairwise accuracy, SPA). The interval at level L is
the percentile interval: the (1 - L)/2 and (1 + L)/2 quantiles of the replicate
values (numpy's type 7; :func:`rankeval_cli.stats.resample.percentile_interval`). System-level
Pearson, Spearman and Kendall's tau-b take Fisher's z interval instead (:func:`fisher_z_interval`),
which covers where the percentile interval of a correlation of few systems does not.

Replicate r of a language pair draws its units from its own generator,
``executor.unit_seed(seed, ("bootstrap", lp, units, r))`` — so every metric and
every statistic of the language pair that resamples the same units sees the same
resamples (their intervals are comparable, and paired), and the replicates can be
computed in any grouping, by any number of workers, with the same result.

A drawn unit counts as often as it is drawn, as if its copies were distinct units,
except that two copies of one cell (or of one system) are never a pair: pair
statistics (Kendall variants, acc-eq, pairwise accuracy, SPA) are sums over pairs of
distinct units, and a pair of copies would be an artificial tie in both scores.
Per-group values are computed once when the groups are the resampled units
(``item`` grouping: the replicate is a weighted average of the segments' values; tie
calibration is redone on the weighted pairs); otherwise (``none``, ``system``) each
replicate recomputes the statistic on the resampled matrix.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ...executor import map_units, unit_seed
from ...measures.tau import ratio
from .calibration import PAIR_C, PAIR_THM, group_weights, pair_categories
from .cells import as_matrix, average_groups, canonical_average_by, complete_segments, grouped_cells
from .segment import check_statistic, group_values, pdp_values
from .system import SpaSpec, as_lp_list, pairwise_p_values

#: Replicates computed by one work unit.
UNIT_REPLICATES = 50


def resample_counts(seed: int, key: tuple, n: int, start: int, stop: int) -> np.ndarray:
    """(stop - start, n) multiplicities of the n units in replicates start..stop-1 of stream ``key``."""
    out = np.zeros((stop - start, n), np.int64)
    for row, r in enumerate(range(start, stop)):
        draw = np.random.default_rng(unit_seed(seed, ("bootstrap", *key, r))).integers(0, n, n)
        out[row] = np.bincount(draw, minlength=n)
    return out


def percentiles(values: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) per column of (replicates, columns) values: the percentile interval at ``level``."""
    from ..resample import percentile_interval

    bounds = [percentile_interval(values[:, k], level) for k in range(values.shape[1])]
    return np.array([b[0] for b in bounds]), np.array([b[1] for b in bounds])


# System-level correlations: Fisher's z ------------------------------------------------------

#: Var(atanh r) · (n - k) of each system-level correlation, and k: Pearson 1 / (n - 3) (Fisher
#: 1921); Spearman (1 + r²/2) / (n - 3) (Bonett & Wright 2000); Kendall's tau-b 0.437 /
#: (n - 4) (Fieller, Hartley & Pearson 1957).
FISHER_Z = {"pearson": (lambda r: 1.0, 3), "spearman": (lambda r: 1.0 + r * r / 2, 3),
            "kendall": (lambda r: 0.437, 4)}


def fisher_z_interval(value: float, n: int, statistic: str, level: float) -> tuple[float, float]:
    """tanh(atanh(r) ∓ z_{(1+L)/2} · se) of a correlation of n systems (:data:`FISHER_Z`);
    (r, r) when |r| = 1, NaN when r is undefined or n is too small for the variance.

    Chosen over percentile and BCa bootstrap intervals by a seeded simulation (bivariate normal
    system scores, 10 and 30 systems): the bootstrap intervals of Pearson's r cover 91-92% at a
    nominal 95%, these 94-96% for all three statistics (scripts/interval-coverage).
    """
    from scipy.stats import norm

    variance, k = FISHER_Z[statistic]
    if not math.isfinite(value) or n <= k:
        return math.nan, math.nan
    if abs(value) >= 1.0:
        return value, value
    half = float(norm.ppf((1 + level) / 2)) * math.sqrt(variance(value) / (n - k))
    z = math.atanh(value)
    return math.tanh(z - half), math.tanh(z + half)


# Segment level: segments resampled --------------------------------------------------------

@dataclass(frozen=True)
class SegSpec:
    """A segment-level statistic as :func:`.segment.seg_statistic` takes it."""

    statistic: str
    average_by: str = "none"
    options: dict = field(default_factory=dict)  # variant, epsilon, calibrate, min_human_diff, weighting, ...


def seg_replicates(human, metrics: list, spec: SegSpec, counts: np.ndarray) -> np.ndarray:
    """(replicates, metrics) values of ``spec`` on the segment resamples given by ``counts``
    (replicates × segments multiplicities)."""
    human = as_matrix(human, "human")
    average_by = canonical_average_by(spec.average_by)
    out = np.empty((len(counts), len(metrics)))
    for k, metric in enumerate(metrics):
        metric = as_matrix(metric, "metric")
        if average_by == "item" and spec.statistic.lower() != "pdp":
            out[:, k] = _item_replicates(human, metric, spec, counts)
        elif spec.statistic.lower() == "pearson":
            out[:, k] = _pearson_replicates(human, metric, average_by, counts, **_options(spec)[1])
        else:
            for r, c in enumerate(counts):
                out[r, k] = _resampled_value(human, metric, spec, average_by, c)
    return out


def _options(spec: SegSpec) -> tuple[dict, dict]:
    """(group_values options, average_groups options)."""
    o = dict(spec.options)
    average = dict(weighting=o.get("weighting", "plain"), undefined_as_zero=o.pop("undefined_as_zero", False))
    return o, average


def _resampled_value(human, metric, spec: SegSpec, average_by: str, c: np.ndarray) -> float:
    """The statistic recomputed on the matrix whose segment j appears c_j times."""
    columns = np.repeat(np.arange(len(c)), c)
    h, m = human[:, columns], metric[:, columns]
    cells = grouped_cells(h, [m], average_by)
    if spec.statistic.lower() == "pdp":
        return float(pdp_values(cells.human, cells.metrics[0], cells.offsets)[0])
    options, average = _options(spec)
    gv = group_values(spec.statistic, cells.human, cells.metrics[0], cells.offsets,
                      copies=_copies(human, metric, c, average_by), **options)
    value, counted, _ = average_groups(gv.value, gv.n, gv.pairs, ratio_of=gv.ratio_of, **average)
    return float(value) if counted else np.nan  # undefined replicates are left out of the percentiles


def _pearson_replicates(human, metric, average_by, counts, *, weighting, undefined_as_zero) -> np.ndarray:
    """Pearson's r by none or system of every replicate at once: a segment drawn c times weighs c in
    the sums of products of its cells (scores centred on their group's mean first, for accuracy);
    NaN for a group whose drawn scores are constant, as :func:`.segment.group_pearson`."""
    used = ~(np.isnan(human) | np.isnan(metric))
    groups = 1 if average_by == "none" else human.shape[0]
    rows = np.zeros(human.shape[0], np.int64) if average_by == "none" else np.arange(human.shape[0])
    centred = []
    for x in (human, metric):
        x = np.where(used, x, 0.0)
        mean = np.bincount(rows, x.sum(axis=1), groups) / np.maximum(np.bincount(rows, used.sum(axis=1), groups), 1)
        centred.append(np.where(used, x - mean[rows, None], 0.0))
    h, m = centred
    # per group and segment: the sums over its cells of 1, h, m, h², m², hm (groups × segments × 6)
    parts = np.stack([used, h, m, h * h, m * m, h * m], axis=-1).astype(np.float64)
    agg = np.zeros((groups, human.shape[1], 6))
    np.add.at(agg, rows, parts)
    n, sx, sy, sxx, syy, sxy = np.moveaxis(np.einsum("rj,gjk->rgk", counts.astype(np.float64), agg), -1, 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        vx, vy, cxy = sxx - sx * sx / n, syy - sy * sy / n, sxy - sx * sy / n
        r = np.clip(cxy / np.sqrt(vx * vy), -1.0, 1.0)
    drawn = (counts > 0)[:, None, :]
    constant = np.zeros(r.shape, bool)
    for x in (human, metric):  # a group is constant when its drawn cells have one value
        high = np.full((groups, human.shape[1]), -np.inf)
        low = np.full((groups, human.shape[1]), np.inf)
        np.maximum.at(high, rows, np.where(used, x, -np.inf))
        np.minimum.at(low, rows, np.where(used, x, np.inf))
        constant |= np.where(drawn, high[None], -np.inf).max(axis=-1) == np.where(drawn, low[None], np.inf).min(axis=-1)
    r = np.where(constant | (n < 2), np.nan, r)
    value, counted, _ = average_groups(r, n, n * (n - 1) / 2, weighting=weighting, undefined_as_zero=undefined_as_zero)
    return np.where(counted > 0, value, np.nan)


def _copies(human, metric, c, average_by) -> np.ndarray | None:
    """Per group of the resampled matrix, the pairs of two copies of one cell: Σ C(c_j, 2) over its
    used cells (none: one group; system: one per system with a used cell; item: none)."""
    if average_by == "item":
        return None
    used = ~(np.isnan(human) | np.isnan(metric)) & (c > 0)[None, :]
    per_system = (used * (c * (c - 1) // 2)[None, :]).sum(axis=1)
    if average_by == "none":
        return per_system.sum(keepdims=True)
    return per_system[used.any(axis=1)]


def _item_replicates(human, metric, spec: SegSpec, counts) -> np.ndarray:
    """Replicates of an item-grouped statistic: each segment's value computed once, weighted by how often
    the replicate drew it; tie calibration redone on the weighted pairs."""
    cells = grouped_cells(human, [metric], "item")
    segment = cells.index[cells.offsets[:-1]] % human.shape[1]  # the segment of each group
    mult = counts[:, segment]
    options, average = _options(spec)
    if options.get("calibrate"):
        return _calibrated_item_replicates(cells, spec, options, average, mult)
    gv = group_values(spec.statistic, cells.human, cells.metrics[0], cells.offsets, **options)
    return _weighted_average(gv.value, gv.n, gv.pairs, gv.ratio_of, mult, **average)


def _weighted_average(values, n, pairs, ratio_of, mult, *, weighting, undefined_as_zero) -> np.ndarray:
    """:func:`.cells.average_groups` of each replicate, group g counted mult[r, g] times (NaN when no
    group counts)."""
    values = np.asarray(values, np.float64)
    usable = np.asarray(n) >= 2
    defined = ~np.isnan(values) & usable
    counted = usable if undefined_as_zero else defined
    w = {"plain": np.ones(len(n)), "items": np.asarray(n, np.float64),
         "pairs": np.asarray(pairs, np.float64)}[weighting]
    if weighting == "pairs" and ratio_of is not None and not undefined_as_zero:
        rn, rd = (np.where(defined, np.asarray(x, np.float64), 0.0) for x in ratio_of)
        if np.array_equal(np.where(usable, rd, 0), np.where(usable, pairs, 0)):
            num, den = mult @ rn, mult @ rd
            return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
    w = np.where(counted, w, 0.0)
    num, den = mult @ (np.where(defined, values, 0.0) * w), mult @ w
    return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def _calibrated_item_replicates(cells, spec, options, average, mult) -> np.ndarray:
    """Tie-calibrated eq / acc-eq by item on each replicate: ε chosen on the drawn segments' pairs
    (each pair weighted by its segment's multiplicity, as the resampled matrix would weigh it)."""
    _, variant = check_statistic(spec.statistic, options.get("variant"))
    n = cells.sizes
    G = len(n)
    group, _, diff, untied, tied = pair_categories(cells.human, cells.metrics[0], cells.offsets,
                                                   min_human_diff=options.get("min_human_diff"))
    pairs = np.bincount(group, minlength=G).astype(np.int64)

    def good(category):
        return ((category == PAIR_C) | (category == PAIR_THM)).astype(np.int64)

    change = good(tied) - good(untied)  # a pair's change of C + T_hm when it becomes a metric tie
    if variant == "eq":
        change = 2 * change
    order = np.argsort(diff, kind="stable")
    diff, change, group = diff[order], change[order], group[order]
    good_untied = np.bincount(group, weights=good(untied)[order], minlength=G).astype(np.int64)
    last = np.flatnonzero(np.append(diff[1:] != diff[:-1], True))
    thresholds = diff[last]
    out = np.empty(len(mult))
    for r, m in enumerate(mult):
        weights = group_weights(options.get("weighting", "plain"), np.where(m > 0, pairs, 0)) * m
        score = np.cumsum(change * weights[group])[last] if len(diff) else np.zeros(0)
        if not len(thresholds) or thresholds[0] > 0:  # 0 is always a candidate, with score 0 here
            best = 0.0 if not len(score) or score.max() <= 0 else float(thresholds[int(np.argmax(score))])
        else:
            best = float(thresholds[int(np.argmax(score))])
        k = np.searchsorted(diff, best, side="right")
        tied_good = np.bincount(group[:k], weights=(change[:k] // (2 if variant == "eq" else 1)),
                                minlength=G).astype(np.int64)
        good_g = good_untied + tied_good
        num_den = (good_g if variant == "acc-eq" else 2 * good_g - pairs, pairs)
        out[r] = _weighted_average(ratio(*num_den), n, pairs, num_den, m[None, :], **average)[0]
    return out


# System level: systems resampled ----------------------------------------------------------

def sys_replicates(human_sys, metrics_sys: list, statistic: str, counts: np.ndarray, *,
                   variant: str | None = None) -> np.ndarray:
    """(replicates, metrics) Pearson / Spearman / Kendall of system scores on system resamples."""
    human = np.asarray(human_sys, np.float64)
    statistic = statistic.lower()
    out = np.empty((len(counts), len(metrics_sys)))
    for r, c in enumerate(counts):
        rows = np.repeat(np.arange(len(c)), c)
        copies = None
        for k, metric in enumerate(metrics_sys):
            m = np.asarray(metric, np.float64)
            h_r, m_r = human[rows], m[rows]
            keep = ~(np.isnan(h_r) | np.isnan(m_r))
            offsets = np.array([0, int(keep.sum())])
            if statistic == "kendall":
                present = ~(np.isnan(human) | np.isnan(m))
                copies = np.array([int((present * (c * (c - 1) // 2)).sum())])
            gv = group_values(statistic, h_r[keep], m_r[keep], offsets, variant=variant, copies=copies)
            value, counted, _ = average_groups(gv.value, gv.n, gv.pairs, ratio_of=gv.ratio_of)
            out[r, k] = value if counted else np.nan
    return out


def _pair_matrix(values) -> np.ndarray:
    """Symmetric matrix of a quantity of system pairs i < j given in the upper triangle; 0 on the diagonal."""
    values = np.where(np.isnan(values), 0.0, values)
    upper = np.triu(values, 1)
    return upper + upper.T


def pa_replicates(humans, metrics_by_lp: list, counts_by_lp: list) -> np.ndarray:
    """(replicates, metrics) pairwise accuracy pooled over language pairs (one or more), the systems of
    each language pair resampled by its own counts: Σ_{i<j} w_i w_j agree_ij / Σ_{i<j} w_i w_j over
    the pairs with both human scores present."""
    humans = as_lp_list(humans)
    agree = np.zeros((len(counts_by_lp[0]), len(metrics_by_lp)))
    pairs = np.zeros(len(counts_by_lp[0]))
    for lp, (h, counts) in enumerate(zip(humans, counts_by_lp)):
        w = counts.astype(np.float64)
        i, j = np.triu_indices(len(h), 1)
        ok = np.zeros((len(h), len(h)))
        ok[i, j] = ~(np.isnan(h[i]) | np.isnan(h[j]))
        ok = ok + ok.T
        pairs += np.einsum("ri,ij,rj->r", w, ok, w) / 2
        for k, metric in enumerate(metrics_by_lp):
            m = as_lp_list(metric)[lp]
            a = np.zeros((len(h), len(h)))
            a[i, j] = (np.sign(h[i] - h[j]) == np.sign(m[i] - m[j])) & (ok[i, j] > 0)
            a = a + a.T
            agree[:, k] += np.einsum("ri,ij,rj->r", w, a, w) / 2
    return np.where(pairs[:, None] > 0, agree / np.where(pairs[:, None] > 0, pairs[:, None], 1), np.nan)


def spa_replicates(human, metrics: list, counts: np.ndarray, spa: SpaSpec = SpaSpec()) -> np.ndarray:
    """(replicates, metrics) soft pairwise accuracy on system resamples: each system pair's p-values
    as computed on all systems (as :func:`.system.soft_pairwise_accuracy`), the pairs of the resample
    weighted w_i w_j: 1 - Σ_{i<j} w_i w_j |p^h_ij - p^m_ij| / Σ_{i<j} w_i w_j."""
    human = as_matrix(human, "human")
    w = counts.astype(np.float64)
    others = np.ones((human.shape[0], human.shape[0])) - np.eye(human.shape[0])
    pairs = np.einsum("ri,ij,rj->r", w, others, w) / 2
    out = np.empty((len(counts), len(metrics)))
    for k, metric in enumerate(metrics):
        metric = as_matrix(metric, "metric")
        keep = complete_segments(human, metric)
        signs = spa.signs(int(keep.sum()))
        gap = _pair_matrix(np.abs(pairwise_p_values(human[:, keep], signs=signs, sums=spa.sums)
                                  - pairwise_p_values(metric[:, keep], signs=signs, sums=spa.sums)))
        with np.errstate(invalid="ignore", divide="ignore"):
            out[:, k] = 1.0 - np.einsum("ri,ij,rj->r", w, gap, w) / 2 / pairs
    return out


# Work units ---------------------------------------------------------------------------------

@dataclass
class Job:
    """One statistic of some metrics on one task, and the units its replicates resample.

    ``kind``: ``seg`` (``spec`` on segment matrices), ``sys`` (``statistic`` of system scores),
    ``pa`` (pairwise accuracy, pooled over the language pairs of ``keys``), ``spa``. ``keys``
    name the resampling streams, one per language pair (``(lp, "segments")`` or
    ``(lp, "systems")``), ``sizes`` the number of units of each; ``spa`` the sign-flip test of ``spa``.
    """

    kind: str
    human: object
    metrics: list
    keys: list
    sizes: list
    spec: SegSpec | None = None
    statistic: str | None = None
    variant: str | None = None
    spa: SpaSpec = SpaSpec()

    def replicates(self, seed: int, start: int, stop: int) -> np.ndarray:
        counts = [resample_counts(seed, key, n, start, stop) for key, n in zip(self.keys, self.sizes)]
        if self.kind == "seg":
            return seg_replicates(self.human, self.metrics, self.spec, counts[0])
        if self.kind == "sys":
            return sys_replicates(self.human, self.metrics, self.statistic, counts[0], variant=self.variant)
        if self.kind == "pa":
            return pa_replicates(self.human, self.metrics, counts)
        if self.kind == "spa":
            return spa_replicates(self.human, self.metrics, counts[0], self.spa)
        raise ValueError(f"unknown kind of bootstrap job {self.kind!r}")


def _unit(shared, unit) -> np.ndarray:
    jobs, seed = shared
    index, start, stop = unit
    return jobs[index].replicates(seed, start, stop)


def run_jobs(jobs: list[Job], replicates: int, seed: int, *, workers: int | None = None,
             scheduler: str | None = None) -> list[np.ndarray]:
    """(replicates, metrics) values of every job, computed as work units of ``UNIT_REPLICATES``
    replicates (:func:`rankeval_cli.executor.map_units`; ``workers``/``scheduler`` default to
    what the command configured); the same for any number of workers."""
    units = [(k, s, min(s + UNIT_REPLICATES, replicates)) for k in range(len(jobs))
             for s in range(0, replicates, UNIT_REPLICATES)]
    results = map_units(_unit, units, shared=(jobs, seed), jobs=workers, scheduler=scheduler, label="bootstrap",
                        sizes=[(e - s) * len(jobs[k].metrics) for k, s, e in units])
    out = [[] for _ in jobs]
    for (k, _, _), values in zip(units, results):
        out[k].append(values)
    return [np.concatenate(parts) if parts else np.zeros((0, len(job.metrics))) for parts, job in zip(out, jobs)]
