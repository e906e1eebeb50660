"""The IR options and paths of report, mrr, ndcg, err, rankdcg and compare: TREC runs joined
with qrels (``--qrels``), or a canonical stream written by ``convert --from trec``, evaluated by
:mod:`rankeval_cli.ir` and written as the command asks.

Imports only click at top level, like every command module.
"""

from __future__ import annotations

import click

from . import _common

#: --measure names of report when the input is TREC and none is given
DEFAULT_MEASURES = ("map", "P_10", "recall_1000", "ndcg", "ndcg_cut_10", "recip_rank", "Rprec", "bpref",
                    "num_ret", "num_rel", "num_rel_ret")


def ir_options(f):
    """--qrels FILE, --rel-level N, --depth N, --all-queries."""
    f = click.option(
        "--all-queries", is_flag=True,
        help="TREC: also average the qrels' other queries (-c)\f"
             "With TREC input: also average over the qrels' queries the run lacks, each with the value of "
             "an empty ranking (trec_eval -c). Default: only queries in both files.")(f)
    f = click.option(
        "--depth", type=click.IntRange(min=1), default=None, metavar="N",
        help="TREC: only the first N documents count (-M)\f"
             "With TREC input: only the first N documents of each ranking count (trec_eval -M).")(f)
    f = click.option(
        "--rel-level", "rel_level", type=click.IntRange(min=0), default=1, show_default=True, metavar="N",
        help="TREC: grade >= N is relevant (-l)\f"
             "With TREC input: grade >= N is relevant for the binary measures (trec_eval -l).")(f)
    return click.option(
        "--qrels", type=click.Path(dir_okay=False, allow_dash=False), default=None, metavar="FILE",
        help="TREC qrels: the FILES are then TREC runs\f"
             "TREC qrels (qid iter docno rel): the FILES are then TREC runs (qid Q0 docno rank score tag), "
             "joined and evaluated as trec_eval does; one summary per run.")(f)


def doc_groups_option(f):
    """--doc-groups FILE: the documents' groups, for the fairness measures (rND, rKL, rRD)."""
    return click.option(
        "--doc-groups", type=click.Path(dir_okay=False), default=None, metavar="FILE",
        help="TREC: documents' groups for rND, rKL, rRD\f"
             "With TREC input: the documents' groups for the fairness measures (rND, rKL, rRD): a tab-separated "
             "file with a header, a docno column and a column per grouping (group_col; default group).")(f)


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
                        shell_complete=_complete_measure, help=help_text)


def _complete_measure(ctx, param, incomplete):
    from ..measures.trec.names import vocabulary

    return [n for n in vocabulary() if n.startswith(incomplete)]


def no_by(by) -> None:
    if by:
        raise click.UsageError("--by does not apply to TREC input: the summaries are per run already")


def is_trec_stream(batch) -> bool:
    """A canonical stream written by ``convert --from trec`` carries a ``run`` column."""
    return "run" in batch.extra


def parse_measures(names, default=DEFAULT_MEASURES):
    """IR measures of the names (``-m``, comma lists; trec_eval and ir_measures spellings,
    sets and parameter lists expand to several); a name that is not one is a usage error
    naming the nearest known names."""
    from ..ir.evaluate import measures_of
    from ..measures.trec.names import UnknownMeasure, split_names

    try:
        return measures_of(split_names(names) or list(default))
    except UnknownMeasure as exc:
        raise click.BadParameter(str(exc), param_hint="'-m'") from None


def Settings(*, tie_policy=None, rel_level=1, depth=None, all_queries=False, gain=None, rel_max=None,
             higher_better=False, doc_groups=None):
    """The :class:`~rankeval_cli.ir.evaluate.Settings` of the command's options; ``--rel-max``
    other than ``scale:G`` is a usage error with TREC input."""
    from ..ir.evaluate import Settings as IRSettings
    from ..measures.err import parse_rel_max

    kind, top = parse_rel_max(rel_max, "grades") if rel_max else ("scale", 4.0)
    if kind != "scale":
        raise click.BadParameter("with TREC input ERR needs a fixed scale: --rel-max scale:G",
                                 param_hint="'--rel-max'")
    return IRSettings(tie_policy=tie_policy, rel_level=rel_level, depth=depth, all_queries=all_queries, gain=gain,
                      rel_max=top, higher_better=higher_better, doc_groups=doc_groups)


