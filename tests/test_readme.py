"""Every code block of the README and of the documentation pages runs; the set-up commands match .ci/run.

The pages are README.md, every docs/*.md and BENCHMARKS.md (a page of the site too).
Blocks fenced as ```sh run from the repository root with bash (-e, pipefail), with the
installed ``rankeval`` first on PATH; blocks fenced as ```python run from the repository root
with the test interpreter; ``/tmp/`` in a block stands for a directory of this test run. A block right after the comment
``<!-- not run by tests/test_readme.py: REASON -->`` is skipped (the set-up commands, which
.ci/run runs itself; a server); a block that reads ``../shared/`` is skipped when
``../shared/data`` is not beside the checkout, and one that runs a peer program beside
rankeval to show the same output (NIST's ``trec_eval``) when that program is not installed.
Any other fence must name a language that is only shown (``text``, ``tsv``, ...), so that
nothing meant to run is skipped unnoticed. The doctest examples of the Python API, which the
site shows, run as doctests.
"""

from __future__ import annotations

import doctest
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "BENCHMARKS.md"]
SKIP_MARK = "<!-- not run by tests/test_readme.py"
RUN = {"sh", "python"}
SHOWN = {"text", "tsv", "json", "jsonl", "xml", "latex", "markdown", "pycon", "diff"}
FENCE = re.compile(r"^(?P<indent> {0,4})(?P<fence>```+|~~~+)\s*(?P<lang>[^\s`]*)\s*$")


@dataclass(frozen=True)
class Block:
    page: str  # path from the repository root
    line: int  # line of the opening fence
    lang: str
    body: str
    skipped: bool  # right after the skip marker

    @property
    def id(self) -> str:
        first = self.body.splitlines()[0] if self.body else ""
        return f"{self.page}:{self.line}: {first[:50]}"


def fenced_blocks(path: Path) -> list[Block]:
    """Every fenced block of a Markdown page, with the line before it (for the skip marker)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out, i = [], 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent, fence = len(opening.group("indent")), opening.group("fence")
        end = i + 1
        while end < len(lines) and not (lines[end].strip().startswith(fence[0] * len(fence))
                                        and not lines[end].strip().strip(fence[0])):
            end += 1
        body = "\n".join(line[indent:] for line in lines[i + 1:end])
        before = lines[i - 1] if i else ""
        out.append(Block(str(path.relative_to(ROOT)), i + 1, opening.group("lang").lower(), body,
                         SKIP_MARK in before))
        i = end + 1
    return out


BLOCKS = [block for page in PAGES for block in fenced_blocks(page)]
README_SH = [b for b in BLOCKS if b.page == "README.md" and b.lang == "sh"]
RUNNABLE = [b for b in BLOCKS if b.lang == "sh" and not b.skipped]
PYTHON = [b for b in BLOCKS if b.lang == "python" and not b.skipped]


def test_first_lines_give_exactly_two_setup_commands_and_ci_runs_them():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    setup = README_SH[0]
    assert setup.skipped
    commands = setup.body.splitlines()
    assert len(commands) == 2
    assert readme.index(setup.body) < 400, "the set-up commands must be at the top"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for command in commands:
        assert command in ci.splitlines(), f".ci/run must run exactly: {command}"


def test_readme_stays_a_front_page():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300, f"README.md has {len(lines)} lines; the details belong in docs/"


def test_every_block_runs_or_is_marked_as_shown():
    unknown = [f"{b.page}:{b.line} ```{b.lang}" for b in BLOCKS if b.lang not in RUN | SHOWN]
    assert not unknown, ("fence these as sh or python (they then run in the tests) or, for text that is "
                         f"only shown, as one of {sorted(SHOWN)}: {unknown}")
    skipped = [f"{b.page}:{b.line}" for b in BLOCKS if b.skipped and b.lang not in RUN]
    assert not skipped, f"the skip marker stands before a block that would not run anyway: {skipped}"


def _needs_shared(body: str) -> bool:
    return "../shared/" in body or "scripts/wmt" in body or "scripts/learn-wmt10" in body  # Makefiles default to ../shared/data


#: peer programs a block may run beside rankeval to show the same output (NIST's trec_eval)
PEERS = ("trec_eval",)


def _missing_peer(body: str) -> str | None:
    """The peer program the block runs (as a command, not ``rankeval trec_eval``) that is not on PATH."""
    for peer in PEERS:
        if re.search(rf"(?m)(?:^|[|;&(]\s*){peer}\b", body) and shutil.which(peer) is None:
            return peer
    return None


@pytest.fixture(scope="session")
def docs_tmp(testrun_uid) -> str:
    """The directory that stands for ``/tmp/`` in the blocks: one per test run (shared by the
    blocks of a page, whichever worker runs them), so suites run side by side on one machine
    do not write each other's files."""
    path = Path(tempfile.gettempdir()) / f"rankeval-docs-{testrun_uid}"
    path.mkdir(exist_ok=True)
    return f"{path}/"


@pytest.mark.parametrize("block", PYTHON, ids=[b.id for b in PYTHON])
def test_python_block_runs(block, docs_tmp):
    if _needs_shared(block.body) and not (ROOT.parent / "shared" / "data").is_dir():
        pytest.skip("the block reads ../shared/data, which is not beside this checkout")
    result = subprocess.run([sys.executable, "-c", block.body.replace("/tmp/", docs_tmp)], cwd=ROOT, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, f"{block.id}\n{block.body}\n--- stderr ---\n{result.stderr[-2000:]}"


@pytest.mark.parametrize("block", RUNNABLE, ids=[b.id for b in RUNNABLE])
def test_sh_block_runs(block, docs_tmp):
    if _needs_shared(block.body) and not (ROOT.parent / "shared" / "data").is_dir():
        pytest.skip("the block reads ../shared/data, which is not beside this checkout")
    if _missing_peer(block.body):
        pytest.skip(f"the block runs {_missing_peer(block.body)}, which is not installed")
    rankeval = shutil.which("rankeval") or str(Path(sys.executable).with_name("rankeval"))
    env = dict(os.environ, PATH=f"{Path(rankeval).parent}{os.pathsep}{os.environ['PATH']}")
    result = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block.body.replace("/tmp/", docs_tmp)], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"{block.id}\n{block.body}\n--- stderr ---\n{result.stderr[-2000:]}"
    assert "Traceback" not in result.stderr


def test_python_api_examples_shown_on_the_site_run():
    """The Python API reference page shows the docstrings of ``rankeval_cli.__all__``: their examples run."""
    import rankeval_cli

    finder, runner = doctest.DocTestFinder(recurse=False), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tried = 0
    for name in rankeval_cli.__all__:
        obj = getattr(rankeval_cli, name)
        for test in finder.find(obj, name, globs={"rankeval_cli": rankeval_cli, **vars(sys.modules[obj.__module__])})\
                if callable(obj) else []:
            runner.run(test)
            tried += len(test.examples)
    assert tried > 0
    assert runner.summarize(verbose=False).failed == 0
