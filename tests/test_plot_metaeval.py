"""The meta-evaluation figures of ``rankeval plot`` (scatter of system scores, bars, significance) and
every figure kind on every kind of table: a figure, or one line of error, never a traceback.

The scatter's legend is checked against the meta-eval table it comes with (the same run's
``sys-pearson`` and ``sys-pa``); the bars against the summary's values, ranks and intervals;
the heatmap against the p-values of the pairs it draws.
"""

from __future__ import annotations

import csv
import io
import re

import pytest
from click.testing import CliRunner

from rankeval_cli.cli import main
from conftest import TEST_DATA

pytest.importorskip("matplotlib")

MTME = TEST_DATA / "mtme" / "wmt20"
EXAMPLES = TEST_DATA.parent.parent / "examples"


def invoke(args, input=None):
    return CliRunner().invoke(main, args, input=input)


def svg_texts(path) -> str:
    texts = re.findall(r"<text[^>]*>(.*?)</text>", path.read_text(encoding="utf-8"), re.S)
    return "\n".join(re.sub(r"<[^>]+>", "", t) for t in texts)


def tsv(path) -> list[dict]:
    return list(csv.DictReader(io.StringIO(path.read_text()), delimiter="\t"))


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    """Small tables of every kind the commands write (the figures' inputs)."""
    d = tmp_path_factory.mktemp("tables")
    stream = invoke(["-q", "convert", "--from", "jcml", "--pred-attr", "length",
                     str(EXAMPLES / "wmt10-de-en.xf.jcml")]).stdout
    (d / "stream.tsv").write_text(stream)
    for name, args in (("aggregate", ["aggregate"]), ("aggregate-ci", ["aggregate", "--bootstrap", "20"]),
                       ("per-group", ["ndcg", "--per-group"]), ("correlate", ["correlate"])):
        result = invoke(["-q", *args, "-o", str(d / f"{name}.tsv")], input=stream)
        assert result.exit_code == 0, result.output
    jcml = invoke(["-q", "convert", "--from", "jcml", str(EXAMPLES / "wmt10-de-en.xf.jcml")]).stdout
    result = invoke(["-q", "compare", "--pred-columns", "tgt@unk,tgt@length", "--measure", "tau", "--bootstrap", "20",
                     "--permutations", "20", "-o", str(d / "compare.tsv")], input=jcml)
    assert result.exit_code == 0, result.output
    spans = TEST_DATA / "spans"
    result = invoke(["-q", "spans", "eval", "--gold", str(spans / "synthetic-gold.wmt25.tsv"),
                     str(spans / "synthetic-pred-near.wmt25.tsv"), str(spans / "synthetic-pred-loose.wmt25.tsv"),
                     "--permutations", "20", "-o", str(d / "spans-eval.tsv")])
    assert result.exit_code == 0, result.output
    result = invoke(["-q", "meta-eval", "--mtme", str(MTME), "-m", "sys-pa,sys-pearson,spa", "--permutations", "40",
                     "--ci", "0.95", "--bootstrap", "30", "--system-scores", str(d / "system-scores.tsv"), "-o",
                     str(d / "meta-eval.tsv")])
    assert result.exit_code == 0, result.output
    pairs = ["lp\tstatistic\tmetric\tagainst\tdelta\tp_permutation\ttrials\tsignature"]
    for lp, (a, b, p) in (("en-de", ("chrF", "YiSi-2", 0.01)), ("zh-en", ("chrF", "YiSi-2", 0.2))):
        pairs.append(f"{lp}\tspa\t{a}\t{b}\t0.1\t{p}\t100\tmeta-eval|p:0.05")
    pairs += [f"all\tavg\t{a}\t{b}\t0.1\t{p}\t100\tmeta-eval|p:0.05"
              for a, b, p in (("A", "B", 0.3), ("A", "C", 0.0004), ("B", "C", 0.04))]
    (d / "pairs.tsv").write_text("\n".join(pairs) + "\n")
    return d


def test_scatter_legend_is_the_tables_sys_pearson_and_sys_pa(tables, tmp_path):
    out = tmp_path / "s.svg"
    result = invoke(["plot", "scatter", str(tables / "system-scores.tsv"), "-o", str(out)])
    assert result.exit_code == 0 and result.stderr == "", result.output
    text = svg_texts(out)
    rows = tsv(tables / "meta-eval.tsv")
    checked = 0
    for r in rows:
        if r["lp"] == "all":
            continue
        systems = int(r["systems"])
        legend = (f"{systems} systems: Pearson r = {float(r['sys-pearson']):.3f}, "
                  f"pairwise accuracy = {float(r['sys-pa']):.3f}")
        assert legend in text, legend
        assert f"{r['lp']}, {r['metric']}" in text  # the panel's title
        checked += 1
    assert checked == 4
    only = invoke(["plot", "scatter", "--metric", "chrF", str(tables / "system-scores.tsv"), "-o", str(out)])
    assert only.exit_code == 0 and "YiSi-2" not in svg_texts(out) and "en-de, chrF" in svg_texts(out)


