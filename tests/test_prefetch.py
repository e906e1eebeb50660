"""The read-ahead thread: items in order, an error where it happened, a consumer that
stops early stops the producer; and the TREC reader built on it gives the same errors at
the same lines whatever the block size."""

from __future__ import annotations

import threading
import time

import pytest
from click.testing import CliRunner

from rankeval_cli import prefetch
from rankeval_cli.cli import main
from rankeval_cli.formats.trec import run as trec_run
from robust import run_to_closed_pipe


def _threads():
    return [t for t in threading.enumerate() if t.name == "rankeval-read-ahead"]


def _wait_for_no_threads():
    deadline = time.monotonic() + 5
    while _threads() and time.monotonic() < deadline:
        time.sleep(0.01)
    return not _threads()


@pytest.mark.parametrize("depth", [1, 2, 5])
def test_items_in_order(depth):
    assert list(prefetch.ahead(lambda: iter(range(1000)), depth=depth)) == list(range(1000))
    assert list(prefetch.ahead(lambda: iter([]), depth=depth)) == []
    assert _wait_for_no_threads()


def test_error_raised_after_the_items_before_it():
    def items():
        yield from range(3)
        raise ValueError("at 3")

    got = []
    with pytest.raises(ValueError, match="at 3"):
        for item in prefetch.ahead(items):
            got.append(item)
    assert got == [0, 1, 2]
    assert _wait_for_no_threads()


def test_a_consumer_that_stops_stops_the_producer():
    produced = []

    def endless():
        i = 0
        while True:
            produced.append(i)
            yield i
            i += 1

    stream = prefetch.ahead(endless, depth=2)
    assert [next(stream) for _ in range(5)] == list(range(5))
    stream.close()
    assert _wait_for_no_threads()
    assert len(produced) <= 5 + 2 + 2  # what was taken, the queue, one being put


@pytest.mark.parametrize("block_bytes", [16, 40, 97, 1 << 21])
@pytest.mark.parametrize("bad, message", [
    ("7 Q0 d7 1 x t", "score 'x' is not a finite number"),
    ("7 Q0 d7 1 1.0", "expected 6 fields"),
    ("7 Q0 d0 9 0.5 t", "docno d0 retrieved twice for query 7"),
])
@pytest.mark.parametrize("blank", [False, True])
def test_errors_name_their_line_whatever_the_block_size(tmp_path, monkeypatch, block_bytes, bad, message, blank):
    """An error in any block is reported at its line, after the blocks before it were read
    (blank lines before it counted)."""
    monkeypatch.setattr(trec_run, "RUN_BLOCK_BYTES", block_bytes)
    lines = [f"{q} Q0 d{i} {i + 1} {10 - i}.5 t" for q in range(1, 8) for i in range(6)]
    at = len(lines) - 3
    lines.insert(at, bad)
    if blank:
        lines[3:3] = ["", ""]
        at += 2
    (tmp_path / "q").write_text("1 0 d1 1\n7 0 d0 1\n")
    (tmp_path / "r").write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(main, ["report", "--qrels", str(tmp_path / "q"), str(tmp_path / "r")])
    assert result.exit_code == 1
    assert (message if "twice" not in message else f"{message} (first at line {37 + 2 * blank})") in result.stderr
    assert f"r:{at + 1}: " in result.stderr
    assert _wait_for_no_threads()


def test_missing_run_file_is_a_one_line_error(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n")
    result = CliRunner().invoke(main, ["report", "--qrels", str(tmp_path / "q"), str(tmp_path / "absent")])
    assert result.exit_code != 0 and "absent" in result.stderr and "Traceback" not in result.stderr
    assert _wait_for_no_threads()


@pytest.mark.parametrize("from_stdin", [False, True])
def test_trec_run_to_a_closed_pipe_ends_quietly(tmp_path, from_stdin):
    """Per-query output of a large run into a pipe nobody reads: exit 0, nothing on stderr,
    whether the run is a file (read ahead) or stdin (read in line)."""
    run = "".join(f"{q} Q0 d{i} {i + 1} {1000 - i}.25 t\n" for q in range(2000) for i in range(50))
    (tmp_path / "q").write_text("".join(f"{q} 0 d{q % 50} 1\n" for q in range(2000)))
    (tmp_path / "r").write_text(run)
    source = "-" if from_stdin else str(tmp_path / "r")
    proc = run_to_closed_pipe(["report", "--qrels", str(tmp_path / "q"), "--per-group", "--output-format", "trec",
                               source], run.encode() if from_stdin else b"")
    assert (proc.returncode, proc.stderr.decode()) == (0, "")


def test_only_regular_files_are_read_ahead(tmp_path):
    import os

    (tmp_path / "f").write_text("x\n")
    os.mkfifo(tmp_path / "fifo")
    made = []

    def make():
        made.append(threading.current_thread().name)
        yield 1

    assert list(prefetch.ahead_of_files([str(tmp_path / "f")], make)) == [1]
    assert list(prefetch.ahead_of_files(["-"], make)) == [1]
    assert list(prefetch.ahead_of_files([str(tmp_path / "f"), str(tmp_path / "fifo")], make)) == [1]
    assert made == ["rankeval-read-ahead", threading.main_thread().name, threading.main_thread().name]


def test_a_generator_finalized_in_the_producer_thread_does_not_wait_for_itself():
    """The garbage collector may finalize the consumer's generator in the read-ahead thread
    itself; closing it there must not try to join that thread ("cannot join current thread")."""
    import threading

    from rankeval_cli import prefetch

    holder, received, closed = {}, threading.Event(), threading.Event()

    def make():
        yield 1
        received.wait(5)
        holder["gen"].close()  # the consumer's generator, finalized here, in the producer thread
        closed.set()
        yield 2

    holder["gen"] = gen = prefetch.ahead(make)
    assert next(gen) == 1
    received.set()
    assert closed.wait(5)
