"""Tukey's HSD over all pairs: the parametric test by hand and through the studentized range's
identity with the paired t-test at m = 2; the randomized test against the exact permutation
distribution (every joint permutation of a small matrix), identical for any number of jobs."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.stats as st

from rankeval_cli.stats import topic_tests as pq
from rankeval_cli.stats import tukey

HAND = [[1, 2, 3, 4], [2, 3, 4, 5], [3, 5, 4, 6]]


def test_parametric_by_hand():
    # V_E = 2/9 with φ_E = 6 (test_anova); n = 4: √(V_E/n) = √(1/18); means 2.5, 3.5, 4.5
    result = tukey.tukey_hsd(HAND)
    q = math.sqrt(18)
    assert result.q[0, 1] == pytest.approx(q) and result.q[0, 2] == pytest.approx(2 * q)
    assert result.p[0, 1] == pytest.approx(st.studentized_range.sf(q, 3, 6), rel=1e-9)
    assert result.p[0, 2] == pytest.approx(st.studentized_range.sf(2 * q, 3, 6), rel=1e-9)
    assert result.p[1, 0] == result.p[0, 1] and math.isnan(result.p[1, 1]) and result.df == 6


@pytest.mark.parametrize("n", [3, 8, 30])
def test_two_systems_is_the_paired_t_test(n):
    """m = 2: V_E = s_d²/2, so q = |d̄|/√(s_d²/(2n)) = √2·|t| and P(Q_{2,ν} ≥ √2 t) = P(|T_ν| ≥ t)."""
    rng = np.random.default_rng(n)
    x = rng.random((2, n))
    assert tukey.tukey_hsd(x).p[0, 1] == pytest.approx(pq.paired_t(x[1], x[0])[1], rel=1e-6)


def _exact_randomized_p(x):
    """#{joint permutations of the topics' values: range of means ≥ |x̄_i − x̄_j|} / (m!)^n."""
    x = np.asarray(x, dtype=float)
    m, n = x.shape
    means = x.mean(axis=1)
    perms = list(itertools.permutations(range(m)))
    columns = [[x[list(p), j] for p in perms] for j in range(n)]
    ranges = []
    for choice in itertools.product(*columns):
        totals = np.sum(choice, axis=0) / n
        ranges.append(totals.max() - totals.min())
    ranges = np.array(ranges)
    return {(i, j): float((ranges >= abs(means[i] - means[j]) - 1e-12).mean())
            for i in range(m) for j in range(i + 1, m)}


def test_randomized_against_the_exact_permutation_distribution():
    rng = np.random.default_rng(4)
    x = np.round(rng.random((3, 4)), 2)
    exact = _exact_randomized_p(x)  # 6^4 = 1296 joint permutations
    trials = 20000
    result = tukey.randomized_tukey_hsd(x, trials, seed=9)
    for (i, j), p in exact.items():
        # Monte Carlo: p̂ ~ Binomial(B, p)/B; five standard errors, plus the +1s of (1 + c)/(1 + B)
        tolerance = 5 * math.sqrt(p * (1 - p) / trials) + 1 / trials
        assert abs(result.p[i, j] - p) <= tolerance, ((i, j), result.p[i, j], p)
    hand = _exact_randomized_p(HAND)
    assert hand[(0, 2)] < hand[(0, 1)] <= 1


def test_randomized_is_the_same_for_any_jobs_and_chunking():
    x = np.random.default_rng(2).random((5, 40))
    one = tukey.randomized_tukey_hsd(x, 450, seed=3, jobs=1)
    two = tukey.randomized_tukey_hsd(x, 450, seed=3, jobs=2)
    np.testing.assert_array_equal(one.p, two.p)
    assert not np.array_equal(one.p, tukey.randomized_tukey_hsd(x, 450, seed=4).p)


def test_identical_systems():
    x = np.tile(np.random.default_rng(0).random(10), (3, 1))
    assert np.all(tukey.randomized_tukey_hsd(x, 99, 1).p[np.triu_indices(3, 1)] == 1.0)
    assert np.all(tukey.tukey_hsd(x).p[np.triu_indices(3, 1)] == 1.0)  # equal means: no evidence
