"""The records of ``aggregate --optimize``: one per fold, and the held-out summary over all topics.

Per fold: the configuration chosen on the other folds (``train_value``: its mean there), its
mean on the fold's own topics (``value``), the single run chosen the same way (``baseline``,
``baseline_value``) and ``delta`` = value − baseline_value; ``groups`` = the fold's topics.
The row ``all`` pools the held-out topics of every fold (each topic once): the means, the
mean gain ``delta`` with its percentile bootstrap interval over topics (``delta_ci_low``,
``delta_ci_high``) and the paired t-test's two-sided p (``p_t``) of fused against single-run
values; its configuration is the one chosen on all topics (what to deploy), ``train_value``
its mean on them (in sample).
"""

from __future__ import annotations

import numpy as np


def optimize_records(results, final, names: list, resampling) -> list[dict]:
    from ...stats.resample import MeanStat, bootstrap_intervals
    from ...stats.topic_tests import paired_t

    records = []
    for r in results:
        records.append({"fold": str(r.fold), **r.config.shown(), "train_value": r.train_value,
                        "value": float(np.mean(r.value)), "baseline": names[r.baseline],
                        "baseline_value": float(np.mean(r.baseline_value)),
                        "delta": float(np.mean(r.value) - np.mean(r.baseline_value)), "delta_ci_low": None,
                        "delta_ci_high": None, "p_t": None, "groups": len(r.value)})
    fused = np.concatenate([r.value for r in results])
    single = np.concatenate([r.baseline_value for r in results])
    diff = fused - single
    low, high = bootstrap_intervals([MeanStat()], [diff], resampling.level, resampling.replicates,
                                    resampling.seed)[0]
    config, value = final
    records.append({"fold": "all", **config.shown(), "train_value": value, "value": float(fused.mean()),
                    "baseline": "(per fold)", "baseline_value": float(single.mean()), "delta": float(diff.mean()),
                    "delta_ci_low": low, "delta_ci_high": high, "p_t": paired_t(fused, single)[1],
                    "groups": len(diff)})
    return records