def evaluate_runs(files, qrels, measures, settings, *, input_format="auto", exclude_systems=()):
    """[RunValues] for every run: TREC run files joined with ``qrels``, or the runs of a
    canonical stream (``convert --from trec``)."""
    from ..ir.evaluate import evaluate_stream, evaluate_trec, undefined_notes
    from ..measures.trec.engine import without_expected

    if settings.tie_policy == "expected" and without_expected(measures):
        raise click.BadParameter("expected: no expected value over tied scores for "
                                 + "; ".join(without_expected(measures)), param_hint="'--tie-policy'")
    if qrels:
        files = list(files) or ["-"]  # no run file: the run on stdin
        if qrels == "-" and "-" in files:
            raise click.UsageError("--qrels - and a run on stdin: give the run files (FILES...)")
        runs = evaluate_trec(files, qrels, measures, settings, warn=_common.warn)
    else:
        batches = files.batches if isinstance(files, _Opened) else _common.read_inputs(files, input_format,
                                                                                       exclude_systems)
        runs = evaluate_stream(batches, measures, settings)
    for note in undefined_notes(runs, measures):
        _common.warn(note)
    return runs


def run_ir(measures, *, files, qrels, output, output_format, per_group, settings, input_format="auto",
           exclude_systems=(), ci=None, bootstrap=None, seed=None):
    """The whole IR evaluation of a command: read, join, evaluate, write."""
    from ..ir.run_records import per_query_records, summary_records, trec_lines
    from . import _ci, _position

    def attach_interval(record, values):
        interval = (None, None) if values is None else _position.mean_interval([values], resampling)
        return _position.with_interval(record, "value", interval)

    resampling = _ci.resolve(ci, bootstrap, seed)
    runs = evaluate_runs(files, qrels, measures, settings, input_format=input_format,
                         exclude_systems=exclude_systems)
    with _common.output_stream(output) as out:
        if output_format == "trec":
            for run in runs:
                out.write(trec_lines(run, measures, per_group, settings))
            return
        rows_out = None
        if per_group:
            rows_out = _common.record_writer(out, output_format)
            for run in runs:
                rows_out.write_many(per_query_records(run, measures))
        _position.write_summary(out, summary_records(runs, measures, settings, resampling, attach_interval),
                                output_format, per_group, rows_out)


def route(files, qrels, names, input_format="auto", exclude_systems=(), mt_names=(), output_format=None):
    """Decide between the IR path and the MT path of a measure command.

    Returns ``(True, None)`` for TREC runs (``--qrels``) and ``(True, batches)`` for a
    canonical stream of ``convert --from trec`` (it has a ``run`` column) or when an
    ``-m`` name is an IR measure and no MT measure, or the output is trec_eval's layout;
    else ``(False, batches)``. The first batch is read to tell; it is handed back with the rest.
    """
    import itertools

    from ..measures.trec.names import split_names

    if qrels:
        return True, None
    names = split_names(names)
    batches = iter(_common.read_inputs(files, input_format, exclude_systems))
    first = next(batches, None)
    rest = batches if first is None else itertools.chain([first], batches)
    if first is not None and is_trec_stream(first):
        return True, rest
    ir_only = [n for n in names if n not in mt_names and _is_ir_name(n)]
    return bool(ir_only) or output_format == "trec", rest


def _is_ir_name(name: str) -> bool:
    from ..measures.trec.names import UnknownMeasure, parse

    try:
        return bool(parse(name))
    except UnknownMeasure:
        return False


def stream_files(batches):
    """Wrap already-opened batches so :func:`evaluate_runs` reads them instead of files."""
    return _Opened(batches)


class _Opened(list):
    """Marker: batches already read (see :func:`route`)."""

    def __init__(self, batches):
        super().__init__()
        self.batches = batches


def single_measure(measure, *, files, qrels, tie_policy, rel_level, depth, all_queries, scores, input_format,
                   exclude_systems, output, output_format, per_group, ci, bootstrap, seed, gain=None,
                   rel_max=None, by=()):
    """The IR path of mrr, ndcg, err and rankdcg: returns None when it ran, else the
    batches (already opened) for the command's own path."""
    is_ir, batches = route(files, qrels, (), input_format, exclude_systems, output_format=output_format)
    if not is_ir:
        return batches
    no_by(by)
    settings = Settings(tie_policy=tie_policy, rel_level=rel_level, depth=depth, all_queries=all_queries,
                        gain=gain, rel_max=rel_max, higher_better=scores)
    run_ir(parse_measures([measure]), files=files if batches is None else stream_files(batches), qrels=qrels,
           output=output, output_format=output_format, per_group=per_group, settings=settings,
           input_format=input_format, exclude_systems=exclude_systems, ci=ci, bootstrap=bootstrap, seed=seed)
    return None


COMPARE_MEASURES = ("map", "ndcg_cut_10", "P_10", "recip_rank")


