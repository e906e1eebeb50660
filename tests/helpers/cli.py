"""rankeval run in-process (click's CliRunner), as the reader and aggregation tests call it."""

from __future__ import annotations

from click.testing import CliRunner

from rankeval_cli.cli import main


def cli(*args):
    """Run ``rankeval`` in-process; the result has exit_code, stdout and stderr."""
    return CliRunner().invoke(main, [str(a) for a in args])


def cli_input(args, text):
    """Run ``rankeval`` in-process with ``text`` on stdin."""
    return CliRunner().invoke(main, args, input=text)


def ok(result):
    """The result, after asserting it exited 0 (stderr and the exception shown when not)."""
    assert result.exit_code == 0, (result.stderr, result.exception)
    return result
