"""``rankeval compare``: two or more predictions of the same gold, with paired significance tests."""

from __future__ import annotations

from dataclasses import dataclass

import click

from ..vocabulary import (COMPARED_MEASURES, DEFAULT_GAIN, DEFAULT_IR_TESTS, DEFAULT_LEVEL, DEFAULT_MT_TESTS,
                          DEFAULT_REPLICATES, DEFAULT_SEED, DEFAULT_TAU_VARIANT, DEFAULT_TIE_POLICY, GAINS,
                          IR_COMPARE_MEASURES, MISSING_PRED, POSITION_MEASURES, REL_MAX_VALUES, RELEVANCE,
                          SUMMARY_FORMATS, TAU_AVERAGES, TIE_POLICIES)
from . import _common, _comparison, _ir, _position
from ._groups import option_group
from .tau import variant_option

MEASURES = COMPARED_MEASURES
#: Options that belong to some measures only: option name -> measures.
ONLY_FOR = {"variant": ("tau",), "average": ("tau",), "tie_policy": POSITION_MEASURES,
            "missing_pred": POSITION_MEASURES, "k": ("mrr", "ndcg", "err"),
            "gain": ("ndcg",), "rel_max": ("err",)}


@dataclass(frozen=True)
class Scoring:
    """How each system is scored: the measure's options as its own command takes them (None: not
    given), and whether the values are scores."""

    variant: str | None = None
    average: str | None = None
    tie_policy: str | None = None
    relevance: str = "ranks"
    higher_better: bool = False
    missing_pred: str | None = None
    k: int | None = None
    gain: str | None = None
    rel_max: str | None = None

    def given(self) -> dict:
        """The options that belong to some measures only (:data:`ONLY_FOR`), as given."""
        return {name: getattr(self, name) for name in ONLY_FOR}


@dataclass(frozen=True)
class Draws:
    """--ci LEVEL, --bootstrap N, --permutations R, --seed S of the paired tests."""

    ci: float = DEFAULT_LEVEL
    bootstrap: int = DEFAULT_REPLICATES
    permutations: int = DEFAULT_REPLICATES
    seed: int = DEFAULT_SEED


def scoring_options(f):
    """--tau-variant, --average, --tie-policy, --relevance, --higher-better, --missing-pred, --k, --gain,
    --rel-max: the command's ``scoring`` (:class:`Scoring`)."""
    f = click.option("--rel-max", default=None, callback=_position.check_rel_max, metavar="MAX",
                     shell_complete=_common.completion_of(REL_MAX_VALUES),
                     help="err: denominator [default: n; grades: scale:4]\f"
                          "err: denominator 2^rel_max, as 'rankeval err' [default: n with ranks, scale:4 with "
                          "grades].")(f)
    f = click.option("--gain", type=click.Choice(GAINS), default=None, help="ndcg: gain [default: exp].")(f)
    f = click.option("--k", "k", type=click.IntRange(min=1), default=None, metavar="K",
                     help="mrr, ndcg, err: cut-off [default: none]\f"
                          "mrr/ndcg/err: cut-off [default: whole lists].")(f)
    f = click.option("--missing-pred", type=click.Choice(MISSING_PRED), default=None, metavar="RULE",
                     help="Items without a prediction [default: drop]\f"
                          "mrr/ndcg/err/rankdcg: items without a prediction [default: drop].")(f)
    f = _common.higher_better_option(
        "Values are scores (higher = better), not ranks []\f"
        "Gold and predictions are scores, higher = better (default: ranks, lower = better; with --relevance grades, "
        "gold is grades). A prediction column's ':higher'/':lower' overrides its direction.")(f)
    f = click.option("--relevance", type=click.Choice(RELEVANCE), default="ranks", show_default=True,
                     help="Gold holds ranks or grades [default: ranks]\f"
                          "Gold holds ranks (lower = better) or graded relevance (higher = better).")(f)
    f = click.option("--tie-policy", type=click.Choice(TIE_POLICIES), default=None, metavar="POLICY",
                     help="Order of tied predictions [default: pessimistic]\f"
                          "mrr/ndcg/err/rankdcg: order of tied predictions [default: pessimistic; trec with TREC "
                          "input].")(f)
    f = click.option("--average", type=click.Choice(TAU_AVERAGES), default=None,
                     help="tau: micro or macro [default: micro]\f"
                          "tau: micro (pooled pair counts; the bootstrap resamples each group's counts) or macro "
                          "[default: micro].")(f)
    f = variant_option(default=None, help_text="tau: the variant [default: penalize]\f"
                                               "tau: the tau variant, as 'rankeval tau --tau-variant' "
                                               "[default: penalize].")(f)
    return option_group(f, "scoring", ("variant", "average", "tie_policy", "relevance", "higher_better",
                                       "missing_pred", "k", "gain", "rel_max"), Scoring)


