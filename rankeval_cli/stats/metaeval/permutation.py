"""Paired permutation tests between two metrics scored on the same human judgments.

PERM-BOTH (Deutsch, Dror & Roth 2021, "A statistical analysis of summarization
evaluation metrics using resampling methods", TACL), as mt-metrics-eval's
``PermutationSigDiff``: both metrics' cell scores are z-normalized, then in each
of R trials every cell's two metric scores are swapped with probability 1/2,
giving hybrid metrics m1, m2 (m1 takes metric b where the bit is 1, metric a
elsewhere; m2 the opposite). With δ = f(a) - f(b) observed (a the better
metric),

    p = #{r : f(m2_r) - f(m1_r) ≥ δ} / R

is the p-value of "a is better than b" (no +1: mt-metrics-eval's convention). A trial
that ties δ counts: with few systems or discrete statistics (ranks, pair counts, SPA's
p-values) many trials give a value of f(m2_r) - f(m1_r) exactly equal to δ, which two
floating-point paths (δ from the metrics, the trial from the hybrids; or two hybrids with
the same counts) round to neighbouring doubles. Every comparison with δ therefore allows
:data:`TIE_TOLERANCE` (the statistics lie in [-1, 1], their rounding errors below 1e-12):
a trial counts when f(m2_r) - f(m1_r) ≥ δ - 1e-9.

The pairwise-comparison variant (mt-metrics-eval ``PairwisePermutationSigDiff``;
used for tie-calibrated acc-eq in WMT23-25) swaps the outcome of each pair of
cells instead of the scores: each metric keeps its own (calibrated) tie
threshold, each trial takes every pair's category (C, D, T_h, T_m, T_hm) from a
or b with probability 1/2.

Random draws: ``numpy.random.RandomState(seed)``, one uniform per cell (bit =
u > 1/2, exactly ``RandomState.binomial(1, 0.5)``), trial after trial, pair
after pair — the stream mt-metrics-eval consumes after ``np.random.seed(seed)``,
so a run reproduces its p-values. The pairwise variant draws an n × n matrix per
group and uses its upper triangle, as mt-metrics-eval does. Optional early
stopping at block boundaries (mt-metrics-eval's Task defaults: blocks of 100,
stop when p < 0.02 or p > 0.5). All trials of a chunk are computed as arrays;
chunks bound memory. The statistics of the hybrids are :mod:`.hybrids`'.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...vocabulary import DEFAULT_SEED
from ...batch import group_index, offsets_from_sizes
from ...measures.tau import canonical_variant, ratio
from ...vocabulary import CALIBRATED_VARIANTS
from .calibration import MAX_PAIRS
from .cells import Cells, as_matrix, average_groups, complete_segments, grouped_cells
from .hybrids import PairStatistic, SpaStatistic, make_cell_statistic
from .segment import seg_statistic
from .system import SpaSpec, as_lp_list

#: Random values (and hybrid cells) held in memory per chunk of trials.
CHUNK_VALUES = 1 << 22
#: ``scores``: PERM-BOTH; ``pairs``: the pairwise-comparison test.
PERM_TESTS = ("scores", "pairs")
#: A trial's difference within this of δ ties δ and counts as "at least δ" (module docstring).
TIE_TOLERANCE = 1e-9


def reaches(trial_delta, delta: float):
    """Whether trial differences are at least δ, ties (within :data:`TIE_TOLERANCE`) included."""
    return trial_delta >= delta - TIE_TOLERANCE


@dataclass(frozen=True)
class EarlyStop:
    """Stop after a block of ``block_size`` trials when p < ``early_min`` or p > ``early_max``."""

    block_size: int = 100
    early_min: float = 0.02
    early_max: float = 0.5


#: mt-metrics-eval's Task defaults.
MTME_EARLY_STOP = EarlyStop(100, 0.02, 0.5)


@dataclass
class PermutationResult:
    """p of "a better than b", δ = f(a) - f(b), trials run, and the (f(hybrid a), f(hybrid b)) draws."""

    p: float
    delta: float
    k: int
    draws: np.ndarray


def as_rng(seed) -> np.random.RandomState:
    if isinstance(seed, np.random.RandomState):
        return seed
    return np.random.RandomState(seed)


def zscore(x) -> np.ndarray:
    """(x - mean) / std (population std), as scipy.stats.zscore."""
    x = np.asarray(x, np.float64)
    return (x - x.mean()) / x.std()


def _chunks(total: int, per_trial: int, early_stop: EarlyStop | None):
    """Trial counts per chunk; chunks end at every block boundary (where early stopping is checked)."""
    size = max(1, CHUNK_VALUES // max(per_trial, 1))
    done = 0
    while done < total:
        step = min(size, total - done)
        if early_stop:
            to_boundary = early_stop.block_size - done % early_stop.block_size
            step = min(step, to_boundary)
        yield step
        done += step


def paired_permutation(stat, a, b, permutations: int = 1000, seed=DEFAULT_SEED, *, early_stop: EarlyStop | None = None,
                       normalize: bool = True) -> PermutationResult:
    """PERM-BOTH test of "metric a is better than metric b" on statistic ``stat`` (module docstring).

    ``a``/``b`` are the two metrics' cells (human present in both), ``stat`` one
    of the statistic classes above built on those cells.
    """
    rng = as_rng(seed)
    ms1 = zscore(b) if normalize else np.asarray(b, np.float64)
    ms2 = zscore(a) if normalize else np.asarray(a, np.float64)
    delta = float(stat.values(ms2[None])[0] - stat.values(ms1[None])[0])
    draws, large, done = [], 0, 0
    for step in _chunks(permutations, len(ms1), early_stop):
        bits = rng.random_sample((step, len(ms1))) > 0.5
        c1, c2 = stat.hybrid_values(ms1, ms2, bits)
        draws.append(np.column_stack([c2, c1]))
        large += int(np.sum(reaches(c2 - c1, delta)))
        done += step
        if early_stop and done % early_stop.block_size == 0:
            p = large / done
            if p < early_stop.early_min or p > early_stop.early_max:
                break
    draws = np.concatenate(draws) if draws else np.zeros((0, 2))
    return PermutationResult(large / done if done else 0.0, delta, done, draws)


def pairwise_permutation(human, a, b, offsets, variant: str = "acc-eq", epsilon_a: float = 0.0,
                         epsilon_b: float = 0.0, permutations: int = 1000, seed=DEFAULT_SEED, *,
                         early_stop: EarlyStop | None = None, undefined_as_zero: bool = False) -> PermutationResult:
    """Pairwise-comparison permutation test of Kendall ``variant`` (module docstring).

    Each metric's pairs are categorized at its own threshold (``epsilon_a``,
    ``epsilon_b``: usually each metric's calibrated ε); trial r takes pair
    (i, j) of group g from b where bit (i, j) of the group's n × n draw is 1.
    As in mt-metrics-eval, early stopping is only checked at a block boundary
    whose trial reached δ.
    """
    rng = as_rng(seed)
    variant = canonical_variant(variant)
    if variant == "c":
        raise ValueError("tau-c is not defined on swapped pairs (it depends on the scores)")
    offsets = np.asarray(offsets, np.int64)
    n = np.diff(offsets)
    if int((n * (n - 1) // 2).sum()) > MAX_PAIRS:
        return _pairwise_permutation_by_counts(human, a, b, offsets, variant, epsilon_a, epsilon_b, permutations,
                                               rng, early_stop, undefined_as_zero)
    st_a = PairStatistic(variant, human, offsets, epsilon=epsilon_a, undefined_as_zero=undefined_as_zero)
    st_b = PairStatistic(variant, human, offsets, epsilon=epsilon_b, undefined_as_zero=undefined_as_zero)
    cat_a = st_a.categories(np.asarray(a, np.float64)[st_a.i], np.asarray(a, np.float64)[st_a.j])
    cat_b = st_b.categories(np.asarray(b, np.float64)[st_b.i], np.asarray(b, np.float64)[st_b.j])
    delta = float(st_a.tau_of_categories(cat_a[None])[0] - st_a.tau_of_categories(cat_b[None])[0])
    # position of bit (i, j) of each pair in a trial's concatenated n_g × n_g draws
    square_start = offsets_from_sizes(n * n)[:-1]
    g = group_index(offsets)[st_a.i]
    bit_pos = np.where(st_a.real, square_start[g] + (st_a.i - offsets[g]) * n[g] + (st_a.j - offsets[g]), 0)
    per_trial = int((n * n).sum())
    draws, large, done = [], 0, 0
    for step in _chunks(permutations, per_trial, early_stop):  # stops only at a chunk's end
        bits = (rng.random_sample((step, per_trial)) > 0.5)[:, bit_pos]
        c1 = st_a.tau_of_categories(np.where(bits, cat_b, cat_a))
        c2 = st_a.tau_of_categories(np.where(bits, cat_a, cat_b))
        large, done, stopped = _count_trials(c1, c2, delta, draws, large, done, early_stop)
        if stopped:
            break
    return PermutationResult(large / done if done else 0.0, delta, done, np.array(draws).reshape(-1, 2))


def _count_trials(c1, c2, delta, draws: list, large: int, done: int, early_stop):
    """Add a chunk's trials one by one (their draws, the count reaching δ); with early stopping,
    stop at a block boundary whose trial reached δ when p < early_min or p > early_max, as
    mt-metrics-eval's pairwise test does. Returns (large, done, stopped)."""
    for r in range(len(c1)):
        done += 1
        draws.append((c2[r], c1[r]))
        if reaches(c2[r] - c1[r], delta):
            large += 1
            if early_stop and done % early_stop.block_size == 0:
                p = large / done
                if p < early_stop.early_min or p > early_stop.early_max:
                    return large, done, True
    return large, done, False


