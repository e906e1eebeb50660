"""Percentile bootstrap over groups from per-group sufficient statistics.

Every summary measure here is a function of sums over groups: θ = f(Σ_g s_g).

* a macro mean (MRR, NDCG, ERR, rankDCG, macro tau, ...): s_g = (v_g·d_g, d_g)
  with d_g = 1 where the group's value v_g is defined, θ = Σ v d / Σ d;
* micro tau (Avramidis 2013 τ_μ): s_g = the group's pair counts (C, D, T_h, T_m, T_hm)
  and, for Stuart's c, its denominator n²(m-1)/m; θ = the variant's formula on
  the pooled counts.

A bootstrap replicate draws G groups with replacement (Efron & Tibshirani 1993,
ch. 6, resampling the independent units: groups, never items of a group), i.e.
gives group g a count c_g ~ Multinomial(G; 1/G, ..., 1/G), and its value is
θ* = f(Σ_g c_g s_g). The interval at level L is the percentile interval
(Efron & Tibshirani 1993, §13.3): the (1-L)/2 and (1+L)/2 quantiles of the
replicate values (linear interpolation between order statistics, Hyndman & Fan
type 7, numpy's default). Replicates whose value is undefined (no defined group
drawn) are left out.

Two exact ways to draw the counts, chosen by the data:

* ``indices``: G uniform group numbers per replicate, counted with bincount;
* ``multinomial``: when many groups share the same statistics row (DARR pairs:
  three distinct rows; 5-item WMT rankings: a few hundred), the count of each of
  the U distinct rows is drawn directly, Multinomial(G; n_u / G) — the same
  distribution of Σ_g c_g s_g at O(U) cost per replicate.

Either way a chunk of b replicates is one (b × G or b × U) count matrix times the
(G or U) × K statistics matrix; chunks hold at most :data:`CHUNK_CELLS` counts,
so memory stays at a few arrays of G floats. Replicate b draws from its own
generator, ``SeedSequence(seed, spawn_key=(stream, b))``.

Exact sums. Before resampling, each statistics column is put on a binary grid:
q = round(s·2^e) with the largest e for which G·max|q| ≤ 2^51 (integer columns such
as pair counts and defined flags keep e ≤ 0, i.e. stay exact). Every partial sum of
a replicate is then an integer below 2^53, so the float product is exact whatever
the order of additions: results do not depend on chunking, BLAS, threads or the
machine, and a seed reproduces them bit for bit. The rounding moves a value by at
most 2^-(e+1): below 1.2e-10 for a million groups of values in [-1, 1], far below
the Monte Carlo error of any interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from ..vocabulary import DEFAULT_REPLICATES, DEFAULT_SEED  # noqa: F401  (the resampling's defaults)
#: Replicate counts (replicates × groups) held in memory at once.
CHUNK_CELLS = 1 << 22
#: Random streams of one seed: bootstrap replicates and randomization trials never share draws.
BOOTSTRAP_STREAM, RANDOMIZATION_STREAM = 0, 1
METHODS = ("auto", "indices", "multinomial")


def replicate_rng(seed: int, stream: int, index: int) -> np.random.Generator:
    """The generator of replicate (or trial) ``index`` of ``stream``."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(stream, index)))


# --- statistics ------------------------------------------------------------------------------