def draw_options(f):
    """--ci, --bootstrap, --permutations, --seed: the command's ``draws`` (:class:`Draws`)."""
    f = click.option("--seed", type=click.IntRange(min=0), default=DEFAULT_SEED, show_default=True, metavar="S",
                     help="Seed of all random draws [default: 12345]\f"
                          "Seed of all random draws (recorded in the signature).")(f)
    f = click.option("--permutations", type=click.IntRange(min=1), default=DEFAULT_REPLICATES, show_default=True,
                     metavar="R", help="Randomization trials [default: 1000]\f"
                                       "Approximate randomization trials (p_randomization).")(f)
    f = click.option("--bootstrap", type=click.IntRange(min=1), default=DEFAULT_REPLICATES, show_default=True,
                     metavar="N", help="Paired bootstrap replicates [default: 1000]\f"
                                       "Paired bootstrap replicates (intervals and p_bootstrap).")(f)
    f = click.option("--ci", type=_common.FiniteFloat(0, 1, min_open=True, max_open=True), default=DEFAULT_LEVEL,
                     show_default=True, metavar="LEVEL",
                     help="Level of the intervals [default: 0.95]\f"
                          "Level of the bootstrap intervals of the scores and differences.")(f)
    return option_group(f, "draws", ("ci", "bootstrap", "permutations", "seed"), Draws)


@click.command(name="compare")
@_common.input_options
@_common.output_options(formats=SUMMARY_FORMATS)
@click.option("-m", "--measure", "measure", multiple=True, metavar="NAME", shell_complete=_ir.complete_measure,
              help="Measure [default: tau; TREC: map, P_10, ...]\f"
                   "The measure compared: tau, mrr, ndcg, err or rankdcg, its options below those of its own "
                   "command [default: tau]; with TREC input any IR measures of 'rankeval report' (repeatable, "
                   "comma lists) [default: map, ndcg_cut_10, P_10, recip_rank].")
@_ir.ir_options
@_ir.doc_groups_option
@_comparison.statistics_options
@click.option("--pred-columns", "pred_columns", callback=_common.parsed_by("stats.systems:parse_column_list"), metavar="C1,C2,...",
              help="Columns of one stream to compare\f"
                   "Compare these columns of one stream (the first is the baseline) instead of the pred column "
                   "of several files. 'pred' names the pred column; a name matching no column picks tgt@NAME "
                   "(a JCML item attribute: unk -> tgt@unk) or else the one column ending in '@NAME'. "
                   "Append ':higher' or ':lower' to set a column's direction.")
@click.option("--items-are-systems", "items_are_systems", is_flag=True,
              help="The items of each group are the systems\f"
                   "The items of each group are the systems (MT systems of a segment).")
@click.option("--values", "value_column", default=None, metavar="COLUMN",
              help="--items-are-systems: the values [default: pred].")
@scoring_options
@_common.by_option("One comparison per value of this column\f"
                   "One comparison per value of this extra column (e.g. lp), rows keyed by its value; "
                   "repeatable. The value must be constant within a group.")
