"""Markdown and LaTeX summaries, --digits, --by partitions, and ``rankeval table``."""

from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner

from rankeval_cli.cli import main
from rankeval_cli.table_writers import latex_escape, latex_table, markdown_table
from robust import check_exit

TSV = ("group\titem\tgold\tpred\tlp\n"
       "s1\ta\t1\t1\tde-en\ns1\tb\t2\t3\tde-en\ns1\tc\t3\t2\tde-en\n"
       "s2\ta\t1\t2\tcs-en\ns2\tb\t2\t1\tcs-en\n"
       "s3\ta\t1\t1\tde-en\ns3\tb\t2\t2\tde-en\n")


def invoke(*args, input=TSV):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def test_markdown_and_latex_tables_by_hand():
    assert markdown_table(["name", "value"], [["a|b", "0.5000"], ["c", "–"]]) == (
        "| name | value |\n|---|---:|\n| a\\|b | 0.5000 |\n| c | – |\n")
    assert latex_escape("x_1 & 50% #2") == r"x\_1 \& 50\% \#2"
    assert latex_table(["m", "v"], [["ndcg_cut_10", r"\textbf{0.5000}$^{1}$"]]) == (
        "\\begin{tabular}{lr}\n\\toprule\nm & v \\\\\n\\midrule\n"
        "ndcg\\_cut\\_10 & \\textbf{0.5000}$^{1}$ \\\\\n\\bottomrule\n\\end{tabular}\n")


def test_by_gives_one_summary_per_value_equal_to_the_filtered_input():
    # tau per lp computed on the whole stream equals tau on each lp's rows alone
    by = invoke("tau", "--by", "lp", "--output-format", "jsonl")
    rows = {r["lp"]: r for r in map(json.loads, by.stdout.splitlines())}
    assert list(rows) == ["de-en", "cs-en"]
    for lp, row in rows.items():
        lines = TSV.splitlines()
        alone = invoke("tau", "--output-format", "jsonl",
                       input="\n".join([lines[0]] + [x for x in lines[1:] if x.endswith(lp)]) + "\n")
        expected = json.loads(alone.stdout)
        assert {k: v for k, v in row.items() if k != "lp"} == expected
    # hand count: de-en groups s1 (C=2, D=1) and s3 (C=1): micro penalize = (3-1)/4 = 0.5
    assert rows["de-en"]["micro"] == 0.5 and rows["cs-en"]["micro"] == -1.0


@pytest.mark.parametrize("command", ["mrr", "ndcg", "err", "rankdcg", "report"])
def test_by_on_position_measures(command):
    result = invoke(command, "--by", "lp")
    assert result.exit_code == 0, result.output
    header, *rows = result.stdout.splitlines()
    assert header.split("\t")[0] == "lp" and {r.split("\t")[0] for r in rows} == {"de-en", "cs-en"}


def test_by_on_a_missing_column_or_a_column_changing_within_a_group():
    assert invoke("ndcg", "--by", "testset").exit_code == 1
    bad = TSV.replace("s2\tb\t2\t1\tcs-en", "s2\tb\t2\t1\tde-en")
    result = invoke("tau", "--by", "lp", input=bad)
    assert result.exit_code == 1 and "changes within group 's2'" in result.stderr


def test_markdown_output_and_digits():
    result = invoke("ndcg", "--output-format", "markdown", "--digits", "2")
    lines = result.stdout.splitlines()
    assert lines[0].startswith("| measure | value |") and lines[1].startswith("|---|---:|")
    value = float(lines[2].split("|")[2])
    exact = json.loads(invoke("ndcg", "--output-format", "jsonl").stdout)["value"]
    assert value == round(exact, 2) and lines[2].split("|")[2].strip() == f"{exact:.2f}"
    # --digits rounds TSV and JSON too; json is the old spelling of jsonl
    assert json.loads(invoke("ndcg", "--output-format", "json", "--digits", "3").stdout)["value"] == round(exact, 3)


