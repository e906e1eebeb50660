"""``rankeval convert``: every reader (--from) to every stream writer (--output-format), each pair
read back to the same canonical columns; a malformed line of each reader named by file and line
with exit 1; the options that go with one reader refused with exit 2 elsewhere.

The readers' own layouts are tested in their files (test_wmt_rr, test_darr, test_jcml, test_trec,
...); this file is the command: its options and the readers and writers it joins."""

from __future__ import annotations

from pathlib import Path

import pytest

from rankeval_cli.vocabulary import READERS, STREAM_FORMATS

from helpers.cli import cli, ok
from helpers.conversion import fails_at

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
QRELS = ROOT / "examples" / "trec" / "qrels.txt"
TSV = "group\titem\tgold\tpred\tlp\ng\ta\t1\t-0.5\tde-en\ng\tb\t2\t\tde-en\nh\ta\t\t3\tcs-en\n"
JSONL = '{"group": "g", "items": ["a", "b"], "gold": [1, 2], "pred": [-0.5, null]}\n'

#: reader -> (its options, a bundled file in its format)
SOURCES = {
    "auto": ([], DATA / "jcml_wmt10.jcml"),
    "tsv": ([], None),
    "jsonl": ([], None),
    "jcml": (["--pred-attr", "rank"], DATA / "jcml_wmt10.jcml"),
    "wmt-rr": ([], DATA / "wmt13-excerpt.csv"),
    "wmt-scores": ([], DATA / "wmt20-chrF-excerpt.seg.score"),
    "darr": ([], DATA / "wmt20-darr-excerpt.csv"),
    "wmt-da": ([], DATA / "wmt20-da-excerpt-en-de.csv"),
    "wmt-da-scores": ([], DATA / "wmt20-da-excerpt-en-de.csv"),
    "appraise": ([], DATA / "appraise" / "synthetic-segment-da.en-de.csv"),
    "mqm": ([], DATA / "wmt20-mqm-excerpt" / "mqm_newstest2020_ende.tsv"),
    "letor": ([], None),
    "trec": (["--qrels", QRELS], ROOT / "examples" / "trec" / "bm25.run"),
}
INLINE = {"tsv": TSV, "jsonl": JSONL, "letor": "2 qid:1 1:0.5 2:1 # docid = d1\n0 qid:1 1:0.25 2:0 # docid = d2\n"}


def source(reader: str, tmp_path: Path) -> Path:
    path = SOURCES[reader][1]
    if path is None:
        path = tmp_path / f"input.{reader}"
        path.write_text(INLINE[reader])
    return path


def canonical(tsv: str) -> list[list[str]]:
    """The four canonical columns of a TSV stream (JCML carries the others under its own names)."""
    return [line.split("\t")[:4] for line in tsv.splitlines()]


def test_every_reader_is_covered():
    assert set(SOURCES) == set(READERS)


@pytest.mark.parametrize("writer", STREAM_FORMATS)
@pytest.mark.parametrize("reader", READERS)
def test_every_reader_to_every_writer_reads_back(tmp_path, reader, writer):
    options, path = SOURCES[reader][0], source(reader, tmp_path)
    direct = ok(cli("-q", "convert", "--from", reader, *options, path)).stdout
    written = tmp_path / f"out.{writer}"
    ok(cli("-q", "convert", "--from", reader, *options, path, "--output-format", writer, "-o", written))
    assert written.stat().st_size > 0
    if writer == "jcml":  # gold in rank, pred in predicted_rank, the rest as attributes
        has_pred = any(row[3] for row in canonical(direct)[1:])
        pred = ["--pred-attr", "predicted_rank"] if has_pred else []
        back = ok(cli("-q", "convert", "--from", "jcml", *pred, written)).stdout
        assert canonical(back) == canonical(direct)
    else:  # auto: the written format is told by its content
        assert ok(cli("-q", "convert", written)).stdout == direct


