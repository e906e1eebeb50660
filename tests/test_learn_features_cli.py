"""``rankeval learn features``: the BLEU columns appended to the stream, missing references, refusals."""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from rankeval_cli.cli import main
from rankeval_cli.learn import features

HEADER = "group\titem\tgold\tpred\thyp\tref\n"
ROWS = [
    ("s1", "a", 1, "The cat sat on the mat.", "The cat sat on the mat."),
    ("s1", "b", 2, "A cat sat on a mat.", "The cat sat on the mat."),
    ("s1", "c", 3, "", "The cat sat on the mat."),
    ("s2", "a", 2, "Dogs bark at night.", "At night the dogs bark."),
    ("s2", "b", 1, "The dogs bark at night.", "At night the dogs bark."),
]


def stream(rows=ROWS):
    return HEADER + "".join(f"{g}\t{i}\t{gold}\t\t{h}\t{r}\n" for g, i, gold, h, r in rows)


def run(args, text):
    return CliRunner().invoke(main, ["learn", "features", "--hyp-column", "hyp", "--ref-column", "ref", *args],
                              input=text)


def read_tsv(text):
    return list(csv.DictReader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE))


def test_appends_the_bleu_columns_and_keeps_the_rest():
    result = run([], stream())
    assert result.exit_code == 0, result.output
    rows = read_tsv(result.output)
    assert list(rows[0]) == ["group", "item", "gold", "pred", "hyp", "ref", *features.BLEU_COLUMNS]
    expected = features.bleu_features([r[3] for r in ROWS], [r[4] for r in ROWS])
    for name in features.BLEU_COLUMNS:
        np.testing.assert_array_equal([float(r[name]) for r in rows], expected[name], err_msg=name)
    assert float(rows[0]["bleu"]) == pytest.approx(100, rel=1e-15)  # sacreBLEU's own 100.00000000000004
    assert rows[2]["bleu"] == "0" and rows[2]["bleu_hyp_len"] == "0"
    assert [r["hyp"] for r in rows] == [r[3] for r in ROWS]


def test_jsonl_output_and_options_reach_sacrebleu():
    result = run(["--output-format", "jsonl", "--smooth", "exp", "--lowercase", "--tokenize", "intl"], stream())
    assert result.exit_code == 0, result.output
    first = json.loads(result.output.splitlines()[0])
    expected = features.bleu_features([r[3] for r in ROWS[:3]], [r[4] for r in ROWS[:3]], tokenize="intl",
                                      lowercase=True, smooth="exp")
    assert [float(v) for v in first["bleu"]] == pytest.approx(expected["bleu"].tolist(), rel=1e-15)


def test_missing_reference_is_an_error_at_its_line():
    rows = ROWS[:3] + [("s2", "a", 2, "Dogs bark.", "  "), ROWS[4]]
    result = run([], stream(rows))
    assert result.exit_code == 1
    assert "rankeval: <stdin>:5: item 'a' of group 's2' has no reference text in column 'ref'" in result.output
    assert "Traceback" not in result.output


def test_missing_reference_dropped_and_counted():
    rows = ROWS[:3] + [("s2", "a", 2, "Dogs bark.", ""), ("s2", "b", 1, "Dogs.", "Dogs bark."), ("s3", "a", 1, "x", "")]
    result = CliRunner().invoke(main, ["learn", "features", "--hyp-column", "hyp", "--ref-column", "ref",
                                       "--missing-ref", "drop"], input=stream(rows))
    assert result.exit_code == 0
    assert "dropped 2 items without a reference text (1 groups left empty)" in result.output
    out = [line for line in result.output.splitlines() if not line.startswith("rankeval:")]
    assert [line.split("\t")[:2] for line in out[1:]] == [["s1", "a"], ["s1", "b"], ["s1", "c"], ["s2", "b"]]


def test_refusals():
    result = CliRunner().invoke(main, ["learn", "features"], input=stream())
    assert result.exit_code == 1 and "<stdin>:1: no column 'tgt.text'" in result.output
    text = stream().replace("\tref\n", "\tbleu\n", 1)
    result = run(["--ref-column", "bleu"], text)
    assert result.exit_code == 1 and "already has a column 'bleu'" in result.output
    assert run(["--smooth", "nist"], stream()).exit_code == 2


def test_header_only_input_gets_the_header():
    result = run([], HEADER)
    assert result.exit_code == 0
    assert result.output.rstrip("\n").split("\t") == ["group", "item", "gold", "pred", "hyp", "ref",
                                                      *features.BLEU_COLUMNS]


def test_jcml_with_text_from_the_shared_data(shared, tmp_path):
    jcml = shared / "jcml" / "wmt10-test.jcml"
    canonical = CliRunner().invoke(main, ["convert", "--from", "jcml", "--keep-text", str(jcml)])
    assert canonical.exit_code == 0
    source = tmp_path / "wmt10.tsv"
    source.write_text(canonical.output, encoding="utf-8")
    # WMT10 JCML carries an empty <ref>: every item lacks a reference, and the first is named.
    result = CliRunner().invoke(main, ["learn", "features", str(source)])
    assert result.exit_code == 1
    assert f"rankeval: {source}:2: item 'limsi' of group '51' has no reference text" in result.output
    # With the reference taken from another column, every row gets its statistics.
    result = CliRunner().invoke(main, ["learn", "features", "--ref-column", "tgt.text", str(source)])
    assert result.exit_code == 0
    rows = read_tsv(result.output)
    assert len(rows) == 920
    assert all(float(r["bleu"]) == pytest.approx(100, rel=1e-15) and r["bleu_p4"] == "1" for r in rows)


ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "wmt10-de-en.ref.jcml"