def test_scatter_values_are_the_librarys_on_the_written_scores(tables):
    """Exactly: the figure's r and accuracy, computed from the written scores, equal the table's
    values to the last digit the TSV carries."""
    from rankeval_cli.figures.metaeval_data import system_score_panels

    panels = {p.key: p for p in system_score_panels(tables / "system-scores.tsv")}
    for r in tsv(tables / "meta-eval.tsv"):
        if r["lp"] != "all":
            panel = panels[(r["lp"], r["metric"])]
            assert panel.correlations["pearson"] == float(r["sys-pearson"])
            assert panel.correlations["sys-pa"] == float(r["sys-pa"])


def test_scatter_refusals(tables, tmp_path):
    out = tmp_path / "s.svg"
    result = invoke(["plot", "scatter", "--metric", "BLEU", str(tables / "system-scores.tsv"), "-o", str(out)])
    assert result.exit_code == 1 and result.stderr.startswith("rankeval: ") and "no metric BLEU" in result.stderr
    result = invoke(["plot", "scatter", "--method", "borda", str(tables / "system-scores.tsv"), "-o", str(out)])
    assert result.exit_code == 2 and "--method does not apply to meta-eval system scores" in result.output


def test_bars_draw_the_summarys_values_ranks_and_intervals(tables):
    from rankeval_cli.figures.metaeval_data import bar_panels
    from rankeval_cli.figures.metaeval_draw import bars_figure

    rows = tsv(tables / "meta-eval.tsv")
    (average,) = bar_panels(tables / "meta-eval.tsv")
    overall = sorted((r for r in rows if r["lp"] == "all"), key=lambda r: (int(r["avg:rank"]), -float(r["avg"])))
    assert average.key == ("all", "avg") and average.names == [r["metric"] for r in overall]
    assert average.values == [float(r["avg"]) for r in overall]
    assert average.intervals == [(float(r["avg:ci_low"]), float(r["avg:ci_high"])) for r in overall]
    fig = bars_figure([average])
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == average.names
    widths = [bar.get_width() for bar in ax.patches if bar.get_height() == pytest.approx(0.6)]
    assert widths == average.values
    (whiskers,) = [c for c in ax.collections if c.get_segments()]
    drawn = [(float(seg[0][0]), float(seg[1][0])) for seg in whiskers.get_segments()]
    assert drawn == [pytest.approx(interval) for interval in average.intervals]
    assert [t.get_text() for t in fig.axes[1].get_yticklabels()] == [
        f"{float(r['avg']):.3f} ({r['avg:rank']})" for r in overall]
    spa = bar_panels(tables / "meta-eval.tsv", "spa")
    assert [p.key for p in spa] == [("en-de", "spa"), ("zh-en", "spa")]
    assert [p.key for p in bar_panels(tables / "meta-eval.tsv", "sys-pa", ["all"])] == [("all", "sys-pa")]


def test_bars_shade_the_clusters():
    from rankeval_cli.figures.metaeval_data import Bars
    from rankeval_cli.figures.metaeval_draw import bars_figure

    panel = Bars(("en-de", "spa"), list("abcde"), [0.9, 0.8, 0.7, 0.6, 0.5], [1, 1, 2, 3, 3], [None] * 5)
    ax = bars_figure([panel]).axes[0]
    bands = [p for p in ax.patches if p.get_height() != pytest.approx(0.6)]
    # clusters 1 (a, b), 2 (c), 3 (d, e): the second one shaded, dashed lines at both boundaries
    extent = bands[0].get_path().get_extents(bands[0].get_transform()).transformed(ax.transData.inverted())
    assert len(bands) == 1 and sorted(round(float(y), 1) for y in extent.intervaly) == [1.5, 2.5]
    dashed = sorted(line.get_ydata()[0] for line in ax.lines if line.get_linestyle() == "--")
    assert dashed == [1.5, 2.5]


