"""MQM, mt-metrics-eval and test-set index readers, and the one-to-one systems x segments join."""

from __future__ import annotations

import gzip
import shutil

import numpy as np
import pytest
from click.testing import CliRunner

from rankeval_cli.cli import main
from rankeval_cli.errors import DataError
from rankeval_cli.formats.metaeval_input import tables_from_files, tables_from_mtme
from rankeval_cli.formats.mqm import load_mqm, lp_and_testset
from rankeval_cli.formats.mtme import find_tasks, load_mtme_scores, parse_metric_filename
from rankeval_cli.formats.sysseg import LongScores, build_table, place
from rankeval_cli.formats.testset_index import read_index
from rankeval_cli.formats.wmt_long import wmt_long_scores
from rankeval_cli.formats.wmt_scores import load_scores
from conftest import TEST_DATA

EXCERPT = TEST_DATA / "wmt20-mqm-excerpt"
ENDE = EXCERPT / "mqm_newstest2020_ende.tsv"
ZHEN = EXCERPT / "mqm_newstest2020_zhen.tsv"
DETAILS = EXCERPT / "details.txt"
MTME = TEST_DATA / "mtme" / "wmt20"
METRIC_FILES = [str(EXCERPT / f) for f in ("chrF.seg.score", "chrF.sys.score", "YiSi-2.seg.score")]


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return str(path)


def fails_with(fn, *words, line=None):
    with pytest.raises(DataError) as info:
        fn()
    for word in words:
        assert word in str(info.value), str(info.value)
    if line is not None:
        assert info.value.line == line, str(info.value)
    return info.value


# MQM ------------------------------------------------------------------------------------

def test_mqm_excerpt_by_hand():
    scores = load_mqm(str(ENDE))
    assert len(scores) == 120  # 10 systems (3 human) x 12 segments
    assert (scores.system[0], scores.segment[0], scores.value[0], scores.line[0]) == ("eTranslation.737", 1,
                                                                                      -2.333333, 2)
    assert sorted(set(scores.segment.tolist())) == [1, 2, 3, 4, 14, 15, 16, 17, 25, 26, 27, 28]
    assert len(set(scores.system.tolist())) == 10


@pytest.mark.parametrize("name, expected", [
    ("mqm_newstest2020_ende.avg_seg_scores.tsv", ("en-de", "newstest2020")),
    ("mqm_newstest2020_zhen.tsv", ("zh-en", "newstest2020")),
    ("mqm_generalMT2022_enru.tsv", ("en-ru", "generalMT2022")),
    ("scores.tsv", (None, None)),
])
def test_lp_and_testset_from_the_name(name, expected):
    assert lp_and_testset(name) == expected


def test_none_is_missing_and_the_cell_is_left_out(tmp_path):
    path = write(tmp_path / "mqm_newstest2020_ende.tsv",
                 "system mqm_avg_score seg_id\nA -1 1\nA None 2\nB -2 1\nB -0.5 2\nC None 1\nC None 2\n")
    scores = load_mqm(path)
    assert np.isnan(scores.value[1]) and np.isnan(scores.value[4:]).all()
    metric = LongScores("m", "m", np.array(["A", "A", "B", "B", "C", "C"], dtype=object),
                        np.array([1, 2, 1, 2, 1, 2]), np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6]), np.arange(1, 7))
    table = build_table("en-de", scores, {"m": metric}, {})
    assert table.systems == ["A", "B"]  # C has no human score at all: not a system (mt-metrics-eval)
    assert np.isnan(table.human[0, 1]) and table.human[1].tolist() == [-2, -0.5]
    assert table.human_sys.tolist() == [-1, -1.25]  # mean of the present segment scores


