"""``rankeval aggregate``: one system ranking from many rankings (docs/definitions.md#aggregation)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import click

from ..vocabulary import (DEFAULT_LEVEL, DEFAULT_METHOD, DEFAULT_SEED, IR_SUMMARY_FORMATS, RANK_BY, SCORE_METHODS,
                          VALUE_COLUMNS, Z_PROTOCOLS)
from . import _common, _fusion
from ._groups import option_group
from ._ranking import (METHOD_NAMES, Aggregation, bootstrap_options, method_options, ranking_options,
                       run_and_write)

SCORE_NAMES = tuple(SCORE_METHODS)
#: the options only the z-score method reads
SCORE_OPTIONS = ("rank_by", "shared_segments", "alpha", "protocol", "domain_column")


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
                        callback=_common.parsed_by(parser), default=DEFAULT_METHOD,
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


@dataclass(frozen=True)
class ZScoreOptions:
    """--rank-by, --shared-segments, --alpha, --protocol, --domain-column of the z-score method."""

    rank_by: str | None = None
    shared_segments: bool = False
    alpha: float = 0.05
    protocol: str = "wmt20-23"
    domain_column: str = "domain"

    @property
    def ranked_by(self) -> str:
        """What systems are ordered and tested by: --rank-by, else z (wmt24: raw)."""
        return self.rank_by or ("raw" if self.protocol == "wmt24" else "z")


def score_options(f):
    """Options of the z-score method (rankings from direct assessments, WMT17-24): the command's
    ``zscore`` (:class:`ZScoreOptions`)."""
    f = click.option("--domain-column", default="domain", show_default=True, metavar="COLUMN",
                     help="z-score wmt24: domain column\f"
                          "z-score wmt24: the column naming each segment's domain.")(f)
    f = click.option("--protocol", type=click.Choice(Z_PROTOCOLS), default="wmt20-23", show_default=True,
                     help="z-score: WMT's protocol\f"
                          "z-score: wmt20-23 (rank-sum tests) or wmt24 (domain macro-average, "
                          "signed-rank tests combined by Stouffer's method).")(f)
    f = click.option("--alpha", type=_common.FiniteFloat(0, 1, min_open=True, max_open=True), default=0.05,
                     show_default=True, metavar="P", help="z-score: significance level\f"
                     "z-score: p below this is a significant win.")(f)
    f = click.option("--shared-segments", is_flag=True,
                     help="z-score: test on the segments both have\f" "z-score: test each pair on the segments both were scored on (Appraise's scripts), "
                          "not on all of each (WMT20-22's official tests).")(f)
    f = click.option("--rank-by", type=click.Choice(RANK_BY), default=None,
                     help="z-score: z or raw [z; wmt24: raw]\f"
                          "z-score: order and test by the mean z-score (WMT17-22) or raw score "
                          "(WMT23-24, MQM) [default: z; wmt24: raw].")(f)
    return option_group(f, "zscore", SCORE_OPTIONS, ZScoreOptions)


@click.command(name="aggregate", cls=FusionHelpCommand)
@_common.input_options
@_common.output_options(formats=IR_SUMMARY_FORMATS)
@_common.jobs_options
@method_option("Method [default: expected-wins]\f"
               "Aggregation method: " + ", ".join(METHOD_NAMES + SCORE_NAMES) + "; or a run fusion method "
               "(below; aliases: bt, ge, gt, ew, wmt11-13, ts, and ranx's names of the fusion methods).",
               names=METHOD_NAMES + SCORE_NAMES, fusion=True)
@click.option("--column", type=click.Choice(VALUE_COLUMNS), default="gold", show_default=True,
              help="Aggregate gold, pred or both\f"
                   "Aggregate the gold ranks, the predicted ranks, or both side by side.")
@ranking_options
@method_options
@score_options
@_fusion.fusion_options
@bootstrap_options
@_common.handle_errors
def command(inputs, output, method, column, ranking, methods, zscore, fusion, resampling):
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
        if column != "gold" or output.format == "trec":
            raise click.UsageError("z-score ranks the gold (human) scores; give neither --column nor "
                                   "--output-format trec")
        if zscore.protocol == "wmt24" and zscore.shared_segments:
            raise click.UsageError("--shared-segments is wmt20-23's; wmt24 always tests on the shared segments")
        if zscore.protocol != "wmt24" and "--domain-column" in given:
            raise click.UsageError("--domain-column goes with --protocol wmt24")
        return score_and_write(inputs, output, ranking, zscore, resampling.resolved())
    if fusion.optimize:
        explicit = ctx.get_parameter_source("method") != click.core.ParameterSource.DEFAULT
        if explicit and not is_fusion(method):
            raise click.UsageError(f"--optimize chooses a run fusion; {method} is not one")
        level = DEFAULT_LEVEL if resampling.ci is None else resampling.ci
        return _fusion.optimize_and_write(inputs.files, output.path, output.format, method if explicit else None,
                                          fusion, replace(resampling, ci=level).resolved())
    if is_fusion(method):
        output_format = output.format
        source = click.get_current_context().get_parameter_source("output_format")
        if source == click.core.ParameterSource.DEFAULT:
            output_format = "trec"  # a fused run is a TREC run unless asked otherwise
        return _fusion.fuse_and_write(inputs.files, output.path, output_format, method, fusion)
    if fusion.given():
        raise click.UsageError(f"{fusion.given()[0]} goes with a run fusion method")
    if output.format == "trec" and column == "both":
        raise click.BadParameter("trec output writes one ranking per partition: give --column gold or pred",
                                 param_hint="--output-format")
    aggregation = Aggregation(method, column, ranking.by, ranking.higher_better, methods.keywords(ranking))
    if method == "trueskill" and resampling.ci is None and resampling.bootstrap is None:  # one run: --seed counts
        seed = resampling.seed
        run_and_write(inputs, output, aggregation, None, single_seed=DEFAULT_SEED if seed is None else seed)
        return
    run_and_write(inputs, output, aggregation, resampling.resolved())


def score_and_write(inputs, output, ranking, zscore: ZScoreOptions, resampling) -> None:
    """Rank systems by mean (z-)score with WMT's significance clusters and write the table."""
    from ..aggregate import zscore as procedure
    from ..signature import exclusion, signature

    z, by = zscore, ranking.by
    bootstrap, seed, level = ((resampling.replicates, resampling.seed, resampling.level) if resampling
                              else (0, 0, DEFAULT_LEVEL))
    rankings = procedure.rank_stream(inputs.read(), by=by, higher_better=ranking.higher_better, rank_by=z.ranked_by,
                                     shared_segments=z.shared_segments, alpha=z.alpha, bootstrap=bootstrap, seed=seed,
                                     level=level, protocol=z.protocol, domain_column=z.domain_column)
    procedure.report(rankings, by, _common.warn)
    if not rankings:
        _common.warn("no judgments in the input")
    fields = procedure.signature_fields(rankings, z.ranked_by, z.shared_segments, z.alpha, resampling, z.protocol,
                                        z.domain_column)
    sig = signature("aggregate", **fields, exclude=exclusion(inputs.exclude_systems))
    with output.stream() as out, _common.record_writer(out, output.format) as writer:
        writer.write_many(procedure.records(rankings, by, sig))
