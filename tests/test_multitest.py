"""Corrections for multiple comparisons against statsmodels' ``multipletests`` and by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from rankeval_cli.stats.multitest import adjust

statsmodels = pytest.importorskip("statsmodels.stats.multitest")
METHODS = {"bonferroni": "bonferroni", "holm": "holm", "bh": "fdr_bh", "by": "fdr_by"}


def test_by_hand():
    p = [0.01, 0.04, 0.03, 0.005]
    # sorted 0.005, 0.01, 0.03, 0.04 (m = 4)
    assert adjust(p, "bonferroni") == pytest.approx([0.04, 0.16, 0.12, 0.02])
    # Holm: 4·0.005, 3·0.01, 2·0.03, 1·0.04, running maximum
    assert adjust(p, "holm") == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # BH: 4p/rank = 0.02, 0.02, 0.04, 0.04, running minimum from the top
    assert adjust(p, "bh") == pytest.approx([0.02, 0.04, 0.04, 0.02])
    # BY: BH times 1 + 1/2 + 1/3 + 1/4 = 25/12
    assert adjust(p, "by") == pytest.approx([0.02 * 25 / 12, 0.04 * 25 / 12, 0.04 * 25 / 12, 0.02 * 25 / 12])
    assert adjust(p, "none") == p


@settings(max_examples=120, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=30), st.sampled_from(sorted(METHODS)))
def test_equal_statsmodels(p, method):
    from statsmodels.stats.multitest import multipletests

    expected = multipletests(p, method=METHODS[method])[1]
    assert adjust(p, method) == pytest.approx(expected.tolist(), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("method", sorted(METHODS))
def test_ties_and_nan(method):
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(3)
    p = np.round(rng.random(40), 1).tolist()  # many ties
    assert adjust(p, method) == pytest.approx(multipletests(p, method=METHODS[method])[1].tolist(), rel=1e-12)
    with_nan = p[:5] + [math.nan] + p[5:]
    out = adjust(with_nan, method)
    assert math.isnan(out[5]) and out[:5] + out[6:] == pytest.approx(adjust(p, method))


def test_unknown_method():
    with pytest.raises(ValueError, match="unknown correction"):
        adjust([0.1], "sidak")
