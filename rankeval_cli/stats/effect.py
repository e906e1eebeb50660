"""Effect sizes and intervals of a paired comparison over topics (queries, segments).

With x_t and b_t the values of a system and its baseline on the n topics both have,
d_t = x_t − b_t, the mean difference d̄ = Σ d_t / n and the sample standard deviation
s_d = √(Σ (d_t − d̄)² / (n − 1)):

- **t interval** of the mean difference (Student 1908): d̄ ± t_{(1+L)/2, n−1} · s_d / √n at
  level L. Undefined for n < 2; the single point d̄ when s_d = 0.
- **Cohen's d_z** (Cohen 1988, ch. 2; Lakens 2013, "Calculating and reporting
  effect sizes", Front. Psychol. 4:863): d_z = d̄ / s_d, the mean difference in
  units of the standard deviation of the *differences* (the standardizer of the paired
  t-test: t = d_z · √n). Undefined when s_d = 0.
- **Hedges' g_z** (Hedges 1981; Hedges & Olkin 1985, ch. 5): d_z times the
  exact small-sample correction J(ν) = Γ(ν/2) / (√(ν/2) · Γ((ν−1)/2)) with ν = n − 1 degrees
  of freedom (≈ 1 − 3/(4ν − 1)), which makes it unbiased for the population d_z. Undefined
  for n < 3.
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
    """J(ν) = Γ(ν/2) / (√(ν/2) Γ((ν−1)/2)); NaN for ν < 2.

    >>> round(hedges_correction(3), 6)  # Γ(3/2) / (√(3/2) Γ(1)) = (√π / 2) / √1.5
    0.723601
    """
    from scipy.special import gammaln

    if not df >= 2:
        return math.nan
    return math.exp(gammaln(df / 2) - gammaln((df - 1) / 2) - 0.5 * math.log(df / 2))


def paired_effect(x, b, level: float = 0.95) -> PairedEffect:
    """The :class:`PairedEffect` of ``x`` against ``b`` (paired values of the same topics)."""
    d = np.asarray(x, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    n = len(d)
    mean, sd = mean_sd(d)
    low, high = t_interval(d, level)
    d_z = mean / sd if n >= 2 and sd > 0 else math.nan
    return PairedEffect(n, mean, sd, low, high, d_z, d_z * hedges_correction(n - 1))


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
