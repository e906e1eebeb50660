"""Effect sizes and intervals of a paired comparison: by hand, against scipy, and against slow
obvious implementations on random data."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats as st
from hypothesis import given, settings, strategies as hst

from rankeval_cli.stats import effect


def test_by_hand():
    x, b = [0.5, 0.7, 0.2, 0.9], [0.3, 0.4, 0.3, 0.5]
    # d = 0.2, 0.3, -0.1, 0.4; mean 0.2; squares of deviations 0, 0.01, 0.09, 0.04 -> s² = 0.14/3
    e = effect.paired_effect(x, b)
    sd = math.sqrt(0.14 / 3)
    assert e.n == 4 and e.delta == pytest.approx(0.2) and e.sd == pytest.approx(sd)
    assert e.d_z == pytest.approx(0.2 / sd)
    # J(3) = Γ(3/2) / (√(3/2) Γ(1)) = (√π/2) / √1.5
    assert e.g_z == pytest.approx(0.2 / sd * (math.sqrt(math.pi) / 2) / math.sqrt(1.5))
    half = 3.182446305284263 * sd / 2  # t_{0.975, 3} (tables: 3.182)
    assert (e.ci_low, e.ci_high) == pytest.approx((0.2 - half, 0.2 + half))


@settings(max_examples=200, deadline=None)
@given(hst.integers(2, 60), hst.integers(0, 10 ** 6), hst.floats(0.5, 0.999))
def test_t_interval_equals_scipy_and_d_z_is_t_over_root_n(n, seed, level):
    rng = np.random.default_rng(seed)
    x, b = rng.random(n), rng.random(n)
    e = effect.paired_effect(x, b, level)
    ref = st.ttest_rel(x, b)
    low, high = ref.confidence_interval(level)
    assert (e.ci_low, e.ci_high) == pytest.approx((low, high), rel=1e-9, abs=1e-12)
    assert e.d_z * math.sqrt(n) == pytest.approx(ref.statistic, rel=1e-9)


def test_hedges_correction_exact_and_approximate():
    for df in (2, 3, 5, 10, 30, 100, 1000):
        exact = math.gamma(df / 2) / (math.sqrt(df / 2) * math.gamma((df - 1) / 2)) if df < 300 else None
        if exact is not None:
            assert effect.hedges_correction(df) == pytest.approx(exact, rel=1e-12)
        if df >= 5:  # Hedges' approximation 1 - 3/(4ν - 1) is close from ν = 5 on
            assert effect.hedges_correction(df) == pytest.approx(1 - 3 / (4 * df - 1), abs=0.002)
    assert effect.hedges_correction(1) == 0  # Γ(0) = ∞
    assert math.isnan(effect.hedges_correction(0.5))


def test_g_z_is_unbiased_where_d_z_is_not():
    """E[g_z] = δ_z for normal differences (Hedges 1981); d_z overestimates it at small n."""
    rng = np.random.default_rng(11)
    n, delta = 6, 0.8
    d = rng.normal(delta, 1.0, size=(40000, n))
    dz = d.mean(axis=1) / d.std(axis=1, ddof=1)
    gz = dz * effect.hedges_correction(n - 1)
    se = gz.std() / math.sqrt(len(gz))
    assert abs(gz.mean() - delta) < 5 * se
    assert dz.mean() - delta > 10 * se


def test_degenerate():
    e = effect.paired_effect([1.0], [0.0])
    assert e.n == 1 and math.isnan(e.sd) and math.isnan(e.ci_low) and math.isnan(e.d_z)
    e = effect.paired_effect([1.0, 2.0, 3.0], [0.5, 1.5, 2.5])  # constant difference: no spread
    assert e.sd == 0 and e.ci_low == e.ci_high == 0.5 and e.d_z == math.inf and e.g_z == math.inf
    e = effect.paired_effect([1.0, 2.0, 3.0], [1.5, 2.5, 3.5])
    assert e.d_z == -math.inf and e.g_z == -math.inf
    e = effect.paired_effect([0.2, 0.4, 0.6], [0.2, 0.4, 0.6])  # no difference on any topic: no effect
    assert e.d_z == 0 and e.g_z == 0
    # two topics: J(1) = Γ(1/2) / (√(1/2) Γ(0)) = 0, so g_z = 0 for any finite d_z
    e = effect.paired_effect([1.0, 2.0], [0.0, 0.5])
    assert e.d_z == pytest.approx(1.25 / math.sqrt(0.125)) and e.g_z == 0
    assert math.isnan(effect.paired_effect([1.0, 2.0], [0.5, 1.5]).g_z)  # d_z = ∞ times J(1) = 0
    assert math.isnan(effect.sakai_es(0.1, 0.0)) and effect.sakai_es(0.1, 0.04) == pytest.approx(0.5)


def test_runs_summary():
    r = effect.runs_summary([0.30, 0.32, 0.34])
    assert (r.runs, r.mean, r.sd) == (3, pytest.approx(0.32), pytest.approx(0.02))
    half = 4.302652729911275 * 0.02 / math.sqrt(3)  # t_{0.975, 2} (tables: 4.303)
    assert (r.ci_low, r.ci_high) == pytest.approx((0.32 - half, 0.32 + half))
