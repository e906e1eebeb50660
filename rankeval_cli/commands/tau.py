"""``rankeval tau``: Kendall's tau with a chosen tie convention, micro and macro averaged."""

from __future__ import annotations

import click

from . import _ci, _common, _position

# Kept here (not imported from the measure) so that --help loads no numpy.
VARIANTS = ("penalize", "ignore", "wmt14", "include", "a", "b", "c", "eq", "acc-eq")
AVERAGES = ("micro", "macro", "both")



@click.command(name="tau")
@_common.input_options
@_common.output_options(formats=_common.SUMMARY_FORMATS)
@click.option("--ties", "variant", default="penalize", show_default=True, callback=_common.parsed_by("measures.tau:canonical_variant"), metavar="VARIANT",
              help="Tie convention: penalize (WMT08-12, DARR), ignore (WMT13), wmt14 (WMT14-16), include, "
                   "a, b (scipy), c, eq, acc-eq (WMT23-25); aliases wmt08..wmt16, darr. Case-insensitive.")
@click.option("--average", type=click.Choice(AVERAGES), default="both", show_default=True,
              help="micro pools pair counts over groups; macro averages the group taus.")
@click.option("--per-group", is_flag=True,
              help="Write one row per group (group, n, skipped, C, D, T_h, T_m, T_hm, tau, p) as it is "
                   "computed; the summary then goes to stderr.")
@click.option("--scores", is_flag=True,
              help="gold and pred are scores (higher = better) rather than ranks. Counts are the same "
                   "either way; the flag is recorded in the signature.")
@click.option("--calibrate-ties", is_flag=True,
              help="eq/acc-eq: count pred pairs with |pred difference| <= epsilon as ties, epsilon chosen "
                   "to maximize the --average micro or macro score (Deutsch et al. 2023). Holds all pairs "
                   "in memory.")
@_ci.ci_options
@_common.handle_errors
def command(files, input_format, exclude_systems, output, output_format, variant, average, per_group,
            scores, calibrate_ties, ci, bootstrap, seed):
    """Kendall's tau between gold and pred within each group.

    Pairs are counted over the items of a group whose gold and pred are both
    present: C concordant, D discordant, T_h tied in gold only, T_m tied in
    pred only, T_hm tied in both. Variants (REFERENCE.md §3):

    \b
      penalize  (C-D-T_m)/(C+D+T_m)        seed 000 eq. 2; WMT08-12, DARR
      ignore    (C-D)/(C+D)                WMT13
      wmt14     (C-D)/(C+D+T_m)            WMT14-16
      include   (C-D+T_hm)/N               N = all pairs
      a         (C-D)/N
      b         (C-D)/sqrt((C+D+T_h)(C+D+T_m))
      c         2(C-D)/(n^2 (m-1)/m)       m = min(#distinct gold, #distinct pred)
      eq        (C+T_hm-D-T_h-T_m)/N       Deutsch et al. 2023
      acc-eq    (C+T_hm)/N                 WMT23-25

    Micro tau pools the counts of all groups; macro tau is the mean over the
    groups where the tau is defined (the count of the others is reported). The
    p column of the summary tests S = C-D summed over groups with Kendall's
    tie-corrected variance; per-group p uses seed 000 eqs. 3-4.

    --ci adds a percentile bootstrap interval over groups to each average
    (columns micro_ci_low, micro_ci_high, macro_ci_low, macro_ci_high),
    computed from each group's pair counts (micro) or tau (macro). With
    --calibrate-ties the interval keeps the chosen epsilon fixed.

    \b
    Examples:
      rankeval tau --ties penalize < pairs.tsv
      rankeval tau --ties b --average macro --per-group judgments.tsv
      rankeval tau --ties acc-eq --scores --calibrate-ties --average macro da.tsv
      rankeval tau --ties darr --ci 0.95 --bootstrap 1000 --seed 1 darr.tsv
    """
    from ..measures.tau import CALIBRATED, tau_stream
    from ..summary import RecordWriter, signature

    if calibrate_ties and variant not in CALIBRATED:
        raise click.UsageError(f"--calibrate-ties applies to --ties {' or '.join(CALIBRATED)}, not {variant}")
    if calibrate_ties and average == "both":
        raise click.UsageError("--calibrate-ties chooses epsilon for one average: give --average micro or macro")

    resampling = _ci.resolve(ci, bootstrap, seed)
    kept = _new_columns() if resampling else None
    batches = _common.read_inputs(files, input_format, exclude_systems)
    with _common.output_stream(output) as out:
        rows_out = RecordWriter(out, output_format) if per_group else None

        def on_groups(rows):
            if rows_out:
                rows_out.write_many(rows.records())
            if kept:
                _keep(kept, rows, average)

        summary = tau_stream(batches, variant, on_groups=on_groups, calibrate=average if calibrate_ties else None)
        sig = signature("tau", ties=variant, avg=average, scores=scores, calibrated=calibrate_ties or None,
                        exclude=_ci.exclusion(exclude_systems), **(resampling.signature() if resampling else {}))
        record = _summary_record(summary, average, sig)
        if resampling:
            record = _with_intervals(record, variant, average, kept, resampling)
        _position.write_summary(out, [record], output_format, per_group)
    if summary.skipped:
        noun = "item" if summary.skipped == 1 else "items"
        _common.warn(f"skipped {summary.skipped} {noun} lacking a gold or pred value")


def _new_columns():
    from ..stats.resample import GroupColumns

    return GroupColumns()


def _keep(columns, rows, average: str) -> None:
    """Keep a batch's per-group pair counts (micro) and/or taus (macro) for the bootstrap."""
    from ..stats.resample import tau_raw

    if average != "macro":
        columns.add("micro", tau_raw(rows.counts))
    if average != "micro":
        columns.add("macro", rows.tau)


def _with_intervals(record: dict, variant: str, average: str, columns, resampling) -> dict:
    """The record with <avg>_ci_low, <avg>_ci_high after each average's value."""
    from ..stats.resample import MeanStat, TauMicroStat, bootstrap_intervals

    averages = ("micro", "macro") if average == "both" else (average,)
    stats = {"micro": TauMicroStat(variant), "macro": MeanStat()}
    intervals = bootstrap_intervals([stats[a] for a in averages], [columns.get(a) for a in averages],
                                    resampling.level, resampling.replicates, resampling.seed)
    bounds = dict(zip(averages, intervals))
    out = {}
    for key, value in record.items():
        out[key] = value
        if key in bounds:
            out[f"{key}_ci_low"], out[f"{key}_ci_high"] = bounds[key]
    return out


def _summary_record(summary, average: str, sig: str) -> dict:
    record = {"measure": "tau", "variant": summary.variant}
    if average in ("micro", "both"):
        record["micro"] = summary.micro
    if average in ("macro", "both"):
        record["macro"] = summary.macro
    record.update(C=summary.C, D=summary.D, T_h=summary.T_h, T_m=summary.T_m, T_hm=summary.T_hm,
                  groups=summary.groups, undefined=summary.undefined, skipped=summary.skipped, p=summary.p)
    if summary.epsilon is not None:
        record["epsilon"] = summary.epsilon
    record["signature"] = sig
    return record
