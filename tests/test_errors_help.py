"""Errors that help: the wrong separator, a file that needs `convert --from NAME`, option names
in messages; one progress display per pipeline; imports point one way.
"""

from __future__ import annotations

import ast
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from robust import check_exit, invoke
from rankeval_cli.formats import READERS
from rankeval_cli.formats.detect import foreign_format, header_problem

DATA = Path(__file__).resolve().parent / "data"
PACKAGE = Path(__file__).resolve().parent.parent / "rankeval_cli"

# --- the wrong separator -----------------------------------------------------------------------------

@pytest.mark.parametrize("text, words", [
    ("group,item,gold,pred\ng,a,1,2\n", "commas"),
    ("group item gold pred\ng a 1 2\n", "spaces"),
    ('"group","item","gold"\n"g","a","1"\n', "commas"),
    ("group;item;gold;pred\ng;a;1;2\n", "semicolons"),
])
def test_a_header_not_separated_by_tabs_says_so(text, words):
    message = check_exit(invoke(["tau"], text), line=1)
    assert message.startswith("not tab-separated") and words in message


def test_a_row_not_separated_by_tabs_says_so():
    message = check_exit(invoke(["normalize"], "group\titem\tgold\tpred\ng\ta\t1\t2\ng,b,2,1\n"), line=3)
    assert message == "expected 4 tab-separated fields, found 1; not tab-separated: the fields seem separated by commas"


def test_a_short_row_keeps_its_plain_message():
    assert check_exit(invoke(["tau"], "group\titem\tgold\tpred\ng\ta\t1\n"), line=2) == \
        "expected 4 tab-separated fields, found 3"


# --- a file that needs converting ---------------------------------------------------------------------

SAMPLES = {
    "wmt08-excerpt.csv": "wmt-rr", "wmt12-excerpt.csv": "wmt-rr", "wmt13-excerpt.csv": "wmt-rr",
    "wmt16-excerpt.ron-eng.csv": "wmt-rr", "wmt20-chrF-excerpt.seg.score": "wmt-scores",
    "wmt20-chrF-excerpt.sys.score": "wmt-scores", "wmt20-darr-excerpt.csv": "darr",
    "wmt20-da-excerpt-en-de.csv": "wmt-da",
    "wmt20-mqm-excerpt/mqm_newstest2020_ende.tsv": "mqm",
    "appraise/synthetic-segment-da.en-de.csv": "appraise", "appraise/synthetic-document-esa.en-zh.csv": "appraise",
    "synthetic-ad-seg-scores-de-en.csv": "wmt-da-scores",
}


def test_jcml_is_read_where_a_stream_is_expected():
    """Every command that reads a ranking stream reads JCML as 'convert --from jcml' does."""
    import gzip

    path = str(DATA / "jcml_wmt08.jcml")
    converted = invoke(["convert", "--from", "jcml", path]).stdout
    for args in (["ndcg", path], ["ndcg", "--input-format", "jcml", path]):
        assert invoke(args).stdout == invoke(["ndcg"], converted).stdout
    assert invoke(["ndcg"], gzip.compress((DATA / "jcml_wmt08.jcml").read_bytes())).stdout == \
        invoke(["ndcg"], converted).stdout


@pytest.mark.parametrize("name, reader", sorted(SAMPLES.items()))
def test_a_known_file_where_a_canonical_stream_is_expected_suggests_convert(name, reader):
    path = str(DATA / name)
    message = check_exit(invoke(["tau", path]), source=path, line=1)
    assert message.endswith(f"convert it first: rankeval convert --from {reader} {path}"), message
    options = ["--lp", "en-de"] if reader == "wmt-da" else []
    assert invoke(["convert", "--from", reader, *options, path]).exit_code == 0  # the advice works


@pytest.mark.parametrize("name, reader", sorted(SAMPLES.items()))
def test_the_suggestion_also_comes_for_stdin_and_compressed_input(name, reader):
    import gzip

    message = check_exit(invoke(["ndcg"], gzip.compress((DATA / name).read_bytes())), line=1)
    assert message.endswith(f"convert it first: rankeval convert --from {reader}"), message


@pytest.mark.parametrize("line, kind", [
    ("301 Q0 FR940104-0-00001 1 12.5 myrun", "trec-run"),
    ("301\tQ0\tFR940104-0-00001\t1\t12.5\tmyrun", "trec-run"),
    ("301 0 FR940104-0-00001 1", "trec-qrels"),
    ("2 qid:13 1:2 2:0 3:2 # docid = GX000", "letor"),
    ("0 qid:1 1:0.5", "letor"),
    ("SYS SEGID RAW.SCR Z.SCR N SID", "wmt-da"),
    ("SYS SID RAW.SCR Z.SCR N", "wmt-da-scores"),
    ("engliv0d03,generaltest2022.en-liv.hyp.NiuTrans.liv.txt,239,TGT,eng,liv,0,1665744151.351,1665744158.765",
     "appraise"),
    ("LP DATA SID BETTER WORSE", "darr"),
    ("chrF\tcs-en\tnewstest2020\tnewstest2020\tCUNI.1457\t0.58", "wmt-scores"),
    ("group\titem\tscore", None),
    ("system mqm_avg_score seg_id", "mqm"),
    ("system\tscore\tseg_id", None),
])
def test_foreign_first_lines(line, kind):
    assert foreign_format(line) == kind


