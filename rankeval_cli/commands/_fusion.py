"""The run fusion options of ``rankeval aggregate``, one frozen group, and the fusion itself.

The choices, defaults and help come from the fusion table (rankeval_cli/aggregate/fusion/
table.py), imported only when a value is parsed, completed or the help is shown.
"""

from __future__ import annotations

from dataclasses import dataclass

import click

from ..helpformat import MAN_ONLY
from ..vocabulary import BINARY_FORMATS
from . import _common
from ._groups import option_group

#: the command's parameters that :func:`fusion_options` gathers into one FusionOptions
FIELDS = ("normalization", "params", "rrf_k", "weights", "train_qrels", "depth", "run_tag", "optimize", "qrels",
          "measure", "folds")


@dataclass(frozen=True)
class FusionOptions:
    """The fusion options as given (None: not given)."""

    normalization: str | None = None
    params: tuple = ()
    rrf_k: float | None = None
    weights: tuple | None = None
    train_qrels: str | None = None
    depth: int | None = None
    run_tag: str | None = None
    optimize: bool = False
    qrels: str | None = None
    measure: str | None = None
    folds: int | None = None

    def given(self) -> list[str]:
        """The options given, as they are spelled (for 'goes with a fusion method')."""
        return [f"--{name.replace('_', '-')}" for name in FIELDS if name not in ("depth", "run_tag")
                and getattr(self, name) not in (None, (), False)]


class _Lazy:
    """An iterable of names read from the fusion table when first iterated (completion)."""

    def __init__(self, what: str):
        self.what = what

    def __iter__(self):
        from ..aggregate.fusion import METHODS, NORMALIZATIONS

        return iter(NORMALIZATIONS if self.what == "normalizations" else METHODS)


def parse_normalization(value: str) -> str:
    from ..aggregate.fusion import NORMALIZATIONS

    key = {"zmuv": "z-score", "zscore": "z-score", "min_max": "min-max"}.get(value.lower(), value.lower())
    if key not in NORMALIZATIONS:
        raise ValueError(f"unknown normalization {value!r}; known: {', '.join(NORMALIZATIONS)}")
    return key


def parse_weights(value: str) -> tuple:
    try:
        weights = tuple(float(w) for w in value.split(","))
    except ValueError:
        raise ValueError(f"weights are numbers separated by commas, not {value!r}") from None
    if any(w != w or w in (float("inf"), float("-inf")) for w in weights):
        raise ValueError("weights must be finite")
    return weights


def _params(ctx, param, values):
    out = []
    for value in values:
        for item in value.split(","):
            name, sep, number = item.partition("=")
            if not sep or not name.strip():
                raise click.BadParameter(f"a parameter is NAME=VALUE (e.g. k=60), not {item!r}")
            out.append((name.strip(), number.strip()))
    return tuple(out)


