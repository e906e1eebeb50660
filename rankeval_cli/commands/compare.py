"""``rankeval compare``: two or more predictions of the same gold, with paired significance tests."""

from __future__ import annotations

import click

from . import _ci, _common, _comparison, _ir
from .tau import variant_option

MEASURES = ("tau", "mrr", "ndcg", "err", "rankdcg")
TIE_POLICIES = ("pessimistic", "optimistic", "expected", "trec")
MISSING_PRED = ("drop", "last", "error")
#: Options that belong to some measures only: option name -> measures.
ONLY_FOR = {"variant": ("tau",), "average": ("tau",), "tie_policy": ("mrr", "ndcg", "err", "rankdcg"),
            "missing_pred": ("mrr", "ndcg", "err", "rankdcg"), "k": ("mrr", "ndcg", "err"),
            "gain": ("ndcg",), "rel_max": ("err",)}


@click.command(name="compare")
@_common.input_options
@_common.output_options(formats=_common.SUMMARY_FORMATS)
@click.option("-m", "--measure", "measure", multiple=True, metavar="NAME", shell_complete=_ir._complete_measure,
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
@variant_option(default=None, help_text="tau: the variant [default: penalize]\f"
                                        "tau: the tau variant, as 'rankeval tau --tau-variant' [default: penalize].")
@click.option("--average", type=click.Choice(("micro", "macro")), default=None,
              help="tau: micro or macro [default: micro]\f"
                   "tau: micro (pooled pair counts; the bootstrap resamples each group's counts) or macro "
                   "[default: micro].")
@click.option("--tie-policy", type=click.Choice(TIE_POLICIES), default=None, metavar="POLICY",
              help="Order of tied predictions [default: pessimistic]\f"
                   "mrr/ndcg/err/rankdcg: order of tied predictions [default: pessimistic; trec with TREC input].")
@click.option("--relevance", type=click.Choice(("ranks", "grades")), default="ranks", show_default=True,
              help="Gold holds ranks or grades [default: ranks]\f"
                   "Gold holds ranks (lower = better) or graded relevance (higher = better).")
@_common.higher_better_option(
    "Values are scores (higher = better), not ranks []\f"
    "Gold and predictions are scores, higher = better (default: ranks, lower = better; with --relevance grades, "
    "gold is grades). A prediction column's ':higher'/':lower' overrides its direction.")
@click.option("--missing-pred", type=click.Choice(MISSING_PRED), default=None, metavar="RULE",
              help="Items without a prediction [default: drop]\f"
                   "mrr/ndcg/err/rankdcg: items without a prediction [default: drop].")
@click.option("--k", "k", type=click.IntRange(min=1), default=None, metavar="K",
              help="mrr, ndcg, err: cut-off [default: none]\f" "mrr/ndcg/err: cut-off [default: whole lists].")
@click.option("--gain", type=click.Choice(("exp", "linear")), default=None, help="ndcg: gain [default: exp].")
@click.option("--rel-max", default=None, callback=_common.parsed_by("measures.err:parse_rel_max", keep_text=True), metavar="MAX",
              shell_complete=_common.completion_of(("n", "list-max", "scale:4", "scale:3", "scale:2")),
              help="err: denominator [default: n; grades: scale:4]\f"
                   "err: denominator 2^rel_max, as 'rankeval err' [default: n with ranks, scale:4 with grades].")
@_common.by_option("One comparison per value of this column\f"
                   "One comparison per value of this extra column (e.g. lp), rows keyed by its value; "
                   "repeatable. The value must be constant within a group.")
@click.option("--ci", type=_common.FiniteFloat(0, 1, min_open=True, max_open=True), default=0.95, show_default=True,
              metavar="LEVEL", help="Level of the intervals [default: 0.95]\f"
                                    "Level of the bootstrap intervals of the scores and differences.")
@click.option("--bootstrap", type=click.IntRange(min=1), default=_ci.DEFAULT_REPLICATES, show_default=True,
              metavar="N", help="Paired bootstrap replicates [default: 1000]\f"
                                "Paired bootstrap replicates (intervals and p_bootstrap).")
@click.option("--permutations", type=click.IntRange(min=1), default=_ci.DEFAULT_REPLICATES, show_default=True,
              metavar="R", help="Randomization trials [default: 1000]\f"
                                "Approximate randomization trials (p_randomization).")
@click.option("--seed", type=click.IntRange(min=0), default=_ci.DEFAULT_SEED, show_default=True, metavar="S",
              help="Seed of all random draws [default: 12345]\f"
                   "Seed of all random draws (recorded in the signature).")
@_common.handle_errors
def command(files, input_format, exclude_systems, output, output_format, measure, pred_columns, variant,
            average, tie_policy, relevance, higher_better, missing_pred, k, gain, rel_max, by, ci, bootstrap,
            permutations, seed, qrels, rel_level, depth, all_queries, doc_groups, correction, tests, baselines,
            all_pairs, system_specs, items_are_systems, value_column):
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
    from ..stats.systems import Scorer

    names = _measure_names(measure, qrels)
    if value_column is not None and not items_are_systems:
        raise click.UsageError("--values applies to --items-are-systems")
    if items_are_systems:
        stats = _comparison.settings_of(tests, _comparison.DEFAULT_MT_TESTS, level=ci, bootstrap=bootstrap,
                                        permutations=permutations, seed=seed, correction=correction)
        _compare_items(files, input_format, exclude_systems, value_column or "pred", higher_better, by, stats,
                       baselines, all_pairs, output, output_format, others=dict(
                           measure=names, qrels=qrels, pred_columns=pred_columns, system=system_specs))
        return
    is_ir, opened = _ir.route(files, qrels, names, input_format, exclude_systems, MEASURES) \
        if pred_columns is None else (False, None)
    if is_ir:
        _ir.no_by(by)
        stats = _comparison.settings_of(tests, _comparison.DEFAULT_IR_TESTS, level=ci, bootstrap=bootstrap,
                                        permutations=permutations, seed=seed, correction=correction)
        _ir.compare_runs(names, files=files if opened is None else _ir.stream_files(opened), qrels=qrels,
                         output=output, output_format=output_format, tie_policy=tie_policy, rel_level=rel_level,
                         depth=depth, all_queries=all_queries, gain=gain, rel_max=rel_max,
                         higher_better=higher_better, input_format=input_format,
                         exclude_systems=exclude_systems, stats=stats, baselines=baselines, all_pairs=all_pairs,
                         system_specs=system_specs, doc_groups=doc_groups)
        return
    if len(names) > 1 or (names and names[0] not in MEASURES):
        raise click.BadParameter(f"one of {', '.join(MEASURES)} (IR measures need TREC input: --qrels)",
                                 param_hint="'--measure'")
    measure = names[0] if names else "tau"
    given = dict(variant=variant, average=average, tie_policy=tie_policy, missing_pred=missing_pred, k=k,
                 gain=gain, rel_max=rel_max)
    for option, measures in ONLY_FOR.items():
        if given[option] is not None and measure not in measures:
            flag = "--tau-variant" if option == "variant" else "--" + option.replace("_", "-")
            raise click.UsageError(f"{flag} applies to --measure {' or '.join(measures)}, not {measure}")
    specs = _comparison.parse_system_specs(system_specs)
    if pred_columns is not None and (len(files) > 1 or specs):
        raise click.UsageError("--pred-columns compares columns of one input; give at most one file and no --system")
    if pred_columns is None and len(files) + len(specs) < 2:
        raise click.UsageError("give two or more files to compare (the first is the baseline), "
                               "or one stream with --pred-columns COL1,COL2")

    from ..partition import keyed

    spec, settings = _measure_spec(measure, relevance, higher_better, given)
    default_higher = higher_better
    if pred_columns is None:
        paths = list(files) + [path for _, group in specs for path in group]
        groups, start = [(f, [i]) for i, f in enumerate(files)], len(files)
        for name, group in specs:
            groups.append((name, list(range(start, start + len(group)))))
            start += len(group)
        directions = [default_higher] * len(paths)
        parts = _score_files(paths, input_format, exclude_systems, spec, directions, by)
    else:
        parts = _score_columns(files, input_format, exclude_systems, spec, pred_columns, default_higher, by)
        groups = [(s.column or s.name, [i]) for i, s in enumerate(pred_columns)]
        directions = [default_higher if s.higher_better is None else s.higher_better for s in pred_columns]
    names = [name for name, _ in groups]
    if not by and not parts:
        parts[()] = [Scorer(spec) for _ in directions]
    stats = _comparison.settings_of(tests, _comparison.DEFAULT_MT_TESTS, level=ci, bootstrap=bootstrap,
                                    permutations=permutations, seed=seed, correction=correction)
    pairs = _comparison.resolve_pairs(names, baselines, all_pairs)
    settings = dict(settings, exclude=_ci.exclusion(exclude_systems))
    with _common.output_stream(output) as out, _common.record_writer(out, output_format) as writer:
        for key, scorers in parts.items():
            results = [s.result() for s in scorers]
            rows = _rows(spec, settings, scorers, results, groups, directions, stats, pairs, baselines, all_pairs)
            writer.write_many(keyed(row, by, key) for row in rows)
            _warn_counts(paths if pred_columns is None else names, results, spec.missing_pred,
                         dict(zip(by, key)))
            if results and min(r["groups"] for r in results) < 2 and stats.bootstrap:
                _common.warn("fewer than two groups: no bootstrap interval or p_bootstrap (a resample of one "
                             "group is the group itself)")


def _compare_items(files, input_format, exclude_systems, column, higher_better, by, stats, baselines, all_pairs,
                   output, output_format, others):
    """--items-are-systems: the items of every group compared on their values over the groups."""
    from ..partition import keyed
    from ..stats import comparisons
    from ..stats.resample import MeanStat
    from ..signature import signature

    given = [f"--{k.replace('_', '-')}" for k, v in others.items() if v]
    if given:
        raise click.UsageError(f"{given[0]} does not apply to --items-are-systems (the items are the systems, "
                               "their pred values the values compared)")
    with _common.output_stream(output) as out, _common.record_writer(out, output_format) as writer:
        for key, (names, matrix) in _comparison.item_matrices(files, input_format, exclude_systems, column,
                                                              by).items():
            values = [_mean(row) for row in matrix]
            systems = comparisons.Systems(names, MeanStat(), list(matrix), values, higher_better=higher_better)
            pairs = _comparison.resolve_pairs(names, baselines, all_pairs)
            outcome = comparisons.compare(systems, pairs, stats)
            sig = signature("items", values=column, higher_better=higher_better,
                            **_comparison.signature_fields(stats, pairs, names, baselines, all_pairs))
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


def _measure_spec(measure, relevance, scores, given):
    """The MeasureSpec and the signature settings of the measure (as its own command prints them)."""
    from ..measures.err import format_rel_max, parse_rel_max
    from ..stats.systems import MeasureSpec

    if measure == "tau":
        spec = MeasureSpec("tau", variant=given["variant"] or "penalize", average=given["average"] or "micro",
                           relevance=relevance, scores=scores)
        settings = dict(ties=spec.variant, avg=spec.average, scores=scores)
        if relevance != "ranks":
            settings["relevance"] = relevance
        return spec, settings
    k = given["k"]
    options, settings = {}, {}
    if measure in ("mrr", "ndcg", "err"):
        options["k"] = settings["k"] = k
    if measure == "ndcg":
        options["gain"] = settings["gain"] = given["gain"] or "exp"
    if measure == "err":
        options["rel_max"] = parse_rel_max(given["rel_max"], relevance)
        settings["rel_max"] = format_rel_max(*options["rel_max"])
    spec = MeasureSpec(measure, tie_policy=given["tie_policy"] or "pessimistic", relevance=relevance,
                       missing_pred=given["missing_pred"] or "drop", scores=scores, kernel_options=options)
    settings.update(ties=spec.tie_policy, relevance=relevance, scores=scores, missing_pred=spec.missing_pred)
    return spec, settings


def _oriented(batch, spec, higher_better: bool, pred):
    return batch.with_values(gold=spec.orient_gold(batch.gold), pred=-pred if higher_better else pred)


def _score_files(files, input_format, exclude_systems, spec, directions, by) -> dict:
    """{--by key: one Scorer per file}, over files holding the same groups in the same order."""
    from ..partition import Partitioner, split_aligned
    from ..stats.systems import Scorer, aligned

    streams = [_common.read_inputs([f], input_format, exclude_systems) for f in files]
    partitioner, parts = Partitioner(by), {}
    for batches in aligned(streams, list(files)):
        for key, subs in split_aligned(partitioner, batches):
            scorers = parts.get(key) or parts.setdefault(key, [Scorer(spec) for _ in files])
            for scorer, batch, higher in zip(scorers, subs, directions):
                scorer.add(_oriented(batch, spec, higher, batch.pred))
    return parts


def _score_columns(files, input_format, exclude_systems, spec, systems, default_higher, by) -> dict:
    """{--by key: one Scorer per prediction column} of one stream."""
    from ..partition import partitioned
    from ..stats.systems import Scorer, column_values, resolve_columns

    parts = {}
    for key, batch in partitioned(_common.read_inputs(files, input_format, exclude_systems), by):
        if batch.n_groups == 0:
            continue
        resolve_columns(systems, batch)
        scorers = parts.get(key) or parts.setdefault(key, [Scorer(spec) for _ in systems])
        for scorer, system in zip(scorers, systems):
            higher = default_higher if system.higher_better is None else system.higher_better
            scorer.add(_oriented(batch, spec, higher, column_values(batch, system.column)))
    return parts


def _rows(spec, settings, scorers, results, groups, directions, stats, pairs, baselines=(), all_pairs=False):
    """One record per system and per compared pair (:func:`rankeval_cli.stats.comparisons.compare`)."""
    import numpy as np

    from ..stats import comparisons
    from ..stats.effect import runs_summary
    from ..signature import signature

    names = [name for name, _ in groups]
    raws, values, counts, runs, undefined = [], [], [], [], {}
    for i, (_, members) in enumerate(groups):
        member_raws = [scorers[j].raw() for j in members]
        raws.append(member_raws[0] if len(members) == 1 else np.mean(np.stack(member_raws), axis=0))
        member_values = [results[j]["value"] for j in members]
        values.append(member_values[0] if len(members) == 1 else float(np.mean(member_values)))
        counts.append(results[members[0]]["groups"] - results[members[0]]["undefined"])  # the groups averaged
        runs.append(runs_summary(member_values, stats.level) if len(members) > 1 else None)
        undefined[i] = {"undefined": results[members[0]]["undefined"]}
    systems = comparisons.Systems(names, spec.stat(), raws, values, groups=counts, runs=runs)
    try:
        outcome = comparisons.compare(systems, pairs, stats)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    fields = _comparison.signature_fields(stats, pairs, names, baselines, all_pairs)
    signatures = [signature(spec.name, **settings, pred="higher" if directions[members[0]] else "lower", **fields)
                  for _, members in groups]
    return _comparison.records(outcome, systems, stats, spec.label, signatures.__getitem__, undefined)


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
