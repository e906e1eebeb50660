"""The documentation site builds strictly (every link, #anchor and page accounted for) and documents every command.

The build needs the docs extra (MkDocs and its Material theme), which the test extra installs;
without it the build is skipped. The generated command reference is checked without MkDocs.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest

from rankeval_cli.cli import main

ROOT = Path(__file__).resolve().parents[1]


def _hooks():
    spec = importlib.util.spec_from_file_location("mkdocs_hooks", ROOT / "scripts" / "mkdocs_hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _commands() -> dict:
    """page name -> command, for every command and subcommand that `rankeval --help` and the groups list."""
    ctx = click.Context(main, info_name="rankeval")
    out = {}
    for name in main.list_commands(ctx):
        command = out[name] = main.get_command(ctx, name)
        if isinstance(command, click.Group):
            sub_ctx = click.Context(command, info_name=name, parent=ctx)
            out.update({f"{name}-{sub}": command.get_command(sub_ctx, sub) for sub in command.list_commands(sub_ctx)})
    return out


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    pytest.importorskip("mkdocs", reason="the docs extra (pip install -e '.[docs]') is not installed")
    pytest.importorskip("material", reason="the docs extra (pip install -e '.[docs]') is not installed")
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=str(ROOT))
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                             str(ROOT / "mkdocs.yml"), "--site-dir", str(out)],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    return result, out


def test_site_builds_strictly(site):
    result, _ = site
    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-4000:]
    assert not re.search(r"^(WARNING|ERROR)", log, re.M), log[-4000:]


def test_site_has_a_page_for_every_command(site):
    _, out = site
    missing = [name for name in _commands() if not (out / "commands" / name / "index.html").is_file()]
    assert not missing, missing
    tau = (out / "commands" / "tau" / "index.html").read_text(encoding="utf-8")
    assert "--tau-variant" in tau and 'href="../../definitions/#tau"' in tau


def test_site_holds_every_docs_page_and_the_benchmarks(site):
    _, out = site
    pages = [p.stem for p in (ROOT / "docs").glob("*.md") if p.name != "README.md"]
    missing = [p for p in pages + ["benchmarks", "python-reference"] if not (out / p / "index.html").is_file()]
    assert not missing, missing
    assert (out / "index.html").is_file()


def test_command_reference_is_generated_from_click():
    pages = _hooks().command_pages(main)
    assert set(pages) == {"commands/index.md"} | {f"commands/{name}.md" for name in _commands()}
    for name, command in _commands().items():
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden:
                assert param.opts[0] in pages[f"commands/{name}.md"], (name, param.opts)


def test_help_text_escapes_markdown_and_links_the_docs():
    text = _hooks()._text("Drop '_ref' and 'Human-*'; [default: 4]; 2 < 3; see docs/definitions.md#tau.", depth=1)
    assert text == ("Drop '\\_ref' and 'Human-\\*'; \\[default: 4\\]; 2 &lt; 3; "
                    "see [docs/definitions.md#tau](../definitions.md#tau).")


def test_github_lists_start_a_list_after_a_paragraph():
    hooks = _hooks()
    assert hooks.github_lists("Text:\n- a\n- b\n") == "Text:\n\n- a\n- b\n"
    assert hooks.github_lists("```\nx\n- y\n```\n") == "```\nx\n- y\n```\n"
    assert hooks.github_lists("- a\n  b\n- c\n") == "- a\n  b\n- c\n"
