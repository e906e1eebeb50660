"""The bootstrap interval of a mean over groups, and where its columns go in a summary record."""

from __future__ import annotations

import numpy as np

from ..pipeline import phase
from .resample import MeanStat, bootstrap_intervals


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
