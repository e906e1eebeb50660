"""``rankeval plot``: each figure is rendered and the image checked (size, not blank, its text).

SVG is written with text as text, so the system names, panel titles and the legend with
the correlations can be looked up; the correlations are computed here independently
(slow_aggregate's expected wins, scipy's pearsonr and kendalltau).
"""

from __future__ import annotations

import json
import re
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats

import slow_aggregate as slow
from rankeval_cli.cli import main

pytest.importorskip("matplotlib")  # in the test extra; the plot extra for users

ROOT = Path(__file__).resolve().parents[1]

RANKING = """item\tscore\trank\tlo\thi\tcluster\tsignature
alpha\t0.75\t1\t1\t1\t1\taggregate|x
beta\t0.5\t2\t2\t3\t2\taggregate|x
gamma\t0.4\t3\t2\t3\t2\taggregate|x
delta\t0.125\t4\t4\t4\t3\taggregate|x
"""

RANKING_BY = """lp\titem\tscore\trank\tlo\thi\tcluster\tsignature
de-en\talpha\t0.75\t1\t1\t2\t1\ts
de-en\tbeta\t0.5\t2\t1\t2\t1\ts
cs-en\tbeta\t0.6\t1\t1\t1\t1\ts
cs-en\tgamma\t0.3\t2\t2\t2\t2\ts
"""


def run(args, input=None):
    return CliRunner().invoke(main, ["plot", *args], input=input)


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def png_pixels(path: Path) -> np.ndarray:
    from matplotlib.image import imread

    return imread(str(path))


def not_blank(pixels: np.ndarray) -> bool:
    """More than one colour, and a fair share of non-white pixels (ink) but not all."""
    rgb = pixels[..., :3].reshape(-1, 3)
    ink = np.any(rgb < 0.9, axis=1).mean()
    return len(np.unique(rgb, axis=0)) > 2 and 0.005 < ink < 0.6


def svg_texts(path: Path) -> str:
    """The text of every <text> element of an SVG (matplotlib may split it into tspans)."""
    svg = path.read_text(encoding="utf-8")
    texts = re.findall(r"<text[^>]*>(.*?)</text>", svg, re.S)
    return "\n".join(re.sub(r"<[^>]+>", "", t) for t in texts).replace("&lt;", "<").replace("&gt;", ">")


def test_ranking_png_has_the_size_asked_for_and_ink(tmp_path):
    (tmp_path / "agg.tsv").write_text(RANKING)
    out = tmp_path / "rank.png"
    result = run(["ranking", str(tmp_path / "agg.tsv"), "-o", str(out), "--dpi", "100"])
    assert result.exit_code == 0, result.output
    width, height = png_size(out.read_bytes())
    # one panel 4.6 in wide, 0.28 in per system + 1.1 in, at 100 dpi
    assert (width, height) == (460, round(100 * (0.28 * 4 + 1.1)))
    assert not_blank(png_pixels(out))


def test_ranking_svg_names_every_system_and_score(tmp_path):
    (tmp_path / "agg.tsv").write_text(RANKING)
    out = tmp_path / "rank.svg"
    assert run(["ranking", str(tmp_path / "agg.tsv"), "-o", str(out)]).exit_code == 0
    text = svg_texts(out)
    for name, score in (("alpha", "0.750"), ("beta", "0.500"), ("gamma", "0.400"), ("delta", "0.125")):
        assert name in text and score in text
    assert "95% bootstrap range" in text
    # two cluster boundaries (after alpha, after gamma): two dashed separators, one shaded band
    svg = out.read_text(encoding="utf-8")
    assert svg.count("stroke-dasharray") >= 2


def test_ranking_by_gives_one_panel_per_value(tmp_path):
    (tmp_path / "agg.tsv").write_text(RANKING_BY)
    out = tmp_path / "rank.svg"
    assert run(["ranking", "--by", "lp", str(tmp_path / "agg.tsv"), "-o", str(out)]).exit_code == 0
    text = svg_texts(out)
    assert "de-en" in text.splitlines() and "cs-en" in text.splitlines()  # panel titles: the values
    # without --by the repeated item is an error that names the missing option
    result = run(["ranking", str(tmp_path / "agg.tsv"), "-o", str(tmp_path / "x.svg")])
    assert result.exit_code == 1 and "--by (lp)" in result.output and "agg.tsv:4" in result.output
    assert not (tmp_path / "x.svg").exists()


