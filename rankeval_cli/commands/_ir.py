"""IR evaluation shared by report, mrr, ndcg, err, rankdcg and compare: TREC runs joined
with qrels (``--qrels``), or a canonical stream written by ``convert --from trec``.

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


class Settings:
    """What every IR evaluation needs besides its input; its signature fields."""

    def __init__(self, *, tie_policy=None, rel_level=1, depth=None, all_queries=False, gain=None, rel_max=None,
                 higher_better=False):
        from ..measures.err import parse_rel_max

        self.tie_policy = tie_policy or "trec"
        self.rel_level, self.depth, self.all_queries = rel_level, depth, all_queries
        self.gain = gain or "linear"
        kind, top = parse_rel_max(rel_max, "grades") if rel_max else ("scale", 4.0)
        if kind != "scale":
            raise click.BadParameter("with TREC input ERR needs a fixed scale: --rel-max scale:G",
                                     param_hint="'--rel-max'")
        self.rel_max = top
        self.higher_better = higher_better

    def signature(self, measure, **extra) -> str:
        from ..summary import signature

        kind = measure.kind
        return signature(measure.name, ties=self.tie_policy, rel_level=self.rel_level,
                         gain=self.gain if kind == "ndcg" else None,
                         rel_max=f"scale:{self.rel_max:g}" if kind == "err" else None,
                         depth=self.depth, all_queries=self.all_queries or None, **extra)


class RunValues:
    """Per-query values of every measure for one run, accumulated over batches."""

    def __init__(self, label: str):
        self.label = label
        self.qids: list = []
        self.parts: dict = {}
        self.skipped = 0
        self.positive = 0  # judgments with grade > 0 of the evaluated queries (trec_eval -c's num_rel)

    def add(self, qids, values: dict) -> None:
        self.qids.extend(qids)
        for name, v in values.items():
            self.parts.setdefault(name, []).append(v)

    def values(self, name):
        import numpy as np

        parts = self.parts.get(name, [])
        return np.concatenate(parts) if parts else np.zeros(0)

    def sort(self) -> None:
        """Queries in trec_eval's order: query ids sorted by their bytes."""
        import numpy as np

        order = sorted(range(len(self.qids)), key=lambda i: self.qids[i].encode("utf-8"))
        if order != list(range(len(order))):
            index = np.array(order, dtype=np.int64)
            self.qids = [self.qids[i] for i in order]
            self.parts = {name: [self.values(name)[index]] for name in self.parts}


def evaluate(ranking, measures, settings: Settings) -> dict:
    """measure name -> per-query values."""
    from ..errors import DataError
    from ..measures.ir import Evaluator

    evaluator = Evaluator(ranking, tie_policy=settings.tie_policy, rel_level=settings.rel_level,
                          gain=settings.gain, rel_max=settings.rel_max)
    try:
        return {m.name: evaluator.values(m) for m in measures}
    except ValueError as exc:
        raise DataError(str(exc)) from None


def evaluate_runs(files, qrels, measures, settings: Settings, *, input_format="auto", exclude_systems=()):
    """[RunValues] for every run: TREC run files joined with ``qrels``, or the runs of a
    canonical stream (``convert --from trec``)."""
    if qrels:
        return _from_trec(files, qrels, measures, settings)
    return _from_stream(files, measures, settings, input_format, exclude_systems)


def _from_trec(files, qrels_path, measures, settings):
    from ..formats import trec
    from ..measures.ir import ranking_from_joined

    files = list(files) or ["-"]  # no run file: the run on stdin
    if qrels_path == "-" and "-" in files:
        raise click.UsageError("--qrels - and a run on stdin: give the run files (FILES...)")
    qrels = trec.read_qrels(qrels_path)
    out, tags = [], []
    for path in files:
        values, tag = RunValues(path), None
        for joined, run in trec.stream_join(path, qrels, depth=settings.depth, all_queries=settings.all_queries):
            if joined is None:  # the run's queries are scattered: it is read again whole
                values, tag = RunValues(path), None
                continue
            tag = tag or run.tag or None
            ranking = ranking_from_joined(joined)
            values.positive += int((ranking.judged_grade > 0).sum())
            values.add(joined.qids, evaluate(ranking, measures, settings))
            values.skipped += joined.skipped_queries
        values.source, values.label = path, tag or path
        values.sort()
        if values.skipped:
            _common.warn(f"{path}: {values.skipped} queries without qrels skipped (as trec_eval)")
        out.append(values)
        tags.append(values.label)
    if len(set(tags)) < len(tags):  # two files with one tag: name the runs by file
        for values in out:
            values.label = values.source
    return out


