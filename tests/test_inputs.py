"""rankeval_cli.inputs: the cap on one input line, blank runs left out by the readers that skip them, sizes.

The cap and the blank runs are also run at scale, under a memory limit, in
tests/test_resources.py; here they are checked in-process, on every line reader.
"""

from __future__ import annotations

import gzip
import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from robust import check_exit, datasets, fuzz_settings, invoke, tsv_lines
from rankeval_cli import inputs
from rankeval_cli.errors import DataError
from rankeval_cli.inputs import format_size, iter_lines, max_line_bytes, parse_size, read_blocks

from conftest import TEST_DATA

# --- sizes --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, size", [("1", 1), ("1000", 1000), ("64K", 64 << 10), ("64k", 64 << 10),
                                        ("256M", 256 << 20), ("256MiB", 256 << 20), ("2G", 2 << 30),
                                        ("2gb", 2 << 30), (" 1T ", 1 << 40)])
def test_parse_size(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "0", "-1", "1.5M", "M", "12Q", "1e6", "١٢"])
def test_parse_size_refuses(text):
    with pytest.raises(ValueError):
        parse_size(text)


def test_format_size():
    assert [format_size(n) for n in (64 << 20, 1 << 30, 1536, 1000)] == ["64 MiB", "1 GiB", "1536 bytes",
                                                                       "1000 bytes"]


# --- the cap: where it comes from -------------------------------------------------------------------

def test_the_cap_defaults_to_64_mib(monkeypatch):
    monkeypatch.delenv("RANKEVAL_MAX_LINE_BYTES", raising=False)
    assert max_line_bytes() == 64 << 20


def test_the_option_sets_the_cap_for_one_run_and_puts_it_back(monkeypatch):
    monkeypatch.delenv("RANKEVAL_MAX_LINE_BYTES", raising=False)
    data = "group\titem\tgold\tpred\ng\t" + "a" * 100 + "\t1\t1\n"
    result = invoke(["--max-line-bytes", "64", "normalize"], data)
    assert "line longer than 64 bytes" in check_exit(result, line=2)
    assert max_line_bytes() == 64 << 20
    assert invoke(["--max-line-bytes", "200", "normalize"], data).exit_code == 0


def test_the_environment_sets_the_cap_and_the_option_wins(monkeypatch):
    data = "group\titem\tgold\tpred\ng\t" + "a" * 100 + "\t1\t1\n"
    monkeypatch.setenv("RANKEVAL_MAX_LINE_BYTES", "64")
    assert "longer than 64 bytes" in check_exit(invoke(["normalize"], data), line=2)
    assert invoke(["--max-line-bytes", "1K", "normalize"], data).exit_code == 0
    monkeypatch.setenv("RANKEVAL_MAX_LINE_BYTES", "lots")
    result = invoke(["normalize"], data)
    assert result.exit_code == 2 and "'lots' is not a size" in result.stderr


@pytest.mark.parametrize("value", ["0", "-5", "x", "1.5G"])
def test_a_bad_cap_is_a_usage_error(value):
    result = invoke(["--max-line-bytes", value, "normalize"], "")
    assert result.exit_code == 2 and "--max-line-bytes" in result.stderr


# --- the cap: every line reader ------------------------------------------------------------------------

