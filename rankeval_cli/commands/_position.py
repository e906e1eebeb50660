"""Options and paths shared by the rank-position commands (mrr, ndcg, err, rankdcg, report): the
position options as one object, and a measure command's two ways (TREC runs, or the mean over
groups of :mod:`rankeval_cli.stats.group_means`).

Imports only click at top level, like every command module, so ``--help`` stays fast.
"""

from __future__ import annotations


from dataclasses import dataclass, field
from typing import Callable

import click

from .. import vocabulary
from . import _ci, _common, _ir
from ._groups import option_group


@dataclass(frozen=True)
class PositionOptions:
    """--tie-policy, --relevance, --higher-better, --missing-pred, --per-group, --by."""

    tie_policy: str | None = None  # None: the input's default (pessimistic; trec with TREC input)
    relevance: str = "ranks"
    higher_better: bool = False
    missing_pred: str = "drop"
    per_group: bool = False
    by: tuple = ()

    def positions(self):
        """The :class:`~rankeval_cli.settings.Positions` of an MT stream (pessimistic unless given)."""
        from ..settings import Positions

        return Positions(self.tie_policy or vocabulary.DEFAULT_TIE_POLICY, self.relevance, self.higher_better,
                         self.missing_pred)


def position_options(per_group_columns: str):
    """--tie-policy, --relevance, --higher-better, --missing-pred, --per-group (rows of these columns),
    --by: the command's ``position`` (:class:`PositionOptions`)."""
    def decorate(f):
        f = _common.by_option()(f)
        f = click.option(
            "--per-group", is_flag=True,
            help="One row per group; the summary to stderr\f"
                 f"Write one row per group ({per_group_columns}) as it is computed; the summary then "
                 "goes to stderr.")(f)
        f = _tie_and_relevance_options(f)
        return option_group(f, "position", ("tie_policy", "relevance", "higher_better", "missing_pred", "per_group",
                                            "by"), PositionOptions)
    return decorate


def measure_options(per_group_columns: str):
    """The options every rank-position command starts with: inputs, output (summaries, or trec_eval's
    lines), parallel work, the position options (per-group rows of these columns), TREC input."""
    def decorate(f):
        f = _ir.ir_options(f)
        f = position_options(per_group_columns)(f)
        f = _common.jobs_options(f)
        f = _common.output_options(formats=vocabulary.IR_SUMMARY_FORMATS)(f)
        return _common.input_options(f)
    return decorate


def _tie_and_relevance_options(f):
    missing, relevance, ties = vocabulary.MISSING_PRED_OPTION, vocabulary.RELEVANCE_OPTION, vocabulary.TIE_POLICY
    f = click.option(missing.name, type=click.Choice(missing.values), default=missing.default, show_default=True,
                     metavar="RULE", help=missing.help)(f)
    f = _common.higher_better_option()(f)
    f = click.option(relevance.name, type=click.Choice(relevance.values), default=relevance.default,
                     show_default=True, help=relevance.help)(f)
    return click.option(ties.name, type=click.Choice(ties.values), default=None, metavar="POLICY", help=ties.help)(f)


#: click callback: a --rel-max value that ERR can use (n, scale:G or list-max), passed on as text.
check_rel_max = _common.parsed_by("measures.err:parse_rel_max", keep_text=True)


def k_option(help_text: str):
    return click.option("--k", "k", type=click.IntRange(min=1), default=None, metavar="K", help=help_text)


@dataclass(frozen=True)
class MeasureSettings:
    """The option groups of a rank-position measure command."""

    inputs: _common.Inputs
    output: _common.Output
    position: PositionOptions
    ir: _ir.IROptions
    resampling: _ci.ResamplingOptions


@dataclass(frozen=True)
class MeasureCommand:
    """What a measure command computes: the mean over groups of ``kernel`` (a batch kernel of
    rankeval_cli.measures) with its ``options``, its signature's own ``signature`` fields; with TREC
    input the IR measure ``ir_name`` under the IR settings ``ir_options`` (gain, rel_max)."""

    name: str
    kernel: Callable
    ir_name: str
    options: dict = field(default_factory=dict)
    signature: dict = field(default_factory=dict)
    ir_options: dict = field(default_factory=dict)


def run_measure(command: MeasureCommand, settings: MeasureSettings) -> None:
    """A measure command: TREC runs (or a ``convert --from trec`` stream) evaluated as IR runs,
    else the mean over the groups of the stream."""
    route = _ir.route(settings.inputs, settings.ir, output_format=settings.output.format)
    if not route.is_ir:
        return run_mean(command, route.batches, settings)
    _ir.no_by(settings.position.by)
    ir_settings = _ir.ir_settings(settings.position, settings.ir, **command.ir_options)
    _ir.run_ir(_ir.parse_measures([command.ir_name]), route.runs, ir_settings, settings.output,
               settings.position.per_group, settings.resampling.resolved())


def run_mean(command: MeasureCommand, batches, settings: MeasureSettings) -> None:
    """Prepare, score and average every batch, stream the per-group rows, write the mean's summary
    (per ``--by`` key, the key's columns first; with ``--ci`` its bootstrap interval)."""
    from ..partition import partitioned
    from ..signature import exclusion, signature
    from ..stats.group_means import GroupMeans, GroupMeasure, oriented

    option, positions = settings.position, settings.position.positions()
    resampling, output = settings.resampling.resolved(), settings.output
    measure = GroupMeasure(command.name, command.kernel, command.options)
    means = GroupMeans(measure, positions, keep=resampling is not None)
    with output.stream() as out:
        rows_out = _common.record_writer(out, output.format) if option.per_group else None
        for key, batch in partitioned(oriented(batches, option.higher_better, option.relevance), option.by):
            rows = means.add(key, batch, rows=rows_out is not None)
            if rows_out:
                rows_out.write_many(rows)
        if not option.by and not means.summaries:
            means.empty()
        sig = signature(command.name, **command.signature, **positions.signature(),
                        exclude=exclusion(settings.inputs.exclude_systems),
                        **(resampling.signature() if resampling else {}))
        _common.write_summary(out, means.records(option.by, sig, resampling), output.format, option.per_group, rows_out)
    warn_counts(means.blanks, means.missing_pred, positions.missing_pred)


def warn_counts(blanks: int, missing: int, missing_pred: str) -> None:
    if blanks:
        _common.warn(f"skipped {blanks} {'item' if blanks == 1 else 'items'} without a gold value (blanks)")
    if missing:
        what = "ranked them last" if missing_pred == "last" else "skipped them"
        _common.warn(f"{missing} {'item' if missing == 1 else 'items'} without a prediction: {what}")
