"""Paired significance tests between predictions of the same gold, over groups.

System 0 is the baseline; system j has the per-group statistics s_jg of the same
groups (see :mod:`.resample`), its score θ_j = f(Σ_g s_jg) and the observed
difference δ_j = θ_j - θ_0.

Paired bootstrap (Koehn 2004, "Statistical significance tests for machine
translation evaluation", EMNLP; Efron & Tibshirani 1993, §16.4). Every replicate
resamples the groups once and applies the same counts to all systems, giving
θ*_jb and δ*_jb = θ*_jb - θ*_0b. The interval of δ_j is the percentile interval
of the δ*_jb. The p-value tests δ_j = 0 two-sidedly by shifting the bootstrap
distribution of the difference to the null (centring it on 0):

    p_boot = (1 + #{b : |δ*_jb - δ_j| ≥ |δ_j|}) / (1 + B).

For δ_j > 0 this counts the replicates where the difference's sign flips
(δ* ≤ 0, Koehn's criterion: "how often does the better system lose") plus those
at least as far out on the other side (δ* ≥ 2δ, the rule of Berg-Kirkpatrick,
Burkett & Klein 2012, "An empirical investigation of statistical significance in
NLP", EMNLP). The +1s (Davison & Hinkley 1997, eq. 4.11) keep p > 0 and the test
valid at small B, as in sacreBLEU (Post 2018) and MultEval (Clark et al. 2011).
sacreBLEU's own bootstrap statistic is |δ*| - mean|δ*| > |δ| (from the Moses
script), which is not centred under the null when δ ≠ 0; we centre δ* itself.

Paired approximate randomization (Noreen 1989; Riezler & Maxwell 2005, "On some
pitfalls in automatic evaluation and significance testing for MT"): in each of R
trials, every group's statistics of the two systems are swapped with probability
1/2 (for micro tau, the group's pair counts; for a mean, its value and defined
flag), and the difference of the two pseudo-systems' scores is recomputed:

    p_rand = (1 + #{r : |Δ*_r| ≥ |δ_j|}) / (1 + R).

Under the null that the two predictions are exchangeable within each group this
p-value is exact (valid at any R). Differences are compared with a tolerance of
:data:`TOLERANCE` (all measures compared lie in [-1, 1]), so that a trial whose
difference equals the observed one up to float rounding (e.g. 2/3 - 1/3 against
1/3) counts as "at least as extreme".

Swaps are drawn like bootstrap counts (:mod:`.resample`): one random bit per
group (``indices``, the default of :func:`compare`), or, when many groups share
the same row of differences s_jg - s_0g, a Binomial(n_u, 1/2) count per distinct
row (groups where the systems agree drop out). Trial r uses its own generator
and sums are exact on the binary grid of :mod:`.resample`, so results depend
neither on chunking nor on which other systems are compared.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .resample import (DEFAULT_REPLICATES, DEFAULT_SEED, RANDOMIZATION_STREAM, bootstrap_values, choose_method,
                       distinct_rows, grid_exponents, grid_values, off_grid, on_grid, percentile_interval,
                       replicate_rng, weighted_sums)

#: Differences closer than this count as equal in the p-value counts.
TOLERANCE = 1e-9


@dataclass
class Comparison:
    """One system against the baseline (for the baseline itself: delta 0, p-values NaN)."""

    value: float  # θ_j from the pooled statistics
    ci_low: float
    ci_high: float
    delta: float
    delta_ci_low: float
    delta_ci_high: float
    p_bootstrap: float
    p_randomization: float


def paired_bootstrap(stat, raws: list[np.ndarray], n: int = DEFAULT_REPLICATES, seed: int = DEFAULT_SEED,
                     *, method: str = "auto") -> np.ndarray:
    """Replicate scores θ*_jb (n × systems), all systems resampled with the same groups."""
    return bootstrap_values([stat] * len(raws), raws, n, seed, method=method)


def bootstrap_p(delta: float, replicate_deltas: np.ndarray) -> float:
    """(1 + #{|δ* - δ| ≥ |δ|}) / (1 + B) over the finite replicates (module docstring)."""
    d = np.asarray(replicate_deltas, dtype=np.float64)
    d = d[np.isfinite(d)]
    if not math.isfinite(delta) or not len(d):
        return math.nan
    return (1 + int((np.abs(d - delta) >= abs(delta) - TOLERANCE).sum())) / (1 + len(d))


def randomization_deltas(stat, raws: list[np.ndarray], n: int, seed: int = DEFAULT_SEED, *,
                         method: str = "auto", first: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(observed δ_j, Δ*_rj): system j minus baseline, as observed and after random per-group swaps.

    One swap pattern per trial is shared by all systems (each comparison is a
    valid test on its own; sharing costs one set of draws). Each pair (0, j)
    has its own exact grid (see :mod:`.resample`): with |q| ≤ 2^51/G, the totals,
    the swapped sums (|Σ z (q_j - q_0)| ≤ 2^52) and their sum stay below 2^53.
    """
    expanded = [stat.expand(raw) for raw in raws]
    w, k, g = stat.width, len(expanded) - 1, len(expanded[0]) if expanded else 0
    observed, out = np.empty(k), np.empty((n, k))
    if k == 0:
        return observed, out
    base_exponents = grid_exponents(expanded[0], g)
    exponents = [np.minimum(base_exponents, grid_exponents(e, g)) for e in expanded[1:]]
    totals, diffs = [], []
    for e, exp in zip(expanded[1:], exponents):
        base, other = on_grid(expanded[0], exp), on_grid(e, exp)
        totals.append((base.sum(axis=0), other.sum(axis=0)))
        diffs.append(other - base)
    for j, ((base_total, other_total), exp) in enumerate(zip(totals, exponents)):
        observed[j] = stat.value(off_grid(other_total, exp)) - stat.value(off_grid(base_total, exp))
    for start, swapped in swap_sums(np.hstack(diffs), n, seed, method=method, first=first):
        for j, ((base_total, other_total), exp) in enumerate(zip(totals, exponents)):
            s = swapped[:, j * w:(j + 1) * w]
            pseudo_base = off_grid(base_total + s, exp)  # the baseline, with system j's stats where swapped
            pseudo_sys = off_grid(other_total - s, exp)
            out[start:start + len(s), j] = stat.value(pseudo_sys) - stat.value(pseudo_base)
    return observed, out


def swap_sums(diffs: np.ndarray, n: int, seed: int, *, method: str = "auto", first: int = 0):
    """Yield ``(start, sums)``: Σ_g z_g d_g with z_g ~ Bernoulli(1/2), for chunks of the ``n`` trials
    numbered from ``first`` (``start`` counts from 0)."""
    diffs = np.asarray(diffs, dtype=np.float64)
    g = len(diffs)
    packed = None
    if method != "indices":
        changed = diffs[(diffs != 0).any(axis=1)] if diffs.size else diffs[:0]
        packed = distinct_rows(changed)
    chosen = choose_method(method, g, len(packed.counts) if packed is not None else g)
    if chosen == "multinomial":
        rows, counts = packed.rows, packed.counts

        def draw(b):
            return replicate_rng(seed, RANDOMIZATION_STREAM, b).binomial(counts, 0.5)
    else:
        rows, nbytes = diffs, (g + 7) // 8

        def draw(b):
            raw = replicate_rng(seed, RANDOMIZATION_STREAM, b).bytes(nbytes)
            return np.unpackbits(np.frombuffer(raw, dtype=np.uint8))[:g]
    for start, sums in weighted_sums(rows, len(rows), first + n, draw, start=first):
        yield start - first, sums


def randomization_p(delta: float, trial_deltas: np.ndarray) -> float:
    """(1 + #{|Δ*| ≥ |δ|}) / (1 + R) over the finite trials."""
    d = np.asarray(trial_deltas, dtype=np.float64)
    d = d[np.isfinite(d)]
    if not math.isfinite(delta) or not len(d):
        return math.nan
    return (1 + int((np.abs(d) >= abs(delta) - TOLERANCE).sum())) / (1 + len(d))


def compare(stat, raws: list[np.ndarray], *, level: float = 0.95, bootstrap: int = DEFAULT_REPLICATES,
            permutations: int = DEFAULT_REPLICATES, seed: int = DEFAULT_SEED,
            method: str = "indices") -> list[Comparison]:
    """Scores, intervals, differences to ``raws[0]`` and both p-values, one entry per system.

    By default the draws are group indices and per-group swap bits, which do not
    depend on the statistics: a system's results are then the same whichever other
    systems are compared with it (``auto`` may use the faster multinomial draws,
    which depend on the joint statistics of all systems).
    """
    expanded = [stat.expand(raw) for raw in raws]
    values = [float(stat.value(e.sum(axis=0))) for e in expanded]
    if expanded and len(expanded[0]) < 2:
        bootstrap = 0  # one group: every replicate is the sample itself, no interval and no bootstrap test
    boot = paired_bootstrap(stat, raws, bootstrap, seed, method=method)
    on_grid_values = grid_values([stat] * len(raws), raws)  # the replicates' own full-sample values
    if permutations:
        observed, rand = randomization_deltas(stat, raws, permutations, seed, method=method)
    out = []
    for j, value in enumerate(values):
        low, high = percentile_interval(boot[:, j], level)
        if j == 0:
            out.append(Comparison(value, low, high, 0.0, math.nan, math.nan, math.nan, math.nan))
            continue
        deltas = boot[:, j] - boot[:, 0]
        d_low, d_high = percentile_interval(deltas, level)
        p_boot = bootstrap_p(on_grid_values[j] - on_grid_values[0], deltas)
        p_rand = randomization_p(observed[j - 1], rand[:, j - 1]) if permutations else math.nan
        out.append(Comparison(value, low, high, value - values[0], d_low, d_high, p_boot, p_rand))
    return out

