"""Memory bounds, each run in a real process under a memory limit the test sets (RLIMIT_AS).

Each case was once a traceback or gigabytes of memory; scaled so that it runs in a
second or two, it must now end in the clean result or the clean error within a few
hundred MiB of address space (the interpreter with numpy takes about 150):

* a compressed file of zeros (one line of gigabytes): the line-cap error at line 1, in
  every line reader, for gzip, bzip2 and xz;
* runs of blank lines: counted, not held (each once cost about 9 bytes);
* one long field among many short ones: never a fixed-width array as wide as the widest;
* a LETOR index of 10^7 or 10^9 in a tiny file: the feature-index bound at its line.

Memory bound stated in docs/errors.md: O(block + longest line + distinct ids) for the
streaming readers, a few numbers per row for those that must hold the file.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from robust import ERROR
from conftest import TEST_DATA

pytestmark = pytest.mark.skipif(not hasattr(resource, "RLIMIT_AS") or sys.platform != "linux",
                                reason="address-space limits are Linux's")

LIMIT = 640 << 20  # bytes of address space a run may take
QRELS = TEST_DATA.parent.parent / "examples" / "trec" / "qrels.txt"


def run_limited(args, limit: int = LIMIT, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    """``python -m rankeval_cli ARGS`` with its address space limited to ``limit`` bytes."""
    def limited():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    env = dict(os.environ, RANKEVAL_PROGRESS="0", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               MKL_NUM_THREADS="1", MALLOC_ARENA_MAX="2")
    return subprocess.run([sys.executable, "-m", "rankeval_cli", *map(str, args)], input=stdin, capture_output=True,
                          preexec_fn=limited, env=env, timeout=300)


def error_of(result, source: Path | str, line: int | None = None) -> str:
    """The message of a clean exit 1 naming ``source`` (and ``line``)."""
    stderr = result.stderr.decode("utf-8", "replace")
    assert result.returncode == 1 and "Traceback" not in stderr and "out of memory" not in stderr, stderr[-2000:]
    match = ERROR.fullmatch(stderr.rstrip("\n").split("\n")[-1])
    assert match and match["source"] == str(source), stderr
    if line is not None:
        assert match["line"] is not None and int(match["line"]) == line, stderr
    return match["message"]


def succeeded(result) -> str:
    stderr = result.stderr.decode("utf-8", "replace")
    assert result.returncode == 0, stderr[-2000:]
    return result.stdout.decode("utf-8")


# --- compressed zeros: the line cap -------------------------------------------------------------------

#: each compression's stream of 16 MiB of zeros; a file repeats it (concatenated streams read as one)
ZERO_STREAMS = {}


def zeros(kind: str, mebibytes: int) -> bytes:
    if kind not in ZERO_STREAMS:
        block = b"\0" * (16 << 20)
        ZERO_STREAMS[kind] = {"gzip": lambda: gzip.compress(block, compresslevel=9),
                              "bz2": lambda: bz2.compress(block), "xz": lambda: lzma.compress(block)}[kind]()
    return ZERO_STREAMS[kind] * max(mebibytes // 16, 1)


#: reader -> arguments before the file (each reads one line-based file)
LINE_READERS = {
    "tsv": ["tau"],
    "jsonl": ["tau", "--input-format", "jsonl"],
    "letor": ["convert", "--from", "letor"],
    "wmt-scores": ["convert", "--from", "wmt-scores"],
    "darr": ["convert", "--from", "darr"],
    "wmt-da": ["convert", "--from", "wmt-da", "--lp", "en-de"],
    "mqm": ["convert", "--from", "mqm", "--lp", "en-de"],
    "wmt-da-scores": ["convert", "--from", "wmt-da-scores", "--lp", "en-de"],
    "appraise": ["convert", "--from", "appraise"],
    "wmt-rr": ["convert", "--from", "wmt-rr"],
    "table": ["table"],
    "trec run": ["convert", "--from", "trec", "--qrels", QRELS],
    "meta-eval": ["meta-eval", "--human", TEST_DATA / "wmt20-mqm-excerpt" / "mqm_newstest2020_ende.tsv", "--index",
                  TEST_DATA / "wmt20-mqm-excerpt" / "details.txt"],  # the metric score file
}


def test_a_10_mb_gzip_of_zeros_fails_fast_at_the_default_cap(tmp_path):
    """10 MB of gzip is 10 GiB of zeros: once it all went into one line, past 4 GiB."""
    path = tmp_path / "zeros.gz"
    path.write_bytes(zeros("gzip", 10240))
    assert path.stat().st_size >= 10_000_000
    assert "line longer than 64 MiB" in error_of(run_limited(["tau", path]), path, line=1)


@pytest.mark.parametrize("reader", sorted(LINE_READERS))
def test_compressed_zeros_meet_the_line_cap_in_every_reader(tmp_path, reader):
    path = tmp_path / "zeros.gz"
    path.write_bytes(zeros("gzip", 256))
    result = run_limited(["--max-line-bytes", "16M", *LINE_READERS[reader], path])
    assert "line longer than 16 MiB" in error_of(result, path, line=1)


@pytest.mark.parametrize("kind", ["bz2", "xz"])
@pytest.mark.parametrize("reader", ["tsv", "letor", "mqm"])
def test_bzip2_and_xz_zeros_meet_the_line_cap(tmp_path, kind, reader):
    path = tmp_path / f"zeros.{kind}"
    path.write_bytes(zeros(kind, 64))
    result = run_limited(["--max-line-bytes", "8M", *LINE_READERS[reader], path])
    assert "line longer than 8 MiB" in error_of(result, path, line=1)


def test_compressed_zeros_as_the_qrels(tmp_path):
    path = tmp_path / "qrels.gz"
    path.write_bytes(zeros("gzip", 64))
    result = run_limited(["--max-line-bytes", "8M", "convert", "--from", "trec", "--qrels", path,
                          TEST_DATA.parent.parent / "examples" / "trec" / "bm25.run"])
    assert "line longer than 8 MiB" in error_of(result, path, line=1)


def test_compressed_zeros_as_the_test_set_index(tmp_path):
    path = tmp_path / "index.gz"
    path.write_bytes(zeros("gzip", 64))
    result = run_limited(["--max-line-bytes", "8M", "convert", "--from", "mqm", "--index", path,
                          TEST_DATA / "wmt20-mqm-excerpt" / "mqm_newstest2020_ende.tsv"])
    assert "line longer than 8 MiB" in error_of(result, path, line=1)


def test_compressed_zeros_as_a_model_file(tmp_path):
    path = tmp_path / "model.json.gz"
    path.write_bytes(zeros("gzip", 256))
    result = run_limited(["learn", "predict", "--model", path], stdin=b"")
    assert "model file larger than 64 MiB" in error_of(result, path)


def test_compressed_zeros_on_stdin_for_letor():
    """LETOR spools stdin to a file to read it twice: the cap holds while spooling (no 10 GB file)."""
    result = run_limited(["--max-line-bytes", "8M", "convert", "--from", "letor"], stdin=zeros("gzip", 1024))
    assert "line longer than 8 MiB" in error_of(result, "<stdin>", line=1)


# --- runs of blank lines ----------------------------------------------------------------------------------

#: 16 MiB of newlines, gzipped; repeated, concatenated gzip members
NEWLINES = gzip.compress(b"\n" * (16 << 20), compresslevel=9)
#: a run of blank lines once cost about 9 bytes each: 64 Mi of them passed this limit
BLANK_LIMIT = 320 << 20


def with_blank_run(head: bytes, tail: bytes, mebibytes: int = 64) -> bytes:
    return gzip.compress(head) + NEWLINES * (mebibytes // 16) + gzip.compress(tail)


#: reader -> (arguments, first lines, last line): the blank run goes between them
BLANK_CASES = {
    "tsv, within a group": (["normalize"], b"group\titem\tgold\tpred\ng\ta\t1\t2\n", b"g\tb\t2\t1\n"),
    "tsv, between groups": (["normalize"], b"group\titem\tgold\tpred\ng\ta\t1\t2\n", b"h\tb\t2\t1\n"),
    "jsonl": (["normalize"], b'{"group": "g", "items": ["a"], "gold": [1]}\n', b'{"group": "h", "items": ["b"], "gold": [2]}\n'),
    "letor": (["convert", "--from", "letor"], b"1 qid:1 1:0.5\n", b"0 qid:1 1:0.25\n"),
    "wmt-scores": (["convert", "--from", "wmt-scores"], b"m\ten-de\tt\ts1\t0.5\n", b"m\ten-de\tt\ts2\t0.25\n"),
    "darr": (["convert", "--from", "darr"], b"en-de t s1 A B\n", b"en-de t s2 A B\n"),
    "wmt-da": (["convert", "--from", "wmt-da", "--lp", "en-de"], b"A d::1 50 0.1 1 1\n", b"B d::1 80 0.2 1 1\n"),
    "mqm": (["convert", "--from", "mqm", "--lp", "en-de"], b"system mqm_avg_score seg_id\nA -1 1\n", b"B -2 1\n"),
    "table": (["table", "-"], b"measure\tvalue\nndcg\t0.5\n", b"mrr\t0.25\n"),
    "trec run": (["convert", "--from", "trec", "--qrels", QRELS], b"401 Q0 d1 1 2.5 run\n", b"401 Q0 d2 2 1.5 run\n"),
}
BLANK_XFAIL: dict = {}


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.xfail(reason=BLANK_XFAIL[c], strict=True))
                                  if c in BLANK_XFAIL else c for c in BLANK_CASES])
def test_runs_of_blank_lines_cost_a_count(case):
    args, head, tail = BLANK_CASES[case]
    spaced = succeeded(run_limited(args, limit=BLANK_LIMIT, stdin=with_blank_run(head, tail)))
    plain = succeeded(run_limited(args, limit=BLANK_LIMIT, stdin=head + tail))
    if case not in ("darr", "letor"):  # (their group and item ids are line numbers)
        assert spaced == plain


# --- one long field among many short ones -----------------------------------------------------------------

ROWS = 20000
WIDE = "x" * (4 << 20)


def tsv_with_a_wide_item() -> bytes:
    rows = [f"g{i // 10}\t{WIDE if i == ROWS // 2 else f'i{i}'}\t{i % 10}\t{i % 7}" for i in range(ROWS)]
    return ("group\titem\tgold\tpred\n" + "\n".join(rows) + "\n").encode()


@pytest.mark.parametrize("args", [["tau"], ["ndcg", "--tie-policy", "trec"], ["report"],
                                  ["convert", "--output-format", "jsonl"]])
def test_a_wide_item_costs_its_own_width(tmp_path, args):
    """Once a fixed-width copy of every id as wide as the widest (the trec tie policy: 320 GB here)."""
    path = tmp_path / "wide.tsv"
    path.write_bytes(tsv_with_a_wide_item())
    succeeded(run_limited([*args, path]))


@pytest.mark.parametrize("column", [0, 1, 5])
def test_a_wide_da_field(tmp_path, column):
    rows = []
    for i in range(ROWS):
        fields = [f"S{i % 20}", f"d::{i // 20}", str(i % 97), "0.1", "1", str(i // 20)]
        if i == ROWS // 2:
            fields[column] = WIDE
        rows.append(" ".join(fields))
    path = tmp_path / "da-en-de.csv"
    path.write_text("SYS SEGID RAW.SCR Z.SCR N SID\n" + "\n".join(rows) + "\n")
    succeeded(run_limited(["convert", "--from", "wmt-da", path]))


def test_a_wide_trec_docno(tmp_path):
    run = tmp_path / "wide.run"
    run.write_text("".join(f"{q} Q0 {'D' + 'x' * 100000 if (q, r) == (5, 7) else f'D{q}-{r}'} {r + 1} {1000 - r} run\n"
                           for q in range(1, 21) for r in range(300)))
    qrels = tmp_path / "wide.qrels"
    qrels.write_text("".join(f"{q} 0 D{q}-{r} 1\n" for q in range(1, 21) for r in range(0, 300, 3)))
    succeeded(run_limited(["convert", "--from", "trec", "--qrels", qrels, run]))


# --- LETOR feature indices ---------------------------------------------------------------------------------

@pytest.mark.parametrize("index, shown", [(10**7, "10000000"), (10**9, "1000000000"),
                                         (10**40, "100000000000...000000")])
def test_a_letor_index_beyond_the_bound(tmp_path, index, shown):
    """44 bytes with index 10^7 once took 3.9 GB; 10^9 died with numpy's MemoryError."""
    path = tmp_path / "tiny.letor"
    path.write_text(f"1 qid:1 1:0.5 2:1\n0 qid:1 {index}:1 # d2\n")
    message = error_of(run_limited(["convert", "--from", "letor", path]), path, line=2)
    assert f"feature index {shown} is above the limit of 10000" in message