@draw_options
@_common.handle_errors
def command(inputs, output, measure, ir, doc_groups, comparison, pred_columns, items_are_systems, value_column,
            scoring, by, draws):
    """Compare systems on the same groups (MT segments, IR queries with --qrels):
    values, differences, effect sizes, p-values.

    Systems are predictions of the same gold (two or more FILES holding the
    same groups and items, or --pred-columns of one stream), TREC runs
    (--qrels), or the items of every group (--items-are-systems: MT systems
    scored per segment); --system NAME=F1,F2 makes one system of several runs.
    Each is compared with the first (--baseline, repeatable; or --all-pairs):
    delta and its bootstrap and t intervals, d_z, g_z, Sakai's ES_E, and the
    p-values of --test, adjusted over the measure's comparisons by
    --correction. Definitions: docs/significance.md.

    \b
    Examples:
      rankeval compare --measure mrr base.tsv sys2.tsv sys3.tsv
      rankeval compare --qrels q.txt -m map --correction holm a.run b.run
      rankeval compare --qrels q.txt --all-pairs --test tukey a.run b.run c.run

    \b
    More examples:
      rankeval convert --from wmt-scores chrF.seg.score.gz | rankeval compare \\
        --items-are-systems --values score --higher-better --by lp
    """
    names = _measure_names(measure, ir.qrels)
    if value_column is not None and not items_are_systems:
        raise click.UsageError("--values applies to --items-are-systems")
    if items_are_systems:
        others = dict(measure=names, qrels=ir.qrels, pred_columns=pred_columns, system=comparison.system_specs)
        given = [f"--{k.replace('_', '-')}" for k, v in others.items() if v]
        if given:
            raise click.UsageError(f"{given[0]} does not apply to --items-are-systems (the items are the systems, "
                                   "their pred values the values compared)")
        _compare_items(inputs, output, value_column or "pred", scoring.higher_better, by,
                       comparison, comparison.settings(DEFAULT_MT_TESTS, draws))
        return
    route = _ir.route(inputs, ir, names, MEASURES) if pred_columns is None else _ir.Route(batches=())
    if route.is_ir:
        _ir.no_by(by)
        settings = _ir.ir_settings(scoring, ir, gain=scoring.gain, rel_max=scoring.rel_max, doc_groups=doc_groups)
        _compare_runs(names, route.runs, settings, output, comparison, comparison.settings(DEFAULT_IR_TESTS, draws))
        return
    if len(names) > 1 or (names and names[0] not in MEASURES):
        raise click.BadParameter(f"one of {', '.join(MEASURES)} (IR measures need TREC input: --qrels)",
                                 param_hint="'--measure'")
    _compare_predictions(names[0] if names else "tau", inputs, output, pred_columns, scoring, by,
                         comparison, comparison.settings(DEFAULT_MT_TESTS, draws))


def _compare_runs(names, runs, settings, output, comparison, stats) -> None:
    """compare with TREC input: the runs (or systems of several runs) compared per measure by
    :func:`rankeval_cli.stats.comparisons.compare`, written by :mod:`._comparison`."""
    from ..ir.systems import system_matrix
    from ..stats import comparisons

    measures = _ir.parse_measures(names, IR_COMPARE_MEASURES)
    summed = [m.name for m in measures if m.summed]
    if summed:
        raise click.BadParameter(f"{summed[0]} is a count summed over queries, not a mean: compare its per-query "
                                 "values from 'rankeval report --per-group'", param_hint="'-m'")
    systems, aliases = _ir.run_systems(runs, measures, settings, comparison.system_specs)
    if len(systems) < 2:
        raise click.UsageError("compare needs two or more runs or --system (the first is the baseline)")
    labels = [name for name, _ in systems]
    pairs = comparison.pairs(labels, aliases)
    records = []
    for m in measures:
        matrix = system_matrix(systems, m, settings)
        outcome = comparisons.compare(matrix, pairs, stats)
        signature = settings.signature(m, **comparison.signature_fields(stats, pairs, labels))
        records.extend(_comparison.records(outcome, matrix, stats, m.name, signature))
    with output.stream() as out, _common.record_writer(out, output.format) as writer:
        writer.write_many(records)


