"""``rankeval learn``: a click group whose subcommands live in ``commands/learn_<name>.py``.

Like the top-level group, it imports a subcommand's module only when that subcommand runs.
"""

from __future__ import annotations

import importlib
import importlib.util

import click

#: subcommand name -> one-line help, in the order ``--help`` lists them.
SUBCOMMANDS = {
    "features": "Append sentence-BLEU statistics (sacreBLEU) and intra-set features to each item.",
}


def _module(name: str) -> str:
    return f"rankeval_cli.commands.learn_{name}"


class LearnGroup(click.Group):
    """Subcommands loaded on demand from ``learn_<name>.py``."""

    def list_commands(self, ctx):
        return [name for name in SUBCOMMANDS if importlib.util.find_spec(_module(name)) is not None]

    def get_command(self, ctx, name):
        if name not in SUBCOMMANDS or importlib.util.find_spec(_module(name)) is None:
            return None
        return importlib.import_module(_module(name)).command

    def format_commands(self, ctx, formatter):
        rows = [(name, SUBCOMMANDS[name]) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(name="learn", cls=LearnGroup)
def command():
    """Learning to rank: features for rankers learned from the stream.

    \b
    Example:
      rankeval convert --from jcml --keep-text examples/wmt10-de-en.ref.jcml | rankeval learn features
    """
