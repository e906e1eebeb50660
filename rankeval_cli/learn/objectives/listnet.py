"""ListNet: cross entropy between top-one probabilities of gold and scores.

Cao, Qin, Liu, Tsai & Li (2007), "Learning to rank: from pairwise approach to listwise
approach", eq. (1)-(3), with the top-one probability P(j) = exp(φ_j) / Σ_k exp(φ_k).
Per group g, with P_y = softmax(u) of the gold utility and P_s = softmax(s) of the scores:

    L_g(s) = - Σ_j P_y(j) log P_s(j),     L(s) = (1/G) Σ_g L_g(s)

dL/ds_j = (P_s(j) - P_y(j)) / G (eq. (6) of Cao et al.).
The gold utility is the grade (``--relevance grades``) or minus the gold rank, i.e.
n - rank + 1 up to a constant, which softmax ignores.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...batch import group_index
from ..groups import segment_softmax


@dataclass
class Context:
    offsets: np.ndarray
    rows: np.ndarray
    target: np.ndarray  # P_y per row
    target_entropy_free: float  # Σ P_y log P_y (so the loss can be reported as a KL divergence too)

    @property
    def n_groups(self) -> int:
        return len(self.offsets) - 1


def prepare(utility: np.ndarray, offsets: np.ndarray) -> Context:
    rows = group_index(offsets)
    target, _ = segment_softmax(utility, offsets, rows)
    with np.errstate(divide="ignore"):
        plogp = np.where(target > 0, target * np.log(target), 0.0)
    return Context(offsets, rows, target, float(plogp.sum()))


def loss(scores: np.ndarray, ctx: Context) -> tuple[float, np.ndarray]:
    if ctx.n_groups == 0:
        return 0.0, np.zeros(len(scores))
    p, log_z = segment_softmax(scores, ctx.offsets, ctx.rows)
    log_p = scores - log_z[ctx.rows]
    value = -float(np.dot(ctx.target, log_p)) / ctx.n_groups
    return value, (p - ctx.target) / ctx.n_groups
