"""``rankeval meta-eval`` end to end on the WMT20 MQM fixtures (tests/data/wmt20-mqm-excerpt, tests/data/mtme).

Values are recomputed here from the raw fixture files with scipy and plain Python
(the join through the index written out by hand), so the test checks the reading,
the join and the wiring of each statistic; the statistics themselves are tested
against mt-metrics-eval in the statistics' own tests.
"""

from __future__ import annotations

import csv
import io
import itertools
import json

import numpy as np
import pytest
from click.testing import CliRunner
from scipy.stats import pearsonr

from rankeval_cli.cli import main
from conftest import TEST_DATA

EXCERPT = TEST_DATA / "wmt20-mqm-excerpt"
MTME = TEST_DATA / "mtme" / "wmt20"
FILES = ["--human", str(EXCERPT / "mqm_newstest2020_ende.tsv"), "--human", str(EXCERPT / "mqm_newstest2020_zhen.tsv"),
         "--index", str(EXCERPT / "details.txt"), str(EXCERPT / "chrF.seg.score"), str(EXCERPT / "chrF.sys.score"),
         str(EXCERPT / "YiSi-2.seg.score")]
QUICK = ["--permutations", "50"]


def run(*args, code=0):
    result = CliRunner().invoke(main, ["meta-eval", *args])
    assert result.exit_code == code, (result.output, result.exception)
    return result


def table(stdout: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(stdout), delimiter="\t"))


@pytest.fixture(scope="module")
def default_rows():
    return table(CliRunner().invoke(main, ["meta-eval", *FILES, *QUICK]).stdout)


def raw_scores(lp: str):
    """Human and chrF matrices (MT systems x segments) and system scores, parsed by hand."""
    code = lp.replace("-", "")
    segno = {}
    for line in (EXCERPT / "details.txt").read_text().splitlines():
        number, _, file_lp, docid, docseg = line.split("\t")
        if file_lp == lp:
            segno[(docid, docseg)] = int(number)
    human = {}
    for line in (EXCERPT / f"mqm_newstest2020_{code}.tsv").read_text().splitlines()[1:]:
        system, score, seg = line.split()
        human[(system, int(seg))] = float(score)
    chrf, chrf_sys = {}, {}
    for line in (EXCERPT / "chrF.seg.score").read_text().splitlines():
        _, file_lp, _, refset, system, docid, segid, score = line.split("\t")
        if file_lp == lp and refset == "newstest2020":
            chrf[(system, segno[(docid, segid)])] = float(score)
    for line in (EXCERPT / "chrF.sys.score").read_text().splitlines():
        _, file_lp, _, refset, system, score = line.split("\t")
        if file_lp == lp and refset == "newstest2020":
            chrf_sys[system] = float(score)
    systems = sorted({s for s, _ in human if not s.startswith("Human")})
    segments = sorted({g for _, g in human})
    h = np.array([[human[(s, g)] for g in segments] for s in systems])
    m = np.array([[chrf[(s, g)] for g in segments] for s in systems])
    return systems, h, m, h.mean(axis=1), np.array([chrf_sys[s] for s in systems])


def row(rows, lp, metric):
    (found,) = [r for r in rows if r["lp"] == lp and r["metric"] == metric]
    return found


@pytest.mark.parametrize("lp", ["en-de", "zh-en"])
def test_values_against_a_direct_computation(default_rows, lp):
    systems, h, m, h_sys, m_sys = raw_scores(lp)
    r = row(default_rows, lp, "chrF")
    assert int(r["systems"]) == len(systems) and int(r["segments"]) == 12 and r["sys_scores"] == "file"
    assert float(r["sys-pearson"]) == pytest.approx(pearsonr(h_sys, m_sys)[0], abs=1e-12)
    assert float(r["seg-pearson@none"]) == pytest.approx(pearsonr(h.ravel(), m.ravel())[0], abs=1e-12)
    per_item = [pearsonr(h[:, j], m[:, j])[0] for j in range(12) if np.ptp(h[:, j]) > 0]
    assert float(r["seg-pearson@item"]) == pytest.approx(np.mean(per_item), abs=1e-12)
    pairs = list(itertools.combinations(range(len(systems)), 2))
    agree = sum(np.sign(h_sys[i] - h_sys[j]) == np.sign(m_sys[i] - m_sys[j]) for i, j in pairs)
    assert float(r["sys-pa"]) == pytest.approx(agree / len(pairs), abs=1e-12)
    assert 0 <= float(r["spa"]) <= 1 and 0 <= float(r["seg-acc-eq@item"]) <= 1
    assert float(r["seg-acc-eq@item:epsilon"]) >= 0
    for measure in ("sys-pa", "spa", "sys-pearson", "seg-acc-eq@item", "seg-pearson@none", "seg-pearson@item"):
        assert r[f"{measure}:rank"] in ("1", "2")