def fusion_options(f):
    """The fusion options (see FusionOptions); the command receives them as ``fusion`` (:mod:`._groups`)."""
    options = [
        click.option("--normalization", default=None, metavar="NAME", callback=_common.parsed_by(
                         "commands._fusion:parse_normalization"), shell_complete=_common.completion_of(
                         _Lazy("normalizations")),
                     help=MAN_ONLY + "Run fusion: normalization of each run's scores per query, for the methods that read "
                          "scores: min-max, min-max-inverted, max, sum, z-score, rank, borda, none [default: "
                          "min-max] (docs/fusion-and-trueskill.md)."),
        click.option("--weights", default=None, metavar="W1,W2,...", callback=_common.parsed_by(
                         "commands._fusion:parse_weights"),
                     help=MAN_ONLY + "Run fusion: one weight per run, in the order of the files, for the "
                          "weighted methods (rrf, wsum, wmnz, mixed, w-borda-fuse, w-condorcet) [default: 1 each]."),
        click.option("--param", "params", multiple=True, metavar="NAME=VALUE", callback=_params,
                     help=MAN_ONLY + "Run fusion: a parameter of the method (k=60 of rrf, gamma of combgmnz, sigma of "
                          "logn-isr, phi of rbc, segments of probfuse, w of slidefuse); repeatable."),
        click.option("--rrf-k", type=_common.FiniteFloat(min=0), default=None, metavar="K",
                     help=MAN_ONLY + "rrf: the constant k of 1/(k + position) (Cormack et al. 2009) "
                          "[default: 60]; the same as --param k=K."),
        click.option("--train-qrels", type=click.Path(dir_okay=False, allow_dash=True), default=None,
                     metavar="QRELS",
                     help=MAN_ONLY + "Run fusion: the qrels the learning methods (probfuse, segfuse, slidefuse, "
                          "posfuse, mapfuse, bayesfuse) estimate from; their topics are the training topics."),
        click.option("--k", "depth", type=click.IntRange(min=1), default=None, metavar="K",
                     help=MAN_ONLY + "Run fusion: keep the first K fused documents of each query [default: all]."),
        click.option("--run-tag", default=None, metavar="TAG",
                     help=MAN_ONLY + "Run fusion: the tag column of the fused TREC run [default: the method name]."),
        click.option("--optimize", is_flag=True,
                     help=MAN_ONLY + "Run fusion: choose the method, normalization, parameters and weights by "
                          "k-fold cross-validation over the topics of --qrels, and report the held-out value of "
                          "the chosen fusion per fold and over all topics against the best single run, with a "
                          "paired t-test and a bootstrap interval of the gain (--ci, --bootstrap, --seed; "
                          "docs/fusion-and-trueskill.md#fusion-tuned-by-cross-validation). --method, when given, "
                          "restricts the search to that method."),
        click.option("--qrels", default=None, type=click.Path(dir_okay=False), metavar="QRELS",
                     help=MAN_ONLY + "--optimize: the qrels that score the fusions (and train the learning "
                          "methods on each fold's training topics)."),
        click.option("--measure", default=None, metavar="NAME",
                     help=MAN_ONLY + "--optimize: the IR measure to maximize (any name of rankeval report --qrels) "
                          "[default: ndcg_cut_10]."),
        click.option("--folds", type=click.IntRange(min=2), default=None, metavar="K",
                     help=MAN_ONLY + "--optimize: the number of folds [default: 5]."),
    ]
    for option in reversed(options):
        f = option(f)
    return option_group(f, "fusion", FIELDS, FusionOptions)


def fusion_of(method: str, options: FusionOptions, n_runs: int):
    """The :class:`~rankeval_cli.aggregate.fusion.Fusion` the options ask for; usage errors named."""
    from ..aggregate.fusion import METHODS, Fusion

    entry = METHODS[method]
    params = {}
    if options.rrf_k is not None:
        if method != "rrf":
            raise click.UsageError("--rrf-k goes with --method rrf (other methods: --param NAME=VALUE)")
        params["k"] = options.rrf_k
    by_name = {p.name: p for p in entry.params}
    for name, text in options.params:
        if name not in by_name:
            known = ", ".join(by_name) or "none"
            raise click.BadParameter(f"{method} has no parameter {name!r} (its parameters: {known})",
                                     param_hint="--param")
        try:
            params[name] = by_name[name].parse(text)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--param") from None
    if options.normalization is not None and not entry.reads_scores:
        raise click.UsageError(f"{method} reads positions, not scores: --normalization does not apply")
    if options.train_qrels is not None and entry.train is None:
        raise click.UsageError(f"{method} learns nothing: --train-qrels goes with "
                               + ", ".join(m.name for m in METHODS.values() if m.train))
    if entry.train is not None and options.train_qrels is None:
        raise click.UsageError(f"{method} learns from training qrels: give --train-qrels QRELS")
    fusion = Fusion(method, options.normalization or "min-max", params, options.weights, options.depth)
    try:
        return fusion.checked(n_runs, trained=entry.train is not None)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


