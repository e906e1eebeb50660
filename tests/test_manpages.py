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
