"""``rankeval completion SHELL``: print the shell-completion script for bash, zsh or fish."""

from __future__ import annotations

import click

from ..vocabulary import SHELLS


@click.command(name="completion")
@click.argument("shell", type=click.Choice(SHELLS))
def command(shell):
    """Print the completion script for SHELL; source it to complete subcommands and options.

    \b
    bash:  eval "$(rankeval completion bash)"        (e.g. in ~/.bashrc)
    zsh:   eval "$(rankeval completion zsh)"         (in ~/.zshrc, after compinit)
    fish:  rankeval completion fish > ~/.config/fish/completions/rankeval.fish
    """
    from click.shell_completion import get_completion_class

    from ..cli import main

    completion = get_completion_class(shell)(main, {}, "rankeval", "_RANKEVAL_COMPLETE")
    click.echo(completion.source())
