"""What a metrics table leaves out, said in words (the notes ``meta-eval`` prints on stderr).

The average over tasks (:func:`.metrics_table.run_table`) is taken over the metrics
that have a value in every averaged task, and the rows over all language pairs
(lp ``all``) hold the metrics scored on every language pair: a metric submitted
for one language pair only (WMT20's bleurt-combi and Yisi-combi, en-de only), or
given without segment scores, drops out of them. :func:`left_out` names each such
metric with the tasks it misses, so that no row disappears silently.
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