def test_table_gathers_runs_with_intervals_and_significance(tmp_path):
    a, b = tmp_path / "a.tsv", tmp_path / "b.tsv"
    a.write_text(invoke("ndcg", "--by", "lp").stdout)
    b.write_text(invoke("mrr", "--by", "lp").stdout)
    result = invoke("table", "--label", "first", "--label", "second", a, b)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "| system | lp | ndcg | mrr |"
    assert lines[2].startswith("| first | de-en | ") and lines[2].endswith(" |  |")
    assert lines[-1].startswith("- `mrr: mrr|")
    compare = tmp_path / "c.tsv"
    compare.write_text("system\tbaseline\tmeasure\tvalue\tp_randomization\tsignature\n"
                       "x\tx\ttau_micro\t0.5\t\ts\ny\tx\ttau_micro\t0.25\t0.01\ts\nz\tx\ttau_micro\t0.125\t0.2\ts\n")
    rows = invoke("table", compare).stdout.splitlines()
    # one row per system (the baseline is in the legend), the best value in bold
    assert rows[:5] == ["| system | tau_micro |", "|---|---:|", "| x | **0.5000** |", "| y | 0.2500† |",
                        "| z | 0.1250 |"]
    assert rows[6] == "† p < 0.05 against x (paired randomization test, not adjusted for multiple comparisons). " \
                      "Bold: the highest value of each column."


def test_table_marks_clusters_and_counts(tmp_path):
    agg = tmp_path / "human.tsv"
    agg.write_text("item\tscore\trank\tlo\thi\tcluster\tsignature\n"
                   "A\t0.75\t1\t1\t1\t1\ts\nB\t0.5\t2\t2\t3\t2\ts\nC\t0.25\t3\t2\t3\t2\ts\n")
    latex = invoke("table", "--output-format", "latex", agg).stdout
    assert "A & \\textbf{0.7500}$^{1}$ \\\\" in latex and "C & 0.2500$^{2}$ \\\\" in latex
    assert invoke("table", "--output-format", "tsv", agg).stdout.splitlines()[1] == "A\t0.7500 (1)"


