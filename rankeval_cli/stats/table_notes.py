"""What a metrics table leaves out, said in words (the notes ``meta-eval`` prints on stderr).

The average over tasks (:func:`.metrics_table.run_table`) is taken over the metrics
that have a value in every averaged task, and the rows over all language pairs
(lp ``all``) hold the metrics scored on every language pair: a metric submitted
for one language pair only (WMT20's bleurt-combi and Yisi-combi, en-de only), or
given without segment scores, drops out of them. :func:`left_out` names each such
metric with the tasks it misses, so that no row disappears silently.
:func:`segment_means` names the metrics whose system scores are the means of their
segment scores (no system-level file given), where a statistic of system scores is
computed: a metric's official system score (corpus-level chrF or BLEU) is not that
mean, and pairwise accuracy and the system-level correlations move with it.
"""

from __future__ import annotations


def _missing_tasks(result, name: str) -> list[str]:
    """The averaged tasks (``lp measure``) where ``name`` has no value."""
    return [f"{lp} {measure}" for lp, measure in result.keys
            if result.results.get((lp, measure)) is None or name not in result.results[(lp, measure)].names]


def left_out(result, tables) -> list[str]:
    """Notes naming the metrics left out of the average and of the lp ``all`` rows, and why.

    ``result`` is a :class:`.metrics_table.TableResult`, ``tables`` the language pairs'
    :class:`~rankeval_cli.formats.sysseg.SysSegTable`. Metrics missing the same tasks share one note.
    """
    names = list(dict.fromkeys(n for t in tables for n in t.metric_names))
    averaged = set(result.average.names) if result.average is not None else set()
    by_reason: dict[str, list[str]] = {}
    for name in names:
        absent = [t.lp for t in tables if name not in t.metrics_sys]
        if absent:
            reason = f"no scores for {', '.join(absent)}: left out of the average and of the lp \"all\" rows"
        elif result.average is not None and name not in averaged:
            missing = _missing_tasks(result, name)
            shown = ", ".join(missing[:4]) + (f" and {len(missing) - 4} more" if len(missing) > 4 else "")
            reason = f"no value in {shown}: left out of the average over tasks"
        else:
            continue
        by_reason.setdefault(reason, []).append(name)
    return [f"{', '.join(names)}: {reason} (the average takes the metrics scored in every task)"
            for reason, names in by_reason.items()]


#: measure levels computed from system scores (SPA uses the segment scores)
SYSTEM_SCORE_LEVELS = ("sys", "pa")


def segment_means(tables, measures) -> list[str]:
    """One note per language pair naming the metrics whose system scores are segment means, when a
    statistic of system scores (``sys-pa``, ``sys-pearson``, ...) is among ``measures``."""
    if not any(m.level in SYSTEM_SCORE_LEVELS for m in measures):
        return []
    out = []
    for t in tables:
        means = [name for name in t.metric_names if t.sys_origin.get(name) == "mean"]
        if means:
            out.append(f"{t.lp}: system scores of {', '.join(means)} taken as the means of their segment "
                       "scores (sys_scores=mean: no system-level scores given); a metric's official system "
                       "score (corpus-level chrF, BLEU, ...) can rank the systems otherwise: give its "
                       ".sys.score file")
    return out
