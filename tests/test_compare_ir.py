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
from rankeval_cli.stats import topic_tests as pq


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


@pytest.mark.parametrize("n", [1, 2, 3, 5, 13, 14, 20, 50, 51, 200])
def test_degenerate_differences_as_scipy(n):
    """Every difference equal: scipy's t is ±inf with p 0 (nonzero) or undefined (zero); Wilcoxon
    with every difference zero gives p 1 — scipy too for n <= 13, NaN above (a documented difference)."""
    import warnings

    x = np.arange(n) * 0.125  # dyadic: x - shift is exactly constant
    for shift in (0.25, -0.5):
        b = x - shift
        t, p = pq.paired_t(x, b)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = st.ttest_rel(x, b)
        if n == 1:
            assert math.isnan(p) and math.isnan(ref.pvalue)
            continue
        assert (t, p) == (ref.statistic, ref.pvalue) == (math.copysign(math.inf, shift), 0.0)
    t, p = pq.paired_t(x, x)
    assert math.isnan(t) and math.isnan(p)
    w, p = pq.wilcoxon(x, x)
    assert (w, p) == (0.0, 1.0)
    if 2 <= n <= 13:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = st.wilcoxon(x, x)
        assert (ref.statistic, ref.pvalue) == (w, p)
    elif n >= 14:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert math.isnan(st.wilcoxon(x, x).pvalue)


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
    assert runner.invoke(main, ["compare", "--correction", "holm", *files]).exit_code == 0  # every path
    for args, message in ((["--baseline", "nope"], "not a compared system"),
                          (["--baseline", files[0], "--all-pairs"], "not both"),
                          (["--test", "t"], "per-topic values"),
                          (["--test", "magic"], "unknown test"),
                          (["--system", "x"], "NAME=FILE")):
        bad = runner.invoke(main, ["compare", *args, *files])
        assert bad.exit_code == 2 and message in bad.stderr, (args, bad.stderr)
    bad = runner.invoke(main, ["compare", "-m", "mrr,ndcg", *files])
    assert bad.exit_code == 2
    assert runner.invoke(main, ["compare", "-m", "mrr", *files]).exit_code == 0


def _runs(tmp_path, runs=4, n_queries=30, seed=7):
    qrels, lists = ir_data.make(seed, runs=runs, n_queries=n_queries)
    q = tmp_path / "q"
    ir_data.write_qrels(q, qrels)
    paths = []
    for i, run in enumerate(lists):
        paths.append(tmp_path / f"r{i}")
        ir_data.write_run(paths[-1], run)
    return str(q), [str(p) for p in paths]


def _per_query(runner, q, path, measure="map"):
    out = runner.invoke(main, ["report", "--qrels", q, "-m", measure, "--per-group", "--output-format", "jsonl",
                               path])
    return {r["group"]: r[measure] for r in map(json.loads, out.stdout.splitlines()) if "group" in r}


def test_several_baselines_all_pairs_and_the_family(tmp_path):
    q, paths = _runs(tmp_path)
    runner = CliRunner()
    args = ["compare", "--qrels", q, "-m", "map", "--output-format", "jsonl", "--permutations", "200",
            "--bootstrap", "200", "--correction", "holm", "--test", "t,tukey"]
    rows = [json.loads(x) for x in runner.invoke(main, args + ["--all-pairs", *paths]).stdout.splitlines()]
    compared = [r for r in rows if r["p_t"] is not None]
    assert [(r["system"], r["baseline"]) for r in compared] == [
        ("run1", "run0"), ("run2", "run0"), ("run3", "run0"), ("run2", "run1"), ("run3", "run1"), ("run3", "run2")]
    assert {r["family"] for r in compared} == {6} and "family:all-pairs" in rows[0]["signature"]
    assert [r["p_t_adj"] for r in compared] == pytest.approx(_slow_holm([r["p_t"] for r in compared]))
    assert "p_tukey_adj" not in rows[0]
    per = {p: _per_query(runner, q, p) for p in paths}
    common = sorted(set.intersection(*(set(v) for v in per.values())))
    from rankeval_cli.stats.tukey import tukey_hsd

    expected = tukey_hsd([[per[p][k] for k in common] for p in paths]).p
    for r in compared:
        i, j = int(r["system"][3:]), int(r["baseline"][3:])
        assert r["p_tukey"] == pytest.approx(expected[i, j], rel=1e-12)
    rows = [json.loads(x) for x in runner.invoke(main, args + ["--baseline", "run2", "--baseline", paths[0],
                                                               *paths]).stdout.splitlines()]
    assert [(r["system"], r["baseline"]) for r in rows] == [
        ("run2", "run2"), ("run0", "run2"), ("run1", "run2"), ("run3", "run2"),
        ("run0", "run0"), ("run1", "run0"), ("run3", "run0")]


