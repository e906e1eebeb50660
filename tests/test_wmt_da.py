"""The wmt-da reader: WMT20 DA segment scores paired as the official WMT20 DARR (docs/formats.md)."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from rankeval_cli.errors import DataError
from rankeval_cli.formats import wmt_da
from helpers.cli import cli, ok
from helpers.conversion import counts, fails_at, read_all, round_trip

DATA = Path(__file__).resolve().parent / "data"
EXCERPT = DATA / "wmt20-da-excerpt-en-de.csv"
HEADER = "SYS SEGID RAW.SCR Z.SCR N SID\n"


def test_excerpt_pairs_by_hand():
    reports = []
    b = read_all_da(EXCERPT, report=reports.append)
    assert reports == [f"{EXCERPT}: left out 4 rows of human translations (Human-*)"]
    # Non-human raw DA per segment (from the excerpt):
    #   independent.281332::22: 89, 79, 98, 92, 85, 84.5, 95, 82 -> spread 19, no pair >= 25
    #   huffingtonpost.com.19347::4: PROMT 33.33, Tencent 69, zlabs 64.5, UEDIN 95.5, Online-Z 36,
    #     Huoshan 71 -> pairs >= 25: PROMT with Tencent, zlabs, UEDIN, Huoshan; Tencent-UEDIN 26.5,
    #     Tencent-Z 33, zlabs-UEDIN 31, zlabs-Z 28.5, UEDIN-Z 59.5, Z-Huoshan 35 (UEDIN-Huoshan 24.5 is not) = 10
    #   seattle_times.7059::9: eTranslation 99 with PROMT 72, zlabs 70.67, UEDIN 43 (3 pairs); UEDIN 43
    #     with the other 7 (PROMT 72, Online-A 81, Tencent 82, Tohoku 88, AFRL 77.33, zlabs 70.67,
    #     WMTBiomed 79) = 10; the rest lie within 70.67..88
    assert b.n_groups == 20
    segments = b.extra["segment"][0::2].tolist()
    assert segments == ["huffingtonpost.com.19347::4"] * 10 + ["seattle_times.7059::9"] * 10
    # first pair: PROMT (line 3, 33.3333333333333) and Tencent (line 7, 69.0): Tencent is better
    assert b.item[:2].tolist() == ["Tencent_Translation.1520", "PROMT_NMT.73"] and b.gold[:2].tolist() == [1, 2]
    assert b.line[:2].tolist() == [7, 3]
    assert b.group[0] == "en-de:huffingtonpost.com.19347::4:Tencent_Translation.1520:PROMT_NMT.73"
    assert float(b.extra["diff"][0]) == 69.0 - 33.3333333333333
    assert b.extra["SID"][0] == "646" and b.extra["RAW.SCR"][:2].tolist() == ["69.0", "33.3333333333333"]
    assert set(b.extra["lp"].tolist()) == {"en-de"}
    assert not any(s.startswith("Human") for s in b.item.tolist())
    uedin = [(b.item[2 * g], b.item[2 * g + 1]) for g in range(10, 20) if "UEDIN.1136" in b.item[2 * g:2 * g + 2]]
    assert len(uedin) == 8 and ("eTranslation.737", "UEDIN.1136") in uedin


def read_all_da(path, **options):
    from rankeval_cli.batch import concat

    return concat(list(wmt_da.read_wmt_da(str(path), **options)))


def test_min_diff_zero_gives_every_pair():
    b = read_all_da(EXCERPT, min_diff=0, report=lambda m: None)
    assert b.n_groups == 28 + 15 + 36  # C(8,2) + C(6,2) + C(9,2) non-human systems per segment
    # no two systems share a raw score on these segments, so there is no tie
    assert (b.gold[1::2] == 2).all()


def test_equal_scores_tie_when_allowed(tmp_path):
    path = tmp_path / "metrics-ad-seg-scores-de-en.csv"
    path.write_text(HEADER + "A d::1 50.0 0.1 1 1\nB d::1 50.0 0.2 1 1\nC d::1 80.0 0.3 1 1\n")
    b = read_all_da(path, min_diff=0)
    assert b.item.tolist() == ["A", "B", "C", "A", "C", "B"] and b.gold.tolist() == [1, 1, 1, 2, 1, 2]
    default = read_all_da(path)  # min_diff 25: C over A and C over B, 30 points each
    assert default.item.tolist() == ["C", "A", "C", "B"] and default.extra["diff"].tolist() == ["30"] * 4


def test_language_pair_from_name_or_option(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text(HEADER + "A d::1 10 0.1 1 1\nB d::1 80 0.2 1 1\n")
    with pytest.raises(DataError, match="cannot tell the language pair"):
        read_all_da(path)
    assert read_all_da(path, lp="ces-eng").extra["lp"][0] == "cs-en"
    assert wmt_da.lp_from_name("x/metrics-ad-seg-scores-zh-en.csv.gz") == "zh-en"


def test_cli_min_diff_option():
    result = ok(cli("convert", "--from", "wmt-da", "--min-diff", "30", EXCERPT))
    assert len(result.stdout.splitlines()) == 1 + 2 * 14  # 20 pairs minus those differing by 25..30:
    # 26.5, 28.5 (huffingtonpost), 27, 28.33, 29, 27.67 (seattle_times) -> 14 left
    assert "left out 4 rows" in result.stderr


def test_malformed(tmp_path):
    name = "metrics-ad-seg-scores-en-de.csv"
    good = "A d::1 10.0 0.1 1 1\n"
    fails_at(tmp_path, HEADER + good + "B d::1 80.0 0.2 1\n", 3, fmt="wmt-da", name=name, contains="expected 6")
    fails_at(tmp_path, HEADER + good + "B d::1 80.0 0.2 1 1 7\n", 3, fmt="wmt-da", name=name, contains="found 7")
    fails_at(tmp_path, HEADER + good + "B d::1 good 0.2 1 1\n", 3, fmt="wmt-da", name=name,
             contains="column 'RAW.SCR': 'good' is not a finite number")
    fails_at(tmp_path, "SYSTEM SEG RAW Z N SID\n" + good, 1, fmt="wmt-da", name=name, contains="unknown DA header")
    fails_at(tmp_path, HEADER + good + good, 3, fmt="wmt-da", name=name, contains="scored twice on segment d::1")
    (tmp_path / "scores.csv").write_text(HEADER + good)
    result = cli("convert", "--from", "wmt-da", tmp_path / "scores.csv")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"rankeval: {tmp_path / 'scores.csv'}: cannot tell the language pair")


def test_round_trip_excerpt(tmp_path):
    tsv, jsonl = round_trip(tmp_path, EXCERPT, "--from", "wmt-da")
    assert counts(tsv, jsonl) == (20, 40, 0)


def slow_pairs(path: Path, min_diff: float):
    """(segment, better, worse) for every non-human pair differing by min_diff or more, plainly."""
    rows = [line.split() for line in path.read_text().splitlines()[1:] if line.strip()]
    by_segment: dict = {}
    for system, segid, raw, *_ in rows:
        if not system.startswith("Human-"):
            by_segment.setdefault(segid, []).append((system, float(raw)))
    pairs = set()
    for segid, scored in by_segment.items():
        for (a, x), (b, y) in itertools.combinations(scored, 2):
            if abs(x - y) >= min_diff and x != y:
                pairs.add((segid, a, b) if x > y else (segid, b, a))
    return pairs


@pytest.mark.parametrize("lp, pairs", [("en-de", 9339), ("cs-en", 14018)])
def test_real_files(shared, tmp_path, lp, pairs):
    path = shared / f"wmt20-da/metrics-ad-seg-scores-{lp}.csv"
    tsv, jsonl = round_trip(tmp_path, path, "--from", "wmt-da")
    assert counts(tsv, jsonl) == (pairs, 2 * pairs, 0)
    b = read_all(tsv, "tsv")
    got = set(zip(b.extra["segment"][0::2].tolist(), b.item[0::2].tolist(), b.item[1::2].tolist()))
    assert got == slow_pairs(path, 25)


def test_real_all_pairs_and_ties(shared):
    b = read_all_da(shared / "wmt20-da/metrics-ad-seg-scores-en-de.csv", min_diff=0, report=lambda m: None)
    # the regenerated DARR file has 30,567 en-de pairs, 664 of them with a difference of 0
    assert b.n_groups == 30567 and int((b.gold[1::2] == 1).sum()) == 664
    untied = b.gold[1::2] == 2
    got = set(zip(b.extra["segment"][0::2][untied].tolist(), b.item[0::2][untied].tolist(),
                  b.item[1::2][untied].tolist()))
    assert got == slow_pairs(shared / "wmt20-da/metrics-ad-seg-scores-en-de.csv", 0)
    assert np.isnan(b.pred).all()
