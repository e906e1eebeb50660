"""``rankeval compare``: two or more predictions of the same gold, with paired significance tests."""

from __future__ import annotations

import click

from . import _ci, _common, _ir
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
              help="Measure [default: tau; TREC: map, ndcg_cut_10, ...]\f"
                   "The measure compared: tau, mrr, ndcg, err or rankdcg, its options below those of its own "
                   "command [default: tau]; with TREC input any IR measures of 'rankeval report' (repeatable, "
                   "comma lists) [default: map, ndcg_cut_10, P_10, recip_rank].")
@_ir.ir_options
@click.option("--correction", type=click.Choice(("none", "holm", "bonferroni")), default="none", show_default=True,
              metavar="METHOD",
              help="TREC: adjust p-values (p_*_adj) [default: none]\f"
                   "TREC input: adjust each measure's p-values for the comparisons with the baseline (Holm 1979 "
                   "or Bonferroni); adds p_*_adj columns.")
@click.option("--pred-columns", "pred_columns", callback=_common.parsed_by("stats.systems:parse_column_list"), metavar="C1,C2,...",
              help="Columns of one stream to compare\f"
                   "Compare these columns of one stream (the first is the baseline) instead of the pred column "
                   "of several files. 'pred' names the pred column; a name matching no column picks tgt@NAME "
                   "(a JCML item attribute: unk -> tgt@unk) or else the one column ending in '@NAME'. "
                   "Append ':higher' or ':lower' to set a column's direction.")
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
              help="err: denominator, as in rankeval err\f"
                   "err: denominator 2^rel_max, as 'rankeval err' [default: n with ranks, scale:4 with grades].")
@_common.by_option("One comparison per value of this column\f"
                   "One comparison per value of this extra column (e.g. lp), rows keyed by its value; "
                   "repeatable. The value must be constant within a group.")
