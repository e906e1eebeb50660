"""The documentation pages stand alone: their links to definitions resolve, nothing internal is cited."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEFINITIONS = ROOT / "docs" / "definitions.md"


def anchors(markdown: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    out = set()
    for heading in re.findall(r"^#+ (.+)$", markdown, re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        out.add(slug)
    return out


def test_every_link_to_a_definition_resolves():
    targets = anchors(DEFINITIONS.read_text(encoding="utf-8"))
    sources = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "man").glob("*.1"))]
    sources += sorted((ROOT / "rankeval_cli").rglob("*.py"))
    broken = []
    for path in sources:
        text = path.read_text(encoding="utf-8").replace("\\-", "-")  # roff escapes hyphens
        links = re.findall(r"definitions\.md#([\w\-]+)", text)
        if path == DEFINITIONS:
            links += re.findall(r"\]\(#([\w\-]+)\)", text)
        broken += [f"{path.name}: #{a}" for a in links if a not in targets]
    assert not broken, broken


@pytest.mark.parametrize("anchor", ["tau", "penalize", "ignore", "wmt14", "include", "a", "b", "c", "eq",
                                    "acc-eq", "micro-and-macro", "per-group-p", "tau-p", "calibrate-ties",
                                    "normalization", "tie-policy", "pessimistic", "optimistic", "trec", "expected", "mrr",
                                    "ndcg", "gain", "err", "rel-max", "rankdcg", "bph", "average-predicted",
                                    "precision-at-k", "map", "borda", "fv", "ge-others", "gt-others",
                                    "expected-wins", "copeland", "kemeny", "bradley-terry", "rank-ranges",
                                    "clusters", "bootstrap", "paired-bootstrap", "approximate-randomization",
                                    "system-correlation", "spearman-avg", "differences-from-rankeval-2013"])
def test_each_definition_has_its_anchor(anchor):
    assert anchor in anchors(DEFINITIONS.read_text(encoding="utf-8"))


def test_docs_cite_nothing_a_reader_cannot_open():
    """Docs, sources and tests cite papers and pages a reader can open, not working notes."""
    paths = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md", *sorted((ROOT / "rankeval_cli").rglob("*.py")),
             *sorted((ROOT / "tests").glob("*.py"))]
    for path in paths:
        text = path.read_text(encoding="utf-8")
        for pattern in (r"(?i)\bseed 0\d\d\b", r"REFERENCE\.md", r"DESIGN\.md", r"(?i)\bissue #?\d+"):
            if path.name == "test_docs.py" and pattern != r"DESIGN\.md":
                continue  # the patterns themselves
            assert not re.search(pattern, text), f"{path.relative_to(ROOT)}: {pattern}"
