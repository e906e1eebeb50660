"""The man pages in man/ are current with the click definitions."""

from __future__ import annotations

from pathlib import Path

from rankeval_cli.manpage import all_pages

MAN = Path(__file__).resolve().parents[1] / "man"


def test_every_command_has_a_current_page():
    pages = all_pages()
    assert "rankeval.1" in pages and "rankeval-convert.1" in pages
    stale = [name for name, text in pages.items()
             if not (MAN / name).exists() or (MAN / name).read_text(encoding="utf-8") != text]
    extra = sorted({p.name for p in MAN.glob("rankeval*.1")} - set(pages))
    assert not stale and not extra, f"run scripts/gen-man (stale: {stale}, extra: {extra})"


def test_pages_document_every_option():
    pages = all_pages()
    for flag in ("--tied-ranks", "--higher-better", "--exclude-systems", "--output-format"):
        assert flag.replace("-", "\\-") in pages["rankeval-normalize.1"]


def _source_copy(target: Path) -> Path:
    """The checkout's files (tracked and new, not ignored) copied to ``target``, so that
    building does not write into the checkout."""
    import shutil
    import subprocess

    root = MAN.parent
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=root, capture_output=True,
                            text=True)
    if listed.returncode != 0:  # not a git checkout: everything but build products
        shutil.copytree(root, target, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", ".*"))
        return target
    for name in listed.stdout.splitlines():
        if (root / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / name, target / name)
    return target


def test_pip_install_puts_the_man_pages_where_man_finds_them(tmp_path):
    """A non-editable ``pip install .`` into a fresh venv: ``man rankeval`` and ``man rankeval-tau``
    work with the venv's bin on PATH (man-db looks in <bin>/../share/man)."""
    import os
    import shutil
    import subprocess
    import venv

    import pytest

    if shutil.which("man") is None:
        pytest.skip("no man command here")
    source = _source_copy(tmp_path / "src")
    venv.create(tmp_path / "venv", with_pip=True)
    python = tmp_path / "venv" / "bin" / "python"
    installed = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", str(source)],
                               capture_output=True, text=True, timeout=900)
    if installed.returncode != 0 and ("No matching distribution" in installed.stderr
                                      or "Could not find a version" in installed.stderr):
        pytest.skip("pip cannot reach the build requirements (setuptools) from here")
    assert installed.returncode == 0, installed.stderr[-2000:]
    env = dict(os.environ, PATH=f"{python.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    env.pop("MANPATH", None)
    for page in ("rankeval", "rankeval-tau"):
        found = subprocess.run(["man", "-w", page], capture_output=True, text=True, env=env)
        assert found.returncode == 0, found.stderr
        assert Path(found.stdout.strip()).resolve() == (tmp_path / "venv" / "share" / "man" / "man1" /
                                                        f"{page}.1").resolve()
    shown = subprocess.run(["man", "-P", "cat", "rankeval-tau"], capture_output=True, text=True,
                           env=dict(env, MANWIDTH="80"))
    assert shown.returncode == 0 and "tau-variant" in shown.stdout.replace("\u2010", "-")
