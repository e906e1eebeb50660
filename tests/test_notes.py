"""Every choice a command makes for the user is said on stderr, and ``rankeval -q`` silences it.

One test per choice: system scores taken as segment means, a metric left out of the average,
human translations left out, groups pooled in a figure; and what ``-q`` must leave out (the
summary a ``--per-group`` command writes to stderr). Also: a table column prints its numbers
with one number of decimals (``0.000`` beside ``0.005``, never ``0``).
"""

from __future__ import annotations

import csv
import io

import pytest
from click.testing import CliRunner

from rankeval_cli.cli import COMMANDS, main
from conftest import TEST_DATA

EXCERPT = TEST_DATA / "wmt20-mqm-excerpt"
HUMAN = ["--human", str(EXCERPT / "mqm_newstest2020_ende.tsv"), "--human", str(EXCERPT / "mqm_newstest2020_zhen.tsv"),
         "--index", str(EXCERPT / "details.txt")]
QUICK = ["-m", "sys-pa,seg-pearson@item", "--permutations", "20"]


def invoke(args, input=None):
    return CliRunner().invoke(main, args, input=input)


def notes(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("rankeval: ")]


def test_system_scores_taken_as_segment_means_are_announced():
    result = invoke(["meta-eval", *HUMAN, str(EXCERPT / "chrF.seg.score"), str(EXCERPT / "chrF.sys.score"),
                     str(EXCERPT / "YiSi-2.seg.score"), *QUICK])
    assert result.exit_code == 0, result.output
    means = [n for n in notes(result) if "sys_scores=mean" in n]
    assert len(means) == 2 and all("system scores of YiSi-2 taken as the means of their segment scores" in n
                                   for n in means)  # chrF's come from its .sys.score file: no note
    assert {n.split(":")[1].strip() for n in means} == {"en-de", "zh-en"}
    rows = list(csv.DictReader(io.StringIO(result.stdout), delimiter="\t"))
    assert {r["sys_scores"] for r in rows if r["metric"] == "YiSi-2" and r["lp"] != "all"} == {"mean"}
    quiet = invoke(["-q", "meta-eval", *HUMAN, str(EXCERPT / "YiSi-2.seg.score"), *QUICK])
    assert quiet.exit_code == 0 and quiet.stderr == ""
    # no statistic of system scores (SPA compares the segment scores): nothing to say
    spa = invoke(["meta-eval", *HUMAN, str(EXCERPT / "YiSi-2.seg.score"), "-m", "spa,seg-pearson@item",
                  "--permutations", "20"])
    assert spa.exit_code == 0 and not any("sys_scores=mean" in n for n in notes(spa))


def test_a_metric_left_out_of_the_average_is_named(tmp_path):
    """A metric scored on en-de only is in the en-de rows, and a note says why it is not in the lp "all"
    rows nor in the average (as bleurt-combi and Yisi-combi in WMT20)."""
    lines = [line.replace("chrF\t", "chrF-ende\t", 1) for line in (EXCERPT / "chrF.seg.score").read_text().splitlines()
             if "\ten-de\t" in line]
    only_ende = tmp_path / "chrF-ende.seg.score"
    only_ende.write_text("\n".join(lines) + "\n")
    result = invoke(["meta-eval", *HUMAN, str(EXCERPT / "chrF.seg.score"), str(only_ende), *QUICK])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout), delimiter="\t"))
    assert ("en-de", "chrF-ende") in {(r["lp"], r["metric"]) for r in rows}
    assert "chrF-ende" not in {r["metric"] for r in rows if r["lp"] == "all"}
    assert ('chrF-ende: no scores for zh-en: left out of the average and of the lp "all" rows (the average takes '
            "the metrics scored in every task)") in result.stderr
    # scored everywhere but without segment scores: in the "all" rows, out of the average
    result = invoke(["meta-eval", *HUMAN, str(EXCERPT / "chrF.sys.score"), str(EXCERPT / "YiSi-2.seg.score"), *QUICK])
    (note,) = [n for n in notes(result) if n.startswith("rankeval: chrF:")]
    assert "no value in en-de seg-pearson@item, zh-en seg-pearson@item: left out of the average" in note


def test_human_translations_left_out_are_named():
    result = invoke(["meta-eval", *HUMAN, str(EXCERPT / "chrF.seg.score"), str(EXCERPT / "chrF.sys.score"), *QUICK])
    assert ("rankeval: en-de: left out the human translations Human-A.0, Human-B.0, Human-P.0 "
            "(--include-human keeps them)") in notes(result)
    kept = invoke(["meta-eval", *HUMAN, str(EXCERPT / "chrF.seg.score"), str(EXCERPT / "chrF.sys.score"), *QUICK,
                   "--include-human"])
    assert not any("human translations" in n for n in notes(kept))


def per_group_table(tmp_path):
    path = tmp_path / "pg.tsv"
    rows = [(lp, system, f"{lp}{i}", v) for lp in ("de-en", "cs-en") for system, base in (("bm25", 0.2), ("dense", 0.6))
            for i, v in enumerate((base, base + 0.1, base + 0.2))]
    path.write_text("lp\tsystem\tgroup\tndcg\n" + "".join("\t".join(map(str, r)) + "\n" for r in rows))
    return path


