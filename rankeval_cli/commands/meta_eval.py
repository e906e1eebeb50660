"""``rankeval meta-eval``: the WMT22-24 metrics table from human and metric score files."""

from __future__ import annotations

import click

from ..vocabulary import (DEFAULT_LEVEL, DEFAULT_REPLICATES, DEFAULT_SEED, GROUPINGS, PERMUTATION_STREAMS, SPA_SUMS,
                          SUMMARY_FORMATS, TASK_WEIGHTS)
from . import _common
from .tau import variant_option


def _complete_measure(ctx, param, incomplete):
    from click.shell_completion import CompletionItem

    from ..stats.metrics_table import MEASURES

    base, at, _ = incomplete.partition("@")
    if at:
        return [CompletionItem(f"{base}@{g}") for g in GROUPINGS if f"{base}@{g}".startswith(incomplete)]
    levels = ("pa", "spa", "sys", "seg")  # as the help lists them: system level first
    names = sorted(MEASURES, key=lambda name: levels.index(MEASURES[name][0]))
    return [CompletionItem(n) for n in names if n.startswith(incomplete)]


@click.command(name="meta-eval")
@click.argument("score_files", nargs=-1, type=click.Path(dir_okay=False), metavar="[SCORE_FILES]...")
@click.option("--human", "humans", multiple=True, type=click.Path(dir_okay=False), metavar="FILE",
              help="Human segment scores (MQM or mt-metrics-eval)\f"
                   "Human segment scores, repeatable (one file per language pair): Google's MQM "
                   "(mqm_TESTSET_xxyy...tsv: system mqm_avg_score seg_id) or mt-metrics-eval's "
                   "LP.NAME.seg.score.")
@click.option("--index", "indexes", multiple=True, type=click.Path(dir_okay=False), metavar="FILE",
              help="WMT test-set index (WMT20-21 score files)\f"
                   "WMT test-set index (details.LP.txt: SEGNO TESTSET LP DOCID DOCSEG), repeatable; needed to "
                   "join WMT20-21 score files, which number segments within documents.")
@click.option("--mtme", "mtme_dir", type=click.Path(file_okay=False, exists=True), default=None, metavar="DIR",
              help="An mt-metrics-eval test-set directory\f"
                   "An mt-metrics-eval test-set directory (human-scores/, metric-scores/LP/) instead of "
                   "--human and SCORE_FILES.")
@click.option("--human-name", default=None, metavar="NAME",
              help="--mtme: the human scores [default: mqm]\f"
                   "--mtme: the human scores to use (LP.NAME.seg.score) [default: mqm, or the only one].")
@click.option("--lp", "lps", multiple=True, metavar="XX-YY",
              help="Language pairs to evaluate [default: all]\f"
                   "Language pairs to evaluate, repeatable [default: every one with human scores]; also the "
                   "language pair of a human file whose name does not tell it.")
@click.option("--refset", default=None, metavar="NAME",
              help="Metrics' reference [default: the test set's]\f"
                   "The reference the metrics use [default: the one named like the test set (WMT files); the "
                   "only one used (--mtme)]. Metrics scored against other references are left out.")
@click.option("--include-human", is_flag=True,
              help="Keep human translations as systems\f"
                   "Keep human translations (Human-*, mt-metrics-eval reference names) as systems, except "
                   "the reference a metric is scored against.")
@click.option("--exclude-systems", "exclude_systems", multiple=True, metavar="PATTERN",
              help="Drop systems matching a shell pattern\f"
                   "Drop systems matching this shell-style pattern; repeatable.")
@click.option("--statistic", "measures", cls=_common.AliasOption, aliases=("-m", "--measure"), multiple=True,
              metavar="NAME[@GROUPING]",
              shell_complete=_complete_measure,
              help="Statistics (man rankeval-meta-eval) [default: the WMT24 table]\f"
                   "Statistic, repeatable or comma-separated: sys-pa, spa, sys-pearson, sys-spearman, "
                   "sys-kendall, seg-acc-eq, seg-pearson, seg-spearman, seg-kendall, seg-pdp; segment ones take "
                   "@none, @item or @system [default: sys-pa, spa, sys-pearson, seg-acc-eq@item, "
                   "seg-pearson@none, seg-pearson@item].")
