"""What every path of ``compare`` shares: the statistics options, the systems given as
several runs (``--system NAME=FILE,...``), and the records written from
:func:`rankeval_cli.stats.pairwise.compare`.

Imports only click at top level, like every command module.
"""

from __future__ import annotations

import click

from . import _common

#: tests of each path when --test is not given
DEFAULT_IR_TESTS = ("t", "wilcoxon", "randomization")
DEFAULT_MT_TESTS = ("bootstrap", "randomization")


def _tests(ctx, param, value):
    from ..stats.pairwise import TESTS

    tests = tuple(v.strip() for text in value for v in text.split(",") if v.strip())
    unknown = [t for t in tests if t not in TESTS]
    if unknown:
        raise click.BadParameter(f"unknown test {unknown[0]!r}; expected one of {', '.join(TESTS)}")
    return tests


def statistics_options(f):
    """--test, --baseline, --all-pairs, --correction, --system, --jobs/--scheduler."""
    from ..stats.multitest import CORRECTIONS
    from ..stats.pairwise import TESTS

    f = _common.jobs_options(f)
    f = click.option(
        "--system", "system_specs", multiple=True, metavar="NAME=FILE,FILE...",
        help="One system of several runs (seeds, folds), compared on their mean.")(f)
    f = click.option(
        "--correction", type=click.Choice(CORRECTIONS), default="none", show_default=True,
        help="Adjust the p-values over each measure's comparisons.")(f)
    f = click.option("--all-pairs", is_flag=True, help="Compare every pair of systems.")(f)
    f = click.option(
        "--baseline", "baselines", multiple=True, metavar="NAME",
        help="Compare the others with this system (repeatable) [default: the first].")(f)
    return click.option(
        "--test", "tests", multiple=True, callback=_tests, metavar="NAME",
        shell_complete=_common.completion_of(TESTS),
        help=f"{', '.join(TESTS)} (repeatable) [default: t,wilcoxon,randomization with --qrels, "
             "else bootstrap,randomization].")(f)


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
    """The (system, baseline) pairs of :func:`~rankeval_cli.stats.pairwise.pairs_of` from option values.

    ``aliases`` maps other accepted spellings (e.g. a run's file name) to a system index.
    """
    from ..stats.pairwise import pairs_of

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


def settings_of(tests, default_tests, *, level, bootstrap, permutations, seed, correction):
    from ..stats.pairwise import Settings

    return Settings(tests=tuple(dict.fromkeys(tests or default_tests)), level=float(level), bootstrap=bootstrap,
                    permutations=permutations, seed=seed, correction=correction)


def signature_fields(settings, pairs, names) -> dict:
    """The statistics' settings for a signature: tests, resampling, correction and family."""
    baselines = len(set(b for _, b in pairs))
    family = "all-pairs" if len(pairs) == len(names) * (len(names) - 1) // 2 and baselines > 1 \
        else "baseline" if baselines <= 1 else f"{baselines}-baselines"
    return dict(test=",".join(settings.tests), ci=repr(float(settings.level)), bootstrap=settings.bootstrap,
                permutations=settings.permutations, seed=settings.seed,
                correction=None if settings.correction == "none" else settings.correction, family=family)


def records(outcome, systems, settings, measure: str, signature, extra=None) -> list[dict]:
    """One record per row of ``outcome`` (:class:`~rankeval_cli.stats.pairwise.Outcome`).

    ``signature`` is the signature text, or a function of the system index giving it;
    ``extra[i]`` holds columns of system i written before the signature (e.g. ``undefined``).
    """
    from ..stats.pairwise import p_column

    names = systems.names
    with_runs = any(r is not None and r.runs > 1 for r in systems.runs)
    tests = list(settings.tests)
    adjusted = [t for t in tests if any(t in r.p_adj for r in outcome.rows)]
    out = []
    for row in outcome.rows:
        paired = row.baseline is not None
        record = {"system": names[row.system], "baseline": names[row.baseline if paired else row.system],
                  "measure": measure, "value": row.value, "ci_low": row.ci_low, "ci_high": row.ci_high}
        if with_runs:
            runs = systems.runs[row.system]
            record.update(runs=runs.runs if runs else 1, runs_sd=runs.sd if runs else None,
                          runs_ci_low=runs.ci_low if runs else None, runs_ci_high=runs.ci_high if runs else None)
        record["groups"] = row.groups
        record.update(delta=row.delta, delta_ci_low=row.delta_ci_low, delta_ci_high=row.delta_ci_high)
        if systems.per_topic:
            effect = row.effect
            wtl = row.wins_ties_losses or (None, None, None)
            record.update(delta_t_ci_low=effect.ci_low if effect else None,
                          delta_t_ci_high=effect.ci_high if effect else None,
                          d_z=effect.d_z if effect else None, g_z=effect.g_z if effect else None, es_e=row.es_e,
                          wins=wtl[0], ties=wtl[1], losses=wtl[2])
        for test in tests:
            record[p_column(test)] = row.p.get(test) if paired else None
        for test in adjusted:
            record[p_column(test) + "_adj"] = row.p_adj.get(test) if paired else None
        record["family"] = row.family
        record.update((extra or {}).get(row.system, {}))
        record["signature"] = signature(row.system) if callable(signature) else signature
        out.append(record)
    return out



def item_matrices(files, input_format, exclude_systems, column: str, by) -> dict:
    """--items-are-systems: {--by key: (system names, systems × groups matrix)} with the items of every
    group as the systems and ``column`` (pred or an extra column) as their values."""
    import numpy as np

    from ..errors import DataError
    from ..partition import partitioned
    from ..stats.systems import ItemTable, column_values

    tables: dict = {}
    for key, batch in partitioned(_common.read_inputs(files, input_format, exclude_systems), by):
        if column != "pred" and batch.n_groups and column not in batch.extra:
            raise DataError(f"--values: no column {column!r} (columns: {', '.join(['pred', *batch.extra])})",
                            batch.source)
        table = tables.get(key) or tables.setdefault(key, ItemTable())
        table.add(batch, column_values(batch, column) if batch.n_groups else batch.pred)
    out = {}
    for key, table in tables.items():
        names, groups, matrix = table.matrix()
        where = f" ({', '.join(f'{k}={v}' for k, v in zip(by, key))})" if by else ""
        if len(names) < 2:
            raise DataError(f"--items-are-systems: {len(names)} system{'s' * (len(names) != 1)}{where}; "
                            "two or more are compared")
        incomplete = int((~np.isfinite(matrix)).any(axis=0).sum())
        if incomplete:
            _common.warn(f"{incomplete} of {len(groups)} groups{where} lack a value of some system: pairs use "
                         "the groups both have, ES_E, Tukey's HSD and variance estimates the complete ones")
        out[key] = (names, matrix)
    return out
