"""``rankeval report``: every measure at once, explained on a JCML excerpt, streamed."""

from __future__ import annotations

import json
import subprocess
import sys
from math import log2
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from rankeval_cli.cli import main
from rankeval_cli.stats.report import Report
from slow_rank_measures import make_batch, random_groups

EXCERPT = Path(__file__).resolve().parent / "data" / "wmt10-test-xf-excerpt.jcml"

# The excerpt: three WMT10 de-en judgments, the QE feature `unk` (unknown words, lower = better)
# used as the predicted rank, as in RankEval 2013's `rankeval.py file.jcml unk rank`.
#
#   group 51:  system   limsi rwth koc-combo cmu-heafield jhu-combo
#              gold       3     2      5          4           1
#              unk        1     0      2          0           2
#   group 457: onlineA koc dfki cu-zeman koc-combo ; gold 3 -1 2 4 5 ; unk 0 5 0 0 0
#   group 569: huicong onlineB cmu-hyposel uppsala upv-combo ; gold 3 1 2 5 -1 ; unk all 0
#
# Blanks: rank -1 (koc in 457, upv-combo in 569) is not a rank. The items are removed before
# anything is computed (2 blanks). RankEval 2013 instead normalized -1 into rank 1, the best
# human rank, so in 457 it took koc (unk 5, predicted worst) for the best translation.
#
# Group 51, n = 5: ceiling gold ranks = gold (no ties); rel = 6 - rank = [3, 4, 1, 2, 5].
# Pred blocks: unk 0 {rwth rel 4, cmu rel 2} at 1-2, unk 1 {limsi rel 3} at 3,
#   unk 2 {koc rel 1, jhu rel 5} at 4-5. Pessimistic order: cmu, rwth, limsi, koc, jhu.
#   RR = 1/5 (jhu, the gold best, last).  BPH: worst human rank of {rwth, cmu} = 4.
#   tau penalize: C = 4 (limsi-rwth, limsi-koc, rwth-koc, koc-cmu), D = 4 (limsi-cmu, limsi-jhu,
#   rwth-jhu, cmu-jhu), T_m = 2 (rwth-cmu, koc-jhu): (4 - 4 - 2)/(4 + 4 + 2) = -0.2.
#   rankDCG: rel' = rel, D = [1..5]; DCG' = 2/1 + 4/2 + 3/3 + 1/4 + 5/5 = 6.25,
#   max = 5 + 4/2 + 3/3 + 2/4 + 1/5 = 8.7, min = 5 * 1 = 5 -> 1.25/3.7.
# Group 457, n = 4 ranked: gold [3, 2, 4, 5] -> ranks [2, 1, 3, 4], rel [3, 4, 2, 1]; all unk 0:
#   one tied block; pessimistic order rel 1, 2, 3, 4. RR = 1/4; BPH 4; tau: T_m = 6 -> -1;
#   rankDCG: the worst order = min -> 0.
# Group 569, n = 4 ranked: gold [3, 1, 2, 5] -> ranks [3, 1, 2, 4], rel [2, 4, 3, 1], all tied:
#   the same multiset of rel as 457, so the same RR, NDCG, ERR, rankDCG, BPH and tau.

NDCG_51 = (3 + 15 / log2(3) + 7 / 2 + 1 / log2(5) + 31 / log2(6)) / \
    (31 + 15 / log2(3) + 7 / 2 + 3 / log2(5) + 1 / log2(6))  # exp gains 2^rel - 1 in pess. order
NDCG_457 = (1 + 3 / log2(3) + 7 / 2 + 15 / log2(5)) / (15 + 7 / log2(3) + 3 / 2 + 1 / log2(5))


def _err(stops):
    p, total = 1.0, 0.0
    for r, stop in enumerate(stops, 1):
        total += p * stop / r
        p *= 1 - stop
    return total


ERR_51 = _err([3 / 32, 15 / 32, 7 / 32, 1 / 32, 31 / 32])  # R = (2^rel - 1)/2^5, pessimistic order
ERR_457 = _err([1 / 16, 3 / 16, 7 / 16, 15 / 16])  # R = (2^rel - 1)/2^4

EXPECTED = {
    "tau_micro": (4 - 4 - 14) / (4 + 4 + 14),  # pooled C = 4, D = 4, T_m = 2 + 6 + 6
    "tau_macro": (-0.2 - 1 - 1) / 3,
    "tau_concordant": 4, "tau_discordant": 4, "tau_gold_ties": 0, "tau_pred_ties": 14, "tau_both_ties": 0,
    "pred_tied_pairs_pct": 100 * 14 / 22,  # 10 + 6 + 6 pairs of ranked items
    "groups_with_pred_ties_pct": 100.0,
    "mrr": (1 / 5 + 1 / 4 + 1 / 4) / 3,
    "ndcg": (NDCG_51 + 2 * NDCG_457) / 3,
    "err": (ERR_51 + 2 * ERR_457) / 3,
    "rankdcg": (1.25 / 3.7 + 0 + 0) / 3,
    "bph_4": 1.0,
    "avg_predicted": 4.0,
    "blanks": 2,
    "missing_pred": 0,
}


def table(text):
    lines = text.splitlines()
    header = lines[0].split("\t")
    return {row[0]: dict(zip(header, row)) for row in (line.split("\t") for line in lines[1:])}


