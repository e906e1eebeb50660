"""TrueSkill system rankings as WMT14-16 computed them (Sakaguchi, Post & Van Durme 2014).

**The two-player update** (Herbrich, Minka & Graepel 2007, the 1-vs-1 case of their
eqs. for the factor graph): each system has a Gaussian skill N(μ, σ²); a comparison
of x and y where x won (or drew) updates, with c² = 2β² + σ_x² + σ_y²,
t = (μ_x − μ_y)/c and ε = √2 · β · Φ⁻¹((p_draw + 1)/2) the draw margin (e = ε/c):

    μ_x ← μ_x + σ_x²/c · v,   μ_y ← μ_y − σ_y²/c · v,
    σ_x² ← σ_x² · (1 − σ_x²/c² · w),   σ_y² ← σ_y² · (1 − σ_y²/c² · w),

    win:  v = φ(t − e)/Φ(t − e),  w = v (v + t − e)
    draw: with a = e − |t|, b = −e − |t|, D = Φ(a) − Φ(b):
          v = sign(t) (φ(b) − φ(a))/D,  w = v² + (a φ(a) − b φ(b))/D

(τ = 0, so no dynamics term). The ``trueskill`` package computes the same through
its factor graph; the tests compare both on random match sequences.

**The WMT procedure** (keisks/wmt-trueskill ``src/infer_TS.py`` with ``-n 2 -d 0``,
as WMT15-16 ran it): μ₀ = 0, σ₀ = 0.5, τ = 0, p_draw = 0.25, and
β = σ₀ · M / 40 with M = (number of pairwise comparisons) + 1 plays. Every ranking
gives one comparison per pair of systems it ranks (equal ranks: a draw); a ranking
with a blank rank takes no part in WMT's code, here only its pairs with a blank
are left out. Each play chooses its match actively: system x is the one with the
largest σ (among equal σ, the largest id, as WMT's reverse sort gives), its
opponent y is drawn with probability ∝ exp(−|μ_x − μ_y|), and the outcome is one
comparison of x and y drawn uniformly (with replacement) from the data. A play
whose pair was never compared changes nothing (WMT's code stops with an error
there); such plays are counted and reported.

**Repeated runs** (WMT16: ``scripts/run-1000.sh`` of cfedermann/wmt16 and
``eval/cluster.py -by-rank`` of wmt-trueskill): each of N runs first resamples
the pairwise comparisons with replacement (as many as there are), then plays M
times. Systems are ordered by their mean μ over the runs; each run ranks the
systems by its μ; a system's rank range at level L drops α = ⌈(N − N·L)/2⌉ of its
N ranks at each end (N = 1000, L = 0.95: the 26th to the 975th smallest); a
cluster boundary follows a system whose worst rank is better than the best rank
of every system after it. Without repeated runs, one run plays on the data as
given and the systems are ordered by its μ.

**Randomness and order.** TrueSkill is order dependent, and the order here is the
random match sequence above, not the order of the input. Run r uses its own
generator ``default_rng(SeedSequence(seed).spawn(N)[r])``: first the resample, then
two uniforms per play (opponent, outcome), drawn in blocks of :data:`BLOCK` plays.
The runs advance together as numpy arrays, one play per step, so N runs cost
about as much Python work as one. Python's ``random`` stream of WMT's script
cannot be reproduced, so results agree with WMT's in distribution, not bit for bit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import log_ndtr, ndtr, ndtri

from ..stats.resample import DEFAULT_SEED  # seed of the random plays when none is given
from .win_counts import PairCounter

MU0 = 0.0
SIGMA0 = 0.5
TAU = 0.0
DRAW_PROBABILITY = 0.25
#: Plays whose uniforms are drawn at once per run.
BLOCK = 512
_SQRT_2PI = math.sqrt(2 * math.pi)


@dataclass
class Comparisons:
    """Pairwise outcomes between items 0..K-1 (sorted by id): ``lo < hi`` always."""

    lo: np.ndarray  # int64
    hi: np.ndarray  # int64
    outcome: np.ndarray  # 0 = lo won, 1 = hi won, 2 = draw
    n_items: int


@dataclass
class TrueSkillResult:
    mu: np.ndarray  # runs × K: final μ of every run
    sigma2: np.ndarray  # runs × K: final σ²
    beta: float
    plays: int  # per run
    idle_plays: int  # plays, summed over runs, whose pair had no comparison


def comparisons_from_counts(wins: np.ndarray, ties: np.ndarray) -> Comparisons:
    """The comparisons behind K × K counts: ``wins[i, j]`` times i beat j, ``ties[i, j]`` draws
    (symmetric). TrueSkill draws its matches by these counts, so their order does not matter:
    they come sorted by pair (i < j) and outcome."""
    k = wins.shape[0]
    lo, hi = np.triu_indices(k, 1)
    per_pair = np.stack([wins[lo, hi], wins[hi, lo], ties[lo, hi]], axis=1).reshape(-1)
    take = np.repeat(np.arange(len(per_pair)), np.rint(per_pair).astype(np.int64))
    return Comparisons(lo[take // 3].astype(np.int64), hi[take // 3].astype(np.int64), take % 3, k)


def comparisons(counter: PairCounter) -> Comparisons:
    """The pairwise comparisons counted by a :class:`PairCounter`, items by id index."""
    stats = counter.stats()
    return comparisons_from_counts(stats.wins, stats.ties)


def scores(stats, seed: int = DEFAULT_SEED) -> np.ndarray:
    """μ of one TrueSkill run (no resampling) per set of pair counts: ``stats`` may carry
    leading replicate axes (the group bootstrap of :mod:`.bootstrap` and ``correlate --ci``);
    one run per replicate, so this is slow for many replicates of large data."""
    wins, ties = np.asarray(stats.wins), np.asarray(stats.ties)
    k = wins.shape[-1]
    lead = wins.shape[:-2]
    flat_w, flat_t = wins.reshape(-1, k, k), ties.reshape(-1, k, k)
    out = np.empty((len(flat_w), k))
    for i in range(len(flat_w)):
        out[i] = play(comparisons_from_counts(flat_w[i], flat_t[i]), runs=1, seed=seed, resample=False).mu[0]
    return out.reshape(*lead, k)


def draw_margin(beta: float, draw_probability: float = DRAW_PROBABILITY) -> float:
    """ε = √2 · β · Φ⁻¹((p_draw + 1)/2) (two players; Herbrich et al. 2007)."""
    return math.sqrt(2.0) * beta * float(ndtri((draw_probability + 1) / 2))


def _pdf(x):
    return np.exp(-0.5 * x * x) / _SQRT_2PI


def update(mu_x, s2_x, mu_y, s2_y, draw, beta: float, eps: float):
    """Two-player TrueSkill update (x beat y, or drew where ``draw``); arrays broadcast.

    Returns the new (μ_x, σ_x², μ_y, σ_y²); see the module docstring for the equations.
    """
    c2 = 2 * beta * beta + s2_x + s2_y
    c = np.sqrt(c2)
    t = (mu_x - mu_y) / c
    e = eps / c
    # win: v = φ(t−e)/Φ(t−e); in log space where Φ(t−e) would underflow
    x = t - e
    if np.all(x > -30):
        v_win = _pdf(x) / ndtr(x)
    else:
        v_win = np.exp(-0.5 * x * x - np.log(_SQRT_2PI) - log_ndtr(x))
    w_win = v_win * (v_win + x)
    # draw
    abs_t = np.abs(t)
    a, b = e - abs_t, -e - abs_t
    den = ndtr(a) - ndtr(b)
    pa, pb = _pdf(a), _pdf(b)
    v_draw = np.where(t < 0, -1.0, 1.0) * (pb - pa) / den
    w_draw = v_draw * v_draw + (a * pa - b * pb) / den
    v = np.where(draw, v_draw, v_win)
    w = np.where(draw, w_draw, w_win)
    return (mu_x + s2_x / c * v, s2_x * (1 - s2_x / c2 * w),
            mu_y - s2_y / c * v, s2_y * (1 - s2_y / c2 * w))


def _pair_index(k: int) -> np.ndarray:
    """K × K table of pair numbers (symmetric; the diagonal is unused)."""
    table = np.zeros((k, k), dtype=np.int64)
    lo, hi = np.triu_indices(k, 1)
    table[lo, hi] = table[hi, lo] = np.arange(len(lo))
    return table


def play(data: Comparisons, runs: int = 1, seed: int = DEFAULT_SEED, resample: bool = True,
         mu0: float = MU0, sigma0: float = SIGMA0, draw_probability: float = DRAW_PROBABILITY) -> TrueSkillResult:
    """``runs`` TrueSkill runs of the WMT procedure (see the module docstring).

    The runs are cut into ranges run as executor work units (``--jobs``); run r draws
    from its own generator whatever range it falls in, so the result does not depend
    on the cut."""
    from ..executor import map_units, ranges

    shared = (data, seed, resample, float(mu0), float(sigma0), draw_probability)
    parts = map_units(_play_runs, ranges(runs, MIN_RUNS_PER_UNIT, per_worker=1), shared=shared, label="TrueSkill runs")
    mu = np.concatenate([p.mu for p in parts]) if parts else np.zeros((0, data.n_items))
    s2 = np.concatenate([p.sigma2 for p in parts]) if parts else np.zeros((0, data.n_items))
    first = parts[0] if parts else _play_runs(shared, (0, 0))
    return TrueSkillResult(mu, s2, first.beta, first.plays, sum(p.idle_plays for p in parts))


#: the fewest runs worth a work unit of their own; one unit per worker, since every unit pays
#: the whole per-play Python loop (its runs advance together, one numpy step per play)
MIN_RUNS_PER_UNIT = 50


def _play_runs(shared, unit) -> TrueSkillResult:
    """Runs ``start ≤ r < stop`` of :func:`play`, advanced together."""
    data, seed, resample, mu0, sigma0, draw_probability = shared
    start_run, stop_run = unit
    runs = stop_run - start_run
    k, n = data.n_items, len(data.outcome)
    plays = n + 1
    beta = sigma0 * plays / 40.0
    eps = draw_margin(beta, draw_probability)
    mu = np.full((runs, k), float(mu0))
    s2 = np.full((runs, k), float(sigma0) ** 2)
    if k < 2 or n == 0:
        return TrueSkillResult(mu, s2, beta, 0, 0)
    pairs = _pair_index(k)
    n_pairs = k * (k - 1) // 2
    code = pairs[data.lo, data.hi] * 3 + data.outcome
    generators = [np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(r,)))
                  for r in range(start_run, stop_run)]  # = SeedSequence(seed).spawn(N)[r]
    counts = np.empty((runs, n_pairs, 3))
    for r, rng in enumerate(generators):
        drawn = code[rng.integers(0, n, n)] if resample else code
        counts[r] = np.bincount(drawn, minlength=3 * n_pairs).reshape(n_pairs, 3)
    cum_counts = np.cumsum(counts, axis=2).reshape(runs * n_pairs, 3)  # (run, pair) × 3
    # state as items × runs, contiguous per item: the per-play work is whole-row numpy operations
    mu_t, s2_t = mu.T.copy(), s2.T.copy()
    mu_f, s2_f = mu_t.reshape(-1), s2_t.reshape(-1)  # views: item i of run r at i·runs + r
    rows = np.arange(runs)
    pair_rows = rows * n_pairs
    idle = 0
    for start in range(0, plays, BLOCK):
        block = min(BLOCK, plays - start)
        uniforms = np.stack([g.random((block, 2)) for g in generators], axis=1)  # block × runs × 2
        for step in range(block):
            u_opp, u_out = uniforms[step, :, 0], uniforms[step, :, 1]
            x = (k - 1) - np.argmax(s2_t[::-1], axis=0)  # largest σ², ties to the largest id
            x_at = x * runs + rows
            weight = np.exp(-np.abs(mu_t - mu_f[x_at]))
            weight.reshape(-1)[x_at] = 0.0
            cum = np.cumsum(weight, axis=0)
            above = cum > u_opp * cum[-1]
            y = np.argmax(above, axis=0)
            none = ~above[-1]  # rounding left u·total at the total: the last item other than x
            if none.any():
                y[none] = np.where(x[none] == k - 1, k - 2, k - 1)
            cc = cum_counts[pair_rows + pairs[x, y]]  # runs × 3
            total = cc[:, 2]
            pick = u_out * total
            outcome = (pick >= cc[:, 0]).astype(np.int64) + (pick >= cc[:, 1])
            lo, hi = np.minimum(x, y), np.maximum(x, y)
            won_hi = outcome == 1
            w_at = np.where(won_hi, hi, lo) * runs + rows
            l_at = np.where(won_hi, lo, hi) * runs + rows
            new = update(mu_f[w_at], s2_f[w_at], mu_f[l_at], s2_f[l_at], outcome == 2, beta, eps)
            live = total > 0
            if not live.all():
                idle += int(runs - np.count_nonzero(live))
                w_at, l_at, new = w_at[live], l_at[live], [a[live] for a in new]
            mu_f[w_at], s2_f[w_at], mu_f[l_at], s2_f[l_at] = new
    mu, s2 = mu_t.T.copy(), s2_t.T.copy()
    return TrueSkillResult(mu, s2, beta, plays, idle)


def run_ranks(mu: np.ndarray, sigma2: np.ndarray) -> np.ndarray:
    """Ranks (runs × K, 1 = best) by μ descending, then σ² descending, then id descending
    (WMT's reverse sort of (μ, σ², name))."""
    runs, k = mu.shape
    ids = np.broadcast_to(np.arange(k), mu.shape)
    order = np.lexsort((-ids, -sigma2, -mu), axis=1)
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(1, k + 1)[None, :].repeat(runs, 0), axis=1)
    return ranks


