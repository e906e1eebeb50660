"""``rankeval spans eval``: error-span predictions against gold spans, as the WMT24-25 error-span tasks rank them."""

from __future__ import annotations

import click

from ..vocabulary import DEFAULT_LEVEL, DEFAULT_REPLICATES, DEFAULT_SEED, SPAN_DEFINITIONS, SUMMARY_FORMATS
from . import _common, _spans


@click.command(name="eval")
@click.argument("predictions", nargs=-1, required=True, type=click.Path(dir_okay=False), metavar="PREDICTIONS...")
@click.option("--gold", "golds", multiple=True, required=True, type=click.Path(dir_okay=False), metavar="FILE",
              help="Gold error spans (MQM, ESA, ...) [required]\f"
                   "The gold error spans, repeatable (e.g. one file per language pair): MQM or ESA annotations in any "
                   "format --from reads.")
@_spans.span_options
@click.option("--definition", type=click.Choice(SPAN_DEFINITIONS), default="wmt25", show_default=True,
              help="Span F1 of WMT25 or WMT23-24\f"
                   "Character-level F1 as the WMT25 error-span task scores it (overlapping spans counted, a "
                   "severity mismatch earning 1/2) or as the WMT23-24 QE error-span task does (characters marked "
                   "or not, the end position included).")
@click.option("--permutations", type=click.IntRange(min=1), default=DEFAULT_REPLICATES, show_default=True, metavar="R",
              help="Permutation trials\fTrials of each pair's permutation test.")
@click.option("--ci", "ci", type=_common.FiniteFloat(0, 1, min_open=True, max_open=True), default=None,
              metavar="LEVEL", help="Bootstrap intervals at this level (e.g. 0.95)\f"
                                    "Percentile bootstrap intervals at this level, segments resampled.")
@click.option("--bootstrap", type=click.IntRange(min=1), default=None, metavar="N",
              help="Bootstrap replicates [default: 1000]\f"
                   "Bootstrap replicates for --ci [default: 1000]; given alone it implies --ci 0.95.")
@click.option("--seed", type=int, default=DEFAULT_SEED, show_default=True, metavar="S",
              help="Seed of tests and bootstrap\fSeed of the permutation tests and of the bootstrap.")
@_common.output_options(formats=SUMMARY_FORMATS)
@_common.handle_errors
def command(predictions, golds, fmt, lp, definition, permutations, ci, bootstrap, seed, output):
    """Meta-evaluate error-span predictors: character-level precision,
    recall and F1 against gold MQM or ESA spans (partial overlap counted, a
    severity mismatch earning half), per language pair, with significance
    clusters, bootstrap intervals and the average F1 over language pairs.

    Each PREDICTIONS file is one predictor (named by the file, or by the
    format's own name: METHOD, an mt-metrics-eval NAME); every gold
    translation must have a prediction. Gold translations annotated by several
    raters keep the first rater's spans. Definitions: docs/error-spans.md.

    \b
    Output: lp metric span-f1 span-f1:rank [:ci_low :ci_high] span-p ...
    span-r ... avg avg:rank items segments signature (lp "all": the average
    F1 over the language pairs with its clusters); rankeval table lays it out.

    \b
    Example:
      rankeval spans eval --gold task2_refs.tsv sub1.tsv sub2.tsv --ci 0.95 \\
        | rankeval table --ci 0.95
    """
    from ..errors import DataError
    from ..signature import signature
    from ..stats.metaeval import span_table

    if bootstrap is not None and ci is None:
        ci = DEFAULT_LEVEL
    replicates = (bootstrap or DEFAULT_REPLICATES) if ci is not None else None
    gold = _gold(golds, fmt, lp)
    tables = {}
    for path in predictions:
        table = _spans.one_per_translation(_spans.read(path, fmt, lp), "prediction")
        if table.name in tables:
            raise DataError(f"a second predictor named {table.name!r} (the first: {tables[table.name].source})", path)
        tables[table.name] = table
        extra = len(set(table.keys) - set(gold.keys))
        if extra:
            _common.warn(f"{path}: {extra} prediction(s) for translations the gold spans do not annotate left out")
    try:
        pairs = span_table.language_pairs(gold, tables, definition)
    except ValueError as exc:
        raise DataError(str(exc)) from None
    result = span_table.evaluate(pairs, permutations, seed, ci=ci, replicates=replicates or DEFAULT_REPLICATES)
    sig = signature("spans-eval", definition=definition, gold=gold.name, weights="lp", permutations=permutations,
                    ci=repr(float(ci)) if ci is not None else None, bootstrap=replicates, seed=seed, p=0.05)
    with output.stream() as out, _common.record_writer(out, output.format) as writer:
        writer.write_many(_records(result, sig, ci is not None))


