"""Rank normalization: the four tie modes (docs/definitions.md#normalization) against scipy's rankdata."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner
from scipy.stats import rankdata

from rankeval_cli.batch import offsets_from_sizes
from rankeval_cli.cli import main
from rankeval_cli.ranks import normalize_ranks

SCIPY_METHOD = {"minimize": "dense", "floor": "min", "ceiling": "max", "middle": "average"}


@pytest.mark.parametrize("mode, expected", [
    # Avramidis 2013 §3.6 on [a, b, b, c, d]; 'middle' as the definition gives it (the paper's
    # [1, 2.5, 2.5, 3, 4] is a typo, docs/definitions.md#normalization).
    ("minimize", [1, 2, 2, 3, 4]),
    ("floor", [1, 2, 2, 4, 5]),
    ("ceiling", [1, 3, 3, 4, 5]),
    ("middle", [1, 2.5, 2.5, 4, 5]),
])
def test_seed_example(mode, expected):
    values = np.array([10.0, 20.0, 20.0, 30.0, 40.0])
    np.testing.assert_array_equal(normalize_ranks(values, np.array([0, 5]), mode), expected)


def test_blanks_take_no_position_and_never_become_rank_one():
    values = np.array([np.nan, 3.0, 1.0, np.nan, 2.0])
    ranks = normalize_ranks(values, np.array([0, 5]), "ceiling")
    np.testing.assert_array_equal(ranks, [np.nan, 3, 1, np.nan, 2])


@pytest.mark.parametrize("mode", list(SCIPY_METHOD))
@pytest.mark.parametrize("higher_better", [False, True])
@pytest.mark.parametrize("blank_share", [0.1, 0.0])  # without blanks, short groups' ceiling ranks are counted
def test_equals_scipy_rankdata_per_group(mode, higher_better, blank_share):
    rng = np.random.default_rng(7)
    sizes = rng.integers(1, 9, size=2000)
    values = rng.integers(0, 4, size=sizes.sum()).astype(float)
    values[rng.random(len(values)) < blank_share] = np.nan
    offsets = offsets_from_sizes(sizes)
    got = normalize_ranks(values, offsets, mode, higher_better)
    for g in range(len(sizes)):
        v = values[offsets[g]:offsets[g + 1]]
        present = ~np.isnan(v)
        expected = np.full(len(v), np.nan)
        if present.any():
            expected[present] = rankdata(-v[present] if higher_better else v[present], method=SCIPY_METHOD[mode])
        np.testing.assert_array_equal(got[offsets[g]:offsets[g + 1]], expected)


def test_cli_keeps_rows_columns_and_order():
    text = "group\titem\tgold\tpred\tlp\ng\tb\t5\t0.9\tde\ng\ta\t-1\t0.1\tde\ng\tc\t5\t\tde\nh\tx\t2\t3\ten\n"
    result = CliRunner().invoke(main, ["normalize", "--ties", "floor", "--column", "pred", "--higher-better"],
                                input=text)
    assert result.exit_code == 0, result.output
    assert result.output == ("group\titem\tgold\tpred\tlp\ng\tb\t5\t1\tde\ng\ta\t-1\t2\tde\n"
                             "g\tc\t5\t\tde\nh\tx\t2\t1\ten\n")


def test_cli_bad_value_exits_1_with_location():
    result = CliRunner().invoke(main, ["normalize"], input="group\titem\tgold\tpred\ng\ta\tx\t1\n")
    assert result.exit_code == 1
    assert result.stderr.strip() == "rankeval: <stdin>:2: column 'gold': 'x' is not a finite number"
