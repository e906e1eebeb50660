"""What every path of ``compare`` shares: the statistics options, the systems given as
several runs (``--system NAME=FILE,...``), and the records written from
:func:`rankeval_cli.stats.comparisons.compare`.

Imports only click at top level, like every command module.
"""

from __future__ import annotations

from dataclasses import dataclass

import click

from ..vocabulary import CORRECTIONS, TESTS
from . import _common
from ._groups import option_group


@dataclass(frozen=True)
class ComparisonOptions:
    """--test, --baseline, --all-pairs, --correction, --system: which systems are compared and how."""

    tests: tuple = ()
    baselines: tuple = ()
    all_pairs: bool = False
    correction: str = "none"
    system_specs: tuple = ()

    def settings(self, default_tests, draws):
        """The :class:`~rankeval_cli.stats.comparisons.Settings` of the tests (``default_tests`` when
        --test is not given) with ``draws`` (level, bootstrap, permutations, seed)."""
        from ..stats.comparisons import Settings

        return Settings(tests=tuple(dict.fromkeys(self.tests or default_tests)), level=float(draws.ci),
                        bootstrap=draws.bootstrap, permutations=draws.permutations, seed=draws.seed,
                        correction=self.correction)

    def pairs(self, names, aliases=None) -> list[tuple[int, int]]:
        """The (system, baseline) pairs of the systems ``names`` (:func:`resolve_pairs`)."""
        return resolve_pairs(names, self.baselines, self.all_pairs, aliases)

    def signature_fields(self, stats, pairs, names) -> dict:
        """The comparison's signature fields (:func:`rankeval_cli.stats.records.signature_fields`)."""
        from ..stats.records import signature_fields as fields

        return fields(stats, pairs, names, self.baselines, self.all_pairs)


def _tests(ctx, param, value):
    tests = tuple(v.strip() for text in value for v in text.split(",") if v.strip())
    unknown = [t for t in tests if t not in TESTS]
    if unknown:
        raise click.BadParameter(f"unknown test {unknown[0]!r}; expected one of {', '.join(TESTS)}")
    return tests


def statistics_options(f):
    """--test, --baseline, --all-pairs, --correction, --system (the command's ``comparison``,
    :class:`ComparisonOptions`), --jobs/--scheduler."""
    f = _common.jobs_options(f)
    f = click.option(
        "--system", "system_specs", multiple=True, metavar="NAME=FILE,FILE...",
        help="One system of several runs (their mean)\f"
             "One system of several runs (seeds, folds), compared on their mean.")(f)
    f = click.option(
        "--correction", type=click.Choice(CORRECTIONS), default="none", show_default=True, metavar="METHOD",
        help="Adjust the p-values [default: none]\f" "Adjust the p-values over each measure's comparisons.")(f)
    f = click.option("--all-pairs", is_flag=True, help="Compare every pair of systems.")(f)
    f = click.option(
        "--baseline", "baselines", multiple=True, metavar="NAME",
        help="Compare the others with it [default: the first]\f"
             "Compare the others with this system (repeatable) [default: the first].")(f)
    f = click.option(
        "--test", "tests", multiple=True, callback=_tests, metavar="NAME",
        shell_complete=_common.completion_of(TESTS),
        help="Tests: t, wilcoxon, bootstrap, tukey, ... []\f"
             f"{', '.join(TESTS)} (repeatable) [default: t,wilcoxon,randomization with --qrels, "
             "else bootstrap,randomization].")(f)
    return option_group(f, "comparison", ("tests", "baselines", "all_pairs", "correction", "system_specs"),
                        ComparisonOptions)


def parse_system_specs(specs) -> list[tuple[str, list[str]]]:
    """``NAME=FILE,FILE...`` → (name, files); a malformed spec is a usage error."""
    out = []
    for spec in specs:
        name, sep, files = spec.partition("=")
        paths = [p for p in files.split(",") if p]
        if not sep or not name.strip() or not paths:
            raise click.BadParameter(f"{spec!r}: expected NAME=FILE[,FILE...]", param_hint="'--system'")
        out.append((name.strip(), paths))
    names = [n for n, _ in out]
    if len(set(names)) < len(names):
        raise click.BadParameter("two systems with one name", param_hint="'--system'")
    return out


def resolve_pairs(names, baselines, all_pairs: bool, aliases=None) -> list[tuple[int, int]]:
    """The (system, baseline) pairs of :func:`~rankeval_cli.stats.comparisons.pairs_of` from option values.

    ``aliases`` maps other accepted spellings (e.g. a run's file name) to a system index.
    """
    from ..stats.comparisons import pairs_of

    if all_pairs and baselines:
        raise click.UsageError("give --baseline or --all-pairs, not both")
    index = {name: i for i, name in enumerate(names)}
    index.update(aliases or {})
    chosen = []
    for name in baselines:
        if name not in index:
            raise click.BadParameter(f"{name!r} is not a compared system (systems: {', '.join(map(str, names))})",
                                     param_hint="'--baseline'")
        chosen.append(index[name])
    return pairs_of(len(names), list(dict.fromkeys(chosen)) or [0], all_pairs)


def records(outcome, systems, settings, measure: str, signature, extra=None) -> list[dict]:
    from ..stats.records import records as build

    return build(outcome, systems, settings, measure, signature, extra)


def item_matrices(inputs, column: str, by, require_two: bool = True) -> dict:
    """--items-are-systems: {--by key: (system names, systems × groups matrix)} with the items of every
    group as the systems and ``column`` (pred or an extra column) as their values; fewer than two
    systems is a DataError (``require_two``) or a note."""
    import numpy as np

    from ..errors import DataError
    from ..partition import partitioned
    from ..stats.systems import ItemTable, column_values

    tables: dict = {}
    for key, batch in partitioned(inputs.read(), by):
        if batch.n_rows == 0:
            continue
        if column != "pred" and column not in batch.extra:
            raise DataError(f"--values: no column {column!r} (columns: {', '.join(['pred', *batch.extra])})",
                            batch.source)
        table = tables.get(key) or tables.setdefault(key, ItemTable())
        table.add(batch, column_values(batch, column))
    out = {}
    for key, table in tables.items():
        names, groups, matrix = table.matrix()
        where = f" ({', '.join(f'{k}={v}' for k, v in zip(by, key))})" if by else ""
        if len(names) < 2:
            if require_two:
                raise DataError(f"--items-are-systems: {len(names)} system{'s' * (len(names) != 1)}{where}; "
                                "two or more are compared")
            _common.warn(f"--items-are-systems: one system{where}: nothing to estimate")
            continue
        incomplete = int((~np.isfinite(matrix)).any(axis=0).sum())
        if incomplete:
            _common.warn(f"{incomplete} of {len(groups)} groups{where} lack a value of some system: pairs use "
                         "the groups both have, ES_E, Tukey's HSD and variance estimates the complete ones")
        out[key] = (names, matrix)
    return out