LONG = "x" * 5000
#: reader -> (arguments, a valid input with one field ``LONG`` on line 3, or None for stdin-free readers)
READERS = {
    "tsv": (["tau"], f"group\titem\tgold\tpred\ng\ta\t1\t1\ng\t{LONG}\t2\t2\n"),
    "jsonl": (["tau"], '{"group": "g", "items": ["a"], "gold": [1]}\n\n'
                       f'{{"group": "h", "items": ["{LONG}"], "gold": [1]}}\n'),
    "letor": (["convert", "--from", "letor"], f"1 qid:1 1:1\n0 qid:1 1:2\n1 qid:1 1:3 # {LONG}\n"),
    "wmt-scores": (["convert", "--from", "wmt-scores"], f"m\ten-de\tt\ts1\t1\nm\ten-de\tt\ts2\t2\nm\ten-de\tt\t{LONG}\t3\n"),
    "darr": (["convert", "--from", "darr"], f"LP DATA SID BETTER WORSE\nen-de t s1 A B\nen-de t s2 {LONG} B\n"),
    "wmt-da": (["convert", "--from", "wmt-da", "--lp", "en-de", "--min-diff", "0"],
               f"SYS SEGID RAW.SCR Z.SCR N SID\nA d::1 50 0 1 1\n{LONG} d::1 60 0 1 1\n"),
    "mqm": (["convert", "--from", "mqm", "--lp", "en-de"], f"system mqm_avg_score seg_id\nA -1 1\n{LONG} -2 1\n"),
    "wmt-rr": (["convert", "--from", "wmt-rr"],
               (TEST_DATA / "wmt13-excerpt.csv").read_text().splitlines()[0] + "\n"
               + (TEST_DATA / "wmt13-excerpt.csv").read_text().splitlines()[1] + "\n"
               + (TEST_DATA / "wmt13-excerpt.csv").read_text().splitlines()[2].replace(",", "," + LONG, 1) + "\n"),
    "table": (["table", "-"], f"measure\tvalue\nndcg\t0.5\n{LONG}\t0.25\n"),
    "trec": (["convert", "--from", "trec", "--qrels", str(TEST_DATA.parent.parent / "examples" / "trec" / "qrels.txt")],
             f"1 Q0 d1 1 2.5 run\n1 Q0 d2 2 1.5 run\n1 Q0 {LONG} 3 0.5 run\n"),
}


@pytest.mark.parametrize("reader", sorted(READERS))
def test_every_line_reader_holds_to_the_cap(reader):
    args, data = READERS[reader]
    below = invoke(["--max-line-bytes", "8K", *args], data)
    check_exit(below)
    assert below.exit_code == 0 or "longer than" not in below.stderr, below.stderr
    above = invoke(["--max-line-bytes", "4K", *args], data)
    assert "line longer than 4 KiB" in check_exit(above, line=3)


@pytest.mark.parametrize("kind", ["gzip", "bz2", "lzma"])
def test_the_cap_holds_inside_compressed_input(kind):
    import importlib

    data = importlib.import_module(kind).compress(b"group\titem\tgold\tpred\n" + b"\0" * (1 << 20))
    assert "line longer than 64 KiB" in check_exit(invoke(["--max-line-bytes", "64K", "tau"], data), line=2)


def test_a_model_file_is_one_record_under_the_cap(tmp_path):
    model = tmp_path / "model.json"
    model.write_text('{"format": "rankeval-learn-model", "padding": "' + "x" * 5000 + '"}\n')
    result = invoke(["--max-line-bytes", "4K", "learn", "predict", "--model", str(model)], "")
    assert "model file larger than 4 KiB" in check_exit(result, source=str(model))


# --- read_blocks: the cap at every block size, blank runs ------------------------------------------------

def blocks(raw: bytes, block: int, skip_blank: bool = False, cap: int | None = None):
    previous = inputs.set_max_line_bytes(cap)
    try:
        return list(read_blocks(io.BytesIO(raw), "x", block, skip_blank=skip_blank))
    finally:
        inputs.set_max_line_bytes(previous)


@fuzz_settings(200)
@given(lines=st.lists(st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"")), max_size=12),
       block=st.integers(1, 40), cap=st.integers(1, 40), end=st.booleans())
def test_the_cap_names_the_first_line_beyond_it_at_every_block_size(lines, block, cap, end):
    raw = b"\n".join(lines) + (b"\n" if end and lines else b"")
    too_long = [i + 1 for i, line in enumerate(lines) if len(line) > cap]
    try:
        got = blocks(raw, block, cap=cap)
    except DataError as exc:
        assert too_long and exc.line == too_long[0], (exc.line, too_long)
        return
    assert not too_long
    assert b"".join(b for b, _ in got) == raw.removeprefix(inputs.BOM)