def wmt_rank_ranges(ranks: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Per item, the range of its ranks after dropping α = ⌈(N − N·level)/2⌉ at each end."""
    n = ranks.shape[0]
    alpha = int(math.ceil((n - (n * 1.0 * level)) / 2.0))
    ordered = np.sort(ranks, axis=0)
    if alpha == 0 or 2 * alpha >= n:
        return ordered[0], ordered[-1]
    return ordered[alpha], ordered[n - 1 - alpha]


def wmt_clusters(lo: np.ndarray, hi: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Cluster number (1 = best) per item: a boundary follows the item at position i of
    ``order`` when its worst rank is below every later item's best rank (hi_i < min lo_j, j > i)."""
    if len(order) == 0:
        return np.zeros(0, dtype=np.int64)
    lo_sorted, hi_sorted = lo[order], hi[order]
    later_best = np.minimum.accumulate(lo_sorted[::-1])[::-1][1:]
    boundary = hi_sorted[:-1] < later_best
    cluster_sorted = np.concatenate([[1], 1 + np.cumsum(boundary)])
    out = np.empty(len(order), dtype=np.int64)
    out[order] = cluster_sorted
    return out


def final_order(result: TrueSkillResult) -> tuple[np.ndarray, np.ndarray]:
    """(mean μ per item, item indices best first): by mean μ descending, then by item id, as every
    aggregation method orders its items (:func:`~.methods.sort_order`), so fully tied systems come
    A, B, C. (Within each run, ranks keep WMT's reverse sort: :func:`run_ranks`.)"""
    from .methods import sort_order

    mean = result.mu.mean(axis=0)
    return mean, sort_order(mean)