def test_ranking_from_a_real_aggregate_run(tmp_path, shared):
    agg = tmp_path / "agg.tsv"
    convert = CliRunner().invoke(main, ["convert", "--from", "wmt-rr", str(shared / "wmt16-rr" / "wmt16.ron-eng.csv")])
    assert convert.exit_code == 0
    result = CliRunner().invoke(main, ["aggregate", "--bootstrap", "50", "-o", str(agg)], input=convert.stdout)
    assert result.exit_code == 0
    out = tmp_path / "rank.png"
    assert run(["ranking", str(agg), "-o", str(out)]).exit_code == 0
    assert not_blank(png_pixels(out))


def test_ranking_refuses_a_both_sides_table(tmp_path):
    (tmp_path / "both.tsv").write_text("item\tgold_score\tgold_rank\tpred_score\tpred_rank\tsignature\n"
                                       "a\t1\t1\t0.5\t1\ts\n")
    result = run(["ranking", str(tmp_path / "both.tsv"), "-o", str(tmp_path / "x.png")])
    assert result.exit_code == 1 and "--column gold" in result.output


# A stream of 6 rankings of 4 systems, gold and a metric's ranks (lower = better).
STREAM = [
    ("g1", {"A": (1, 2), "B": (2, 1), "C": (3, 3), "D": (4, 4)}),
    ("g2", {"A": (1, 1), "B": (3, 2), "C": (2, 4), "D": (4, 3)}),
    ("g3", {"A": (2, 1), "B": (1, 3), "C": (4, 2), "D": (3, 4)}),
    ("g4", {"A": (1, 3), "B": (2, 2), "C": (2, 1), "D": (4, 4)}),
    ("g5", {"A": (1, 1), "C": (2, 2), "D": (3, 3)}),
    ("g6", {"B": (1, 2), "C": (3, 1), "D": (2, 3)}),
]


def stream_tsv() -> str:
    rows = ["group\titem\tgold\tpred"]
    rows += [f"{g}\t{item}\t{gold}\t{pred}" for g, items in STREAM for item, (gold, pred) in items.items()]
    return "\n".join(rows) + "\n"


def test_scatter_legend_holds_pearson_and_kendall_computed_independently(tmp_path):
    gold = slow.expected_wins([[(i, v[0]) for i, v in items.items()] for _, items in STREAM])
    pred = slow.expected_wins([[(i, v[1]) for i, v in items.items()] for _, items in STREAM])
    systems = sorted(gold)
    x, y = [gold[s] for s in systems], [pred[s] for s in systems]
    r = stats.pearsonr(x, y)[0]
    tau = stats.kendalltau(x, y)[0]
    out = tmp_path / "scatter.svg"
    result = run(["scatter", "-o", str(out)], input=stream_tsv())
    assert result.exit_code == 0, result.output
    text = svg_texts(out)
    assert f"4 systems: Pearson r = {r:.3f}, Kendall \u03c4 = {tau:.3f}" in text
    for system in systems:
        assert system in text.splitlines()
    assert "human: gold, expected-wins" in text


