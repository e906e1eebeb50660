"""One timed run of a command in a child process: wall time and peak resident memory.

The clock starts just before the child is spawned and stops when it has exited
and been reaped, so a run covers interpreter start-up, imports, reading the whole
input and writing the last byte of output ("end to end"). Peak memory is the
``ru_maxrss`` that ``wait4`` returns for that one child: the largest resident set
of the child or of any descendant it waited for (a shell pipeline reports its
largest stage). No polling, no deltas between runs.

The CPU time (user + system) of the child and its descendants is kept beside the wall
time: on a shared, loaded machine a process waits for a core for part of its wall time,
and the CPU time is what it cost.

The command is started through GNU ``/usr/bin/time -f %M`` when it exists. This
matters: Linux charges a process, at ``exec``, the peak of the memory image it
replaced, and a child spawned directly by this (numpy-importing) harness would
inherit the harness's 60-odd MB as its floor. ``time`` is a small C program, so
its child starts from almost nothing. Without it, a small Python wrapper stands
in (a floor of about 10 MB, the size of a bare interpreter).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass


@dataclass
class Run:
    seconds: float
    peak_mb: float
    returncode: int
    stderr: str
    cpu_seconds: float = float("nan")  # user + system, the child and what it waited for


class RunError(RuntimeError):
    pass


GNU_TIME = shutil.which("time", path="/usr/bin:/bin")
WRAPPER = ("import os, resource, sys\n"
           "status = os.waitstatus_to_exitcode(os.spawnvp(os.P_WAIT, sys.argv[2], sys.argv[2:]) << 8)\n"
           "usage = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
           "open(sys.argv[1], 'w').write(f'{usage.ru_utime} {usage.ru_stime}\\n{usage.ru_maxrss}')\n"
           "sys.exit(status)\n")


def _wrapped(argv: list[str], rss_path: str) -> list[str]:
    if GNU_TIME:
        return [GNU_TIME, "-q", "-f", "%U %S\n%M", "-o", rss_path, *argv]
    return [sys.executable, "-c", WRAPPER, rss_path, *argv]


def run(argv, *, stdout_path: str | None = None, env: dict | None = None, cwd: str | None = None) -> Run:
    """Run ``argv`` (a list of arguments) to completion, timed.

    stdout goes to ``stdout_path`` (or /dev/null), stderr is kept for diagnostics.
    """
    base = f"{stdout_path or '/tmp/rankeval-bench'}.{os.getpid()}"
    rss_path, err_path = base + ".rss", base + ".stderr"
    out = open(stdout_path or os.devnull, "wb")
    err = open(err_path, "w+b")
    try:
        start = time.perf_counter()
        child = subprocess.run(_wrapped(list(map(str, argv)), rss_path), stdin=subprocess.DEVNULL, stdout=out,
                               stderr=err, env=env, cwd=cwd)
        seconds = time.perf_counter() - start
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
        peak_kb, cpu = _read_rss(rss_path), _read_cpu(rss_path)
    finally:
        out.close()
        err.close()
        for path in (err_path, rss_path):
            if os.path.exists(path):
                os.unlink(path)
    return Run(seconds, peak_kb / 1024.0, child.returncode, stderr, cpu)


def _read_rss(path: str) -> float:
    """Kilobytes written by ``time -f %M`` (its last line) or by the wrapper."""
    try:
        lines = [line for line in open(path).read().splitlines() if line.strip()]
        return float(lines[-1])
    except (OSError, ValueError, IndexError):
        return float("nan")


def _read_cpu(path: str) -> float:
    """User + system seconds from the line before the last (``time -f "%U %S\\n%M"``, or the wrapper)."""
    try:
        lines = [line for line in open(path).read().splitlines() if line.strip()]
        return sum(float(x) for x in lines[-2].split())
    except (OSError, ValueError, IndexError):
        return float("nan")


def run_checked(argv, **options) -> Run:
    """:func:`run`, raising :class:`RunError` with the stderr tail on a non-zero exit."""
    result = run(argv, **options)
    if result.returncode != 0:
        shown = argv if isinstance(argv, str) else " ".join(map(str, argv))
        raise RunError(f"exit {result.returncode}: {shown}\n{result.stderr[-2000:]}")
    return result