def test_a_system_of_several_runs_is_compared_on_its_mean_per_query(tmp_path):
    q, paths = _runs(tmp_path, runs=4)
    runner = CliRunner()
    out = runner.invoke(main, ["compare", "--qrels", q, "-m", "map", "--output-format", "jsonl", "--permutations",
                               "100", "--bootstrap", "100", paths[0], "--system",
                               f"seeds={paths[1]},{paths[2]},{paths[3]}"])
    assert out.exit_code == 0, out.stderr
    base, seeds = [json.loads(x) for x in out.stdout.splitlines()]
    assert seeds["system"] == "seeds" and seeds["runs"] == 3 and base["runs"] == 1
    per = [_per_query(runner, q, p) for p in paths]
    run_values = [sum(v.values()) / len(v) for v in per[1:]]
    assert seeds["value"] == pytest.approx(np.mean(run_values), rel=1e-12)
    assert seeds["runs_sd"] == pytest.approx(np.std(run_values, ddof=1), rel=1e-9)
    low, high = st.t.interval(0.95, 2, loc=np.mean(run_values), scale=st.sem(run_values))
    assert (seeds["runs_ci_low"], seeds["runs_ci_high"]) == pytest.approx((low, high), rel=1e-9)
    shared = sorted(set(per[1]) & set(per[2]) & set(per[3]) & set(per[0]))
    mean = [np.mean([p[k] for p in per[1:]]) for k in shared]
    assert seeds["p_t"] == pytest.approx(st.ttest_rel(mean, [per[0][k] for k in shared]).pvalue, rel=1e-9)


def test_identical_output_for_any_jobs(tmp_path):
    q, paths = _runs(tmp_path, runs=3)
    args = ["compare", "--qrels", q, "-m", "map,P_10", "--test", "t,randomization,bootstrap,randomized-tukey",
            "--all-pairs", "--permutations", "600", "--bootstrap", "700", *paths]
    one = CliRunner().invoke(main, args + ["--jobs", "1"])
    two = CliRunner().invoke(main, args + ["--jobs", "2"])
    assert one.exit_code == 0 and one.stdout == two.stdout


def test_table_of_a_corrected_comparison(tmp_path):
    q, paths = _runs(tmp_path, runs=3)
    runner = CliRunner()
    summary = tmp_path / "cmp.tsv"
    out = runner.invoke(main, ["compare", "--qrels", q, "-m", "map", "--correction", "bonferroni", "--test", "t",
                               "-o", str(summary), *paths])
    assert out.exit_code == 0, out.stderr
    rows = [r.split("\t") for r in summary.read_text().splitlines()]
    header = rows[0]
    p_adj = {r[0]: r[header.index("p_t_adj")] for r in rows[1:]}
    table = runner.invoke(main, ["table", str(summary)]).stdout.splitlines()
    for line in table[2:5]:
        name = line.split("|")[1].strip()
        marked = "†" in line
        assert marked == (p_adj[name] != "" and float(p_adj[name]) < 0.05), line
    assert "Bonferroni-adjusted over the 2 comparisons" in table[6]
