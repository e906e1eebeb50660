"""``rankeval correlate``: system-level Spearman/Pearson/Kendall and segment-level average Spearman."""

from __future__ import annotations

import click

from ..vocabulary import SUMMARY_FORMATS
from . import _ci, _common
from ._ranking import METHOD_NAMES, method_options, ranking_options
from .aggregate import method_option


@click.command(name="correlate")
@_common.input_options
@_common.output_options(formats=SUMMARY_FORMATS)
@_common.jobs_options
@click.option("--aggregates", is_flag=True,
              help="FILES are aggregate tables\f"
                   "FILES are aggregate/borda output tables: one with gold_value and pred_value "
                   "(--column both), or two with a value column each (first = x, second = y).")
@method_option("How systems are scored from the groups\f"
               "How system rankings are built from the groups: " + ", ".join(METHOD_NAMES) + ".")
@ranking_options
@method_options
@_ci.ci_options
@_common.handle_errors
def command(inputs, output, aggregates, method, ranking, methods, resampling):
    """Correlate the gold-based and pred-based system rankings.

    From groups (default): the systems are aggregated twice with --method, once
    on gold and once on pred, and their scores correlated: Spearman, Pearson and
    Kendall tau-b with two-sided p-values of independence (level=system;
    systems correlated; undefined = systems scored on one side only). The
    segment-level row is the mean over groups of Spearman's rho between gold and
    pred (Duh 2008 Table 3; level=segment, groups where rho is defined,
    undefined = groups with < 2 items or a constant side). With --aggregates,
    two finished system rankings are correlated on their shared items.

    Scores are higher = better on both sides, so agreement is positive; Li, Jiang & Wang 2013
    Tables 4-5 print absolute values.

    \b
    --ci LEVEL adds a percentile bootstrap interval to each system-level
    correlation (ci_low, ci_high): every replicate resamples the groups and
    aggregates gold and pred from the same draw (--bootstrap N, default 1000;
    --seed S, default 12345).

    \b
    Output columns: [BY...] level measure value [ci_low ci_high] p_independence
    systems groups undefined signature

    \b
    Examples:
      rankeval convert --from darr DArr.csv.gz --scores chrF.seg.score.gz \\
        | rankeval correlate --by lp
      rankeval correlate --aggregates human.tsv metric.tsv
    """
    from contextlib import nullcontext

    from ..aggregate.correlate import correlation_intervals, join_scores, system_correlations
    from ..pipeline import phase
    from ..aggregate.registry import scorer
    from ..errors import DataError
    from ..signature import signature

    options = methods.keywords(ranking)
    resampling = resampling.resolved()
    files, by, counters = inputs.files, ranking.by, {}
    if aggregates:
        if resampling:
            raise click.UsageError("--ci resamples the groups: give the stream of groups, not --aggregates tables")
        pairs, segments = _from_tables(files, by), {}
        sig = signature("correlate", input="aggregates")
    else:
        pairs, segments, counters = _from_groups(inputs, method, ranking, options, keep_groups=resampling is not None)
        sig = signature("correlate", **_settings(method, options),
                        **(resampling.signature() if resampling else {}))
    with output.stream() as out, _common.record_writer(out, output.format) as writer:
        for key, (x_scores, y_scores) in pairs.items():
            head = dict(zip(by, key))
            items, x, y, unmatched = join_scores(x_scores, y_scores)
            if aggregates and not items and x_scores and y_scores and _disjoint(x_scores, y_scores):
                where = ", ".join(f"{b}={k}" for b, k in zip(by, key))
                raise DataError(f"no system is scored on both sides{' (' + where + ')' if where else ''}: "
                                f"e.g. {sorted(x_scores)[0]!r} and {sorted(y_scores)[0]!r}", files[0] if files else None)
            with phase(f"bootstrap ({resampling.replicates} replicates)") if resampling else nullcontext():
                intervals = correlation_intervals(
                    counters[(key, "gold")], counters[(key, "pred")], scorer(method, **options),
                    resampling.replicates, resampling.seed, resampling.level) if resampling else {}
            for c in system_correlations(x, y):
                writer.write({**head, "level": "system", "measure": c.measure, "value": c.value,
                              **_interval(resampling, intervals.get(c.measure)),
                              "p_independence": c.p_value, "systems": c.n, "groups": None,
                              "undefined": unmatched, "signature": sig})
            seg = segments.get(key)
            if seg is not None:
                writer.write({**head, "level": "segment", "measure": "spearman-avg", "value": seg.mean,
                              **_interval(resampling, None),
                              "p_independence": None, "systems": None, "groups": seg.defined,
                              "undefined": seg.undefined, "signature": sig})


