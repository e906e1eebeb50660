"""The wmt-scores reader: metric score files as rankings of systems (docs/formats.md)."""

from __future__ import annotations

import collections
import gzip
from pathlib import Path

import numpy as np
import pytest

from rankeval_cli.batch import concat
from rankeval_cli.formats import read
from rankeval_cli.formats.wmt_scores import detect_layout, load_scores
from helpers.conversion import counts, fails_at, read_all, round_trip

DATA = Path(__file__).resolve().parent / "data"
SEG = DATA / "wmt20-chrF-excerpt.seg.score"
SYS = DATA / "wmt20-chrF-excerpt.sys.score"


@pytest.mark.parametrize("line, layout", [
    ("BLEU\tde-en\tnewstest2015\tonline-B.0\t0.25", "sys-wmt10"),
    ("BLEU\tde-en\tnewstest2015\tonline-B.0\t17\t0.25", "seg-wmt10"),
    ("BLEU\tde-en\tnewstest2020\tnewstest2020\tOnline-B.1590\t0.25", "sys-wmt20"),
    ("BLEU\tde-en\tnewstest2017\tonline-B.0\t0.25\tnon-ensemble\tyes", "sys-wmt17"),
    ("BLEU\tde-en\tnewstest2017\tonline-B.0\t17\t0.25\tnon-ensemble\tyes", "seg-wmt17"),
    ("BLEU\tde-en\tnewstest2020\tnewstest2020\tOnline-B.1590\tdoc.1\t3\t0.25", "seg-wmt20"),
    ("BLEU\tde-en\t0.25", None),
])
def test_layout_by_field_count(line, layout):
    assert detect_layout(line.split("\t")) == layout


def test_segment_excerpt_by_hand():
    b = read_all(SEG, "wmt-scores")
    # cs-en (12 systems, one reference) comes first in the file, then en-de: 3 segments x 3
    # reference sets, each scoring the 14 MT systems and the two human translations not used as reference
    assert b.n_groups == 10 and b.sizes.tolist() == [12] + [16] * 9
    assert b.group[0] == "chrF:cs-en:newstest2020:newstest2020:denik.cz.201552:1"
    assert list(b.extra) == ["metric", "lp", "testset", "refset", "docid", "segment", "score"]
    assert np.isnan(b.gold).all()
    # groups are contiguous although the file is sorted by system
    assert (np.diff(b.line[b.offsets[1]:b.offsets[2]]) > 1).all()
    first = SEG.read_text().splitlines()[0].split("\t")
    assert first[4:] == ["CUNI-DocTransformer.1457", "denik.cz.201552", "1", "0.58311"]
    assert b.item[0] == "CUNI-DocTransformer.1457" and b.pred[0] == -0.58311 and b.extra["score"][0] == "0.58311"
    refsets = b.extra["refset"][b.offsets[1:-1]].tolist()
    assert collections.Counter(refsets) == {"newstest2020": 3, "newstestB2020": 3, "newstestP2020": 3}
    human = {s for s in b.item.tolist() if s.startswith("Human")}
    assert human == {"Human-A.0", "Human-B.0", "Human-P.0"}


def test_score_direction_option():
    lower = read_all(SEG, "wmt-scores", higher_better=False)
    assert lower.pred[0] == 0.58311


def test_system_excerpt():
    b = read_all(SYS, "wmt-scores")
    assert b.sizes.tolist() == [12, 16, 16, 16]
    assert list(b.extra) == ["metric", "lp", "testset", "refset", "score"]
    assert b.group.tolist()[:2] == ["chrF:cs-en:newstest2020:newstest2020", "chrF:en-de:newstest2020:newstest2020"]


def test_wmt10_and_wmt17_layouts(tmp_path):
    (tmp_path / "a.seg.score").write_text("M\tcs-en\tnewstest2015\tsysA\t1\t0.5\n"
                                          "M\tcs-en\tnewstest2015\tsysA\t2\t0.25\n"
                                          "M\tcs-en\tnewstest2015\tsysB\t1\t0.75\n"
                                          "M\tcs-en\tnewstest2015\tsysB\t2\t0.125\n")
    b = read_all(tmp_path / "a.seg.score", "wmt-scores")
    assert b.group.tolist() == ["M:cs-en:newstest2015:1", "M:cs-en:newstest2015:2"]
    assert b.item.tolist() == ["sysA", "sysB", "sysA", "sysB"] and b.pred.tolist() == [-0.5, -0.75, -0.25, -0.125]
    assert b.line.tolist() == [1, 3, 2, 4]
    (tmp_path / "b.seg.score").write_text("M\tcze-eng\tnewstest2017\tsysA\t1\t0.5\tnon-ensemble\tyes\n")
    b = read_all(tmp_path / "b.seg.score", "wmt-scores")
    assert b.extra["lp"][0] == "cs-en" and b.extra["ensemble"][0] == "non-ensemble" and b.extra["available"][0] == "yes"


