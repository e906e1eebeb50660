"""docs/design.md's recipes performed: every code block of its "Recipes" section is applied, as
written, to a copy of the package (a new file, or lines right after the line that opens a table),
and the new measure, fusion method, input format and command are run through the command line
of that copy, with values worked out by hand."""

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
HEADER = re.compile(r"# (?P<path>rankeval_cli/\S+\.py): (?:(?P<new>a new file)|an entry of (?P<table>\w+))\n")


def recipes() -> dict[str, list[str]]:
    """Recipe title -> its code blocks, in order."""
    text = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    section = text.split("\n## Recipes\n", 1)[1].split("\n## ", 1)[0]
    parts = re.split(r"^### (.+)$", section, flags=re.M)
    return {title: re.findall(r"```python\n(.*?)```", body, re.S) for title, body in zip(parts[1::2], parts[2::2])}


def apply(block: str, package_root: Path) -> None:
    """Write a block where its first line says: a new file, or after the line opening a table."""
    header = HEADER.match(block)
    assert header, f"a recipe block starts with '# rankeval_cli/PATH.py: a new file|an entry of NAME': {block[:80]}"
    target, body = package_root / header["path"], block[header.end():]
    if header["new"]:
        assert not target.exists(), target
        target.write_text(body, encoding="utf-8")
        return
    lines = target.read_text(encoding="utf-8").splitlines(keepends=True)
    opening = [i for i, line in enumerate(lines) if line.startswith(f"{header['table']} = ")]
    assert len(opening) == 1, f"{header['path']}: one line opening {header['table']}"
    lines.insert(opening[0] + 1, body)
    target.write_text("".join(lines), encoding="utf-8")


class Copy:
    """A copy of rankeval_cli/ with one recipe applied, run as ``python -m rankeval_cli``."""

    def __init__(self, root: Path, title: str):
        self.root = root
        shutil.copytree(ROOT / "rankeval_cli", root / "rankeval_cli", ignore=shutil.ignore_patterns("__pycache__"))
        blocks = recipes()[title]
        assert blocks, title
        for block in blocks:
            apply(block, root)
        self.env = {**os.environ, "PYTHONPATH": str(root), "COLUMNS": "80", "NO_COLOR": "1"}

    def python(self, *args, input=None):
        return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=self.env, cwd=self.root,
                              input=input, timeout=120)

    def rankeval(self, *args, input=None):
        return self.python("-m", "rankeval_cli", *map(str, args), input=input)

    def ok(self, *args, input=None) -> str:
        done = self.rankeval(*args, input=input)
        assert done.returncode == 0, done.stderr
        return done.stdout


@pytest.fixture(scope="module")
def copies(tmp_path_factory):
    """One copy per recipe, made when a test first asks for it."""
    made = {}

    def copy(title: str) -> Copy:
        if title not in made:
            made[title] = Copy(tmp_path_factory.mktemp("recipe"), title)
        return made[title]
    return copy


def test_the_section_holds_the_four_recipes():
    assert list(recipes()) == ["Adding a measure", "Adding a fusion method", "Adding an input format",
                               "Adding a command"]


def test_the_copy_is_what_runs(copies):
    copy = copies("Adding a command")
    done = copy.python("-c", "import rankeval_cli; print(rankeval_cli.__file__)")
    assert done.stdout.strip() == str(copy.root / "rankeval_cli" / "__init__.py")


# g1: the relevant item a is third; g2: first; g3: tied first with b (positions 1-2)
MEASURE_INPUT = ("group\titem\tgold\tpred\ng1\ta\t1\t3\ng1\tb\t2\t1\ng1\tc\t3\t2\ng2\ta\t1\t1\ng2\tb\t2\t2\n"
                 "g3\ta\t1\t1\ng3\tb\t2\t1\ng3\tc\t3\t2\n")


