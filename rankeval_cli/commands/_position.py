"""Options and the run loop shared by the rank-position commands (mrr, ndcg, err, rankdcg, report).

Imports only click at top level, like every command module, so ``--help`` stays fast.
"""

from __future__ import annotations

import io

import click

from ..messages import quiet
from . import _common

TIE_POLICIES = ("pessimistic", "optimistic", "expected", "trec")
MISSING_PRED = ("drop", "last", "error")


def position_options(per_group_columns: str):
    """--tie-policy, --relevance, --higher-better, --missing-pred, --per-group (rows of these columns), --by."""
    def decorate(f):
        f = _common.by_option()(f)
        f = click.option(
            "--per-group", is_flag=True,
            help="One row per group; the summary to stderr\f"
                 f"Write one row per group ({per_group_columns}) as it is computed; the summary then "
                 "goes to stderr.")(f)
        return _tie_and_relevance_options(f)
    return decorate


def _tie_and_relevance_options(f):
    f = click.option(
        "--missing-pred", type=click.Choice(MISSING_PRED), default="drop", show_default=True, metavar="RULE",
        help="No prediction: drop, last or error [default: drop]\f"
             "Items with a gold value but no prediction: drop them (as tau does), rank them last "
             "(tied), or stop with an error. Counted either way.")(f)
    f = _common.higher_better_option(
        "Values are scores (higher = better), not ranks []\f"
        "pred (and gold, unless --relevance grades) are scores, higher = better [default: ranks, "
        "lower = better].")(f)
    f = click.option(
        "--relevance", type=click.Choice(("ranks", "grades")), default="ranks", show_default=True,
        help="Gold: ranks or relevance grades [default: ranks]\f"
             "ranks: gold holds ranks, relevance = n - rank + 1 over ceiling ranks (Avramidis 2013); "
             "grades: gold holds graded relevance, higher = better (IR qrels).")(f)
    return click.option(
        "--tie-policy", type=click.Choice(TIE_POLICIES), default=None, metavar="POLICY",
        help="Order of ties: pessimistic, optimistic, expected, trec [default: pessimistic; TREC: trec]\f"
             "Order of items with tied predictions: pessimistic = worst gold first (for RR: the ceiling "
             "rank, as RankEval 2013), optimistic = best first, expected = exact mean over random "
             "orders of each tied block, trec = item id descending (trec_eval's docno order) "
             "[default: trec with TREC input, else pessimistic].")(f)


#: click callback: a --rel-max value that ERR can use (n, scale:G or list-max), passed on as text.
check_rel_max = _common.parsed_by("measures.err:parse_rel_max", keep_text=True)


def k_option(help_text: str):
    return click.option("--k", "k", type=click.IntRange(min=1), default=None, metavar="K", help=help_text)


def oriented(batches, higher_better: bool, relevance: str):
    """Turn score columns into rank order (negated) when --higher-better is given."""
    for batch in batches:
        if higher_better:
            gold = batch.gold if relevance == "grades" else -batch.gold
            batch = batch.with_values(gold=gold, pred=-batch.pred)
        yield batch


def prepare_options(tie_policy, relevance, missing_pred) -> dict:
    return dict(tie_policy=tie_policy, relevance=relevance, missing_pred=missing_pred)


def group_records(batch, prep, columns: dict) -> list[dict]:
    """Per-group rows: group, items (ranked), skipped (rows without gold or dropped), values."""
    n = prep.sizes
    skipped = batch.sizes - n
    names = list(columns)
    values = [columns[c].tolist() for c in names]
    return [dict(group=g, items=int(n[i]), skipped=int(skipped[i]), **{c: v[i] for c, v in zip(names, values)})
            for i, g in enumerate(batch.group.tolist())]