def fuse_and_write(files, output, output_format, method, options: FusionOptions):
    """Fuse TREC runs and write the fused run (TREC, or records with a signature)."""
    from ..aggregate.fusion import METHODS, fuse_files
    from ..formats.trec.write import texts
    from ..restartable_output import restartable
    from ..signature import signature

    if not files:
        raise click.UsageError(f"{method} fuses TREC runs: give the run files")
    tag = options.run_tag or method
    if not tag or any(ch.isspace() for ch in tag):
        raise click.BadParameter("a run tag is one word without spaces", param_hint="--run-tag")
    fusion = fusion_of(method, options, len(files))
    if output_format == "trec":
        with _common.output_stream(output) as out, restartable(out) as sink:
            write_fused(sink, files, fusion, tag, options.train_qrels)
        return
    if output_format in BINARY_FORMATS:  # the run as ir_datasets/ranx columns, its tag in a run column
        from ..formats.arrow_stream import write_run_table

        fused = fuse_files(files, fusion, train_qrels=options.train_qrels, report=_common.warn)
        with _common.output_stream(output) as out:
            write_run_table(out, fused.query, fused.doc, fused.rank, fused.score, tag, output_format)
        return
    fused = fuse_files(files, fusion, train_qrels=options.train_qrels, report=_common.warn)
    entry = METHODS[method]
    shown_params = {k: v for k, v in fusion.params.items()}
    sig = signature("aggregate", method=method, normalization=fusion.normalization if entry.reads_scores else None,
                    **shown_params, weights=",".join(f"{w:g}" for w in fusion.weights) if fusion.weights else None,
                    depth=fusion.depth, runs=len(files))
    with _common.output_stream(output) as out, _common.record_writer(out, output_format) as writer:
        writer.write_many({"group": q, "item": d, "rank": r, "score": s, "signature": sig}
                          for q, d, r, s in zip(texts(fused.query), texts(fused.doc), fused.rank.tolist(),
                                                fused.score.tolist()))


def write_fused(sink, files, fusion, tag: str, train_qrels=None) -> None:
    """The fused run as TREC lines, a block of queries at a time; started over with the runs
    read whole where one is not in query order."""
    from ..aggregate.fusion.blocks import NotByQuery
    from ..aggregate.fusion.files import fused_blocks
    from ..formats.trec.write import run_lines

    def write(whole: bool) -> None:
        for block in fused_blocks(files, fusion, train_qrels, _common.warn, whole):
            sink.write(run_lines(block.query, block.doc, block.rank, block.score, tag))

    try:
        write(False)
    except NotByQuery:
        sink.restart()
        write(True)


def optimize_and_write(files, output, output_format, method, options: FusionOptions, resampling):
    """``aggregate --optimize``: cross-validated choice of a fusion, its held-out gain (records)."""
    from ..aggregate.fusion.evaluation import topics_of
    from ..aggregate.fusion.files import read_stacked
    from ..aggregate.fusion.optimize import configurations, cross_validate
    from ..errors import DataError
    from ..formats.trec.qrels import read_qrels
    from ..signature import signature
    from ..aggregate.fusion.report import optimize_records

    if options.qrels is None:
        raise click.UsageError("--optimize scores fusions against qrels: give --qrels QRELS")
    if len(files) < 2:
        raise click.UsageError("--optimize fuses two or more runs: give the run files")
    for name in ("weights", "params", "rrf_k", "train_qrels", "normalization", "depth"):
        if getattr(options, name) not in (None, ()):
            raise click.UsageError(f"--optimize chooses it: --{name.replace('_', '-')} does not go with it")
    measure, folds = options.measure or "ndcg_cut_10", options.folds or 5
    stacked, qids, docs, coded = read_stacked(files, options.qrels)
    qrels = read_qrels(options.qrels)
    try:
        topics = topics_of(qrels, [qids[c] for c in stacked.queries], measure)
        n_configs = len(configurations(stacked.n_runs, method))
        _common.warn(f"--optimize: {n_configs} configurations, {len(topics.code)} topics in {folds} folds "
                     f"(seed {resampling.seed})")
        results, final = cross_validate(stacked, docs, topics, coded, folds, resampling.seed, method)
    except ValueError as exc:
        raise DataError(str(exc)) from None
    names = [stacked_name(path) for path in files]
    sig = signature("aggregate", optimize=measure, folds=folds, seed=resampling.seed, level=resampling.level,
                    bootstrap=resampling.replicates, runs=len(files))
    records = optimize_records(results, final, names, resampling)
    with _common.output_stream(output) as out, _common.record_writer(out, output_format) as writer:
        writer.write_many({**r, "signature": sig} for r in records)


def stacked_name(path: str) -> str:
    import os

    return os.path.basename(path)