def test_plot_distribution_one_box_per_system_and_pooling_announced(tmp_path):
    pytest.importorskip("matplotlib")
    path = per_group_table(tmp_path)
    out = tmp_path / "d.svg"
    refused = invoke(["plot", "distribution", str(path), "-o", str(out)])
    assert refused.exit_code == 1 and not out.exists()
    assert refused.stderr == (f"rankeval: {path}: the rows hold several lp values (cs-en, de-en): draw one box per "
                              "value with --by lp,system\n")
    result = invoke(["plot", "distribution", "--by", "system", str(path), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert notes(result) == [f"rankeval: {path}: each box pools the groups of 2 lp values; --by system,lp draws one "
                             "box per value"]
    svg = out.read_text()
    assert svg.count("(n = 6)") == 2 and ">bm25" in svg and ">dense" in svg
    assert invoke(["-q", "plot", "distribution", "--by", "system", str(path), "-o", str(out)]).stderr == ""
    result = invoke(["plot", "distribution", "--by", "lp", "--by", "system", str(path), "-o", str(out)])
    assert result.exit_code == 0 and notes(result) == [] and out.read_text().count("(n = 3)") == 4


def test_plot_distribution_of_two_runs_draws_two_boxes(tmp_path):
    """``report --per-group`` over two runs: one box per run (system), not one box pooling both."""
    pytest.importorskip("matplotlib")
    trec = TEST_DATA.parent.parent / "examples" / "trec"
    table = tmp_path / "pg.tsv"
    result = invoke(["-q", "report", "--qrels", str(trec / "qrels.txt"), "-m", "map", "--per-group", "-o", str(table),
                     str(trec / "bm25.run"), str(trec / "dense.run")])
    assert result.exit_code == 0 and result.stderr == ""
    out = tmp_path / "d.svg"
    result = invoke(["plot", "distribution", "-m", "map", str(table), "-o", str(out)])
    assert result.exit_code == 0 and result.stderr == ""
    svg = out.read_text()
    assert svg.count("(n = 5)") == 2 and "(n = 10)" not in svg
    assert invoke(["plot", "distribution", "-m", "map", "--by", "system", str(table), "-o", str(out)]).exit_code == 0


def per_group_commands() -> list[str]:
    """Every command with a --per-group option (a new one joins the test below by itself)."""
    found = []
    for name in COMMANDS:
        command = main.get_command(None, name)
        if command is not None and any(p.name == "per_group" for p in getattr(command, "params", [])):
            found.append(name)
    return found


#: commands whose --per-group reads TREC runs rather than a stream: their arguments
TREC = TEST_DATA.parent.parent / "examples" / "trec"
RUNS = {"agree": [str(TREC / "bm25.run"), str(TREC / "dense.run")],
        "judges": ["--qrels", str(TREC / "qrels.txt"), "--candidate", str(TREC / "qrels.txt"), "--bootstrap", "20",
                   str(TREC / "bm25.run"), str(TREC / "dense.run")]}


@pytest.mark.parametrize("name", per_group_commands())
def test_per_group_summary_on_stderr_is_silenced_by_quiet(tmp_path, name):
    stream = invoke(["-q", "convert", "--from", "jcml", "--pred-attr", "unk",
                     str(TEST_DATA.parent.parent / "examples" / "wmt10-de-en.xf.jcml")]).stdout
    out = tmp_path / "rows.tsv"
    args = [name, "--per-group", "-o", str(out), *RUNS.get(name, [])]
    loud = invoke(args, input=None if name in RUNS else stream)
    assert loud.exit_code == 0, loud.output
    if name not in RUNS:
        assert "signature" in loud.stderr  # the summary, after the per-group rows
        assert out.read_text().count("\n") == 41  # header and the 40 groups
    quiet = invoke(["-q", *args], input=None if name in RUNS else stream)
    assert quiet.exit_code == 0 and quiet.stderr == ""


def test_a_column_prints_one_number_of_decimals():
    """Calibrated ε is exactly 0 for some metrics and not for others: every cell of the column has
    --digits decimals (0.000 beside 0.005), in Markdown and LaTeX alike."""
    mtme = TEST_DATA / "mtme" / "wmt20"
    for fmt in ("markdown", "latex"):
        result = invoke(["-q", "meta-eval", "--mtme", str(mtme), "-m", "sys-pa,seg-acc-eq@item", "--permutations",
                         "20", "--output-format", fmt, "--digits", "3"])
        assert result.exit_code == 0, result.output
        sep = " | " if fmt == "markdown" else " & "
        lines = [line for line in result.stdout.splitlines() if sep in line]
        column = [c.strip() for c in lines[0].strip("| \\").split(sep.strip())].index("seg-acc-eq@item:epsilon")
        cells = [line.strip("| \\").split(sep.strip())[column].strip() for line in lines[1:] if "all" not in line]
        cells = [c for c in cells if c and not c.startswith("-")]
        assert "0.000" in cells and "0" not in cells and all(len(c) == 5 for c in cells), cells


def test_plot_scatter_pooling_language_pairs_is_announced(tmp_path):
    pytest.importorskip("matplotlib")
    rows = [(f"{lp}{g}", s, (i + g) % 3 + 1, (i * g) % 3 + 1, lp) for lp in ("de-en", "cs-en") for g in range(3)
            for i, s in enumerate(("A", "B", "C"))]
    stream = "group\titem\tgold\tpred\tlp\n" + "".join("\t".join(map(str, r)) + "\n" for r in rows)
    out = tmp_path / "s.svg"
    result = invoke(["plot", "scatter", "-o", str(out)], input=stream)
    assert result.exit_code == 0 and notes(result) == [
        "rankeval: the stream holds 2 lp values (cs-en, de-en): each system's scores pool them; --by lp draws one "
        "panel per value"]
    assert notes(invoke(["plot", "scatter", "--by", "lp", "-o", str(out)], input=stream)) == []
    assert invoke(["-q", "plot", "scatter", "-o", str(out)], input=stream).stderr == ""