def test_rows_columns_and_the_average(default_rows):
    assert [(r["lp"], r["metric"]) for r in default_rows] == [
        ("en-de", "chrF"), ("en-de", "YiSi-2"), ("zh-en", "chrF"), ("zh-en", "YiSi-2"), ("all", "chrF"),
        ("all", "YiSi-2")]
    assert list(default_rows[0])[:4] == ["lp", "metric", "sys-pa", "sys-pa:rank"]
    assert list(default_rows[0])[-6:] == ["avg", "avg:rank", "systems", "segments", "sys_scores", "signature"]
    assert default_rows[0]["signature"].startswith("meta-eval|measures:sys-pa,spa,sys-pearson,seg-acc-eq@item,")
    # the average: pooled pairwise accuracy once, the other 5 statistics per lp, each rescaled to [0, 1]
    for metric in ("chrF", "YiSi-2"):
        tasks = [float(row(default_rows, "all", metric)["sys-pa"])]
        for lp in ("en-de", "zh-en"):
            r = row(default_rows, lp, metric)
            tasks += [float(r["spa"]), float(r["seg-acc-eq@item"])]
            tasks += [(float(r[c]) + 1) / 2 for c in ("sys-pearson", "seg-pearson@none", "seg-pearson@item")]
        assert float(row(default_rows, "all", metric)["avg"]) == pytest.approx(np.mean(tasks), abs=1e-12)
    assert {row(default_rows, "all", m)["avg:rank"] for m in ("chrF", "YiSi-2")} <= {"1", "2"}
    assert row(default_rows, "en-de", "chrF")["avg"] == ""


def test_wmt23_task_weights():
    rows = table(run(*FILES, *QUICK, "-m", "sys-pa,sys-pearson", "--task-weights", "wmt23").stdout)
    for metric in ("chrF", "YiSi-2"):
        pooled = float(row(rows, "all", metric)["sys-pa"])
        pearson = [(float(row(rows, lp, metric)["sys-pearson"]) + 1) / 2 for lp in ("en-de", "zh-en")]
        expected = (2 * pooled + sum(pearson)) / 4  # accuracy weighs 2 (language pairs), each Pearson 1
        assert float(row(rows, "all", metric)["avg"]) == pytest.approx(expected, abs=1e-12)
    assert "weights:wmt23" in rows[0]["signature"]


def test_pooled_pairwise_accuracy(default_rows):
    agree = pairs = 0
    for lp in ("en-de", "zh-en"):
        _, _, _, h_sys, m_sys = raw_scores(lp)
        for i, j in itertools.combinations(range(len(h_sys)), 2):
            agree += np.sign(h_sys[i] - h_sys[j]) == np.sign(m_sys[i] - m_sys[j])
            pairs += 1
    assert float(row(default_rows, "all", "chrF")["sys-pa"]) == pytest.approx(agree / pairs, abs=1e-12)


def test_the_mtme_directory_gives_the_same_table():
    files = run(*FILES, *QUICK).stdout
    mtme = run("--mtme", str(MTME), *QUICK).stdout
    assert files == mtme


def test_seeded_output_is_byte_identical():
    first = run(*FILES, "--permutations", "100", "--seed", "7", "--output-format", "jsonl").stdout
    assert run(*FILES, "--permutations", "100", "--seed", "7", "--output-format", "jsonl").stdout == first
    records = [json.loads(line) for line in first.splitlines()]
    assert records[0]["lp"] == "en-de" and records[-1]["avg:rank"] in (1, 2)
    assert records[0]["avg"] is None and "seed:7" in records[0]["signature"]


