"""rankeval agree and rankeval_cli.agreement: RBO with ties against the definitions (tests/slow_agreement.py),
the authors' reference values (Corsi & Urbano 2024), the expected value over random tie orders, the `rbo`
package; tau_AP against a brute-force reference; tau-b against scipy; the command line."""

from __future__ import annotations

import csv
import itertools
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from rankeval_cli.agreement import between
from rankeval_cli.agreement.rbo import Ranked, rbo
from rankeval_cli.cli import main

from slow_agreement import rbo_min_tie_free, slow_rbo, slow_tau_ap

DATA = Path(__file__).resolve().parent / "data" / "agreement"


def ranked(groups: list) -> Ranked:
    """A Ranked of tie groups of item names 'i<number>'."""
    items, top, bottom, r = [], [], [], 0
    for g in groups:
        for item in g:
            items.append(int(item[1:]))
            top.append(r)
            bottom.append(r + len(g) - 1)
        r += len(g)
    return Ranked(np.array(items, dtype=np.int64), np.array(top, dtype=np.int64), np.array(bottom, dtype=np.int64))


def parse(text: str) -> list:
    """The authors' notation: 'i1 (i2 i3) i4' -> [['i1'], ['i2', 'i3'], ['i4']]."""
    return [g[0].split() if g[0] else [g[1]] for g in re.findall(r"\(([^)]*)\)|(\w+)", text)]


def random_groups(rng, n: int, universe: int, tie_share: float) -> list:
    items = [f"i{int(i)}" for i in rng.choice(universe, n, replace=False)]
    groups, at = [], 0
    while at < n:
        size = int(rng.integers(2, 5)) if rng.random() < tie_share else 1
        groups.append(items[at:at + size])
        at += size
    return groups


# -- RBO -------------------------------------------------------------------------------------------