@pytest.mark.parametrize("reader, text, line, options", [
    ("tsv", "group\titem\tgold\tpred\ng\ta\t1\t1\ng\tb\tx\t2\n", 3, []),
    ("jsonl", '{"group": "g", "items": ["a"], "gold": [1]}\n{"group": "h", "items": ["a"], "gold": [1, 2]}\n', 2, []),
    ("jcml", '<?xml version="1.0"?>\n<jcml>\n<judgedsentence id="1">\n<tgt system="a" rank="x"/>\n'
             "</judgedsentence>\n</jcml>\n", 4, []),
    ("wmt-rr", None, 3, []),
    ("wmt-scores", "m\ten-de\tt\ts1\t1\nm\ten-de\tt\ts2\tabc\n", 2, []),
    ("darr", "LP DATA SID BETTER WORSE\nen-de t s1 A B\nen-de t s2 B\n", 3, []),
    ("wmt-da", "SYS SEGID RAW.SCR Z.SCR N SID\nA d::1 50 0 1 1\nB d::1 xx 0 1 1\n", 3, ["--lp", "en-de"]),
    ("wmt-da-scores", "SYS SEGID RAW.SCR Z.SCR N SID\nA d::1 50 0 1 1\nB d::1 xx 0 1 1\n", 3, ["--lp", "en-de"]),
    ("appraise", None, 3, []),
    ("mqm", "system mqm_avg_score seg_id\nA -1 1\nB zz 1\n", 3, ["--lp", "en-de"]),
    ("letor", "1 qid:1 1:1\n0 qid:1 1:x\n", 2, []),
    ("trec", "401 Q0 d1 1 2.5 run\n401 Q0 d2 2 zz run\n", 2, ["--qrels", QRELS]),
])
def test_a_malformed_line_is_named_by_file_and_line(tmp_path, reader, text, line, options):
    if text is None:  # a real file's header and first row, then a row cut short
        lines = SOURCES[reader][1].read_text().splitlines()
        text = "\n".join([*lines[:2], ",".join(lines[2].split(",")[:3])]) + "\n"
    message = fails_at(tmp_path, text, line, *options, fmt=reader, name=f"bad.{reader}")
    assert message.count("\n") == 1


def test_every_reader_has_a_malformed_case():
    cases = test_a_malformed_line_is_named_by_file_and_line.pytestmark[0].args[1]
    assert {case[0] for case in cases} == set(READERS) - {"auto"}


@pytest.mark.parametrize("options, message", [
    (["--from", "nonesuch"], "'nonesuch' is not one of"),
    (["--from", "tsv", "--qrels", QRELS], "--qrels goes with --from trec"),
    (["--refset", "A"], "--refset goes with --scores"),
    (["--metric", "chrF"], "--metric goes with --scores"),
    (["--strict"], "--strict goes with --scores"),
    (["--from", "darr", "--higher-better"], "--higher-better/--lower-better goes with"),
    (["--from", "tsv", "--lp", "en-de"], "--lp does not apply to --from tsv"),
    (["--from", "letor", "--pred-attr", "x"], "--pred-attr does not apply to --from letor"),
    (["--from", "darr", "--max-feature-index", "3"], "--max-feature-index does not apply to --from darr"),
])
def test_an_option_of_another_reader_is_a_usage_error(tmp_path, options, message):
    path = tmp_path / "in.tsv"
    path.write_text(TSV)
    result = cli("convert", *options, path)
    assert result.exit_code == 2, result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr


def test_stdin_and_a_file_convert_alike(tmp_path):
    path = tmp_path / "in.tsv"
    path.write_text(TSV)
    from helpers.cli import cli_input

    assert ok(cli_input(["convert", "--output-format", "jsonl"], TSV)).stdout == \
        ok(cli("convert", "--output-format", "jsonl", path)).stdout


def test_convert_marks_unjudged_and_unretrieved(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n1 0 c 2\n1 0 d -1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2.5 tag\n1 Q0 x 2 1.0 tag\n1 Q0 d 3 0.5 tag\n")
    out = cli("convert", "--from", "trec", "--qrels", str(tmp_path / "q"), str(tmp_path / "r")).stdout
    assert out.splitlines() == ["group\titem\tgold\tpred\trun", "1\ta\t1\t-2.5\ttag", "1\tx\t\t-1\ttag",
                                "1\td\t-1\t-0.5\ttag", "1\tc\t2\t\ttag", "1\tb\t0\t\ttag"]
