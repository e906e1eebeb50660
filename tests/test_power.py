"""Power and topic set size against statsmodels' TTestPower and FTestAnovaPower, the expected CI
width against a simulation, and the variance estimates against their definitions."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as hst

from rankeval_cli.stats import power

sm = pytest.importorskip("statsmodels.stats.power")


@settings(max_examples=150, deadline=None)
@given(hst.floats(0.005, 0.3), hst.floats(0.001, 0.2), hst.integers(2, 400), hst.sampled_from([0.01, 0.05, 0.1]))
def test_t_power_equals_statsmodels(difference, variance, n, alpha):

    from scipy.stats import nct, t as student

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = sm.TTestPower().power(difference / math.sqrt(variance), n, alpha, alternative="two-sided")
    ours = power.ttest_power(difference, variance, n, alpha)
    if math.isnan(ref):  # statsmodels inherits scipy's NaN of nct.cdf far in the lower tail: the upper tail alone
        ref = nct.sf(student.ppf(1 - alpha / 2, n - 1), n - 1, difference / math.sqrt(variance) * math.sqrt(n))
        assert ours == pytest.approx(ref, rel=1e-9, abs=1e-9)
    assert ours == pytest.approx(ref, rel=1e-9, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(hst.floats(0.01, 0.3), hst.floats(0.005, 0.2), hst.integers(2, 20), hst.integers(2, 300),
       hst.sampled_from([0.01, 0.05]))
def test_anova_power_equals_statsmodels(difference, variance, m, n, alpha):
    f = math.sqrt(difference ** 2 / (2 * m * variance))  # Cohen's f of the least favourable configuration
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = sm.FTestAnovaPower().power(f, m * n, alpha, k_groups=m)
    ours = power.anova_power(difference, variance, m, n, alpha)
    if math.isnan(ref):  # statsmodels takes 1 - ncf.cdf, and scipy's ncf.cdf is NaN far in the lower tail
        from scipy.stats import f as fisher, ncf
        crit = fisher.ppf(1 - alpha, m - 1, m * n - m)
        lam = f ** 2 * m * n  # statsmodels' noncentrality, Cohen's f² times the total count
        ref = ncf.sf(crit, m - 1, m * n - m, lam)
    assert ours == pytest.approx(ref, rel=1e-8, abs=1e-12)


@pytest.mark.parametrize("difference, variance, alpha, target", [
    (0.05, 0.02, 0.05, 0.8), (0.1, 0.05, 0.05, 0.9), (0.02, 0.01, 0.01, 0.8), (0.3, 0.02, 0.05, 0.8)])
def test_topic_counts_are_statsmodels_solutions_rounded_up(difference, variance, alpha, target):
    n = power.ttest_topics(difference, variance, alpha, target)
    ref = sm.TTestPower().solve_power(difference / math.sqrt(variance), None, alpha, target)
    assert n == max(2, math.ceil(ref - 1e-9))
    assert power.ttest_power(difference, variance, n, alpha) >= target
    assert n == 2 or power.ttest_power(difference, variance, n - 1, alpha) < target
    for m in (2, 5, 20):
        k = power.anova_topics(difference, variance / 2, m, alpha, target)
        f = math.sqrt(difference ** 2 / (2 * m * variance / 2))
        total = sm.FTestAnovaPower().solve_power(f, None, alpha, target, k_groups=m)
        assert k == max(2, math.ceil(total / m - 1e-9))


def test_two_systems_anova_and_t_agree_on_unpaired_data():
    """m = 2: the one-way ANOVA is the two-sample t-test (Sakai 2016 compares the two); its topic
    count per system equals statsmodels' two-sample t solution with d = D/σ."""
    n = power.anova_topics(0.1, 0.04, 2, 0.05, 0.8)
    ref = sm.TTestIndPower().solve_power(0.1 / 0.2, None, 0.05, 0.8)
    assert n == math.ceil(ref)


def test_expected_ci_width_by_simulation():
    rng = np.random.default_rng(5)
    n, variance, alpha = 12, 0.03, 0.05
    d = rng.normal(0, math.sqrt(variance), size=(50000, n))
    from scipy.stats import t as student

    widths = 2 * student.ppf(1 - alpha / 2, n - 1) * d.std(axis=1, ddof=1) / math.sqrt(n)
    expected = power.expected_ci_width(variance, n, alpha)
    assert abs(widths.mean() - expected) < 5 * widths.std() / math.sqrt(len(widths))
    k = power.ci_topics(0.1, variance, alpha)
    assert power.expected_ci_width(variance, k, alpha) <= 0.1 < power.expected_ci_width(variance, k - 1, alpha)


def test_minimum_difference_inverts_power():
    d = power.minimum_difference("t", 0.02, 50, 0.05, 0.8)
    assert power.ttest_power(d, 0.02, 50, 0.05) == pytest.approx(0.8, abs=1e-9)
    d = power.minimum_difference("anova", 0.02, 50, 0.05, 0.8, systems=8)
    assert power.anova_power(d, 0.02, 8, 50, 0.05) == pytest.approx(0.8, abs=1e-9)
    assert power.minimum_difference("ci", 0.02, 50, 0.05, 0.8) == power.expected_ci_width(0.02, 50, 0.05)


def test_variance_estimates_by_definition():
    x = np.array([[1, 2, 3, 4], [2, 3, 4, 5], [3, 5, 4, 6]], dtype=float)
    v = power.variance_estimates(x)
    assert v.within == pytest.approx(15 / 9) and v.residual == pytest.approx(2 / 9)  # test_anova's table
    diffs = [x[i] - x[j] for i in range(3) for j in range(i + 1, 3)]
    assert v.paired == pytest.approx(np.mean([np.var(d, ddof=1) for d in diffs]))
    assert (v.sigma_d2("within"), v.sigma_d2("residual"), v.sigma_d2("paired")) == \
        pytest.approx((30 / 9, 4 / 9, v.paired))


def test_bad_requirements():
    with pytest.raises(ValueError, match="positive"):
        power.ttest_topics(0.0, 0.1, 0.05, 0.8)
    with pytest.raises(ValueError, match="positive"):
        power.ci_topics(0.1, 0.0, 0.05)
