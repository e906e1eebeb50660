"""Effect sizes and intervals of a paired comparison over topics (queries, segments).

With x_t and b_t the values of a system and its baseline on the n topics both have,
d_t = x_t − b_t, the mean difference d̄ = Σ d_t / n and the sample standard deviation
s_d = √(Σ (d_t − d̄)² / (n − 1)):

- **t interval** of the mean difference (Student 1908): d̄ ± t_{(1+L)/2, n−1} · s_d / √n at
  level L. Undefined for n < 2; the single point d̄ when s_d = 0.
- **Cohen's d_z** (Cohen 1988, ch. 2; Lakens 2013, "Calculating and reporting
  effect sizes", Front. Psychol. 4:863): d_z = d̄ / s_d, the mean difference in
  units of the standard deviation of the *differences* (the standardizer of the paired
  t-test: t = d_z · √n). When s_d = 0 (every topic differs by the same amount) it is
  ±∞ with the sign of d̄, as t is, and 0 when that amount is 0 (the two agree on every
  topic: no effect). Undefined for n < 2.
- **Hedges' g_z** (Hedges 1981; Hedges & Olkin 1985, ch. 5): d_z times the
  exact small-sample correction J(ν) = Γ(ν/2) / (√(ν/2) · Γ((ν−1)/2)) with ν = n − 1 degrees
  of freedom (≈ 1 − 3/(4ν − 1)), which makes it unbiased for the population d_z. At n = 2,
  J(1) = 0 (Γ(0) is infinite: with one degree of freedom d_z has no finite mean to correct),
  so g_z = 0 for any finite d_z; undefined for n < 2 and for an infinite d_z at n = 2 (0 · ∞).
- **Sakai's ES_E** (Sakai 2014, "Statistical reform in information retrieval?", SIGIR
  Forum 48(1); Sakai 2018, *Laboratory Experiments in IR*, ch. 5): for one pair among m
  systems, ES_E = (x̄_i − x̄_j) / √V_E, standardized by the residual variance V_E of the
  two-way ANOVA without replication over all m systems and the same topics
  (:mod:`.anova`). One standardizer for every pair, so the effect sizes of a table are
  comparable.
- **runs of one system** (several seeds or folds): the mean of the k run means with the
  standard deviation across runs (k − 1 in the denominator) and the t interval with k − 1
  degrees of freedom.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PairedEffect:
    """A paired comparison's mean difference, its t interval and standardized effect sizes."""

    n: int
    delta: float  # d̄
    sd: float  # s_d
    ci_low: float
    ci_high: float
    d_z: float
    g_z: float


def mean_sd(values) -> tuple[float, float]:
    """(mean, sample standard deviation with n − 1), summed exactly (math.fsum); NaN where undefined."""
    v = np.asarray(values, dtype=np.float64).ravel()
    n = len(v)
    if n == 0:
        return math.nan, math.nan
    mean = math.fsum(v.tolist()) / n
    if n < 2:
        return mean, math.nan
    return mean, math.sqrt(math.fsum(((v - mean) ** 2).tolist()) / (n - 1))


def t_interval(values, level: float) -> tuple[float, float]:
    """The t interval of the mean of ``values`` at ``level`` (module docstring)."""
    from scipy.stats import t as student

    v = np.asarray(values, dtype=np.float64).ravel()
    n = len(v)
    mean, sd = mean_sd(v)
    if n < 2:
        return math.nan, math.nan
    half = float(student.ppf((1 + level) / 2, n - 1)) * sd / math.sqrt(n)
    return mean - half, mean + half


def hedges_correction(df: float) -> float:
    """J(ν) = Γ(ν/2) / (√(ν/2) Γ((ν−1)/2)); 0 for ν = 1 (Γ(0) = ∞), NaN for ν < 1.

    >>> round(hedges_correction(3), 6)  # Γ(3/2) / (√(3/2) Γ(1)) = (√π / 2) / √1.5
    0.723601
    """
    from scipy.special import gammaln

    if df == 1:
        return 0.0
    if not df > 1:
        return math.nan
    return math.exp(gammaln(df / 2) - gammaln((df - 1) / 2) - 0.5 * math.log(df / 2))


def paired_effect(x, b, level: float = 0.95) -> PairedEffect:
    """The :class:`PairedEffect` of ``x`` against ``b`` (paired values of the same topics)."""
    d = np.asarray(x, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    n = len(d)
    mean, sd = mean_sd(d)
    low, high = t_interval(d, level)
    return PairedEffect(n, mean, sd, low, high, cohen_d_z(mean, sd, n), hedges_g_z(mean, sd, n))


def cohen_d_z(mean: float, sd: float, n: int) -> float:
    """d̄ / s_d; ±∞ (the sign of d̄) when s_d = 0 and d̄ ≠ 0, 0 when both are 0; NaN for n < 2."""
    if n < 2:
        return math.nan
    if sd > 0:
        return mean / sd
    return math.copysign(math.inf, mean) if mean != 0 else 0.0


def hedges_g_z(mean: float, sd: float, n: int) -> float:
    """d_z · J(n − 1): 0 at n = 2 for a finite d_z, NaN where d_z is undefined or 0 · ∞."""
    d_z, j = cohen_d_z(mean, sd, n), hedges_correction(n - 1)
    if math.isinf(d_z) and j == 0:
        return math.nan
    return d_z * j


def sakai_es(delta: float, residual_variance: float) -> float:
    """ES_E = δ / √V_E (module docstring); NaN when V_E is 0 or undefined."""
    if not residual_variance > 0:
        return math.nan
    return delta / math.sqrt(residual_variance)


@dataclass(frozen=True)
class RunsSummary:
    """k runs of one system (seeds, folds): the mean of their means, the sd across runs, its interval."""

    runs: int
    mean: float
    sd: float
    ci_low: float
    ci_high: float


def runs_summary(run_values, level: float = 0.95) -> RunsSummary:
    """Mean ± sd of the runs' values with the t interval over k − 1 degrees of freedom."""
    v = np.asarray(run_values, dtype=np.float64).ravel()
    mean, sd = mean_sd(v)
    low, high = t_interval(v, level)
    return RunsSummary(len(v), mean, sd, low, high)