@pytest.mark.parametrize("k, policy, per_group, mean", [
    (1, "pessimistic", [0, 1, 0], 1 / 3), (1, "optimistic", [0, 1, 1], 2 / 3),
    (1, "expected", [0, 1, 0.5], 0.5),  # 1 − C(1, 1)/C(2, 1) in g3
    (2, "pessimistic", [0, 1, 1], 2 / 3), (3, "expected", [1, 1, 1], 1.0),
])
def test_a_measure(copies, k, policy, per_group, mean):
    copy = copies("Adding a measure")
    out = copy.ok("success", "--k", k, "--tie-policy", policy, "--per-group", "--output-format", "jsonl",
                  input=MEASURE_INPUT)
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["success"] for r in rows] == pytest.approx(per_group, abs=1e-15)
    summary = json.loads(copy.ok("success", "--k", k, "--tie-policy", policy, "--output-format", "jsonl",
                                 input=MEASURE_INPUT))
    assert summary["value"] == pytest.approx(mean, abs=1e-15)
    assert summary["signature"].startswith(f"success|k:{k}|")


def test_a_measure_on_trec_runs_is_trec_evals(copies):
    copy = copies("Adding a measure")
    qrels, run = ROOT / "examples" / "trec" / "qrels.txt", ROOT / "examples" / "trec" / "bm25.run"
    ours = copy.ok("success", "--qrels", qrels, "--k", 5, "--output-format", "trec", run)
    report = copy.ok("report", "--qrels", qrels, "-m", "success_5", "--output-format", "trec", run)
    assert ours == report and ours.strip()
    assert "success" in copy.ok("--help")


def test_a_fusion_method(copies, tmp_path):
    copy = copies("Adding a fusion method")
    assert "combsq" in copy.ok("aggregate", "--help")
    code = ("from click.shell_completion import ShellComplete\nfrom rankeval_cli.cli import main\n"
            "c = ShellComplete(main, {}, 'rankeval', '_RANKEVAL_COMPLETE')\n"
            "print(' '.join(i.value for i in c.get_completions(['aggregate', '--method'], 'comb')))")
    complete = copy.python("-c", code)
    assert "combsq" in complete.stdout.split(), complete.stderr
    runs = [tmp_path / "a.run", tmp_path / "b.run"]
    runs[0].write_text("q Q0 d1 1 10 a\nq Q0 d2 2 6 a\nq Q0 d3 3 2 a\n")
    runs[1].write_text("q Q0 d3 1 0.9 b\nq Q0 d4 2 0.5 b\nq Q0 d2 3 0.1 b\n")
    # min-max: a -> d1 1, d2 0.5, d3 0; b -> d3 1, d4 0.5, d2 0: squares summed
    assert copy.ok("aggregate", "--method", "combsq", *runs).splitlines() == [
        "q Q0 d3 1 1.0 combsq", "q Q0 d1 2 1.0 combsq", "q Q0 d4 3 0.25 combsq", "q Q0 d2 4 0.25 combsq"]


def test_an_input_format(copies, tmp_path):
    copy = copies("Adding an input format")
    lists = tmp_path / "lists.txt"
    lists.write_text("s1\tA B C\n\ns2\tC A\n")
    assert copy.ok("convert", "--from", "ranklist", lists).splitlines() == [
        "group\titem\tgold\tpred", "s1\tA\t1\t", "s1\tB\t2\t", "s1\tC\t3\t", "s2\tC\t1\t", "s2\tA\t2\t"]
    assert copy.ok("convert", "--from", "ranklist", "--output-format", "jsonl", "-", input="s\tx y\n") == \
        '{"group": "s", "items": ["x", "y"], "gold": [1, 2], "pred": [null, null]}\n'
    for text, line in (("s1\tA B\ns2 A B\n", 2), ("s1\tA B\ns2\tA B A\n", 2)):
        lists.write_text(text)
        done = copy.rankeval("convert", "--from", "ranklist", lists)
        assert done.returncode == 1 and done.stderr.startswith(f"rankeval: {lists}:{line}: "), done.stderr
        assert "Traceback" not in done.stderr


def test_a_command(copies):
    copy = copies("Adding a command")
    assert "count" in copy.ok("--help")
    stream = "group\titem\tgold\tpred\ng\ta\t1\t\ng\tb\t\t2\nh\ta\t1\t1\n"
    assert copy.ok("count", input=stream) == "groups\titems\tblanks\tmissing_pred\n2\t3\t1\t1\n"
    assert copy.ok("count", "--output-format", "markdown", input=stream).startswith("| groups |")
    done = copy.rankeval("count", "--output-format", "trec", input=stream)
    assert done.returncode == 2
