"""The three figures, drawn with matplotlib (imported here only; ``pip install 'rankeval-cli[plot]'``).

* :func:`ranking_figure`: WMT-style system rankings. Each system is a row, best first; a
  bar spans its bootstrap rank range lo–hi (``aggregate --bootstrap N``), a dot marks its
  rank, its score is printed at the right; clusters (a new one wherever no rank range
  crosses the boundary, as in WMT13, Bojar et al. 2013 §3) are shaded alternately and
  separated by dashed lines. One panel per ``--by`` value.
* :func:`scatter_figure`: metric versus human at system level, one labelled point per
  system (labels moved apart and kept inside the axes by adjustText when it is
  installed), the Pearson r and Kendall τ_b of the panel in the legend.
* :func:`distribution_figure`: box or violin plots of a per-group measure, one per
  prediction, side by side.

:func:`save` writes PNG, SVG or PDF (by the file's suffix) to a temporary file renamed
on success; SVG and PDF carry no date and SVG ids are salted with a constant, so the
same input gives the same bytes.

Every text is drawn as written: matplotlib's mathtext is off, so ``$``, ``^``, ``_`` and
backslashes in system names, labels and titles are plain characters. Characters the
font has no glyph for are drawn as boxes and named once on stderr (:func:`missing_glyphs`),
instead of one matplotlib warning per character.
"""

from __future__ import annotations

import contextlib
import math
import re

BAND = "#e8e8e8"
COLOR = "#1f4e79"


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)
    matplotlib.rcParams.update({"svg.hashsalt": "rankeval", "svg.fonttype": "none", "pdf.fonttype": 42,
                                "font.size": 9, "axes.titlesize": 10, "text.parse_math": False,
                                "text.usetex": False})
    import matplotlib.pyplot as plt

    return plt


def _grid(plt, n_panels: int, panel_size: tuple[float, float], max_columns: int = 4):
    columns = min(n_panels, max_columns)
    rows = math.ceil(n_panels / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(panel_size[0] * columns, panel_size[1] * rows),
                             squeeze=False)
    flat = [ax for row in axes for ax in row]
    for ax in flat[n_panels:]:
        ax.set_visible(False)
    return fig, flat[:n_panels]


def _panel_title(by, key) -> str:
    """``cs-en`` for ``--by lp``; several --by values joined: ``cs-en, newstest2020``."""
    return ", ".join(str(k) for k in key)


def _nothing(ax, text: str) -> None:
    """An empty panel that says why (an empty input is a result, not an error)."""
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, color="#555555")
    ax.set_xticks([])
    ax.set_yticks([])


def empty_figure(text: str):
    """A small figure that says why it is empty (an empty input is a result, not an error)."""
    fig, ax = _pyplot().subplots(figsize=(4.6, 1.6))
    _nothing(ax, text)
    return fig


def shade_clusters(ax, clusters) -> None:
    """Rows 0..k-1 (top down) grouped by their cluster: every other cluster shaded, a dashed line
    between two clusters (WMT's figures)."""
    k = len(clusters)
    starts = [i for i in range(k) if i == 0 or clusters[i] != clusters[i - 1]]
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else k
        if n % 2 == 1:
            ax.axhspan(start - 0.5, end - 0.5, color=BAND, zorder=0)
        if start:
            ax.axhline(start - 0.5, color="#888888", linestyle="--", linewidth=0.7, zorder=1)


def ranking_figure(rankings, by=(), title: str | None = None):
    """System rankings with bootstrap rank ranges and clusters, one panel per ranking."""
    plt = _pyplot()
    if not rankings:
        return empty_figure("no ranked system")
    most = max(len(r.items) for r in rankings)
    fig, axes = _grid(plt, len(rankings), (4.6, 0.28 * most + 1.1))
    for ax, ranking in zip(axes, rankings):
        k = len(ranking.items)
        ys = list(range(k))
        shade_clusters(ax, ranking.cluster)
        for y, lo, hi in zip(ys, ranking.lo, ranking.hi):
            ax.plot([lo - 0.3, hi + 0.3], [y, y], color=COLOR, linewidth=3, alpha=0.35,
                    solid_capstyle="round", zorder=2)
        ax.plot(ranking.ranks, ys, "o", color=COLOR, markersize=4, zorder=3)
        ax.set_yticks(ys)
        ax.set_yticklabels(ranking.items)
        ax.set_ylim(most - 0.5, -0.5)  # the same row height in every panel
        ax.set_xlim(0.3, k + 0.7)
        ax.set_xticks(_rank_ticks(k))
        ax.set_xlabel("rank (bar: 95% bootstrap range)" if ranking.has_ranges else "rank")
        right = ax.twinx()
        right.set_ylim(most - 0.5, -0.5)
        right.set_yticks(ys)
        right.set_yticklabels([_score_text(s) for s in ranking.scores], fontsize=8)
        right.tick_params(length=0)
        for side in (ax, right):
            side.spines["top"].set_visible(False)
        if by:
            ax.set_title(_panel_title(by, ranking.key))
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def _rank_ticks(k: int) -> list[int]:
    """Rank ticks that do not run together in a 4.6-inch panel: every rank up to 8, then the odd
    ranks (up to 16), then 1 and every 5th, 10th, ..."""
    step = next(s for s in (1, 2, 5, 10, 20, 50, 100, 10**9) if k / s <= 8)
    return list(range(1, k + 1, step)) if step <= 2 else sorted({1, *range(step, k + 1, step)})


