"""docs/design.md's recipe for adding a fusion method, performed: the entry it shows is added to
a copy of the package, and the new method is offered by --help and completion and fuses."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _entry() -> str:
    text = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    section = text.split("## Adding a fusion method", 1)[1].split("\n## ", 1)[0]
    return re.search(r"```text\n(.*?)```", section, re.S).group(1)


def test_the_recipe_adds_a_method(tmp_path):
    package = tmp_path / "rankeval_cli"
    shutil.copytree(ROOT / "rankeval_cli", package, ignore=shutil.ignore_patterns("__pycache__"))
    table = package / "aggregate" / "fusion" / "table.py"
    text = table.read_text(encoding="utf-8")
    end = text.index("\n)}\nDEFAULT_METHOD")
    table.write_text(text[:end] + "\n" + _entry().rstrip("\n") + text[end:], encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "COLUMNS": "80"}

    def rankeval(*args, **kw):
        return subprocess.run([sys.executable, "-m", "rankeval_cli", *args], capture_output=True, text=True,
                              env=env, cwd=tmp_path, timeout=120, **kw)

    assert "combsq" in rankeval("aggregate", "--help").stdout
    code = ("from click.shell_completion import ShellComplete\nfrom rankeval_cli.cli import main\n"
            "c = ShellComplete(main, {}, 'rankeval', '_RANKEVAL_COMPLETE')\n"
            "print(' '.join(i.value for i in c.get_completions(['aggregate', '--method'], 'comb')))")
    complete = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                              cwd=tmp_path, timeout=120)
    assert "combsq" in complete.stdout.split(), complete.stderr
    runs = [tmp_path / "a.run", tmp_path / "b.run"]
    runs[0].write_text("q Q0 d1 1 10 a\nq Q0 d2 2 6 a\nq Q0 d3 3 2 a\n")
    runs[1].write_text("q Q0 d3 1 0.9 b\nq Q0 d4 2 0.5 b\nq Q0 d2 3 0.1 b\n")
    done = rankeval("aggregate", "--method", "combsq", *map(str, runs))
    assert done.returncode == 0, done.stderr
    # min-max: a -> d1 1, d2 0.5, d3 0; b -> d3 1, d4 0.5, d2 0: squares summed
    assert done.stdout.splitlines() == ["q Q0 d3 1 1.0 combsq", "q Q0 d1 2 1.0 combsq",
                                        "q Q0 d4 3 0.25 combsq", "q Q0 d2 4 0.25 combsq"]