def _pairwise_permutation_by_counts(human, a, b, offsets, variant, epsilon_a, epsilon_b, permutations, rng,
                                    early_stop, undefined_as_zero) -> PermutationResult:
    """The pairwise-comparison test of eq or acc-eq on groups too large to hold their pairs.

    Both statistics count, per group, the pairs in C or T_hm ("good"); eq = (2 good - P)/P,
    acc-eq = good/P. Only the pairs good for exactly one metric depend on the swaps: with
    K_a of them good for a only and K_b for b only, the first hybrid of a trial is good on
    X_a ~ Binomial(K_a, 1/2) of the first and X_b ~ Binomial(K_b, 1/2) of the second (the
    second hybrid on the rest) — the distribution of pairwise swaps with independent fair
    bits, drawn per group and trial instead of one bit per pair. The counts come from the
    pairs enumerated in bounded chunks. Same early stopping as :func:`pairwise_permutation`.
    """
    if variant not in CALIBRATED_VARIANTS:
        raise ValueError(f"groups of more than {MAX_PAIRS} pairs: the pairwise test supports eq and acc-eq, "
                         f"not {variant!r}")
    n = np.diff(offsets)
    pairs = n * (n - 1) // 2
    both, only_a, only_b = _joint_good_counts(human, a, b, offsets, epsilon_a, epsilon_b)

    def value(good):
        num_den = (good if variant == "acc-eq" else 2 * good - pairs, np.broadcast_to(pairs, good.shape))
        K = good.shape[0]
        return average_groups(ratio(*num_den), np.broadcast_to(n, (K, len(n))), num_den[1], ratio_of=num_den,
                              undefined_as_zero=undefined_as_zero)[0]

    delta = float(value((both + only_a)[None])[0] - value((both + only_b)[None])[0])
    draws, large, done = [], 0, 0
    for step in _chunks(permutations, 2 * len(n), early_stop):
        x_a = rng.binomial(only_a, 0.5, size=(step, len(n)))
        x_b = rng.binomial(only_b, 0.5, size=(step, len(n)))
        c1 = value(both + x_a + x_b)
        c2 = value(both + (only_a - x_a) + (only_b - x_b))
        large, done, stopped = _count_trials(c1, c2, delta, draws, large, done, early_stop)
        if stopped:
            break
    return PermutationResult(large / done if done else 0.0, delta, done, np.array(draws).reshape(-1, 2))


