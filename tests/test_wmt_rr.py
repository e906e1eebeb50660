"""The wmt-rr reader: WMT08, WMT10-14 and WMT15-16 judgment layouts (docs/formats.md).

Expected values are read off the excerpt lines by hand (tests/data/SOURCES.md names
their source lines) or recounted from the real files with the csv module.
"""

from __future__ import annotations

import collections
import csv
import gzip
import io
import math
from pathlib import Path

import numpy as np
import pytest

from rankeval_cli.batch import concat
from rankeval_cli.errors import DataError
from rankeval_cli.formats import read, wmt_rr
from rankeval_cli.formats import wmtids
from rankeval_cli.formats.wmtids import language_code, normalize_lp

from helpers.cli import cli, ok
from helpers.conversion import counts, fails_at, read_all, round_trip

DATA = Path(__file__).resolve().parent / "data"
WMT10_HEADER = ("srclang,trglang,srcIndex,documentId,segmentId,judgeId,system1Number,system1Id,system2Number,"
                "system2Id,system3Number,system3Id,system4Number,system4Id,system5Number,system5Id,"
                "system1rank,system2rank,system3rank,system4rank,system5rank")
WMT15_HEADER = "srclang,trglang,srcIndex,segmentId,judgeID,system1Id,system1rank,system2Id,system2rank,rankingID"
WMT08_HEADER = ("TASK,TYPE,ITEM_ID,ANNOTATOR_ID,TIME,SYSTEM_0,SCORE_0_A,SCORE_0_B,SYSTEM_1,SCORE_1_A,SCORE_1_B,"
                "SYSTEM_2,SCORE_2_A,SCORE_2_B")


# ---- language pairs and ids -------------------------------------------------------------------

@pytest.mark.parametrize("names, code", [
    (("Czech", "cze", "ces", "cs", "CZE"), "cs"), (("English", "eng", "en"), "en"),
    (("French", "fre", "fra"), "fr"), (("German", "deu", "ger"), "de"), (("Finnish", "fin"), "fi"),
    (("Romanian", "ron", "rum"), "ro"), (("Russian", "rus"), "ru"), (("Turkish", "tur"), "tr"),
    (("Hindi", "hin"), "hi"), (("Latvian", "lav"), "lv"), (("Estonian", "est"), "et"),
    (("Basque", "eus", "baq"), "eu"), (("Spanish", "spa"), "es"), (("Hungarian", "hun"), "hu"),
])
def test_language_names_and_codes(names, code):
    assert {language_code(n) for n in names} == {code}


def test_language_pairs():
    assert normalize_lp("Czech-English") == normalize_lp("cze-eng") == normalize_lp("cs-en") == "cs-en"
    assert normalize_lp("ron-eng") == "ro-en"
    assert normalize_lp("xh-zu") == "xh-zu"  # unknown codes stay, lowercased
    assert wmtids.testset_of_system("newstest2016.online-B.0.ro-en") == "newstest2016"
    assert wmtids.testset_of_system("it-test2016.qtl-Moses.4268.en-eu") == "it-test2016"
    assert wmtids.testset_of_system("uedin-wmt12") == wmtids.testset_of_system("online-B.0") == ""


# ---- WMT10-14 --------------------------------------------------------------------------------

def test_wmt12_excerpt_by_hand():
    b = read_all(DATA / "wmt12-excerpt.csv")
    # 9 data lines, 5 systems each; lines 6, 7, 8 have a -1 in system2rank
    assert (b.n_groups, b.n_rows) == (9, 45)
    assert b.group[0] == "cs-en:1018:2" and b.group[-1] == "en-de:1580:10"
    assert b.item[:5].tolist() == ["jhu-heiro", "onlineB", "uk-dan-moses", "cu-bojar", "uedin-wmt12"]
    assert b.gold[:5].tolist() == [2, 1, 1, 1, 1]
    blanks = np.flatnonzero(np.isnan(b.gold))
    # second item of the groups from lines 6, 7, 8 (groups 4, 5, 6: rows 4*5+1, 5*5+1, 6*5+1)
    assert blanks.tolist() == [21, 26, 31]
    assert b.item[21] == "cu-tamch-boj" and b.line[21] == 6
    # line 8 "English,Czech,1133,...,1,CU_TectoMT,1,-1,2,2,2": its 5th item is CU_TectoMT with rank 2
    assert b.item[34] == "CU_TectoMT" and b.gold[34] == 2 and b.extra["systemNumber"][34] == "1"
    assert set(b.extra["lp"].tolist()) == {"cs-en", "en-cs", "en-de"}
    assert list(b.extra)[:4] == ["lp", "testset", "segment", "judge"]
    assert b.extra["judge"][0] == "A3L1TNHRLMPUVO" and b.extra["documentId"][0] == "cs-en.test"
    assert (b.line == np.repeat(np.arange(2, 11), 5)).all()
    assert set(b.extra["testset"].tolist()) == {""}


