"""``rankeval aggregate``: one system ranking from many rankings (docs/definitions.md#aggregation)."""

from __future__ import annotations

import click

from . import _ci, _common, _fusion

METHOD_NAMES = ("borda", "fv", "ge-others", "gt-others", "expected-wins", "copeland", "kemeny", "bradley-terry",
                "trueskill")
SCORE_NAMES = ("z-score",)
#: the options only the z-score method reads
SCORE_OPTIONS = ("rank_by", "shared_segments", "alpha", "protocol", "domain_column")


def ranking_options(f):
    """Options shared by ``aggregate``, ``borda`` and ``correlate``: columns, partitions, Borda rules."""
    f = click.option("--points", "borda_points", type=click.Choice(("n-r", "n-r+1")), default="n-r",
                     show_default=True,
                     help="Borda points: N-r or N-r+1\f"
                          "Borda points for position r of an N-list: N-r (2,1,0 for three items) "
                          "or N-r+1 (3,2,1).")(f)
    f = click.option("--missing", "borda_missing", type=click.Choice(("ignore", "bottom")), default="ignore",
                     show_default=True,
                     help="Borda: absent items [default: ignore]\f"
                          "Borda: items absent from a list (or blank in it) earn nothing and the list counts "
                          "only its ranked items (ignore), or share the bottom positions of a list extended "
                          "to all items (bottom).")(f)
    f = _common.higher_better_option("Values are scores (higher = better), not ranks []\f"
                                     "The aggregated values are scores (higher = better), not ranks.",
                                     aliases=())(f)
    return _common.by_option("One ranking per value of this column (e.g. lp)\f"
                             "One ranking per value of this extra column (e.g. lp); repeatable. "
                             "The value must be constant within a group.")(f)


def bootstrap_options(f):
    """--ci LEVEL, --bootstrap N, --seed S as every command has them: here for rank ranges and clusters."""
    from . import _ci

    f = click.option(
        "--seed", type=click.IntRange(min=0), default=None, metavar="S",
        help="Seed of the bootstrap\f"
             f"Seed of the bootstrap (replicate b uses a generator spawned from it) [default: {_ci.DEFAULT_SEED}].")(f)
    f = click.option(
        "--bootstrap", type=click.IntRange(min=1), default=None, metavar="N",
        help="Bootstrap replicates [default: 1000]\f"
             f"Bootstrap replicates [default: {_ci.DEFAULT_REPLICATES}]; given alone it implies --ci 0.95.")(f)
    return click.option(
        "--ci", "ci", type=_common.FiniteFloat(0, 1, min_open=True, max_open=True), default=None, metavar="LEVEL",
        help="Rank ranges and clusters at this level\f"
             "Resample the groups and give each system its rank range at this level (rank_ci_low, rank_ci_high; e.g. 0.95) and "
             "WMT13-style clusters.")(f)


class _Names:
    """``names``, then the run fusion methods of the fusion table (read when first iterated)."""

    def __init__(self, names):
        self.names = names

    def __iter__(self):
        yield from self.names
        yield from _fusion._Lazy("methods")


def method_option(help_text: str, names=METHOD_NAMES, fusion: bool = False):
    """``--method NAME`` (the short -m of earlier releases is kept, hidden: -m is --measure elsewhere);
    the run fusion methods too where ``fusion``."""
    parser = "aggregate.registry:canonical" if fusion else "aggregate.registry:canonical_pairwise"
    return click.option("--method", "method", cls=_common.AliasOption, aliases=("-m",),
                        callback=_common.parsed_by(parser), default="expected-wins",
                        show_default=True, metavar="METHOD",
                        shell_complete=_common.completion_of(_Names(names) if fusion else names),
                        help=help_text)


class FusionHelpCommand(click.Command):
    """A command whose help's ``{fusion_methods}`` is the fusion table's list, made when read."""

    @property
    def help(self):
        if self._help and "{fusion_" in self._help:
            import inspect

            from ..aggregate.fusion.describe import help_block, names

            return inspect.cleandoc(self._help).replace("{fusion_methods}", help_block()).replace("{fusion_names}", " ".join(names()))
        return self._help

    @help.setter
    def help(self, value):
        self._help = value


