"""Cells and groups: the (systems × segments) matrices, grouped for a statistic, and the average over groups.

Human and metric scores are float64 arrays of shape (n_sys, n_seg), NaN =
missing, higher = better. Grouping (``average_by``) turns the matrix into groups
of cells:

* ``none``   — one group holding every (system, segment) cell, system-major;
* ``item``   — one group per segment, its cells across systems;
* ``system`` — one group per system, its cells across segments.

A cell is used when its human score is present (and, for a metric's own value,
its metric score). Each group's statistic is computed on its cells; groups with
fewer than 2 cells are skipped, undefined groups (NaN, e.g. a constant vector
for Pearson) are left out, or counted as 0 with ``undefined_as_zero``. The
average is the plain mean over groups (``weighting="plain"``), or weighted by
the group's cells (``"items"``) or its counted pairs (``"pairs"``; pooled
counts, e.g. WMT20's Kendall-like). Like mt-metrics-eval, the value is 0 when
no group counts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...batch import group_index, offsets_from_sizes
from ...vocabulary import GROUPINGS as AVERAGE_BY

WEIGHTINGS = ("plain", "items", "pairs")


def canonical_average_by(name: str) -> str:
    """``none``, ``item`` or ``system`` (mt-metrics-eval's ``sys`` accepted)."""
    key = {"sys": "system", "seg": "item", "segment": "item"}.get(name, name)
    if key not in AVERAGE_BY:
        raise ValueError(f"average_by must be one of {', '.join(AVERAGE_BY)}, not {name!r}")
    return key


def as_matrix(scores, name: str = "scores") -> np.ndarray:
    """``scores`` as a 2-d float64 array (n_sys, n_seg); None becomes NaN."""
    m = np.array(scores, dtype=np.float64)
    if m.ndim == 1:
        m = m[:, None]
    if m.ndim != 2:
        raise ValueError(f"{name} must be a (systems × segments) matrix, got shape {m.shape}")
    return m


def group_order(shape: tuple[int, int], average_by: str) -> tuple[np.ndarray, np.ndarray]:
    """(flat cell indices in group order, group offsets) of an (n_sys, n_seg) matrix.

    none: one group, system-major (the order mt-metrics-eval packs scores in);
    item: segment by segment, systems in order; system: system by system.
    """
    n_sys, n_seg = shape
    average_by = canonical_average_by(average_by)
    flat = np.arange(n_sys * n_seg, dtype=np.int64)
    if average_by == "none":
        return flat, np.array([0, n_sys * n_seg], np.int64)
    if average_by == "system":
        return flat, np.arange(0, n_sys * n_seg + 1, n_seg, dtype=np.int64)
    return flat.reshape(n_sys, n_seg).T.ravel(), np.arange(0, n_sys * n_seg + 1, n_sys, dtype=np.int64)


@dataclass
class Cells:
    """The used cells of one or more metrics, contiguous by group.

    ``index`` gives each cell's flat position in the (n_sys, n_seg) matrix.
    """

    human: np.ndarray
    metrics: list[np.ndarray]
    offsets: np.ndarray
    index: np.ndarray

    @property
    def sizes(self) -> np.ndarray:
        return np.diff(self.offsets)


def grouped_cells(human, metrics: list, average_by: str, *, require_metric: bool = True) -> Cells:
    """Cells with human present (and every metric present when ``require_metric``), grouped.

    Groups left empty are dropped (mt-metrics-eval drops them too).
    """
    human = as_matrix(human, "human")
    mats = [as_matrix(m, "metric") for m in metrics]
    for m in mats:
        if m.shape != human.shape:
            raise ValueError(f"metric shape {m.shape} differs from human shape {human.shape}")
    order, offsets = group_order(human.shape, average_by)
    h = human.ravel()[order]
    ms = [m.ravel()[order] for m in mats]
    keep = ~np.isnan(h)
    if require_metric:
        for m in ms:
            keep &= ~np.isnan(m)
    sizes = np.add.reduceat(keep.astype(np.int64), offsets[:-1]) if len(keep) else np.zeros(0, np.int64)
    sizes = sizes[sizes > 0]
    return Cells(h[keep], [m[keep] for m in ms], offsets_from_sizes(sizes), order[keep])


def segment_sums(values, offsets) -> np.ndarray:
    """Σ of every group (0 for an empty one), with numpy's pairwise summation within a group."""
    sizes = np.diff(offsets)
    out = np.zeros(len(sizes))
    nonempty = sizes > 0
    if nonempty.any():
        out[nonempty] = np.add.reduceat(values, offsets[:-1][nonempty])
    return out


def ranks_within_groups(values, offsets) -> np.ndarray:
    """Ranks 1..n within each group, tied values sharing their mean rank (scipy.stats.rankdata)."""
    values = np.asarray(values, np.float64)
    if not len(values):
        return values.copy()
    gid = group_index(offsets)
    order = np.lexsort((values, gid))
    v, g = values[order], gid[order]
    pos = np.arange(len(v), dtype=np.float64) - offsets[:-1][g] + 1
    new_block = np.ones(len(v), bool)
    new_block[1:] = (v[1:] != v[:-1]) | (g[1:] != g[:-1])
    block = np.cumsum(new_block) - 1
    first = pos[new_block]
    last = np.append(pos[np.flatnonzero(new_block)[1:] - 1], pos[-1])
    ranks = np.empty(len(v))
    ranks[order] = ((first + last) / 2)[block]
    return ranks


def average_groups(values, n, pairs, *, weighting="plain", undefined_as_zero=False, ratio_of=None):
    """(average, groups counted, groups defined), as mt-metrics-eval's AverageCorrelation.

    Groups with fewer than 2 cells are skipped; NaN values are left out, or
    counted as 0 with ``undefined_as_zero``. Weights: 1, cells or pairs. The
    average is 0 when no group counts (mt-metrics-eval returns 0 there).
    Works along the last axis (one row per permutation).

    ``ratio_of=(num, den)``: each value is num/den; when weighting by pairs and
    every den is the group's pair count, the average is computed exactly as
    Σ num / Σ den (pooled counts, e.g. pairwise accuracy over language pairs).
    """
    if weighting not in WEIGHTINGS:
        raise ValueError(f"weighting must be one of {', '.join(WEIGHTINGS)}")
    values = np.asarray(values, np.float64)
    usable = np.asarray(n) >= 2
    defined = ~np.isnan(values) & usable
    counted = usable if undefined_as_zero else defined
    w = {"plain": np.ones(np.shape(n)), "items": np.asarray(n, np.float64),
         "pairs": np.asarray(pairs, np.float64)}[weighting]
    w = np.where(counted, w, 0.0)
    total = w.sum(axis=-1)
    num = np.where(defined, values, 0.0) * w
    with np.errstate(invalid="ignore", divide="ignore"):
        avg = np.where(total > 0, num.sum(axis=-1) / np.where(total > 0, total, 1), 0.0)
        if weighting == "pairs" and ratio_of is not None and not undefined_as_zero:
            rn, rd = (np.broadcast_to(np.asarray(x, np.float64), values.shape) for x in ratio_of)
            if np.array_equal(np.where(usable, rd, 0), np.where(usable, np.broadcast_to(pairs, values.shape), 0)):
                rn_sum = np.where(defined, rn, 0.0).sum(axis=-1)
                rd_sum = np.where(defined, rd, 0.0).sum(axis=-1)
                avg = np.where(rd_sum > 0, rn_sum / np.where(rd_sum > 0, rd_sum, 1), 0.0)
    return avg, counted.sum(axis=-1), defined.sum(axis=-1)


def complete_segments(human, *metrics) -> np.ndarray:
    """Segments (columns) where every system has every score (SPA needs a full matrix)."""
    ok = ~np.isnan(as_matrix(human)).any(axis=0)
    for m in metrics:
        ok &= ~np.isnan(as_matrix(m)).any(axis=0)
    return ok