def _score_text(score: float) -> str:
    return "nan" if math.isnan(score) else f"{score:.3f}"


def correlation_label(panel) -> str:
    """The legend entry: n systems, Pearson r and Kendall τ_b (3 decimals), or the panel's own."""
    if panel.legend is not None:
        return panel.legend
    r, tau = panel.correlations["pearson"].value, panel.correlations["kendall"].value
    return f"{len(panel.items)} systems: Pearson r = {r:.3f}, Kendall \u03c4 = {tau:.3f}"


def scatter_figure(panels, by=(), xlabel: str = "human", ylabel: str = "metric", title: str | None = None):
    """Metric (y) against human (x) system scores, points labelled, correlations in the legend."""
    plt = _pyplot()
    fig, axes = _grid(plt, max(len(panels), 1), (4.6, 4.0), max_columns=3)
    if not panels:
        _nothing(axes[0], "no system scored on both sides")
    for ax, panel in zip(axes, panels):
        if by:
            ax.set_title(_panel_title(by, panel.key))
        if not panel.items:
            _nothing(ax, "no system scored on both sides")
            continue
        ax.scatter(panel.x, panel.y, s=18, color=COLOR, label=correlation_label(panel), zorder=3)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(True, color="#dddddd", linewidth=0.6, zorder=0)
        # the correlations under the axes, where they hide no point and no name
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), fontsize=8, frameon=False,
                  handletextpad=0.3)
        ax.margins(0.12)
        _point_labels(ax, panel.items, panel.x, panel.y)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


#: adjustText iterations (a fixed count, not its default time limit: the same bytes every run)
LABEL_ITERATIONS = 1000


def _point_labels(ax, items, xs, ys) -> None:
    """Each point's name beside it, moved so that names overlap neither each other nor the
    points, and stay inside the axes (adjustText; without it, names at a fixed offset clipped
    to the axes)."""
    try:
        from adjustText import adjust_text
    except ImportError:
        adjust_text = None
    if adjust_text is None or len(items) < 2:
        for item, x, y in zip(items, xs, ys):
            ax.annotate(item, (x, y), xytext=(3, 3), textcoords="offset points", fontsize=7, color="#333333",
                        annotation_clip=True, clip_on=True)
        return
    texts = [ax.text(x, y, item, fontsize=7, color="#333333", va="bottom", ha="left", zorder=4)
             for item, x, y in zip(items, xs, ys)]
    ax.figure.canvas.draw()  # adjustText measures the texts as drawn
    adjust_text(texts, x=list(xs), y=list(ys), ax=ax, iter_lim=LABEL_ITERATIONS, time_lim=None,
                ensure_inside_axes=True, expand=(1.2, 1.6), force_text=(0.3, 0.6),
                arrowprops={"arrowstyle": "-", "color": "#999999", "lw": 0.5})


def distribution_figure(series, style: str = "box", ylabel: str = "value", title: str | None = None):
    """Box (quartiles, whiskers at 1.5 IQR, mean as a triangle) or violin plots, side by side."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(max(3.2, 1.1 * len(series) + 1.6), 3.8))
    positions = list(range(1, len(series) + 1))
    drawn = [(p, s.values) for p, s in zip(positions, series) if s.values]  # an empty series: a label only
    data, where = [v for _, v in drawn], [p for p, _ in drawn]
    if data and style == "violin":
        parts = ax.violinplot(data, positions=where, showmeans=True, showextrema=True)
        for body in parts["bodies"]:
            body.set_facecolor(COLOR)
            body.set_alpha(0.35)
    elif data:
        ax.boxplot(data, positions=where, showmeans=True, widths=0.55,
                   medianprops={"color": COLOR}, meanprops={"markerfacecolor": COLOR, "markeredgecolor": COLOR})
    ax.set_xlim(0.4, len(series) + 0.6)
    ax.set_xticks(positions)
    ax.set_xticklabels([f"{s.label}\n(n = {len(s.values)})" for s in series])
    ax.set_ylabel(ylabel)
    ax.grid(True, axis="y", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    if title:
        ax.set_title(title)
    fig.tight_layout()
    return fig


@contextlib.contextmanager
def missing_glyphs(report):
    """Collect matplotlib's "Glyph ... missing from font" warnings while drawing and, at the end,
    ``report`` one note naming the characters (drawn as boxes)."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    missing, others = [], []
    for warning in caught:
        found = _GLYPH.search(str(warning.message))
        if found:
            missing.append(int(found.group(1)))
        else:
            others.append(warning)
    for warning in others:  # anything else is shown as it would have been
        warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
    if missing:
        chars = sorted(set(missing))
        shown = ", ".join(f"U+{c:04X}" for c in chars[:8]) + (", ..." if len(chars) > 8 else "")
        report(f"{len(chars)} character(s) of the labels have no glyph in the font and are drawn as "
               f"boxes: {shown}")


_GLYPH = re.compile(r"Glyph (\d+) .*missing from")


def save(fig, path: str, dpi: int = 150) -> None:
    """Write the figure to ``path`` (format from its suffix), atomically and reproducibly."""
    from ..outputs import atomic_output

    fmt = path.rsplit(".", 1)[-1].lower()
    metadata = {"svg": {"Date": None}, "pdf": {"CreationDate": None, "ModDate": None}, "png": {}}[fmt]
    with atomic_output(path, binary=True) as out:
        fig.savefig(out, format=fmt, dpi=dpi, metadata=metadata)
    import matplotlib.pyplot as plt

    plt.close(fig)
