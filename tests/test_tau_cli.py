"""``rankeval tau`` through click's CliRunner (exit status, stdout, stderr) and a real pipe."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner

from rankeval_cli.batch import Batch, offsets_from_sizes
from rankeval_cli.cli import main
from rankeval_cli.errors import DataError

# s1: the mt-metrics-eval example as scores: C=6, D=3, T_h=1 (docs/definitions.md#tau).
# s2: item y lacks pred -> one usable item, no pair, tau undefined.
# s3: gold [1,2] pred [1,1]: one pred tie (T_m).
TSV = ("group\titem\tgold\tpred\n"
       "s1\ta\t1\t2\ns1\tb\t2\t1\ns1\tc\t2\t1.5\ns1\td\t3\t5\ns1\te\t4\t3\n"
       "s2\tx\t1\t1\ns2\ty\t2\t\n"
       "s3\tu\t1\t1\ns3\tv\t2\t1\n")
SUMMARY_HEADER = "measure\tvariant\tmicro\tmacro\tC\tD\tT_h\tT_m\tT_hm\tgroups\tundefined\tskipped\tp_independence\tsignature"


def invoke(*args, input=TSV):
    return CliRunner().invoke(main, ["tau", *args], input=input)


def table(text):
    lines = text.splitlines()
    header = lines[0].split("\t")
    return [dict(zip(header, line.split("\t"))) for line in lines[1:]]


def test_default_is_penalize_with_both_averages():
    result = invoke()
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == SUMMARY_HEADER
    (row,) = table(result.stdout)
    # pooled: C=6, D=3, T_m=1 -> micro (6-3-1)/(6+3+1) = 0.2.
    # groups: s1 (6-3)/9 = 1/3, s2 undefined, s3 (0-0-1)/1 = -1 -> macro (1/3 - 1)/2 = -1/3.
    assert row["variant"] == "penalize"
    assert float(row["micro"]) == pytest.approx(0.2, rel=1e-15)
    assert float(row["macro"]) == pytest.approx(-1 / 3, rel=1e-15)
    assert [row[k] for k in ("C", "D", "T_h", "T_m", "T_hm", "groups", "undefined", "skipped")] == \
        ["6", "3", "1", "1", "0", "2", "1", "1"]  # groups: those with a defined tau
    assert row["signature"].startswith("tau|ties:penalize|avg:both|scores:no|v:")
    assert result.stderr == "rankeval: skipped 1 item lacking a gold or pred value\n"


def test_set_p_value_column():
    # S = 6 - 3 = 3; Var(S): s1 282/18 (test_pairs), s3 n=2 with gold untied and pred block {1,1}:
    # (2*1*9 - 0 - 18)/18 + 0 = 0; z = 3/sqrt(282/18).
    (row,) = table(invoke("--ties", "b").stdout)
    assert float(row["p_independence"]) == pytest.approx(math.erfc(3 / math.sqrt(282 / 18) / math.sqrt(2)), rel=1e-14)


@pytest.mark.parametrize("average, columns", [("micro", ["micro"]), ("macro", ["macro"]),
                                              ("both", ["micro", "macro"])])
def test_average_selects_columns(average, columns):
    result = invoke("--ties", "ignore", "--average", average)
    assert result.exit_code == 0
    header = result.stdout.splitlines()[0].split("\t")
    assert [c for c in header if c in ("micro", "macro")] == columns


def test_per_group_rows_on_stdout_summary_on_stderr():
    result = invoke("--ties", "WMT13", "--per-group")
    assert result.exit_code == 0, result.output
    rows = table(result.stdout)
    assert result.stdout.splitlines()[0] == "group\titems\tskipped\tC\tD\tT_h\tT_m\tT_hm\ttau\tp_independence"
    assert [r["group"] for r in rows] == ["s1", "s2", "s3"]
    # ignore: s1 (6-3)/(6+3) = 1/3; s2 and s3 have no untied pair -> undefined (nan).
    assert float(rows[0]["tau"]) == pytest.approx(1 / 3, rel=1e-15)
    assert [rows[1]["tau"], rows[2]["tau"], rows[1]["p_independence"]] == ["nan", "nan", "nan"]
    assert (rows[1]["items"], rows[1]["skipped"], rows[2]["T_m"]) == ("1", "1", "1")
    err = result.stderr.splitlines()
    assert err[0].startswith("measure\tvariant\tmicro\tmacro") and err[1].startswith("tau\tignore\t")
    assert err[2] == "rankeval: skipped 1 item lacking a gold or pred value"


def test_json_output_writes_null_for_undefined():
    result = invoke("--ties", "ignore", "--per-group", "--output-format", "json")
    assert result.exit_code == 0
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert rows[1] == {"group": "s2", "items": 1, "skipped": 1, "C": 0, "D": 0, "T_h": 0, "T_m": 0, "T_hm": 0,
                       "tau": None, "p_independence": None}
    summary = json.loads(result.stderr.splitlines()[0])
    assert summary["measure"] == "tau" and summary["variant"] == "ignore" and summary["macro"] == 1 / 3


def test_calibrate_ties():
    # s1 alone decides: best acc-eq 0.7 at ε = 0.5 (test_tau); s3's pair is a pred tie at any ε
    # (gold differs: T_m, acc-eq 0). macro = (0.7 + 0)/2 = 0.35 at ε = 0.5.
    result = invoke("--ties", "acc-eq", "--scores", "--calibrate-ties", "--average", "macro")
    assert result.exit_code == 0, result.output
    (row,) = table(result.stdout)
    assert float(row["macro"]) == pytest.approx(0.35, rel=1e-15)
    assert (row["epsilon"], row["p_independence"]) == ("0.5", "nan")
    assert "calibrated:yes" in row["signature"] and "scores:yes" in row["signature"]


@pytest.mark.parametrize("args, message", [
    (["--ties", "tau-d"], "unknown tau variant"),
    (["--calibrate-ties", "--average", "macro"], "--calibrate-ties applies to"),
    (["--ties", "eq", "--calibrate-ties"], "give --average micro or macro"),
    (["--average", "median"], "median"),
])
def test_usage_errors_exit_2(args, message):
    result = invoke(*args)
    assert result.exit_code == 2
    assert message in result.stderr and result.stdout == ""


def test_bad_data_exits_1_naming_the_line():
    result = invoke(input=TSV + "s4\tz\tbest\t1\n")
    assert result.exit_code == 1
    assert result.stderr.startswith("rankeval: <stdin>:11:")
    assert "Traceback" not in result.stderr


def test_per_group_rows_are_written_before_the_stream_ends(monkeypatch):
    # The second batch fails; the first batch's rows must already be on stdout.
    from rankeval_cli.commands import _common

    def batches(*args, **kwargs):
        yield Batch(group=np.array(["a"], dtype=object), offsets=offsets_from_sizes(np.array([2])),
                    item=np.array(["x", "y"], dtype=object), gold=np.array([1.0, 2.0]), pred=np.array([1.0, 2.0]))
        raise DataError("broken second batch", "in.tsv", 9)

    monkeypatch.setattr(_common, "read_inputs", batches)
    result = invoke("--per-group", input="")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[1].startswith("a\t2\t0\t1\t0\t0\t0\t0\t1")
    assert result.stderr == "rankeval: in.tsv:9: broken second batch\n"


def test_real_pipe_from_stdin(tmp_path):
    path = tmp_path / "pairs.tsv"
    path.write_text(TSV)
    with open(path) as stdin:
        result = subprocess.run([sys.executable, "-m", "rankeval_cli", "tau", "--ties", "penalize"], stdin=stdin,
                                capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    (row,) = table(result.stdout)
    assert float(row["micro"]) == pytest.approx(0.2, rel=1e-15)


def test_jsonl_input_and_output_file(tmp_path):
    text = json.dumps({"group": "q", "items": ["a", "b", "c"], "gold": [1, 2, 3], "pred": [3, 2, 1]}) + "\n"
    target = tmp_path / "out.tsv"
    result = invoke("--ties", "a", "-o", str(target), input=text)
    assert result.exit_code == 0 and result.stdout == ""
    (row,) = table(target.read_text())
    assert (row["micro"], row["macro"], row["D"]) == ("-1", "-1", "3")


@pytest.mark.parametrize("pred", [[1, 1, 1, 2, 3], [1, 1, 2, 2, 3], [1, 2, 3, 4, 5]])
def test_set_p_is_undefined_when_every_gold_value_is_tied(pred):
    # Var(S) is exactly 0 when one side is one tie block (Kendall 1945): for gold all tied and pred
    # [1,1,1,2,3], (v0 - vt - vu)/18 + v1/(2n(n-1)) + v2/(9n(n-1)(n-2)) = (0 - 66)/18 + 120/40 + 360/540 = 0,
    # which float division leaves as 1e-16 (and p = 1); p must be undefined, not 1.
    rows = "".join(f"s\t{chr(97 + i)}\t1\t{p}\n" for i, p in enumerate(pred))
    result = invoke("--tau-variant", "b", "--output-format", "jsonl", input="group\titem\tgold\tpred\n" + rows)
    assert result.exit_code == 0
    assert json.loads(result.stdout)["p_independence"] is None