def test_wmt13_excerpt_testset_and_ids_kept():
    b = read_all(DATA / "wmt13-excerpt.csv")
    assert (b.n_groups, b.n_rows) == (6, 30)
    assert b.item[0] == "newstest2013.fr-en.KIT_primary.2658"
    assert b.gold[:5].tolist() == [2, 2, 3, 2, 1]
    assert set(b.extra["testset"].tolist()) == {"newstest2013"}
    assert set(b.extra["lp"].tolist()) == {"fr-en"}


def test_blank_is_nan_never_rank_one(tmp_path):
    text = WMT10_HEADER + "\nCzech,English,1,d,1,j,1,a,2,b,3,c,4,d,5,_ref,-1,1,-1,2,3\n"
    (tmp_path / "x.csv").write_text(text)
    b = read_all(tmp_path / "x.csv")
    assert np.isnan(b.gold[[0, 2]]).all() and b.gold[[1, 3, 4]].tolist() == [1, 2, 3]
    assert b.item[4] == "_ref"


def test_empty_system_cell_is_absent(tmp_path):
    text = WMT10_HEADER + "\nCzech,English,1,d,1,j,1,a,2,,3,c,,,5,e,1,-1,2,,3\n"
    (tmp_path / "x.csv").write_text(text)
    b = read_all(tmp_path / "x.csv")
    assert b.item.tolist() == ["a", "c", "e"] and b.gold.tolist() == [1, 2, 3]


# ---- WMT08 -----------------------------------------------------------------------------------

def test_wmt08_excerpt_by_hand():
    reports = []
    b = concat(list(wmt_rr.read_wmt_rr(str(DATA / "wmt08-excerpt.csv"), report=reports.append)))
    # RANK lines 2,3,4 (5 systems), 7,8,9 (1), 10 (3), 11,12 (5), 13 (2), 14 (4); lines 5, 6 are CONSTITUENT
    assert b.n_groups == 11 and b.sizes.tolist() == [5, 5, 5, 1, 1, 1, 3, 5, 5, 2, 4]
    assert len(reports) == 1 and "skipped 2 rows that are not rankings (TYPE CONSTITUENT: 2)" in reports[0]
    assert b.group[0] == "fr-en:753:2"
    assert b.item[:5].tolist() == ["saar-contrast", "cmu-statxfer", "rbmt6", "cued", "rbmt5"]
    assert b.gold[:5].tolist() == [1, 4, 5, 2, 3]
    assert b.extra["testset"][0] == "Europarl" and b.extra["TIME"][0] == "153" and b.extra["judge"][0] == "0"
    g = 5  # "WMT08 All-English News,RANK,666,3,15,bbn-combo_de,5,"
    row = b.offsets[g]
    assert (b.group[g], b.item[row], b.gold[row]) == ("xx-en:666:9", "bbn-combo_de", 5)
    assert b.extra["testset"][row] == "News" and b.extra["segment"][row] == "666"
    assert b.extra["lp"][b.offsets[3]] == "en-es" and b.extra["lp"][b.offsets[6]] == "cs-en"
    last = b.offsets[10]  # line 14: rbmt5 4, lium-systran 5, uedin 1, saar-contrast 2
    assert b.item[last:].tolist() == ["rbmt5", "lium-systran", "uedin", "saar-contrast"]
    assert b.gold[last:].tolist() == [4, 5, 1, 2] and (b.line[last:] == 14).all()
    assert not np.isnan(b.gold).any()


def test_wmt08_non_rank_rows_reported_on_stderr(tmp_path):
    result = ok(cli("convert", "--from", "wmt-rr", DATA / "wmt08-excerpt.csv"))
    assert "skipped 2 rows that are not rankings" in result.stderr
    assert len(result.stdout.splitlines()) == 1 + 37


# ---- WMT15-16 pairwise ------------------------------------------------------------------------

def slow_pairwise(path: Path) -> dict:
    """rankingID -> {system: rank} from a pairwise file, with the csv module."""
    text = path.read_bytes().decode("utf-8").replace("\r", "")
    rankings: dict = collections.OrderedDict()
    for row in list(csv.DictReader(io.StringIO(text))):
        ranking = rankings.setdefault(row["rankingID"], {})
        for k in ("1", "2"):
            ranking.setdefault(row[f"system{k}Id"], float(row[f"system{k}rank"]))
    return rankings