@pytest.mark.parametrize("text, line, words", [
    ("system score seg\nA 1 1\n", 1, ["expected the header"]),
    ("system mqm_avg_score seg_id\nA -1 1\nA -1\n", 3, ["expected 3 space-separated fields", "found 2"]),
    ("system mqm_avg_score seg_id\nA -1 1\nA abc 2\n", 3, ["'abc' is not a finite number"]),
    ("system mqm_avg_score seg_id\nA -1 1\nA nan 2\n", 3, ["not a finite number"]),
    ("system mqm_avg_score seg_id\nA -1 0\n", 2, ["seg_id must be a positive integer"]),
    ("system mqm_avg_score seg_id\nA -1 x1\n", 2, ["seg_id must be a positive integer"]),
    ("", 1, ["empty input"]),
])
def test_malformed_mqm_lines_name_file_and_line(tmp_path, text, line, words):
    path = write(tmp_path / "mqm_x_ende.tsv", text)
    error = fails_with(lambda: load_mqm(path), *words, line=line)
    assert error.source == path


def test_a_repeated_mqm_cell_is_an_error_naming_both_lines(tmp_path):
    path = write(tmp_path / "mqm_x_ende.tsv", "system mqm_avg_score seg_id\nA -1 1\nB -1 1\nA -2 1\n")
    scores = load_mqm(path)
    fails_with(lambda: place(scores, ["A", "B"], np.array([1])), "not one-to-one", "system A, segment 1",
               "first at line 2", line=4)


# Test-set index ---------------------------------------------------------------------------

def test_index_lookup():
    index = read_index(str(DETAILS))
    assert index.lps == {"en-de", "zh-en"}
    found = index.lookup("en-de", ["newstest2020"] * 3, ["en.ndtv.com.13152", "cnn.385674", "nowhere"], ["1", "4", "1"])
    assert found.tolist() == [14, 28, -1]


@pytest.mark.parametrize("text, line, words", [
    ("1\tt\ten-de\td\t1\n2\tt\ten-de\td\t1\n", 2, ["document d segment 1 is indexed twice", ":1)"]),
    ("1\tt\ten-de\td\t1\n1\tt\ten-de\te\t1\n", 2, ["segment number 1 is indexed twice"]),
    ("1\tt\ten-de\td\n", 1, ["expected 5 tab-separated fields"]),
    ("x\tt\ten-de\td\t1\n", 1, ["positive integers"]),
    ("\n", 1, ["empty test-set index"]),
])
def test_malformed_index(tmp_path, text, line, words):
    path = write(tmp_path / "details.txt", text)
    fails_with(lambda: read_index(path), *words, line=line)


# mt-metrics-eval layout ----------------------------------------------------------------------

def test_mtme_positions_and_levels(tmp_path):
    path = write(tmp_path / "en-de.mqm.seg.score", "A\t-1\nA\tNone\nB\t-2\nB\t0\n")
    scores = load_mtme_scores(path, "mqm", "seg", allow_none=True)
    assert scores.segment.tolist() == [1, 2, 1, 2] and np.isnan(scores.value[1])
    fails_with(lambda: load_mtme_scores(path, "m", "seg", allow_none=False), "may not be None", line=2)
    short = write(tmp_path / "m.seg.score", "A 1\nA 2\nB 3\n")
    fails_with(lambda: load_mtme_scores(short, "m", "seg", False), "system B has 1 lines", line=3)
    twice = write(tmp_path / "m.sys.score", "A 1\nA 2\n")
    fails_with(lambda: load_mtme_scores(twice, "m", "sys", False), "expected one score", line=2)
    bad = write(tmp_path / "n.seg.score", "A 1 2\n")
    fails_with(lambda: load_mtme_scores(bad, "m", "seg", False), "expected 2 fields", line=1)


def test_mtme_odd_system_out_is_named(tmp_path):
    extra = write(tmp_path / "m.seg.score", "A 1\nA 2\nB 3\nB 4\nB 5\nC 6\nC 7\n")
    fails_with(lambda: load_mtme_scores(extra, "m", "seg", False), "system B has 3 lines", "expected 2", line=5)
    missing = write(tmp_path / "n.seg.score", "A 1\nA 2\nB 3\nC 6\nC 7\n")
    fails_with(lambda: load_mtme_scores(missing, "m", "seg", False), "system B has 1 lines", line=3)