def _compare_predictions(measure, inputs, output, pred_columns, scoring, by, comparison, stats) -> None:
    """Predictions of the same gold (files, or --pred-columns of one stream) scored by ``measure`` and
    compared, per --by key."""
    from ..partition import keyed
    from ..signature import exclusion
    from ..stats.systems import Scorer, systems_of_scorers

    for option, measures in ONLY_FOR.items():
        if scoring.given()[option] is not None and measure not in measures:
            flag = "--tau-variant" if option == "variant" else "--" + option.replace("_", "-")
            raise click.UsageError(f"{flag} applies to --measure {' or '.join(measures)}, not {measure}")
    files, specs = inputs.files, _comparison.parse_system_specs(comparison.system_specs)
    if pred_columns is not None and (len(files) > 1 or specs):
        raise click.UsageError("--pred-columns compares columns of one input; give at most one file and no --system")
    if pred_columns is None and len(files) + len(specs) < 2:
        raise click.UsageError("give two or more files to compare (the first is the baseline), "
                               "or one stream with --pred-columns COL1,COL2")
    spec, settings = _measure_spec(measure, scoring)
    default_higher = scoring.higher_better
    if pred_columns is None:
        paths = list(files) + [path for _, group in specs for path in group]
        groups, start = [(f, [i]) for i, f in enumerate(files)], len(files)
        for name, group in specs:
            groups.append((name, list(range(start, start + len(group)))))
            start += len(group)
        directions = [default_higher] * len(paths)
        parts = _score_files(paths, inputs, spec, directions, by)
    else:
        parts = _score_columns(inputs, spec, pred_columns, default_higher, by)
        groups = [(s.column or s.name, [i]) for i, s in enumerate(pred_columns)]
        directions = [default_higher if s.higher_better is None else s.higher_better for s in pred_columns]
    names = [name for name, _ in groups]
    if not by and not parts:
        parts[()] = [Scorer(spec) for _ in directions]
    pairs = comparison.pairs(names)
    settings = dict(settings, exclude=exclusion(inputs.exclude_systems))
    fields = comparison.signature_fields(stats, pairs, names)
    signatures = [_signature(spec.name, settings, directions[members[0]], fields) for _, members in groups]
    with output.stream() as out, _common.record_writer(out, output.format) as writer:
        for key, scorers in parts.items():
            results = [s.result() for s in scorers]
            systems, undefined = systems_of_scorers(spec, scorers, results, groups, stats.level)
            writer.write_many(keyed(row, by, key) for row in _records(systems, pairs, stats, spec.label,
                                                                       signatures, undefined))
            _warn_counts(paths if pred_columns is None else names, results, spec.missing_pred,
                         dict(zip(by, key)))
            if results and min(r["groups"] for r in results) < 2 and stats.bootstrap:
                _common.warn("fewer than two groups: no bootstrap interval or p_bootstrap (a resample of one "
                             "group is the group itself)")


def _signature(name: str, settings: dict, higher_better: bool, fields: dict) -> str:
    from ..signature import signature

    return signature(name, **settings, pred="higher" if higher_better else "lower", **fields)


def _records(systems, pairs, stats, label: str, signatures: list, undefined: dict) -> list[dict]:
    """One record per system and per compared pair (:func:`rankeval_cli.stats.comparisons.compare`)."""
    from ..stats import comparisons

    try:
        outcome = comparisons.compare(systems, pairs, stats)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    return _comparison.records(outcome, systems, stats, label, signatures.__getitem__, undefined)


def _compare_items(inputs, output, column: str, higher_better: bool, by, comparison, stats) -> None:
    """--items-are-systems: the items of every group compared on their values over the groups."""
    from ..partition import keyed
    from ..signature import signature
    from ..stats import comparisons
    from ..stats.resample import MeanStat

    with output.stream() as out, _common.record_writer(out, output.format) as writer:
        for key, (names, matrix) in _comparison.item_matrices(inputs, column, by).items():
            values = [_mean(row) for row in matrix]
            systems = comparisons.Systems(names, MeanStat(), list(matrix), values, higher_better=higher_better)
            pairs = comparison.pairs(names)
            outcome = comparisons.compare(systems, pairs, stats)
            sig = signature("items", values=column, higher_better=higher_better,
                            **comparison.signature_fields(stats, pairs, names))
            writer.write_many(keyed(row, by, key)
                              for row in _comparison.records(outcome, systems, stats, column, sig))


def _mean(values) -> float:
    import math

    import numpy as np

    v = values[np.isfinite(values)]
    return math.fsum(v.tolist()) / len(v) if len(v) else math.nan


