"""power held at its extremes: a power of 1e-300, variances of 1e-300 and 1e300, differences that
overflow, an alpha of 1e-300 end with a row or one usage line (exit 2), never a traceback or a
hang; and a hypothesis fuzz of its options."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st

from robust import fuzz_settings, invoke

EXTREMES = [["--variance", "0.04", "--difference", "0.05", "--power", "1e-300"],
            ["--variance", "1e-300", "--difference", "0.05"],
            ["--variance", "1e300", "--difference", "0.05"],
            ["--variance", "1e300", "--difference", "1e-300"],
            ["--variance", "0.04", "--difference", "1e-300"],
            ["--variance", "0.04", "--difference", "0.05", "--alpha", "1e-300"],
            ["--variance", "1e-300", "--difference", "1e300", "--design", "anova"],
            ["--variance", "0.04", "--difference", "0.05", "--power", "0.9999999999999999"],
            ["--variance", "0.04", "--difference", "0.05", "--design", "t,anova,ci", "--topics", "1000000000000"]]


def _power(args):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy or scipy warning may reach stderr
        return invoke(["power", *args])


@pytest.mark.parametrize("args", EXTREMES, ids=lambda a: " ".join(a[1::2]))
def test_extremes_end_in_a_row_or_one_usage_line(args):
    result = _power(args)
    assert result.exit_code in (0, 2), result.stderr
    if result.exit_code == 2:
        assert result.stderr.strip().splitlines()[-1].startswith("Error: ")


def test_a_tiny_variance_needs_two_topics():
    result = _power(["--variance", "1e-300", "--difference", "0.05", "--design", "t,anova,ci"])
    assert result.exit_code == 0
    assert [line.split("\t")[8] for line in result.stdout.splitlines()[1:]] == ["2", "2", "2"]


NUMBERS = st.sampled_from(["1e-300", "1e-30", "0.001", "0.04", "0.5", "1", "7", "1e30", "1e300", "nan", "inf", "-1",
                           "0", "abc"])
LEVELS = st.sampled_from(["1e-300", "0.001", "0.05", "0.5", "0.8", "0.999999", "0.9999999999999999", "1", "0", "nan"])


@fuzz_settings(40)
@given(variance=NUMBERS, difference=NUMBERS, alpha=LEVELS, power=LEVELS,
       design=st.sampled_from(["t", "anova", "ci", "t,anova,ci"]),
       topics=st.sampled_from([None, "2", "50", "1000000000000"]))
def test_fuzz_power_options(variance, difference, alpha, power, design, topics):
    args = ["--variance", variance, "--difference", difference, "--alpha", alpha, "--power", power, "--design", design]
    result = _power(args + (["--topics", topics] if topics else []))
    assert result.exit_code in (0, 2), result.stderr