def safe_ratio(num, den) -> np.ndarray:
    """num / den elementwise, NaN where den is 0."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    shape = np.broadcast(num, den).shape
    return np.divide(num, den, out=np.full(shape, np.nan), where=den != 0)


@dataclass(frozen=True)
class MeanStat:
    """Mean of per-group values over the groups where they are defined (raw: one column, NaN = undefined)."""

    width: int = 2

    def expand(self, raw: np.ndarray) -> np.ndarray:
        """(G × 1) values → (G × 2) summable columns (v·d, d)."""
        values = np.asarray(raw, dtype=np.float64)
        values = values[:, 0] if values.ndim == 2 else values
        defined = ~np.isnan(values)
        return np.column_stack([np.where(defined, values, 0.0), defined.astype(np.float64)])

    def value(self, sums: np.ndarray) -> np.ndarray:
        """θ for every row of sums (… × 2)."""
        return safe_ratio(sums[..., 0], sums[..., 1])


#: Raw columns of micro tau: the pair counts and Stuart's c denominator.
TAU_COLUMNS = ("C", "D", "T_h", "T_m", "T_hm", "c_den")


@dataclass(frozen=True)
class TauMicroStat:
    """Micro tau of ``variant`` from pooled counts (raw: the :data:`TAU_COLUMNS`)."""

    variant: str

    @property
    def width(self) -> int:
        """Summable columns: the five counts, and Stuart's denominator for ``c`` only."""
        return 6 if self.variant == "c" else 5

    def expand(self, raw: np.ndarray) -> np.ndarray:
        return np.asarray(raw, dtype=np.float64).reshape(-1, len(TAU_COLUMNS))[:, :self.width]

    def value(self, sums: np.ndarray) -> np.ndarray:
        from ..measures.tau import numerator_denominator

        columns = [sums[..., i] for i in range(self.width)]
        num, den = numerator_denominator(self.variant, *columns[:5], columns[5] if self.variant == "c" else None)
        return safe_ratio(num, den)


def tau_raw(counts) -> np.ndarray:
    """The (G × 6) raw micro-tau columns of a :class:`~rankeval_cli.measures.pairs.PairCounts`."""
    from ..measures.tau import c_denominator

    c_den = c_denominator(counts.n, np.minimum(counts.gold_distinct, counts.pred_distinct))
    return np.column_stack([counts.C, counts.D, counts.T_h, counts.T_m, counts.T_hm, c_den]).astype(np.float64)


class GroupColumns:
    """Per-group raw statistics collected batch by batch (one float64 matrix per name)."""

    def __init__(self):
        self._parts: dict[str, list[np.ndarray]] = {}

    def add(self, name: str, raw) -> None:
        raw = np.asarray(raw, dtype=np.float64)
        self._parts.setdefault(name, []).append(raw if raw.ndim == 2 else raw[:, None])

    def get(self, name: str) -> np.ndarray:
        parts = self._parts.get(name) or [np.zeros((0, 1))]
        if len(parts) > 1:
            parts[:] = [np.concatenate(parts)]
        return parts[0]


# --- drawing the replicates -----------------------------------------------------------------

#: Largest |Σ weights · q| allowed per column (three such sums stay below 2^53: see paired.py).
GRID_BOUND = 2.0**51


def grid_exponents(matrix: np.ndarray, total_weight: float) -> np.ndarray:
    """Per column, the exponent e of the grid 2^-e on which sums of ``total_weight`` rows are exact."""
    matrix = np.asarray(matrix, dtype=np.float64)
    if matrix.size == 0:
        return np.zeros(matrix.shape[1] if matrix.ndim == 2 else 0, dtype=np.int64)
    top = np.abs(matrix).max(axis=0)
    with np.errstate(divide="ignore"):
        room = np.floor(np.log2(GRID_BOUND / max(total_weight, 1.0)) - np.log2(top))
    integral = (matrix == np.rint(matrix)).all(axis=0)
    exponents = np.where(top > 0, room, 0.0)
    exponents = np.where(integral, np.minimum(exponents, 0.0), np.minimum(exponents, 1074.0))
    return exponents.astype(np.int64)


def on_grid(matrix: np.ndarray, exponents: np.ndarray) -> np.ndarray:
    """round(matrix · 2^e) per column, as integer-valued float64."""
    return np.rint(np.ldexp(np.asarray(matrix, dtype=np.float64), exponents))


def off_grid(sums: np.ndarray, exponents: np.ndarray) -> np.ndarray:
    """Sums on the grid back to values (an exact power-of-two scaling)."""
    return np.ldexp(sums, -exponents)


@dataclass
class Compressed:
    """The distinct rows of a statistics matrix and how many groups have each."""

    rows: np.ndarray  # U × K
    counts: np.ndarray  # int64, U