@click.option("--average-by", type=click.Choice(GROUPINGS), default=None, metavar="GROUPING",
              help="Grouping of segment statistics\f"
                   "Grouping of segment statistics given without @GROUPING (none: all cells at once; item: "
                   "per segment, then the mean; system: per system).")
@variant_option(default="b", help_text="Kendall variant [default: b]\f"
                                       "Kendall variant of seg-kendall and sys-kendall (b = scipy); see rankeval "
                "tau --help.", aliases=())
@click.option("--epsilon", type=_common.FiniteFloat(), default=None, metavar="E",
              help="seg-acc-eq: tie threshold [default: calibrated]\f"
                   "seg-acc-eq: count metric differences <= E as ties [default: E calibrated per metric to "
                   "maximize acc-eq, Deutsch et al. 2023].")
@click.option("--task-weights", type=click.Choice(TASK_WEIGHTS), default="uniform",
              show_default=True,
              help="Weights of the tasks in the average\f"
                   "The average: every task weighs 1 (WMT24); wmt23: pairwise accuracy pooled over the language "
                   "pairs weighs as many as there are language pairs, each other task 1; wmt25: the WMT24-25 "
                   "task set only (spa, seg-acc-eq@item: the default --statistic).")
@click.option("--permutations", type=click.IntRange(min=1), default=DEFAULT_REPLICATES, show_default=True, metavar="R",
              help="Permutation trials\f" "Trials of each permutation test (SPA's p-values always use "
                   "mt-metrics-eval's 1000 sign vectors).")
@click.option("--ci", "ci", type=_common.FiniteFloat(0, 1, min_open=True, max_open=True), default=None,
              metavar="LEVEL",
              help="Bootstrap intervals at this level (e.g. 0.95)\f"
                   "Add percentile bootstrap intervals at this level (e.g. 0.95) to every value: segments "
                   "resampled for segment statistics, systems for system ones (MEASURE:ci_low, :ci_high).")
@click.option("--bootstrap", type=click.IntRange(min=1), default=None, metavar="N",
              help="Bootstrap replicates [default: 1000]\f"
                   "Bootstrap replicates for --ci [default: 1000]; given alone it implies --ci 0.95.")
@click.option("--permutation-stream", "stream", type=click.Choice(PERMUTATION_STREAMS), default="per-pair",
              show_default=True,
              help="Random stream of the permutation tests\f"
                   "Where the permutation trials draw from. per-pair: each pair of metrics on each task its own "
                   "stream (seed, language pair, statistic, the two metrics), so the pairs run in parallel "
                   "(--jobs, --scheduler) with the same output, and adding or removing a metric leaves the other "
                   "pairs' p-values as they were. mtme: one stream consumed pair after pair, task after task, as "
                   "mt-metrics-eval after np.random.seed(S): its p-values bit for bit, run serially.")
@click.option("--spa-sums", type=click.Choice(SPA_SUMS), default="exact", show_default=True,
              help="SPA's sign-flip sums\f"
                   "How soft pairwise accuracy's permutation sums are computed. exact: every trial decided "
                   "exactly (ties included), so SPA is the same on every machine. float32: mt-metrics-eval's "
                   "float32 matrix product, for matching the digits it prints on the same machine; its rounding "
                   "depends on the CPU's BLAS kernel, so a value near a tie can differ between machines.")
@click.option("--seed", type=int, default=DEFAULT_SEED, show_default=True, metavar="S",
              help="Seed of tests and bootstrap\fSeed of the permutation tests and of the bootstrap.")
@click.option("--system-scores", "system_scores", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Also write the system scores (plot scatter)\f"
                   "Also write every language pair's system scores here (lp metric system human value "
                   "sys_scores; TSV, JSON lines for a .jsonl name), the scores the system-level statistics were "
                   "computed on: rankeval plot scatter draws them with the table's correlations.")
