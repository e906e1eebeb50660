"""Progress display: on stderr only when it is a terminal; completion scripts."""

from __future__ import annotations

import io

import numpy as np
from click.testing import CliRunner

from rankeval_cli.batch import Batch
from rankeval_cli.cli import main
from rankeval_cli.pipeline import progress


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def batches(k):
    for _ in range(k):
        yield Batch(np.array(["g"], dtype=object), np.array([0, 1]), np.array(["i"], dtype=object),
                    np.ones(1), np.ones(1))


def test_progress_on_a_terminal_goes_to_stderr(monkeypatch, capsys):
    fake = FakeTerminal()
    monkeypatch.setattr("sys.stderr", fake)
    assert len(list(progress(batches(3)))) == 3
    assert "rankeval: groups" in fake.getvalue() and "3" in fake.getvalue()
    assert capsys.readouterr().out == ""


def test_no_progress_when_stderr_is_not_a_terminal(monkeypatch):
    plain = io.StringIO()
    monkeypatch.setattr("sys.stderr", plain)
    assert len(list(progress(batches(3)))) == 3
    assert plain.getvalue() == ""


def test_progress_can_be_turned_off(monkeypatch):
    fake = FakeTerminal()
    monkeypatch.setattr("sys.stderr", fake)
    monkeypatch.setenv("RANKEVAL_PROGRESS", "0")
    list(progress(batches(2)))
    assert fake.getvalue() == ""


def test_completion_scripts():
    for shell, marker in (("bash", "_rankeval_completion"), ("zsh", "#compdef rankeval"), ("fish", "complete")):
        result = CliRunner().invoke(main, ["completion", shell])
        assert result.exit_code == 0 and marker in result.output


# --- phases, notes and a real terminal (a pseudo-terminal) -----------------------------------------

def _wait_for(predicate, seconds=30.0):
    import time

    end = time.monotonic() + seconds
    while not predicate() and time.monotonic() < end:
        time.sleep(0.05)
    return predicate()


def test_a_phase_shows_its_elapsed_time_on_a_terminal_and_erases_it(monkeypatch):
    from rankeval_cli.pipeline import phase

    fake = FakeTerminal()
    monkeypatch.setattr("sys.stderr", fake)
    monkeypatch.setenv("RANKEVAL_PROGRESS_DELAY", "0")
    with phase("training"):
        assert _wait_for(lambda: "rankeval: training..." in fake.getvalue())
    assert fake.getvalue().endswith("\r\033[K")  # the line is erased when the phase ends


def test_a_phase_is_silent_off_a_terminal_and_when_short(monkeypatch):
    import time

    from rankeval_cli.pipeline import phase

    plain = io.StringIO()
    monkeypatch.setattr("sys.stderr", plain)
    monkeypatch.setenv("RANKEVAL_PROGRESS_DELAY", "0")
    with phase("training"):
        time.sleep(0.6)
    assert plain.getvalue() == ""
    fake = FakeTerminal()
    monkeypatch.setattr("sys.stderr", fake)
    monkeypatch.delenv("RANKEVAL_PROGRESS_DELAY")
    with phase("training"):  # ends before the default delay of a second
        pass
    assert fake.getvalue() == ""


def test_quiet_silences_notes_and_repeated_notes_are_counted_once():
    import click

    from rankeval_cli.messages import warn

    @click.command()
    @click.option("--times", type=int)
    def noisy(times):
        for _ in range(times):
            warn("fold 1: left out 1 item")
        warn("another note")

    result = CliRunner().invoke(noisy, ["--times", "3"])
    assert result.stderr.splitlines() == ["rankeval: fold 1: left out 1 item", "rankeval: another note",
                                          "rankeval: the note 'fold 1: left out 1 item' came 3 times"]
    data = "group\titem\tgold\tpred\ns\ta\t1\t\ns\tb\t2\t1\ns\tc\t3\t2\n"
    loud = CliRunner().invoke(main, ["tau"], input=data)
    quiet = CliRunner().invoke(main, ["--quiet", "tau"], input=data)
    assert "skipped 1 item" in loud.stderr and quiet.stderr == "" and quiet.stdout == loud.stdout


def _on_a_pty(args, env_extra=None, stdin=None):
    """Run rankeval with stderr on a pseudo-terminal (stdout a pipe): (stdout, terminal text)."""
    import os
    import pty
    import subprocess
    import sys

    leader, follower = pty.openpty()
    env = dict(os.environ, **(env_extra or {}))
    env.pop("RANKEVAL_PROGRESS", None)
    process = subprocess.Popen([sys.executable, "-m", "rankeval_cli", *args], stdin=stdin or subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=follower, env=env)
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed: the process ended
            break
        if not chunk:
            break
        seen += chunk
    out = process.stdout.read()
    process.wait()
    os.close(leader)
    return out.decode(), seen.decode(errors="replace")


def test_progress_on_a_real_terminal_and_none_off_it(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    jcml = Path(__file__).resolve().parents[1] / "examples" / "wmt10-de-en.xf.jcml"
    out, terminal = _on_a_pty(["compare", "--pred-columns", "unk,length", "--bootstrap", "200",
                               "--permutations", "200", str(jcml)], {"RANKEVAL_PROGRESS_DELAY": "0"})
    assert out.startswith("system\tbaseline\t")  # stdout carries only the records
    assert "rankeval compare: groups" in terminal  # reading, counted
    piped = subprocess.run([sys.executable, "-m", "rankeval_cli", "compare", "--pred-columns", "unk,length",
                            "--bootstrap", "200", "--permutations", "200", str(jcml)], capture_output=True,
                           text=True, env={**__import__("os").environ, "RANKEVAL_PROGRESS_DELAY": "0"})
    assert piped.stdout == out and "groups" not in piped.stderr and "\r" not in piped.stderr
    _, quiet = _on_a_pty(["--quiet", "compare", "--pred-columns", "unk,length", "--bootstrap", "200",
                          "--permutations", "200", str(jcml)], {"RANKEVAL_PROGRESS_DELAY": "0"})
    assert quiet == ""


def test_work_units_show_a_count_bar_on_a_terminal():
    import os
    import pty
    import subprocess
    import sys

    leader, follower = pty.openpty()
    code = ("from rankeval_cli.executor import map_units\n"
            "print(sum(map_units(pow, range(1, 40), shared=2, label='replicates')))")
    env = {k: v for k, v in os.environ.items() if k != "RANKEVAL_PROGRESS"}
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=follower, env=env)
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    out = process.stdout.read().decode()
    process.wait()
    os.close(leader)
    assert out.strip() == str(sum(2 ** k for k in range(1, 40)))
    assert "rankeval: replicates" in seen.decode() and "39/39" in seen.decode()
