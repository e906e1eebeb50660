"""The Wilcoxon signed-rank test (aggregate.signed_rank).

Checked against: cases worked by hand from the definition (Wilcoxon 1945); a slow
implementation that enumerates the 2^m sign patterns; scipy.stats.wilcoxon of the
installed scipy (the ``auto`` rule, scipy >= 1.15) on random differences; and p-values
printed by scipy 1.13.1 (the ``scipy-1.14`` rule WMT24 ran), committed in
tests/data/signed-rank.scipy-1.13.1.json.
"""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval_cli.aggregate.signed_rank import signed_rank

DATA = Path(__file__).resolve().parent / "data"
ALTERNATIVES = ("two-sided", "greater", "less")


def close(ours: float, theirs: float) -> bool:
    if math.isnan(theirs):
        return math.isnan(ours)
    return abs(ours - theirs) <= 1e-15 or abs(ours - theirs) <= 1e-12 * abs(theirs)


# ---- by hand ---------------------------------------------------------------------------------------

def test_untied_by_hand():
    # ranks 1, 2, 3; T+ = 1 + 3 = 4; the 8 sign patterns give T+ = 0 1 2 3 3 4 5 6
    assert signed_rank([1.0, -2.0, 3.0]) == (4.0, 0.75)  # 2 min(3/8, 6/8)
    assert signed_rank([1.0, -2.0, 3.0], "greater") == (4.0, 0.375)
    assert signed_rank([1.0, -2.0, 3.0], "less") == (4.0, 0.75)
    # every sign positive: T+ = 6, the one pattern of 8 at the top
    assert signed_rank([3.0, 1.0, 2.0], "greater") == (6.0, 0.125)
    assert signed_rank([3.0, 1.0, 2.0]) == (6.0, 0.25)


def test_ties_and_the_two_rules_by_hand():
    d = [1.0, 2.0, 2.0, 3.0, -1.0]
    # |d| ranks: the 1s share 1.5, the 2s share 3.5, the 3 is 5: T+ = 1.5 + 3.5 + 3.5 + 5 = 13.5
    # mid-rank distribution: P(T+ >= 13.5) = P(T- <= 1.5) = #{ {}, {1.5}, {1.5} } / 32 = 3/32
    assert signed_rank(d, method="exact") == (13.5, 6 / 32)
    assert signed_rank(d) == (13.5, 6 / 32)  # n <= 13 with ties: the enumeration (scipy >= 1.15)
    assert signed_rank([-v for v in d]) == (1.5, 6 / 32)
    # scipy <= 1.14: the table of untied ranks 1..5 at floor(13.5) = 13: P(T >= 13) = #{sum <= 2}/32
    # = 3/32; for -d, T+ = 1.5 -> 1: P(T <= 1) = 2/32: the two directions differ
    assert signed_rank(d, method="scipy-1.14") == (13.5, 6 / 32)
    assert signed_rank([-v for v in d], method="scipy-1.14") == (1.5, 4 / 32)
    # asymptotic: m = 5, E = 7.5, Var = 5*6*11/24 - (6 + 6)/48 = 13.5
    z = (13.5 - 7.5) / math.sqrt(13.5)
    assert signed_rank(d, method="asymptotic")[1] == pytest.approx(math.erfc(z / math.sqrt(2)), rel=1e-14)
    assert signed_rank(d, "greater", "asymptotic")[1] == pytest.approx(math.erfc(z / math.sqrt(2)) / 2, rel=1e-14)


def test_zeros_empty_and_all_zero():
    # zeros are dropped (Wilcoxon's rule): the same T+ and exact p as without them
    assert signed_rank([0.0, 1.0, -2.0, 3.0], method="exact") == (4.0, 0.75)
    assert math.isnan(signed_rank([])[1])
    assert signed_rank([0.0, 0.0, 0.0]) == (0.0, 1.0)  # n <= 13: the enumeration, every T+ = 0
    assert math.isnan(signed_rank([0.0] * 20)[1])  # asymptotic: 0/0
    assert math.isnan(signed_rank([0.0, 0.0], method="scipy-1.14")[1])  # scipy <= 1.14 raised an error
    with pytest.raises(ValueError):
        signed_rank([1.0], method="nonesuch")
    with pytest.raises(ValueError):
        signed_rank([1.0], alternative="both")


