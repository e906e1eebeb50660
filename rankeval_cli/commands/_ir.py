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


def measure_option(help_text: str):
    return click.option("-m", "--measure", "measures", multiple=True, metavar="NAME",
                        shell_complete=_complete_measure, help=help_text)


def _complete_measure(ctx, param, incomplete):
    from ..measures.ir import NAMES

    return [n for n in NAMES if n.startswith(incomplete)]


def no_by(by) -> None:
    if by:
        raise click.UsageError("--by does not apply to TREC input: the summaries are per run already")


def is_trec_stream(batch) -> bool:
    """A canonical stream written by ``convert --from trec`` carries a ``run`` column."""
    return "run" in batch.extra


def parse_measures(names, default=DEFAULT_MEASURES):
    """IR measures of the names (``-m``, comma lists); a name that is not one is a usage error."""
    from ..measures.ir import parse, split_names

    names = split_names(names) or list(default)
    out = []
    for name in names:
        measure = parse(name)
        if measure is None:
            raise click.BadParameter(f"{name!r} is not an IR measure (trec_eval or ir_measures name, e.g. map, "
                                     "P_10, ndcg_cut_10, nDCG@10, AP, RR@10, ERR@20)", param_hint="'-m'")
        out.append(measure)
    return out


def Settings(*, tie_policy=None, rel_level=1, depth=None, all_queries=False, gain=None, rel_max=None,
             higher_better=False):
    """The :class:`~rankeval_cli.ir.evaluate.Settings` of the command's options; ``--rel-max``
    other than ``scale:G`` is a usage error with TREC input."""
    from ..ir.evaluate import Settings as IRSettings
    from ..measures.err import parse_rel_max

    kind, top = parse_rel_max(rel_max, "grades") if rel_max else ("scale", 4.0)
    if kind != "scale":
        raise click.BadParameter("with TREC input ERR needs a fixed scale: --rel-max scale:G",
                                 param_hint="'--rel-max'")
    return IRSettings(tie_policy=tie_policy, rel_level=rel_level, depth=depth, all_queries=all_queries, gain=gain,
                      rel_max=top, higher_better=higher_better)


def evaluate_runs(files, qrels, measures, settings, *, input_format="auto", exclude_systems=()):
    """[RunValues] for every run: TREC run files joined with ``qrels``, or the runs of a
    canonical stream (``convert --from trec``)."""
    from ..ir.evaluate import evaluate_stream, evaluate_trec

    if qrels:
        files = list(files) or ["-"]  # no run file: the run on stdin
        if qrels == "-" and "-" in files:
            raise click.UsageError("--qrels - and a run on stdin: give the run files (FILES...)")
        return evaluate_trec(files, qrels, measures, settings, warn=_common.warn)
    batches = files.batches if isinstance(files, _Opened) else _common.read_inputs(files, input_format,
                                                                                   exclude_systems)
    return evaluate_stream(batches, measures, settings)


def run_ir(measures, *, files, qrels, output, output_format, per_group, settings, input_format="auto",
           exclude_systems=(), ci=None, bootstrap=None, seed=None):
    """The whole IR evaluation of a command: read, join, evaluate, write."""
    from ..ir.summaries import per_query_records, summary_records, trec_lines
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

    from ..measures.ir import parse, split_names

    if qrels:
        return True, None
    names = split_names(names)
    batches = iter(_common.read_inputs(files, input_format, exclude_systems))
    first = next(batches, None)
    rest = batches if first is None else itertools.chain([first], batches)
    if first is not None and is_trec_stream(first):
        return True, rest
    ir_only = [n for n in names if parse(n) is not None and n not in mt_names]
    return bool(ir_only) or output_format == "trec", rest


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
    from ..measures.ir import parse

    is_ir, batches = route(files, qrels, (), input_format, exclude_systems, output_format=output_format)
    if not is_ir:
        return batches
    no_by(by)
    settings = Settings(tie_policy=tie_policy, rel_level=rel_level, depth=depth, all_queries=all_queries,
                        gain=gain, rel_max=rel_max, higher_better=scores)
    run_ir([parse(measure)], files=files if batches is None else stream_files(batches), qrels=qrels,
           output=output, output_format=output_format, per_group=per_group, settings=settings,
           input_format=input_format, exclude_systems=exclude_systems, ci=ci, bootstrap=bootstrap, seed=seed)
    return None


COMPARE_MEASURES = ("map", "ndcg_cut_10", "P_10", "recip_rank")


def compare_runs(names, *, files, qrels, output, output_format, tie_policy, rel_level, depth, all_queries, gain,
                 rel_max, higher_better, input_format, exclude_systems, permutations, seed, correction):
    """compare with TREC input: every run against the first, per measure."""
    from ..ir.compare import aligned, common_queries
    from ..measures.ir import summary_value
    from ..stats import paired_queries as pq

    measures = parse_measures(names, COMPARE_MEASURES)
    settings = Settings(tie_policy=tie_policy, rel_level=rel_level, depth=depth, all_queries=all_queries, gain=gain,
                        rel_max=rel_max, higher_better=higher_better)
    runs = evaluate_runs(files, qrels, measures, settings, input_format=input_format,
                         exclude_systems=exclude_systems)
    if len(runs) < 2:
        raise click.UsageError("compare needs two or more runs (the first is the baseline)")
    base = runs[0]
    records = []
    for m in measures:
        rows = []
        for run in runs:
            value = summary_value(m, run.values(m.name))
            row = {"system": run.label, "baseline": base.label, "measure": m.name, "value": value}
            common = common_queries(run, base)
            x = aligned(run, m.name, common)
            b = aligned(base, m.name, common)
            row["delta"] = value - summary_value(m, base.values(m.name))
            if run is base:
                row.update(groups=len(common), wins=None, ties=None, losses=None, p_t=None, p_wilcoxon=None,
                           p_randomization=None)
            else:
                wins, ties, losses = pq.wins_ties_losses(x, b)
                row.update(groups=len(common), wins=wins, ties=ties, losses=losses, p_t=pq.paired_t(x, b)[1],
                           p_wilcoxon=pq.wilcoxon(x, b)[1], p_randomization=pq.randomization(x, b, permutations,
                                                                                             seed))
            rows.append(row)
        if correction != "none":
            for test in ("p_t", "p_wilcoxon", "p_randomization"):
                others = rows[1:]
                adjusted = pq.correct([r[test] for r in others], correction)
                rows[0][f"{test}_adj"] = None
                for r, p in zip(others, adjusted):
                    r[f"{test}_adj"] = p
        for row in rows:
            row["signature"] = settings.signature(m, test="t,wilcoxon,randomization", permutations=permutations,
                                                  seed=seed, correction=None if correction == "none" else correction)
            records.append(row)
    with _common.output_stream(output) as out, _common.record_writer(out, output_format) as writer:
        writer.write_many(records)

