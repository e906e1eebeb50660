"""The IR options and paths of report, mrr, ndcg, err, rankdcg, compare and power: TREC runs joined
with qrels (``--qrels``), or a canonical stream written by ``convert --from trec``, evaluated by
:mod:`rankeval_cli.ir` and written as the command asks.

Imports only click at top level, like every command module.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import click

from .. import vocabulary
from ..vocabulary import IR_REPORT_MEASURES
from . import _common
from ._groups import option_group


@dataclass(frozen=True)
class IROptions:
    """--qrels FILE, --rel-level N, --depth N, --all-queries."""

    qrels: str | None = None
    rel_level: int = 1
    depth: int | None = None
    all_queries: bool = False


def ir_options(f):
    """--qrels FILE, --rel-level N, --depth N, --all-queries: the command's ``ir`` (:class:`IROptions`)."""
    f = click.option(vocabulary.ALL_QUERIES.name, is_flag=True, help=vocabulary.ALL_QUERIES.help)(f)
    f = click.option(vocabulary.DEPTH.name, type=click.IntRange(min=1), default=None, metavar="N",
                     help=vocabulary.DEPTH.help)(f)
    f = click.option(vocabulary.REL_LEVEL.name, "rel_level", type=click.IntRange(min=0),
                     default=vocabulary.REL_LEVEL.default, show_default=True, metavar="N",
                     help=vocabulary.REL_LEVEL.help)(f)
    f = click.option(vocabulary.QRELS.name, type=click.Path(dir_okay=False, allow_dash=False), default=None,
                     metavar="FILE", help=vocabulary.QRELS.help)(f)
    return option_group(f, "ir", ("qrels", "rel_level", "depth", "all_queries"), IROptions)


def doc_groups_option(f):
    """--doc-groups FILE: the documents' groups, for the fairness measures (rND, rKL, rRD)."""
    return click.option(vocabulary.DOC_GROUPS.name, type=click.Path(dir_okay=False), default=None, metavar="FILE",
                        help=vocabulary.DOC_GROUPS.help)(f)


def _measure_names() -> str:
    """Every ir_measures name of the registry (read when a help text is shown)."""
    from ..measures.trec.catalogue import help_names

    return help_names()


class MeasureOption(click.Option):
    """``-m``: its full help (man page, docs) ends with every IR measure's ir_measures name."""

    def get_help_record(self, ctx):
        record = super().get_help_record(ctx)
        if record is None or ctx.resilient_parsing:
            return record
        names, text = record
        return names, f"{text} IR measures (ir_measures' names; see docs/measures/index.md): {_measure_names()}."


class MeasureHelp(click.Command):
    """A command whose --help ends with the IR measures' names, read from the registry when shown."""

    def format_epilog(self, ctx, formatter):
        super().format_epilog(ctx, formatter)
        formatter.write_paragraph()
        with formatter.indentation():
            formatter.write_text(f"IR measures (-m, also trec_eval's): {_measure_names()}")


def measure_option(help_text: str):
    return click.option("-m", "--measure", "measures", multiple=True, metavar="NAME", cls=MeasureOption,
                        shell_complete=complete_measure, help=help_text)


def complete_measure(ctx, param, incomplete):
    from ..measures.trec.names import vocabulary as names

    return [n for n in names() if n.startswith(incomplete)]


def no_by(by) -> None:
    if by:
        raise click.UsageError("--by does not apply to TREC input: the summaries are per run already")


def parse_measures(names, default=IR_REPORT_MEASURES):
    """IR measures of the names (``-m``, comma lists; trec_eval and ir_measures spellings,
    sets and parameter lists expand to several); a name that is not one is a usage error
    naming the nearest known names."""
    from ..ir.evaluate import measures_of
    from ..measures.trec.names import UnknownMeasure, split_names

    try:
        return measures_of(split_names(names) or list(default))
    except UnknownMeasure as exc:
        raise click.BadParameter(str(exc), param_hint="'-m'") from None


@dataclass(frozen=True)
class Route:
    """Which way a measure command's input goes: the IR ``runs`` (:class:`rankeval_cli.ir.sources.Runs`),
    or else the MT ``batches`` (already opened)."""

    runs: object = None
    batches: Iterable | None = None

    @property
    def is_ir(self) -> bool:
        return self.runs is not None


