"""What the meta-evaluation figures draw, read from ``meta-eval``'s outputs (no matplotlib here).

The three figures of a WMT metrics findings paper (Freitag et al. 2022-2024):

* :func:`system_score_panels`: metric against human system scores, one panel per language
  pair and metric, from ``meta-eval --system-scores FILE`` (``lp metric system human value
  sys_scores``). The legend's Pearson r and pairwise accuracy are computed by the functions
  ``meta-eval`` computes ``sys-pearson`` and ``sys-pa`` with
  (:func:`~rankeval_cli.stats.metaeval.system.sys_statistic`,
  :func:`~rankeval_cli.stats.metaeval.system.pairwise_accuracy`) on the same scores, so
  they are the table's values.
* :func:`bar_panels`: a statistic of a ``meta-eval`` summary (the average over tasks by
  default) for every metric, best first, with its bootstrap interval and its cluster rank.
* :func:`significance_panels`: the pairwise p-values of a task (``meta-eval --pairs``), a
  matrix of "row metric better than column metric".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..errors import DataError
from .data import ScatterPanel, number, records

SYSTEM_SCORE_COLUMNS = ("lp", "metric", "system", "human", "value")


def is_system_scores(columns) -> bool:
    """True for the columns of ``meta-eval --system-scores`` output."""
    return set(SYSTEM_SCORE_COLUMNS) <= set(columns)


def system_score_panels(source, metrics=()) -> list[ScatterPanel]:
    """One panel per (language pair, metric) of ``meta-eval --system-scores`` output, in file order;
    ``metrics`` (names) keeps those only. A system twice in one panel is an error at its line."""
    import numpy as np

    from ..stats.metaeval.system import pairwise_accuracy, sys_statistic
    from ..inputs import source_name

    name = source_name(source)
    scores: dict = {}
    for line, record in records(source):
        missing = [c for c in SYSTEM_SCORE_COLUMNS if c not in record]
        if missing:
            raise DataError(f"no {', '.join(missing)} column: not meta-eval --system-scores output", name, line)
        key = (str(record["lp"]), str(record["metric"]))
        systems = scores.setdefault(key, {})
        if str(record["system"]) in systems:
            raise DataError(f"system {record['system']!r} twice for {key[1]} in {key[0]} (first at line "
                            f"{systems[str(record['system'])][2]})", name, line)
        systems[str(record["system"])] = (number(record["human"], "human", name, line),
                                          number(record["value"], "value", name, line), line)
    known = list(dict.fromkeys(metric for _, metric in scores))
    unknown = [m for m in metrics if m not in known]
    if unknown:
        raise DataError(f"no metric {', '.join(unknown)} in the system scores (there: {', '.join(known)})", name)
    panels = []
    for (lp, metric), systems in scores.items():
        if metrics and metric not in metrics:
            continue
        items = list(systems)
        x = np.array([systems[s][0] for s in items])
        y = np.array([systems[s][1] for s in items])
        r = sys_statistic(x, y, "pearson")
        accuracy = pairwise_accuracy(x, {metric: y})[metric]
        legend = f"{len(items)} systems: Pearson r = {_text(r)}, pairwise accuracy = {_text(accuracy)}"
        panels.append(ScatterPanel((lp, metric), items, x.tolist(), y.tolist(), {"pearson": r, "sys-pa": accuracy},
                                   0, legend=legend))
    return panels


def _text(value: float) -> str:
    return "nan" if value is None or math.isnan(value) else f"{value:.3f}"


@dataclass
class Bars:
    """One statistic of every metric on one task (or the average): best first."""

    key: tuple  # (lp, statistic)
    names: list = field(default_factory=list)
    values: list = field(default_factory=list)
    ranks: list = field(default_factory=list)
    intervals: list = field(default_factory=list)  # (low, high) or None per metric
    level: str | None = None  # the intervals' level (the summary's ci:), e.g. 0.95


def bar_panels(source, statistic: str = "avg", lps=()) -> list[Bars]:
    """The bars of ``statistic`` (a column of a ``meta-eval`` summary; ``avg``, the average over tasks,
    by default) per language pair: those of ``lps``, else every one where it has values (lp ``all``
    for the average and the pooled pairwise accuracy)."""
    from ..metaeval_table import read
    from ..inputs import source_name

    summary = read(source)
    if statistic == "avg":
        tables = {("all", "avg"): summary.average} if summary.average else {}
    else:
        tables = {(lp, m): cells for (lp, m), cells in summary.cells.items() if m == statistic}
    if not tables:
        there = ", ".join(["avg", *summary.measures]) if summary.average else ", ".join(summary.measures)
        raise DataError(f"no values of {statistic!r} (there: {there})", source_name(source))
    wanted = list(lps) or [lp for lp, _ in tables]
    missing = [lp for lp in wanted if (lp, statistic) not in tables]
    if missing:
        raise DataError(f"no {statistic} values for {', '.join(missing)} (there: "
                        f"{', '.join(lp for lp, _ in tables)})", source_name(source))
    panels = []
    for lp in wanted:
        cells = tables[(lp, statistic)]
        order = sorted(cells, key=lambda m: (cells[m].rank or 0, -cells[m].value, m))
        panels.append(Bars((lp, statistic), order, [cells[m].value for m in order], [cells[m].rank for m in order],
                           [cells[m].ci for m in order], summary.settings.get("ci")))
    return panels


#: the columns a pairs table may name its parts by (meta-eval --pairs writes the first of each)
PAIR_COLUMNS = {"task": ("statistic", "measure", "task"), "better": ("metric", "metric_a", "metric1", "a"),
                "other": ("against", "versus", "metric_b", "metric2", "b"),
                "p": ("p_permutation", "p", "p_value", "pvalue")}


@dataclass
class Pairs:
    """The pairwise p-values of one task: ``p[i][j]`` of "names[i] is better than names[j]" (i < j in the
    task's ranking; None where not tested), and the level at which a pair is significant."""

    key: tuple  # (lp, statistic)
    names: list
    p: list
    alpha: float = 0.05


def _pair_columns(record: dict, name: str, line: int) -> dict:
    found = {}
    for part, choices in PAIR_COLUMNS.items():
        column = next((c for c in choices if c in record), None)
        if column is None:
            raise DataError(f"no {' or '.join(choices)} column: not a table of metric pairs (meta-eval --pairs)",
                            name, line)
        found[part] = column
    if "lp" not in record:
        raise DataError("no lp column: not a table of metric pairs (meta-eval --pairs)", name, line)
    return found


def significance_panels(source, statistic: str | None = None, lps=()) -> list[Pairs]:
    """One panel per task (language pair, statistic) of a pairs table, in file order; ``statistic`` and
    ``lps`` keep those only. Metrics are in the task's ranked order: the pairs name the better metric
    first, so the best is first in the most pairs."""
    from ..inputs import source_name

    name = source_name(source)
    tasks: dict = {}
    columns, alpha = None, 0.05
    from ..formats.summary_reader import read_summaries

    for line, record in read_summaries(source, current=False):  # p is a pair's p-value here, not tau's
        columns = columns or _pair_columns(record, name, line)
        key = (str(record["lp"]), str(record[columns["task"]]))
        pair = (str(record[columns["better"]]), str(record[columns["other"]]))
        found = tasks.setdefault(key, {})
        if pair in found or pair[::-1] in found:
            raise DataError(f"the pair {pair[0]}, {pair[1]} twice in {key[0]} {key[1]}", name, line)
        found[pair] = number(record[columns["p"]], columns["p"], name, line)
        for part in str(record.get("signature") or "").split("|"):
            if part.startswith("p:"):
                alpha = float(part[2:])
    chosen = {k: v for k, v in tasks.items() if (statistic is None or k[1] == statistic) and (not lps or k[0] in lps)}
    if tasks and not chosen:
        there = ", ".join(f"{lp} {s}" for lp, s in tasks)
        raise DataError(f"no pairs of {statistic or 'any statistic'}{' for ' + ', '.join(lps) if lps else ''} "
                        f"(there: {there})", name)
    panels = []
    for key, found in chosen.items():
        first = {}
        for better, other in found:
            first[better] = first.get(better, 0) + 1
            first.setdefault(other, 0)
        names = sorted(first, key=lambda m: (-first[m], m))
        index = {m: i for i, m in enumerate(names)}
        p = [[None] * len(names) for _ in names]
        for (better, other), value in found.items():
            p[index[better]][index[other]] = value
        panels.append(Pairs(key, names, p, alpha))
    return panels