def test_bundled_example_has_a_reference_for_every_ranking():
    canonical = CliRunner().invoke(main, ["convert", "--from", "jcml", "--keep-text", str(EXAMPLE)])
    assert canonical.exit_code == 0
    result = CliRunner().invoke(main, ["learn", "features"], input=canonical.output)
    assert result.exit_code == 0, result.output
    rows = read_tsv(result.output)
    assert len({r["group"] for r in rows}) == 65
    refs = [r for r in rows if r["item"] == "_ref"]  # the reference against itself
    assert refs and all(float(r["bleu"]) == pytest.approx(100, rel=1e-15) for r in refs)
    others = [float(r["bleu"]) for r in rows if r["item"] != "_ref"]
    assert 0 < np.median(others) < 50


def test_bundled_example_is_what_the_makefile_derives(shared, tmp_path):
    rankeval = shutil.which("rankeval") or str(Path(sys.executable).with_name("rankeval"))
    subprocess.run(["make", "-s", "-C", str(ROOT / "scripts" / "learn-wmt10"), f"BUILD={tmp_path}",
                    f"DATA={shared / 'jcml'}", f"RANKEVAL={rankeval}", f"{tmp_path}/wmt10.ref.jcml"],
                   check=True, capture_output=True)
    assert (tmp_path / "wmt10.ref.jcml").read_bytes() == EXAMPLE.read_bytes()


INTRA = "group\titem\tgold\tpred\tx\ty\tname\ns1\ta\t1\t\t0.5\t3\tA\ns1\tb\t2\t\t0.5\t1\tB\ns1\tc\t3\t\t0.2\t2\tC\ns2\ta\t1\t\t7\t0\tA\n"


def test_intra_set_columns_appended():
    result = CliRunner().invoke(main, ["learn", "features", "--no-bleu", "--intra-set", "x,y"], input=INTRA)
    assert result.exit_code == 0, result.output
    rows = read_tsv(result.output)
    assert list(rows[0])[7:] == ["x.rank", "x.best", "x.dmean", "y.rank", "y.best", "y.dmean"]
    assert [r["x.rank"] for r in rows] == ["1.5", "1.5", "3", "1"]
    assert [r["x.best"] for r in rows] == ["1", "1", "0", "1"]
    assert [r["y.rank"] for r in rows] == ["1", "3", "2", "1"]
    expected = features.intra_set({"x": np.array([0.5, 0.5, 0.2, 7]), "y": np.array([3.0, 1, 2, 0])},
                                  np.array([0, 3, 4]))
    for name, values in expected.items():
        np.testing.assert_array_equal([float(r[name]) for r in rows], values, err_msg=name)


def test_intra_set_kinds_patterns_and_refusals():
    result = CliRunner().invoke(main, ["learn", "features", "--no-bleu", "--intra-set", "*", "--intra-kind", "worst"],
                                input=INTRA)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0].endswith("\tname\tx.worst\ty.worst")  # 'name' holds text: left out
    assert "features left out: name" in result.stderr
    result = CliRunner().invoke(main, ["learn", "features", "--no-bleu", "--intra-set", "name"], input=INTRA)
    assert result.exit_code == 1 and "'name'" in result.output and "not a number" in result.output
    result = CliRunner().invoke(main, ["learn", "features", "--no-bleu"], input=INTRA)
    assert result.exit_code == 2 and "--intra-set" in result.output
    assert CliRunner().invoke(main, ["learn", "features", "--no-bleu", "--intra-set", "x", "--intra-kind", "max"],
                              input=INTRA).exit_code == 2


def test_intra_set_of_the_bleu_columns():
    result = run(["--intra-set", "bleu", "--intra-kind", "best"], stream())
    assert result.exit_code == 0, result.output
    rows = read_tsv(result.output)
    assert list(rows[0])[-1] == "bleu.best"
    assert [r["bleu.best"] for r in rows] == ["1", "0", "0", "0", "1"]


def test_intra_set_and_bleu_columns_survive_jcml():
    canonical = CliRunner().invoke(main, ["convert", "--from", "jcml", "--keep-text", str(EXAMPLE)]).stdout
    first = CliRunner().invoke(main, ["learn", "features", "--exclude-systems", "_ref", "--intra-set", "bleu",
                                      "--output-format", "jcml"], input=canonical)
    assert first.exit_code == 0, first.stderr
    back = CliRunner().invoke(main, ["convert", "--from", "jcml", "--pred-attr", "bleu.rank"], input=first.stdout)
    assert back.exit_code == 0, back.stderr
    rows = read_tsv(back.stdout)
    tsv = read_tsv(CliRunner().invoke(main, ["learn", "features", "--exclude-systems", "_ref", "--intra-set", "bleu"],
                                      input=canonical).stdout)
    assert [r["pred"] for r in rows] == [r["bleu.rank"] for r in tsv]
    assert [r["tgt@bleu_m4"] for r in rows] == [r["bleu_m4"] for r in tsv]
