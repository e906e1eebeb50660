"""``rankeval power``: topic counts and power from TREC runs, from MT systems per segment and from a
given variance, against statsmodels and the variance estimates computed here from report's values."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

import ir_data
from rankeval_cli import api
from rankeval_cli.cli import main

sm = pytest.importorskip("statsmodels.stats.power")


def invoke(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def _runs(tmp_path, runs=3):
    qrels, lists = ir_data.make(5, runs=runs, n_queries=30)
    q = tmp_path / "q"
    ir_data.write_qrels(q, qrels)
    paths = []
    for i, run in enumerate(lists):
        paths.append(tmp_path / f"r{i}")
        ir_data.write_run(paths[-1], run)
    return q, paths


def _matrix(q, paths, measure="map"):
    per = []
    for p in paths:
        out = invoke("report", "--qrels", q, "-m", measure, "--per-group", "--output-format", "jsonl", p).stdout
        per.append({r["group"]: r[measure] for r in map(json.loads, out.splitlines()) if "group" in r})
    common = sorted(set.intersection(*(set(v) for v in per)))
    return np.array([[v[k] for k in common] for v in per])


def test_topic_counts_from_runs(tmp_path):
    q, paths = _runs(tmp_path)
    out = invoke("power", "--qrels", q, "-m", "map", "--difference", "0.05", "--design", "t,anova,ci",
                 "--output-format", "jsonl", *paths)
    assert out.exit_code == 0, out.stderr
    rows = {r["design"]: r for r in map(json.loads, out.stdout.splitlines())}
    x = _matrix(q, paths)
    m, n = x.shape
    within = sum(((r - r.mean()) ** 2).sum() for r in x) / (m * (n - 1))  # one-way ANOVA within-system variance
    t = rows["t"]
    assert t["variance"] == pytest.approx(2 * within, rel=1e-9) and t["groups"] == n
    effect = 0.05 / math.sqrt(2 * within)
    assert t["topics"] == math.ceil(sm.TTestPower().solve_power(effect, None, 0.05, 0.8))
    assert t["achieved_power"] == pytest.approx(sm.TTestPower().power(effect, n, 0.05), rel=1e-9)
    a = rows["anova"]
    f = math.sqrt(0.05 ** 2 / (2 * m * within))
    assert a["systems"] == m and a["variance"] == pytest.approx(within, rel=1e-9)
    assert a["topics"] == math.ceil(sm.FTestAnovaPower().solve_power(f, None, 0.05, 0.8, k_groups=m) / m)
    assert rows["ci"]["topics"] == api.topic_set_size(0.05, within, design="ci")


def test_given_variance_and_the_api_agree():
    out = invoke("power", "--variance", "0.04", "--difference", "0.05", "--design", "t,anova", "--systems", "10",
                 "--output-format", "jsonl")
    assert out.exit_code == 0, out.stderr
    t, a = map(json.loads, out.stdout.splitlines())
    assert t["topics"] == api.topic_set_size(0.05, 0.04) == \
        math.ceil(sm.TTestPower().solve_power(0.05 / math.sqrt(0.08), None, 0.05, 0.8))
    assert a["topics"] == api.topic_set_size(0.05, 0.04, design="anova", systems=10)
    assert t["achieved_power"] is None and t["variance_from"] == "given"
    out = invoke("power", "--variance", "0.04", "--difference", "0.05", "--topics", "50", "--output-format",
                 "jsonl")
    assert json.loads(out.stdout)["achieved_power"] == pytest.approx(api.achieved_power(0.05, 0.04, 50))


def test_pairs_of_a_finished_comparison(tmp_path):
    q, paths = _runs(tmp_path)
    out = invoke("power", "--qrels", q, "-m", "map", "--difference", "0.05", "--pairs", "--output-format", "jsonl",
                 *paths)
    rows = [json.loads(x) for x in out.stdout.splitlines()]
    assert [(r["system"], r["baseline"]) for r in rows] == [("run1", "run0"), ("run2", "run0")]
    x = _matrix(q, paths)
    var = np.var(x[1] - x[0], ddof=1)
    assert rows[0]["variance"] == pytest.approx(var, rel=1e-9)
    assert rows[0]["achieved_power"] == pytest.approx(
        sm.TTestPower().power(0.05 / math.sqrt(var), x.shape[1], 0.05), rel=1e-9)


def test_mt_systems_per_segment():
    lines = ["group\titem\tgold\tpred"]
    rng = np.random.default_rng(2)
    for g in range(40):
        for s, shift in (("A", 0.0), ("B", 0.05), ("C", 0.1)):
            lines.append(f"seg{g}\t{s}\t\t{rng.random() * 0.5 + shift:.4f}")
    out = invoke("power", "--items-are-systems", "--difference", "0.05", "--variance", "residual",
                 "--output-format", "jsonl", input="\n".join(lines) + "\n")
    assert out.exit_code == 0, out.stderr
    row = json.loads(out.stdout)
    assert row["measure"] == "pred" and row["groups"] == 40 and row["variance_from"] == "residual"


@pytest.mark.parametrize("args, message", [
    (["--variance", "0.04"], "--difference"),
    (["--difference", "0.1", "--variance", "-1"], "positive"),
    (["--difference", "0.1", "--variance", "0.1", "--pairs"], "--pairs"),
    (["--difference", "0.1", "--variance", "0.1", "--design", "z"], "unknown design"),
])
def test_usage_errors(args, message):
    out = invoke("power", *args)
    assert out.exit_code == 2 and message in out.stderr


def test_bundled_trec_example():
    out = invoke("power", "--qrels", "examples/trec/qrels.txt", "-m", "map", "--difference", "0.05",
                 "examples/trec/bm25.run", "examples/trec/dense.run")
    assert out.exit_code == 0, out.stderr
    assert out.stdout.splitlines()[0].split("\t")[:3] == ["measure", "design", "variance_from"]