@_common.jobs_options
@_common.output_options(formats=SUMMARY_FORMATS)
@_common.handle_errors
def command(score_files, humans, indexes, mtme_dir, human_name, lps, refset, include_human, exclude_systems,
            measures, average_by, variant, epsilon, task_weights, permutations, ci, bootstrap, stream, spa_sums,
            seed, system_scores, output):
    """The WMT22-25 metrics table: each MT metric's meta-evaluation statistics
    against human scores, with intervals and significance clusters.

    Reads human segment scores and metric score files (WMT metric score files,
    segment or system level, several metrics and language pairs each; or an
    mt-metrics-eval directory), joins them into one systems x segments table per
    language pair, then computes every statistic (--statistic) of every metric, sorts the
    metrics, compares every pair with a paired permutation test and gives each
    metric the rank of its significance cluster: a metric starts a new rank when
    one above it in the cluster beats it at p <= 0.05. The average over all tasks
    (each statistic of each language pair, rescaled to [0, 1]; --task-weights)
    gets clusters the same way. --ci adds bootstrap intervals. Definitions:
    docs/meta-evaluation.md.

    Systems: those with human scores, without human translations unless
    --include-human, without --exclude-systems. WMT20-21 score files number
    segments within documents: give the test-set index (--index) so they join on
    the test-set segment number; every join must be one-to-one, or it is an error.

    \b
    Output: lp metric [MEASURE MEASURE:rank [:epsilon] [:ci_low :ci_high] ...]
    avg avg:rank [avg:ci_low avg:ci_high] systems segments sys_scores signature
    (lp "all": pooled sys-pa and the average).

    \b
    Examples:
      rankeval meta-eval --mtme tests/data/mtme/wmt20 --task-weights wmt25
      rankeval meta-eval --human mqm_newstest2020_ende.avg_seg_scores.tsv \\
        --index details.en-de.txt YiSi-2.seg.score.gz --ci 0.95

    \b
    More examples:
      rankeval meta-eval --mtme tests/data/mtme/wmt20 \\
        --statistic sys-pa,seg-acc-eq@item --output-format markdown
      rankeval meta-eval --mtme ~/.mt-metrics-eval/mt-metrics-eval-v2/wmt23 \\
        --lp en-de --statistic sys-pa,seg-acc-eq@item
    """
    from ..stats.metrics_table import Options, parse_measures

    try:
        chosen = parse_measures(measures, average_by, task_weights)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--statistic") from None
    if task_weights == "wmt25":
        _check_wmt25(chosen, epsilon)
    if mtme_dir and (score_files or humans or indexes):
        raise click.UsageError("--mtme reads its own human and metric scores: give no SCORE_FILES, --human or "
                               "--index")
    if not mtme_dir and not humans:
        raise click.UsageError("give the human scores (--human FILE) or an mt-metrics-eval directory (--mtme DIR)")
    if human_name and not mtme_dir:
        raise click.UsageError("--human-name goes with --mtme")
    if bootstrap is not None and ci is None:
        ci = DEFAULT_LEVEL
    replicates = (bootstrap or DEFAULT_REPLICATES) if ci is not None else None
    selection = dict(lps=lps, refset=refset, include_human=include_human, exclude=exclude_systems)
    tables = _tables(score_files, humans, indexes, mtme_dir, human_name, selection)
    options = Options(permutations=permutations, seed=seed, epsilon=epsilon, variant=variant, weights=task_weights,
                      stream=stream, spa_sums=spa_sums)
    sig = _signature(chosen, options, include_human, exclude_systems, refset, ci, replicates)
    records = _records(tables, chosen, options, sig, ci, replicates)
    if system_scores:
        _write_system_scores(system_scores, tables)
    with output.stream() as out, _common.record_writer(out, output.format) as writer:
        writer.write_many(records)


def _write_system_scores(path, tables) -> None:
    from ..formats.sysseg import system_score_records

    fmt = "jsonl" if str(path).endswith((".jsonl", ".json")) else "tsv"
    with _common.output_stream(path) as out, _common.record_writer(out, fmt) as writer:
        writer.write_many(system_score_records(tables))


def _check_wmt25(measures, epsilon) -> None:
    """The WMT25 average needs its two tasks, with acc-eq tie-calibrated."""
    from ..stats.metrics_table import WMT25_MEASURES

    missing = [m for m in WMT25_MEASURES if m not in {x.name for x in measures}]
    if missing:
        raise click.UsageError(f"--task-weights wmt25 averages {' and '.join(WMT25_MEASURES)}: add "
                               f"{', '.join(missing)} to --statistic")
    if epsilon is not None:
        raise click.UsageError("--task-weights wmt25 calibrates the tie threshold of seg-acc-eq: drop --epsilon")


def _tables(files, humans, indexes, mtme_dir, human_name, selection: dict):
    """The per-language-pair tables; ``selection``: lps, refset, include_human, exclude (the systems)."""
    from ..formats import metaeval_input

    if mtme_dir:
        return metaeval_input.tables_from_mtme(mtme_dir, human_name, **selection, report=_common.warn)
    return metaeval_input.tables_from_files(humans, files, indexes, **selection, report=_common.warn)


