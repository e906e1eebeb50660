"""The one-sided Wilcoxon rank-sum (Mann-Whitney U) test of aggregate --method z-score."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval_cli.aggregate.ranksum import asymptotic_sf, exact_sf, ranksum_greater, u_counts


def test_every_x_above_every_y_by_hand():
    # U counts the pairs x > y: all 3 * 2; exactly one of the C(5, 2) = 10 arrangements gets U = 6
    u, p = ranksum_greater([3.0, 4.0, 5.0], [1.0, 2.0])
    assert (u, p) == (6.0, 0.1)
    assert ranksum_greater([3.0, 4.0, 5.0], [1.0, 2.0], "exact") == (6.0, 0.1)


def test_u_distribution_by_hand():
    # n1 = n2 = 2: the 6 arrangements of {x, x, y, y} give U = 0, 1, 2, 2, 3, 4
    assert u_counts(2, 2) == [1, 1, 2, 1, 1]
    # n1 = 3, n2 = 2: the 10 arrangements give U = 0..6 with counts 1, 1, 2, 2, 2, 1, 1
    assert u_counts(3, 2) == u_counts(2, 3) == [1, 1, 2, 2, 2, 1, 1]
    assert exact_sf(3, 2, 2) == pytest.approx(2 / 6) and exact_sf(4, 2, 2) == pytest.approx(1 / 6)
    assert exact_sf(0, 2, 2) == 1.0 and exact_sf(5, 2, 2) == 0.0


def test_asymptotic_with_ties_by_hand():
    # x = [2, 3], y = [1, 1, 2]: ranks 1.5 1.5 3.5 3.5 5, R1 = 3.5 + 5 = 8.5, U = 8.5 - 3 = 5.5;
    # ties of sizes 2 and 2: sum(t^3 - t) = 12; sigma^2 = 2*3/12 * (6 - 12/20) = 2.7;
    # z = (5.5 - 3 - 0.5) / sqrt(2.7); p = 1 - Phi(z)
    u, p = ranksum_greater([2.0, 3.0], [1.0, 1.0, 2.0])
    z = 2 / math.sqrt(2.7)
    assert u == 5.5
    assert p == pytest.approx(0.5 * math.erfc(z / math.sqrt(2)), rel=1e-14)
    assert asymptotic_sf(5.5, 2, 3, 12.0) == p


def test_all_tied_and_empty_samples():
    assert ranksum_greater([1.0, 1.0], [1.0, 1.0, 1.0]) == (3.0, 1.0)  # no evidence either way
    u, p = ranksum_greater([], [1.0])
    assert math.isnan(u) and math.isnan(p)
    with pytest.raises(ValueError):
        ranksum_greater([1.0], [2.0], "permutation")


def slow_exact_sf(x, y) -> float:
    """P(U >= u) by listing every way to choose which n1 of the pooled values are x."""
    pooled = list(x) + list(y)
    n1 = len(x)

    def u_of(xs, ys):
        return sum(1.0 if a > b else 0.5 if a == b else 0.0 for a in xs for b in ys)

    observed = u_of(x, y)
    hits = total = 0
    for chosen in itertools.combinations(range(len(pooled)), n1):
        rest = [pooled[i] for i in range(len(pooled)) if i not in chosen]
        total += 1
        hits += u_of([pooled[i] for i in chosen], rest) >= observed
    return hits / total


@settings(max_examples=150, deadline=None)
@given(x=st.lists(st.integers(-1000, 1000), min_size=1, max_size=6, unique=True),
       y=st.lists(st.integers(-1000, 1000), min_size=1, max_size=6, unique=True))
def test_exact_equals_enumeration(x, y):
    if set(x) & set(y):
        return  # the exact distribution is for untied samples
    u, p = ranksum_greater(np.array(x, float), np.array(y, float), "exact")
    assert p == pytest.approx(slow_exact_sf(x, y), rel=1e-12)


def test_equals_scipy_on_random_samples():
    from scipy.stats import mannwhitneyu

    rng = np.random.default_rng(7)
    for _ in range(1500):
        n1, n2 = rng.integers(1, 25, size=2)
        if rng.random() < 0.5:
            x, y = rng.normal(size=n1), rng.normal(0.4, size=n2)
        else:  # DA-like integer scores: many ties
            x, y = rng.integers(0, 6, size=n1).astype(float), rng.integers(0, 6, size=n2).astype(float)
        tied = len(np.unique(np.concatenate([x, y]))) < n1 + n2
        for method in ("auto", "asymptotic") + (() if tied else ("exact",)):
            u, p = ranksum_greater(x, y, method)
            expected = mannwhitneyu(x, y, alternative="greater", method=method)
            assert u == expected.statistic
            assert p == pytest.approx(expected.pvalue, rel=1e-12, abs=1e-300)


def test_large_exact_counts_stay_exact():
    # n1 = 8, n2 = 400: C(408, 8) > 2**53; the counts are Python integers, the p correctly rounded
    counts = u_counts(8, 400)
    assert sum(counts) == math.comb(408, 8)
    assert counts == counts[::-1]  # U and n1*n2 - U are equally likely