def mtme_copy(tmp_path):
    root = tmp_path / "wmt20"
    shutil.copytree(MTME, root)
    return root


def test_mtme_metric_file_of_another_length(tmp_path):
    """Every system one segment longer (or shorter) than the human file: each score would meet the wrong
    segment; the error names the metric file and the line of the first score past the test set."""
    root = mtme_copy(tmp_path)
    path = root / "metric-scores/en-de/chrF-ref.seg.score"
    lines = path.read_text().splitlines()
    longer = [line for k in range(0, len(lines), 12) for line in [lines[k].split("\t")[0] + "\t0.5", *lines[k:k + 12]]]
    path.write_text("\n".join(longer) + "\n")
    fails_with(lambda: tables_from_mtme(str(root)), "system AFRL.1069 has 13 segment scores, the test set 12",
               "en-de.mqm.seg.score", line=13)
    shorter = [line for k in range(0, len(lines), 12) for line in lines[k + 1:k + 12]]
    path.write_text("\n".join(shorter) + "\n")
    fails_with(lambda: tables_from_mtme(str(root)), "has 11 segment scores, the test set 12", line=11)


def test_mtme_sources_and_system_outputs_are_checked(tmp_path):
    root = mtme_copy(tmp_path)
    (root / "sources").mkdir()
    (root / "sources/en-de.txt").write_text("".join(f"source {k}\n" for k in range(11)))
    fails_with(lambda: tables_from_mtme(str(root), lps=["en-de"]), "has 12 segment scores, the test set 11",
               "sources/en-de.txt", line=12)
    (root / "sources/en-de.txt").write_text("".join(f"source {k}\n" for k in range(12)))
    outputs = root / "system-outputs/en-de"
    outputs.mkdir(parents=True)
    systems = sorted({line.split("\t")[0] for line in (root / "human-scores/en-de.mqm.seg.score").read_text().splitlines()})
    for name in systems:
        (outputs / f"{name}.txt").write_text("x\n" * 12)
    first_metric_line = (root / "metric-scores/en-de/YiSi-2-src.seg.score").read_text().splitlines()[0]
    assert first_metric_line.split("\t")[0] not in systems  # a system without human scores
    fails_with(lambda: tables_from_mtme(str(root), lps=["en-de"]), "unknown system AFRL.1069",
               "system-outputs/en-de", line=1)
    for line in (root / "metric-scores/en-de/YiSi-2-src.seg.score").read_text().splitlines():
        (outputs / f"{line.split(chr(9))[0]}.txt").write_text("x\n" * 12)
    (table,) = tables_from_mtme(str(root), lps=["en-de"])
    assert len(table.segments) == 12


def test_metric_file_names():
    assert parse_metric_filename("x/COMET-22-refA.seg.score") == ("COMET-22", "refA", "seg")
    assert parse_metric_filename("x/YiSi-2-src.sys.score") == ("YiSi-2", "src", "sys")
    assert parse_metric_filename("x/README.txt") is None


def test_mtme_tasks_of_the_fixture():
    tasks = find_tasks(str(MTME))
    assert [t.lp for t in tasks] == ["en-de", "zh-en"]
    assert set(tasks[0].metrics) == {"chrF", "YiSi-2"} and set(tasks[0].metrics["chrF"]) == {"seg", "sys"}
    assert tasks[0].refset == "ref"


def test_mtme_several_references_need_a_choice(tmp_path):
    root = tmp_path / "wmt20"
    shutil.copytree(MTME, root)
    shutil.copy(root / "metric-scores/en-de/chrF-ref.seg.score", root / "metric-scores/en-de/chrF-refb.seg.score")
    fails_with(lambda: find_tasks(str(root), lps=["en-de"]), "several references (ref, refb)")
    (task,) = find_tasks(str(root), lps=["en-de"], refset="refb")
    assert set(task.metrics) == {"chrF", "YiSi-2"} and "refb" in task.metrics["chrF"]["seg"]


