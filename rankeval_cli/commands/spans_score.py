"""``rankeval spans score``: MQM or ESA segment scores recomputed from error spans."""

from __future__ import annotations

import click

from ..vocabulary import SPAN_LAYOUTS
from . import _common, _spans


@click.command(name="score")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, allow_dash=True))
@_spans.span_options
@click.option("--weights", default=None, metavar="SCHEME",
              help="mqm, esa or SEVERITY[/CATEGORY]:W ... [default: by format]\f"
                   "The error weights: mqm (Major 5, Minor 1, Neutral 0, Major/Non-translation! 25, "
                   "Minor/Fluency/Punctuation 0.1; Freitag et al. 2021), esa (Critical 25, Major 5, Minor 1, "
                   "Undecided 0, a rater's sum capped at 25; Kocmi et al. 2024) or items SEVERITY[/CATEGORY]:WEIGHT "
                   "separated by spaces or commas [default: esa for ESA files, else mqm].")
@click.option("--layout", type=click.Choice(SPAN_LAYOUTS), default="records", show_default=True,
              help="records, or Google's avg_seg_scores layout\f"
                   "records: one row per translation (lp system segment value raters signature), as "
                   "--output-format says; mqm: Google's avg_seg_scores layout (system mqm_avg_score seg_id; one "
                   "language pair), which meta-eval --human reads.")
@_common.output_options()
@_common.handle_errors
def command(files, fmt, lp, weights, layout, output):
    """Recompute segment scores from error spans: minus the weighted count of
    a translation's errors, averaged over its raters (Freitag et al. 2021),
    with MQM's or ESA's published weights.

    One row per translation: lp system segment value raters signature; with
    --layout mqm, Google's avg_seg_scores layout (system mqm_avg_score
    seg_id), which meta-eval --human reads. Errors without a position
    (omissions) and on the source count as any other.

    \b
    Examples:
      rankeval spans score mqm_ted_ende.tsv > ende.scores.tsv
      rankeval spans score --layout mqm mqm_ted_zhen.tsv \\
        > mqm_ted_zhen.avg_seg_scores.tsv
    """
    from ..signature import signature
    from ..stats.span_scores import parse_weights, segment_scores

    rows = []
    for path in files:
        table = _spans.read(path, fmt, lp)
        scheme = weights or ("esa" if _format(path, fmt) == "esa" else "mqm")
        try:
            parsed = parse_weights(scheme)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--weights") from None
        sig = signature("spans-score", weights=scheme.replace(" ", ","), cap=parsed.cap)
        rows += [{"lp": key[0], "system": key[1], "segment": key[2], "value": score, "raters": raters,
                  "signature": sig} for key, score, raters in segment_scores(table, parsed)]
    with output.stream() as out:
        if layout == "mqm":
            _write_mqm(out, rows)
            return
        with _common.record_writer(out, output.format) as writer:
            writer.write_many(rows)


def _format(path, fmt):
    from ..formats.span_readers import detect

    return detect(path) if fmt == "auto" else fmt


def _write_mqm(out, rows) -> None:
    """Google's layout: a space-separated header, then SYSTEM<TAB>SCORE SEG_ID (one language pair)."""
    from ..errors import DataError

    lps = sorted({r["lp"] for r in rows})
    if len(lps) > 1:
        raise DataError(f"--layout mqm holds one language pair; these files hold {', '.join(lps)}")
    out.write("system mqm_avg_score seg_id\n")
    out.write("".join(f"{r['system']}\t{r['value']!r} {r['segment']}\n" for r in rows))