def test_wmt16_excerpt_against_slow_parse():
    path = DATA / "wmt16-excerpt.ron-eng.csv"
    b = read_all(path)
    expected = slow_pairwise(path)
    assert b.group.tolist() == [f"ro-en:{k}" for k in expected] == ["ro-en:1627", "ro-en:1628", "ro-en:1630"]
    assert b.sizes.tolist() == [5, 5, 7]
    for g, ranking in enumerate(expected.values()):
        rows = slice(b.offsets[g], b.offsets[g + 1])
        assert dict(zip(b.item[rows].tolist(), b.gold[rows].tolist())) == ranking
    # first line: online-B.0 rank 5 vs uedin-syntax rank 5 (line 2)
    assert b.item[:2].tolist() == ["newstest2016.online-B.0.ro-en", "newstest2016.uedin-syntax.4272.ro-en"]
    assert b.line[:2].tolist() == [2, 2] and b.gold[:2].tolist() == [5, 5]
    assert set(b.extra["testset"].tolist()) == {"newstest2016"}
    assert set(b.extra["rankingID"][:5].tolist()) == {"1627"} and b.extra["judge"][0] == "judge5"


def test_wmt16_groups_whole_across_small_chunks(monkeypatch):
    monkeypatch.setattr(wmt_rr, "BATCH_ROWS", 7)
    batches = list(read(str(DATA / "wmt16-excerpt.ron-eng.csv"), "wmt-rr"))
    assert len(batches) == 3 and [b.n_groups for b in batches] == [1, 1, 1]
    assert concat(batches).sizes.tolist() == [5, 5, 7]


def test_one_batch_per_many_groups(tmp_path):
    rows = "".join(f"Czech,English,{i},d,{i},j,1,a,2,b,3,c,4,d,5,e,1,2,3,4,5\n" for i in range(30000))
    (tmp_path / "big.csv").write_text(WMT10_HEADER + "\n" + rows)
    batches = list(read(str(tmp_path / "big.csv"), "wmt-rr"))
    assert len(batches) == 3 and sum(b.n_groups for b in batches) == 30000
    assert all(b.n_rows <= wmt_rr.BATCH_ROWS for b in batches)


def test_gzip_and_stdin_read_the_same(tmp_path):
    raw = (DATA / "wmt12-excerpt.csv").read_bytes()
    (tmp_path / "x.csv.gz").write_bytes(gzip.compress(raw))
    plain = read_all(DATA / "wmt12-excerpt.csv")
    zipped = concat(list(read(str(tmp_path / "x.csv.gz"), "wmt-rr")))
    streamed = concat(list(read(io.BytesIO(raw), "wmt-rr")))
    for b in (zipped, streamed):
        assert b.item.tolist() == plain.item.tolist()
        assert np.array_equal(b.gold, plain.gold, equal_nan=True)


# ---- malformed input through the CLI ---------------------------------------------------------

def test_malformed_wmt10(tmp_path):
    good = "Czech,English,1,d,1,j,1,a,2,b,3,c,4,d,5,e,1,2,3,4,5"
    fails_at(tmp_path, f"{WMT10_HEADER}\n{good}\nCzech,English,2,d,2,j,1,a\n", 3, contains="expected 21")
    fails_at(tmp_path, f"{WMT10_HEADER}\n{good}\n\n{good.replace(',3,4,5', ',x,4,5')}\n", 4,
             contains="system3rank: 'x' is not a rank")
    fails_at(tmp_path, f"{WMT10_HEADER}\n{good.replace(',1,2,3,4,5', ',0,2,3,4,5')}\n", 2, contains="system1rank")
    fails_at(tmp_path, f"{WMT10_HEADER}\n{good.replace('5,e,', '5,,')}\n", 2, contains="empty system cell")
    fails_at(tmp_path, f"{WMT10_HEADER}\n{good.replace(',b,', ',a,')}\n", 2, contains="appears twice")
    fails_at(tmp_path, "srclang,trglang,foo\n1,2,3\n", 1, contains="unknown header")
    fails_at(tmp_path, "", 1, contains="empty input")
    fails_at(tmp_path, b"\xef\xbb\xbf" + f"{WMT10_HEADER}\n{good}\n".encode() + b"Czech\xff\n", 3,
             contains="invalid UTF-8")


def test_malformed_wmt08(tmp_path):
    good = "WMT08 French-English Europarl,RANK,753,0,153,saar,1,,cued,2,,dcu,3,"
    fails_at(tmp_path, f"{WMT08_HEADER}\n{good}\n{good[:-6]}\n", 3, contains="comma-separated fields")
    fails_at(tmp_path, f"{WMT08_HEADER}\n{good.replace(',2,,', ',two,,')}\n", 2, contains="SCORE_1_A")
    fails_at(tmp_path, f"{WMT08_HEADER}\n{good.replace('French-English', 'FrenchEnglish')}\n", 2,
             contains="cannot read the language pair")