#: Pairs enumerated at once when counting pair categories of large groups.
PAIR_CHUNK = 1 << 20


def _joint_good_counts(human, a, b, offsets, epsilon_a, epsilon_b):
    """Per group, the pairs in C or T_hm for both metrics, for a only, for b only (each metric with its
    own tie threshold), the pairs enumerated ``PAIR_CHUNK`` at a time."""
    human, a, b = (np.asarray(x, np.float64) for x in (human, a, b))
    gid = group_index(offsets)
    earlier = np.arange(len(human)) - offsets[gid]  # pairs (i, j), i < j, of each cell j
    ends = np.cumsum(earlier)
    G = len(offsets) - 1
    both, only_a, only_b = (np.zeros(G, np.int64) for _ in range(3))
    first = 0
    while first < len(human):
        last = int(np.searchsorted(ends, (ends[first - 1] if first else 0) + PAIR_CHUNK, side="right"))
        last = max(last, first + 1)
        js = np.arange(first, last)
        k = earlier[js]
        j = np.repeat(js, k)
        i = offsets[gid[j]] + np.arange(len(j)) - np.repeat(np.cumsum(k) - k, k)
        hsign = np.sign(human[j] - human[i])
        good = []
        for x, eps in ((a, epsilon_a), (b, epsilon_b)):
            d = x[j] - x[i]
            tie = np.abs(d) <= eps
            good.append(np.where(tie, hsign == 0, (hsign != 0) & (np.sign(d) == hsign)))
        g = gid[j]
        both += np.bincount(g, weights=good[0] & good[1], minlength=G).astype(np.int64)
        only_a += np.bincount(g, weights=good[0] & ~good[1], minlength=G).astype(np.int64)
        only_b += np.bincount(g, weights=~good[0] & good[1], minlength=G).astype(np.int64)
        first = last
    return both, only_a, only_b