def test_gzip_same_as_plain(tmp_path):
    (tmp_path / "x.gz").write_bytes(gzip.compress(SEG.read_bytes()))
    a, b = read_all(SEG, "wmt-scores"), read_all(tmp_path / "x.gz", "wmt-scores")
    assert a.item.tolist() == b.item.tolist() and np.array_equal(a.pred, b.pred)


def test_load_only_some_lps():
    table = load_scores(str(SEG), lps={"cs-en"})
    assert table.n_rows == 12 and set(table.texts("lp").tolist()) == {"cs-en"}


def test_round_trip_excerpts(tmp_path):
    tsv, jsonl = round_trip(tmp_path, SEG, "--from", "wmt-scores")
    assert counts(tsv, jsonl) == (10, 156, 156)


def test_malformed(tmp_path):
    good = "M\tcs-en\tt\tsysA\t1\t0.5\n"
    fails_at(tmp_path, good + good.replace("\t0.5", "\t0.5\textra\tfield"), 2, fmt="wmt-scores",
             contains="expected 6 tab-separated fields")
    fails_at(tmp_path, good + "M\tcs-en\tt\tsysA\t2\n", 2, fmt="wmt-scores", contains="expected 6")
    fails_at(tmp_path, good + good.replace("\t1\t0.5", "\t3\tabc"), 2, fmt="wmt-scores",
             contains="column 'score': 'abc' is not a finite number")
    fails_at(tmp_path, "METRIC\tLP\tSCORE\n", 1, fmt="wmt-scores", contains="unknown score file layout")
    fails_at(tmp_path, good + good, 2, fmt="wmt-scores", contains="appears twice")


def test_real_files(shared):
    seg = read_all(shared / "wmt20-da/chrF.seg.score.gz", "wmt-scores")
    rows = [line.split("\t") for line in gzip.open(shared / "wmt20-da/chrF.seg.score.gz", "rt").read().splitlines()]
    keys = {tuple(r[:4] + r[5:7]) for r in rows}
    assert seg.n_rows == len(rows) == 506621 and seg.n_groups == len(keys) == 45380
    assert len(set(seg.group.tolist())) == seg.n_groups
    cs_en = seg.extra["lp"] == "cs-en"
    scores = {(r[4], r[5], r[6]): -float(r[7]) for r in rows if r[1] == "cs-en"}
    got = zip(seg.item[cs_en].tolist(), seg.extra["docid"][cs_en].tolist(), seg.extra["segment"][cs_en].tolist())
    assert seg.pred[cs_en].tolist() == [scores[k] for k in got] and len(scores) == 7968
    sys_level = read_all(shared / "wmt20-da/TER.sys.score.gz", "wmt-scores")
    assert sys_level.n_rows == 410 and sys_level.n_groups == len(
        {tuple(line.split("\t")[:4]) for line in gzip.open(shared / "wmt20-da/TER.sys.score.gz", "rt")})


@pytest.mark.parametrize("name", ["chrF.sys.score.gz", "TER.sys.score.gz"])
def test_real_system_files_round_trip(shared, tmp_path, name):
    tsv, jsonl = round_trip(tmp_path, shared / "wmt20-da" / name, "--from", "wmt-scores")
    groups, items, blanks = counts(tsv, jsonl)
    assert items == blanks == {"chrF.sys.score.gz": 342, "TER.sys.score.gz": 410}[name]


def test_batches_hold_whole_groups(monkeypatch):
    from rankeval_cli.formats import wmt_scores

    monkeypatch.setattr(wmt_scores, "BATCH_ROWS", 20)
    batches = list(read(str(SEG), "wmt-scores"))
    assert [b.sizes.tolist() for b in batches] == [[12], [16], [16], [16], [16], [16], [16], [16], [16], [16]]
    assert len(set(concat(batches).group.tolist())) == 10