def test_scatter_from_two_aggregate_tables(tmp_path):
    human = {"sysA": 0.9, "sysB": 0.7, "sysC": 0.2, "sysD": 0.4, "sysE": 0.55}
    metric = {"sysA": 31.0, "sysB": 30.5, "sysC": 22.0, "sysD": 27.5, "sysE": 26.0, "sysF": 12.0}
    for name, table in (("human.tsv", human), ("metric.tsv", metric)):
        (tmp_path / name).write_text("item\tscore\trank\n" + "".join(
            f"{k}\t{v}\t{i + 1}\n" for i, (k, v) in enumerate(sorted(table.items(), key=lambda kv: -kv[1]))))
    shared = sorted(human)
    r = stats.pearsonr([human[s] for s in shared], [metric[s] for s in shared])[0]
    tau = stats.kendalltau([human[s] for s in shared], [metric[s] for s in shared])[0]
    out = tmp_path / "s.svg"
    result = run(["scatter", "--aggregates", str(tmp_path / "human.tsv"), str(tmp_path / "metric.tsv"),
                  "--label", "DA (expected wins)", "--label", "BLEU", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "1 system(s) scored on one side only" in result.output  # sysF
    text = svg_texts(out)
    assert f"5 systems: Pearson r = {r:.3f}, Kendall \u03c4 = {tau:.3f}" in text
    assert "DA (expected wins)" in text and "BLEU" in text and "sysF" not in text


def test_scatter_png_by_language_pair_on_real_data(tmp_path):
    out = tmp_path / "s.png"
    convert = CliRunner().invoke(main, ["convert", "--from", "jcml", "--pred-attr", "unk",
                                        str(ROOT / "examples" / "wmt10-de-en.xf.jcml")])
    result = run(["scatter", "--by", "sentence@langsrc", "-o", str(out), "--dpi", "80"], input=convert.stdout)
    assert result.exit_code == 0, result.output
    assert png_size(out.read_bytes()) == (round(80 * 4.6), round(80 * 4.0))
    assert not_blank(png_pixels(out))


def per_group(tmp_path, name, values):
    path = tmp_path / f"{name}.tsv"
    path.write_text("group\tn\tskipped\tndcg\n" + "".join(f"g{i}\t5\t0\t{v}\n" for i, v in enumerate(values)))
    return path


def test_distribution_box_and_violin(tmp_path):
    a = per_group(tmp_path, "unk", [0.5, 0.6, 0.7, 0.8, "nan", 0.9])
    b = per_group(tmp_path, "length", [0.55, 0.65, 0.95, 0.99, 0.7, 0.75])
    for style in ("box", "violin"):
        out = tmp_path / f"d-{style}.svg"
        result = run(["distribution", str(a), str(b), "--style", style, "-o", str(out)])
        assert result.exit_code == 0, result.output
        assert "unk: 1 undefined value(s) left out" in result.output
        text = svg_texts(out)
        assert "unk" in text and "(n = 5)" in text and "length" in text and "(n = 6)" in text
        assert "ndcg" in text  # the y axis names the measure column
        png = tmp_path / f"d-{style}.png"
        assert run(["distribution", str(a), str(b), "--style", style, "-o", str(png)]).exit_code == 0
        assert not_blank(png_pixels(png))


def test_distribution_of_several_columns_of_one_table_and_labels(tmp_path):
    path = tmp_path / "cols.tsv"
    path.write_text("group\tbm25\tdense\n" + "".join(f"q{i}\t{i / 10}\t{1 - i / 20}\n" for i in range(8)))
    out = tmp_path / "d.svg"
    result = run(["distribution", str(path), "--column", "bm25,dense", "--label", "BM25", "--label", "dense (v2)",
                  "-o", str(out)])
    assert result.exit_code == 0, result.output
    text = svg_texts(out)
    assert "BM25" in text and "dense (v2)" in text
    # a table with no recognisable measure column needs --column
    result = run(["distribution", str(path), "-o", str(out)])
    assert result.exit_code == 1 and "--column" in result.output
    result = run(["distribution", str(path), "-m", "bm25", "--label", "a", "--label", "b", "-o", str(out)])
    assert result.exit_code == 2


def test_svg_and_pdf_are_reproducible_byte_for_byte(tmp_path):
    (tmp_path / "agg.tsv").write_text(RANKING)
    for suffix in ("svg", "pdf"):
        first, second = tmp_path / f"1.{suffix}", tmp_path / f"2.{suffix}"
        for out in (first, second):
            assert run(["ranking", str(tmp_path / "agg.tsv"), "-o", str(out)]).exit_code == 0
        assert first.read_bytes() == second.read_bytes()
        assert b"CreationDate" not in first.read_bytes() and b"<dc:date>" not in first.read_bytes()
    assert (tmp_path / "1.pdf").read_bytes().startswith(b"%PDF")


def test_usage_errors(tmp_path):
    (tmp_path / "agg.tsv").write_text(RANKING)
    agg = str(tmp_path / "agg.tsv")
    assert run(["ranking", agg, "-o", str(tmp_path / "x.jpg")]).exit_code == 2
    assert run(["ranking", agg]).exit_code == 2  # -o is required
    result = run(["ranking", agg, "--style", "violin", "-o", str(tmp_path / "x.png")])
    assert result.exit_code == 2 and "--style does not apply to plot ranking" in result.output
    assert run(["histogram", agg, "-o", str(tmp_path / "x.png")]).exit_code == 2
    assert run(["ranking", agg, agg, "-o", str(tmp_path / "x.png")]).exit_code == 2  # one table


def test_a_failed_plot_leaves_the_old_figure(tmp_path):
    out = tmp_path / "fig.png"
    out.write_bytes(b"old")
    (tmp_path / "bad.tsv").write_text("item\tscore\trank\nalpha\tx\t1\n")
    result = run(["ranking", str(tmp_path / "bad.tsv"), "-o", str(out)])
    assert result.exit_code == 1 and "bad.tsv:2: value: not a number" in result.output
    assert out.read_bytes() == b"old" and sorted(p.name for p in tmp_path.iterdir()) == ["bad.tsv", "fig.png"]


def test_without_matplotlib_one_line_says_how_to_install(tmp_path):
    (tmp_path / "agg.tsv").write_text(RANKING)
    code = ("import sys\n"
            "class Block:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'matplotlib' or name.startswith('matplotlib.'):\n"
            "            raise ImportError('blocked')\n"
            "sys.meta_path.insert(0, Block())\n"
            "from rankeval_cli.cli import main\n"
            "main()\n")
    result = subprocess.run([sys.executable, "-c", code, "plot", "ranking", str(tmp_path / "agg.tsv"),
                             "-o", str(tmp_path / "x.png")], capture_output=True, text=True)
    assert result.returncode == 1
    assert result.stderr == "rankeval: plot needs matplotlib: pip install 'rankeval-cli[plot]'\n"
    assert not (tmp_path / "x.png").exists()


def test_help_does_not_import_matplotlib():
    code = "import sys\nfrom rankeval_cli.commands import plot\nprint('matplotlib' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "False"


def test_ranking_bars_span_the_rank_ranges_and_bands_mark_the_clusters(tmp_path):
    from rankeval_cli.figures.data import read_rankings
    from rankeval_cli.figures.draw import ranking_figure

    (tmp_path / "agg.tsv").write_text(RANKING)
    fig = ranking_figure(read_rankings(tmp_path / "agg.tsv"))
    ax = fig.axes[0]
    bars = [line for line in ax.lines if line.get_linewidth() == 3]
    spans = [(float(line.get_xdata()[0]) + 0.3, float(line.get_xdata()[1]) - 0.3, float(line.get_ydata()[0]))
             for line in bars]
    assert spans == [(1, 1, 0), (2, 3, 1), (2, 3, 2), (4, 4, 3)]  # lo, hi, row (best first)
    dots = [line for line in ax.lines if line.get_marker() == "o"][0]
    assert list(dots.get_xdata()) == [1, 2, 3, 4]
    # clusters {alpha}, {beta, gamma}, {delta}: the second is shaded, rows 0.5..2.5
    assert len(ax.patches) == 1 and ax.patches[0].get_y() == 0.5 and ax.patches[0].get_height() == 2
    separators = sorted(float(line.get_ydata()[0]) for line in ax.lines if line.get_linestyle() == "--")
    assert separators == [0.5, 2.5]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["alpha", "beta", "gamma", "delta"]


def test_ranking_reads_json_lines_tables(tmp_path):
    from rankeval_cli.figures.data import read_rankings

    lines = [{"lp": "de-en", "item": i, "score": s, "rank": r, "lo": r, "hi": r, "cluster": r, "signature": "x"}
             for r, (i, s) in enumerate([("b", 0.9), ("a", 0.1)], 1)]
    path = tmp_path / "agg.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    (ranking,) = read_rankings(path, ["lp"])
    assert ranking.key == ("de-en",) and ranking.items == ["b", "a"] and ranking.scores == [0.9, 0.1]


def test_distribution_boxes_show_the_quartiles_of_the_defined_values(tmp_path):
    from rankeval_cli.figures.data import read_series
    from rankeval_cli.figures.draw import distribution_figure

    rng = np.random.default_rng(7)
    values = [rng.random(31).tolist(), (rng.random(12) * 0.5).tolist()]
    paths = []
    for name, vals in zip(("x", "y"), values):
        path = tmp_path / f"{name}.tsv"
        path.write_text("group\ttau\tp\n" + "".join(f"g{i}\t{v!r}\t0.5\n" for i, v in enumerate(vals)) + "gz\tnan\tnan\n")
        paths.append(path)
    series = read_series(paths)
    assert [s.undefined for s in series] == [1, 1] and [s.column for s in series] == ["tau", "tau"]
    fig = distribution_figure(series)
    ax = fig.axes[0]
    medians = [line for line in ax.lines if line.get_color() == "#1f4e79" and len(line.get_xdata()) == 2]
    assert [float(m.get_ydata()[0]) for m in medians] == pytest.approx([float(np.median(v)) for v in values])


def test_scatter_legend_agrees_with_correlate(tmp_path):
    convert = CliRunner().invoke(main, ["convert", "--from", "jcml", "--pred-attr", "length",
                                        str(ROOT / "examples" / "wmt10-de-en.xf.jcml")])
    correlate = CliRunner().invoke(main, ["correlate", "--method", "gt-others"], input=convert.stdout)
    rows = [line.split("\t") for line in correlate.stdout.splitlines()]
    values = {row[1]: float(row[2]) for row in rows[1:] if row[0] == "system"}
    out = tmp_path / "s.svg"
    result = run(["scatter", "--method", "gt-others", "-o", str(out)], input=convert.stdout)
    assert result.exit_code == 0, result.output
    assert (f"Pearson r = {values['pearson']:.3f}, Kendall \u03c4 = {values['kendall']:.3f}"
            in svg_texts(out))


def test_empty_inputs_give_an_empty_figure_and_a_note(tmp_path):
    (tmp_path / "empty.tsv").write_text("item\tscore\trank\tsignature\n")
    out = tmp_path / "e.svg"
    result = run(["ranking", str(tmp_path / "empty.tsv"), "-o", str(out)])
    assert result.exit_code == 0 and "no ranked system in the table" in result.output
    assert "no ranked system" in svg_texts(out)
    result = run(["scatter", "-o", str(out)], input="group\titem\tgold\tpred\n")
    assert result.exit_code == 0 and "no system scored on both sides" in result.output
    assert "no system scored on both sides" in svg_texts(out)
    a = per_group(tmp_path, "a", [0.5, 0.7])
    (tmp_path / "b.tsv").write_text("group\tn\tskipped\tndcg\n")
    result = run(["distribution", str(a), str(tmp_path / "b.tsv"), "-o", str(out)])
    assert result.exit_code == 0 and "b: no defined value to draw" in result.output
    assert "(n = 0)" in svg_texts(out) and "(n = 2)" in svg_texts(out)


def test_a_table_on_stdin(tmp_path):
    out = tmp_path / "r.svg"
    result = run(["ranking", "-o", str(out)], input=RANKING)
    assert result.exit_code == 0, result.output
    assert "alpha" in svg_texts(out)


WMT_RANKING = """item\tscore\trank\tsignature
newstest2016.online-B.0.ro-en\t0.6\t1\ts
OPPO.1481\t0.5\t2\ts
Huoshan_Translate.832\t0.4\t3\ts
Online-A.1570\t0.3\t4\ts
Online-A.1571\t0.2\t5\ts
"""


def test_names_are_drawn_short_renamed_or_as_they_are(tmp_path):
    from rankeval_cli.figures.data import display_names, short_name

    assert [short_name(s) for s in ("OPPO.1481", "newstest2016.online-B.0.ro-en", "uedin-wmt12",
                                    "CUNI-T2T-2018.1072", "newstest2013.fr-en.KIT_primary.2658")] == \
        ["OPPO", "online-B", "uedin-wmt12", "CUNI-T2T-2018", "KIT_primary"]
    # two submissions of one team keep their ids, so that they stay apart
    assert display_names(["Online-A.1570", "Online-A.1571", "OPPO.1481"]) == ["Online-A.1570", "Online-A.1571", "OPPO"]
    (tmp_path / "agg.tsv").write_text(WMT_RANKING)
    (tmp_path / "names.tsv").write_text("# old\tnew\nOPPO\tOPPO (2020)\nHuoshan_Translate.832\tHuoshan\n")
    out = tmp_path / "r.svg"
    result = run(["ranking", str(tmp_path / "agg.tsv"), "--rename", str(tmp_path / "names.tsv"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    names = [t for t in svg_texts(out).splitlines() if not t.startswith("0.")]
    assert {"online-B", "OPPO (2020)", "Huoshan", "Online-A.1570", "Online-A.1571"} <= set(names)
    assert run(["ranking", str(tmp_path / "agg.tsv"), "--keep-ids", "-o", str(out)]).exit_code == 0
    assert "OPPO.1481" in svg_texts(out) and "newstest2016.online-B.0.ro-en" in svg_texts(out)
    (tmp_path / "bad.tsv").write_text("OPPO OPPO-2020\n")
    result = run(["ranking", str(tmp_path / "agg.tsv"), "--rename", str(tmp_path / "bad.tsv"), "-o", str(out)])
    assert result.exit_code == 1 and "bad.tsv:1: expected OLD<TAB>NEW" in result.output


def test_text_is_drawn_literally(tmp_path):
    # mathtext would render $a$ as an italic a, fail on an unbalanced $ or an unknown \command
    names = ["$a$", "b\\c", "x^y_z", "$\\frac{", "50% $"]
    stream = "group\titem\tgold\tpred\n" + "".join(
        f"g{g}\t{n}\t{r}\t{(r * 7 + g) % 5 + 1}\n" for g in range(5) for r, n in enumerate(names, 1))
    out = tmp_path / "s.svg"
    result = run(["scatter", "--title", "$x^2$ \\alpha", "--label", "hum$an", "--label", "\\metric", "-o", str(out)],
                 input=stream)
    assert result.exit_code == 0, result.output
    text = svg_texts(out).splitlines()
    for name in names:
        assert any(t.strip() == name for t in text), name
    assert "$x^2$ \\alpha" in text and "hum$an" in text and "\\metric" in text
    png = tmp_path / "s.png"
    assert run(["ranking", "-o", str(png), "--title", "$\\frac{"], input=RANKING.replace("alpha", "$\\al")).exit_code == 0


def test_missing_glyphs_are_one_note_not_a_warning_each(tmp_path, recwarn):
    stream = "group\titem\tgold\tpred\n" + "".join(
        f"g{g}\t{n}\t{r}\t{(r + g) % 3 + 1}\n" for g in range(3) for r, n in enumerate(["\U000eaf1e\U000eaf1f", "b", "c"], 1))
    out = tmp_path / "s.png"
    result = run(["scatter", "-o", str(out)], input=stream)
    assert result.exit_code == 0, result.output
    notes = [line for line in result.stderr.splitlines() if "glyph" in line]
    assert len(notes) == 1 and "2 character(s)" in notes[0] and "U+EAF1E" in notes[0]
    assert not [w for w in recwarn if "Glyph" in str(w.message)]


def test_scatter_labels_stay_inside_the_axes_and_apart():
    pytest.importorskip("adjustText")
    from rankeval_cli.figures.data import ScatterPanel
    from rankeval_cli.figures.draw import scatter_figure
    from rankeval_cli.aggregate.correlate import system_correlations

    rng = np.random.default_rng(3)
    x = np.sort(rng.random(16))
    y = x + rng.normal(0, 0.03, 16)
    x[5:9], y[5:9] = 0.6, [0.60, 0.61, 0.605, 0.615]  # a crowded corner
    names = [f"System-{chr(65 + i)}-long" for i in range(16)]
    panel = ScatterPanel(("en-de",), names, x.tolist(), y.tolist(),
                         {c.measure: c for c in system_correlations(x, y)}, 0)
    fig = scatter_figure([panel], ("lp",))
    fig.canvas.draw()
    ax = fig.axes[0]
    renderer = fig.canvas.get_renderer()
    box = ax.get_window_extent(renderer)
    texts = [t for t in ax.texts if t.get_text().strip() in names]
    extents = [t.get_window_extent(renderer) for t in texts]
    assert len(texts) == 16
    for t, e in zip(texts, extents):
        assert box.x0 - 1 <= e.x0 and e.x1 <= box.x1 + 1 and box.y0 - 1 <= e.y0 and e.y1 <= box.y1 + 1, t.get_text()
    overlaps = [(a.get_text(), b.get_text()) for i, (a, ea) in enumerate(zip(texts, extents))
                for b, eb in zip(texts[i + 1:], extents[i + 1:]) if ea.overlaps(eb)]
    assert not overlaps
