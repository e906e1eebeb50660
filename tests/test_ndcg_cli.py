"""``rankeval ndcg`` through click's CliRunner."""

from __future__ import annotations

from math import log2

import pytest
from click.testing import CliRunner

from rankeval_cli.cli import main

# q1: grades [3, 2, 0], predicted order b, a, c; q2: all grades 0 -> IDCG 0, undefined
QRELS = ("group\titem\tgold\tpred\n"
         "q1\ta\t3\t2\nq1\tb\t2\t1\nq1\tc\t0\t3\n"
         "q2\td\t0\t1\nq2\te\t0\t2\n")


def run(*args, input=QRELS):
    result = CliRunner().invoke(main, ["ndcg", *args], input=input)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    return dict(zip(lines[0].split("\t"), lines[1].split("\t")))


def test_linear_gain_with_grades():
    row = run("--relevance", "grades", "--gain", "linear")
    # DCG = 2 + 3/log2 3; IDCG = 3 + 2/log2 3
    assert float(row["value"]) == pytest.approx((2 + 3 / log2(3)) / (3 + 2 / log2(3)), rel=1e-15)
    assert (row["groups"], row["undefined"]) == ("1", "1")
    assert "ndcg|gain:linear|" in row["signature"]


def test_exp_gain_and_k():
    row = run("--relevance", "grades", "--k", "1")
    # NDCG@1 = (2^2 - 1) / (2^3 - 1) = 3/7
    assert float(row["value"]) == pytest.approx(3 / 7, rel=1e-15)
    assert "ndcg|k:1|gain:exp|" in row["signature"]


def test_rank_gold_default():
    # gold ranks [1, 2, 3] -> rel [3, 2, 1], exp gains [7, 3, 1]; predicted order b, a, c
    data = "group\titem\tgold\tpred\nq\ta\t1\t2\nq\tb\t2\t1\nq\tc\t3\t3\n"
    row = run(input=data)
    assert float(row["value"]) == pytest.approx((3 + 7 / log2(3) + 1 / 2) / (7 + 3 / log2(3) + 1 / 2))


def test_bad_k_is_usage_error():
    assert CliRunner().invoke(main, ["ndcg", "--k", "0"], input=QRELS).exit_code == 2
