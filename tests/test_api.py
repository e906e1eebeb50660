"""The Python API: one-group functions with the command line's keywords, and evaluate() on a
path, a file object or a pandas DataFrame, giving exactly what the commands print."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

import rankeval_cli as rk
from rankeval_cli.cli import main

TSV = ("group\titem\tgold\tpred\tlp\n"
       "s1\ta\t1\t0.2\tde-en\ns1\tb\t2\t0.9\tde-en\ns1\tc\t3\t0.5\tde-en\n"
       "s2\ta\t2\t0.1\tcs-en\ns2\tb\t1\t0.3\tcs-en\ns2\tc\t\t0.2\tcs-en\n")


def cli(*args):
    result = CliRunner().invoke(main, [*args, "--output-format", "jsonl"], input=TSV)
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_one_group_functions_by_hand():
    # mt-metrics-eval's unit test values (both lists are scores)
    assert round(rk.tau([1, 2, 2, 3, 4], [2, 1, 1.5, 5, 3], tau_variant="b", higher_better=True), 9) == 0.316227766
    assert rk.tau([1, 2, 2, 3, 4], [2, 1, 1.5, 5, 3], tau_variant="acc-eq", higher_better=True) == 0.6
    assert rk.tau([1, 2, 2, 3, 4], [2, 1, 1.5, 5, 3], tau_variant="acc-eq", epsilon=2) == 0.4
    # higher_better: gold and pred are scores; gold [3, 2, 1] puts a first, pred puts b, c, a -> RR 1/3
    assert rk.rr([3, 2, 1], [0.2, 0.9, 0.5], higher_better=True) == pytest.approx(1 / 3)
    assert rk.rr([1, 2, 3], [3, 1, 2]) == pytest.approx(1 / 3)  # the same as ranks
    # relevance n - rank + 1 = 3, 2, 1 for a, b, c; exp gain 7, 3, 1; predicted order b, c, a
    dcg = 3 / 1 + 1 / math.log2(3) + 7 / 2
    idcg = 7 / 1 + 3 / math.log2(3) + 1 / 2
    gains = {"a": 7, "b": 3, "c": 1}
    assert dcg == gains["b"] / 1 + gains["c"] / math.log2(3) + gains["a"] / 2
    assert rk.ndcg([3, 2, 1], [0.2, 0.9, 0.5], higher_better=True) == pytest.approx(dcg / idcg)
    assert rk.precision([1, 0, 1, 0, 1], [1, 2, 3, 4, 5], k=5, relevance="grades") == 0.6
    assert round(rk.average_precision([0, 0, 1, 1, 0], [1, 2, 3, 4, 5], k=5, relevance="grades"), 3) == 0.417
    assert math.isnan(rk.rankdcg([1, 1, 1], [1, 2, 3]))
    assert rk.ndcg([1, None, 2], [1, 5, 2]) == 1.0  # None is missing, as NaN


def test_evaluate_equals_the_commands(tmp_path):
    path = tmp_path / "run.tsv"
    path.write_text(TSV)
    for measure, options, args in [
        ("tau", dict(tau_variant="b", by=["lp"]), ["--tau-variant", "b", "--by", "lp"]),
        ("ndcg", dict(k=2, gain="linear", higher_better=True), ["--k", "2", "--gain", "linear", "--higher-better"]),
        ("err", dict(tie_policy="expected", ci=0.9, bootstrap=50), ["--tie-policy", "expected", "--ci", "0.9",
                                                                   "--bootstrap", "50"]),
        ("report", {}, []),
    ]:
        assert rk.evaluate(str(path), measure, **options) == cli(measure, *args), measure


def test_evaluate_a_dataframe_and_refusals():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"group": ["s1"] * 3 + ["s2"] * 3, "item": list("abcabc"),
                          "gold": [1, 2, 3, 2, 1, np.nan], "pred": [0.2, 0.9, 0.5, 0.1, 0.3, 0.2],
                          "lp": ["de-en"] * 3 + ["cs-en"] * 3})
    assert rk.evaluate(frame, "mrr", higher_better=True, by=["lp"]) == cli("mrr", "--higher-better", "--by", "lp")
    with pytest.raises(TypeError, match="no option kk"):
        rk.evaluate(frame, "ndcg", kk=3)
    with pytest.raises(ValueError, match="missing gold"):
        rk.evaluate(frame.drop(columns="gold"), "ndcg")
    with pytest.raises(rk.DataError, match="no column 'testset'"):
        rk.evaluate(frame, "ndcg", by=["testset"])
