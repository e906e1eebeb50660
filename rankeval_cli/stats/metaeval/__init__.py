"""Meta-evaluation of MT metrics on system × segment score matrices (WMT20-25).

Human and metric scores are float64 arrays of shape (n_sys, n_seg), NaN =
missing, higher = better. The definitions follow google-research/mt-metrics-eval
(``stats.py``, ``pce.py``, ``data.py``, ``tasks.py``); docs/meta-evaluation-statistics.md
gives every equation with its paper.

One module per kind of statistic; each imports only those above it:

* :mod:`.cells`       — matrices, groups of cells (``average_by``), the average over groups;
* :mod:`.calibration` — pairs at a metric tie threshold, tie calibration;
* :mod:`.segment`     — segment-level statistics (Pearson, Spearman, Kendall variants);
* :mod:`.signflip`    — sign-flip permutation sums decided exactly (SPA's p-values);
* :mod:`.system`      — system-level statistics (correlations, pairwise accuracy, SPA);
* :mod:`.hybrids`     — a statistic of many hybrid metrics at once, for permutation trials;
* :mod:`.permutation` — paired permutation tests between two metrics;
* :mod:`.williams`    — Williams' test;
* :mod:`.intervals`   — bootstrap intervals (segments or systems resampled), as work units;
* :mod:`.compare`     — ranking metrics on a task, significance clusters;
* :mod:`.pair_units`  — the permutation tests of a whole table as work units, a stream per pair;
* :mod:`.tasks`       — averages over tasks (WMT23-25 task sets).

This package re-exports their public names, so ``metaeval.seg_statistic`` and
``metaeval.compare_metrics`` are the Python API.
"""

from .cells import (AVERAGE_BY, WEIGHTINGS, Cells, as_matrix, average_groups, canonical_average_by,
                    complete_segments, group_order, grouped_cells, ranks_within_groups, segment_sums)
from .calibration import MAX_PAIRS, calibrated_counts, counts_from_categories, pair_categories
from .segment import (STATISTICS, GroupValues, SegResult, check_statistic, group_pearson, group_spearman,
                      group_values, kendall_like, pdp_values, seg_statistic)
from .system import (SPA_SEED, SPA_SUMS, SpaSpec, agreement, pairwise_accuracy, pairwise_p_values,
                     permutation_signs, soft_pairwise_accuracy, spa_from_p_values, sys_statistic)
from .hybrids import make_cell_statistic
from .permutation import EarlyStop, MTME_EARLY_STOP, PERM_TESTS, PermutationResult, permutation_test
from .williams import williams, williams_test
from .intervals import Job, SegSpec, run_jobs
from .compare import SYS_STATISTICS, Comparison, assign_ranks, compare_metrics, statistic_range
from .tasks import (TaskSetResult, average_comparison, average_ranks, average_scores, uniform_weights,
                    wmt23_weights, wmt_tasks)

__all__ = [
    "AVERAGE_BY", "WEIGHTINGS", "Cells", "as_matrix", "average_groups", "canonical_average_by", "complete_segments",
    "group_order", "grouped_cells", "ranks_within_groups", "segment_sums",
    "MAX_PAIRS", "calibrated_counts", "counts_from_categories", "pair_categories",
    "STATISTICS", "GroupValues", "SegResult", "check_statistic", "group_pearson", "group_spearman", "group_values",
    "kendall_like", "pdp_values", "seg_statistic",
    "SPA_SEED", "SPA_SUMS", "SpaSpec", "agreement", "pairwise_accuracy", "pairwise_p_values", "permutation_signs", "soft_pairwise_accuracy",
    "spa_from_p_values", "sys_statistic",
    "make_cell_statistic",
    "EarlyStop", "MTME_EARLY_STOP", "PERM_TESTS", "PermutationResult", "permutation_test",
    "williams", "williams_test",
    "Job", "SegSpec", "run_jobs",
    "SYS_STATISTICS", "Comparison", "assign_ranks", "compare_metrics", "statistic_range",
    "TaskSetResult", "average_comparison", "average_ranks", "average_scores", "uniform_weights", "wmt23_weights",
    "wmt_tasks",
]