def _disjoint(left: dict, right: dict) -> bool:
    """No system name in common, even after stripping test-set and language-pair parts."""
    from ..formats.wmtids import system_key

    return not (left.keys() & right.keys()) and not ({system_key(k) for k in left} & {system_key(k) for k in right})


def _interval(resampling, interval) -> dict:
    """ci_low, ci_high columns under --ci (empty where no interval is computed)."""
    if resampling is None:
        return {}
    low, high = interval or (None, None)
    return {"ci_low": low, "ci_high": high}


def _settings(method, options):
    from ..aggregate.ranking_records import table_signature

    # reuse the aggregate signature's method settings, minus its command, column and version
    parts = table_signature(method, "both", options).split("|")[1:-1]
    return dict(p.split(":", 1) for p in parts if not p.startswith("column:"))


#: stream columns that tell parts a system ranking should not pool silently (``pooled`` of _from_groups)
PARTITION_COLUMNS = ("lp", "testset")


def _from_groups(inputs, method, ranking, options, keep_groups=False, pooled=None):
    """Gold and pred system scores per partition (``ranking``: --by and the direction), the
    segment-level accumulators, and the pair counters ({(key, column): PairCounter}, holding each
    group's counts with ``keep_groups``). ``pooled``, a dict, receives the values of each
    :data:`PARTITION_COLUMNS` column not in ``by``."""
    from ..aggregate.correlate import SegmentSpearman
    from ..partition import Partitioner

    from ..aggregate.kemeny import TooManyItems
    from ..aggregate.run import count_stream, rank_counter
    from ..errors import DataError
    from ..aggregate.ranking_records import report_counts

    by, higher_better = ranking.by, ranking.higher_better
    partitioner = Partitioner(by)
    segments: dict = {}

    def tee(batches):
        for batch in batches:
            if pooled is not None:
                for column in PARTITION_COLUMNS:
                    if column in batch.extra and column not in by:
                        pooled.setdefault(column, set()).update(batch.extra[column].tolist())
            for key, part in partitioner.split(batch):
                seg = segments.get(key)
                if seg is None:
                    seg = segments[key] = SegmentSpearman(higher_better, higher_better)
                seg.add(part)
            yield batch

    batches = tee(inputs.read())
    counters = count_stream(batches, ("gold", "pred"), by, {"gold": higher_better, "pred": higher_better},
                            keep_groups=keep_groups)
    try:
        rankings = [rank_counter(counter, key, method, **options) for (key, _column), counter in counters.items()]
    except TooManyItems as exc:
        raise DataError(f"{exc} (--approximate)") from None
    report_counts(rankings, by, _common.warn)
    if not rankings:
        _common.warn("no ranked groups in the input")
    pairs: dict = {}
    for ranking in rankings:
        sides = pairs.setdefault(ranking.key, [{}, {}])
        sides[0 if ranking.column == "gold" else 1] = ranking.score_of()
    for key, seg in segments.items():
        if seg.skipped_rows:
            where = ", ".join(f"{b}={k}" for b, k in zip(by, key))
            _common.warn(f"segment level{' (' + where + ')' if where else ''}: "
                         f"{seg.skipped_rows} items lacking gold or pred left out")
    return {k: tuple(v) for k, v in pairs.items()}, segments, counters


def _from_tables(files, by):
    from ..aggregate.ranking_records import read_table

    if len(files) not in (1, 2):
        raise click.UsageError("--aggregates takes one table with gold_value and pred_value, or two tables")
    tables = [read_table(f, by) for f in files]
    pairs: dict = {}
    if len(tables) == 1:
        table, columns = tables[0]
        if len(columns) != 2:
            raise click.UsageError("a single --aggregates table needs gold_value and pred_value columns "
                                   "(aggregate --column both)")
        for key, cells in table.items():
            pairs[key] = (cells[columns[0]], cells[columns[1]])
        return pairs
    (left, lcols), (right, rcols) = tables
    for name, cols in ((files[0], lcols), (files[1], rcols)):
        if len(cols) != 1:
            raise click.UsageError(f"{name}: with two --aggregates tables each needs one value column")
    for key in list(left) + [k for k in right if k not in left]:
        pairs[key] = (left.get(key, {}).get(lcols[0], {}), right.get(key, {}).get(rcols[0], {}))
    return pairs
