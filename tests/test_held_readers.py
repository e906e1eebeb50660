"""trec_eval's smaller readers held (preferences, qrels_prefs, qrels_jg, z-scores): numbers read as
C reads a whole field or refused at their line, 64-bit grades, a z-score file without a z-score
line refused as trec_eval refuses it, carriage returns that end no line refused in every TREC
reader (never lines merged), and a hypothesis fuzz: any bytes are read or refused in one line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from robust import check_exit, fuzz_settings, invoke

TREC = Path(__file__).resolve().parents[1] / "examples" / "trec"
QRELS, RUN = str(TREC / "qrels.txt"), str(TREC / "bm25.run")
SMALL_RUN = "401 Q0 d1 1 2.0 r\n401 Q0 d2 2 1.0 r\n401 Q0 d3 3 0.5 r\n"


def _file(tmp_path, name, text) -> str:
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return str(path)


@pytest.mark.parametrize("text, line", [("# only a comment\n# and another\n", None), ("\n\n\n", None), ("", None),
                                        ("401 map 1_0 0.5\n", 1), ("401 map 0.2 0x10\n", 1),
                                        ("401 map 0.2 0.1\n401 map 1.0abc 0.5\n", 2)])
def test_zscores_without_a_line_or_with_a_bad_number_are_refused(tmp_path, text, line):
    z = _file(tmp_path, "z", text)
    result = invoke(["trec_eval", "-Z", z, "-m", "map", QRELS, RUN])
    message = check_exit(result, z, line)
    assert result.exit_code == 1 and message


def test_zscores_written_with_decimals_are_their_value(tmp_path):
    a = invoke(["trec_eval", "-q", "-Z", _file(tmp_path, "a", "401 map 1 2\n"), "-m", "map", QRELS, RUN]).stdout
    b = invoke(["trec_eval", "-q", "-Z", _file(tmp_path, "b", "401 map 1.0 2.000\n"), "-m", "map", QRELS, RUN])
    c = invoke(["trec_eval", "-q", "-Z", _file(tmp_path, "c", "401 map 1e0 +.2e1\n"), "-m", "map", QRELS, RUN])
    assert a == b.stdout == c.stdout


@pytest.mark.parametrize("fmt, layout", [("prefs", "q1 j1 s1 {doc} {level}\n"), ("qrels_prefs", "q1 j1 {doc} {level}\n")])
def test_preference_levels_written_with_decimals_are_their_value(tmp_path, fmt, layout):
    run = _file(tmp_path, "run", SMALL_RUN.replace("401", "q1"))
    outputs = []
    for levels in (("2", "1", "0"), ("2.0", "1.0", "0.0"), ("2e0", "1.", ".0")):
        prefs = _file(tmp_path, "p", "".join(layout.format(doc=f"d{i + 1}", level=v) for i, v in enumerate(levels)))
        result = invoke(["trec_eval", "-R", fmt, "-m", "prefs_simp", "-m", "prefs_num_prefs_poss", prefs, run])
        assert result.exit_code == 0
        outputs.append(result.stdout)
    assert outputs[0] == outputs[1] == outputs[2] and "prefs_num_prefs_poss  \tall\t3" in outputs[0]
    for bad in ("1_0", "0x1", "nan", "inf"):
        prefs = _file(tmp_path, "p", layout.format(doc="d1", level=bad))
        check_exit(invoke(["trec_eval", "-R", fmt, "-m", "prefs_simp", prefs, run]), prefs, 1)


@pytest.mark.parametrize("grade", ["9223372036854775808", "-9223372036854775809", "99999999999999999999999", "1.0",
                                   "1_0"])
def test_qrels_jg_grades_beyond_64_bits_are_refused_at_their_line(tmp_path, grade):
    jg = _file(tmp_path, "jg", f"401 j1 d1 1\n401 j1 d2 {grade}\n")
    result = invoke(["trec_eval", "-R", "qrels_jg", "-m", "P_avgjg.2", jg, _file(tmp_path, "run", SMALL_RUN)])
    assert "64-bit integer" in check_exit(result, jg, 2)


def test_qrels_jg_extreme_grades_within_64_bits_are_read(tmp_path):
    jg = _file(tmp_path, "jg", "401 j1 d1 9223372036854775807\n401 j1 d2 -9223372036854775808\n401 j2 d1 1\n")
    result = invoke(["trec_eval", "-q", "-R", "qrels_jg", "-m", "P_avgjg.2", jg, _file(tmp_path, "run", SMALL_RUN)])
    assert result.exit_code == 0 and "P_avgjg_2             \t401\t0.5000\n" in result.stdout


@pytest.mark.parametrize("which", ["run", "qrels", "qrels_jg", "prefs", "zscores"])
def test_carriage_returns_that_end_no_line_are_refused(tmp_path, which):
    texts = {"run": SMALL_RUN, "qrels": "401 0 d1 1\n401 0 d2 0\n", "qrels_jg": "401 j1 d1 1\n401 j1 d2 0\n",
             "prefs": "401 j1 s1 d1 1\n401 j1 s1 d2 0\n", "zscores": "401 map 0.1 0.2\n401 P_5 0.1 0.2\n"}
    cr = _file(tmp_path, which, texts[which].replace("\n", "\r"))
    run, qrels = _file(tmp_path, "r", SMALL_RUN), _file(tmp_path, "q", texts["qrels"])
    args = {"run": [qrels, cr], "qrels": [cr, run], "qrels_jg": ["-R", "qrels_jg", "-m", "P_avgjg.2", cr, run],
            "prefs": ["-R", "prefs", "-m", "prefs_simp", cr, run], "zscores": ["-Z", cr, "-m", "map", qrels, run]}
    assert "carriage return" in check_exit(invoke(["trec_eval", *args[which]]), cr, 1)
    crlf = _file(tmp_path, which + ".crlf", texts[which].replace("\n", "\r\n"))
    args = {k: [crlf if a == cr else a for a in v] for k, v in args.items()}
    assert invoke(["trec_eval", *args[which]]).exit_code == 0


READERS = {"qrels_jg": ["-R", "qrels_jg", "-m", "P_avgjg.2"], "prefs": ["-R", "prefs", "-m", "prefs_simp"],
           "qrels_prefs": ["-R", "qrels_prefs", "-m", "prefs_simp"]}
TOKENS = st.sampled_from(["401", "j1", "s1", "d1", "d2", "1", "0", "-1", "2.5", "1e308", "nan", "-inf", "1_0", "#",
                          "0x1p3", "\u00e9", "9223372036854775808", "", "Q0"])
LINES = st.lists(st.lists(TOKENS, max_size=6).map(" ".join), max_size=8)
ENDS = st.sampled_from(["\n", "\r\n", "\r", " \n"])


@fuzz_settings(60)
@given(lines=LINES, end=ENDS, reader=st.sampled_from([*READERS, "zscores"]), raw=st.binary(max_size=12))
def test_fuzz_the_smaller_readers(tmp_path_factory, lines, end, reader, raw):
    folder = tmp_path_factory.mktemp("fuzz")
    data = end.join(lines).encode() + raw
    target = _file(folder, "input", data)
    run = _file(folder, "run", SMALL_RUN)
    if reader == "zscores":
        args = ["-q", "-Z", target, "-m", "map", _file(folder, "q", "401 0 d1 1\n"), run]
    else:
        args = ["-q", *READERS[reader], target, run]
    result = invoke(["trec_eval", *args])
    if result.exit_code == 1:
        check_exit(result, target)
    else:
        assert result.exit_code in (0, 2), result.stderr  # 2: trec_eval's own refusals (no query in common)