def distinct_rows(matrix: np.ndarray) -> Compressed:
    """Distinct rows of ``matrix`` (G × K, finite) with their multiplicities.

    Rows are grouped by a 64-bit hash of their bytes, then checked for equality
    within a hash run; a collision (never seen in practice) falls back to an
    exact lexicographic sort.
    """
    matrix = np.ascontiguousarray(matrix, dtype=np.float64) + 0.0  # -0.0 → 0.0
    g = len(matrix)
    if g == 0:
        return Compressed(matrix, np.zeros(0, np.int64))
    bits = matrix.view(np.uint64)
    key = np.zeros(g, np.uint64)
    with np.errstate(over="ignore"):
        for j in range(matrix.shape[1]):
            key = (key ^ bits[:, j]) * np.uint64(0x100000001B3) + np.uint64(j + 1)
    order = np.argsort(key, kind="stable")
    rows = matrix[order]
    same_key = key[order][1:] == key[order][:-1]
    same_row = (rows[1:] == rows[:-1]).all(axis=1)
    if (same_key & ~same_row).any():
        order = np.lexsort(matrix.T[::-1])
        rows = matrix[order]
        same_row = (rows[1:] == rows[:-1]).all(axis=1)
        same_key = same_row
    starts = np.flatnonzero(np.concatenate(([True], ~(same_key & same_row))))
    return Compressed(rows[starts], np.diff(np.append(starts, g)).astype(np.int64))


def choose_method(method: str, n_groups: int, n_distinct: int) -> str:
    """``multinomial`` when distinct rows are at most a quarter of the groups (``auto``)."""
    if method not in METHODS:
        raise ValueError(f"unknown resampling method {method!r}; expected one of {', '.join(METHODS)}")
    if method != "auto":
        return method
    return "multinomial" if 4 * n_distinct <= n_groups else "indices"


class Resampler:
    """Draws the bootstrap replicates of one statistics matrix (rows s_g; see the module docstring):
    ``sums(start, stop)`` gives Σ_g c_g s_g for replicates ``start ≤ b < stop``, each drawn from
    :func:`replicate_rng` ``(seed, stream, b)``, so any cut of the replicates gives the same sums."""

    def __init__(self, matrix: np.ndarray, seed: int, *, method: str = "auto", stream: int = BOOTSTRAP_STREAM):
        matrix = np.asarray(matrix, dtype=np.float64)
        self.g, self.seed, self.stream = len(matrix), seed, stream
        packed = distinct_rows(matrix) if method != "indices" else None
        self.method = choose_method(method, self.g, len(packed.counts) if packed is not None else self.g)
        if self.method == "multinomial":
            packed = packed if packed is not None else distinct_rows(matrix)
            self.rows = packed.rows
            self.probs = packed.counts / self.g if self.g else packed.counts.astype(float)
        else:
            self.rows, self.probs = matrix, None

    def counts(self, b: int) -> np.ndarray:
        """Replicate b's weight per row: multinomial counts of the distinct rows, or group counts."""
        rng = replicate_rng(self.seed, self.stream, b)
        if self.probs is not None:
            return rng.multinomial(self.g, self.probs) if len(self.rows) else np.zeros(0)
        return np.bincount(rng.integers(0, self.g, self.g), minlength=self.g) if self.g else np.zeros(0)

    def sums(self, start: int, stop: int) -> Iterator[tuple[int, np.ndarray]]:
        yield from weighted_sums(self.rows, len(self.rows), stop, self.counts, start=start)


def replicate_sums(matrix: np.ndarray, n: int, seed: int, *, method: str = "auto",
                   stream: int = BOOTSTRAP_STREAM) -> Iterator[tuple[int, np.ndarray]]:
    """Yield ``(first replicate, sums)``: Σ_g c_g s_g for chunks of the ``n`` bootstrap replicates.

    ``matrix`` is G × K (rows s_g); ``sums`` is b × K. See the module docstring.
    """
    yield from Resampler(matrix, seed, method=method, stream=stream).sums(0, n)


