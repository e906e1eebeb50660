"""``rankeval tau``: Kendall's tau with a chosen tie convention, micro and macro averaged."""

from __future__ import annotations

import click

from ..vocabulary import SUMMARY_FORMATS, TAU_AVERAGES, TAU_CONVENTIONS, TAU_VARIANT
from . import _ci, _common, _position


def variant_option(default=TAU_VARIANT.default, help_text=TAU_VARIANT.help, aliases=("--ties",)):
    """``--tau-variant VARIANT``, shared by every command that computes tau (completion offers the
    variants and the WMT campaigns' names of them)."""
    return click.option(TAU_VARIANT.name, "variant", cls=_common.AliasOption, aliases=aliases, default=default,
                        show_default=default is not None, metavar="VARIANT",
                        callback=_common.parsed_by("measures.tau:canonical_variant"),
                        shell_complete=_common.completion_of(TAU_VARIANT.values + tuple(TAU_CONVENTIONS)),
                        help=help_text)


@click.command(name="tau")
@_common.input_options
@_common.output_options(formats=SUMMARY_FORMATS)
@_common.jobs_options
@variant_option()
@click.option("--average", type=click.Choice((*TAU_AVERAGES, "both")), default="both", show_default=True,
              help="micro: pooled pairs; macro: mean of groups\f"
                   "micro pools pair counts over groups; macro averages the group taus.")
@click.option("--per-group", is_flag=True,
              help="One row per group; the summary to stderr\f"
                   "Write one row per group (group, items, skipped, C, D, T_h, T_m, T_hm, tau, p_independence) as it is "
                   "computed; the summary then goes to stderr.")
@_common.higher_better_option("Values are scores (higher = better), not ranks []\f"
                              "gold and pred are scores (higher = better) rather than ranks. Counts are the "
                              "same either way; the flag is recorded in the signature.")
@_common.by_option()
@click.option("--calibrate-ties", is_flag=True,
              help="eq/acc-eq: choose the tie threshold epsilon\f"
                   "eq/acc-eq: count pred pairs with |pred difference| <= epsilon as ties, epsilon chosen "
                   "to maximize the --average micro or macro score (Deutsch et al. 2023). Holds all pairs "
                   "in memory.")
@click.option("--epsilon", type=_common.FiniteFloat(min=0), default=None, metavar="E",
              help="Pred pairs at most E apart are ties\f"
                   "Count pred pairs with |pred difference| <= E as pred ties, for any variant but c "
                   "(a fixed threshold; --calibrate-ties chooses one). Counts pair by pair; p is not given.")
@click.option("--min-diff", type=_common.FiniteFloat(min=0), default=None, metavar="D",
              help="Only pairs whose gold differ by >= D\f"
                   "Count only pairs whose gold values differ by at least D (WMT20's Kendall-like tau on "
                   "DA scores used 25). Counts pair by pair; p is not given.")