def test_mtme_layout_and_wmt_files_through_the_index_give_the_same_tables():
    """The fixture's mt-metrics-eval copy was written without rankeval: an independent check of the join."""
    by_files = tables_from_files([str(ENDE), str(ZHEN)], METRIC_FILES, [str(DETAILS)])
    by_mtme = tables_from_mtme(str(MTME))
    for a, b in zip(by_files, by_mtme):
        assert a.lp == b.lp and a.systems == b.systems and len(a.segments) == len(b.segments) == 12
        np.testing.assert_array_equal(a.human, b.human)
        assert set(a.metrics) == set(b.metrics) == {"chrF", "YiSi-2"}
        for name in a.metrics:
            np.testing.assert_array_equal(a.metrics[name], b.metrics[name])
            np.testing.assert_array_equal(a.metrics_sys[name], b.metrics_sys[name])
        assert a.sys_origin == b.sys_origin == {"chrF": "file", "YiSi-2": "mean"}


# The join ---------------------------------------------------------------------------------------

def test_files_join_by_hand():
    notes = []
    (table,) = tables_from_files([str(ENDE)], METRIC_FILES, [str(DETAILS)], report=notes.append)
    assert table.systems == ["Huoshan_Translate.832", "OPPO.1535", "Online-A.1574", "Online-B.1590",
                             "Tencent_Translation.1520", "Tohoku-AIP-NTT.890", "eTranslation.737"]
    assert any("left out the human translations Human-A.0, Human-B.0, Human-P.0" in n for n in notes)
    assert any("using newstest2020" in n for n in notes)
    oppo = table.systems.index("OPPO.1535")
    assert table.human[oppo, :3].tolist() == [-2.666667, -1.0, -2.7]
    assert table.metrics_sys["chrF"][oppo] == 0.6535  # chrF.sys.score, reference newstest2020
    # test-set segment 14 is document en.ndtv.com.13152, segment 1: its chrF row in the score file
    row = [line.split("\t") for line in (EXCERPT / "chrF.seg.score").read_text().splitlines()
           if line.split("\t")[3:7] == ["newstest2020", "OPPO.1535", "en.ndtv.com.13152", "1"]]
    assert table.metrics["chrF"][oppo, 4] == float(row[0][7])


def test_joining_on_the_per_document_segid_is_an_error():
    """The trap: SEGID taken for the test-set number pairs the wrong segments; the join refuses it."""
    table = load_scores(METRIC_FILES[0], lps=["en-de"])
    rows = np.flatnonzero(table.texts("refset") == "newstest2020")
    wrong = LongScores("chrF", table.source, table.texts("system", rows), table.texts("segment", rows).astype(np.int64),
                       table.score[rows], table.line[rows])
    human = load_mqm(str(ENDE))
    fails_with(lambda: build_table("en-de", human, {"chrF": wrong}, {}), "not one-to-one",
               "second score for system", "segment 1", "test-set index")
    # the right join of the same rows goes through the index
    _, right = wmt_long_scores(METRIC_FILES[0], ["en-de"], read_index(str(DETAILS)))
    build_table("en-de", human, right["en-de"], {})


def test_a_wmt20_file_without_the_index_is_an_error():
    fails_with(lambda: tables_from_files([str(ENDE)], METRIC_FILES), "numbers segments within documents",
               "test-set index")


def test_a_segment_missing_from_the_index_is_an_error(tmp_path):
    index = write(tmp_path / "details.txt", "".join(DETAILS.read_text().splitlines(True)[:11]))
    fails_with(lambda: tables_from_files([str(ENDE)], METRIC_FILES, [index]), "cnn.385674 segment 4",
               "not in the test-set index")


def test_a_metric_missing_an_mt_system_or_cell_is_an_error(tmp_path):
    lines = (EXCERPT / "chrF.seg.score").read_text().splitlines(True)
    no_oppo = write(tmp_path / "a.seg.score", "".join(l for l in lines if "\tOPPO.1535\t" not in l))
    fails_with(lambda: tables_from_files([str(ENDE)], [no_oppo], [str(DETAILS)]),
               "chrF has no segment-level scores for system OPPO.1535")
    one_less = write(tmp_path / "b.seg.score", "".join(
        l for l in lines if not l.split("\t")[4:7] == ["OPPO.1535", "cnn.385674", "2"]))
    fails_with(lambda: tables_from_files([str(ENDE)], [one_less], [str(DETAILS)]),
               "chrF has no score for system OPPO.1535, segment 26")


