"""``rankeval plot``: figures for papers (matplotlib, an optional extra, imported only here)."""

from __future__ import annotations

import sys

import click

from ..vocabulary import DEFAULT_METHOD, FIGURE_FORMATS, PLOT_KINDS, PLOT_STYLES
from . import _common
from ._ranking import METHOD_NAMES, method_options, ranking_options


def _figure_path(ctx, param, value):
    suffix = value.rsplit(".", 1)[-1].lower() if "." in value else ""
    if suffix not in FIGURE_FORMATS:
        raise click.BadParameter(f"{value!r}: the file name must end in .png, .svg or .pdf")
    return value


def _split_commas(ctx, param, value):
    return tuple(v.strip() for text in value for v in text.split(",") if v.strip())


@click.command(name="plot")
@click.argument("kind", type=click.Choice(PLOT_KINDS), metavar="KIND")
@_common.input_options
@click.option("-o", "--output", required=True, metavar="FIGURE", type=click.Path(dir_okay=False),
              callback=_figure_path,
              help="The figure: FILE.png, .svg or .pdf [required]\f" "The figure: FILE.png, FILE.svg or FILE.pdf (the suffix gives the format). Written to a "
                   "temporary file and renamed.")
@click.option("--aggregates", is_flag=True,
              help="scatter: FILES are aggregate tables\f" "scatter: FILES are aggregate tables, two with a value column each (x = human first, "
                   "y = metric second) or one with gold_value and pred_value (--column both).")
@click.option("--method", callback=_common.parsed_by("aggregate.registry:canonical_pairwise"), default=DEFAULT_METHOD,
              show_default=True, metavar="NAME", shell_complete=_common.completion_of(METHOD_NAMES),
              help="scatter: aggregation method [default: expected-wins]\f" "scatter from a stream: how the gold and pred system scores are aggregated: "
                   + ", ".join(METHOD_NAMES) + " (docs/definitions.md#aggregation).")
@ranking_options
@method_options
@click.option("--column", "measures", cls=_common.AliasOption, aliases=("-m", "--measure"), multiple=True,
              metavar="NAME", callback=_split_commas,
              help="distribution: the column(s) to draw\f" "distribution: the per-group column(s) to draw (repeatable, or a comma list); default: "
                   "the one measure column of each file (tau, mrr, ndcg, err, rankdcg, ...).")
@click.option("--metric", "metrics", multiple=True, metavar="NAME", callback=_split_commas,
              help="scatter: the metrics of meta-eval scores\f"
                   "scatter of meta-eval --system-scores output: the metrics to draw (repeatable, or a comma "
                   "list) [default: every one].")
@click.option("--lp", "lps", multiple=True, metavar="XX-YY", callback=_split_commas,
              help="bars, significance: language pairs\f"
                   "bars, significance: the language pairs to draw, one panel each (repeatable, or a comma list) [default: "
                   "every one the statistic has a value for; lp all for the average].")
@click.option("--style", type=click.Choice(PLOT_STYLES), default="box", show_default=True,
              help="distribution: box or violin [default: box]\f" "distribution: box plots (quartiles, whiskers at 1.5 IQR, mean as a triangle) or violins.")
@click.option("--label", "labels", multiple=True, metavar="TEXT",
              help="Series names, or the x and y axis titles\f" "distribution: the name of each series in order (default: file name or column); "
                   "scatter: the x then the y axis title. Repeatable.")
@click.option("--title", metavar="TEXT", help="A title over the figure.")
@click.option("--rename", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Names to draw, OLD<TAB>NEW per line\f"
                   "ranking, scatter: the names to draw, one OLD<TAB>NEW per line (OLD: a system's id or its "
                   "short name); names not listed are drawn short (WMT ids without test set, language pair "
                   "and submission number: OPPO.1481 -> OPPO).")
@click.option("--keep-ids", is_flag=True,
              help="Draw full system ids\f"
                   "ranking, scatter: draw system ids as they are (OPPO.1481), not shortened.")
