"""``rankeval tau --epsilon E`` and ``--min-diff D`` against pair-by-pair loops; defaults unchanged."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from click.testing import CliRunner

from rankeval_cli.cli import main
from rankeval_cli.measures.tau import tau


def random_groups(seed, n_groups=12):
    rng = np.random.default_rng(seed)
    groups = []
    for g in range(n_groups):
        n = int(rng.integers(1, 8))
        gold = rng.integers(0, 60, n).astype(float)
        pred = np.round(gold / 20 + rng.normal(0, 1, n), 1)
        if n > 2 and g % 3 == 0:
            pred[0] = np.nan
        groups.append((gold, pred))
    return groups


def as_tsv(groups):
    lines = ["group\titem\tgold\tpred"]
    for g, (gold, pred) in enumerate(groups):
        for i, (x, y) in enumerate(zip(gold, pred)):
            lines.append(f"g{g}\ti{i}\t{float(x)!r}\t{'' if math.isnan(y) else repr(float(y))}")
    return "\n".join(lines) + "\n"


def slow_counts(gold, pred, epsilon, min_diff):
    c = dict.fromkeys(("C", "D", "T_h", "T_m", "T_hm"), 0)
    pts = [(g, p) for g, p in zip(gold, pred) if not (math.isnan(g) or math.isnan(p))]
    for (g1, p1), (g2, p2) in itertools.combinations(pts, 2):
        if min_diff is not None and abs(g1 - g2) < min_diff:
            continue
        gt, pt = g1 == g2, abs(p1 - p2) <= epsilon
        c["T_hm" if gt and pt else "T_h" if gt else "T_m" if pt else "C" if (g1 - g2) * (p1 - p2) > 0 else "D"] += 1
    return c


FORMULAS = {
    "penalize": lambda C, D, T_h, T_m, T_hm: (C - D - T_m, C + D + T_m),
    "b": lambda C, D, T_h, T_m, T_hm: (C - D, math.sqrt((C + D + T_h) * (C + D + T_m))),
    "acc-eq": lambda C, D, T_h, T_m, T_hm: (C + T_hm, C + D + T_h + T_m + T_hm),
}


def summary(args, groups):
    result = CliRunner().invoke(main, ["tau", "--higher-better", "--average", "both", *args], input=as_tsv(groups))
    assert result.exit_code == 0, result.output
    header, row = result.output.splitlines()[:2]
    return dict(zip(header.split("\t"), row.split("\t")))


@pytest.mark.parametrize("variant", list(FORMULAS))
@pytest.mark.parametrize("epsilon,min_diff", [(0.25, None), (None, 10.0), (0.5, 20.0)])
def test_cli_against_pair_loops(variant, epsilon, min_diff):
    groups = random_groups(1)
    args = ["--tau-variant", variant]
    if epsilon is not None:
        args += ["--epsilon", str(epsilon)]
    if min_diff is not None:
        args += ["--min-diff", str(min_diff)]
    got = summary(args, groups)
    counts = [slow_counts(g, p, epsilon or 0.0, min_diff) for g, p in groups]
    pooled = {k: sum(c[k] for c in counts) for k in counts[0]}
    num, den = FORMULAS[variant](**pooled)
    assert float(got["micro"]) == pytest.approx(num / den, abs=1e-12)
    taus = [n / d for n, d in (FORMULAS[variant](**c) for c in counts) if d]
    assert float(got["macro"]) == pytest.approx(sum(taus) / len(taus), abs=1e-12)
    assert {k: int(got[k]) for k in pooled} == pooled
    assert got["p_independence"] == "nan"
    for g, p in groups:
        c = slow_counts(g, p, epsilon or 0.0, min_diff)
        n, d = FORMULAS[variant](**c)
        assert tau(g, p, variant, epsilon=epsilon or 0.0, min_diff=min_diff) == pytest.approx(
            n / d if d else math.nan, abs=1e-12, nan_ok=True)


def test_defaults_unchanged_and_zero_thresholds_equal_plain_counts():
    groups = random_groups(2)
    plain = summary(["--tau-variant", "b"], groups)
    assert summary(["--tau-variant", "b", "--epsilon", "0"], groups)["micro"] == plain["micro"]
    zero = summary(["--tau-variant", "b", "--min-diff", "0"], groups)
    assert (zero["micro"], zero["macro"]) == (plain["micro"], plain["macro"])


def test_calibration_with_min_diff_and_usage_errors():
    groups = random_groups(3)
    got = summary(["--tau-variant", "acc-eq", "--average", "macro", "--calibrate-ties", "--min-diff", "10"], groups)
    eps = float(got["epsilon"])
    again = summary(["--tau-variant", "acc-eq", "--epsilon", repr(eps), "--min-diff", "10"], groups)
    assert float(got["macro"]) == pytest.approx(float(again["macro"]), abs=1e-12)
    runner = CliRunner()
    for args in (["--tau-variant", "c", "--epsilon", "1"], ["--tau-variant", "acc-eq", "--average", "macro",
                                                            "--calibrate-ties", "--epsilon", "1"],
                 ["--epsilon", "-1"]):
        assert runner.invoke(main, ["tau", *args], input=as_tsv(groups)).exit_code == 2
