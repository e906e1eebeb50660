"""The README's commands: the two set-up commands match .ci/run; every other ``sh`` block runs.

Blocks fenced as ```python are run from the repository root with the test interpreter.
Blocks fenced as ```sh are run from the repository root with bash (pipefail), with the
installed ``rankeval`` first on PATH. A block right after the comment
``<!-- not run by tests/test_readme.py ... -->`` is skipped (the set-up commands, which
.ci/run runs itself).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SKIP_MARK = "<!-- not run by tests/test_readme.py"
BLOCK = re.compile(r"(?P<before>[^\n]*)\n```(?P<lang>[a-z]*)\n(?P<body>.*?)\n```", re.S)


def blocks(lang: str):
    return [(m.group("body"), SKIP_MARK in m.group("before")) for m in BLOCK.finditer(README)
            if m.group("lang") == lang]


def test_first_lines_give_exactly_two_setup_commands_and_ci_runs_them():
    body, skipped = blocks("sh")[0]
    assert skipped
    commands = body.splitlines()
    assert len(commands) == 2
    assert README.index(body) < 400, "the set-up commands must be at the top"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for command in commands:
        assert command in ci.splitlines(), f".ci/run must run exactly: {command}"


RUNNABLE = [body for body, skipped in blocks("sh") if not skipped]
PYTHON = [body for body, skipped in blocks("python") if not skipped]


@pytest.mark.parametrize("body", PYTHON, ids=[f"python-{i}" for i in range(len(PYTHON))])
def test_readme_python_block_runs(body):
    result = subprocess.run([sys.executable, "-c", body], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"{body}\n--- stderr ---\n{result.stderr[-2000:]}"


@pytest.mark.parametrize("body", RUNNABLE, ids=[b.splitlines()[0][:60] for b in RUNNABLE])
def test_readme_block_runs(body):
    needs_shared = "../shared/" in body or "scripts/wmt" in body  # the Makefiles default to ../shared/data
    if needs_shared and not (ROOT.parent / "shared" / "data").is_dir():
        pytest.skip("the block reads ../shared/data, which is not beside this checkout")
    rankeval = shutil.which("rankeval") or str(Path(sys.executable).with_name("rankeval"))
    env = dict(os.environ, PATH=f"{Path(rankeval).parent}{os.pathsep}{os.environ['PATH']}")
    result = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", body], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"{body}\n--- stderr ---\n{result.stderr[-2000:]}"
    assert "Traceback" not in result.stderr