def _gold(golds, fmt, lp):
    """The gold files as one table (one annotation per translation)."""
    from ..formats.spans import SpanTable

    tables = [_spans.one_per_translation(_spans.read(path, fmt, lp), "gold") for path in golds]
    if len(tables) == 1:
        return tables[0]
    return _concatenate(tables, SpanTable)


def _concatenate(tables, SpanTable):
    import numpy as np

    from ..errors import DataError

    seen, keys, shift, parts = {}, [], 0, []
    for t in tables:
        for key in t.keys:
            if key in seen:
                raise DataError(f"gold spans for {key[0]} {key[1]} segment {key[2]} in two files (first: {seen[key]})",
                                t.source)
            seen[key] = t.source
        keys += t.keys
        parts.append((t, shift))
        shift += len(t.keys)
    cat = (lambda name: np.concatenate([getattr(t, name) for t, _ in parts]))
    return SpanTable(tables[0].name, tables[0].source, keys, sum((t.raters for t in tables), []), cat("lengths"),
                     cat("lines"), np.concatenate([t.owner + s for t, s in parts]), cat("start"), cat("end"),
                     cat("severity"), cat("category"), cat("on_source"))


def _records(result, sig, intervals: bool) -> list[dict]:
    """meta-eval's layout: a row per (lp, predictor), then per predictor over all language pairs."""
    from ..stats.metaeval.span_table import STATISTICS

    rows = []
    order = list(result.average.names) if result.average is not None else []
    for d in result.pairs:
        for name in order:
            row = {"lp": d.lp, "metric": name}
            for statistic in STATISTICS:
                value, rank = result.results[(d.lp, statistic)].as_dict()[name]
                row.update({statistic: value, f"{statistic}:rank": rank})
                if intervals:
                    low, high = result.intervals[(d.lp, statistic)][name]
                    row.update({f"{statistic}:ci_low": low, f"{statistic}:ci_high": high})
            row.update({"avg": None, "avg:rank": None, **({"avg:ci_low": None, "avg:ci_high": None} if intervals
                                                          else {}),
                        "items": len(d.keys), "segments": int(d.segments.max()) + 1 if len(d.keys) else 0,
                        "signature": sig})
            rows.append(row)
    averages = result.average.as_dict() if result.average is not None else {}
    for name in order:
        row = {"lp": "all", "metric": name}
        for statistic in STATISTICS:
            row.update({statistic: None, f"{statistic}:rank": None,
                        **({f"{statistic}:ci_low": None, f"{statistic}:ci_high": None} if intervals else {})})
        value, rank = averages[name]
        row.update({"avg": value, "avg:rank": rank})
        if intervals:
            row.update(dict(zip(("avg:ci_low", "avg:ci_high"), result.average_intervals[name])))
        row.update({"items": sum(len(d.keys) for d in result.pairs),
                    "segments": sum(int(d.segments.max()) + 1 for d in result.pairs if len(d.keys)),
                    "signature": sig})
        rows.append(row)
    return rows