def test_malformed_wmt16(tmp_path):
    rows = ["ron,eng,1,1,j1,s.a,1,s.b,2,7", "ron,eng,1,1,j1,s.a,1,s.c,3,7", "ron,eng,1,1,j1,s.b,2,s.c,3,7"]
    head = WMT15_HEADER + "\n"
    fails_at(tmp_path, head + "\n".join(rows[:2] + ["ron,eng,1,1,j1,s.b,1,s.c,3,7"]) + "\n", 4,
             contains="system s.b has rank 1 here but 2 earlier in rankingID 7")
    fails_at(tmp_path, head + "\n".join(rows[:2] + ["ron,eng,1,1,j1,s.b,2,s.c"]) + "\n", 4, contains="expected 10")
    fails_at(tmp_path, head + "\n".join(rows[:2] + ["ron,eng,1,1,j1,s.b,2,s.c,high,7"]) + "\n", 4,
             contains="system2rank")
    fails_at(tmp_path, head + "\n".join(rows[:2] + ["ron,eng,1,1,j2,s.b,2,s.c,3,7"]) + "\n", 4,
             contains="judgeID 'j2' differs")
    # rankingID 7 comes back after 8: the framework refuses the repeated group
    fails_at(tmp_path, head + "\n".join([rows[0], "ron,eng,2,2,j1,s.a,1,s.b,2,8", rows[1]]) + "\n", 4,
             contains="appears again")


# ---- the real files ---------------------------------------------------------------------------

REAL = [
    ("wmt08-rr/judgments_wmt08_final.csv", 5017, 21680, 0),
    ("wmt12-rr/wmt12.RNK_results.csv", 12339, 61695, 355),
    ("wmt13-rr/sample-fr-en-test.csv", 200, 1000, 0),
    ("wmt16-rr/wmt16.ron-eng.csv", 1260, 6902, 0),
    ("wmt16-rr/wmt16it.eng-eus.csv", 1485, 2970, 0),
]


def slow_counts(path: Path) -> tuple[int, int, int]:
    """(groups, items, blanks) recounted with the csv module, layout by layout."""
    text = path.read_bytes().decode("utf-8").replace("\r", "")
    rows = [r for r in csv.reader(io.StringIO(text)) if r]
    header, rows = rows[0], rows[1:]
    if header[0] == "TASK":
        rank_rows = [r for r in rows if r[1] == "RANK"]
        cells = [(s, x) for r in rank_rows for s, x in zip(r[5::3], r[6::3]) if s]
        return len(rank_rows), len(cells), sum(1 for _, x in cells if x in ("-1", ""))
    if len(header) == 21:
        return len(rows), sum(1 for r in rows for s in r[7:16:2] if s), sum(r[16:21].count("-1") for r in rows)
    rankings = slow_pairwise(path)
    return len(rankings), sum(map(len, rankings.values())), sum(
        1 for r in rankings.values() for v in r.values() if v == -1)


@pytest.mark.parametrize("name, groups, items, blanks", REAL)
def test_real_files_convert_and_round_trip(shared, tmp_path, name, groups, items, blanks):
    tsv, jsonl = round_trip(tmp_path, shared / name, "--from", "wmt-rr")
    assert counts(tsv, jsonl) == (groups, items, blanks) == slow_counts(shared / name)


def test_wmt12_real_values(shared):
    b = read_all(shared / "wmt12-rr/wmt12.RNK_results.csv")
    assert len(set(b.group.tolist())) == 12339
    assert collections.Counter(b.extra["lp"][b.offsets[:-1]].tolist()) == {
        "en-cs": 2308, "en-de": 1752, "en-fr": 1547, "en-es": 1475, "de-en": 1427, "fr-en": 1395,
        "cs-en": 1294, "es-en": 1141}
    ranks = collections.Counter("blank" if math.isnan(v) else int(v) for v in b.gold.tolist())
    # the rank column counts of the file: 1..5 and 355 times -1
    assert ranks == {3: 14315, 2: 13779, 1: 12601, 4: 11867, 5: 8778, "blank": 355}


def test_reader_rejects_unknown_option():
    result = cli("convert", "--from", "wmt-rr", "--min-diff", "3", DATA / "wmt12-excerpt.csv")
    assert result.exit_code == 2 and "does not apply" in result.stderr


def test_direct_call_raises_dataerror(tmp_path):
    (tmp_path / "x.csv").write_text("a,b\n")
    with pytest.raises(DataError) as err:
        list(wmt_rr.read_wmt_rr(str(tmp_path / "x.csv")))
    assert err.value.line == 1
