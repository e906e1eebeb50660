"""Stouffer's combination of p-values (aggregate.stouffer): by hand (Stouffer et al. 1949 with
Python's own NormalDist), scipy's combine_pvalues(method='stouffer'), and the complements in
floating point exactly as WMT24's tools.py writes them."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval_cli.aggregate.stouffer import stouffer

NORMAL = NormalDist()


def test_by_hand():
    # two p = 0.05: z = 1.6449 each, Z = 2z/sqrt(2) = sqrt(2) z
    z = NORMAL.inv_cdf(0.95)
    combined, p = stouffer([0.05, 0.05])
    assert combined == pytest.approx(math.sqrt(2) * z, rel=1e-14)
    assert p == pytest.approx(NORMAL.cdf(-math.sqrt(2) * z), rel=1e-12)
    # opposite evidence cancels: Phi^-1(0.9) + Phi^-1(0.1) = 0, p = 1/2
    assert stouffer([0.1, 0.9])[1] == pytest.approx(0.5, abs=1e-15)
    # one p-value is returned unchanged
    assert stouffer([0.3])[1] == pytest.approx(0.3, rel=1e-14)
    # weights 3 and 4: Z = (3 z1 + 4 z2)/5
    z1, z2 = NORMAL.inv_cdf(1 - 0.2), NORMAL.inv_cdf(1 - 0.01)
    assert stouffer([0.2, 0.01], [3, 4])[0] == pytest.approx((3 * z1 + 4 * z2) / 5, rel=1e-13)


def test_infinite_and_undefined_cases():
    for tails in ("accurate", "complement"):
        assert stouffer([0.0, 0.3], tails=tails)[1] == 0.0
        assert stouffer([1.0, 0.001], tails=tails)[1] == 1.0
        assert math.isnan(stouffer([0.0, 1.0], tails=tails)[1])
        assert math.isnan(stouffer([math.nan, 0.01], tails=tails)[1])
    assert all(math.isnan(v) for v in stouffer([]))
    # the complement of a tiny p is 1 in floating point: z = inf and the combined p is 0 ...
    assert stouffer([1e-20, 0.5], tails="complement") == (math.inf, 0.0)
    # ... where the accurate tails keep it: z = 9.26, Z = 6.55, p = 2.9e-11
    z, p = stouffer([1e-20, 0.5])
    assert z == pytest.approx(-NORMAL.inv_cdf(1e-20) / math.sqrt(2), rel=1e-12) and 1e-12 < p < 1e-10
    with pytest.raises(ValueError):
        stouffer([0.1], tails="both")
    with pytest.raises(ValueError):
        stouffer([0.1, 0.2], [1.0])


pvalues = st.lists(st.floats(1e-300, 1.0, exclude_max=True), min_size=1, max_size=9)


@settings(max_examples=200, deadline=None)
@given(p=pvalues, weighted=st.booleans(), data=st.data())
def test_equals_scipy(p, weighted, data):
    from scipy.stats import combine_pvalues

    weights = data.draw(st.lists(st.floats(0.1, 10), min_size=len(p), max_size=len(p))) if weighted else None
    z, combined = stouffer(p, weights)
    expected = combine_pvalues(p, method="stouffer", weights=weights)
    assert z == pytest.approx(float(expected.statistic), rel=1e-12, abs=1e-12)
    assert combined == pytest.approx(float(expected.pvalue), rel=1e-9, abs=1e-300)


@settings(max_examples=200, deadline=None)
@given(p=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=7))
def test_complement_tails_are_wmt24s_arithmetic(p):
    from scipy import stats

    # tools.py: z_scores = [stats.norm.ppf(1 - p) for p in pvalues]; Z = np.sum(z_scores) / np.sqrt(len(pvalues));
    # pvalue = 1 - stats.norm.cdf(Z)
    with np.errstate(invalid="ignore"):
        z_scores = [stats.norm.ppf(1 - v) for v in p]
        combined = np.sum(z_scores) / np.sqrt(len(p))
        expected = 1 - stats.norm.cdf(combined)
    ours = stouffer(p, tails="complement")[1]
    assert (math.isnan(ours) and math.isnan(expected)) or ours == expected
