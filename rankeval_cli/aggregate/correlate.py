"""Correlation between system-level scores, and segment-level average Spearman.

System level (Li, Jiang & Wang 2013 §5.2, Tables 4-5): for the systems scored
on both sides (x = one aggregate's scores, y = the other's),

* Pearson r = Σ(x − x̄)(y − ȳ) / sqrt(Σ(x − x̄)² Σ(y − ȳ)²);
* Spearman ρ = Pearson r of the average ranks (tied values share the mean rank);
* Kendall τ_b = (C − D) / sqrt((C + D + T_x)(C + D + T_y)) over system pairs.

p-values are two-sided: Pearson and Spearman from Student's t with n − 2 degrees of
freedom, t = r sqrt((n − 2)/(1 − r²)) (scipy's ``pearsonr``/``spearmanr``); Kendall's
from ``scipy.stats.kendalltau`` (exact null distribution for untied small samples,
the tie-corrected normal approximation otherwise). The sign is kept: Li, Jiang & Wang 2013 prints
absolute values because its learned scores are lower-is-better; all aggregate scores
here are higher-is-better, so agreement is positive.

Segment level (Duh 2008 §4, Table 3): per group, Spearman's ρ between gold and pred
over the items where both are present (average ranks for ties), then the mean over
the groups where ρ is defined (at least 2 such items, neither side constant); the
undefined groups are counted and reported.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from ..batch import Batch, offsets_from_sizes
from ..exactsum import ExactSum
from ..ranks import normalize_ranks

SYSTEM_MEASURES = ("spearman", "pearson", "kendall")


@dataclass
class Correlation:
    measure: str
    value: float  # NaN when undefined
    p_value: float
    n: int


def _pearson_r(x: np.ndarray, y: np.ndarray) -> float:
    if len(x) < 2:
        return math.nan
    dx, dy = x - x.mean(), y - y.mean()
    den = math.sqrt(float(dx @ dx) * float(dy @ dy))
    if den == 0:
        return math.nan
    return max(-1.0, min(1.0, float(dx @ dy) / den))


def _t_pvalue(r: float, n: int) -> float:
    """Two-sided p of H0: no correlation, Student's t with n − 2 df."""
    if math.isnan(r):
        return math.nan
    if n <= 2:
        return 1.0
    if abs(r) >= 1.0:
        return 0.0
    from scipy.stats import t as student_t

    t = r * math.sqrt((n - 2) / (1 - r * r))
    return float(2 * student_t.sf(abs(t), n - 2))


def _average_ranks(values: np.ndarray) -> np.ndarray:
    return normalize_ranks(values, np.array([0, len(values)]), "middle")


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> float:
    """τ_b by counting all pairs (system counts are small)."""
    i, j = np.triu_indices(len(x), 1)
    sx, sy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
    c = int(np.count_nonzero(sx * sy > 0))
    d = int(np.count_nonzero(sx * sy < 0))
    tx = int(np.count_nonzero((sx == 0) & (sy != 0)))
    ty = int(np.count_nonzero((sy == 0) & (sx != 0)))
    den = math.sqrt((c + d + tx) * (c + d + ty))
    return math.nan if den == 0 else (c - d) / den


