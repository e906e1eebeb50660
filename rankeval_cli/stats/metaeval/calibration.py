"""Pairs of cells at a metric tie threshold, and tie calibration.

A pair of cells of a group is concordant (C), discordant (D), tied in human
only (T_h), in the metric only (T_m) or in both (T_hm). A metric tie threshold
ε makes metric pairs with |Δmetric| ≤ ε ties (Deutsch, Foster & Freitag 2023);
``min_human_diff`` keeps only the pairs with |Δhuman| ≥ d (WMT20's Kendall-like,
Mathur et al. 2020). Tie calibration chooses ε among 0 and every |Δmetric| to
maximize eq or acc-eq (mt-metrics-eval's ``KendallWithTiesOpt``).
"""

from __future__ import annotations

import numpy as np

from ...measures.pairs import pair_table
from ...measures.tau import _plain_counts, best_epsilon, numerator_denominator

#: Pair-level computations (epsilon, min_human_diff, calibration) hold every pair in memory.
MAX_PAIRS = 20_000_000

#: Pair categories (measures/tau.py order).
PAIR_C, PAIR_D, PAIR_TH, PAIR_TM, PAIR_THM = range(5)


def pair_categories(human, metric, offsets, *, epsilon=None, min_human_diff=None):
    """(group, category, |Δmetric|, untied, tied) of every pair kept, categories C/D/T_h/T_m/T_hm.

    Pairs with |Δhuman| < ``min_human_diff`` are dropped; metric pairs with
    |Δmetric| ≤ ``epsilon`` are metric ties. ``untied``/``tied`` are each
    pair's category without / with a metric tie (for calibration).
    """
    human = np.asarray(human, np.float64)
    metric = np.asarray(metric, np.float64)
    sizes = np.diff(offsets)
    total = int((sizes * (sizes - 1) // 2).sum())
    if total > MAX_PAIRS:
        raise ValueError(f"this needs every pair in memory ({total} pairs; the limit is {MAX_PAIRS}); "
                         "group by item or system instead of none")
    group, hcmp, mcmp, mdiff = pair_table(human, metric, offsets)
    untied = np.where(hcmp == 0, PAIR_TH, np.where(hcmp == mcmp, PAIR_C, PAIR_D)).astype(np.int8)
    tied = np.where(hcmp == 0, PAIR_THM, PAIR_TM).astype(np.int8)
    if min_human_diff is not None:
        _, _, _, hdiff = pair_table(metric, human, offsets)
        keep = hdiff >= min_human_diff
        group, untied, tied, mdiff = group[keep], untied[keep], tied[keep], mdiff[keep]
    eps = 0.0 if epsilon is None else float(epsilon)
    category = np.where(mdiff <= eps, tied, untied)
    return group, category, mdiff, untied, tied


def counts_from_categories(group, category, n_groups, n_items):
    """PairCounts (without tie-block statistics) from per-pair categories."""
    per_group = np.bincount(group * 5 + category, minlength=5 * n_groups).reshape(-1, 5).T
    return _plain_counts(np.asarray(n_items, np.int64), np.zeros(n_groups, np.int64), per_group)


def num_den(variant, counts):
    """(numerator, denominator) per group of a Kendall variant (None for tau-c)."""
    if variant == "c":
        return None
    return numerator_denominator(variant, *(getattr(counts, k) for k in ("C", "D", "T_h", "T_m", "T_hm")))


def calibrated_counts(variant, human, metric, offsets, *, weighting="plain", min_human_diff=None):
    """(PairCounts at the calibrated ε, ε): the smallest ε in {0} ∪ {|Δmetric|} maximizing the
    average of ``variant`` (eq or acc-eq) over the groups — the mean (``weighting`` plain or
    items) or the pooled value (``pairs``)."""
    n = np.diff(offsets)
    group, _, mdiff, untied, tied = pair_categories(human, metric, offsets, min_human_diff=min_human_diff)
    kept = np.bincount(group, minlength=len(n)).astype(np.int64)
    average = "micro" if weighting == "pairs" else "macro"
    epsilon = best_epsilon(variant, average, group, untied, tied, mdiff, kept)
    category = np.where(mdiff <= epsilon, tied, untied)
    return counts_from_categories(group, category, len(n), n), epsilon