def lp_cells(human, a, b) -> Cells:
    """System-level cells across language pairs: one group per language pair."""
    hs, As, Bs = as_lp_list(human), as_lp_list(a), as_lp_list(b)
    h, ma, mb = np.concatenate(hs), np.concatenate(As), np.concatenate(Bs)
    keep = ~(np.isnan(h) | np.isnan(ma) | np.isnan(mb))
    lp = np.repeat(np.arange(len(hs)), [len(x) for x in hs])
    sizes = np.bincount(lp[keep], minlength=len(hs))
    return Cells(h[keep], [ma[keep], mb[keep]], offsets_from_sizes(sizes), np.flatnonzero(keep))


def pair_test(human, a, b, stat_name, level, average_by, opts, perm_test, permutations, rng, early_stop,
              eps_a, eps_b, spa):
    """One permutation test of "a better than b" on the task's statistic."""
    if level == "sys" and stat_name == "spa":
        hm, am, bm = as_matrix(human), as_matrix(a), as_matrix(b)
        keep = complete_segments(hm, am, bm)
        stat = SpaStatistic(hm[:, keep], spa)
        return paired_permutation(stat, am[:, keep].ravel(), bm[:, keep].ravel(), permutations, rng,
                                  early_stop=early_stop)
    if level == "sys" and stat_name == "accuracy":
        cells = lp_cells(human, a, b)
        stat_name, opts = "kendall", dict(variant="acc-eq", weighting="pairs")
    elif level == "sys":
        cells = grouped_cells(np.asarray(human, np.float64).reshape(-1, 1),
                              [np.asarray(a, np.float64).reshape(-1, 1), np.asarray(b, np.float64).reshape(-1, 1)],
                              "none")
        opts = dict(variant=opts["variant"])
    else:
        cells = grouped_cells(human, [a, b], average_by)
    if perm_test == "pairs":
        variant = "acc-eq" if stat_name == "accuracy" else canonical_variant(opts.get("variant") or "b")
        if opts.get("calibrate"):
            ea, eb = eps_a, eps_b
        else:
            ea = eb = opts.get("epsilon") or 0.0
        return pairwise_permutation(cells.human, cells.metrics[0], cells.metrics[1], cells.offsets, variant,
                                    ea, eb, permutations, rng, early_stop=early_stop,
                                    undefined_as_zero=opts.get("undefined_as_zero", False))
    stat = make_cell_statistic(stat_name, cells.human, cells.offsets, **opts)
    return paired_permutation(stat, cells.metrics[0], cells.metrics[1], permutations, rng,
                              early_stop=early_stop)


def permutation_test(human, metric_a, metric_b, statistic: str = "pearson", average_by: str = "none", *,
                     permutations: int = 1000, seed=DEFAULT_SEED, perm_test: str | None = None, early_stop=None,
                     **options):
    """p of "metric a is better than metric b" on a segment-level statistic (see :func:`compare_metrics`).

    Returns :class:`PermutationResult` (p, δ, trials, draws).
    """
    calibrate = options.get("calibrate", False)
    perm_test = perm_test or ("pairs" if calibrate else "scores")
    eps_a = eps_b = None
    if calibrate:
        eps_a = seg_statistic(human, metric_a, statistic, average_by, **options).epsilon
        eps_b = seg_statistic(human, metric_b, statistic, average_by, **options).epsilon
    opts = dict(variant=None, epsilon=None, calibrate=False, min_human_diff=None, undefined_as_zero=False,
                weighting="plain")
    opts.update(options)
    return pair_test(human, metric_a, metric_b, statistic.lower(), "seg", average_by, opts, perm_test,
                     permutations, as_rng(seed), early_stop, eps_a, eps_b, SpaSpec())