def compare_runs(names, *, files, qrels, output, output_format, tie_policy, rel_level, depth, all_queries, gain,
                 rel_max, higher_better, input_format, exclude_systems, stats, baselines=(), all_pairs=False,
                 system_specs=(), doc_groups=None):
    """compare with TREC input: the runs (or systems of several runs) compared per measure by
    :func:`rankeval_cli.stats.comparisons.compare`, written by :mod:`._comparison`."""
    from ..stats import comparisons
    from . import _comparison

    measures = parse_measures(names, COMPARE_MEASURES)
    summed = [m.name for m in measures if m.summed]
    if summed:
        raise click.BadParameter(f"{summed[0]} is a count summed over queries, not a mean: compare its per-query "
                                 "values from 'rankeval report --per-group'", param_hint="'-m'")
    settings = Settings(tie_policy=tie_policy, rel_level=rel_level, depth=depth, all_queries=all_queries, gain=gain,
                        rel_max=rel_max, higher_better=higher_better, doc_groups=doc_groups)
    systems, aliases = run_systems(files, qrels, measures, settings, input_format, exclude_systems, system_specs)
    if len(systems) < 2:
        raise click.UsageError("compare needs two or more runs or --system (the first is the baseline)")
    labels = [name for name, _ in systems]
    pairs = _comparison.resolve_pairs(labels, baselines, all_pairs, aliases)
    records = []
    for m in measures:
        matrix = system_matrix(systems, m, settings)
        outcome = comparisons.compare(matrix, pairs, stats)
        signature = settings.signature(m, **_comparison.signature_fields(stats, pairs, labels, baselines, all_pairs))
        records.extend(_comparison.records(outcome, matrix, stats, m.name, signature))
    with _common.output_stream(output) as out, _common.record_writer(out, output_format) as writer:
        writer.write_many(records)


def run_systems(files, qrels, measures, settings, input_format, exclude_systems, system_specs):
    """[(name, [RunValues])]: every run file (or run of a stream) on its own, then each --system of
    several runs; and {file name: index} for the runs named by their tag."""
    from . import _comparison

    specs = _comparison.parse_system_specs(system_specs)
    if specs and isinstance(files, _Opened):
        raise click.UsageError("--system names run files: give the runs as files with --qrels, not as a stream")
    spec_files = [path for _, paths in specs for path in paths]
    runs = evaluate_runs(list(files) + spec_files if not isinstance(files, _Opened) else files, qrels, measures,
                         settings, input_format=input_format, exclude_systems=exclude_systems)
    single = runs[:len(runs) - len(spec_files)]
    grouped, start = [], len(single)
    for name, paths in specs:
        grouped.append((name, runs[start:start + len(paths)]))
        start += len(paths)
    systems = [(run.label, [run]) for run in single] + grouped
    aliases = {run.source: i for i, (_, group) in enumerate(systems[:len(single)]) for run in group
               if getattr(run, "source", None)}
    _warn_partial_topics(systems)
    return systems, aliases


def system_matrix(systems, measure, settings):
    """:class:`~rankeval_cli.stats.comparisons.Systems` of one measure: per system the per-query values
    (the mean over its runs) on every query any system has, NaN where it has none."""
    import numpy as np

    from ..ir.run_records import summary_value
    from ..stats import comparisons
    from ..stats.effect import runs_summary
    from ..stats.resample import MeanStat

    qids = sorted({q for _, group in systems for run in group for q in run.qids}, key=lambda q: q.encode("utf-8"))
    where = {q: i for i, q in enumerate(qids)}
    raws, values, runs = [], [], []
    for _, group in systems:
        per_run = np.full((len(group), len(qids)), np.nan)
        for r, run in enumerate(group):
            per_run[r, [where[q] for q in run.qids]] = run.values(measure.name)
        raws.append(per_run.mean(axis=0))  # NaN where a run lacks the query
        run_values = [summary_value(measure, run, settings) for run in group]
        values.append(run_values[0] if len(group) == 1 else float(np.mean(run_values)))
        runs.append(runs_summary(run_values) if len(group) > 1 else None)
    return comparisons.Systems([name for name, _ in systems], MeanStat(), raws, values, runs=runs)


def _warn_partial_topics(systems) -> None:
    """A note on stderr when runs hold different queries: pairs use the queries both have."""
    sets = [set(run.qids) for _, group in systems for run in group]
    union = set().union(*sets)
    common = set.intersection(*sets) if sets else set()
    if len(common) < len(union):
        _common.warn(f"the runs hold {len(union)} queries, {len(common)} of them in every run: each pair is "
                     "compared on the queries both have, a system of several runs on the queries all its runs "
                     "have, ES_E and Tukey's HSD on the queries every run has")