def test_significance_heatmap_cells(tables):
    from rankeval_cli.figures.metaeval_data import significance_panels
    from rankeval_cli.figures.metaeval_draw import significance_figure

    (average,) = significance_panels(tables / "pairs.tsv", "avg")
    assert average.names == ["A", "B", "C"] and average.p == [[None, 0.3, 0.0004], [None, None, 0.04],
                                                            [None, None, None]]
    fig = significance_figure([average])
    ax = fig.axes[0]
    cells = {(round(t.get_position()[1]), round(t.get_position()[0])): t.get_text() for t in ax.texts}
    assert cells == {(0, 1): ".300", (0, 2): "<.001", (1, 2): ".040"}
    shade = ax.images[0].get_array()
    assert shade[0, 1] == 0 and shade[0, 2] == 1 and shade[1, 2] == 1 and shade.mask[1, 0]
    assert [p.key for p in significance_panels(tables / "pairs.tsv", "spa", ["zh-en"])] == [("zh-en", "spa")]


def test_significance_agrees_with_the_clusters():
    """On a meta-eval task, a metric starts a new cluster exactly where a metric above it in its cluster
    has a dark cell against it (p ≤ 0.05): the heatmap shows why the table's ranks are what they are."""
    from rankeval_cli.figures.metaeval_data import Pairs
    from rankeval_cli.formats import metaeval_input
    from rankeval_cli.stats.metrics_table import Options, parse_measures, run_table

    tables = metaeval_input.tables_from_mtme(str(MTME), report=lambda *a: None)
    result = run_table(tables, parse_measures(["seg-pearson@item"]), Options(permutations=60))
    for key, comparison in result.results.items():
        n = len(comparison.names)
        panel = Pairs(key, comparison.names, [[comparison.p[i, j] if i < j else None for j in range(n)]
                                              for i in range(n)])
        start = 0
        for j in range(1, n):
            if any(panel.p[i][j] <= panel.alpha for i in range(start, j)):
                start = j
                assert comparison.ranks[j] == comparison.ranks[j - 1] + 1
            else:
                assert comparison.ranks[j] == comparison.ranks[j - 1]


KINDS = ("ranking", "scatter", "distribution", "bars", "significance")
#: the figure each kind draws from each table (0); a one-line data error (1) otherwise
EXPECTED = {
    "ranking": {"aggregate", "aggregate-ci"},
    "scatter": {"stream", "system-scores"},
    "distribution": {"per-group"},
    "bars": {"meta-eval", "spans-eval"},
    "significance": {"pairs"},
}
TABLES = ("stream", "aggregate", "aggregate-ci", "per-group", "correlate", "compare", "meta-eval", "spans-eval",
          "system-scores", "pairs")


def one_line_error(result, code):
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith(("rankeval: ", "Error: "))]
    assert len(lines) == 1 and lines[0] == result.stderr.splitlines()[-1], result.stderr


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_on_every_table(tables, tmp_path, kind):
    for table in TABLES:
        out = tmp_path / f"{table}.svg"
        result = invoke(["-q", "plot", kind, str(tables / f"{table}.tsv"), "-o", str(out)])
        if table in EXPECTED[kind]:
            assert result.exit_code == 0 and out.stat().st_size > 1000, (table, result.output)
        else:
            one_line_error(result, 1)
            assert not out.exists()


def test_every_method_of_scatter(tables, tmp_path):
    from rankeval_cli.aggregate.registry import FUSION, METHODS, SCORES

    METHOD_NAMES, SCORE_NAMES, FUSION_NAMES = list(METHODS), list(SCORES), list(FUSION)

    out = tmp_path / "s.svg"
    small = tmp_path / "small.tsv"  # 4 systems ranked in 6 groups, gold and pred
    rows = [(g, f"sys{i}", (i + g) % 4 + 1, (i * g) % 4 + 1) for g in range(6) for i in range(4)]
    small.write_text("group\titem\tgold\tpred\n" + "".join("\t".join(map(str, r)) + "\n" for r in rows))
    for method in METHOD_NAMES:
        result = invoke(["-q", "plot", "scatter", "--method", method, str(small), "-o", str(out)])
        assert result.exit_code == 0 and "4 systems: Pearson r = " in svg_texts(out), (method, result.output)
    # 26 systems: exact Kemeny refuses in one line, its local search draws
    one_line_error(invoke(["plot", "scatter", "--method", "kemeny", str(tables / "stream.tsv"), "-o", str(out)]), 1)
    for method in (*SCORE_NAMES, *FUSION_NAMES):
        result = invoke(["plot", "scatter", "--method", method, str(tables / "stream.tsv"), "-o", str(out)])
        one_line_error(result, 2)
        assert "Invalid value for '--method'" in result.stderr
    for kind in ("ranking", "distribution", "bars", "significance"):  # --method belongs to scatter
        result = invoke(["plot", kind, "--method", "borda", str(tables / "aggregate.tsv"), "-o", str(out)])
        one_line_error(result, 2)