def converted_excerpt() -> str:
    result = CliRunner().invoke(main, ["convert", "--from", "jcml", "--pred-attr", "unk", str(EXCERPT)])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_excerpt_numbers_explained():
    result = CliRunner().invoke(main, ["report"], input=converted_excerpt())
    assert result.exit_code == 0, result.output
    rows = table(result.stdout)
    for measure, value in EXPECTED.items():
        assert float(rows[measure]["value"]) == pytest.approx(value, rel=1e-14), measure
    assert [m for m in rows if m.startswith("bph_")] == ["bph_4"]
    assert (rows["mrr"]["groups"], rows["mrr"]["undefined"]) == ("3", "0")
    assert result.stderr == "rankeval: skipped 2 items without a gold value (blanks)\n"


def test_excerpt_expected_policy():
    result = CliRunner().invoke(main, ["report", "--tie-policy", "expected"], input=converted_excerpt())
    rows = table(result.stdout)
    # RR: 51 -> jhu uniformly at 4 or 5: (1/4 + 1/5)/2; 457, 569 -> best uniformly at 1..4: 25/48
    assert float(rows["mrr"]["value"]) == pytest.approx(((1 / 4 + 1 / 5) / 2 + 2 * 25 / 48) / 3, rel=1e-14)
    # BPH: 51 -> ranks 2 and 4 with weight 1/2 each; 457, 569 -> ranks 1..4 with 1/4 each
    assert rows["bph_1"]["groups"] == "3"
    assert float(rows["bph_1"]["value"]) == pytest.approx(0.5 / 3) and float(rows["bph_4"]["value"]) == pytest.approx(1 / 3)
    assert float(rows["avg_predicted"]["value"]) == pytest.approx((3 + 2.5 + 2.5) / 3)
    # tau does not depend on the position tie policy
    assert float(rows["tau_micro"]["value"]) == pytest.approx(-14 / 22)


def test_real_pipe_from_jcml():
    cmd = [sys.executable, "-m", "rankeval_cli"]
    convert = subprocess.run(cmd + ["convert", "--from", "jcml", "--pred-attr", "unk", str(EXCERPT)],
                             capture_output=True, check=True)
    report = subprocess.run(cmd + ["report", "--output-format", "json"], input=convert.stdout,
                            capture_output=True, check=True)
    records = {r["measure"]: r for r in map(json.loads, report.stdout.decode().splitlines())}
    assert records["mrr"]["value"] == pytest.approx(EXPECTED["mrr"], rel=1e-14)
    assert records["tau_p"]["value"] is not None and records["blanks"]["value"] == 2


def test_per_group_rows():
    result = CliRunner().invoke(main, ["report", "--per-group"], input=converted_excerpt())
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "group\titems\tskipped\ttau\trr\tndcg\terr\trankdcg\tbest_predicted"
    first = dict(zip(lines[0].split("\t"), lines[1].split("\t")))
    assert (first["group"], first["items"], first["skipped"], first["best_predicted"]) == ("51", "5", "0", "4")
    assert float(first["tau"]) == pytest.approx(-0.2) and float(first["rr"]) == 0.2
    assert lines[2].split("\t")[:3] == ["457", "4", "1"]
    assert result.stderr.startswith("measure\tvalue\tgroups\tundefined\tsignature\n")


def test_report_agrees_with_each_command():
    rng = np.random.default_rng(12)
    groups = random_groups(rng, 300, max_size=7)
    lines = ["group\titem\tgold\tpred"]
    for g, (gold, pred) in enumerate(groups):
        lines += [f"g{g}\ti{i}\t{'' if a != a else a}\t{'' if b != b else b}" for i, (a, b) in enumerate(zip(gold, pred))]
    data = "\n".join(lines) + "\n"
    for policy in ("pessimistic", "expected"):
        report = table(CliRunner().invoke(main, ["report", "--tie-policy", policy, "--k", "3"], input=data).stdout)
        for command, args in (("mrr", []), ("ndcg", ["--k", "3"]), ("err", ["--k", "3"]), ("rankdcg", [])):
            out = CliRunner().invoke(main, [command, "--tie-policy", policy, *args], input=data).stdout
            single = table(out)[command]
            assert report[command]["value"] == single["value"], (command, policy)
            assert report[command]["undefined"] == single["undefined"]
        tau = table(CliRunner().invoke(main, ["tau", "--ties", "penalize"], input=data).stdout)["tau"]
        assert report["tau_micro"]["value"] == tau["micro"] and report["tau_macro"]["value"] == tau["macro"]


def test_report_streams_batch_by_batch():
    rng = np.random.default_rng(13)
    groups = random_groups(rng, 400, max_size=7)
    whole, parts = Report(k=2), Report(k=2)
    whole.add(make_batch(groups))
    for i in range(0, len(groups), 29):
        parts.add(make_batch(groups[i:i + 29]))
    a = {r["measure"]: r for r in whole.records()}
    b = {r["measure"]: r for r in parts.records()}
    assert a.keys() == b.keys()
    for name in a:
        assert a[name]["value"] == pytest.approx(b[name]["value"], rel=1e-14, nan_ok=True), name
        assert a[name]["groups"] == b[name]["groups"] and a[name]["undefined"] == b[name]["undefined"]


def test_grades_keep_tau_direction():
    # grades (higher = better) predicted in the right order: tau = +1, NDCG = 1
    data = "group\titem\tgold\tpred\nq\ta\t3\t1\nq\tb\t2\t2\nq\tc\t0\t3\n"
    rows = table(CliRunner().invoke(main, ["report", "--relevance", "grades"], input=data).stdout)
    assert float(rows["tau_micro"]["value"]) == 1.0 and float(rows["ndcg"]["value"]) == 1.0
