"""One timed run of a command in a child process: wall time, CPU time and peak resident memory.

The clock starts just before the child is spawned and stops when it has exited
and been reaped, so a run covers interpreter start-up, imports, reading the whole
input and writing the last byte of output ("end to end"). Peak memory is the
``ru_maxrss`` that ``wait4`` returns for that one child: the largest resident set
of the child or of any descendant it waited for (a shell pipeline reports its
largest stage). No polling, no deltas between runs. CPU time is the user and system
time of the child and its waited-for descendants (``wait4``'s rusage as well): on a
machine other jobs keep busy, it moves less than the wall time does.

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
    cpu_seconds: float = float("nan")


class RunError(RuntimeError):
    pass


GNU_TIME = shutil.which("time", path="/usr/bin:/bin")
WRAPPER = ("import os, resource, sys\n"
           "status = os.waitstatus_to_exitcode(os.spawnvp(os.P_WAIT, sys.argv[2], sys.argv[2:]) << 8)\n"
           "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
           "open(sys.argv[1], 'w').write(f'{u.ru_utime} {u.ru_stime} {u.ru_maxrss}')\n"
           "sys.exit(status)\n")


def _wrapped(argv: list[str], rss_path: str) -> list[str]:
    if GNU_TIME:
        return [GNU_TIME, "-q", "-f", "%U %S %M", "-o", rss_path, *argv]
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
        user, system, peak_kb = _read_rss(rss_path)
    finally:
        out.close()
        err.close()
        for path in (err_path, rss_path):
            if os.path.exists(path):
                os.unlink(path)
    return Run(seconds, peak_kb / 1024.0, child.returncode, stderr, user + system)


def _read_rss(path: str) -> tuple:
    """(user s, system s, peak kilobytes) written by ``time -f '%U %S %M'`` (its last line) or by the wrapper."""
    try:
        lines = [line for line in open(path).read().splitlines() if line.strip()]
        user, system, peak = map(float, lines[-1].split())
        return user, system, peak
    except (OSError, ValueError, IndexError):
        return float("nan"), float("nan"), float("nan")


def run_checked(argv, **options) -> Run:
    """:func:`run`, raising :class:`RunError` with the stderr tail on a non-zero exit."""
    result = run(argv, **options)
    if result.returncode != 0:
        shown = argv if isinstance(argv, str) else " ".join(map(str, argv))
        raise RunError(f"exit {result.returncode}: {shown}\n{result.stderr[-2000:]}")
    return result