def test_measures_and_groupings():
    rows = table(run(*FILES, *QUICK, "-m", "seg-pearson,sys-kendall", "--average-by", "item").stdout)
    assert [c for c in rows[0] if ":" not in c and c not in ("lp", "metric")][:2] == ["seg-pearson@item",
                                                                                      "sys-kendall"]
    rows = table(run(*FILES, *QUICK, "--average-by", "system").stdout)
    assert "seg-acc-eq@system" in rows[0] and "seg-pearson@system" in rows[0] and "seg-pearson@none" not in rows[0]
    rows = table(run(*FILES, *QUICK, "-m", "seg-acc-eq@item", "--epsilon", "0").stdout)
    assert rows[0]["seg-acc-eq@item:epsilon"] == "0" and "epsilon:0" in rows[0]["signature"]


def test_include_human_and_exclude_systems():
    result = run(*FILES, *QUICK, "-m", "sys-pearson", "--include-human", "--exclude-systems", "Online-*")
    rows = table(result.stdout)
    assert row(rows, "en-de", "chrF")["systems"] == "7"  # 5 MT systems, Human-B.0 and Human-P.0 (not Human-A.0)
    assert "left out Human-A.0" in result.stderr


@pytest.mark.parametrize("args, message", [
    (["-m", "bleu"], "unknown measure"),
    (["-m", "sys-pearson@item"], "takes no @grouping"),
    (["-m", "seg-pearson@doc"], "unknown grouping"),
    (["--mtme", str(MTME)], "--mtme reads its own"),
    (["--human-name", "mqm"], "--human-name goes with --mtme"),
])
def test_usage_errors(args, message):
    result = run(*FILES, *args, code=2)
    assert message in result.output


def test_no_human_scores_is_a_usage_error():
    assert "give the human scores" in run(str(EXCERPT / "chrF.seg.score"), code=2).output


def test_bad_data_is_one_line_with_file_and_line(tmp_path):
    bad = tmp_path / "mqm_newstest2020_ende.tsv"
    bad.write_text("system mqm_avg_score seg_id\nA -1 1\nA one 2\n")
    result = run("--human", str(bad), str(EXCERPT / "chrF.seg.score"), code=1)
    assert result.stderr.strip() == f"rankeval: {bad}:3: column 'mqm_avg_score': 'one' is not a finite number"
    result = run("--human", str(EXCERPT / "mqm_newstest2020_ende.tsv"), str(EXCERPT / "chrF.seg.score"), code=1)
    assert "numbers segments within documents" in result.stderr and "Traceback" not in result.stderr


def test_a_metric_with_system_scores_only():
    args = ["--human", str(EXCERPT / "mqm_newstest2020_ende.tsv"), "--index", str(EXCERPT / "details.txt"),
            str(EXCERPT / "chrF.sys.score"), str(EXCERPT / "YiSi-2.seg.score"), *QUICK]
    rows = table(run(*args).stdout)
    chrf = row(rows, "en-de", "chrF")
    assert chrf["sys-pearson"] != "" and chrf["sys-pa"] != "" and chrf["sys_scores"] == "file"
    assert chrf["spa"] == chrf["seg-pearson@none"] == chrf["seg-acc-eq@item"] == ""
    assert row(rows, "all", "chrF")["avg"] == ""  # not in every task: no average (mt-metrics-eval)
    assert row(rows, "all", "YiSi-2")["avg"] != ""


