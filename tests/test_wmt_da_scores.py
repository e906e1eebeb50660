"""The wmt-da-scores reader: WMT segment-level DA scores, one group per segment."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.cli import cli, ok
from helpers.conversion import fails_at, read_all, round_trip

DATA = Path(__file__).resolve().parent / "data"
EXCERPT = DATA / "wmt20-da-excerpt-en-de.csv"
#: synthetic, in the WMT organisers' layout (scripts/human-rankings-fixtures/make-exports)
ORGANISERS = DATA / "synthetic-ad-seg-scores-de-en.csv"


def test_excerpt_by_hand():
    b = read_all(EXCERPT, "wmt-da-scores")
    # three segments in order of first appearance; every system of a segment, in file order
    assert b.group.tolist() == ["en-de:independent.281332::22", "en-de:huffingtonpost.com.19347::4",
                                "en-de:seattle_times.7059::9"]
    lines = EXCERPT.read_text().splitlines()
    first = lines[1].split()  # PROMT_NMT.73 independent.281332::22 89.0 0.9410753170504449 2 983
    assert b.item[0] == first[0] and b.gold[0] == -89.0 and b.line[0] == 2
    assert b.extra["z"][0] == "-0.9410753170504449" and b.extra["Z.SCR"][0] == first[3]
    assert b.extra["judgments"][0] == "2" and b.extra["SID"][0] == "983" and b.extra["lp"][0] == "en-de"
    assert "Human-P.0" in b.item.tolist()  # human translations are ranked too
    assert b.n_rows == len(lines) - 1


def test_negated_z_text_is_exact():
    b = read_all(EXCERPT, "wmt-da-scores")
    for z, source in zip(b.extra["z"].tolist(), b.extra["Z.SCR"].tolist()):
        assert float(z) == -float(source)


def test_organisers_layout_without_segid():
    b = read_all(ORGANISERS, "wmt-da-scores")  # SYS SID RAW.SCR Z.SCR N (and a trailing space)
    lines = ORGANISERS.read_text().splitlines()
    assert lines[0] == "SYS SID RAW.SCR Z.SCR N " and b.n_rows == len(lines) - 1
    assert b.extra["lp"][0] == "de-en" and "SID" not in b.extra
    assert b.extra["segment"][0] == b.group[0].split(":", 1)[1]
    assert len(set(b.group.tolist())) == b.n_groups
    first = lines[1].split()  # the first row of the first segment
    assert (b.item[0], b.extra["segment"][0], b.gold[0]) == (first[0], first[1], -float(first[2]))
    assert float(b.extra["z"][0]) == -float(first[3]) and b.extra["judgments"][0] == first[4]


def test_organisers_layout_round_trip(tmp_path):
    round_trip(tmp_path, ORGANISERS, "--from", "wmt-da-scores")


def test_round_trip(tmp_path):
    round_trip(tmp_path, EXCERPT, "--from", "wmt-da-scores")


def test_language_pair_from_the_option(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("SYS SID RAW.SCR Z.SCR N\nA 1 50 0.1 2\n")
    assert cli("convert", "--from", "wmt-da-scores", path).exit_code == 1
    out = ok(cli("convert", "--from", "wmt-da-scores", "--lp", "cs-en", path)).stdout
    assert out.splitlines()[1].startswith("cs-en:1\tA\t-50\t")


@pytest.mark.parametrize("text, line, contains", [
    ("SYS SID RAW.SCR Z.SCR N\nA 1 50 0.1\n", 2, "expected 5"),
    ("SYS SID RAW.SCR Z.SCR\n", 1, "expected the space-separated"),
    ("SYS SID RAW.SCR Z.SCR N\nA 1 fifty 0.1 2\n", 2, "RAW.SCR"),
    ("SYS SID RAW.SCR Z.SCR N\nA 1 50 0.1 0\n", 2, "positive whole number"),
    ("SYS SID RAW.SCR Z.SCR N\nA 1 50 0.1 1\nA 1 60 0.2 1\n", 3, "twice"),
    ("SYS SID SCORE Z N\nA 1 50 0.1 1\n", 1, "unknown DA header"),
])
def test_errors_name_file_and_line(tmp_path, text, line, contains):
    fails_at(tmp_path, text, line, "--lp", "lv-en", fmt="wmt-da-scores", contains=contains)
