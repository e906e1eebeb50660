"""Analysis of variance of a systems × topics matrix of per-topic values.

x_ij is the value of system i (of m) on topic j (of n), x̄_i• the system means, x̄_•j the
topic means and x̄ the grand mean (Sakai 2018, *Laboratory Experiments in Information
Retrieval*, ch. 3; Montgomery, *Design and Analysis of Experiments*, randomized complete
block design).

**Two-way ANOVA without replication** (systems × topics, one value per cell; topics are
the blocks):

    S_A = n Σ_i (x̄_i• − x̄)²            φ_A = m − 1
    S_B = m Σ_j (x̄_•j − x̄)²            φ_B = n − 1
    S_E = Σ_ij (x_ij − x̄_i• − x̄_•j + x̄)²  φ_E = (m − 1)(n − 1)
    V_E = S_E / φ_E,  F = (S_A / φ_A) / V_E,  p = P(F_{φ_A, φ_E} ≥ F).

V_E is the residual variance that Sakai's ES_E (:mod:`.effect`) and the Tukey HSD test
after this ANOVA (:mod:`.tukey`) use.

**One-way ANOVA** (systems only, topics ignored): the within-system variance
V_E1 = Σ_ij (x_ij − x̄_i•)² / (m(n − 1)) with φ_E1 = m(n − 1) — the pooled estimate of the
within-system population variance σ² that Sakai (2016, "Topic set size design", Inf.
Retrieval J. 19) uses for topic set size design (:mod:`.power`).

Sums of squares are summed exactly (``math.fsum``) from the centred values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class TwoWay:
    """The table of a two-way ANOVA without replication."""

    systems: int  # m
    topics: int  # n
    ss_systems: float  # S_A
    ss_topics: float  # S_B
    ss_residual: float  # S_E
    df_systems: int
    df_topics: int
    df_residual: int
    residual_variance: float  # V_E
    f: float
    p: float


@dataclass(frozen=True)
class OneWay:
    """The within-system variance of a one-way ANOVA over the systems."""

    systems: int
    topics: int
    ss_within: float
    df_within: int
    within_variance: float  # V_E1


def _matrix(values) -> np.ndarray:
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"an ANOVA needs a systems × topics matrix, not an array of shape {x.shape}")
    if not np.isfinite(x).all():
        raise ValueError("an ANOVA needs a value for every system and topic (the matrix has NaN or inf)")
    return x


def _fsum(a: np.ndarray) -> float:
    return math.fsum(np.ravel(a).tolist())


def two_way(values) -> TwoWay:
    """The two-way ANOVA without replication of an m × n matrix (module docstring)."""
    from scipy.stats import f as fisher

    x = _matrix(values)
    m, n = x.shape
    grand = _fsum(x) / x.size if x.size else math.nan
    rows = np.array([_fsum(r) for r in x]) / n if n else np.full(m, math.nan)
    cols = np.array([_fsum(c) for c in x.T]) / m if m else np.full(n, math.nan)
    ss_a = n * _fsum((rows - grand) ** 2)
    ss_b = m * _fsum((cols - grand) ** 2)
    ss_e = _fsum((x - rows[:, None] - cols[None, :] + grand) ** 2)
    df_a, df_b, df_e = m - 1, n - 1, (m - 1) * (n - 1)
    v_e = ss_e / df_e if df_e > 0 else math.nan
    if df_e > 0 and df_a > 0 and v_e > 0:
        f = (ss_a / df_a) / v_e
        p = float(fisher.sf(f, df_a, df_e))
    else:
        f = p = math.nan
    return TwoWay(m, n, ss_a, ss_b, ss_e, df_a, df_b, df_e, v_e, f, p)


def one_way(values) -> OneWay:
    """The within-system variance V_E1 of an m × n matrix (module docstring)."""
    x = _matrix(values)
    m, n = x.shape
    rows = np.array([_fsum(r) for r in x]) / n if n else np.full(m, math.nan)
    ss = _fsum((x - rows[:, None]) ** 2)
    df = m * (n - 1)
    return OneWay(m, n, ss, df, ss / df if df > 0 else math.nan)