def score_options(f):
    """Options of the z-score method (rankings from direct assessments, WMT17-24)."""
    f = click.option("--domain-column", default="domain", show_default=True, metavar="COLUMN",
                     help="z-score wmt24: domain column\f"
                          "z-score wmt24: the column naming each segment's domain.")(f)
    f = click.option("--protocol", type=click.Choice(("wmt20-23", "wmt24")), default="wmt20-23", show_default=True,
                     help="z-score: WMT's protocol\f"
                          "z-score: wmt20-23 (rank-sum tests) or wmt24 (domain macro-average, "
                          "signed-rank tests combined by Stouffer's method).")(f)
    f = click.option("--alpha", type=_common.FiniteFloat(0, 1, min_open=True, max_open=True), default=0.05,
                     show_default=True, metavar="P", help="z-score: significance level\f"
                     "z-score: p below this is a significant win.")(f)
    f = click.option("--shared-segments", is_flag=True,
                     help="z-score: test on the segments both have\f" "z-score: test each pair on the segments both were scored on (Appraise's scripts), "
                          "not on all of each (WMT20-22's official tests).")(f)
    return click.option("--rank-by", type=click.Choice(("z", "raw")), default=None,
                        help="z-score: z or raw [z; wmt24: raw]\f"
                             "z-score: order and test by the mean z-score (WMT17-22) or raw score "
                             "(WMT23-24, MQM) [default: z; wmt24: raw].")(f)


def method_options(f):
    f = click.option("--bt-ties", type=click.Choice(("ignore", "half")), default="ignore", show_default=True,
                     help="bradley-terry: ties [default: ignore]\f"
                          "bradley-terry: drop tied comparisons, or count each as half a win per side.")(f)
    f = click.option("--bt-alpha", type=_common.FiniteFloat(min=0, min_open=True), default=0.01, show_default=True,
                     metavar="ALPHA",
                     help="bradley-terry: L2 penalty alpha\f"
                          "bradley-terry: L2 penalty alpha*sum(theta^2) (choix's convention).")(f)
    f = click.option("--approximate", is_flag=True,
                     help="kemeny: local search (beyond 20 items)\f"
                          "kemeny: local search instead of the exact search (required beyond 20 items).")(f)
    return click.option("--fv-denominator", type=click.Choice(("pair", "all")), default="pair",
                        show_default=True,
                        help="fv: P_ij over pairs or all groups\f"
                             "fv: P_ij over the comparisons of i and j (pair) or over all groups (all, "
                             "Duh 2008's wording).")(f)


@click.command(name="aggregate", cls=FusionHelpCommand)
@_common.input_options
@_common.output_options(formats=_common.SUMMARY_FORMATS + ("trec",))
@_common.jobs_options
@method_option("Method [default: expected-wins]\f"
               "Aggregation method: " + ", ".join(METHOD_NAMES + SCORE_NAMES) + "; or a run fusion method "
               "(below; aliases: bt, ge, gt, ew, wmt11-13, ts, and ranx's names of the fusion methods).",
               names=METHOD_NAMES + SCORE_NAMES, fusion=True)
@click.option("--column", type=click.Choice(("gold", "pred", "both")), default="gold", show_default=True,
              help="Aggregate gold, pred or both\f"
                   "Aggregate the gold ranks, the predicted ranks, or both side by side.")
