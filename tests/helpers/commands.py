"""Every command ``rankeval`` lists, subcommands of groups included, with contexts made as
``rankeval`` makes them, so a command added later is covered without being named in a test."""

from __future__ import annotations

import click

from rankeval_cli.cli import main


def context(command, parent=None, name=None):
    """A context as ``rankeval`` makes it (-h/--help), so that click's cached help option is right."""
    return click.Context(command, parent=parent, info_name=name, **getattr(command, "context_settings", {}))


ROOT_CONTEXT = context(main, name="rankeval")


def walk(group=main, prefix=()):
    """(path, command) for every command under ``group``, depth first."""
    ctx = context(group, ROOT_CONTEXT if group is not main else None)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        path = prefix + (name,)
        yield path, command
        if isinstance(command, click.Group):
            yield from walk(command, path)


COMMANDS = list(walk())
IDS = [" ".join(path) for path, _ in COMMANDS]
