"""``rankeval table`` on a meta-eval summary: the WMT layout, checked cell by cell against the summary.

The expected table is built here from the summary's TSV with the csv module: one row per
metric in the order of the average's clusters (then the metrics outside the average), the
average, the pooled values and every (language pair, statistic) as "value (rank)", bold for
rank 1, intervals in brackets with --ci.
"""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner

from rankeval_cli.cli import main
from conftest import TEST_DATA

MTME = TEST_DATA / "mtme" / "wmt20"


def invoke(args, input=None):
    return CliRunner().invoke(main, args, input=input)


@pytest.fixture(scope="module")
def summary(tmp_path_factory):
    path = tmp_path_factory.mktemp("me") / "meta-eval.tsv"
    result = invoke(["-q", "meta-eval", "--mtme", str(MTME), "--permutations", "50", "--ci", "0.9", "--bootstrap",
                     "40", "-o", str(path)])
    assert result.exit_code == 0, result.output
    return path


def expected(path, digits=3, ci=False):
    rows = list(csv.DictReader(io.StringIO(path.read_text()), delimiter="\t"))
    measures = [c for c in rows[0] if ":" not in c and c not in ("lp", "metric", "avg", "systems", "segments",
                                                                 "sys_scores", "signature")]
    lps = list(dict.fromkeys(r["lp"] for r in rows if r["lp"] != "all"))

    def cell(r, m):
        if not r.get(m):
            return ""
        text = f"{float(r[m]):.{digits}f}"
        text = f"**{text}**" if r[f"{m}:rank"] == "1" else text
        text += f" ({r[m + ':rank']})"
        if ci:
            text += f" [{float(r[m + ':ci_low']):.{digits}f}, {float(r[m + ':ci_high']):.{digits}f}]"
        return text

    overall = sorted((r for r in rows if r["lp"] == "all"), key=lambda r: (int(r["avg:rank"]), -float(r["avg"])))
    metrics = [r["metric"] for r in overall]
    metrics += [m for m in dict.fromkeys(r["metric"] for r in rows) if m not in metrics]
    columns = [("all", m) for m in measures if any(r["lp"] == "all" and r[m] for r in rows)]
    columns += [(lp, m) for lp in lps for m in measures]
    header = ["metric", "avg", *(f"{lp} {m}" for lp, m in columns)]
    table = []
    for metric in metrics:
        by_lp = {r["lp"]: r for r in rows if r["metric"] == metric}
        table.append([metric, cell(by_lp.get("all", {}), "avg"), *(cell(by_lp.get(lp, {}), m) for lp, m in columns)])
    return header, table


def markdown_rows(text: str) -> list[list[str]]:
    lines = [line for line in text.splitlines() if line.startswith("|")]
    return [[c.strip() for c in line.strip("|").split(" | ")] for line in lines if not line.startswith("|---")]


def test_the_wmt_layout_cell_by_cell(summary):
    result = invoke(["table", str(summary)])
    assert result.exit_code == 0, result.output
    header, table = expected(summary)
    rows = markdown_rows(result.stdout)
    assert rows[0] == header and rows[1:] == table
    with_ci = invoke(["table", "--ci", "0.9", "--digits", "2", str(summary)])
    assert markdown_rows(with_ci.stdout)[1:] == expected(summary, digits=2, ci=True)[1]
    assert "Brackets: 90% percentile bootstrap intervals (40 replicates" in with_ci.stdout


def test_the_legend_names_statistics_weights_and_test(summary):
    text = invoke(["table", str(summary)]).stdout
    for words in ("spa: soft pairwise accuracy of the system rankings (Thompson et al. 2024)",
                  "seg-acc-eq@item: pairwise accuracy of the segment scores with tie calibration",
                  "weights: every task weighs the same (WMT24)",
                  "better at p ≤ 0.05 by a paired permutation test (50 trials",
                  "bold: the top cluster", "Signature: `meta-eval|"):
        assert words in text
    assert "Brackets" not in text


def test_latex_groups_the_columns_by_language_pair(summary):
    result = invoke(["table", "--output-format", "latex", str(summary)])
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert text.startswith("\\begin{tabular}{l" + "r" * 14 + "}\n\\toprule\n")
    assert ("\\multicolumn{1}{c}{all} & \\multicolumn{6}{c}{en-de} & \\multicolumn{6}{c}{zh-en} \\\\\n"
            "\\cmidrule(lr){3-3}\\cmidrule(lr){4-9}\\cmidrule(lr){10-15}") in text
    header, table = expected(summary)
    first = next(line for line in text.splitlines() if line.startswith(table[0][0] + " & "))
    assert first.split(" & ")[1] == table[0][1].replace("**", "\\textbf{", 1).replace("**", "}", 1)
    assert "p $\\leq$ 0.05" in text and "% signature: meta-eval|" in text


def test_json_lines_and_stdin_give_the_same_table(summary, tmp_path):
    rows = list(csv.DictReader(io.StringIO(summary.read_text()), delimiter="\t"))
    jsonl = tmp_path / "me.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows))
    direct = invoke(["table", str(summary)]).stdout
    assert invoke(["table", str(jsonl)]).stdout == direct
    assert invoke(["table"], input=summary.read_text()).stdout == direct
    tsv = invoke(["table", "--output-format", "tsv", str(summary)]).stdout
    assert tsv.splitlines()[0].split("\t") == expected(summary)[0] and "**" not in tsv


def test_what_does_not_apply_is_refused(summary, tmp_path):
    for option in (["--label", "x"], ["--best", "high"], ["--effect", "d_z"], ["--test", "t"]):
        result = invoke(["table", *option, str(summary)])
        assert result.exit_code == 2 and "does not apply to a meta-eval summary" in result.output
    assert invoke(["table", str(summary), str(summary)]).exit_code == 2
    result = invoke(["table", "--ci", "0.95", str(summary)])
    assert result.exit_code == 1 and result.stderr == f"rankeval: {summary}: the intervals are at level 0.9, not --ci 0.95\n"
    bad = tmp_path / "bad.tsv"
    bad.write_text(summary.read_text().replace("\t0.", "\tx.", 1))
    result = invoke(["table", str(bad)])
    assert result.exit_code == 1 and result.stderr.startswith(f"rankeval: {bad}:2: column ") and "Traceback" not in result.stderr
