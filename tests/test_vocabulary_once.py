"""Every option's values are written once, in rankeval_cli/vocabulary.py: a tuple, list or set of
the same strings anywhere else in the package is a second copy (import the name instead), the
command modules name their choices instead of spelling them, and docs/vocabulary.md's table of
values is the module's.

Fusion methods and normalizations are the fusion table's (rankeval_cli/aggregate/fusion/table.py),
which the commands read. A dict keyed by a vocabulary's values is not a copy: it is the table of what each value does,
written where it is implemented (a tau variant's formula, a trec_eval -R format's reader).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import rankeval_cli
from rankeval_cli import vocabulary

PACKAGE = Path(rankeval_cli.__file__).resolve().parent
ROOT = PACKAGE.parent
SOURCES = sorted(p for p in PACKAGE.rglob("*.py") if p.name != "vocabulary.py")
COMMANDS = sorted((PACKAGE / "commands").glob("*.py"))


def _strings(node) -> frozenset | None:
    """The values of a tuple, list or set literal of two or more strings (else None)."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and len(node.elts) >= 2 and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        return frozenset(e.value for e in node.elts)
    return None


def _vocabularies() -> dict:
    """values -> the vocabulary's name, for every tuple (and dict, by its keys) of two or more strings."""
    found = {}
    for name, value in vars(vocabulary).items():
        if isinstance(value, (tuple, dict)) and len(value) >= 2 and all(isinstance(v, str) for v in value):
            found.setdefault(frozenset(value), name)
    return found


def _parsed(path: Path):
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def test_the_vocabulary_has_the_shared_names():
    assert vocabulary.TIE_POLICY.values == vocabulary.TIE_POLICIES
    assert {"TIE_POLICIES", "MISSING_PRED", "TAU_VARIANTS", "OBJECTIVES", "RELEVANCE"} <= set(_vocabularies().values())


@pytest.mark.parametrize("path", SOURCES, ids=[str(p.relative_to(PACKAGE)) for p in SOURCES])
def test_no_second_copy_of_a_vocabulary(path):
    known = _vocabularies()
    for node in ast.walk(_parsed(path)):
        values = _strings(node)
        assert values not in known, (f"{path.relative_to(ROOT)}:{node.lineno}: {sorted(values)} is "
                                     f"rankeval_cli.vocabulary.{known[values]}: import it")


def _choice_arguments(tree):
    """(line, argument) of every click.Choice / AliasChoice / completion_of call."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args:
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in ("Choice", "AliasChoice", "completion_of"):
                yield node.lineno, node.args[0]


@pytest.mark.parametrize("path", COMMANDS, ids=[p.name for p in COMMANDS])
def test_commands_name_their_choices(path):
    """A choice list spelled out in a command would be a definition the library, the man page's
    table and the docs cannot read: it belongs in the vocabulary."""
    for line, argument in _choice_arguments(_parsed(path)):
        spelled = isinstance(argument, (ast.Tuple, ast.List, ast.Set)) and not any(
            isinstance(e, ast.Starred) for e in argument.elts)
        assert not spelled, f"{path.relative_to(ROOT)}:{line}: name the choices (rankeval_cli.vocabulary)"


def test_command_constants_repeat_no_library_constant():
    library: dict = {}
    for path in SOURCES:
        if path.parent.name != "commands":
            for node in _parsed(path).body:
                if isinstance(node, ast.Assign) and _strings(node.value):
                    library.setdefault(_strings(node.value), f"{path.relative_to(PACKAGE)}:{node.lineno}")
    for path in COMMANDS:
        for node in _parsed(path).body:
            values = _strings(node.value) if isinstance(node, ast.Assign) else None
            assert values not in library, \
                f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node.targets[0])} repeats {library[values]}"


def test_docs_list_the_vocabulary_values():
    """docs/vocabulary.md's table of values is :func:`vocabulary.markdown_table` (scripts/gen-man writes it)."""
    text = (ROOT / "docs" / "vocabulary.md").read_text(encoding="utf-8")
    start, end = text.index(vocabulary.TABLE_START), text.index(vocabulary.TABLE_END)
    assert text[start + len(vocabulary.TABLE_START):end].strip("\n") == vocabulary.markdown_table().strip("\n"), \
        "docs/vocabulary.md is out of date: run scripts/gen-man"
