"""docs/design.md's recipe for a new IR measure, performed: its diff applied to a copy of the package,
the made-up measure then parses, shows in ``report --help`` and on its family's docs page, and computes
(Hits@10 = 10 × P@10)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_adding_a_measure_is_one_files_diff(tmp_path):
    if shutil.which("patch") is None:
        pytest.skip("needs patch(1)")
    diff = re.search(r"```diff\n(.*?)```", (ROOT / "docs" / "design.md").read_text(), re.S).group(1)
    assert len(re.findall(r"^\+\+\+ ", diff, re.M)) == 1  # one file
    shutil.copytree(ROOT / "rankeval_cli", tmp_path / "rankeval_cli", ignore=shutil.ignore_patterns("__pycache__"))
    done = subprocess.run(["patch", "-p1", "-d", str(tmp_path)], input=diff, text=True, capture_output=True)
    assert done.returncode == 0, done.stdout + done.stderr
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    script = """
import json, sys
from rankeval_cli.measures.trec.names import parse
from rankeval_cli.measures.trec import catalogue
(m,) = parse("Hits@10")
print(json.dumps({"root": m.root, "page": "\\n## hits\\n" in catalogue.family_page("rankeval")}))
"""
    out = subprocess.run([sys.executable, "-c", script], env=env, cwd=tmp_path, capture_output=True, text=True,
                         check=True)
    assert json.loads(out.stdout) == {"root": "hits", "page": True}
    cli = [sys.executable, "-m", "rankeval_cli"]
    help_text = subprocess.run([*cli, "report", "--help"], env=env, cwd=tmp_path, capture_output=True, text=True).stdout
    assert " Hits " in help_text.replace("\n", " ")
    trec = ROOT / "examples" / "trec"
    report = subprocess.run([*cli, "report", "--qrels", str(trec / "qrels.txt"), "-m", "Hits@10", "-m", "P_10",
                             "--output-format", "jsonl", str(trec / "bm25.run")], env=env, cwd=tmp_path,
                            capture_output=True, text=True)
    assert report.returncode == 0, report.stderr
    rows = {r["measure"]: r["value"] for r in map(json.loads, report.stdout.splitlines())}
    assert rows["Hits@10"] == pytest.approx(10 * rows["P_10"])