def system_correlations(x, y) -> list[Correlation]:
    """Spearman, Pearson and Kendall τ_b of paired scores (NaN pairs dropped)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    n = len(x)
    rho = _pearson_r(_average_ranks(x), _average_ranks(y)) if n else math.nan
    r = _pearson_r(x, y)
    tau = kendall_tau_b(x, y) if n >= 2 else math.nan
    tau_p = math.nan
    if not math.isnan(tau):
        from scipy.stats import kendalltau

        tau_p = float(kendalltau(x, y).pvalue)
    return [Correlation("spearman", rho, _t_pvalue(rho, n), n),
            Correlation("pearson", r, _t_pvalue(r, n), n),
            Correlation("kendall", tau, tau_p, n)]


def correlation_intervals(gold_counter, pred_counter, score, replicates: int, seed: int,
                          level: float) -> dict:
    """Percentile bootstrap intervals of the system-level correlations: {measure: (low, high)}.

    Every replicate resamples the groups once (Efron & Tibshirani 1993, §13.3) and scores the
    systems on gold and on pred from the same draw (both counters hold the same groups),
    then correlates them over the systems scored on both sides, as the point estimate does.
    """
    from ..errors import DataError
    from ..stats.resample import percentile_interval
    from .bootstrap import bootstrap_scores

    if gold_counter.n_groups != pred_counter.n_groups:
        raise DataError(f"--ci resamples groups ranked on both sides: {gold_counter.n_groups} groups rank gold "
                        f"items but {pred_counter.n_groups} rank pred items (fill or drop the blanks)")
    gold_items, pred_items = gold_counter.stats().items, pred_counter.stats().items
    names, _, _, _ = join_scores(dict.fromkeys(gold_items, 0.0), dict.fromkeys(pred_items, 0.0))
    gi, pi = _columns(gold_items, names), _columns(pred_items, names)
    x = bootstrap_scores(gold_counter, score, replicates, seed)[:, gi]
    y = bootstrap_scores(pred_counter, score, replicates, seed)[:, pi]
    values = np.array([[c.value for c in system_correlations(x[r], y[r])] for r in range(replicates)])
    return {measure: percentile_interval(values[:, j], level)
            for j, measure in enumerate(("spearman", "pearson", "kendall"))}


def _columns(items: list, names: list) -> np.ndarray:
    """Positions in ``items`` of the joined ``names`` (matched as :func:`join_scores` matches)."""
    from ..formats.wmtids import system_key

    exact = {item: i for i, item in enumerate(items)}
    if all(name in exact for name in names):
        return np.array([exact[name] for name in names], dtype=np.int64)
    keyed = {system_key(item): i for i, item in enumerate(items)}
    return np.array([keyed[name] for name in names], dtype=np.int64)


class SegmentSpearman:
    """Streams the per-group Spearman ρ between gold and pred; mean over defined groups.

    The ρ are summed exactly (:class:`~rankeval_cli.exactsum.ExactSum`) and rounded once,
    so the mean is the same to the last bit however the input was cut into batches.
    """

    def __init__(self, gold_higher_better: bool = False, pred_higher_better: bool = False):
        self.gold_higher_better = gold_higher_better
        self.pred_higher_better = pred_higher_better
        self._sum = ExactSum()
        self.defined = 0
        self.undefined = 0
        self.skipped_rows = 0  # rows lacking gold or pred

    def add(self, batch: Batch) -> None:
        rho = self.per_group(batch)
        ok = ~np.isnan(rho)
        self._sum.add(rho[ok])
        self.defined += int(ok.sum())
        self.undefined += int((~ok).sum())

    def per_group(self, batch: Batch) -> np.ndarray:
        """ρ of every group of ``batch`` (NaN where undefined)."""
        both = ~(np.isnan(batch.gold) | np.isnan(batch.pred))
        self.skipped_rows += int(np.count_nonzero(~both))
        g = batch.group_index[both]
        sizes = np.bincount(g, minlength=batch.n_groups)
        offsets = offsets_from_sizes(sizes)
        x = normalize_ranks(batch.gold[both], offsets, "middle", self.gold_higher_better)
        y = normalize_ranks(batch.pred[both], offsets, "middle", self.pred_higher_better)
        return _group_pearson(x, y, g, sizes)

    @property
    def total(self) -> float:
        """Σρ over the defined groups, correctly rounded."""
        return self._sum.value

    @property
    def mean(self) -> float:
        return self.total / self.defined if self.defined else math.nan


def _group_pearson(x, y, g, sizes) -> np.ndarray:
    n_groups = len(sizes)
    n = np.maximum(sizes, 1).astype(np.float64)
    mx = np.bincount(g, weights=x, minlength=n_groups) / n
    my = np.bincount(g, weights=y, minlength=n_groups) / n
    dx, dy = x - mx[g], y - my[g]
    sxy = np.bincount(g, weights=dx * dy, minlength=n_groups)
    sxx = np.bincount(g, weights=dx * dx, minlength=n_groups)
    syy = np.bincount(g, weights=dy * dy, minlength=n_groups)
    den = np.sqrt(sxx * syy)
    out = np.full(n_groups, np.nan)
    ok = (sizes >= 2) & (den > 0)
    out[ok] = np.clip(sxy[ok] / den[ok], -1.0, 1.0)
    return out


def join_scores(left: dict, right: dict) -> tuple[list, np.ndarray, np.ndarray, int]:
    """Items scored (non-NaN) on both sides, in sorted order; and how many were not.

    Systems are matched as ``convert --scores`` matches them (:func:`..formats.wmtids.system_key`:
    a leading test-set component and a language pair are stripped), unless the exact names
    already match; two names of one side that become the same key are an error.
    """
    if left.keys() != right.keys():
        left, right = _by_system_key(left, "first"), _by_system_key(right, "second")
    both = sorted(k for k in left.keys() & right.keys()
                  if not (math.isnan(left[k]) or math.isnan(right[k])))
    unmatched = len(left.keys() | right.keys()) - len(both)
    return both, np.array([left[k] for k in both]), np.array([right[k] for k in both]), unmatched


def _by_system_key(scores: dict, side: str) -> dict:
    from ..errors import DataError
    from ..formats.wmtids import system_key

    keyed: dict = {}
    names: dict = {}
    for name, value in scores.items():
        key = system_key(name)
        if key in keyed:
            raise DataError(f"systems {names[key]!r} and {name!r} of the {side} table are the same system once "
                            f"test-set and language-pair parts are stripped")
        keyed[key], names[key] = value, name
    return keyed
