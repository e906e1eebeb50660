"""Bootstrap intervals of summaries over groups: of a mean, of tau's averages, and where their
columns go in a summary record."""

from __future__ import annotations

import numpy as np

from ..pipeline import phase
from ..vocabulary import TAU_AVERAGES
from .resample import MeanStat, TauMicroStat, bootstrap_intervals, tau_raw


def mean_interval(values: np.ndarray, resampling) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of the defined per-group ``values``
    (:class:`~rankeval_cli.settings.Resampling`: level, replicates, seed)."""
    with phase(f"bootstrap ({resampling.replicates} replicates)"):
        (interval,) = bootstrap_intervals([MeanStat()], [values], resampling.level, resampling.replicates,
                                          resampling.seed)
    return interval


def with_interval(record: dict, after: str, interval) -> dict:
    """``record`` with ci_low, ci_high inserted after the column ``after``."""
    out = {}
    for key, value in record.items():
        out[key] = value
        if key == after:
            out["ci_low"], out["ci_high"] = interval
    return out


class TauAverages:
    """Each group's statistics of tau's averages, kept for their bootstrap intervals: its pair
    counts (micro: the pooled ratio of :class:`~.resample.TauMicroStat`) and/or its tau (macro: a
    mean), for ``average`` micro, macro or both."""

    def __init__(self, variant: str, average: str):
        from .resample import GroupColumns

        self.variant = variant
        self.averages = TAU_AVERAGES if average == "both" else (average,)
        self.columns = GroupColumns()

    def keep(self, rows) -> None:
        """Keep a batch's per-group rows (:class:`~rankeval_cli.measures.tau.GroupRows`)."""
        if "micro" in self.averages:
            self.columns.add("micro", tau_raw(rows.counts))
        if "macro" in self.averages:
            self.columns.add("macro", rows.tau)

    def with_intervals(self, record: dict, resampling) -> dict:
        """``record`` with <avg>_ci_low, <avg>_ci_high after each average's value."""
        stats = {"micro": TauMicroStat(self.variant), "macro": MeanStat()}
        with phase(f"bootstrap ({resampling.replicates} replicates)"):
            intervals = bootstrap_intervals([stats[a] for a in self.averages],
                                            [self.columns.get(a) for a in self.averages],
                                            resampling.level, resampling.replicates, resampling.seed)
        bounds = dict(zip(self.averages, intervals))
        out = {}
        for key, value in record.items():
            out[key] = value
            if key in bounds:
                out[f"{key}_ci_low"], out[f"{key}_ci_high"] = bounds[key]
        return out