@click.option("--dpi", type=click.IntRange(min=20, max=1200), default=150, show_default=True, metavar="DPI",
              help="PNG resolution [default: 150]\f" "Resolution of a PNG (dots per inch).")
@click.pass_context
@_common.handle_errors
def command(ctx, kind, inputs, output, aggregates, method, ranking, methods, measures, metrics, lps, style, labels,
            title, rename, keep_ids, dpi):
    """Draw a figure for a paper: system rankings (KIND ranking), metric vs
    human system scores (scatter), a per-group measure (distribution), a
    meta-eval table as ranked bars (bars) or pairwise p-values (significance).

    \b
    KIND is one of:
      ranking       an `aggregate --bootstrap N` table: each system a row,
                    best first, a bar over its 95% bootstrap rank range, a
                    dot at its rank, its score at the right; clusters shaded
                    alternately (WMT style). --by COLUMN: one panel per value.
      scatter       metric (y) against human (x) system scores, one labelled
                    point per system; the legend gives Pearson r and Kendall
                    tau-b, as `rankeval correlate` computes them. From a
                    stream with gold and pred (aggregated twice with
                    --method), or --aggregates TABLE(S). --by: one panel per
                    value.
                    From meta-eval --system-scores FILE: one panel per
                    language pair and metric (--metric), the legend's r and
                    pairwise accuracy those of the meta-eval table.
      confusion     a `judges` table: per candidate its confusion counts
                    against the reference (heatmap), kappa in the title;
                    scatter of a judges table: each system's value under
                    the reference (x) and a candidate (y), tau in the title.
      distribution  a per-group measure (`--per-group` output) for several
                    predictions side by side: one box (or violin) per file,
                    per system of a file of several runs, or per --column;
                    --by COLUMN: one box per value. Undefined values
                    (nan) are left out and counted on stderr.
      bars          a meta-eval (or spans eval) summary: each metric's
                    average over tasks (or --column STATISTIC, one panel per
                    --lp) as a bar, best first, whiskers over its bootstrap
                    interval, significance clusters shaded alternately.
      significance  the pairwise permutation p-values of meta-eval --pairs:
                    one heatmap per task (--column, --lp choose), dark
                    where the row metric beats the column metric.

    The format is the suffix of -o: PNG, SVG or PDF. SVG and PDF carry no date,
    so the same input gives the same bytes. Needs matplotlib:
    pip install 'rankeval-cli[plot]'.

    \b
    Definitions: docs/definitions.md#rank-ranges, #clusters,
    #system-correlation (the legend's r and tau).

    \b
    Examples:
      rankeval plot ranking --by lp ranks.tsv -o ranks.pdf
      rankeval plot scatter --by lp --rename names.tsv -o chrf.svg < darr.tsv
      rankeval plot distribution ndcg-unk.tsv ndcg-length.tsv -o ndcg.png

    \b
    Meta-evaluation figures (man rankeval-meta-eval):
      rankeval meta-eval ... --ci 0.95 --system-scores ss.tsv -o me.tsv
      rankeval plot scatter --metric chrF ss.tsv -o chrf.pdf
      rankeval plot bars me.tsv -o average.pdf
      rankeval plot significance --column spa pairs.tsv -o spa.pdf

    Names: ranking and scatter draw system ids short (WMT ids without test set,
    language pair and submission number: newstest2016.online-B.0.ro-en ->
    online-B, OPPO.1481 -> OPPO; two submissions of one team keep their ids);
    --rename FILE maps ids or short names to the names to draw (OLD<TAB>NEW),
    --keep-ids draws the ids as they are. Every text is drawn as written (no
    TeX: $, ^, _ and backslashes are plain characters). Scatter labels are moved
    apart and kept inside the axes (adjustText, installed with the plot extra).
    """
    _check_applies(ctx, kind)
    files = list(inputs.files) or ["-"]  # no file: the table or stream on stdin
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        click.echo("rankeval: plot needs matplotlib: pip install 'rankeval-cli[plot]'", err=True)
        sys.exit(1)
    from ..figures import draw
    from ..figures.data import display_names, read_renames

    renames = read_renames(rename) if rename else {}
    with draw.missing_glyphs(_common.warn):
        if kind == "confusion" or (kind == "scatter" and _is_judges(files)):
            from ..judging import figures

            records = figures.read(files[0])
            fig = (figures.confusion_figure if kind == "confusion" else figures.scatter_figure)(records, title)
        elif kind == "ranking":
            rankings = _rankings(files, ranking.by)
            for table in rankings:
                table.items = display_names(table.items, renames, keep_ids)
            fig = draw.ranking_figure(rankings, ranking.by, title)
        elif kind == "scatter" and _system_scores(files):
            fig = _metaeval_scatter(ctx, files, metrics, labels, renames, keep_ids, title)
        elif kind == "scatter":
            panels, xlabel, ylabel = _scatter(files, inputs, aggregates, method, ranking, methods.keywords(ranking),
                                              labels)
            for panel in panels:
                panel.items = display_names(panel.items, renames, keep_ids)
            fig = draw.scatter_figure(panels, ranking.by, xlabel, ylabel, title)
        elif kind == "bars":
            fig = _bars(files, measures, lps, title)
        elif kind == "significance":
            fig = _significance(files, measures, lps, title)
        else:
            series = _series(files, measures, labels, _split_commas(None, None, ranking.by) or None)
            columns = {s.column for s in series}
            ylabel = columns.pop() if len(columns) == 1 else "value"
            fig = draw.distribution_figure(series, style, ylabel, title)
        draw.save(fig, output, dpi=dpi)