def test_intervals_beside_every_value():
    """--ci: MEASURE:ci_low and :ci_high after each measure's columns, avg:ci_low/high; the same for any
    --jobs; recorded in the signature."""
    args = [*FILES, *QUICK, "-m", "sys-pa,spa,sys-pearson,seg-acc-eq@item,seg-pearson@none,seg-pdp@item",
            "--bootstrap", "60"]
    out = run(*args).stdout
    rows = table(out)
    columns = list(rows[0])
    assert columns[columns.index("sys-pa"):columns.index("sys-pa") + 4] == ["sys-pa", "sys-pa:rank", "sys-pa:ci_low",
                                                                             "sys-pa:ci_high"]
    assert columns[columns.index("avg"):columns.index("avg") + 4] == ["avg", "avg:rank", "avg:ci_low", "avg:ci_high"]
    assert "ci:0.95|interval:fisher-z+percentile|bootstrap:60|seed:12345" in rows[0]["signature"]
    for r in rows:
        for measure in ("sys-pa", "spa", "sys-pearson", "seg-acc-eq@item", "seg-pearson@none", "seg-pdp@item", "avg"):
            if r.get(measure):
                assert float(r[f"{measure}:ci_low"]) <= float(r[f"{measure}:ci_high"])
    assert row(rows, "all", "chrF")["avg:ci_low"] != "" and row(rows, "en-de", "chrF")["avg:ci_low"] == ""
    assert run(*args, "--jobs", "2").stdout == out
    assert "ci_low" not in run(*FILES, *QUICK).stdout  # no columns without --ci


def test_intervals_equal_the_library():
    """The interval of a task: the percentiles of its replicates from the library, segments resampled."""
    from rankeval_cli.stats.metaeval import intervals as iv

    rows = table(run(*FILES, *QUICK, "-m", "seg-pearson@item", "--ci", "0.9", "--bootstrap", "80", "--seed", "3").stdout)
    _, h, m, _, _ = raw_scores("en-de")
    counts = iv.resample_counts(3, ("en-de", "segments"), h.shape[1], 0, 80)
    low, high = iv.percentiles(iv.seg_replicates(h, [m], iv.SegSpec("pearson", "item"), counts), 0.9)
    r = row(rows, "en-de", "chrF")
    assert (float(r["seg-pearson@item:ci_low"]), float(r["seg-pearson@item:ci_high"])) == pytest.approx(
        (low[0], high[0]), abs=1e-12)


def test_pdp_column():
    from rankeval_cli.stats import metaeval as me

    rows = table(run(*FILES, *QUICK, "-m", "seg-pdp@item,pdp@system").stdout)
    _, h, m, _, _ = raw_scores("zh-en")
    r = row(rows, "zh-en", "chrF")
    assert float(r["seg-pdp@item"]) == pytest.approx(me.seg_statistic(h, m, "pdp", "item").value, abs=1e-15)
    assert float(r["seg-pdp@system"]) == pytest.approx(me.seg_statistic(h, m, "pdp", "system").value, abs=1e-15)


def test_wmt25_task_weights():
    """--task-weights wmt25: by default the WMT25 task set (SPA, tie-calibrated acc-eq by item), the average
    over exactly those tasks with equal weights; other measures are shown but not averaged."""
    rows = table(run(*FILES, *QUICK, "--task-weights", "wmt25").stdout)
    assert [c for c in rows[0] if ":" not in c][2:4] == ["spa", "seg-acc-eq@item"]
    wider = table(run(*FILES, *QUICK, "--task-weights", "wmt25", "-m", "sys-pearson,spa,seg-acc-eq@item").stdout)
    for metric in ("chrF", "YiSi-2"):
        tasks = [float(row(rows, lp, metric)[m]) for lp in ("en-de", "zh-en") for m in ("spa", "seg-acc-eq@item")]
        assert float(row(rows, "all", metric)["avg"]) == pytest.approx(np.mean(tasks), abs=1e-12)
        assert row(wider, "all", metric)["avg"] == row(rows, "all", metric)["avg"]
    assert "weights:wmt25" in rows[0]["signature"]
    assert "add seg-acc-eq@item to --statistic" in run(*FILES, "--task-weights", "wmt25", "-m", "spa", code=2).output
    assert "drop --epsilon" in run(*FILES, "--task-weights", "wmt25", "--epsilon", "0", code=2).output


def test_mtme_tree_of_wrong_length_is_one_line_exit_1(tmp_path):
    import shutil

    root = tmp_path / "wmt20"
    shutil.copytree(MTME, root)
    path = root / "metric-scores/zh-en/YiSi-2-src.seg.score"
    path.write_text(path.read_text() + path.read_text().splitlines()[-1] + "\n")  # the last system: one line more
    result = run("--mtme", str(root), *QUICK, code=1)
    (message,) = [line for line in result.stderr.splitlines() if "segment" in line and str(path) in line]
    assert message.startswith(f"rankeval: {path}:") and "Traceback" not in result.stderr


