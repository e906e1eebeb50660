"""TREC runs and qrels read as trec_eval 10.0 reads them, and read within bounded memory.

- Crafted files for every reading rule (tests/data/trec-leniency, written by
  scripts/trec-leniency-fixture with the trec_eval 10.0 binary, commit f4253652, and 9.0.8,
  commit d95ca64e): where trec_eval reads a file, rankeval prints the same values, line for
  line; where it refuses one, so does rankeval (one line naming file and line); the few
  places where rankeval differs on purpose are listed, each with its reason.
- Random damage to valid files (bytes, truncation, huge fields, encodings): exit 0 or 1,
  never a traceback, errors naming the file and the line.
- Resource cases, scaled to run in seconds in a process under an address-space limit: a
  long docno or qid, a long line, many fields on one line, many blank lines; the memory
  follows the data, not the widest field.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from robust import check_exit, fuzz_settings
from rankeval_cli.cli import main
from rankeval_cli.formats.trec.run import read_run

DATA = Path(__file__).resolve().parent / "data" / "trec-leniency"
TREC_EVAL_10 = json.loads((DATA / "trec_eval-10.0-f4253652.json").read_text(encoding="utf-8"))
TREC_EVAL_9 = json.loads((DATA / "trec_eval-9.0.8-d95ca64e.json").read_text(encoding="utf-8"))
#: the fixture's measures (-m runid ... -m ndcg), in trec_eval's order of printing, runid apart
MEASURES = "num_ret,num_rel,num_rel_ret,map,Rprec,bpref,recip_rank,P_5,ndcg"


def trec_eval_output(case: str, version: str = "trec_eval-10.0-f4253652") -> list[str]:
    return (DATA / f"{case}.{version}.txt").read_text(encoding="utf-8").splitlines()


def ours(case: str, *options, qrels: str | None = None):
    """``rankeval report --per-group --output-format trec`` on a case's files (the run from
    stdin when trec_eval read it from stdin)."""
    name = case.removesuffix(".c")
    stdin = TREC_EVAL_10[case]["stdin"]
    run = DATA / f"{name}.run"
    args = ["report", "--qrels", str(DATA / f"{qrels or name}.qrels"), "-m", MEASURES, "--per-group",
            "--output-format", "trec", *options, "-" if stdin else str(run)]
    return CliRunner().invoke(main, args, input=run.read_bytes() if stdin else b"")


def without_runid(lines: list[str]) -> list[str]:
    return [line for line in lines if not line.startswith("runid ")]


def runid_of(lines: list[str]) -> str:
    return next(line.split("\t")[2] for line in lines if line.startswith("runid "))


# ---- what trec_eval 10.0 reads, rankeval reads the same -------------------------------------

#: trec_eval 10.0 reads these (exit 0) and rankeval prints the same lines
SAME = ["plain", "run-fields-after-tag", "run-comments", "run-white-space", "run-blank-lines", "run-iter-tokens",
        "run-stdin", "run-stdin-scattered", "run-tag-changes", "qrels-comments", "qrels-iter-tokens",
        "qrels-white-space", "plain.c", "run-comments.c", "qrels-indented-hash.c"]


@pytest.mark.parametrize("case", SAME)
def test_read_as_trec_eval_reads(case):
    assert TREC_EVAL_10[case]["exit"] == 0
    expected = trec_eval_output(case)
    result = ours(case, *(["--all-queries"] if case.endswith(".c") else []))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == without_runid(expected)
    # trec_eval's runid is the tag of the run's last line
    assert read_run(str(DATA / f"{case.removesuffix('.c')}.run")).last_tag == runid_of(expected)


def test_the_cases_differ_from_one_another_where_they_should():
    """The crafted files hold what they claim: comments and extra fields change nothing,
    a comment line with six fields would have been a row, the tag changes the runid."""
    plain = trec_eval_output("plain")
    for case in ("run-fields-after-tag", "run-comments", "run-white-space", "run-blank-lines", "qrels-comments"):
        assert trec_eval_output(case) == plain, case
    assert runid_of(trec_eval_output("run-tag-changes")) == "lasttag" != runid_of(plain)
    assert b"\n   # indented comment with six tokens\n" in (DATA / "run-comments.run").read_bytes()
    assert any("\t#\t" in line for line in trec_eval_output("qrels-indented-hash.c"))  # an indented '#' is data


def test_trec_eval_9_refuses_comments_and_stdin():
    """What 10.0 added: comment lines and the run from stdin (9.0.8 refuses both)."""
    for case in ("run-comments", "qrels-comments", "run-stdin"):
        assert TREC_EVAL_9[case]["exit"] == 2 and TREC_EVAL_10[case]["exit"] == 0, case


# ---- where rankeval differs on purpose -------------------------------------------------------

#: trec_eval reads these; rankeval refuses them at the line: (message, line)
STRICTER = {
    # trec_eval keeps ids as opaque C strings; every output of rankeval is UTF-8 text
    "run-latin1-docno": ("the docno 'd\\xe94' is not UTF-8 (byte 0xe9)", 4),
    # trec_eval's atof reads 'abc' as 0 and atol '1.5' as 1: a guess
    "run-score-not-a-number": ("score 'abc' is not a finite number", 4),
    "qrels-grade-not-an-integer": ("relevance grade '1.5' is not an integer", 5),
}


@pytest.mark.parametrize("case", sorted(STRICTER))
def test_stricter_than_trec_eval(case):
    assert TREC_EVAL_10[case]["exit"] == 0
    message, line = STRICTER[case]
    result = ours(case)
    source = str(DATA / (f"{case}.qrels" if case.startswith("qrels") else f"{case}.run"))
    assert message in check_exit(result, source, line)


#: trec_eval refuses these (or reads a comment as a judgment); rankeval reads them as the plain case
LENIENT = {
    "qrels-blank-lines": "Malformed line 1",  # blank lines carry nothing; trec_eval skips them in runs only
    "qrels-consecutive-comments": "result qid '#' not found",  # 10.0 reads the second of two comment lines as data
}


@pytest.mark.parametrize("case", sorted(LENIENT))
def test_more_lenient_than_trec_eval(case):
    assert TREC_EVAL_10[case]["exit"] != 0 and LENIENT[case] in TREC_EVAL_10[case]["stderr"]
    result = ours(case)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == without_runid(trec_eval_output("plain"))


def test_empty_run_is_a_run_that_retrieved_nothing():
    """trec_eval refuses a run file of 0 bytes ("Cannot read results file"); rankeval reads it
    as no rankings: no query is averaged, and --all-queries gives each qrels query zeros."""
    assert "Cannot read results file" in TREC_EVAL_10["run-empty"]["stderr"]
    result = ours("run-empty", "--all-queries")
    assert result.exit_code == 0, result.stderr
    assert "map                   \tq1\t0.0000" in result.stdout.splitlines()


# ---- what both refuse --------------------------------------------------------------------------

#: (file, rankeval's message, its line or None for the whole file)
BOTH_REFUSE = {
    "qrels-empty": ("qrels", "no judgments: the qrels file is empty", None),
    "qrels-blank-only": ("qrels", "no judgments: the qrels file holds only blank or comment lines", None),
    "qrels-comment-only": ("qrels", "no judgments: the qrels file holds only blank or comment lines", None),
    "qrels-five-fields": ("qrels", "expected 4 fields (qid iter docno rel), found 5", 5),
    "qrels-duplicate": ("qrels", "docno d2 judged twice for query q1 (first at line 2)", 8),
    "qrels-latin1-qid": ("qrels", "the qid 'q\\xe93' is not UTF-8 (byte 0xe9); convert the file first (e.g. iconv "
                                  "-f latin1 -t utf-8)", 6),
    "run-five-fields": ("run", "expected 6 fields (qid Q0 docno rank score tag; more are ignored), found 5", 6),
    "run-duplicate-docno": ("run", "docno d2 retrieved twice for query q1 (first at line 2)", 4),
    "run-nul-in-docno": ("run", "a NUL byte in the docno 'd\\x004'", 4),
}


@pytest.mark.parametrize("case", sorted(BOTH_REFUSE))
def test_refused_as_trec_eval_refuses(case):
    """trec_eval stops with a message (exit 2 or 4), or crashes (a qrels file of one comment
    line, a NUL in a docno); rankeval stops with one line naming the file (and line), exit 1."""
    assert TREC_EVAL_10[case]["exit"] != 0
    kind, message, line = BOTH_REFUSE[case]
    result = ours(case)
    assert check_exit(result, str(DATA / f"{case}.{kind}"), line) == message


@pytest.mark.parametrize("command", [["ndcg", "--k", "10"], ["mrr"], ["err"], ["rankdcg"],
                                     ["compare", "--bootstrap", "20", "--permutations", "20"],
                                     ["convert", "--from", "trec"], ["report"]])
@pytest.mark.parametrize("case", ["qrels-empty", "qrels-blank-only", "qrels-comment-only"])
def test_every_ir_command_refuses_a_qrels_without_judgments(command, case):
    """trec_eval: "Cannot read qrels file" (empty) or "Malformed line 1"; never a traceback."""
    run = str(DATA / "plain.run")
    result = CliRunner().invoke(main, [*command, "--qrels", str(DATA / f"{case}.qrels"), run, run])
    assert check_exit(result, str(DATA / f"{case}.qrels")).startswith("no judgments: the qrels file")


@pytest.mark.parametrize("command", [["report", "--qrels", str(DATA / "plain.qrels")],
                                     ["convert", "--from", "trec", "--qrels", str(DATA / "plain.qrels")],
                                     ["aggregate", "--method", "rrf"]])
def test_latin1_docno_is_one_error_in_every_command(command):
    """The same decision everywhere (report, convert --from trec, fusion): a one-line error."""
    path = str(DATA / "run-latin1-docno.run")
    message = check_exit(CliRunner().invoke(main, [*command, path]), path, 4)
    assert message.startswith("the docno 'd\\xe94' is not UTF-8")


def test_fusion_and_convert_read_as_report_reads():
    """Fields after the tag, comments, blank lines: every reader of runs follows the same rules."""
    plain, messy = str(DATA / "plain.run"), str(DATA / "run-comments.run")
    for command in (["aggregate", "--method", "rrf"], ["convert", "--from", "trec", "--qrels",
                                                       str(DATA / "plain.qrels")]):
        a, b = (CliRunner().invoke(main, [*command, path]) for path in (plain, messy))
        assert a.exit_code == b.exit_code == 0 and a.stdout == b.stdout


def test_convert_names_the_line_where_a_query_comes_back():
    """convert streams what it has joined, so a run whose queries are scattered is an error
    there (report, and every measure, read such a run whole, as trec_eval does)."""
    path = str(DATA / "run-stdin-scattered.run")
    result = CliRunner().invoke(main, ["convert", "--from", "trec", "--qrels", str(DATA / "plain.qrels"), path])
    assert check_exit(result, path, 5) == ("the lines of query q1 come back after another query's; sort the run by "
                                           "query first (sort -s -k1,1)")


def test_stdin_without_a_temporary_file(monkeypatch):
    """The copy of stdin that lets a scattered run be read again cannot be made (no space):
    a run in order is read all the same; a scattered one is an error at the line where a
    query comes back."""
    import tempfile

    def no_space(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tempfile, "TemporaryFile", no_space)
    args = ["report", "--qrels", str(DATA / "plain.qrels"), "-m", "map", "-"]
    assert CliRunner().invoke(main, args, input=(DATA / "plain.run").read_bytes()).exit_code == 0
    result = CliRunner().invoke(main, args, input=(DATA / "run-stdin-scattered.run").read_bytes())
    assert check_exit(result, "<stdin>", 5) == (
        "the lines of query q1 come back after another query's, and the copy kept to read the run again failed "
        "(No space left on device); sort the run by query first (sort -s -k1,1)")


def test_convert_counts_the_queries_it_leaves_out():
    """Run queries without qrels are left out, as trec_eval leaves them, and counted on stderr."""
    result = CliRunner().invoke(main, ["convert", "--from", "trec", "--qrels", str(DATA / "plain.qrels"),
                                       str(DATA / "plain.run")])
    assert result.exit_code == 0
    assert result.stderr == f"rankeval: {DATA / 'plain.run'}: 1 queries without qrels skipped (as trec_eval)\n"
    assert "q4" not in result.stdout


# ---- random damage -----------------------------------------------------------------------------

RUN_TEXT = (DATA / "plain.run").read_bytes()
QRELS_TEXT = (DATA / "plain.qrels").read_bytes()
NOISE = st.sampled_from([b"\x00", b"\xff", b"\xe9", b"\xc3", b"#", b" ", b"\t", b"\r", b"\x0b", b"\n", b"\n\n",
                         b"x", b"1", b"-", b".", b"e", b"nan", b"inf", b"\xef\xbb\xbf", b"#c\n", b"q1 Q0 d1 1 1 t\n"])


@st.composite
def damaged(draw, text: bytes) -> bytes:
    """``text`` with a few random edits: inserted noise, deleted or repeated spans, a huge
    field, truncation, gzip (possibly cut short)."""
    data = bytearray(text)
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(data)))
        kind = draw(st.sampled_from(["insert", "delete", "repeat", "huge", "random"]))
        if kind == "insert":
            data[at:at] = draw(NOISE)
        elif kind == "delete":
            del data[at:at + draw(st.integers(1, 12))]
        elif kind == "repeat":
            data[at:at] = data[max(0, at - 20):at]
        elif kind == "huge":
            data[at:at] = draw(st.sampled_from([b"d", b"1", b"\xe9", b"x "])) * draw(st.sampled_from([300, 70_000]))
        else:
            data[at:at] = draw(st.binary(max_size=8))
    if draw(st.integers(0, 5)) == 0:
        data = data[:draw(st.integers(0, len(data)))]
    raw = bytes(data)
    if draw(st.integers(0, 6)) == 0:
        raw = gzip.compress(raw, mtime=0)
        if draw(st.booleans()):
            raw = raw[:draw(st.integers(0, len(raw)))]
    return raw


def _report(tmp_path, qrels: bytes, run: bytes, *extra):
    (tmp_path / "q").write_bytes(qrels)
    (tmp_path / "r").write_bytes(run)
    return CliRunner().invoke(main, [*extra, "--qrels", str(tmp_path / "q"), str(tmp_path / "r")],
                              catch_exceptions=False)


def _located(result, tmp_path) -> None:
    """Exit 0, or exit 1 with one line naming the qrels or the run (and a line, but for a
    file without judgments or a compressed file cut short before its first line)."""
    assert "Traceback" not in result.stderr
    assert result.exit_code in (0, 1), (result.exit_code, result.stderr)
    if result.exit_code == 1:
        error = result.stderr.strip().splitlines()[-1]
        assert error.startswith((f"rankeval: {tmp_path / 'q'}", f"rankeval: {tmp_path / 'r'}")), error
        assert ":" in error.split(": ", 2)[1] or "no judgments" in error or "compressed" in error, error


@given(run=damaged(RUN_TEXT))
@fuzz_settings(60)
def test_damaged_runs(tmp_path_factory, run):
    tmp_path = tmp_path_factory.mktemp("run")
    _located(_report(tmp_path, QRELS_TEXT, run, "report", "-m", "map,P_5"), tmp_path)


@given(qrels=damaged(QRELS_TEXT))
@fuzz_settings(60)
def test_damaged_qrels(tmp_path_factory, qrels):
    tmp_path = tmp_path_factory.mktemp("qrels")
    _located(_report(tmp_path, qrels, RUN_TEXT, "report", "-m", "map,P_5"), tmp_path)


@given(run=damaged(RUN_TEXT))
@fuzz_settings(25)
def test_damaged_runs_fused_and_converted(tmp_path_factory, run):
    tmp_path = tmp_path_factory.mktemp("fuse")
    (tmp_path / "r").write_bytes(run)
    (tmp_path / "q").write_bytes(QRELS_TEXT)
    for args in (["aggregate", "--method", "combsum", str(tmp_path / "r")],
                 ["convert", "--from", "trec", "--qrels", str(tmp_path / "q"), str(tmp_path / "r")]):
        _located(CliRunner().invoke(main, args, catch_exceptions=False), tmp_path)


@given(seed=st.integers(0, 2**32 - 1))
@fuzz_settings(30)
def test_any_block_size_reads_the_same(seed):
    """Blocks cut anywhere (a line split over blocks, a block of blank or comment lines)
    give the same run and the same line numbers."""
    rng = random.Random(seed)
    lines = []
    for q in range(rng.randint(1, 5)):
        for d in range(rng.randint(1, 6)):
            lines.append(f"q{q} Q0 {'d' * rng.choice([1, 9, 40, 70])}{d} {d} {rng.randint(0, 3)}.5 t{d}")
            lines += rng.choice([[], [""], ["  "], ["# c"], ["", "#"]])
    text = ("\n".join(lines) + "\n").encode()
    whole = read_run(_bytes_source(text))
    for block in (1, 7, 33, 100):
        part = read_run(_bytes_source(text), block_bytes=block)
        assert part.docno.tolist() == whole.docno.tolist() and (part.score == whole.score).all()
        assert [part.line_of(i) for i in range(part.n_rows)] == [whole.line_of(i) for i in range(whole.n_rows)]
        assert (part.tag, part.last_tag) == (whole.tag, whole.last_tag)
    expected = [i + 1 for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")]
    assert [whole.line_of(i) for i in range(whole.n_rows)] == expected


def _bytes_source(data: bytes):
    import io

    stream = io.BytesIO(data)
    stream.name = "mem"
    return stream


# ---- memory follows the data -------------------------------------------------------------------

#: address space for the child: a bare rankeval process maps about 170 MB
LIMIT_MB = 600


def _limited(args, tmp_path, limit_mb: int = LIMIT_MB, stdin: bytes = b"", **env) -> subprocess.CompletedProcess:
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (limit_mb << 20, limit_mb << 20))

    env = dict(os.environ, RANKEVAL_PROGRESS="0", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", **env)
    return subprocess.run([sys.executable, "-m", "rankeval_cli", *args], input=stdin, capture_output=True,
                          env=env, cwd=tmp_path, preexec_fn=limit, timeout=300)


@pytest.fixture()
def collection(tmp_path):
    """A run of 20,000 lines (200 queries) whose line 5001 holds a 1 MB docno, and its qrels.
    Held at the width of the longest docno, its docnos alone would take 20 GB."""
    lines = [f"q{q} Q0 d{q}_{i} {i} {100 - i}.5 t\n" for q in range(200) for i in range(100)]
    lines[5000] = "q50 Q0 " + "x" * (1 << 20) + " 1 0.1 t\n"
    (tmp_path / "run").write_text("".join(lines))
    (tmp_path / "qrels").write_text("".join(f"q{q} 0 d{q}_3 1\n" for q in range(200)) + "q50 0 " + "x" * (1 << 20)
                                    + " 1\n")
    return tmp_path


@pytest.mark.parametrize("args, expected", [
    (["report", "-m", "map,num_rel_ret", "--qrels", "qrels", "run"], "t\tnum_rel_ret\t201\t200"),
    (["convert", "--from", "trec", "--qrels", "qrels", "run"], "q199\td199_3\t1\t-97.5\tt"),
    (["aggregate", "--method", "rrf", "run"], "q50 Q0 " + "x" * (1 << 20) + " 100 "),
])
def test_a_long_docno_costs_its_length_once(collection, args, expected):
    done = _limited(args, collection)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert expected.encode() in done.stdout


def test_a_long_qid_and_a_long_line_of_many_fields(tmp_path):
    """A 1 MB query id; a run line of 5 million fields after its tag (ignored, as trec_eval
    ignores them); a qrels line with too many fields is an error naming it, read in bounded
    memory."""
    qid = "Q" * (1 << 20)
    (tmp_path / "run").write_text(f"{qid} Q0 a 1 2 t\n{qid} Q0 b 2 1 t" + " x" * 5_000_000 + "\nq2 Q0 a 1 1 t\n")
    (tmp_path / "qrels").write_text(f"{qid} 0 b 1\nq2 0 a 1\n")
    done = _limited(["report", "-m", "map,num_ret", "--per-group", "--qrels", "qrels", "run"], tmp_path)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert f"t\t{qid}\t0.5\t2".encode() in done.stdout
    (tmp_path / "bad").write_text("q2 0 a 1\nq2 0 b 1" + " x" * 5_000_000 + "\n")
    done = _limited(["report", "--qrels", "bad", "run"], tmp_path)
    assert done.returncode == 1
    assert done.stderr.decode() == "rankeval: bad:2: expected 4 fields (qid iter docno rel), found more than 4\n"


def test_blank_lines_cost_nothing(tmp_path):
    """64 MB of blank and comment lines (gzip: 70 KB) around a few rows: the line numbers stay
    right and memory holds a block, not a number per skipped line."""
    with gzip.open(tmp_path / "run.gz", "wb") as out:
        out.write(b"q1 Q0 a 1 2 t\n")
        for _ in range(32):
            out.write(b"\n" * (1 << 20))
            out.write(b"  # a comment\n\t\n" * (1 << 16))
        out.write(b"q1 Q0 b 2 1 t\nq1 Q0 b 3 0 t\n")
    (tmp_path / "qrels").write_text("q1 0 b 1\n")
    done = _limited(["report", "--qrels", "qrels", "run.gz"], tmp_path, limit_mb=400)
    assert done.returncode == 1
    blank_lines = 32 * ((1 << 20) + 2 * (1 << 16))
    assert done.stderr.decode() == (f"rankeval: run.gz:{blank_lines + 3}: docno b retrieved twice for query q1 "
                                    f"(first at line {blank_lines + 2})\n")


def test_a_long_score_is_an_error_not_a_memory_error(tmp_path):
    (tmp_path / "run").write_text("q1 Q0 a 1 " + "1" * 5_000_000 + " t\n")
    (tmp_path / "qrels").write_text("q1 0 a 1\n")
    done = _limited(["report", "--qrels", "qrels", "run"], tmp_path)
    assert done.returncode == 1
    assert done.stderr.decode().startswith("rankeval: run:1: score '1111")
    assert done.stderr.decode().endswith("is not a number we read (longer than 1024 characters)\n")


def _line_cap():
    from rankeval_cli import inputs

    if not hasattr(inputs, "max_line_bytes"):
        pytest.skip("inputs has no cap on one line yet")


@pytest.mark.parametrize("which", ["run", "qrels"])
def test_a_line_past_the_cap_is_an_error_naming_it(tmp_path, which):
    """The cap on one line of every line reader (rankeval_cli.inputs) holds for TREC files: a 3 MB docno
    under a 1 MB cap is an error at its line, whatever the memory."""
    _line_cap()
    (tmp_path / "run").write_text("q1 Q0 a 1 2 t\n")
    (tmp_path / "qrels").write_text("q1 0 a 1\n")
    (tmp_path / which).write_text((tmp_path / which).read_text() + "q1 " + ("Q0 " if which == "run" else "0 ") +
                                  "d" * (3 << 20) + (" 2 1 t\n" if which == "run" else " 1\n"))
    done = _limited(["report", "--qrels", "qrels", "run"], tmp_path, RANKEVAL_MAX_LINE_BYTES="1M")
    assert done.returncode == 1
    assert done.stderr.decode().startswith(f"rankeval: {which}:2: line longer than ")


def test_gzip_of_zeros_stops_at_the_cap(tmp_path):
    """256 MB of NUL bytes in 250 KB of gzip: one line past the 64 MiB cap, an error at line 1
    in bounded memory (never the decompressed file)."""
    _line_cap()
    with gzip.open(tmp_path / "run.gz", "wb") as out:
        for _ in range(256):
            out.write(bytes(1 << 20))
    (tmp_path / "qrels").write_text("q1 0 a 1\n")
    done = _limited(["report", "--qrels", "qrels", "run.gz"], tmp_path)
    assert done.returncode == 1
    assert done.stderr.decode().startswith("rankeval: run.gz:1: line longer than ")