def _from_stream(files, measures, settings, input_format, exclude_systems):
    import numpy as np

    from ..measures.ir import ranking_from_rows

    runs: dict = {}
    batches = files.batches if isinstance(files, _Opened) else _common.read_inputs(files, input_format,
                                                                                   exclude_systems)
    for batch in batches:
        labels = batch.extra["run"][batch.offsets[:-1]] if "run" in batch.extra and batch.n_groups else \
            np.full(batch.n_groups, "run", dtype=object)
        for label in dict.fromkeys(labels.tolist()):
            sub = batch.select_groups(labels == label) if len(set(labels.tolist())) > 1 else batch
            pred = -sub.pred if settings.higher_better else sub.pred
            ranking, _ = ranking_from_rows(sub.offsets, sub.gold, pred, sub.item, settings.tie_policy)
            keep = np.ones(ranking.n_queries, dtype=bool)
            if not settings.all_queries:
                keep = np.diff(ranking.offsets) > 0
            if settings.depth is not None or not keep.all():
                ranking = _subset(ranking, keep, settings.depth)
            prefix = f"{label}:"
            qids = [g[len(prefix):] if g.startswith(prefix) else g for g in sub.group[keep].tolist()]
            values = runs.setdefault(label, RunValues(label))
            values.skipped += int((~keep).sum())
            values.positive += int((ranking.judged_grade > 0).sum())
            values.add(qids, evaluate(ranking, measures, settings))
    for values in runs.values():
        values.sort()
    return list(runs.values())


def _subset(ranking, keep, depth):
    """The queries of ``keep``, each ranking cut to its first ``depth`` rows."""
    import numpy as np

    from ..batch import offsets_from_sizes
    from ..measures.ir import Ranking

    sizes = np.diff(ranking.offsets)
    q = ranking.n_queries
    group = np.repeat(np.arange(q), sizes)
    pos = np.arange(len(group)) - ranking.offsets[group]
    rows = keep[group] & (pos < depth if depth is not None else True)
    j_sizes = np.diff(ranking.judged_offsets)
    j_rows = np.repeat(keep, j_sizes)
    return Ranking(offsets_from_sizes(np.bincount(group[rows], minlength=q)[keep]), ranking.rel[rows],
                   ranking.tie_block[rows], offsets_from_sizes(j_sizes[keep]), ranking.judged_grade[j_rows])


def summary_records(runs, measures, settings: Settings, resampling=None) -> list:
    """One record per run and measure: system, measure, value, groups, signature (and an interval)."""
    from . import _position

    records = []
    for run in runs:
        for m in measures:
            values = run.values(m.name)
            record = {"system": run.label, "measure": m.name, "value": _summary(m, run, settings),
                      "groups": len(values)}
            extra = resampling.signature() if resampling is not None and not m.summed else {}
            if resampling is not None:
                interval = (None, None) if m.summed else _position.mean_interval([values], resampling)
                record = _position.with_interval(record, "value", interval)
            record["signature"] = settings.signature(m, **extra)
            records.append(record)
    return records


def per_query_records(run, measures) -> list:
    columns = {m.name: run.values(m.name).tolist() for m in measures}
    return [{"system": run.label, "group": q, **{name: col[i] for name, col in columns.items()}}
            for i, q in enumerate(run.qids)]


def trec_lines(run, measures, per_query: bool, settings) -> str:
    """trec_eval's layout: ``%-22s\\t%s\\t%6.4f`` (counts as integers), per query then ``all``."""
    from ..measures.ir import summary_value

    def fmt(m, value):
        return f"{int(round(value))}" if m.summed else f"{value:6.4f}"

    lines = []
    if per_query:
        columns = {m.name: run.values(m.name).tolist() for m in measures}
        for i, q in enumerate(run.qids):
            for m in measures:
                lines.append(f"{m.name:<22s}\t{q}\t{fmt(m, columns[m.name][i])}")
    for m in measures:
        lines.append(f"{m.name:<22s}\tall\t{fmt(m, _summary(m, run, settings))}")
    return "".join(line + "\n" for line in lines)


def _summary(measure, run, settings) -> float:
    """The ``all`` value; with --all-queries, num_rel's is trec_eval's count of the judgments
    with grade > 0 (whatever --rel-level), as its ``te_calc_avg_num_rel`` computes it."""
    from ..measures.ir import summary_value

    if measure.kind == "num_rel" and settings.all_queries:
        return float(run.positive)
    return summary_value(measure, run.values(measure.name))


def run_ir(measures, *, files, qrels, output, output_format, per_group, settings: Settings, input_format="auto",
           exclude_systems=(), ci=None, bootstrap=None, seed=None):
    """The whole IR evaluation of a command: read, join, evaluate, write."""
    from . import _ci, _position

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
        _position.write_summary(out, summary_records(runs, measures, settings, resampling), output_format,
                                per_group, rows_out)


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
            common = sorted(set(run.qids) & set(base.qids))
            x = _aligned(run, m.name, common)
            b = _aligned(base, m.name, common)
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


def _aligned(run, name, qids):
    import numpy as np

    index = {q: i for i, q in enumerate(run.qids)}
    values = run.values(name)
    return np.array([values[index[q]] for q in qids], dtype=np.float64)
