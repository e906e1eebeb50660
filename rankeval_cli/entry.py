"""The ``rankeval`` console script.

``rankeval trec_eval`` (and ``trec-eval``) is the command people run in shell loops over many
runs, so its path from the shell to the first output line imports neither click nor anything
else the command does not use: its command line is read by :mod:`rankeval_cli.ir.trec_eval_argv`
as trec_eval reads it, and the runs are evaluated directly. Everything else — every other
command, ``-h``, shell completion, a global option before the command name, and any bad command
line (its message then comes from click, as for every command) — goes through the click group
in :mod:`rankeval_cli.cli`.
"""

from __future__ import annotations

import os
import sys

FAST = ("trec_eval", "trec-eval")


def main() -> None:
    args = sys.argv[1:]
    if args and args[0] in FAST and not _click_needed():
        _trec_eval(args[0], args[1:])
        return
    from .cli import main as group

    group()


def _click_needed() -> bool:
    """Settings only click's path applies: shell completion, a line cap from the environment."""
    return "_RANKEVAL_COMPLETE" in os.environ or "RANKEVAL_MAX_LINE_BYTES" in os.environ


def _trec_eval(name: str, args: list) -> None:
    from .exits import run_mapped
    from .ir.trec_eval_argv import ArgError, getopt, settings

    try:
        opts, operands = getopt(args)
        if any(key == "h" for key, _ in opts):
            raise ArgError("help")
        params = settings(opts)
    except ArgError:  # help, or a bad command line: click's path prints them as for every command
        from .cli import main as group

        group()
        return
    from . import executor

    executor.configure(jobs=params.pop("jobs"), scheduler=params.pop("scheduler"))
    run_mapped(_run, name, params, operands)


def _run(name: str, params: dict, operands: list) -> None:
    from .ir.trec_eval_argv import ArgError, run

    try:
        run(params, operands, sys.stdout)
    except ArgError as exc:
        _usage_error(name, exc)
    sys.stdout.flush()


def _usage_error(name: str, exc) -> None:
    """``exc`` printed as click prints a usage error of ``rankeval NAME`` (exit 2)."""
    import click
    from click.utils import _detect_program_name

    from .cli import main as group

    parent = click.Context(group, info_name=_detect_program_name())
    ctx = click.Context(group.get_command(parent, name), info_name=name, parent=parent)
    if exc.hint is None:
        error = click.UsageError(str(exc), ctx)
    else:
        error = click.BadParameter(str(exc), ctx, param_hint=exc.hint)
    sys.stdout.flush()
    error.show()
    sys.exit(error.exit_code)