@ranking_options
@method_options
@score_options
@_fusion.fusion_options
@bootstrap_options
@_common.handle_errors
def command(files, input_format, exclude_systems, output, output_format, method, column, by, higher_better,
            borda_missing, borda_points, fv_denominator, approximate, bt_alpha, bt_ties, rank_by, shared_segments,
            alpha, protocol, domain_column, fusion, ci, bootstrap, seed):
    """Aggregate many rankings (groups) into one ranking of their items
    (systems): WMT's methods, TrueSkill, z-scores, Kemeny, Bradley-Terry; or
    fuse TREC runs: {fusion_names}.

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
      trueskill      mean skill mu of TrueSkill, WMT14-16 procedure (Sakaguchi
                     et al. 2014): mu0 0, sigma0 0.5, beta = sigma0 * plays/40,
                     tau 0, 25% draws, actively chosen pairs; --bootstrap N:
                     N runs on resampled comparisons, mean mu, rank ranges,
                     clusters (WMT15-16)
      z-score        scores, not ranks (DA, ESA, MQM; WMT17-24): z per judge,
                     mean over segments; one-sided rank-sum wins, clusters;
                     --protocol wmt24: WMT24's per-domain procedure;
                     --ci: segment bootstrap, ci_low ci_high
                     (docs/human-rankings.md)

    {fusion_methods}

    \b
    Definitions: docs/definitions.md#aggregation.

    \b
    Output columns: [BY...] system value rank [rank_ci_low rank_ci_high cluster]
    signature; --column both: system gold_value gold_rank [gold_rank_ci_low ...]
    pred_value pred_rank ...; run fusion: qid Q0 docno rank score tag (trec), or
    group item rank score signature (tsv, jsonl); other methods with
    --output-format trec: each ranking as a run (qid = the --by values or 'all',
    docno = item); z-score: [BY...] system value raw z groups judgments wins
    losses rank rank_ci_low rank_ci_high cluster [ci_low ci_high] signature.

    \b
    Examples:
      rankeval convert --from wmt-rr wmt12.RNK_results.csv \\
        | rankeval aggregate --by lp --method expected-wins --ci 0.95
      rankeval aggregate --method trueskill --bootstrap 1000 judgments.tsv
      rankeval aggregate --method rrf examples/trec/*.run

    \b
    More examples:
      rankeval convert --from appraise scores.csv \\
        | rankeval aggregate --method z-score --by lp
    """
    from ..aggregate.registry import is_fusion

    ctx = click.get_current_context()
    given = [f"--{name.replace('_', '-')}" for name in SCORE_OPTIONS
             if ctx.get_parameter_source(name) != click.core.ParameterSource.DEFAULT]
    if method != "z-score" and given:
        raise click.UsageError(f"{given[0]} goes with --method z-score")
    if method == "z-score":
        if column != "gold" or output_format == "trec":
            raise click.UsageError("z-score ranks the gold (human) scores; give neither --column nor "
                                   "--output-format trec")
        if protocol == "wmt24" and shared_segments:
            raise click.UsageError("--shared-segments is wmt20-23's; wmt24 always tests on the shared segments")
        if protocol != "wmt24" and "--domain-column" in given:
            raise click.UsageError("--domain-column goes with --protocol wmt24")
        return score_and_write(files, input_format, exclude_systems, output, output_format, by, higher_better,
                               rank_by or ("raw" if protocol == "wmt24" else "z"), shared_segments, alpha,
                               _ci.resolve(ci, bootstrap, seed), protocol, domain_column)
    if fusion.optimize:
        explicit = ctx.get_parameter_source("method") != click.core.ParameterSource.DEFAULT
        if explicit and not is_fusion(method):
            raise click.UsageError(f"--optimize chooses a run fusion; {method} is not one")
        return _fusion.optimize_and_write(files, output, output_format, method if explicit else None, fusion,
                                          _ci.resolve(0.95 if ci is None else ci, bootstrap, seed))
    if is_fusion(method):
        source = click.get_current_context().get_parameter_source("output_format")
        if source == click.core.ParameterSource.DEFAULT:
            output_format = "trec"  # a fused run is a TREC run unless asked otherwise
        return _fusion.fuse_and_write(files, output, output_format, method, fusion)
    if fusion.given():
        raise click.UsageError(f"{fusion.given()[0]} goes with a run fusion method")
    if output_format == "trec" and column == "both":
        raise click.BadParameter("trec output writes one ranking per partition: give --column gold or pred",
                                 param_hint="--output-format")
    options = dict(borda_missing=borda_missing, borda_points=borda_points, fv_denominator=fv_denominator,
                   approximate=approximate, bt_alpha=bt_alpha, bt_ties=bt_ties)
    if method == "trueskill" and ci is None and bootstrap is None:  # one run: random too, --seed counts
        run_and_write(files, input_format, exclude_systems, output, output_format, method, column, by,
                      higher_better, None, options, single_seed=_ci.DEFAULT_SEED if seed is None else seed)
        return
    run_and_write(files, input_format, exclude_systems, output, output_format, method, column, by,
                  higher_better, _ci.resolve(ci, bootstrap, seed), options)