#: options that belong to one kind of figure: name -> kinds it applies to
_ONLY = {"aggregates": ("scatter",), "method": ("scatter",), "measures": ("distribution", "bars", "significance"),
         "metrics": ("scatter",), "lps": ("bars", "significance"), "labels": ("scatter", "distribution"),
         "rename": ("ranking", "scatter"), "keep_ids": ("ranking", "scatter"),
         "style": ("distribution",), "by": ("ranking", "scatter", "distribution"), "input_format": ("scatter",),
         "exclude_systems": ("scatter",), "higher_better": ("scatter",)}


def _check_applies(ctx, kind: str) -> None:
    from click.core import ParameterSource

    for name, kinds in _ONLY.items():
        if kind not in kinds and ctx.get_parameter_source(name) is ParameterSource.COMMANDLINE:
            option = _common.shown_name(next(p for p in ctx.command.params if p.name == name))
            raise click.UsageError(f"{option} does not apply to plot {kind} (only to {', '.join(kinds)})")
    files = ctx.params["files"]
    if kind in ("ranking", "bars", "significance") and len(files) > 1:
        raise click.UsageError(f"plot {kind} takes one {'aggregate table' if kind == 'ranking' else 'table'}")
    if kind in ("bars", "significance") and len(ctx.params["measures"]) > 1:
        raise click.UsageError(f"plot {kind} draws one statistic (--column NAME)")
    if kind == "confusion" and len(files) != 1:
        raise click.UsageError("plot confusion takes one judges table")


def _system_scores(files) -> bool:
    """Whether the scatter's input is meta-eval --system-scores output (a file's header tells)."""
    from ..figures.metaeval_data import is_system_scores

    if len(files) != 1 or files[0] == "-":
        return False
    from ..figures.data import records

    rows = records(files[0])
    try:
        first = next(rows, None)
    finally:
        rows.close()
    return first is not None and is_system_scores(first[1])


