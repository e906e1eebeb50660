"""The command layer's shape: its functions take at most eight parameters (the option groups reach a
command as settings objects), click command signatures and the public API's keyword options
excepted; the shared option groups are frozen dataclasses; a command's body receives them.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

import rankeval_cli

PACKAGE = Path(rankeval_cli.__file__).resolve().parent
LAYER = sorted([*(PACKAGE / "commands").glob("*.py"), PACKAGE / "api.py", PACKAGE / "cli.py", PACKAGE / "vocabulary.py",
                PACKAGE / "settings.py", PACKAGE / "ir" / "sources.py", PACKAGE / "ir" / "systems.py",
                PACKAGE / "stats" / "group_means.py", PACKAGE / "stats" / "intervals.py",
                PACKAGE / "stats" / "report.py"])
MOST = 8


def _is_click_command(node) -> bool:
    return any(isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and d.func.attr in ("command", "group")
               for d in node.decorator_list)


def _counted(node, path: Path) -> list[str]:
    """The parameters that count: all but self/cls, and for the public API's functions only the
    positional ones (its keyword options are the command line's options)."""
    args = node.args
    positional = [a.arg for a in args.posonlyargs + args.args]
    if positional[:1] in (["self"], ["cls"]):
        positional = positional[1:]
    if path.name == "api.py" and not node.name.startswith("_"):
        return positional
    return positional + [a.arg for a in args.kwonlyargs]


@pytest.mark.parametrize("path", LAYER, ids=[str(p.relative_to(PACKAGE)) for p in LAYER])
def test_no_function_takes_more_than_eight_parameters(path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not _is_click_command(node):
            names = _counted(node, path)
            assert len(names) <= MOST, f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name} takes {len(names)}"


def test_the_shared_option_groups_are_frozen_dataclasses():
    from rankeval_cli import settings
    from rankeval_cli.commands import _ci, _common, _comparison, _ir, _learn, _position, _ranking

    groups = [_common.Inputs, _common.Output, _common.Parallel, _position.PositionOptions, _ir.IROptions,
              _ci.ResamplingOptions, _comparison.ComparisonOptions, _ranking.RankingOptions, _ranking.MethodOptions,
              _learn.ModelOptions, settings.Positions, settings.Resampling]
    for group in groups:
        assert dataclasses.is_dataclass(group) and group.__dataclass_params__.frozen, group


def test_a_measure_command_receives_its_groups():
    """mrr's body takes one object per option group, built from click's parameters."""
    from rankeval_cli.cli import main
    from rankeval_cli.commands import _groups

    command = main.get_command(None, "mrr")
    body = command.callback.__wrapped__
    assert body.__code__.co_varnames[:body.__code__.co_argcount] == ("inputs", "output", "position", "ir", "k",
                                                                     "resampling")
    params = command.make_context("mrr", ["--qrels", "q.txt", "--k", "3"]).params
    built = _groups.packed(getattr(command.callback, _groups.GROUPS), params)
    assert built["ir"].qrels == "q.txt" and built["k"] == 3 and built["position"].tie_policy is None
    assert built["inputs"].files == () and built["output"].format == "tsv"
