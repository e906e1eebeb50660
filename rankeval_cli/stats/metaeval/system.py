"""System-level statistics: correlations of system scores, pairwise accuracy, soft pairwise accuracy.

Pearson / Spearman / Kendall of the system scores, pairwise accuracy (Kocmi et
al. 2021; pooled over language pairs as WMT22-23's global accuracy) and soft
pairwise accuracy (Thompson, Mathur, Deutsch & Khayrallah 2024; WMT24-25),
whose pairwise permutation p-values follow mt-metrics-eval's ``pce.py``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...vocabulary import SPA_SUMS
from .cells import as_matrix, complete_segments
from .segment import seg_statistic
from .signflip import count_at_most, flip_matrix

#: Seed of mt-metrics-eval's segment permutations for soft pairwise accuracy (pce.py).
SPA_SEED = 4


def sys_statistic(human_sys, metric_sys, statistic: str = "pearson", *, variant: str | None = None) -> float:
    """Pearson / Spearman / Kendall (variant b by default) of system scores; NaN human = left out."""
    human = np.asarray(human_sys, np.float64).reshape(-1, 1)
    metric = np.asarray(metric_sys, np.float64).reshape(-1, 1)
    return seg_statistic(human, metric, statistic, "none", variant=variant).value


def as_lp_list(x) -> list[np.ndarray]:
    """One system-score vector per language pair, from one vector or a list of them."""
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
    humans = as_lp_list(human_sys)
    out = {}
    for name, values in metrics_sys.items():
        ms = as_lp_list(values)
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


#: How SPA's sign-flip sums are computed (:data:`SPA_SUMS`): ``exact`` decides every trial exactly
#: (:mod:`.signflip`), the same on every machine; ``float32`` performs mt-metrics-eval's float32
#: matrix product (pce.py), whose rounding depends on the CPU's BLAS kernel.


@dataclass(frozen=True)
class SpaSpec:
    """The sign-flip test behind soft pairwise accuracy: trials, seed and arithmetic."""

    permutations: int = 1000
    seed: int = SPA_SEED
    sums: str = "exact"

    def __post_init__(self):
        if self.sums not in SPA_SUMS:
            raise ValueError(f"SPA sums must be one of {', '.join(SPA_SUMS)}")

    def signs(self, n_seg: int) -> np.ndarray:
        return permutation_signs(n_seg, self.permutations, self.seed)


def blas_threads():
    """A context in which BLAS runs on two threads (the float32 sums of ``--spa-sums float32``).

    OpenBLAS sums a float32 product on one thread by another code path than on two or more;
    two threads keep a machine's float32 SPA the same under any thread setting (a one-core
    machine, a Dask worker with OMP_NUM_THREADS=1). The rounding still depends on the CPU's
    kernel, which is why the default sums are exact.
    """
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=BLAS_THREADS, user_api="blas")


#: BLAS threads of SPA's float32 sums (:func:`blas_threads`)
BLAS_THREADS = 2


def pairwise_p_values(seg_scores, permutations: int = 1000, seed: int = SPA_SEED, *,
                      signs: np.ndarray | None = None, sums: str = "exact") -> np.ndarray:
    """One-sided paired permutation p-values of every system pair (Thompson et al. 2024).

    p[i, j] (i < j; NaN elsewhere) = #{r : Σ_s σ_rs (x_is - x_js) ≥ Σ_s (x_is - x_js)} / R:
    the share of sign flips σ of the segment differences giving a difference of
    system sums at least the observed one (the test of "i better than j"). ``sums="exact"``
    decides each trial exactly (:mod:`.signflip`); ``"float32"`` computes it as
    mt-metrics-eval's ``compute_pairwise_p_values`` does, in float32.
    """
    seg = np.asarray(seg_scores, np.float64)
    n_sys, n_seg = seg.shape
    if signs is None:
        signs = permutation_signs(n_seg, permutations, seed)
    i, j = np.triu_indices(n_sys, 1)
    p = np.full((n_sys, n_sys), np.nan)
    if sums == "exact":
        p[i, j] = count_at_most(flip_matrix(signs), seg[None], i, j)[0] / signs.shape[0]
        return p
    # C order as pce.py receives it: the layout BLAS sees can change float32 rounding, hence ties
    seg = np.ascontiguousarray(seg, dtype=np.float32)
    sys_scores = np.sum(seg, axis=1)
    with blas_threads():
        partial = np.matmul(signs, seg.T)
    null = partial[:, i] - partial[:, j]
    test = sys_scores[i] - sys_scores[j]
    p[i, j] = np.sum(null >= test, axis=0) / signs.shape[0]
    return p


def spa_from_p_values(human_p, metric_p) -> float:
    """SPA = 1 - mean over system pairs i < j of |p_h(i, j) - p_m(i, j)| (Thompson et al. 2024)."""
    i, j = np.triu_indices(human_p.shape[0], 1)
    return float(1.0 - np.mean(np.abs(human_p - metric_p)[i, j]))


def soft_pairwise_accuracy(human, metric, spec: SpaSpec = SpaSpec()) -> float:
    """Soft pairwise accuracy of a metric (Thompson et al. 2024; WMT24's system-level statistic).

    Both matrices are (n_sys, n_seg) segment scores. Segments where any system
    lacks a score are left out (mt-metrics-eval drops missing human cells and
    reshapes, which is the same when whole segments are missing). The default
    seed 4 and the signs are mt-metrics-eval's; ``spec.sums`` says how the trials' sums are
    computed (:data:`SPA_SUMS`).
    """
    human = as_matrix(human, "human")
    metric = as_matrix(metric, "metric")
    keep = complete_segments(human, metric)
    signs = spec.signs(int(keep.sum()))
    return spa_from_p_values(pairwise_p_values(human[:, keep], signs=signs, sums=spec.sums),
                             pairwise_p_values(metric[:, keep], signs=signs, sums=spec.sums))