@click.option("--ci", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.95, show_default=True,
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
            permutations, seed, qrels, rel_level, depth, all_queries, correction):
    """Compare predictions of the same gold: values, differences, intervals and
    p-values, paired by group (MT segments, IR queries with --qrels).

    The inputs are either two or more files holding the same groups and items
    in the same order with the same gold (the first file is the baseline), or
    one stream with --pred-columns naming the prediction columns (the first is
    the baseline). Anything else (a group or item missing, in another order, a
    different gold value) is an error naming the file, line and group.

    One row per prediction: its score (exactly as the measure's own command
    computes it) with a percentile bootstrap interval (ci_low, ci_high); for
    every prediction but the baseline, the difference to the baseline (delta =
    value - baseline value), its interval, and two p-values for "no
    difference":

    \b
      p_bootstrap      paired bootstrap over groups (Koehn 2004): every replicate
                       resamples the groups once for all predictions;
                       p = (1 + #{|d* - d| >= |d|}) / (1 + N), the share of
                       replicates whose difference d*, shifted to the null,
                       is at least as far from 0 as the observed d
                       (for d > 0: d* <= 0, its sign flips, or d* >= 2d)
      p_randomization  paired approximate randomization (Riezler & Maxwell 2005):
                       each group's statistics of the two predictions (for
                       micro tau its pair counts) are swapped with
                       probability 1/2; p = (1 + #{|D*| >= |d|}) / (1 + R)

    Differences within 1e-9 count as equal. The p-values are two-sided; with
    several predictions, each is a separate test against the baseline (no
    correction for multiple comparisons). A prediction's row does not depend
    on which other predictions are compared: every run draws the same groups
    (and swaps) for a given --seed and number of groups.

    With --qrels FILE the FILES are TREC runs (or the input is a stream of
    'rankeval convert --from trec'), the first the baseline: per measure and
    run, the mean, the difference to the baseline, wins/ties/losses over the
    queries both have, and p-values of a paired t-test, a Wilcoxon signed-rank
    test and a randomization test (--permutations, --seed), adjusted with
    --correction holm|bonferroni across the runs.

    \b
    Examples:
      rankeval compare --measure mrr baseline.tsv system2.tsv system3.tsv
      rankeval compare --pred-columns unk,length examples/wmt10-de-en.xf.jcml
      rankeval compare --qrels examples/trec/qrels.txt -m map,nDCG@10 \\
        --correction holm examples/trec/bm25.run examples/trec/dense.run

    \b
    More examples:
      rankeval compare --measure ndcg --k 10 --relevance grades --higher-better \\
        --pred-columns bm25,dense run.tsv
    """
    from ..stats.systems import Scorer

    names = [n for value in measure for n in value.split(",") if n.strip()]
    is_ir, opened = _ir.route(files, qrels, names, input_format, exclude_systems, MEASURES) \
        if pred_columns is None else (False, None)
    if is_ir:
        from ..pipeline import phase

        _ir.no_by(by)
        with phase("paired tests of the runs"):
            _ir.compare_runs(names, files=files if opened is None else _ir.stream_files(opened), qrels=qrels,
                             output=output, output_format=output_format, tie_policy=tie_policy,
                             rel_level=rel_level, depth=depth, all_queries=all_queries, gain=gain,
                             rel_max=rel_max, higher_better=higher_better, input_format=input_format,
                             exclude_systems=exclude_systems, permutations=permutations, seed=seed,
                             correction=correction)
        return
    if correction != "none":
        raise click.UsageError("--correction applies to TREC input (--qrels): several runs, several tests")
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
    if pred_columns is not None and len(files) > 1:
        raise click.UsageError("--pred-columns compares columns of one input; give at most one file")
    if pred_columns is None and len(files) < 2:
        raise click.UsageError("give two or more files to compare (the first is the baseline), "
                               "or one stream with --pred-columns COL1,COL2")

    from ..partition import keyed

    spec, settings = _measure_spec(measure, relevance, higher_better, given)
    default_higher = higher_better
    if pred_columns is None:
        names = list(files)
        directions = [default_higher] * len(names)
        parts = _score_files(files, input_format, exclude_systems, spec, directions, by)
    else:
        parts = _score_columns(files, input_format, exclude_systems, spec, pred_columns, default_higher, by)
        names = [s.column or s.name for s in pred_columns]
        directions = [default_higher if s.higher_better is None else s.higher_better for s in pred_columns]
    if not by and not parts:
        parts[()] = [Scorer(spec) for _ in names]
    resampling = dict(ci=repr(float(ci)), bootstrap=bootstrap, permutations=permutations, seed=seed)
    settings = dict(settings, exclude=_ci.exclusion(exclude_systems))
    with _common.output_stream(output) as out, _common.record_writer(out, output_format) as writer:
        for key, scorers in parts.items():
            results = [s.result() for s in scorers]
            rows = _rows(spec, settings, scorers, results, names, directions, resampling)
            writer.write_many(keyed(row, by, key) for row in rows)
            _warn_counts(names, results, spec.missing_pred, dict(zip(by, key)))


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


def _rows(spec, settings, scorers, results, names, directions, resampling):
    """One record per system: score, interval, difference to the baseline, p-values, signature."""
    from ..stats.paired import compare
    from ..summary import signature

    from ..pipeline import phase

    with phase("paired bootstrap and randomization"):
        found = compare(spec.stat(), [s.raw() for s in scorers], level=float(resampling["ci"]),
                        bootstrap=resampling["bootstrap"], permutations=resampling["permutations"],
                        seed=resampling["seed"])
    base = results[0]["value"]
    rows = []
    for j, (name, result, comparison, higher) in enumerate(zip(names, results, found, directions)):
        first = j == 0
        rows.append({
            "system": name, "baseline": names[0], "measure": spec.label, "value": result["value"],
            "ci_low": comparison.ci_low, "ci_high": comparison.ci_high,
            "delta": None if first else result["value"] - base,
            "delta_ci_low": None if first else comparison.delta_ci_low,
            "delta_ci_high": None if first else comparison.delta_ci_high,
            "p_bootstrap": None if first else comparison.p_bootstrap,
            "p_randomization": None if first else comparison.p_randomization,
            "groups": result["groups"] - result["undefined"], "undefined": result["undefined"],
            "signature": signature(spec.name, **settings, pred="higher" if higher else "lower", **resampling),
        })
    return rows


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
