"""``--ci/--bootstrap/--seed`` shared by the summary commands, and what goes into signatures.

Imports only click at top level, like every command module.
"""

from __future__ import annotations

from dataclasses import dataclass

import click

from .. import vocabulary
from ..vocabulary import DEFAULT_LEVEL, DEFAULT_REPLICATES, DEFAULT_SEED
from . import _common


@dataclass(frozen=True)
class CISettings:
    level: float
    replicates: int
    seed: int

    def signature(self) -> dict:
        """Signature fields: ci level, bootstrap replicates, seed."""
        return dict(ci=_level_text(self.level), bootstrap=self.replicates, seed=self.seed)


def _level_text(level: float) -> str:
    return repr(float(level))


def resampling_options(ci_help: str = vocabulary.CI.help, bootstrap_help: str = vocabulary.BOOTSTRAP.help,
                       seed_help: str = vocabulary.SEED.help):
    """--ci LEVEL, --bootstrap N, --seed S, with help for what the command resamples."""
    def decorate(f):
        f = click.option(vocabulary.SEED.name, type=click.IntRange(min=0), default=None, metavar="S",
                         help=seed_help)(f)
        f = click.option(vocabulary.BOOTSTRAP.name, "bootstrap", type=click.IntRange(min=1), default=None,
                         metavar="N", help=bootstrap_help)(f)
        return click.option(vocabulary.CI.name, "ci", type=_common.FiniteFloat(0, 1, min_open=True, max_open=True),
                            default=None, metavar="LEVEL", help=ci_help)(f)
    return decorate


#: --ci, --bootstrap, --seed of the summary commands (intervals of their values)
ci_options = resampling_options()


def resolve(ci: float | None, bootstrap: int | None, seed: int | None) -> CISettings | None:
    """The settings, or None without --ci/--bootstrap; --seed alone is a usage error."""
    if ci is None and bootstrap is None:
        if seed is not None:
            raise click.UsageError("--seed applies to the bootstrap: give --ci LEVEL (or --bootstrap N) too")
        return None
    return CISettings(DEFAULT_LEVEL if ci is None else float(ci), DEFAULT_REPLICATES if bootstrap is None else bootstrap,
                      DEFAULT_SEED if seed is None else seed)


def exclusion(patterns) -> str | None:
    """The --exclude-systems patterns as one signature field (None when there are none)."""
    return ",".join(patterns) if patterns else None