# ---- a slow implementation -------------------------------------------------------------------------

def slow_signed_rank(d, alternative: str, rule: str) -> float:
    """Every sign pattern of the ranks enumerated (mid-ranks for 'exact', 1..m for scipy-1.14)."""
    nonzero = [v for v in d if v != 0]
    m = len(nonzero)
    order = sorted(abs(v) for v in nonzero)
    ranks = [Fraction(2 * order.index(abs(v)) + order.count(abs(v)) + 1, 2) for v in nonzero]
    t = sum(r for r, v in zip(ranks, nonzero) if v > 0)
    if rule == "scipy-1.14":
        ranks, t = list(range(1, m + 1)), math.floor(t)
    sums = [sum(r for r, keep in zip(ranks, signs) if keep) for signs in itertools.product((0, 1), repeat=m)]
    upper = Fraction(sum(s >= t for s in sums), len(sums))
    lower = Fraction(sum(s <= t for s in sums), len(sums))
    p = {"greater": upper, "less": lower, "two-sided": min(Fraction(1), 2 * min(upper, lower))}[alternative]
    return float(p)


small_differences = st.lists(st.integers(-4, 4).map(float), min_size=1, max_size=11)


@settings(max_examples=150, deadline=None)
@given(d=small_differences, alternative=st.sampled_from(ALTERNATIVES))
def test_exact_equals_the_enumeration(d, alternative):
    assert signed_rank(d, alternative, "exact")[1] == slow_signed_rank(d, alternative, "exact")
    if 0.0 not in d:
        assert signed_rank(d, alternative, "scipy-1.14")[1] == slow_signed_rank(d, alternative, "scipy-1.14")


# ---- scipy ---------------------------------------------------------------------------------------

differences = st.one_of(
    st.lists(st.integers(-6, 6).map(float), min_size=1, max_size=70),  # many ties and zeros
    st.lists(st.floats(-50, 50, allow_nan=False).map(lambda v: round(v, 2)), min_size=1, max_size=70))


@settings(max_examples=300, deadline=None)
@given(d=differences, alternative=st.sampled_from(ALTERNATIVES))
def test_auto_equals_scipy(d, alternative):
    import warnings

    from scipy.stats import wilcoxon

    if d == [0.0]:  # scipy >= 1.15 refuses one zero difference; here p = 1 (the enumeration)
        assert signed_rank(d, alternative)[1] == 1.0
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = float(wilcoxon(d, alternative=alternative).pvalue)
    assert close(signed_rank(d, alternative)[1], expected), (d, expected)


@settings(max_examples=100, deadline=None)
@given(d=differences, alternative=st.sampled_from(ALTERNATIVES))
def test_asymptotic_equals_scipy(d, alternative):
    import warnings

    from scipy.stats import wilcoxon

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = float(wilcoxon(d, alternative=alternative, method="asymptotic").pvalue)
    assert close(signed_rank(d, alternative, "asymptotic")[1], expected), (d, expected)


def test_scipy_1_14_rule_equals_scipy_1_13_1():
    table = json.loads((DATA / "signed-rank.scipy-1.13.1.json").read_text())
    assert table["scipy"] == "1.13.1"
    exact_with_ties = asymmetric = 0
    for case in table["cases"]:
        d = case["d"]
        for alternative in ALTERNATIVES:
            expected = math.nan if case[alternative] is None else case[alternative]
            assert close(signed_rank(d, alternative, "scipy-1.14")[1], expected), (d, alternative)
        nonzero = np.abs([v for v in d if v])
        if len(d) <= 50 and len(nonzero) == len(d) and len(np.unique(nonzero)) < len(d):
            exact_with_ties += 1
            flipped = signed_rank([-v for v in d], "two-sided", "scipy-1.14")[1]
            asymmetric += flipped != case["two-sided"]
    assert exact_with_ties >= 20 and asymmetric >= 5  # the table exercises the rule's quirk
