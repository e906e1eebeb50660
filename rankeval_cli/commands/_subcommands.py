"""A click group whose subcommands load on demand from their own modules (``learn``, ``spans``)."""

from __future__ import annotations

import importlib

import click


def lazy_group(subcommands: dict) -> type:
    """A :class:`click.Group` class for ``subcommands``: name -> (module under rankeval_cli.commands,
    one-line help); a subcommand's module is imported when it runs, and ``--help`` lists the lines."""

    class LazySubcommands(click.Group):
        def list_commands(self, ctx):
            return list(subcommands)

        def get_command(self, ctx, name):
            if name not in subcommands:
                return None
            from ..helpformat import short_help

            return short_help(importlib.import_module(f"rankeval_cli.commands.{subcommands[name][0]}").command)

        def format_commands(self, ctx, formatter):
            with formatter.section("Commands"):
                formatter.write_dl([(name, subcommands[name][1]) for name in self.list_commands(ctx)])

    return LazySubcommands