def _metaeval_scatter(ctx, files, metrics, labels, renames, keep_ids, title):
    """Metric against human system scores of meta-eval --system-scores, one panel per (lp, metric)."""
    from click.core import ParameterSource

    from ..figures import draw
    from ..figures.data import display_names
    from ..figures.metaeval_data import system_score_panels

    for name in ("aggregates", "method", "by", "higher_better", "input_format", "exclude_systems"):
        if ctx.get_parameter_source(name) is ParameterSource.COMMANDLINE:
            option = _common.shown_name(next(p for p in ctx.command.params if p.name == name))
            raise click.UsageError(f"{option} does not apply to meta-eval system scores")
    if len(labels) > 2:
        raise click.UsageError("plot scatter takes at most two --label values (x, then y)")
    panels = system_score_panels(files[0], metrics)
    for panel in panels:
        panel.items = display_names(panel.items, renames, keep_ids)
    names = ["human system score", "metric system score"]
    names[: len(labels)] = labels
    return draw.scatter_figure(panels, ("lp", "metric"), names[0], names[1], title)


def _significance(files, measures, lps, title):
    from ..figures.metaeval_data import significance_panels
    from ..figures.metaeval_draw import significance_figure

    panels = significance_panels(files[0] if files else "-", measures[0] if measures else None, lps)
    if not panels:
        _common.warn(f"{files[0] if files else '-'}: no pair of metrics; the figure is empty")
    return significance_figure(panels, title)


def _bars(files, measures, lps, title):
    from ..figures.metaeval_data import bar_panels
    from ..figures.metaeval_draw import bars_figure

    return bars_figure(bar_panels(files[0] if files else "-", measures[0] if measures else "avg", lps), title)


def _is_judges(files) -> bool:
    """A judges table (one file) is drawn by :mod:`rankeval_cli.judging.figures`."""
    from ..judging.paper import read_judges_table

    return len(files) == 1 and files[0] != "-" and read_judges_table(files[0]) is not None


def _rankings(files, by):
    from ..figures.data import read_rankings

    rankings = read_rankings(files[0], by)
    if not rankings:
        _common.warn(f"{files[0]}: no ranked system in the table; the figure is empty")
    elif not any(r.has_ranges for r in rankings):
        _common.warn("no rank_ci_low/rank_ci_high columns: rank ranges need `rankeval aggregate --ci LEVEL`")
    return rankings


def _scatter(files, inputs, aggregates, method, ranking, options, labels):
    from ..figures.data import scatter_panels

    from .correlate import _from_groups, _from_tables

    if len(labels) > 2:
        raise click.UsageError("plot scatter takes at most two --label values (x, then y)")
    if aggregates:
        pairs = _from_tables(files, ranking.by)
        names = [f.rsplit("/", 1)[-1] for f in files] if len(files) == 2 else ["gold score", "pred score"]
    else:
        pooled: dict = {}
        pairs = _from_groups(inputs, method, ranking, options, pooled=pooled)[0]
        names = [f"human: gold, {method}", f"metric: pred, {method}"]
        for column, values in pooled.items():
            if len(values) > 1:
                shown = ", ".join(sorted(map(str, values))[:4]) + (", ..." if len(values) > 4 else "")
                _common.warn(f"the stream holds {len(values)} {column} values ({shown}): each system's scores pool "
                             f"them; --by {column} draws one panel per value")
    panels = scatter_panels(pairs)
    if not panels:
        _common.warn("no system scored on both sides; the figure is empty")
    for panel in panels:
        where = ", ".join(f"{b}={k}" for b, k in zip(ranking.by, panel.key))
        if not panel.items:
            _common.warn(f"{where + ': ' if where else ''}no system scored on both sides; the panel is empty")
        if panel.unmatched:
            _common.warn(f"{where + ': ' if where else ''}{panel.unmatched} system(s) scored on one side only "
                         "left out")
    names[: len(labels)] = labels
    return panels, names[0], names[1]


def _series(files, measures, labels, by):
    from ..figures.data import read_series

    try:
        series = read_series(files, measures, labels, by, report=_common.warn)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    for s in series:
        if s.undefined:
            _common.warn(f"{s.label}: {s.undefined} undefined value(s) left out")
        if not s.values:
            _common.warn(f"{s.label}: no defined value to draw")
    return series
