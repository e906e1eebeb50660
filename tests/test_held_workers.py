"""Workers that end with their parent: an ending signal to ``rankeval ... --jobs 2`` ends the run at
once with 128 + N (130 for SIGINT), a SIGKILL'd parent still takes its workers, a worker that dies
is a one-line error, and --jobs / $RANKEVAL_JOBS / --scheduler / $RANKEVAL_DASK_TIMEOUT are checked
before any work starts."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import numpy as np
import pytest

from rankeval_cli import executor

pytestmark = pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc (Linux)")


@pytest.fixture(scope="module")
def stream(tmp_path_factory) -> Path:
    rng = np.random.default_rng(1)
    lines = ["group\titem\tgold\tpred\tf1"]
    for g in range(300):
        lines += [f"g{g}\tS{i}\t{rng.integers(1, 5)}\t{rng.random():.4f}\t{rng.random():.4f}" for i in range(6)]
    path = tmp_path_factory.mktemp("held") / "stream.tsv"
    path.write_text("\n".join(lines) + "\n")
    return path


#: a compare that runs for minutes in two workers unless stopped
LONG = ["compare", "--pred-columns", "pred,f1", "--test", "randomization", "--permutations", "20000000", "--jobs", "2"]


def _marked(mark: str) -> list[int]:
    """The processes whose environment carries ``mark`` (a run's parent, its helpers and workers)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if mark.encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _start(args, mark):
    env = dict(os.environ, RANKEVAL_PROGRESS="0", HELD_MARK=mark)
    return subprocess.Popen([sys.executable, "-m", "rankeval_cli", *args], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)


def _wait_for_workers(mark, count=4, seconds=60.0):
    """Parent, forkserver and two workers (the resource tracker does not inherit the mark reliably)."""
    deadline = time.monotonic() + seconds
    while len(_marked(mark)) < count:
        assert time.monotonic() < deadline, "the workers never started"
        time.sleep(0.1)


def _gone(mark, seconds=5.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while _marked(mark) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = _marked(mark)
    for pid in left:  # never leave them behind, even when the test fails
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    return left


@pytest.mark.parametrize("signum, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_an_ending_signal_ends_the_run_and_its_workers(stream, signum, status):
    mark = uuid.uuid4().hex
    proc = _start([*LONG, str(stream)], mark)
    _wait_for_workers(mark)
    sent = time.monotonic()
    proc.send_signal(signum)
    assert proc.wait(timeout=30) == status
    assert time.monotonic() - sent < 2.0
    assert _gone(mark) == []
    assert b"Traceback" not in proc.stderr.read()


def test_a_killed_parent_takes_its_workers(stream):
    mark = uuid.uuid4().hex
    proc = _start([*LONG, str(stream)], mark)
    _wait_for_workers(mark)
    proc.kill()
    proc.wait(timeout=30)
    assert _gone(mark, seconds=10.0) == []


def test_a_dead_worker_is_a_one_line_error(stream):
    mark = uuid.uuid4().hex
    proc = _start([*LONG, str(stream)], mark)
    _wait_for_workers(mark)
    workers = sorted(set(_marked(mark)) - {proc.pid})[-1]  # the newest: a worker
    os.kill(workers, signal.SIGKILL)
    assert proc.wait(timeout=30) == 1
    err = proc.stderr.read().decode()
    assert "worker process ended unexpectedly" in err and err.count("\n") == 1, err
    assert _gone(mark) == []


def _cli(args, **env):
    return subprocess.run([sys.executable, "-m", "rankeval_cli", *args], capture_output=True, text=True,
                          timeout=120, input="", env=dict(os.environ, RANKEVAL_PROGRESS="0", **env))


TREC = Path(__file__).resolve().parents[1] / "examples" / "trec"
TREC_EVAL = ["trec_eval", str(TREC / "qrels.txt"), str(TREC / "bm25.run")]


@pytest.mark.parametrize("text", ["-1", "abc", "1.5", "1e3", " ", "99999999999999999999"])
def test_malformed_jobs_variable_is_a_usage_error(text):
    result = _cli(TREC_EVAL, RANKEVAL_JOBS=text)
    if not text.strip():
        assert result.returncode == 0
        return
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "RANKEVAL_JOBS" in result.stderr


def test_too_many_jobs_are_capped_with_a_note():
    cap = executor.JOBS_PER_CPU * executor.cpu_count()
    for args, env in (([*TREC_EVAL, "--jobs", "10000"], {}), (TREC_EVAL, {"RANKEVAL_JOBS": "10000"})):
        result = _cli(args, **env)
        assert result.returncode == 0, result.stderr
        assert f"running {cap}" in result.stderr
    assert "running" not in _cli(["-q", *TREC_EVAL, "--jobs", "10000"]).stderr


BAD_ADDRESSES = ["tcp://127.0.0.1:notaport", "foo://127.0.0.1:8786", "tcp://[::1:1", "inproc://nothing", "ucx://",
                 "tls://", "tcp://host:8786;rm -rf x", "tcp://127.0.0.1:0", "tcp://127.0.0.1:65536", "tcp:// a:1"]


@pytest.mark.parametrize("address", BAD_ADDRESSES)
def test_malformed_scheduler_is_one_line(address):
    for args, env in (([*TREC_EVAL, "--scheduler", address], {}), (TREC_EVAL, {"RANKEVAL_SCHEDULER": address})):
        result = _cli(args, **env)
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
        assert "not a scheduler address" in result.stderr


@pytest.mark.parametrize("timeout", ["nan", "inf", "-1", "0", "abc", "1e300"])
def test_malformed_dask_timeout_is_one_line(timeout):
    result = _cli([*TREC_EVAL, "--scheduler", "tcp://127.0.0.1:9"], RANKEVAL_DASK_TIMEOUT=timeout)
    assert result.returncode == 2 and "RANKEVAL_DASK_TIMEOUT" in result.stderr and "Traceback" not in result.stderr


def test_wellformed_addresses_pass():
    from rankeval_cli.scheduler_address import check_address

    for address in ("tcp://127.0.0.1:8786", "127.0.0.1:8786", "[::1]:8786", "tls://sched.example.org:8786",
                    "ws://host", "ucx://10.0.0.1:13337"):
        assert check_address(address) == address


@pytest.mark.parametrize("args", [["compare", "--permutations", "1e26"], ["compare", "--bootstrap", "10" + "0" * 26],
                                  ["tau", "--bootstrap", "1000000000000001"], ["meta-eval", "--permutations", "9" * 30]])
def test_resampling_counts_beyond_the_cap_are_usage_errors(args):
    result = _cli(args)
    assert result.returncode == 2 and "Traceback" not in result.stderr and "Invalid value" in result.stderr