def write_summary(out, records: list[dict], output_format: str, per_group: bool, rows_out=None) -> None:
    """Summary records to the output, or to stderr after the per-group rows (``rows_out``, closed here;
    the summary on stderr is a note: ``rankeval -q`` leaves it out)."""
    if per_group:
        if rows_out is not None:
            rows_out.close()
        out.flush()
        if quiet():
            return
        text = io.StringIO()
        note_format = "tsv" if output_format in ("parquet", "arrow") else output_format  # stderr is text
        with _common.record_writer(text, note_format) as writer:
            writer.write_many(records)
        click.echo(text.getvalue(), err=True, nl=False)
    else:
        with _common.record_writer(out, output_format) as writer:
            writer.write_many(records)


def warn_counts(blanks: int, missing: int, missing_pred: str) -> None:
    if blanks:
        _common.warn(f"skipped {blanks} {'item' if blanks == 1 else 'items'} without a gold value (blanks)")
    if missing:
        what = "ranked them last" if missing_pred == "last" else "skipped them"
        _common.warn(f"{missing} {'item' if missing == 1 else 'items'} without a prediction: {what}")


def run_mean_measure(name: str, kernel, *, files, input_format, exclude_systems, output, output_format,
                     per_group, tie_policy, relevance, missing_pred, higher_better, settings: dict, by=(),
                     ci=None, bootstrap=None, seed=None, batches=None, **kernel_options):
    """Read, prepare, compute ``kernel`` per batch, stream per-group rows, write the mean summary.

    With ``--by`` one summary per partition key, the key's columns first. With ``--ci``
    (or ``--bootstrap``) every group's value is kept for a percentile bootstrap interval
    of the mean (columns ci_low, ci_high after value).
    """
    from ..measures.ties import MeanSummary, Scores, prepare_batch
    from ..partition import keyed, partitioned
    from ..signature import signature
    from . import _ci

    tie_policy = tie_policy or "pessimistic"
    resampling = _ci.resolve(ci, bootstrap, seed)
    summaries: dict = {}  # key -> (MeanSummary, kept values or None)
    options = prepare_options(tie_policy, relevance, missing_pred)
    if batches is None:
        batches = _common.read_inputs(files, input_format, exclude_systems)
    batches = oriented(batches, higher_better, relevance)
    with _common.output_stream(output) as out:
        rows_out = _common.record_writer(out, output_format) if per_group else None
        for key, batch in partitioned(batches, by):
            summary, kept = summaries.get(key) or summaries.setdefault(
                key, (MeanSummary(name), [] if resampling else None))
            prep = prepare_batch(batch, **options)
            values = kernel(prep, **kernel_options)
            summary.add(Scores(batch, values, prep))
            if kept is not None:
                kept.append(values)
            if rows_out:
                rows_out.write_many(group_records(batch, prep, {name: values}))
        if not by and not summaries:
            summaries[()] = (MeanSummary(name), [] if resampling else None)
        sig = signature(name, **settings, ties=tie_policy, relevance=relevance, scores=higher_better,
                        missing_pred=missing_pred, exclude=_ci.exclusion(exclude_systems),
                        **(resampling.signature() if resampling else {}))
        records = []
        for key, (summary, kept) in summaries.items():
            record = summary.as_dict()
            if resampling:
                record = with_interval(record, "value", mean_interval(kept, resampling))
            record["signature"] = sig
            records.append(keyed(record, by, key))
        write_summary(out, records, output_format, per_group, rows_out)
    warn_counts(sum(s.blanks for s, _ in summaries.values()), sum(s.missing_pred for s, _ in summaries.values()),
                missing_pred)


def mean_interval(parts: list, resampling) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of the defined per-group values."""
    import numpy as np

    from ..pipeline import phase
    from ..stats.resample import MeanStat, bootstrap_intervals

    values = np.concatenate(parts) if parts else np.zeros(0)
    with phase(f"bootstrap ({resampling.replicates} replicates)"):
        (interval,) = bootstrap_intervals([MeanStat()], [values], resampling.level, resampling.replicates,
                                          resampling.seed)
    return interval


def with_interval(record: dict, after: str, interval) -> dict:
    """``record`` with ci_low, ci_high inserted after the column ``after``."""
    out = {}
    for key, value in record.items():
        out[key] = value
        if key == after:
            out["ci_low"], out["ci_high"] = interval
    return out