@_ci.ci_options
@_common.handle_errors
def command(inputs, output, variant, average, per_group, higher_better, by, calibrate_ties, epsilon, min_diff,
            resampling):
    """Kendall's tau between gold and pred within each group.

    Pairs are counted over the items of a group whose gold and pred are both
    present: C concordant, D discordant, T_h tied in gold only, T_m tied in
    pred only, T_hm tied in both. Variants (docs/definitions.md#tau):

    \b
      penalize  (C-D-T_m)/(C+D+T_m)        Avramidis 2013 eq. 2; WMT08-12, DARR
      ignore    (C-D)/(C+D)                WMT13
      wmt14     (C-D)/(C+D+T_m)            WMT14-16
      include   (C-D+T_hm)/N               N = all pairs
      a         (C-D)/N
      b         (C-D)/sqrt((C+D+T_h)(C+D+T_m))
      c         2(C-D)/(n^2 (m-1)/m)       m = min(#distinct gold, #distinct pred)
      eq        (C+T_hm-D-T_h-T_m)/N       Deutsch et al. 2023
      acc-eq    (C+T_hm)/N                 WMT23-25

    Micro tau pools the counts of all groups; macro tau is the mean over the
    groups where the tau is defined (groups; the others are counted in
    undefined). The p_independence column of the summary tests S = C-D summed
    over groups with Kendall's tie-corrected variance (Kendall 1945); per group
    it is Kendall's z test
    with n = ranked items (Avramidis 2013 eqs. 3-4).

    --ci adds a percentile bootstrap interval over groups to each average
    (columns micro_ci_low, micro_ci_high, macro_ci_low, macro_ci_high),
    computed from each group's pair counts (micro) or tau (macro). With
    --calibrate-ties the interval keeps the chosen epsilon fixed.

    --epsilon E makes pred pairs at most E apart ties; --min-diff D leaves out
    pairs whose gold values differ by less than D (then pairs tied in gold are
    left out too, for D > 0). Either counts pair by pair in memory.

    \b
    Examples:
      rankeval tau --tau-variant penalize --ci 0.95 < judgments.tsv
      rankeval tau --tau-variant darr --by lp darr.tsv
      rankeval tau --tau-variant acc-eq --calibrate-ties --average macro da.tsv

    \b
    More examples:
      rankeval tau --tau-variant b --average macro --per-group judgments.tsv
      rankeval tau --tau-variant darr --by lp --ci 0.95 --seed 1 darr.tsv
      rankeval tau --tau-variant penalize --higher-better --min-diff 25 da.tsv
    """
    from ..measures.tau import CALIBRATED, tau_partitions
    from ..partition import keyed
    from ..signature import exclusion, signature
    from ..stats.intervals import TauAverages

    if calibrate_ties and variant not in CALIBRATED:
        raise click.UsageError(f"--calibrate-ties applies to --tau-variant {' or '.join(CALIBRATED)}, not {variant}")
    if calibrate_ties and average == "both":
        raise click.UsageError("--calibrate-ties chooses epsilon for one average: give --average micro or macro")
    if calibrate_ties and epsilon is not None:
        raise click.UsageError("give --epsilon or --calibrate-ties, not both")
    if variant == "c" and (epsilon is not None or min_diff is not None):
        raise click.UsageError("--epsilon and --min-diff do not apply to --tau-variant c (its denominator counts "
                               "distinct values)")

    resampling = resampling.resolved()
    kept: dict = {}  # key -> per-group statistics for the bootstrap
    batches = inputs.read()
    with output.stream() as out:
        rows_out = _common.record_writer(out, output.format) if per_group else None

        def on_groups(key, rows):
            if rows_out:
                rows_out.write_many(rows.records())
            if resampling:
                kept.setdefault(key, TauAverages(variant, average)).keep(rows)

        summaries = tau_partitions(batches, variant, by, on_groups=on_groups,
                                   calibrate=average if calibrate_ties else None, epsilon=epsilon,
                                   min_diff=min_diff)
        sig = signature("tau", ties=variant, avg=average, scores=higher_better, calibrated=calibrate_ties or None,
                        eps=epsilon, min_diff=min_diff,
                        exclude=exclusion(inputs.exclude_systems), **(resampling.signature() if resampling else {}))
        records, skipped = [], 0
        for key, summary in summaries.items():
            record = _summary_record(summary, average, sig)
            if resampling:
                record = (kept.get(key) or TauAverages(variant, average)).with_intervals(record, resampling)
            records.append(keyed(record, by, key))
            skipped += summary.skipped
        _common.write_summary(out, records, output.format, per_group, rows_out)
    if skipped:
        noun = "item" if skipped == 1 else "items"
        _common.warn(f"skipped {skipped} {noun} lacking a gold or pred value")


def _summary_record(summary, average: str, sig: str) -> dict:
    record = {"measure": "tau", "variant": summary.variant}
    if average in ("micro", "both"):
        record["micro"] = summary.micro
    if average in ("macro", "both"):
        record["macro"] = summary.macro
    record.update(C=summary.C, D=summary.D, T_h=summary.T_h, T_m=summary.T_m, T_hm=summary.T_hm,
                  groups=summary.groups - summary.undefined, undefined=summary.undefined, skipped=summary.skipped,
                  p_independence=summary.p)
    if summary.epsilon is not None:
        record["epsilon"] = summary.epsilon
    record["signature"] = sig
    return record
