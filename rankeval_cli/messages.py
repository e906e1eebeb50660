"""Notes for the user on stderr, shared by every stage (no stage imports the commands)."""

from __future__ import annotations

import click


def warn(message: str) -> None:
    """A note for the user on stderr (counts of skipped or excluded rows)."""
    click.echo(f"rankeval: {message}", err=True)
