"""The darr reader: WMT17-21 DARR pairs as 2-item groups (docs/formats.md)."""

from __future__ import annotations

import collections
import gzip
from pathlib import Path

import numpy as np

from helpers.cli import cli, ok
from helpers.conversion import counts, fails_at, read_all, round_trip

DATA = Path(__file__).resolve().parent / "data"
EXCERPT = DATA / "wmt20-darr-excerpt.csv"


def test_excerpt_by_hand():
    b = read_all(EXCERPT, "darr")
    assert (b.n_groups, b.n_rows) == (84, 168)
    assert (b.sizes == 2).all() and b.gold[0::2].tolist() == [1] * 84
    # line 2: OPPO.1535 (raw DA 92.0) over PROMT_NMT.73 (89.0) on independent.281332::22
    first = EXCERPT.read_text().splitlines()[1].split()
    assert first == ["en-de", "newstest2020", "independent.281332::22", "OPPO.1535", "PROMT_NMT.73", "3.0"]
    assert b.group[0] == "2" and b.item[:2].tolist() == first[3:5] and b.gold[:2].tolist() == [1, 2]
    assert {k: v[0] for k, v in b.extra.items()} == {"lp": "en-de", "testset": "newstest2020",
                                                     "segment": "independent.281332::22", "diff": "3.0"}
    assert b.line[:2].tolist() == [2, 2]


def test_min_diff_filters_on_the_sixth_field():
    b = read_all(EXCERPT, "darr", min_diff=25)
    # 20 en-de pairs of the three segments differ by 25 or more (worked out in test_wmt_da.py),
    # and 3 of the 5 cs-en lines (DIFF 92.0, 67.0, 88.0; not 4.0, 5.0)
    assert b.n_groups == 23
    assert collections.Counter(b.extra["lp"][0::2].tolist()) == {"en-de": 20, "cs-en": 3}
    assert (np.array(b.extra["diff"][0::2], dtype=float) >= 25).all()


def test_zero_difference_is_a_tie(tmp_path):
    (tmp_path / "d.csv").write_text("LP DATA SID BETTER WORSE\n"
                                    "de-en newstest2019 7 sysA sysB 0.0\n"
                                    "de-en newstest2019 7 sysA sysC 30.0\n")
    b = read_all(tmp_path / "d.csv", "darr")
    assert b.gold.tolist() == [1, 1, 1, 2] and b.group.tolist() == ["2", "3"]


def test_five_fields_without_header(tmp_path):
    (tmp_path / "d.csv").write_text("cs-en newstest2017 12 online-A.0 uedin.4321\n"
                                    "\n"
                                    "cze-eng newstest2017 13 uedin.4321 online-A.0\n")
    b = read_all(tmp_path / "d.csv", "darr")
    assert b.group.tolist() == ["1", "3"] and list(b.extra) == ["lp", "testset", "segment"]
    assert b.extra["lp"].tolist() == ["cs-en"] * 4 and b.extra["segment"].tolist() == ["12", "12", "13", "13"]
    result = cli("convert", "--from", "darr", "--min-diff", "25", tmp_path / "d.csv")
    assert result.exit_code == 1 and "--min-diff needs the 6th field" in result.stderr


def test_malformed(tmp_path):
    head = "LP DATA SID BETTER WORSE\n"
    good = "en-de newstest2020 d::1 sysA sysB 30.0\n"
    fails_at(tmp_path, head + good + "en-de newstest2020 d::1 sysA\n", 3, fmt="darr", contains="expected 6")
    fails_at(tmp_path, head + good + "en-de newstest2020 d::1 sysA sysC 3.0 x\n", 3, fmt="darr", contains="found 7")
    fails_at(tmp_path, head + good + "en-de newstest2020 d::1 sysA sysC big\n", 3, fmt="darr",
             contains="column 'DIFF': 'big' is not a finite number")
    fails_at(tmp_path, "LP DATA SEG BEST WORST\n" + good, 1, fmt="darr", contains="unknown DARR header")
    fails_at(tmp_path, "lang data sid better worse\n" + good, 1, fmt="darr", contains="unknown DARR header")
    fails_at(tmp_path, head + "en-de newstest2020 d::1 sysA sysA 30.0\n", 2, fmt="darr", contains="appears twice")


def test_gzip_stdin_and_round_trip(tmp_path):
    (tmp_path / "x.csv.gz").write_bytes(gzip.compress(EXCERPT.read_bytes()))
    a, b = read_all(EXCERPT, "darr"), read_all(tmp_path / "x.csv.gz", "darr")
    assert a.item.tolist() == b.item.tolist() and a.group.tolist() == b.group.tolist()
    tsv, jsonl = round_trip(tmp_path, EXCERPT, "--from", "darr")
    assert counts(tsv, jsonl) == (84, 168, 0)
    stdin = ok(cli("convert", "--from", "darr", "-"))  # CliRunner's stdin is empty: header-only output
    assert stdin.stdout == "group\titem\tgold\tpred\n"


REAL = "wmt20-da/DArr-seglevel.en-de+cs-en.regenerated.csv.gz"


def test_real_file(shared, tmp_path):
    tsv, jsonl = round_trip(tmp_path, shared / REAL, "--from", "darr")
    assert counts(tsv, jsonl) == (69754, 139508, 0)
    b = read_all(tsv, "tsv")
    rows = [line.split() for line in gzip.open(shared / REAL, "rt").read().splitlines()[1:]]
    assert b.item[0::2].tolist() == [r[3] for r in rows] and b.item[1::2].tolist() == [r[4] for r in rows]
    ties = sum(1 for r in rows if float(r[5]) == 0)
    assert ties == 1265 and int((b.gold[1::2] == 1).sum()) == ties


def test_real_file_min_diff(shared):
    b = read_all(shared / REAL, "darr", min_diff=25)
    # the data README: the official evaluation keeps pairs whose difference is at least 25
    assert b.n_groups == 23357
    assert collections.Counter(b.extra["lp"][0::2].tolist()) == {"cs-en": 14018, "en-de": 9339}
