"""The figures ``rankeval plot`` draws from a judges table (matplotlib, imported only here):

* ``scatter``: per candidate and measure a panel of the systems' values, the reference's (x)
  against the candidate's (y), the diagonal dashed, Kendall's tau-b with its interval in the title;
* ``confusion``: per candidate a heatmap of the confusion counts (reference grade by row,
  candidate grade by column), each cell its count, shaded by its share of the row (the
  reference grade's recall on the diagonal), Cohen's kappa in the title.
"""

from __future__ import annotations

import math

from ..errors import DataError


def read(path: str) -> list:
    from .paper import read_judges_table

    records = read_judges_table(path)
    if records is None:
        raise DataError("not a judges table (rankeval judges writes one)", path)
    return records


def _number(value) -> float:
    from ..formats.summary_reader import number

    v = number(value) if value not in (None, "") else None
    return math.nan if v is None else float(v)


def _interval_text(row) -> str:
    value, low, high = (_number(row.get(c)) for c in ("value", "ci_low", "ci_high"))
    shown = f"{value:.3f}"
    return shown if math.isnan(low) else f"{shown} [{low:.2f}, {high:.2f}]"


def scatter_figure(records, title: str | None = None):
    from ..figures import draw

    panels: dict = {}
    for r in records:
        if r.get("section") == "systems":
            panels.setdefault((r["candidate"], r["measure"]), []).append(
                (r["system"], _number(r["gold_value"]), _number(r["value"])))
    taus = {(r["candidate"], r["measure"]): r for r in records
            if r.get("section") == "ranking" and r.get("statistic") == "tau_b" and r.get("group") == "all"}
    plt = draw._pyplot()
    fig, axes = draw._grid(plt, max(len(panels), 1), (4.2, 4.0), max_columns=3)
    if not panels:
        draw._nothing(axes[0], "no system values (judges was given no run)")
    for ax, ((candidate, measure), points) in zip(axes, panels.items()):
        names, xs, ys = zip(*points)
        low, high = min(xs + ys), max(xs + ys)
        ax.plot([low, high], [low, high], linestyle="--", color="#999999", linewidth=0.8, zorder=1)
        ax.scatter(xs, ys, s=18, color=draw.COLOR, zorder=3)
        tau = taus.get((candidate, measure))
        ax.set_title(f"{candidate}: \u03c4_b = {_interval_text(tau)}" if tau else candidate, fontsize=10)
        ax.set_xlabel(f"{measure}, reference")
        ax.set_ylabel(f"{measure}, {candidate}")
        ax.grid(True, color="#dddddd", linewidth=0.6, zorder=0)
        ax.margins(0.1)
        draw._point_labels(ax, list(names), list(xs), list(ys))
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def confusion_figure(records, title: str | None = None):
    import numpy as np

    from ..figures import draw

    cells: dict = {}
    grades: set = set()
    for r in records:
        if r.get("section") == "confusion":
            g, p = int(_number(r["gold_grade"])), int(_number(r["pred_grade"]))
            cells.setdefault(r["candidate"], {})[(g, p)] = int(_number(r["value"]))
            grades.update((g, p))
    kappas = {r["candidate"]: r for r in records if r.get("section") == "labels"
              and r.get("statistic") == "kappa" and r.get("group") == "all"}
    scale = sorted(grades)
    plt = draw._pyplot()
    fig, axes = draw._grid(plt, max(len(cells), 1), (3.6, 3.4), max_columns=4)
    if not cells:
        draw._nothing(axes[0], "no confusion counts")
    for ax, (candidate, counts) in zip(axes, cells.items()):
        m = np.array([[counts.get((g, p), 0) for p in scale] for g in scale], dtype=float)
        share = np.divide(m, m.sum(axis=1, keepdims=True), out=np.zeros_like(m), where=m.sum(axis=1, keepdims=True) > 0)
        ax.imshow(share, cmap="Blues", vmin=0.0, vmax=1.0)
        for i in range(len(scale)):
            for j in range(len(scale)):
                ax.text(j, i, f"{int(m[i, j])}", ha="center", va="center", fontsize=8,
                        color="white" if share[i, j] > 0.6 else "black")
        ax.set_xticks(range(len(scale)), [str(g) for g in scale])
        ax.set_yticks(range(len(scale)), [str(g) for g in scale])
        ax.set_xlabel(f"{candidate} grade")
        ax.set_ylabel("reference grade")
        kappa = kappas.get(candidate)
        ax.set_title(f"{candidate}: \u03ba = {_interval_text(kappa)}" if kappa else candidate, fontsize=10)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig
