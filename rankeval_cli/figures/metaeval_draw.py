"""The meta-evaluation figures that are not scatter plots, drawn with matplotlib (imported on use).

* :func:`bars_figure`: a statistic of every metric (the average over tasks by default) as a
  ranked horizontal bar chart, best at the top, whiskers over the bootstrap interval, the
  significance clusters shaded alternately and separated by dashed lines (the clusters of
  ``meta-eval``: Freitag et al. 2023 §5), the value and the cluster rank at the right.
* :func:`significance_figure`: the pairwise p-values of a task as a heatmap, metrics in
  ranked order; a cell is dark where the row metric is significantly better than the column
  metric (p ≤ alpha) and holds its p-value.

Both reuse :mod:`.draw`'s settings (no mathtext, reproducible SVG and PDF).
"""

from __future__ import annotations

from .draw import COLOR, _grid, _pyplot, empty_figure, shade_clusters

NAMES = {"avg": "average over tasks"}


def _title(key) -> str:
    lp, statistic = key
    name = NAMES.get(statistic, statistic)
    return name if lp == "all" and statistic == "avg" else f"{lp}: {name}"


def bars_figure(panels, title: str | None = None):
    """One panel per :class:`~.metaeval_data.Bars`: bars best first, whiskers, clusters shaded."""
    plt = _pyplot()
    if not panels:
        return empty_figure("no metric")
    most = max(len(p.names) for p in panels)
    fig, axes = _grid(plt, len(panels), (4.8, 0.3 * most + 1.2), max_columns=3)
    for ax, panel in zip(axes, panels):
        ys = list(range(len(panel.names)))
        shade_clusters(ax, panel.ranks)
        ax.barh(ys, panel.values, height=0.6, color=COLOR, alpha=0.75, zorder=2)
        have = [(y, v, ci) for y, v, ci in zip(ys, panel.values, panel.intervals) if ci is not None]
        if have:
            ax.errorbar([v for _, v, _ in have], [y for y, _, _ in have],
                        xerr=[[v - ci[0] for _, v, ci in have], [ci[1] - v for _, v, ci in have]],
                        fmt="none", ecolor="#222222", elinewidth=0.9, capsize=2.5, zorder=3)
        ax.set_yticks(ys)
        ax.set_yticklabels(panel.names)
        ax.set_ylim(most - 0.5, -0.5)
        ax.axvline(0, color="#444444", linewidth=0.6, zorder=1)
        level = f"{float(panel.level) * 100:g}% " if panel.level else ""
        ax.set_xlabel(panel.key[1] + (f" (whiskers: {level}bootstrap interval)" if have else ""))
        right = ax.twinx()
        right.set_ylim(most - 0.5, -0.5)
        right.set_yticks(ys)
        right.set_yticklabels([f"{v:.3f} ({r})" if r is not None else f"{v:.3f}"
                               for v, r in zip(panel.values, panel.ranks)], fontsize=8)
        right.tick_params(length=0)
        for side in (ax, right):
            side.spines["top"].set_visible(False)
        ax.set_title(_title(panel.key))
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def _p_text(p: float) -> str:
    return "<.001" if p < 0.001 else f"{p:.3f}".lstrip("0") if p < 1 else "1"


def significance_figure(panels, title: str | None = None):
    """One heatmap per :class:`~.metaeval_data.Pairs`: row metric better than column metric at p ≤ alpha
    dark, not significant light, untested blank; each tested cell holds its p-value."""
    import numpy as np
    from matplotlib.colors import ListedColormap

    plt = _pyplot()
    if not panels:
        return empty_figure("no pair of metrics")
    most = max(len(p.names) for p in panels)
    side = 0.45 * most + 1.6
    fig, axes = _grid(plt, len(panels), (side, side + 0.4), max_columns=3)
    colors = ListedColormap(["#f2f2f2", COLOR])
    for ax, panel in zip(axes, panels):
        n = len(panel.names)
        shade = np.full((n, n), np.nan)
        for i in range(n):
            for j in range(n):
                value = panel.p[i][j]
                if value is None:
                    continue
                significant = value <= panel.alpha
                shade[i, j] = 1.0 if significant else 0.0
                ax.text(j, i, _p_text(value), ha="center", va="center", fontsize=7,
                        color="white" if significant else "#333333")
        ax.imshow(np.ma.masked_invalid(shade), cmap=colors, vmin=0, vmax=1, aspect="equal")
        ax.set_xticks(range(n))
        ax.set_xticklabels(panel.names, rotation=45, ha="right")
        ax.set_yticks(range(n))
        ax.set_yticklabels(panel.names)
        ax.set_xticks(np.arange(n + 1) - 0.5, minor=True)
        ax.set_yticks(np.arange(n + 1) - 0.5, minor=True)
        ax.grid(which="minor", color="white", linewidth=1.5)
        ax.tick_params(which="minor", length=0)
        ax.set_title(_title(panel.key))
        ax.set_xlabel(f"dark: row better than column at p ≤ {panel.alpha:g}")
    if title:
        fig.suptitle(title)
    fig.tight_layout(pad=1.2)
    return fig
