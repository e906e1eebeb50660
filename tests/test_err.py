"""Expected Reciprocal Rank (Avramidis 2013 §3.4, Algorithm 1; docs/definitions.md#ndcg)."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from rankeval_cli.errors import DataError
from rankeval_cli.measures.err import err, mean_err, parse_rel_max
from slow_rank_measures import compare, fast_values, make_batch, random_groups

NAN = math.nan


# ---- hand-computed ------------------------------------------------------------------------
# gold ranks [1, 2, 3]: n = 3, rel = [3, 2, 1], rel_max = n = 3:
# R = (2^rel - 1)/2^3 = [7/8, 3/8, 1/8]. Predicted [1, 1, 2]: items 1, 2 tie at positions 1-2.

def test_err_hand_pessimistic():
    # order item 2 (3/8), item 1 (7/8), item 3 (1/8):
    # 3/8 + (1/2)(5/8)(7/8) + (1/3)(5/8)(1/8)(1/8) = 0.375 + 0.2734375 + 0.00325520833...
    value = 3 / 8 + (1 / 2) * (5 / 8) * (7 / 8) + (1 / 3) * (5 / 8) * (1 / 8) * (1 / 8)
    assert err([1, 2, 3], [1, 1, 2]) == pytest.approx(value, rel=1e-15)
    assert value == pytest.approx(0.6516927083, rel=1e-9)


def test_err_hand_optimistic():
    # 7/8 + (1/2)(1/8)(3/8) + (1/3)(1/8)(5/8)(1/8) = 0.875 + 0.0234375 + 0.00325520833...
    value = 7 / 8 + (1 / 2) * (1 / 8) * (3 / 8) + (1 / 3) * (1 / 8) * (5 / 8) * (1 / 8)
    assert err([1, 2, 3], [1, 1, 2], tie_policy="optimistic") == pytest.approx(value, rel=1e-15)


def test_err_hand_expected():
    # a block of 2: both orders equally likely, so the mean of the two values above
    low = 3 / 8 + (1 / 2) * (5 / 8) * (7 / 8) + (1 / 3) * (5 / 8) * (1 / 8) * (1 / 8)
    high = 7 / 8 + (1 / 2) * (1 / 8) * (3 / 8) + (1 / 3) * (1 / 8) * (5 / 8) * (1 / 8)
    assert err([1, 2, 3], [1, 1, 2], tie_policy="expected") == pytest.approx((low + high) / 2, rel=1e-15)


def test_err_cutoff():
    # ERR@1 of the pessimistic order = R of the first item = 3/8
    assert err([1, 2, 3], [1, 1, 2], k=1) == 3 / 8
    # expected ERR@1 = mean R of the tied block = (7/8 + 3/8)/2 = 5/8
    assert err([1, 2, 3], [1, 1, 2], k=1, tie_policy="expected") == 5 / 8


@pytest.mark.parametrize("rel_max,value", [
    # grades [2, 1, 0] in predicted order
    ("scale:4", 3 / 16 + (1 / 2) * (13 / 16) * (1 / 16)),  # R = 3/16, 1/16, 0 (Chapelle, Yahoo!: 2^4)
    (None, 3 / 16 + (1 / 2) * (13 / 16) * (1 / 16)),  # default for grades = scale:4
    ("list-max", 3 / 4 + (1 / 2) * (1 / 4) * (1 / 4)),  # R = 3/4, 1/4, 0
    ("n", 3 / 8 + (1 / 2) * (5 / 8) * (1 / 8)),  # R = 3/8, 1/8, 0
    ("scale:2", 3 / 4 + (1 / 2) * (1 / 4) * (1 / 4)),
])
def test_err_rel_max_choices(rel_max, value):
    assert err([2, 1, 0], [1, 2, 3], relevance="grades", rel_max=rel_max) == pytest.approx(value, rel=1e-15)


def test_rel_max_parsing_and_scale_overflow():
    assert parse_rel_max(None, "ranks") == ("n", None)
    assert parse_rel_max("scale:4") == ("scale", 4.0)
    for bad in ("scale:", "scale:0", "max", "scale:x"):
        with pytest.raises(ValueError):
            parse_rel_max(bad)
    with pytest.raises(DataError, match="exceeds the scale top 4"):
        err([5, 1], [1, 2], relevance="grades")


def test_err_original_tool_value_without_ties():
    # original RankEval: R = (2^l - 1)/2^n with l = n - rank + 1, Algorithm 1, no ties.
    # gold [2, 1, 3], predicted [1, 2, 3] -> R in predicted order: 3/8, 7/8, 1/8
    value = 3 / 8 + (1 / 2) * (5 / 8) * (7 / 8) + (1 / 3) * (5 / 8) * (1 / 8) * (1 / 8)
    assert err([2, 1, 3], [1, 2, 3]) == pytest.approx(value, rel=1e-15)


def test_mean_err_summary():
    groups = [([1, 2], [1, 2]), ([NAN], [1]), ([1, 2], [2, 1])]
    summary = mean_err([make_batch(groups)])
    # group 1: 3/4 + (1/2)(1/4)(1/4) = 0.78125; group 3: 1/4 + (1/2)(3/4)(3/4) = 0.53125
    assert summary.mean == pytest.approx((0.78125 + 0.53125) / 2, rel=1e-15)
    assert (summary.defined, summary.undefined, summary.blanks) == (2, 1, 1)


# ---- against the slow reference -----------------------------------------------------------

@pytest.mark.parametrize("policy", ["pessimistic", "optimistic", "expected"])
@pytest.mark.parametrize("k", [None, 2, 5])
def test_err_matches_slow_reference(policy, k):
    rng = np.random.default_rng(3000 + (k or 0))
    groups = random_groups(rng, 1200, max_size=8)
    groups += random_groups(rng, 200, max_size=40, pred_levels=40, gold_levels=10)
    compare("err", groups, policy, k=k)
    compare("err", groups, policy, missing_pred="last", k=k)
    compare("err", groups, policy, k=k, rel_max="list-max")
    grades = random_groups(rng, 1000, max_size=8, grades=True, gold_levels=5)
    compare("err", grades, policy, relevance="grades", k=k)
    compare("err", grades, policy, relevance="grades", k=k, rel_max="scale:6")


def _exact_expected_block_err(stops, start, k=None):
    """E over all orders of one block, by the symmetric-function identity written directly:
    E = Σ_a R_a · (1/m) Σ_j e_j(x without a) / C(m-1, j) / (start + j), x = 1 - R (Fractions);
    with a cut-off k only positions start + j <= k count."""
    m = len(stops)
    total = Fraction(0)
    for a, r_a in enumerate(stops):
        others = [1 - r for b, r in enumerate(stops) if b != a]
        coeffs = [Fraction(1)]  # polynomial Π (1 + x z): coefficients are e_j
        for x in others:
            coeffs = [c + (x * coeffs[i - 1] if i else 0) for i, c in enumerate(coeffs + [Fraction(0)])]
        for j, e_j in enumerate(coeffs):
            if k is not None and start + j > k:
                break
            total += r_a * Fraction(1, m) * e_j / math.comb(m - 1, j) / (start + j)
    return total


def test_expected_err_in_a_large_block_matches_exact_fractions():
    # block of 14 tied items after one item with rel 3; R from grades with scale 4
    grades = [3] + [0, 1, 2, 3, 4, 1, 1, 0, 2, 4, 3, 0, 1, 2]
    pred = [1] + [2] * 14
    stops = [Fraction(2 ** g - 1, 16) for g in grades]
    exact = stops[0] + (1 - stops[0]) * _exact_expected_block_err(stops[1:], 2)
    got = err(grades, pred, relevance="grades", tie_policy="expected")
    assert got == pytest.approx(float(exact), rel=1e-13)


def test_exact_block_helper_against_enumeration():
    # the Fraction helper itself, on a block small enough to enumerate
    stops = [Fraction(1, 3), Fraction(1, 2), Fraction(1, 5), Fraction(0)]
    values = []
    for order in itertools.permutations(stops):
        p, total = Fraction(1), Fraction(0)
        for j, r in enumerate(order):
            total += p * r / (2 + j)
            p *= 1 - r
        values.append(total)
    assert _exact_expected_block_err(stops, 2) == sum(values) / len(values)


def test_expected_err_blocks_of_different_sizes_in_one_batch():
    # blocks of 17, 25 and 32 tied items share one size bucket (padded to 32), with a cut-off
    # inside the longest block for the second check
    rng = np.random.default_rng(21)
    groups, exact_all, exact_k = [], [], []
    for m in (17, 25, 32, 3):
        grades = [int(g) for g in rng.integers(0, 5, m + 1)]
        groups.append(([float(g) for g in grades], [1.0] + [2.0] * m))
        stops = [Fraction(2 ** g - 1, 16) for g in grades]
        exact_all.append(stops[0] + (1 - stops[0]) * _exact_expected_block_err(stops[1:], 2))
    got = fast_values("err", make_batch(groups), "expected", relevance="grades")
    np.testing.assert_allclose(got, [float(v) for v in exact_all], rtol=1e-13)
    # ERR@10 against the mean over random orders computed by the slow reference is too costly
    # here; instead check the cut-off against the same exact helper restricted to positions <= 10
    for (grades, pred) in groups:
        stops = [Fraction(2 ** int(g) - 1, 16) for g in grades]
        exact_k.append(stops[0] + (1 - stops[0]) * _exact_expected_block_err(stops[1:], 2, k=10))
    got_k = fast_values("err", make_batch(groups), "expected", relevance="grades", k=10)
    np.testing.assert_allclose(got_k, [float(v) for v in exact_k], rtol=1e-13)