def test_table_errors(tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text("measure\tvalue\nndcg\n")
    result = invoke("table", bad)
    assert result.exit_code == 1 and "bad.tsv:2: expected 2 tab-separated fields, found 1" in result.stderr
    assert invoke("table", "--label", "x", bad, bad).exit_code == 2


def test_compare_by_equals_each_partition_alone():
    lines = TSV.replace("\tpred\t", "\tp1\t").splitlines()
    data = "\n".join([lines[0] + "\tp2"] + [f"{x}\t{i % 3}" for i, x in enumerate(lines[1:])]) + "\n"
    args = ["compare", "--pred-columns", "p1,p2", "--bootstrap", "50", "--permutations", "50", "--output-format", "jsonl"]
    by = [json.loads(x) for x in invoke(*args, "--by", "lp", input=data).stdout.splitlines()]
    assert [r["lp"] for r in by] == ["de-en", "de-en", "cs-en", "cs-en"]
    for lp in ("de-en", "cs-en"):
        alone = invoke(*args, input="\n".join([lines[0] + "\tp2"] + [
            f"{x}\t{i % 3}" for i, x in enumerate(lines[1:]) if f"\t{lp}" in x]) + "\n")
        expected = [json.loads(x) for x in alone.stdout.splitlines()]
        assert [{k: v for k, v in r.items() if k != "lp"} for r in by if r["lp"] == lp] == expected


# --- tables for papers ------------------------------------------------------------------------------

def test_p_values_print_as_less_than_a_thousandth_never_zero():
    from rankeval_cli.table_writers import p_value_text

    assert [p_value_text(p) for p in (0.0, 1e-12, 0.0004, 0.001, 0.0123, 0.5, 1.0)] == \
        ["< 0.001", "< 0.001", "< 0.001", "0.001", "0.012", "0.500", "1.000"]
    assert p_value_text(0.00004, 4) == "< 0.0001" and p_value_text(float("nan")) == "–"


def test_summary_tables_for_papers_carry_no_signature_column():
    data = "group\titem\tgold\tpred\n" + "".join(
        f"g{g}\t{i}\t{r}\t{(r + g) % 4 + 1}\n" for g in range(12) for i, r in zip("abcd", (1, 2, 3, 4)))
    markdown = invoke("report", "--ci", "0.9", "--bootstrap", "50", "--output-format", "markdown",
                      input=data).stdout
    header = markdown.splitlines()[0]
    assert header == "| measure | value | 90% CI | groups | undefined |"
    assert "signature" not in header and "\nSignature: `tau|" in markdown
    tau_p = next(line for line in markdown.splitlines() if line.startswith("| tau_p |"))
    assert tau_p.split("|")[2].strip() in ("< 0.001",) or float(tau_p.split("|")[2]) >= 0.001
    two = "group\titem\tgold\tpred\tp2\n" + "".join(
        f"g{g}\t{i}\t{r}\t{(r + g) % 4 + 1}\t{r}\n" for g in range(12) for i, r in zip("abcd", (1, 2, 3, 4)))
    latex = invoke("compare", "--pred-columns", "pred,p2", "--bootstrap", "50", "--permutations", "50",
                   "--output-format", "latex", input=two).stdout
    assert "signature" not in latex.split("\\midrule")[0] and "% signature: tau|" in latex
    assert "95\\% CI" in latex and "delta 95\\% CI" in latex


def test_latex_writes_less_than_in_math_mode():
    import io

    from rankeval_cli.record_writer import RecordWriter

    out = io.StringIO()
    with RecordWriter(out, "latex") as writer:
        writer.write({"system": "a", "p_randomization": 0.0, "signature": "s"})
    assert "$<$ 0.001" in out.getvalue() and "% signature: s" in out.getvalue()


COMPARED = ("system\tbaseline\tmeasure\tvalue\tgroups\tdelta\td_z\tes_e\tp_t\tp_randomization\tp_t_adj\t"
            "p_randomization_adj\tfamily\tsignature\n"
            "b\tb\tmap\t0.25\t50\t\t\t\t\t\t\t\t\tmap|correction:holm|family:baseline\n"
            "x\tb\tmap\t0.31\t50\t0.06\t0.5\t0.7\t0.001\t0.04\t0.002\t0.08\t2\tmap|correction:holm|family:baseline\n"
            "y\tb\tmap\t0.2\t50\t-0.05\t-0.3\t-0.6\t0.03\t0.02\t0.06\t0.04\t2\tmap|correction:holm|family:baseline\n")


def test_table_marks_the_corrected_p_of_the_chosen_test(tmp_path):
    path = tmp_path / "cmp.tsv"
    path.write_text(COMPARED)
    rows = invoke("table", path).stdout.splitlines()  # default: the first adjusted column, p_t_adj
    assert rows[2:5] == ["| b | 0.2500 |", "| x | **0.3100**† |", "| y | 0.2000 |"]
    assert rows[6].startswith("† p < 0.05 against b (paired t-test, Holm-adjusted over the 2 comparisons of "
                              "each measure).")
    rows = invoke("table", "--test", "randomization", path).stdout.splitlines()
    assert rows[2:5] == ["| b | 0.2500 |", "| x | **0.3100** |", "| y | 0.2000† |"]  # 0.08 and 0.04 (adjusted)
    rows = invoke("table", "--test", "t", "--alpha", "0.1", "--best", "none", "--effect", "es_e", path).stdout
    assert "| x | 0.3100† (+0.7000) |" in rows and "| y | 0.2000† (−0.6000) |".replace("−", "-") in rows
    assert "In parentheses: Sakai's ES_E against b (mean difference" in rows


def test_table_refuses_input_without_the_columns_it_needs(tmp_path):
    path = tmp_path / "cmp.tsv"
    path.write_text(COMPARED)
    result = invoke("table", "--test", "wilcoxon", path)
    assert result.exit_code == 1
    assert result.stderr == (f"rankeval: {path}:2: no column p_wilcoxon (p-values here: p_t, p_randomization); "
                             "run compare with --test wilcoxon\n")
    result = invoke("table", "--effect", "g_z", path)
    assert result.exit_code == 1 and "no column g_z" in result.stderr and result.stderr.count("\n") == 1
    bare = tmp_path / "bare.tsv"
    bare.write_text("system\tmeasure\tsignature\nx\tmap\ts\n")
    result = invoke("table", bare)
    assert result.exit_code == 1 and result.stderr.startswith(f"rankeval: {bare}:1: not a summary: no value column")


def test_table_letters_for_several_baselines_in_markdown_and_latex(tmp_path):
    path = tmp_path / "pairs.tsv"
    sig = "map|correction:bh|family:all-pairs"
    path.write_text("system\tbaseline\tmeasure\tvalue\tp_t\tp_t_adj\tfamily\tsignature\n"
                    f"a\ta\tmap\t0.2\t\t\t\t{sig}\nb\ta\tmap\t0.3\t0.01\t0.02\t3\t{sig}\n"
                    f"c\ta\tmap\t0.35\t0.001\t0.003\t3\t{sig}\nb\tb\tmap\t0.3\t\t\t\t{sig}\n"
                    f"c\tb\tmap\t0.35\t0.3\t0.3\t3\t{sig}\n")
    rows = invoke("table", path).stdout.splitlines()
    assert rows[2:5] == ["| a | 0.2000 |", "| b | 0.3000<sup>a</sup> |", "| c | **0.3500**<sup>a</sup> |"]
    assert rows[6] == ("Letters: p < 0.05 against that system, a = a, b = b (paired t-test, Benjamini-Hochberg-"
                       "adjusted over the 3 comparisons of each measure: all pairs). Bold: the highest value of "
                       "each column.")
    latex = invoke("table", "--output-format", "latex", path).stdout
    assert "c & \\textbf{0.3500}$^{\\mathrm{a}}$ \\\\" in latex
    assert "{\\footnotesize Letters: $p<0.05$ against that system, a = a, b = b (paired t-test" in latex
    tsv = invoke("table", "--output-format", "tsv", path).stdout.splitlines()
    assert tsv[1:] == ["a\t0.2000", "b\t0.3000 [a]", "c\t0.3500 [a]"]


# --- input that is not a summary, garbage, and values that would be dropped -----------------------

@pytest.mark.parametrize("text, line, fragment", [
    ("group\titem\tgold\tpred\ng\ta\t1\t2\n", 1, "not a summary: no value column"),  # a ranking stream
    ('{"group": "g", "items": ["a"], "gold": [1]}\n', 1, "not a summary: no value column"),
    ("", 1, "not a summary: no records"),
    ("\n\n", 1, "not a summary: no records"),
    ("measure\tvalue\nndcg\tabc\n", 2, "column 'value': 'abc' is not a number"),  # once shown as –
    ("measure\tvalue\tci_low\tci_high\nndcg\t0.5\tx\t1\n", 2, "column 'ci_low': 'x' is not a number"),
    ("measure\tvalue\tp_randomization\nndcg\t0.5\t1_0\n", 2, "column 'p_randomization': '1_0' is not a number"),
    ('{"measure": "ndcg", "value": true}\n', 1, "column 'value': True is not a number"),
    ("measure\tvalue\nndcg\t0.5\nndcg\t0.6\n", 3, "a second value for the row (no key columns) in column 'ndcg' "
                                                 "(the first at IN:2)"),  # the first was dropped
    ("lp\tmeasure\tvalue\nde-en\tndcg\t0.5\nde-en\tndcg\t0.6\n", 3, "the row lp=de-en"),
    ("measure\tvalue\tvalue\nndcg\t0.5\t1\n", 1, "the header names column(s) 'value' twice"),
    ('{"measure": "ndcg", "value": 0.5, "value": 0.6}\n', 1, "the key 'value' appears twice"),
])
def test_table_refuses_what_is_not_a_summary(tmp_path, text, line, fragment):
    path = tmp_path / "in.tsv"
    path.write_text(text)
    result = invoke("table", path)
    message = check_exit(result, source=str(path), line=line)
    assert result.exit_code == 1 and fragment.replace("IN", str(path)) in message


def test_table_with_two_runs_of_one_label_is_an_error(tmp_path):
    a, b = tmp_path / "a.tsv", tmp_path / "b.tsv"
    a.write_text("measure\tvalue\nndcg\t0.5\n")
    b.write_text("measure\tvalue\nndcg\t0.6\n")
    message = check_exit(invoke("table", "--label", "x", "--label", "x", a, b), source=str(b), line=2)
    assert f"(the first at {a}:2); tell the runs apart with --label" in message


def test_table_reads_a_header_only_summary_and_infinities(tmp_path):
    empty = tmp_path / "empty.tsv"
    empty.write_text("item\tscore\trank\n")  # aggregate of no groups
    assert invoke("table", empty).exit_code == 0
    odd = tmp_path / "odd.tsv"
    odd.write_text("measure\tvalue\nx\tinf\ny\tnan\nz\t\n")
    assert invoke("table", "--output-format", "tsv", odd).stdout.splitlines()[1:] == ["inf\t–\t–"]


def test_infinite_and_zero_effect_sizes_are_printed_and_explained():
    """d_z is ±∞ when every topic differs by the same amount; the cell shows it and the legend says so."""
    from rankeval_cli import summary_table as st

    assert (st._signed(math.inf, 3), st._signed(-math.inf, 3), st._signed(0.0, 3)) == ("+∞", "-∞", "+0.000")
    assert "∞ when every topic differs by the same amount" in st.EFFECT_NAMES["d_z"]
    assert "0 with two topics" in st.EFFECT_NAMES["g_z"]
