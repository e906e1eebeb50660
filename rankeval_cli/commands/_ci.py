"""``--ci/--bootstrap/--seed``: the resampling options of the summary commands and ``aggregate``.

Imports only click at top level, like every command module.
"""

from __future__ import annotations

from dataclasses import dataclass

import click

from .. import vocabulary
from ..vocabulary import DEFAULT_LEVEL, DEFAULT_REPLICATES, DEFAULT_SEED
from . import _common
from ._groups import option_group


@dataclass(frozen=True)
class ResamplingOptions:
    """--ci LEVEL, --bootstrap N, --seed S as given (None: not given)."""

    ci: float | None = None
    bootstrap: int | None = None
    seed: int | None = None

    def resolved(self):
        """The :class:`~rankeval_cli.settings.Resampling`, or None without --ci/--bootstrap;
        --seed alone is a usage error."""
        from ..settings import Resampling

        if self.ci is None and self.bootstrap is None:
            if self.seed is not None:
                raise click.UsageError("--seed applies to the bootstrap: give --ci LEVEL (or --bootstrap N) too")
            return None
        return Resampling(DEFAULT_LEVEL if self.ci is None else float(self.ci),
                          DEFAULT_REPLICATES if self.bootstrap is None else self.bootstrap,
                          DEFAULT_SEED if self.seed is None else self.seed)


def resampling_options(ci_help: str = vocabulary.CI.help, bootstrap_help: str = vocabulary.BOOTSTRAP.help,
                       seed_help: str = vocabulary.SEED.help):
    """--ci LEVEL, --bootstrap N, --seed S, the command's ``resampling`` (:class:`ResamplingOptions`),
    with help for what the command resamples."""
    def decorate(f):
        f = click.option(vocabulary.SEED.name, type=click.IntRange(min=0), default=None, metavar="S",
                         help=seed_help)(f)
        f = click.option(vocabulary.BOOTSTRAP.name, "bootstrap", type=click.IntRange(min=1), default=None,
                         metavar="N", help=bootstrap_help)(f)
        f = click.option(vocabulary.CI.name, "ci", type=_common.FiniteFloat(0, 1, min_open=True, max_open=True),
                         default=None, metavar="LEVEL", help=ci_help)(f)
        return option_group(f, "resampling", ("ci", "bootstrap", "seed"), ResamplingOptions)
    return decorate


#: --ci, --bootstrap, --seed of the summary commands (intervals of their values)
ci_options = resampling_options()
