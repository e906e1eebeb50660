"""``--ci/--bootstrap/--seed`` shared by the summary commands, and what goes into signatures.

Imports only click at top level, like every command module.
"""

from __future__ import annotations

from dataclasses import dataclass

import click

from . import _common

#: Kept equal to rankeval_cli.stats.resample.DEFAULT_SEED / DEFAULT_REPLICATES (a test checks).
DEFAULT_SEED = 12345
DEFAULT_REPLICATES = 1000


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


def ci_options(f):
    """--ci LEVEL, --bootstrap N, --seed S."""
    f = click.option(
        "--seed", type=click.IntRange(min=0), default=None, metavar="S",
        help="Seed of the bootstrap draws\f"
             f"Seed of the bootstrap draws (recorded in the signature) [default: {DEFAULT_SEED}].")(f)
    f = click.option(
        "--bootstrap", "bootstrap", type=click.IntRange(min=1), default=None, metavar="N",
        help="Bootstrap replicates [default: 1000]\f"
             f"Bootstrap replicates for --ci [default: {DEFAULT_REPLICATES}]; given alone it implies --ci 0.95.")(f)
    return click.option(
        "--ci", "ci", type=_common.FiniteFloat(0, 1, min_open=True, max_open=True), default=None, metavar="LEVEL",
        help="Bootstrap intervals at this level (e.g. 0.95)\f"
             "Add a percentile bootstrap confidence interval at this level (e.g. 0.95) to every summary "
             "value: groups are resampled with replacement, from per-group statistics kept in memory "
             "(a few numbers per group; the input is read once).")(f)


def resolve(ci: float | None, bootstrap: int | None, seed: int | None) -> CISettings | None:
    """The settings, or None without --ci/--bootstrap; --seed alone is a usage error."""
    if ci is None and bootstrap is None:
        if seed is not None:
            raise click.UsageError("--seed applies to the bootstrap: give --ci LEVEL (or --bootstrap N) too")
        return None
    return CISettings(0.95 if ci is None else float(ci), DEFAULT_REPLICATES if bootstrap is None else bootstrap,
                      DEFAULT_SEED if seed is None else seed)


def exclusion(patterns) -> str | None:
    """The --exclude-systems patterns as one signature field (None when there are none)."""
    return ",".join(patterns) if patterns else None
