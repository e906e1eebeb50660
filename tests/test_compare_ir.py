"""compare with TREC runs: paired t-test and Wilcoxon against scipy.stats, the randomization
test against exact enumeration, Holm and Bonferroni against hand-computed values and a
slow implementation, and the command's rows against report's per-query values."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
import scipy.stats as st
from click.testing import CliRunner

import ir_data
from rankeval_cli.cli import main
from rankeval_cli.stats import paired_queries as pq


@pytest.mark.parametrize("n", [2, 3, 7, 25, 49, 51, 200])
@pytest.mark.parametrize("kind", ["continuous", "ties", "zeros"])
def test_t_and_wilcoxon_equal_scipy(n, kind):
    rng = np.random.default_rng(n)
    x, b = rng.random(n), rng.random(n)
    if kind != "continuous":
        x, b = np.round(x, 1), np.round(b, 1)
    if kind == "zeros":
        b[: n // 3] = x[: n // 3]
    t, p = pq.paired_t(x, b)
    ref = st.ttest_rel(x, b)
    assert t == pytest.approx(ref.statistic, rel=1e-12) and p == pytest.approx(ref.pvalue, rel=1e-10)
    if (x != b).sum() == 0:
        return
    w, p = pq.wilcoxon(x, b)
    ref = st.wilcoxon(x, b)
    assert w == ref.statistic and p == pytest.approx(ref.pvalue, rel=1e-10, abs=1e-15)


def test_t_undefined_without_variance():
    assert math.isnan(pq.paired_t([1, 2, 3], [0, 1, 2])[1])
    assert math.isnan(pq.paired_t([1], [0])[1])


def test_wilcoxon_exact_by_enumeration():
    """The exact p: the share of the 2^m sign patterns whose W+ is as extreme."""
    d = np.array([0.3, -0.1, 0.7, 0.25, -0.6, 0.9, 0.05])
    x, b = d, np.zeros(len(d))
    ranks = st.rankdata(np.abs(d))
    w_plus = ranks[d > 0].sum()
    total = ranks.sum()
    lo = min(w_plus, total - w_plus)
    extreme = sum(1 for signs in itertools.product((0, 1), repeat=len(d))
                  if min(s := sum(r for r, g in zip(ranks, signs) if g), total - s) <= lo)
    assert pq.wilcoxon(x, b)[1] == pytest.approx(extreme / 2 ** len(d), rel=1e-12)


def test_randomization_against_exact_enumeration():
    """With many trials the estimate is near the exact sign-flip p (2^10 patterns)."""
    rng = np.random.default_rng(3)
    x, b = rng.random(10), rng.random(10)
    d = x - b
    exact = np.mean([abs(np.dot(s, d)) >= abs(d.sum()) - 1e-12 for s in itertools.product((-1, 1), repeat=10)])
    got = pq.randomization(x, b, 20000, seed=5)
    assert abs(got - exact) < 4 * math.sqrt(exact * (1 - exact) / 20000) + 1e-4
    assert pq.randomization(x, b, 500, seed=5) == pq.randomization(x, b, 500, seed=5)
    assert pq.randomization(x, x, 99, seed=1) == 1.0  # no difference: every trial as extreme


def _slow_holm(p):
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    for rank, i in enumerate(order):
        out[i] = min(1.0, max(min(1.0, (m - j) * p[order[j]]) for j in range(rank + 1)))
    return out


def test_corrections():
    p = [0.01, 0.04, 0.03, 0.005]
    assert pq.correct(p, "bonferroni") == pytest.approx([0.04, 0.16, 0.12, 0.02])
    # Holm by hand: sorted 0.005, 0.01, 0.03, 0.04 -> 4·0.005, 3·0.01, 2·0.03, 1·0.04, running maximum
    assert pq.correct(p, "holm") == pytest.approx([0.03, 0.06, 0.06, 0.02])
    rng = np.random.default_rng(0)
    for _ in range(200):
        q = rng.random(int(rng.integers(1, 9))).tolist()
        assert pq.correct(q, "holm") == pytest.approx(_slow_holm(q))
    assert math.isnan(pq.correct([0.01, math.nan], "holm")[1]) and pq.correct([0.01, math.nan], "holm")[0] == 0.01
    assert pq.correct(p, "none") == p


def test_compare_command_matches_report_values(tmp_path):
    qrels, runs = ir_data.make(4, runs=3, n_queries=50)
    q = tmp_path / "q"
    ir_data.write_qrels(q, qrels)
    paths = []
    for i, run in enumerate(runs):
        paths.append(tmp_path / f"r{i}")
        ir_data.write_run(paths[-1], run)
    runner = CliRunner()
    out = runner.invoke(main, ["compare", "--qrels", str(q), "-m", "map,nDCG@10", "--correction", "holm",
                               "--permutations", "300", "--output-format", "jsonl", *map(str, paths)])
    assert out.exit_code == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert [(r["system"], r["measure"]) for r in rows] == [(f"run{i}", m) for m in ("map", "nDCG@10") for i in range(3)]
    per_query = {}
    for path in paths:
        rep = runner.invoke(main, ["report", "--qrels", str(q), "-m", "map,nDCG@10", "--per-group",
                                   "--output-format", "jsonl", str(path)])
        per_query[path] = [json.loads(line) for line in rep.stdout.splitlines()]
    for m in ("map", "nDCG@10"):
        base = {r["group"]: r[m] for r in per_query[paths[0]]}
        raw = []
        for i, path in enumerate(paths):
            mine = {r["group"]: r[m] for r in per_query[path]}
            row = next(r for r in rows if r["system"] == f"run{i}" and r["measure"] == m)
            common = sorted(set(mine) & set(base))
            x, b = [mine[k] for k in common], [base[k] for k in common]
            assert row["value"] == pytest.approx(sum(mine.values()) / len(mine), rel=1e-12)
            if i == 0:
                assert row["p_t"] is None
                continue
            assert (row["wins"], row["ties"], row["losses"]) == pq.wins_ties_losses(x, b)
            assert row["p_t"] == pytest.approx(st.ttest_rel(x, b).pvalue, rel=1e-9)
            assert row["p_wilcoxon"] == pytest.approx(st.wilcoxon(x, b).pvalue, rel=1e-9)
            assert 0 < row["p_randomization"] <= 1
            raw.append(row)
        for test in ("p_t", "p_wilcoxon", "p_randomization"):
            assert [r[f"{test}_adj"] for r in raw] == pytest.approx(_slow_holm([r[test] for r in raw]))


def test_compare_usage_errors(tmp_path):
    runner = CliRunner()
    for name in "ab":
        (tmp_path / name).write_text("group\titem\tgold\tpred\ng\tx\t1\t1\ng\ty\t2\t2\n")
    files = [str(tmp_path / "a"), str(tmp_path / "b")]
    bad = runner.invoke(main, ["compare", "--correction", "holm", *files])
    assert bad.exit_code == 2 and "--correction" in bad.stderr
    bad = runner.invoke(main, ["compare", "-m", "mrr,ndcg", *files])
    assert bad.exit_code == 2
    assert runner.invoke(main, ["compare", "-m", "mrr", *files]).exit_code == 0