def _signature(measures, options, include_human, exclude_systems, refset, ci, replicates) -> str:
    from ..signature import signature

    uses_kendall = any(m.statistic == "kendall" for m in measures)
    uses_acc = any(m.statistic == "accuracy" and m.level == "seg" for m in measures)
    return signature("meta-eval", measures=",".join(m.name for m in measures),
                     tau=options.variant if uses_kendall else None,
                     epsilon=(options.epsilon if options.epsilon is not None else "calibrated") if uses_acc else None,
                     weights=options.weights, permutations=options.permutations,
                     stream=options.stream if options.stream != "per-pair" else None,
                     spa=options.spa_sums if options.spa_sums != "exact" else None,
                     ci=repr(float(ci)) if ci is not None else None, bootstrap=replicates, seed=options.seed,
                     p=options.threshold,
                     human="included" if include_human else "excluded",
                     exclude=",".join(exclude_systems) or None, refset=refset)


def _records(tables, measures, options, sig, ci, replicates):
    """Rows: every (lp, metric), then every metric's row over all language pairs (lp "all")."""
    from ..stats.metrics_table import run_table

    from ..pipeline import phase

    with phase("meta-evaluation (statistics, permutation tests" + (", bootstrap)" if ci is not None else ")")):
        table = run_table(tables, measures, options, ci=ci, replicates=replicates or DEFAULT_REPLICATES)
    from ..stats.table_notes import left_out, segment_means

    for note in [*segment_means(tables, measures), *left_out(table, tables)]:
        _common.warn(note)
    results, average, intervals = table.results, table.average, table.intervals
    avg = _lookup(average)
    rows = []
    for t in tables:
        for name in _row_order(t.metric_names, average, results.get((t.lp, measures[0].name))):
            row = {"lp": t.lp, "metric": name}
            for measure in measures:
                _cells(row, measure, results.get((t.lp, measure.name)), name, intervals, (t.lp, measure.name))
            row.update({"avg": None, "avg:rank": None})
            if intervals is not None:
                row.update({"avg:ci_low": None, "avg:ci_high": None})
            row.update({"systems": len(t.systems), "segments": len(t.segments),
                        "sys_scores": t.sys_origin.get(name), "signature": sig})
            rows.append(row)
    everywhere = [n for n in tables[0].metric_names if all(n in t.metrics_sys for t in tables)]
    for name in _row_order(everywhere, average, results.get(("all", "sys-pa"))):
        row = {"lp": "all", "metric": name}
        for measure in measures:
            _cells(row, measure, results.get(("all", measure.name)), name, intervals, ("all", measure.name))
        value, rank = avg.get(name, (None, None))
        row.update({"avg": value, "avg:rank": rank})
        if intervals is not None:
            row.update(dict(zip(("avg:ci_low", "avg:ci_high"), table.average_intervals.get(name, (None, None)))))
        row.update({"systems": sum(len(t.systems) for t in tables),
                    "segments": sum(len(t.segments) for t in tables), "sys_scores": None, "signature": sig})
        rows.append(row)
    return rows


def _lookup(comparison) -> dict:
    """name -> (value, rank) of a Comparison (empty for None)."""
    return {} if comparison is None else comparison.as_dict()


def _cells(row, measure, comparison, name, intervals, key) -> None:
    """The value and rank columns of one measure (then ε for acc-eq, the interval with --ci); empty
    where not computed."""
    value, rank = _lookup(comparison).get(name, (None, None))
    row[measure.name], row[f"{measure.name}:rank"] = value, rank
    if measure.level == "seg" and measure.statistic == "accuracy":
        row[f"{measure.name}:epsilon"] = None if comparison is None else comparison.epsilons.get(name)
    if intervals is not None:
        low, high = intervals.get(key, {}).get(name, (None, None))
        row[f"{measure.name}:ci_low"], row[f"{measure.name}:ci_high"] = low, high


def _row_order(names, average, first):
    """Metrics by the average (those in every task), then by the first measure, then by name."""
    ranked = [*(average.names if average else []), *(first.names if first else [])]
    return list(dict.fromkeys([*(n for n in ranked if n in names), *sorted(names)]))