def test_the_mtme_stream_is_the_library_single_stream():
    """--permutation-stream mtme: the table's clusters are run_table's with mt-metrics-eval's one
    stream (checked against mt-metrics-eval itself in test_meta_eval_mtme.py); the default stream
    is a stream per pair, recorded by its absence from the signature."""
    from rankeval_cli.formats import metaeval_input
    from rankeval_cli.stats.metrics_table import Options, parse_measures, run_table

    rows = table(run(*FILES, *QUICK, "--permutation-stream", "mtme").stdout)
    assert "stream:mtme" in rows[0]["signature"]
    assert "stream:" not in table(run(*FILES, *QUICK).stdout)[0]["signature"]
    tables = metaeval_input.tables_from_files([FILES[1], FILES[3]], FILES[6:], [FILES[5]], (), None, False, (),
                                              report=lambda *a: None)
    result = run_table(tables, parse_measures((), None), Options(permutations=50, stream="mtme"))
    for (lp, name), comparison in result.results.items():
        if comparison is not None and lp != "all":
            for metric, (_, rank) in comparison.as_dict().items():
                assert row(rows, lp, metric)[f"{name}:rank"] == str(rank)


def test_pairs_are_the_numbers_behind_every_cluster(default_rows):
    """--pairs: one row per pair of metrics per task and of the average; the deltas are the table's
    differences and each pair's p-value decides its cluster boundary as the table drew it."""
    pairs = table(run(*FILES, *QUICK, "--pairs").stdout)
    assert list(pairs[0]) == ["lp", "statistic", "metric", "against", "delta", "p_permutation", "trials", "signature"]
    measures = [c for c in default_rows[0] if ":" not in c and c not in
                ("lp", "metric", "avg", "systems", "segments", "sys_scores", "signature")]
    expected = {(lp, m) for lp in ("en-de", "zh-en") for m in measures if m != "sys-pa"} | {("all", "sys-pa"),
                                                                                          ("all", "avg")}
    assert {(p["lp"], p["statistic"]) for p in pairs} >= expected
    for p in pairs:
        column = "avg" if p["statistic"] == "avg" else p["statistic"]
        better, other = row(default_rows, p["lp"], p["metric"]), row(default_rows, p["lp"], p["against"])
        assert float(p["delta"]) == pytest.approx(float(better[column]) - float(other[column]), abs=1e-12)
        assert float(p["delta"]) >= 0 and 0 <= float(p["p_permutation"]) <= 1
        rank = column + ":rank"
        assert int(other[rank]) == int(better[rank]) + (float(p["p_permutation"]) <= 0.05)
        assert (p["trials"] == "") == (p["statistic"] == "avg")
    assert "--ci and --bootstrap go with the table" in run(*FILES, "--pairs", "--ci", "0.9", code=2).output


def test_wmt22_wmt23_and_wmt24_task_sets_are_the_defaults_of_their_weights():
    """--task-weights wmtNN: that year's task set as the default --statistic, in mt-metrics-eval's
    order; wmt24 is wmt25's task set and average."""
    from rankeval_cli.stats.metrics_table import WMT22_MEASURES, WMT23_MEASURES

    for scheme, measures in (("wmt22", WMT22_MEASURES), ("wmt23", WMT23_MEASURES)):
        rows = table(run(*FILES, *QUICK, "--task-weights", scheme).stdout)
        assert [c for c in rows[0] if ":" not in c][2:2 + len(measures)] == list(measures)
    wmt24 = run(*FILES, *QUICK, "--task-weights", "wmt24").stdout
    assert wmt24.replace("weights:wmt24", "weights:wmt25") == run(*FILES, *QUICK, "--task-weights", "wmt25").stdout
    assert "--task-weights wmt24 averages spa and seg-acc-eq@item" in run(*FILES, "--task-weights", "wmt24", "-m",
                                                                         "spa", code=2).output