def test_include_human_keeps_human_translations_but_not_the_reference():
    notes = []
    (table,) = tables_from_files([str(ENDE)], METRIC_FILES, [str(DETAILS)], include_human=True, report=notes.append)
    assert "Human-B.0" in table.systems and "Human-P.0" in table.systems
    assert "Human-A.0" not in table.systems  # newstest2020, the reference chrF is scored against
    assert any("left out Human-A.0" in n and "chrF" in n for n in notes)


def test_exclude_systems_and_too_few_systems():
    (table,) = tables_from_files([str(ENDE)], METRIC_FILES, [str(DETAILS)], exclude=["Online-*"])
    assert not any(s.startswith("Online") for s in table.systems) and len(table.systems) == 5
    fails_with(lambda: tables_from_files([str(ENDE)], METRIC_FILES, [str(DETAILS)], exclude=["*"]),
               "a meta-evaluation needs at least 2")


def test_convert_from_mqm_with_the_index_joins_wmt20_scores():
    """The canonical stream: one group per segment, gold = -MQM, pred = -chrF, joined through the index."""
    args = ["convert", "--from", "mqm", str(ENDE), "--index", str(DETAILS), "--scores", METRIC_FILES[0],
            "--exclude-systems", "Human-*", "--strict"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    rows = [line.split("\t") for line in result.stdout.splitlines()]
    header, rows = rows[0], rows[1:]
    assert header[:4] == ["group", "item", "gold", "pred"] and {"lp", "segno", "segment", "mqm"} <= set(header)
    assert len(rows) == 84 and rows[0][:2] == ["en-de:1", "eTranslation.737"]
    first = dict(zip(header, rows[0]))
    assert float(first["gold"]) == 2.333333 and first["segment"] == "independent.281139::1"
    ndtv = next(dict(zip(header, r)) for r in rows if r[0] == "en-de:14" and r[1] == "OPPO.1535")
    assert ndtv["segment"] == "en.ndtv.com.13152::1"
    (table,) = tables_from_files([str(ENDE)], METRIC_FILES, [str(DETAILS)])
    assert -float(ndtv["pred"]) == table.metrics["chrF"][table.systems.index("OPPO.1535"), 4]


def test_real_wmt20_join_gives_the_published_scale_and_the_segid_join_fails(shared):
    """Item-grouped chrF tau-b with MQM en-de: about 0.2 (scipy over the joined table)."""
    from scipy.stats import kendalltau

    mqm = shared / "wmt20-mqm"
    (table,) = tables_from_files([str(mqm / "mqm_newstest2020_ende.avg_seg_scores.tsv")],
                                 [str(shared / "wmt20-da" / "chrF.seg.score.gz")], [str(mqm / "details.en-de.txt")])
    assert table.human.shape == (7, 1418)
    taus = [kendalltau(table.human[:, j], table.metrics["chrF"][:, j]).statistic for j in range(1418)]
    assert 0.19 < np.nanmean(taus) < 0.20
    with gzip.open(shared / "wmt20-da" / "chrF.seg.score.gz", "rt") as f:
        assert sum(1 for line in f if "\ten-de\t" in line and line.split("\t")[6] == "1") > 7 * 10


def test_convert_from_mqm_with_a_segment_missing_from_the_index(tmp_path):
    path = write(tmp_path / "mqm_newstest2020_ende.tsv", "system mqm_avg_score seg_id\nA -1 1\nA -1 99\n")
    result = CliRunner().invoke(main, ["convert", "--from", "mqm", path, "--index", str(DETAILS)])
    assert result.exit_code == 1
    assert result.stderr.strip() == (f"rankeval: {path}:3: seg_id 99 of en-de newstest2020 is not in the "
                                     f"test-set index ({DETAILS})")
