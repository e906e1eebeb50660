"""Running the cases: availability, round-robin repetitions, medians.

Repetitions of the cases of one workload are interleaved (A B C, A B C, ...) so a
burst of load from elsewhere on the machine spreads over all of them rather than
falling on one tool.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .plan import Case
from .runner import run


@dataclass
class Result:
    case: Case
    seconds: list = field(default_factory=list)
    peaks: list = field(default_factory=list)
    cpu: list = field(default_factory=list)  # user + system seconds of each run
    status: str = "ok"  # ok | not available: ... | failed: ...
    output: Path | None = None
    inner: dict | None = None  # parsed JSON stdout of a peer (last run)
    phases: dict = field(default_factory=dict)  # in-process seconds of a peer's phases, one list per name

    @property
    def ok(self) -> bool:
        return self.status == "ok" and bool(self.seconds)

    @property
    def median(self) -> float | None:
        return statistics.median(self.seconds) if self.ok else None

    @property
    def best(self) -> float | None:
        return min(self.seconds) if self.ok else None

    @property
    def cpu_median(self) -> float | None:
        """The median CPU seconds (user + system), None when not measured (a derived case)."""
        cpu = [c for c in self.cpu if c == c]
        return statistics.median(cpu) if self.ok and cpu else None

    @property
    def peak(self) -> float | None:
        return max(self.peaks) if self.ok and self.peaks else None


class Availability:
    """Answers "can this case run here?" once per requirement."""

    def __init__(self, rankeval: list[str]):
        self.rankeval = rankeval
        self.cache: dict[str, str | None] = {}

    def missing(self, case: Case) -> str | None:
        for need in case.needs:
            if need not in self.cache:
                self.cache[need] = self._probe(need)
            if self.cache[need]:
                return self.cache[need]
        return None

    def _probe(self, need: str) -> str | None:
        kind, _, name = need.partition(":")
        if kind == "exe":  # a program given by path (trec_eval)
            if not name:
                return "no binary given (--trec-eval PATH or RANKEVAL_TREC_EVAL)"
            return None if os.path.isfile(name) and os.access(name, os.X_OK) else f"{name} is not an executable file"
        if kind == "py":
            return None if importlib.util.find_spec(name) else f"Python module {name} not installed"
        help_of = "convert" if kind == "reader" else name
        probe = subprocess.run([*self.rankeval, help_of, "--help"], capture_output=True, text=True)
        if probe.returncode != 0:
            return f"rankeval {help_of} not available"
        if kind == "reader" and name not in probe.stdout:
            return f"reader {name} not available"
        return None


def run_cases(cases: list[Case], repeat: int, out_dir: Path, available: Availability, log) -> dict[str, Result]:
    """Run every case of one workload ``repeat`` times (its own ``repeat`` if set), interleaved."""
    results = {c.key: Result(c) for c in cases}
    for c in cases:
        reason = available.missing(c)
        if reason:
            results[c.key].status = f"not available: {reason}"
    rounds = max([repeat] + [c.repeat or 0 for c in cases])
    for index in range(rounds):
        for c in cases:
            result = results[c.key]
            wanted = 1 if c.check_only else (c.repeat or repeat)
            if result.status != "ok" or index >= wanted:
                continue
            if c.after and not results.get(c.after, Result(c, status="absent")).ok:
                result.status = f"not available: needs {c.after}"
                continue
            _run_once(result, out_dir, log)
    for result in list(results.values()):
        _finish(result, results)
    return results


def _run_once(result: Result, out_dir: Path, log) -> None:
    c = result.case
    output = out_dir / (c.out or f"{c.key.replace('/', '-')}.out")
    argv = ["bash", "-o", "pipefail", "-c", c.argv] if isinstance(c.argv, str) else c.argv
    env = None
    cache = None
    if c.tool == "ranx-cold":
        cache = tempfile.mkdtemp(prefix="numba-cold-")
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    try:
        r = run(argv, stdout_path=str(output), env=env)
    finally:
        if cache:
            shutil.rmtree(cache, ignore_errors=True)
    if r.returncode != 0:
        tail = r.stderr.strip().splitlines()[-1:] or [""]
        result.status = f"failed: exit {r.returncode}: {tail[0][:200]}"
        log(f"  {c.key}: {result.status}")
        return
    result.seconds.append(r.seconds)
    result.peaks.append(r.peak_mb)
    result.cpu.append(r.cpu_seconds)
    result.output = output
    if output.suffix == ".json":
        _record_phases(result, output)
    log(f"  {c.key}: {r.seconds:.3f} s, CPU {r.cpu_seconds:.3f} s, {r.peak_mb:.0f} MB")


def _record_phases(result: Result, output: Path) -> None:
    """Keep the ``*_s`` numbers a peer reports about itself (build, evaluate, parse...)."""
    try:
        inner = json.loads(output.read_text())
    except (OSError, ValueError):
        return
    for key, value in inner.items():
        if key.endswith("_s") and isinstance(value, (int, float)):
            result.phases.setdefault(key[:-2], []).append(value)


def phase_note(result: Result) -> str:
    """"build 10.2 s, eval 3.1 s": medians of the phases a peer timed itself."""
    return ", ".join(f"{name} {statistics.median(values):.2f} s" for name, values in result.phases.items())


def _finish(result: Result, results: dict[str, Result]) -> None:
    """Parse JSON peers' output; turn a ranx warm process into its in-process timings."""
    c = result.case
    if not result.ok or not (c.out or "").endswith(".json"):
        return
    try:
        result.inner = json.loads(result.output.read_text())
    except (OSError, ValueError) as exc:
        result.status = f"failed: unreadable output ({exc})"
        return
    for key, (label, metric) in c.derive.items():
        derived = Case(key, c.workload, label, c.argv, tool=c.tool)
        seconds = result.inner[metric]["seconds"]
        results[key] = Result(derived, seconds=list(seconds), peaks=list(result.peaks), output=result.output,
                              inner={"value": result.inner[metric]["value"]})
