"""The ANOVA of a systems × topics matrix: a table computed by hand, and statsmodels' OLS
ANOVA and AnovaRM (repeated measures: topics are the subjects) on random matrices."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as hst

from rankeval_cli.stats import anova

pd = pytest.importorskip("pandas")
pytest.importorskip("statsmodels")

HAND = [[1, 2, 3, 4], [2, 3, 4, 5], [3, 5, 4, 6]]


def test_two_way_by_hand():
    # system means 2.5, 3.5, 4.5; topic means 2, 10/3, 11/3, 5; grand mean 3.5
    t = anova.two_way(HAND)
    assert t.ss_systems == pytest.approx(8)  # 4 · (1 + 0 + 1)
    assert t.ss_topics == pytest.approx(13.5 + 1 / 6)  # 3 · (2.25 + 1/36 + 1/36 + 2.25)
    assert t.ss_residual == pytest.approx(23 - 8 - 13.5 - 1 / 6)  # total 9 + 5 + 9
    assert (t.df_systems, t.df_topics, t.df_residual) == (2, 3, 6)
    assert t.residual_variance == pytest.approx(2 / 9) and t.f == pytest.approx(18)
    one = anova.one_way(HAND)
    assert (one.ss_within, one.df_within, one.within_variance) == (pytest.approx(15), 9, pytest.approx(15 / 9))


def _long(x):
    m, n = x.shape
    return pd.DataFrame({"value": x.ravel(), "system": np.repeat([f"s{i}" for i in range(m)], n),
                         "topic": np.tile([f"t{j}" for j in range(n)], m)})


@settings(max_examples=40, deadline=None)
@given(hst.integers(2, 7), hst.integers(2, 25), hst.integers(0, 10 ** 6))
def test_two_way_equals_statsmodels(m, n, seed):
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import AnovaRM, anova_lm

    x = np.random.default_rng(seed).random((m, n)) + np.linspace(0, 0.3, m)[:, None]
    ours = anova.two_way(x)
    table = anova_lm(smf.ols("value ~ C(system) + C(topic)", data=_long(x)).fit())
    assert ours.ss_systems == pytest.approx(table.loc["C(system)", "sum_sq"], rel=1e-9, abs=1e-12)
    assert ours.ss_topics == pytest.approx(table.loc["C(topic)", "sum_sq"], rel=1e-9, abs=1e-12)
    assert ours.ss_residual == pytest.approx(table.loc["Residual", "sum_sq"], rel=1e-9)
    assert ours.df_residual == table.loc["Residual", "df"]
    assert ours.residual_variance == pytest.approx(table.loc["Residual", "mean_sq"], rel=1e-9)
    assert ours.f == pytest.approx(table.loc["C(system)", "F"], rel=1e-9)
    rm = AnovaRM(_long(x), "value", "topic", within=["system"]).fit().anova_table
    assert ours.f == pytest.approx(rm.loc["system", "F Value"], rel=1e-9)
    assert ours.p == pytest.approx(rm.loc["system", "Pr > F"], rel=1e-7, abs=1e-15)


@settings(max_examples=40, deadline=None)
@given(hst.integers(2, 7), hst.integers(2, 25), hst.integers(0, 10 ** 6))
def test_one_way_equals_statsmodels(m, n, seed):
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    x = np.random.default_rng(seed).random((m, n))
    table = anova_lm(smf.ols("value ~ C(system)", data=_long(x)).fit())
    one = anova.one_way(x)
    assert one.within_variance == pytest.approx(table.loc["Residual", "mean_sq"], rel=1e-9)
    assert one.df_within == table.loc["Residual", "df"]


def test_refuses_incomplete_matrices():
    with pytest.raises(ValueError, match="every system and topic"):
        anova.two_way([[1.0, np.nan], [0.0, 1.0]])