def score_and_write(files, input_format, exclude_systems, output, output_format, by, higher_better, rank_by,
                    shared_segments, alpha, resampling, protocol="wmt20-23", domain_column="domain"):
    """Rank systems by mean (z-)score with WMT's significance clusters and write the table."""
    from ..aggregate import zscore
    from ..signature import signature

    bootstrap, seed, level = ((resampling.replicates, resampling.seed, resampling.level) if resampling
                              else (0, 0, 0.95))
    rankings = zscore.rank_stream(_common.read_inputs(files, input_format, exclude_systems), by=by,
                                  higher_better=higher_better, rank_by=rank_by, shared_segments=shared_segments,
                                  alpha=alpha, bootstrap=bootstrap, seed=seed, level=level, protocol=protocol,
                                  domain_column=domain_column)
    zscore.report(rankings, by, _common.warn)
    if not rankings:
        _common.warn("no judgments in the input")
    fields = zscore.signature_fields(rankings, rank_by, shared_segments, alpha, resampling, protocol, domain_column)
    sig = signature("aggregate", **fields, exclude=_ci.exclusion(exclude_systems))
    with _common.output_stream(output) as out, _common.record_writer(out, output_format) as writer:
        writer.write_many(zscore.records(rankings, by, sig))


def run_and_write(files, input_format, exclude_systems, output, output_format, method, column, by,
                  higher_better, resampling, options, command="aggregate", single_seed: int = 0):
    """Read, aggregate and write the table; shared with ``rankeval borda``.

    ``resampling`` is the resolved --ci/--bootstrap/--seed (None: no rank ranges);
    ``single_seed`` seeds TrueSkill's one run when there is no resampling.
    """
    from ..aggregate.ranking_records import ranking_records

    bootstrap, seed, level = ((resampling.replicates, resampling.seed, resampling.level) if resampling
                              else (0, single_seed, None))
    batches = _common.read_inputs(files, input_format, exclude_systems)
    rankings = compute(batches, method, column, by, higher_better, bootstrap, seed, options, level=level)
    if output_format == "trec":
        with _common.output_stream(output) as out:
            write_rankings_as_run(out, rankings, method)
        return
    with _common.output_stream(output) as out, _common.record_writer(out, output_format) as writer:
        writer.write_many(ranking_records(rankings, by, column, method, options, seed=seed, level=level,
                                         command=command))


def write_rankings_as_run(out, rankings, method):
    """Each ranking as one query of a TREC run: qid = the --by values joined by '/' (or 'all'),
    docno = item, in ranking order; items without a score are left out. Such runs can be fused."""
    import numpy as np

    from ..formats.trec_writer import write_run

    for ranking in rankings:
        keep = ~np.isnan(ranking.scores)
        items = np.asarray([str(i) for i in ranking.items], dtype=str)[keep]
        if any(any(ch.isspace() for ch in i) for i in items.tolist()):
            from ..errors import DataError

            raise DataError("an item id holds white space and cannot be a TREC docno")
        qid = "/".join(str(k) for k in ranking.key) or "all"
        write_run(out, np.full(len(items), qid.replace(" ", "_")), items, ranking.ranks[keep],
                  ranking.scores[keep], method)


def compute(batches, method, column, by, higher_better, bootstrap, seed, options, level=0.95):
    """The rankings, with data errors mapped for the command line and counts reported."""
    from ..aggregate.kemeny import TooManyItems
    from ..aggregate.run import aggregate
    from ..aggregate.ranking_records import report_counts
    from ..errors import DataError

    from ..pipeline import phase

    try:
        with phase(f"{method}" + (f" x {bootstrap} replicates" if bootstrap else "")):
            rankings = aggregate(batches, method, column=column, by=by, gold_higher_better=higher_better,
                                 pred_higher_better=higher_better, bootstrap=bootstrap, seed=seed,
                                 level=level or 0.95, **options)
    except TooManyItems as exc:
        raise DataError(f"{exc} (--approximate)") from None
    report_counts(rankings, by, _common.warn)
    if not rankings:
        _common.warn("no ranked groups in the input")
    return rankings
