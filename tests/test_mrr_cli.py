"""``rankeval mrr`` through click's CliRunner, plus what the four rank-position commands share."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from rankeval_cli.cli import main

# g1: gold [1,2,3], pred [2,1,3]: the best item predicted second            -> RR 1/2
# g2: gold [1,blank,2], pred [1,1,1]: tie of the two ranked items           -> pessimistic 1/2, expected 3/4
# g3: gold [2,1], pred [1,]: the best item lacks a prediction (dropped)     -> the other is "best": RR 1
TSV = ("group\titem\tgold\tpred\n"
       "g1\ta\t1\t2\ng1\tb\t2\t1\ng1\tc\t3\t3\n"
       "g2\td\t1\t1\ng2\te\t\t1\ng2\tf\t2\t1\n"
       "g3\tg\t2\t1\ng3\th\t1\t\n")


def invoke(command, *args, input=TSV):
    return CliRunner().invoke(main, [command, *args], input=input)


def table(text):
    lines = text.splitlines()
    header = lines[0].split("\t")
    return [dict(zip(header, line.split("\t"))) for line in lines[1:]]


def test_mrr_summary():
    result = invoke("mrr")
    assert result.exit_code == 0, result.output
    (row,) = table(result.stdout)
    # (1/2 + 1/2 + 1) / 3 = 2/3
    assert float(row["value"]) == pytest.approx(2 / 3, rel=1e-15)
    assert [row[c] for c in ("measure", "groups", "undefined", "blanks", "missing_pred")] == \
        ["mrr", "3", "0", "1", "1"]
    assert "defined" not in row
    assert row["signature"].startswith("mrr|ties:pessimistic|relevance:ranks|scores:no|missing_pred:drop|v:")
    assert result.stderr.splitlines() == ["rankeval: skipped 1 item without a gold value (blanks)",
                                          "rankeval: 1 item without a prediction: skipped them"]


def test_tie_policies_and_per_group_rows():
    result = invoke("mrr", "--tie-policy", "expected", "--per-group")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "group\titems\tskipped\tmrr"
    rows = table(result.stdout)
    assert [(r["group"], r["items"], r["skipped"]) for r in rows] == [("g1", "3", "0"), ("g2", "2", "1"),
                                                                  ("g3", "1", "1")]
    assert [float(r["mrr"]) for r in rows] == [0.5, 0.75, 1.0]  # g2: (1 + 1/2)/2
    assert result.stderr.splitlines()[0].startswith("measure\tvalue\t")
    summary = table("\n".join(result.stderr.splitlines()[:2]))[0]
    assert float(summary["value"]) == pytest.approx((0.5 + 0.75 + 1) / 3, rel=1e-15)
    optimistic = table(invoke("mrr", "--tie-policy", "optimistic").stdout)[0]
    assert float(optimistic["value"]) == pytest.approx((0.5 + 1 + 1) / 3, rel=1e-15)


def test_missing_pred_last_and_error():
    # last: g3 keeps h (gold 1) below g -> RR 1/2
    row = table(invoke("mrr", "--missing-pred", "last").stdout)[0]
    assert float(row["value"]) == pytest.approx((0.5 + 0.5 + 0.5) / 3, rel=1e-15)
    result = invoke("mrr", "--missing-pred", "error")
    assert result.exit_code == 1
    assert result.stderr == "rankeval: <stdin>:9: missing prediction for a ranked item\n"


def test_scores_flag_negates():
    # the same data written as scores: higher = better
    scores = "group\titem\tgold\tpred\ng\ta\t3\t0.2\ng\tb\t2\t0.9\ng\tc\t1\t0.1\n"
    row = table(invoke("mrr", "--scores", input=scores).stdout)[0]
    assert float(row["value"]) == 0.5


def test_json_and_k():
    result = invoke("mrr", "--k", "1", "--output-format", "json")
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    # RR@1: g1 0, g2 0 (pessimistic: best item second), g3 1
    assert record["value"] == pytest.approx(1 / 3) and "|k:1|" in record["signature"]


def test_all_blank_group_is_undefined_and_json_null():
    data = "group\titem\tgold\tpred\nz\ta\t\t1\n"
    result = invoke("mrr", "--per-group", "--output-format", "json", input=data)
    assert json.loads(result.stdout.splitlines()[0]) == {"group": "z", "items": 0, "skipped": 1, "mrr": None}
    summary = json.loads(result.stderr.splitlines()[0])
    assert summary["value"] is None and summary["undefined"] == 1


@pytest.mark.parametrize("command", ["mrr", "ndcg", "err", "rankdcg"])
def test_shared_options_and_errors(command):
    assert invoke(command, "--tie-policy", "random").exit_code == 2
    assert invoke(command, "--relevance", "scores").exit_code == 2
    bad = invoke(command, input=TSV + "g4\tz\tbest\t1\n")
    assert bad.exit_code == 1 and bad.stderr.startswith("rankeval: <stdin>:10:")
    ok = invoke(command, "--per-group", "--tie-policy", "expected")
    assert ok.exit_code == 0 and ok.stdout.splitlines()[0] == f"group\titems\tskipped\t{command}"
    grades = invoke(command, "--relevance", "grades", input=TSV.replace("\t\t1\n", "\t-3\t1\n"))
    assert grades.exit_code == 1 and "negative relevance grade -3" in grades.stderr


def test_help_mentions_tie_policy():
    from rankeval_cli.manpage import all_pages

    result = invoke("mrr", "--help")
    assert "--tie-policy" in result.stdout and "pessimistic" in result.stdout
    assert "ceiling" in all_pages()["rankeval-mrr.1"]  # the full text: the man page