def route(inputs, ir: IROptions, names=(), mt_names=(), output_format=None) -> Route:
    """The IR way for TREC runs (--qrels), a ``convert --from trec`` stream, IR measures named by
    ``-m`` (``names``, none of them in ``mt_names``) or trec_eval's layout (``output_format``);
    else the MT way (:func:`rankeval_cli.ir.sources.tell`)."""
    from ..ir.sources import Runs, tell
    from ..measures.trec.names import split_names

    if ir.qrels:
        return Route(runs=Runs(files=tuple(inputs.files), qrels=ir.qrels))
    is_ir, batches = tell(inputs.read(), split_names(names), mt_names, output_format == "trec")
    return Route(runs=Runs(batches=batches)) if is_ir else Route(batches=batches)


def ir_settings(position, ir: IROptions, gain=None, rel_max=None, doc_groups=None):
    """The IR evaluation's :class:`~rankeval_cli.ir.evaluate.Settings` of the command's options
    (``position``: its --tie-policy and --higher-better; ``doc_groups``: --doc-groups); ``--rel-max``
    other than ``scale:G`` is a usage error with TREC input."""
    from ..ir.sources import evaluation_settings

    try:
        return evaluation_settings(tie_policy=position.tie_policy, rel_level=ir.rel_level, depth=ir.depth,
                                   all_queries=ir.all_queries, gain=gain, rel_max=rel_max,
                                   higher_better=position.higher_better, doc_groups=doc_groups)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="'--rel-max'") from None


def evaluate(runs, measures, settings) -> list:
    """[RunValues] of every run, with a note for each measure left undefined on some queries; qrels and
    a run both on stdin, or --tie-policy expected for a measure defined under one order, is a usage
    error."""
    from ..ir.evaluate import undefined_notes
    from ..measures.trec.engine import without_expected

    if settings.tie_policy == "expected" and without_expected(measures):
        raise click.BadParameter("expected: no expected value over tied scores for "
                                 + "; ".join(without_expected(measures)), param_hint="'--tie-policy'")
    if runs.from_files and runs.qrels == "-" and "-" in (list(runs.files) or ["-"]):  # no file: the run on stdin
        raise click.UsageError("--qrels - and a run on stdin: give the run files (FILES...)")
    evaluated = runs.evaluate(measures, settings, warn=_common.warn)
    for note in undefined_notes(evaluated, measures):
        _common.warn(note)
    return evaluated


def run_ir(measures, runs, settings, output, per_group: bool, resampling=None) -> None:
    """The whole IR evaluation of a command: evaluate the ``runs`` under ``settings``, write the
    summaries (and with ``per_group`` each query's values, or trec_eval -q's lines) to ``output``."""
    from ..ir.run_records import per_query_records, summary_records, trec_lines
    from ..stats.intervals import mean_interval, with_interval

    def attach_interval(record, values):
        return with_interval(record, "value", (None, None) if values is None else mean_interval(values, resampling))

    evaluated = evaluate(runs, measures, settings)
    with output.stream() as out:
        if output.format == "trec":
            for run in evaluated:
                out.write(trec_lines(run, measures, per_group, settings))
            return
        rows_out = None
        if per_group:
            rows_out = _common.record_writer(out, output.format)
            for run in evaluated:
                rows_out.write_many(per_query_records(run, measures))
        _common.write_summary(out, summary_records(evaluated, measures, settings, resampling, attach_interval),
                                output.format, per_group, rows_out)


def run_systems(runs, measures, settings, system_specs=()):
    """[(name, [RunValues])] and {file name: index}: every run file (or run of a stream) on its own,
    then each --system of several runs (:func:`rankeval_cli.ir.systems.systems_of`); a note on
    stderr when the runs hold different queries."""
    from ..ir.sources import Runs
    from ..ir.systems import partial_topics, systems_of
    from . import _comparison

    specs = _comparison.parse_system_specs(system_specs)
    if specs and not runs.from_files:
        raise click.UsageError("--system names run files: give the runs as files with --qrels, not as a stream")
    if specs:
        runs = Runs(files=tuple(runs.files) + tuple(path for _, paths in specs for path in paths), qrels=runs.qrels)
    systems, aliases = systems_of(evaluate(runs, measures, settings), specs)
    note = partial_topics(systems)
    if note:
        _common.warn(note)
    return systems, aliases