@st.composite
def with_blank_runs(draw):
    """Lines, some of them runs of blank lines (LF or CRLF), and a lone CR here and there."""
    pieces = draw(st.lists(st.one_of(
        st.binary(min_size=1, max_size=12).map(lambda b: b.replace(b"\n", b"x").replace(b"\r", b"y")),
        st.integers(1, 150).map(lambda n: b"\n" * (n - 1)),  # a run of blank lines (joined by the \n below)
        st.integers(1, 100).map(lambda n: (b"\r\n" * n)[:-1]),  # CRLF blank lines
        st.just(b"\r"), st.just(b"\r\r")), max_size=15))
    return b"\n".join(pieces) + draw(st.sampled_from([b"", b"\n", b"\r\n"]))


@fuzz_settings(300)
@given(raw=with_blank_runs(), block=st.integers(1, 50))
def test_blank_runs_are_left_out_and_every_other_line_keeps_its_number(raw, block):
    expected = [(n + 1, line) for n, line in enumerate(raw.split(b"\n"))
                if line not in (b"", b"\r") and not (n == raw.count(b"\n") and line == b"")]
    got = []
    for data, first in blocks(raw, block, skip_blank=True):
        lines = data.split(b"\n")
        if data.endswith(b"\n"):
            lines.pop()
        got += [(first + k, line) for k, line in enumerate(lines) if line not in (b"", b"\r")]
    assert got == expected
    if raw.isascii():
        assert list(iter_lines(io.BytesIO(raw), skip_blank=True)) == \
            [(n, t.decode().rstrip("\r")) for n, t in expected if t.rstrip(b"\r")]


@fuzz_settings(80)
@given(data=datasets(min_groups=1, max_groups=4), runs=st.lists(st.integers(0, 300), min_size=1, max_size=8),
       block=st.integers(1, 64), crlf=st.booleans(), choice=st.data())
def test_tsv_numbers_lines_across_blank_runs(data, runs, block, crlf, choice):
    """Blank runs inside and between groups, at any block size: the same output as without them,
    and an error after them names its true line (a joined block is numbered line by line)."""
    lines = [line.encode("utf-8") for line in tsv_lines(data)]
    out, numbers = [lines[0]], []
    for i, line in enumerate(lines[1:]):
        blank = runs[i % len(runs)] if choice.draw(st.booleans()) else 0
        out += [b""] * blank
        out.append(line)
        numbers.append(len(out))  # the 1-based number of this row's line
    newline = b"\r\n" if crlf else b"\n"
    bad_row = choice.draw(st.integers(0, len(numbers) - 1))
    broken = list(out)
    broken[numbers[bad_row] - 1] = broken[numbers[bad_row] - 1] + b"\textra"
    plain = newline.join(lines) + newline
    spaced, damaged = newline.join(out) + newline, newline.join(broken) + newline
    previous = inputs.BLOCK_BYTES
    inputs.BLOCK_BYTES = block
    try:
        expected, spaced_run = invoke(["normalize"], plain), invoke(["normalize"], spaced)
        error = invoke(["normalize"], damaged)
    finally:
        inputs.BLOCK_BYTES = previous
    assert (spaced_run.exit_code, spaced_run.stdout) == (expected.exit_code, expected.stdout)
    assert "tab-separated fields" in check_exit(error, line=numbers[bad_row])


def test_many_blank_lines_are_a_count():
    """32 MiB of newlines (gzipped, as concatenated gzip members) between two rows of one group
    (at scale, under a memory limit: tests/test_resources.py)."""
    member = gzip.compress(b"\n" * (1 << 24), compresslevel=1)
    raw = gzip.compress(b"group\titem\tgold\tpred\ng\ta\t1\t2\n") + member * 2 + gzip.compress(b"g\tb\t2\t1\n")
    result = invoke(["normalize"], raw)
    assert result.stdout == "group\titem\tgold\tpred\ng\ta\t1\t2\ng\tb\t2\t1\n", result.stderr
