"""``rankeval aggregate``: one system ranking from many rankings (docs/definitions.md#aggregation)."""

from __future__ import annotations

import click

from . import _ci, _common

METHOD_NAMES = ("borda", "fv", "ge-others", "gt-others", "expected-wins", "copeland", "kemeny", "bradley-terry")


def ranking_options(f):
    """Options shared by ``aggregate``, ``borda`` and ``correlate``: columns, partitions, Borda rules."""
    f = click.option("--points", "borda_points", type=click.Choice(("n-r", "n-r+1")), default="n-r",
                     show_default=True,
                     help="Borda points for position r of an N-list: N-r (2,1,0 for three items) "
                          "or N-r+1 (3,2,1).")(f)
    f = click.option("--missing", "borda_missing", type=click.Choice(("ignore", "bottom")), default="ignore",
                     show_default=True,
                     help="Borda: items absent from a list (or blank in it) earn nothing and the list counts "
                          "only its ranked items (ignore), or share the bottom positions of a list extended "
                          "to all items (bottom).")(f)
    f = _common.higher_better_option("The aggregated values are scores (higher = better), not ranks.",
                                     aliases=())(f)
    return _common.by_option("One ranking per value of this extra column (e.g. lp); repeatable. "
                             "The value must be constant within a group.")(f)


def bootstrap_options(f):
    """--ci LEVEL, --bootstrap N, --seed S as every command has them: here for rank ranges and clusters."""
    from . import _ci

    f = click.option(
        "--seed", type=click.IntRange(min=0), default=None, metavar="S",
        help=f"Seed of the bootstrap (replicate b uses a generator spawned from it) [default: {_ci.DEFAULT_SEED}].")(f)
    f = click.option(
        "--bootstrap", type=click.IntRange(min=1), default=None, metavar="N",
        help=f"Bootstrap replicates [default: {_ci.DEFAULT_REPLICATES}]; given alone it implies --ci 0.95.")(f)
    return click.option(
        "--ci", "ci", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=None, metavar="LEVEL",
        help="Resample the groups and give each item its rank range at this level (lo, hi; e.g. 0.95) and "
             "WMT13-style clusters.")(f)


def method_option(help_text: str):
    """``--method NAME`` (the short -m of earlier releases is kept, hidden: -m is --measure elsewhere)."""
    return click.option("--method", "method", cls=_common.AliasOption, aliases=("-m",),
                        callback=_common.parsed_by("aggregate.registry:canonical"), default="expected-wins",
                        show_default=True, metavar="METHOD", shell_complete=_common.completion_of(METHOD_NAMES),
                        help=help_text)


def method_options(f):
    f = click.option("--bt-ties", type=click.Choice(("ignore", "half")), default="ignore", show_default=True,
                     help="bradley-terry: drop tied comparisons, or count each as half a win per side.")(f)
    f = click.option("--bt-alpha", type=click.FloatRange(min=0, min_open=True), default=0.01, show_default=True,
                     help="bradley-terry: L2 penalty alpha*sum(theta^2) (choix's convention).")(f)
    f = click.option("--approximate", is_flag=True,
                     help="kemeny: local search instead of the exact search (required beyond 20 items).")(f)
    return click.option("--fv-denominator", type=click.Choice(("pair", "all")), default="pair",
                        show_default=True,
                        help="fv: P_ij over the comparisons of i and j (pair) or over all groups (all, "
                             "Duh 2008's wording).")(f)


@click.command(name="aggregate")
@_common.input_options
@_common.output_options(formats=_common.SUMMARY_FORMATS)
@method_option("Aggregation method: " + ", ".join(METHOD_NAMES) + " (aliases: bt, ge, gt, ew, wmt11-13).")
@click.option("--column", type=click.Choice(("gold", "pred", "both")), default="gold", show_default=True,
              help="Aggregate the gold ranks, the predicted ranks, or both side by side.")
@ranking_options
@method_options
@bootstrap_options
@_common.handle_errors
def command(files, input_format, exclude_systems, output, output_format, method, column, by, higher_better,
            borda_missing, borda_points, fv_denominator, approximate, bt_alpha, bt_ties, ci, bootstrap, seed):
    """Aggregate many rankings (groups) into one ranking of their items (systems).

    Within each group, item i wins against j when its value is strictly lower
    (a better rank; --higher-better flips this); equal values tie; a blank is
    never compared and holds no position. Scores are higher = better; items are
    sorted by score, then by item id, and ranked 1..K in that order.

    \b
    Methods:
      borda          sum of N-r points per list, tied items sharing (Borda 1781)
      fv             sum_j P(i above j) (Duh 2008 §3.2)
      ge-others      (wins+ties)/(wins+losses+ties) (WMT07-11)
      gt-others      wins/(wins+losses) (WMT12)
      expected-wins  1/(K-1) sum_j wins_ij/(wins_ij+wins_ji) (WMT13)
      copeland       pairwise majority wins - majority losses
      kemeny         optimal consensus order; score K - position
      bradley-terry  L2-regularized maximum-likelihood log-strength

    \b
    Definitions: docs/definitions.md#aggregation.

    \b
    Output columns: [BY...] item score rank [lo hi cluster] signature;
    --column both: item gold_score gold_rank [gold_lo ...] pred_score pred_rank ...

    \b
    Examples:
      rankeval convert --from wmt-rr wmt16.ron-eng.csv | rankeval aggregate --method expected-wins
      rankeval convert --from wmt-rr wmt12.RNK_results.csv | rankeval aggregate --by lp --ci 0.95
    """
    options = dict(borda_missing=borda_missing, borda_points=borda_points, fv_denominator=fv_denominator,
                   approximate=approximate, bt_alpha=bt_alpha, bt_ties=bt_ties)
    run_and_write(files, input_format, exclude_systems, output, output_format, method, column, by,
                  higher_better, _ci.resolve(ci, bootstrap, seed), options)


def run_and_write(files, input_format, exclude_systems, output, output_format, method, column, by,
                  higher_better, resampling, options, command="aggregate"):
    """Read, aggregate and write the table; shared with ``rankeval borda``.

    ``resampling`` is the resolved --ci/--bootstrap/--seed (None: no rank ranges).
    """
    from ..aggregate.tables import ranking_records

    bootstrap, seed, level = (resampling.replicates, resampling.seed, resampling.level) if resampling else (0, 0, None)
    batches = _common.read_inputs(files, input_format, exclude_systems)
    rankings = compute(batches, method, column, by, higher_better, bootstrap, seed, options, level=level)
    with _common.output_stream(output) as out, _common.record_writer(out, output_format) as writer:
        writer.write_many(ranking_records(rankings, by, column, method, options, seed=seed, level=level,
                                         score_name="points" if command == "borda" else "score",
                                         command=command))


def compute(batches, method, column, by, higher_better, bootstrap, seed, options, level=0.95):
    """The rankings, with data errors mapped for the command line and counts reported."""
    from ..aggregate.kemeny import TooManyItems
    from ..aggregate.run import aggregate
    from ..aggregate.tables import report_counts
    from ..errors import DataError

    try:
        rankings = aggregate(batches, method, column=column, by=by, gold_higher_better=higher_better,
                             pred_higher_better=higher_better, bootstrap=bootstrap, seed=seed, level=level or 0.95,
                             **options)
    except TooManyItems as exc:
        raise DataError(f"{exc} (--approximate)") from None
    report_counts(rankings, by, _common.warn)
    if not rankings:
        _common.warn("no ranked groups in the input")
    return rankings