def test_rbo_equals_the_authors_reference_values():
    """300 rows of julian-urbano/sigir2024-rbo's rbo/test.csv (commit 463d6d51): every variant and score."""
    with open(DATA / "sigir2024-rbo-test.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 300
    for row in rows:
        x, y = ranked(parse(row["x"])), ranked(parse(row["y"]))
        for variant in "wab":
            got = rbo(x, y, float(row["p"]), variant)
            for score in ("ext", "min", "max", "res"):
                assert got[score] == pytest.approx(float(row[f"{variant}.{score}"]), abs=1e-13), (row, variant)


def test_rbo_equals_the_definitions_on_random_tied_lists():
    rng = np.random.default_rng(11)
    for _ in range(150):
        x = random_groups(rng, int(rng.integers(0, 25)), 40, 0.3)
        y = random_groups(rng, int(rng.integers(1, 25)), 40, 0.3)
        p = float(rng.uniform(0.3, 0.98))
        for variant in "wab":
            slow = slow_rbo(x, y, p, variant)
            got = rbo(ranked(x), ranked(y), p, variant)
            for score in ("ext", "min", "max", "res"):
                assert got[score] == pytest.approx(slow[score], rel=1e-12, abs=1e-13), (x, y, p, variant)


def test_rbo_a_is_the_mean_over_random_tie_orders():
    """RBO^a's min of equal-length lists is the mean of the tie-free RBO_min (Webber et al. 2010 eq. 11)
    over every order of the ties of both lists."""
    rng = np.random.default_rng(3)
    for _ in range(20):
        x, y = random_groups(rng, 7, 10, 0.4), random_groups(rng, 7, 10, 0.4)
        p = float(rng.uniform(0.5, 0.95))
        orders = lambda groups: [sum(map(list, combo), []) for combo in  # noqa: E731
                                 itertools.product(*[itertools.permutations(g) for g in groups])]
        values = [rbo_min_tie_free(a, b, p) for a in orders(x) for b in orders(y)]
        assert rbo(ranked(x), ranked(y), p, "a")["min"] == pytest.approx(sum(values) / len(values), rel=1e-12)


def test_rbo_equals_the_rbo_package_on_tie_free_lists_of_equal_length():
    """rbo 0.1.3 (PyPI; it pins numpy < 2, so its outputs are stored): RankingSimilarity.rbo(p, ext=True)
    is RBO_ext (Webber et al. 2010 eq. 32); .rbo(p) is the sum over the seen depths only, ext − (X_k/k) p^k."""
    cases = json.loads((DATA / "rbo-0.1.3.json").read_text())["cases"]
    for case in cases:
        x, y = [[d] for d in case["x"]], [[d] for d in case["y"]]
        xi = ranked([[f"i{int(d[0][1:])}"] for d in x])
        yi = ranked([[f"i{int(d[0][1:])}"] for d in y])
        got = rbo(xi, yi, case["p"], "a")
        k = len(case["x"])
        x_k = len(set(case["x"]) & set(case["y"]))
        assert got["ext"] == pytest.approx(case["rbo_ext"], rel=1e-12)
        assert got["ext"] - x_k / k * case["p"] ** k == pytest.approx(case["rbo"], rel=1e-12, abs=1e-15)


def test_rbo_by_hand_and_edge_cases():
    same = ranked([["i1"], ["i2"], ["i3"]])
    assert rbo(same, same, 0.9, "w")["ext"] == pytest.approx(1.0)
    assert rbo(same, same, 0.9, "w")["max"] == pytest.approx(1.0)  # the unseen rest may agree fully
    # min: nothing agrees beyond depth 3 (Webber et al. 2010 eq. 11): (1-p)/p (p + p^2 + p^3 + 3 (ln 10 - p - p^2/2 - p^3/3))
    p = 0.9
    expected = (1 - p) / p * (p + p ** 2 + p ** 3 + 3 * (math.log(10) - p - p ** 2 / 2 - p ** 3 / 3))
    assert rbo(same, same, p, "w")["min"] == pytest.approx(expected, rel=1e-12)
    tied = ranked([["i1", "i2"], ["i3"]])
    assert rbo(tied, tied, 0.9, "b")["ext"] == pytest.approx(1.0)  # RBO^b(X, X) = 1
    assert rbo(tied, tied, 0.9, "a")["ext"] < 1.0  # a: ties are unknown orders
    empty = ranked([])
    assert all(math.isnan(v) for v in rbo(empty, empty, 0.9, "a").values())
    one_empty = rbo(same, empty, 0.9, "a")
    assert one_empty["min"] == one_empty["ext"] == 0.0 and one_empty["max"] > 0
    with pytest.raises(ValueError, match="p must be"):
        rbo(same, same, 1.0)


# -- tau_AP, tau-b, overlaps ----------------------------------------------------------------------------

def test_tau_ap_equals_brute_force_and_tau_b_equals_scipy():
    from scipy.stats import kendalltau

    rng = np.random.default_rng(5)
    for _ in range(100):
        n = int(rng.integers(2, 30))
        docs = rng.choice(200, n, replace=False)
        x_score, y_score = rng.integers(0, 8, n).astype(float), rng.normal(0, 1, n)
        x_extra, y_extra = rng.choice(np.arange(200, 260), 5, replace=False), np.arange(300, 303)
        xd, yd = np.r_[docs, x_extra], np.r_[docs, y_extra]  # documents in one run only are left out
        xs, ys = np.r_[x_score, rng.normal(size=5)], np.r_[y_score, rng.normal(size=3)]
        x_order = [int(d) for d in sorted(docs, key=lambda d: (-x_score[list(docs).index(d)], -d))]
        y_order = [int(d) for d in sorted(docs, key=lambda d: (-y_score[list(docs).index(d)], -d))]
        assert between.tau_ap(xd, xs, yd, ys) == pytest.approx(slow_tau_ap(x_order, y_order), abs=1e-12)
        expected = kendalltau(x_score, y_score).statistic
        got = between.tau_b(xd, xs, yd, ys)
        assert (math.isnan(got) and math.isnan(expected)) or got == pytest.approx(expected, abs=1e-12)
    # Yilmaz et al. 2008: the reversed order has tau_AP = -1, the same order 1
    d, s = np.arange(5), np.arange(5, 0, -1).astype(float)
    assert between.tau_ap(d, s, d, -s) == pytest.approx(-1.0)
    assert between.tau_ap(d, s, d, s) == pytest.approx(1.0)


def test_overlaps_by_hand():
    x = (np.array([1, 2, 3, 4]), np.array([4.0, 3.0, 2.0, 1.0]))
    y = (np.array([3, 1, 9]), np.array([3.0, 2.0, 1.0]))
    assert between.overlaps(*x, *y, 2) == (0.5, pytest.approx(1 / 3))  # {1, 2} and {3, 1} share 1
    assert between.overlaps(*x, *y, 10) == (0.2, pytest.approx(2 / 5))  # lists shorter than k
    empty = (np.zeros(0, np.int64), np.zeros(0))
    assert between.overlaps(*empty, *empty, 3)[0] == 0.0 and math.isnan(between.overlaps(*empty, *empty, 3)[1])


# -- the command line --------------------------------------------------------------------------------

RUNS = ["examples/trec/bm25.run", "examples/trec/dense.run"]
ROOT = Path(__file__).resolve().parents[1]


def agree(*args):
    return CliRunner().invoke(main, ["agree", *args])


def test_cli_means_and_intervals():
    result = agree(*[str(ROOT / r) for r in RUNS])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split("\t") == ["system", "baseline", "measure", "value", "ci_low", "ci_high", "groups",
                                     "undefined", "signature"]
    rows = {line.split("\t")[2]: line.split("\t") for line in lines[1:]}
    assert set(rows) == {"rbo_ext", "rbo_min", "rbo_max", "rbo_res", "tau-b", "tau-ap", "overlap@10", "jaccard@10"}
    assert float(rows["rbo_min"][4]) <= float(rows["rbo_min"][3]) <= float(rows["rbo_min"][5])
    per = agree("--per-group", "-m", "rbo", *[str(ROOT / r) for r in RUNS])
    values = [float(line.split("\t")[4]) for line in per.output.splitlines()[1:] if "\trbo_ext\t" in line]
    assert float(rows["rbo_ext"][3]) == pytest.approx(sum(values) / len(values))


def test_cli_matrix_and_errors(tmp_path):
    a, b, c = (tmp_path / f"{n}.run" for n in "abc")
    a.write_text("q1 Q0 d1 1 3 a\nq1 Q0 d2 2 2 a\nq1 Q0 d3 3 1 a\n")
    b.write_text("q1 Q0 d1 1 3 b\nq1 Q0 d2 2 2 b\nq1 Q0 d3 3 1 b\n")
    c.write_text("q1 Q0 d3 1 3 c\nq1 Q0 d2 2 2 c\nq1 Q0 d1 3 1 c\nq2 Q0 d1 1 1 c\n")
    result = agree("--matrix", "-m", "tau-b", str(a), str(b), str(c))
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if line.startswith(("measure", "tau-b"))]
    assert lines[0].split("\t") == ["measure", "system", "a", "b", "c"]
    assert lines[1].split("\t") == ["tau-b", "a", "", "1", "-1"]
    assert "queries in one run only" in result.output
    assert agree(str(a)).exit_code == 2
    assert agree("-m", "nonesuch", str(a), str(b)).exit_code == 2
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 1 x a\n")
    result = agree(str(a), str(bad))
    assert result.exit_code == 1 and "bad.run:1" in result.output