def _measure_names(values, qrels) -> list:
    """``-m`` values split at commas: IR names by the IR grammar (``P.5,10``, ``rND(groups="a,b")``), which
    is loaded only for them."""
    if qrels or any(ch in value for value in values for ch in "(.@_"):
        from ..measures.trec.names import split_names

        return split_names(values)
    return [n for value in values for n in value.split(",") if n.strip()]


def _measure_spec(measure, scoring: Scoring):
    """The MeasureSpec and the signature settings of the measure (as its own command prints them)."""
    from ..measures.err import format_rel_max, parse_rel_max
    from ..stats.systems import MeasureSpec

    relevance, scores = scoring.relevance, scoring.higher_better
    if measure == "tau":
        spec = MeasureSpec("tau", variant=scoring.variant or DEFAULT_TAU_VARIANT, average=scoring.average or "micro",
                           relevance=relevance, scores=scores)
        settings = dict(ties=spec.variant, avg=spec.average, scores=scores)
        if relevance != "ranks":
            settings["relevance"] = relevance
        return spec, settings
    options, settings = {}, {}
    if measure in ONLY_FOR["k"]:
        options["k"] = settings["k"] = scoring.k
    if measure == "ndcg":
        options["gain"] = settings["gain"] = scoring.gain or DEFAULT_GAIN
    if measure == "err":
        options["rel_max"] = parse_rel_max(scoring.rel_max, relevance)
        settings["rel_max"] = format_rel_max(*options["rel_max"])
    spec = MeasureSpec(measure, tie_policy=scoring.tie_policy or DEFAULT_TIE_POLICY, relevance=relevance,
                       missing_pred=scoring.missing_pred or "drop", scores=scores, kernel_options=options)
    settings.update(ties=spec.tie_policy, relevance=relevance, scores=scores, missing_pred=spec.missing_pred)
    return spec, settings


def _oriented(batch, spec, higher_better: bool, pred):
    return batch.with_values(gold=spec.orient_gold(batch.gold), pred=-pred if higher_better else pred)


def _score_files(files, inputs, spec, directions, by) -> dict:
    """{--by key: one Scorer per file}, over files holding the same groups in the same order."""
    from ..partition import Partitioner, split_aligned
    from ..stats.systems import Scorer, aligned

    streams = [_common.read_inputs([f], inputs.format, inputs.exclude_systems) for f in files]
    partitioner, parts = Partitioner(by), {}
    for batches in aligned(streams, list(files)):
        for key, subs in split_aligned(partitioner, batches):
            scorers = parts.get(key) or parts.setdefault(key, [Scorer(spec) for _ in files])
            for scorer, batch, higher in zip(scorers, subs, directions):
                scorer.add(_oriented(batch, spec, higher, batch.pred))
    return parts


def _score_columns(inputs, spec, systems, default_higher, by) -> dict:
    """{--by key: one Scorer per prediction column} of one stream."""
    from ..partition import partitioned
    from ..stats.systems import Scorer, column_values, resolve_columns

    parts = {}
    for key, batch in partitioned(inputs.read(), by):
        if batch.n_groups == 0:
            continue
        resolve_columns(systems, batch)
        scorers = parts.get(key) or parts.setdefault(key, [Scorer(spec) for _ in systems])
        for scorer, system in zip(scorers, systems):
            higher = default_higher if system.higher_better is None else system.higher_better
            scorer.add(_oriented(batch, spec, higher, column_values(batch, system.column)))
    return parts


def _warn_counts(names, results, missing_rule: str, where: dict | None = None) -> None:
    if where:
        names = [f"{name} ({', '.join(f'{k}={v}' for k, v in where.items())})" for name in names]
    blanks = results[0]["blanks"] if results else 0
    if blanks:
        _common.warn(f"skipped {blanks} {'item' if blanks == 1 else 'items'} without a gold value (blanks)")
    for name, result in zip(names, results):
        if result["skipped"]:
            noun = "item" if result["skipped"] == 1 else "items"
            _common.warn(f"{name}: skipped {result['skipped']} {noun} lacking a gold or pred value")
        if result["missing_pred"]:
            noun = "item" if result["missing_pred"] == 1 else "items"
            what = "ranked them last" if missing_rule == "last" else "skipped them"
            _common.warn(f"{name}: {result['missing_pred']} {noun} without a prediction: {what}")