def weighted_sums(rows: np.ndarray, width: int, n: int, draw, start: int = 0) -> Iterator[tuple[int, np.ndarray]]:
    """Yield ``(first, sums)`` for chunks of replicates b = start..n-1: ``draw(b) @ rows`` stacked.

    ``draw(b)`` gives replicate b's weight per row (``width`` = len(rows)); a chunk
    holds at most :data:`CHUNK_CELLS` weights.
    """
    step = max(1, CHUNK_CELLS // max(width, 1))
    for first in range(start, n, step):
        stop = min(n, first + step)
        weights = np.empty((stop - first, width), dtype=np.float64)
        for b in range(first, stop):
            weights[b - first] = draw(b)
        yield first, weights @ rows if width else np.zeros((stop - first, rows.shape[1]))


# --- intervals -------------------------------------------------------------------------------

def percentile_interval(values, level: float) -> tuple[float, float]:
    """The (1-level)/2 and (1+level)/2 quantiles of the finite ``values`` (type 7); NaN if none."""
    values = np.asarray(values, dtype=np.float64)
    values = values[np.isfinite(values)]
    if not len(values):
        return math.nan, math.nan
    low, high = np.quantile(values, [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high)


def bootstrap_values(stats: list, raws: list[np.ndarray], n: int, seed: int, *,
                     method: str = "auto") -> np.ndarray:
    """Replicate values (n × len(stats)) of several statistics of the same groups.

    ``stats[i]`` reads ``raws[i]`` (G rows each); all share the same resampled
    groups, so the replicates are paired (used for differences). Ranges of replicates
    run as executor work units (``--jobs``): the sums are exact (the grid), so the
    values do not depend on the cut.
    """
    from ..executor import map_units, ranges

    expanded = [stat.expand(raw) for stat, raw in zip(stats, raws)]
    sizes = {len(e) for e in expanded}
    if len(sizes) > 1:
        raise ValueError(f"statistics of different numbers of groups: {sorted(sizes)}")
    matrix = np.hstack(expanded) if expanded else np.zeros((0, 0))
    exponents = grid_exponents(matrix, len(matrix))
    shared = (stats, exponents, Resampler(on_grid(matrix, exponents), seed, method=method))
    parts = map_units(_replicate_values, ranges(n), shared=shared, label="bootstrap replicates")
    return np.concatenate(parts) if parts else np.empty((0, len(stats)))


def _replicate_values(shared, unit) -> np.ndarray:
    """The statistics' values for replicates ``start ≤ b < stop``."""
    stats, exponents, resampler = shared
    start, stop = unit
    bounds = np.cumsum([0] + [stat.width for stat in stats])
    out = np.empty((stop - start, len(stats)))
    for first, sums in resampler.sums(start, stop):
        sums = off_grid(sums, exponents)
        for i, stat in enumerate(stats):
            out[first - start:first - start + len(sums), i] = stat.value(sums[:, bounds[i]:bounds[i + 1]])
    return out


def grid_values(stats: list, raws: list[np.ndarray]) -> np.ndarray:
    """Each statistic on all groups, from the same grid as :func:`bootstrap_values` (weights 1)."""
    expanded = [stat.expand(raw) for stat, raw in zip(stats, raws)]
    matrix = np.hstack(expanded) if expanded else np.zeros((0, 0))
    exponents = grid_exponents(matrix, len(matrix))
    sums = off_grid(on_grid(matrix, exponents).sum(axis=0), exponents)
    bounds = np.cumsum([0] + [stat.width for stat in stats])
    return np.array([float(stat.value(sums[bounds[i]:bounds[i + 1]])) for i, stat in enumerate(stats)])


def bootstrap_intervals(stats: list, raws: list[np.ndarray], level: float, n: int = DEFAULT_REPLICATES,
                        seed: int = DEFAULT_SEED, *, method: str = "auto") -> list[tuple[float, float]]:
    """Percentile intervals at ``level`` of each statistic (one shared set of replicates)."""
    values = bootstrap_values(stats, raws, n, seed, method=method)
    return [percentile_interval(values[:, i], level) for i in range(len(stats))]