def test_ir_files_suggest_qrels_and_convert():
    line = "301 Q0 FR940104-0-00001 1 12.5 myrun"
    message = header_problem(line, "run.txt", readers=READERS)
    assert "TREC run file" in message and message.endswith(
        "(rankeval report --qrels QRELS run.txt) or convert them first: rankeval convert --from trec --qrels QRELS run.txt")
    qrels = header_problem("301 0 FR940104-0-00001 1", "q.txt", readers=READERS)
    assert qrels.endswith("give it with --qrels q.txt and the runs as FILES (rankeval report --qrels q.txt RUN)")
    letor = header_problem("2 qid:13 1:2", "x.txt", readers=READERS)
    assert ("--from letor" in letor) == ("letor" in READERS)


def test_the_suggested_command_quotes_an_odd_file_name(tmp_path):
    path = tmp_path / "my file.csv"
    path.write_bytes((DATA / "wmt12-excerpt.csv").read_bytes())
    message = check_exit(invoke(["tau", str(path)]), source=str(path), line=1)
    assert message.endswith(f"rankeval convert --from wmt-rr '{path}'")


# --- messages name command-line options, not Python keywords --------------------------------------------

def test_wmt_da_without_a_language_pair_names_the_option(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_bytes((DATA / "wmt20-da-excerpt-en-de.csv").read_bytes())
    message = check_exit(invoke(["convert", "--from", "wmt-da", str(path)]), source=str(path))
    assert "--lp" in message and "lp=" not in message


def test_darr_min_diff_names_the_option():
    text = "cs-en newstest2020 1 A B\n"
    assert check_exit(invoke(["convert", "--from", "darr", "--min-diff", "25"], text), line=1).startswith(
        "--min-diff needs")


def test_jcml_system_attribute_names_the_options():
    message = check_exit(invoke(["convert", "--from", "jcml", "--gold-attr", "system", str(DATA / "jcml_wmt08.jcml")]),
                         source=str(DATA / "jcml_wmt08.jcml"))
    assert "--gold-attr" in message


def test_no_message_spells_an_option_as_a_python_keyword():
    """A string in a raise or a note that reads like ``lp='xx-yy'`` or ``min_diff needs``."""
    import re

    keyword = re.compile(r"\b(?:pass|give|set|use)\s+[a-z]+(?:_[a-z]+)*\s*=|\b[a-z]+_[a-z_]+ needs\b|\w+='")
    found = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in (
                    "DataError", "UsageError", "BadParameter", "warn", "report"):
                for part in ast.walk(node):
                    if isinstance(part, ast.Constant) and isinstance(part.value, str) and keyword.search(part.value):
                        found.append(f"{path.relative_to(PACKAGE)}:{part.lineno}: {part.value}")
    assert found == []


# --- imports point one way --------------------------------------------------------------------------------

def test_nothing_outside_the_commands_imports_them():
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(PACKAGE)
        if relative.parts[0] == "commands" or relative.name == "cli.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and "commands" in node.module.split("."):
                offenders.append(f"{relative}:{node.lineno}")
    assert offenders == []


# --- one progress display per pipeline --------------------------------------------------------------------

class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def _one_batch():
    import numpy as np

    from rankeval_cli.batch import Batch

    yield Batch(np.array(["g"], dtype=object), np.array([0, 1]), np.array(["i"], dtype=object), np.ones(1), np.ones(1))


def test_a_command_fed_by_a_pipe_shows_no_progress_unless_asked(monkeypatch):
    from rankeval_cli.pipeline import progress

    fake = FakeTerminal()
    monkeypatch.setattr("sys.stderr", fake)
    monkeypatch.delenv("RANKEVAL_PROGRESS", raising=False)
    assert len(list(progress(_one_batch(), fed_by_pipe=True))) == 1 and fake.getvalue() == ""
    monkeypatch.setenv("RANKEVAL_PROGRESS", "1")
    list(progress(_one_batch(), fed_by_pipe=True, command="tau"))
    assert "rankeval tau: groups" in fake.getvalue()


def test_pipes_fifos_and_files_are_told_apart(tmp_path):
    from rankeval_cli.inputs import is_pipe

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (tmp_path / "file").write_text("x")
    assert is_pipe(str(fifo)) and not is_pipe(str(tmp_path / "file")) and not is_pipe(str(tmp_path / "none"))
    read_end, write_end = os.pipe()
    try:
        out = subprocess.run([sys.executable, "-c", "from rankeval_cli.inputs import is_pipe; print(is_pipe('-'))"],
                             stdin=read_end, capture_output=True, text=True, timeout=60)
    finally:
        os.close(read_end)
        os.close(write_end)
    assert out.stdout.strip() == "True"


def _stderr_on_a_terminal(script: str, env: dict) -> str:
    """Run ``bash -c script`` with stderr on a pseudo-terminal; what the terminal received."""
    pty = pytest.importorskip("pty")
    master, slave = pty.openpty()
    process = subprocess.Popen(["bash", "-c", script], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=slave, env=env)
    os.close(slave)
    received = b""
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO: every writer has closed the terminal
            break
        if not data:
            break
        received += data
    process.wait(120)
    os.close(master)
    return received.decode("utf-8", "replace")


def test_a_pipeline_on_a_terminal_shows_one_progress_display():
    rankeval = f"{sys.executable} -m rankeval_cli"
    env = {k: v for k, v in os.environ.items() if k != "RANKEVAL_PROGRESS"}
    sample = DATA / "wmt12-excerpt.csv"
    shown = _stderr_on_a_terminal(f"{rankeval} convert --from wmt-rr {sample} | {rankeval} normalize "
                                  f"| {rankeval} tau", env)
    assert "rankeval convert: groups" in shown
    assert "rankeval normalize" not in shown and "rankeval tau" not in shown
    alone = _stderr_on_a_terminal(f"{rankeval} tau <({rankeval} convert --from wmt-rr {sample})", env)
    assert "rankeval convert: groups" in alone and "rankeval tau" not in alone  # a FIFO argument is a pipe too
