"""RankSVM: a hinge or squared hinge on every within-group pair whose gold differs.

Joachims (2002), "Optimizing search engines using clickthrough data", eq. (12)-(14),
in the primal form of Chapelle & Keerthi (2010), "Efficient algorithms for ranking
with SVMs", eq. (2): for the P pairs (i, j) of a group with gold utility u_i > u_j,

    L(s) = (1/P) Σ_(i,j) ℓ(1 - (s_i - s_j)),   ℓ(t) = max(0, t)  (hinge)
                                              ℓ(t) = max(0, t)²  (squared hinge)

and the training objective is L(Xw) + (λ/2)‖w‖²: the SVM of Joachims with
C = 1/(λP). The squared hinge is differentiable (Chapelle & Keerthi 2010, §2.2),
which suits L-BFGS; the plain hinge has a subgradient (the derivative taken as 0
at the kink).

dL/ds_i = -(1/P) Σ_(j worse) ℓ'(m_ij) + (1/P) Σ_(j better) ℓ'(m_ji), with
m_ij = 1 - (s_i - s_j) and ℓ'(t) = 1[t > 0] (hinge) or 2·max(0, t).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...vocabulary import RANKSVM_LOSSES as LOSSES
from ..groups import within_group_pairs



@dataclass
class Context:
    better: np.ndarray
    worse: np.ndarray
    n_rows: int
    loss: str = "squared-hinge"

    @property
    def n_pairs(self) -> int:
        return len(self.better)


def prepare(utility: np.ndarray, offsets: np.ndarray, loss: str = "squared-hinge") -> Context:
    if loss not in LOSSES:
        raise ValueError(f"unknown ranksvm loss {loss!r}; expected one of {', '.join(LOSSES)}")
    better, worse = within_group_pairs(utility, offsets)
    return Context(better, worse, len(utility), loss)


def loss(scores: np.ndarray, ctx: Context) -> tuple[float, np.ndarray]:
    if ctx.n_pairs == 0:
        return 0.0, np.zeros(ctx.n_rows)
    margin = 1.0 - (scores[ctx.better] - scores[ctx.worse])
    active = np.maximum(margin, 0.0)
    if ctx.loss == "squared-hinge":
        value = float(np.dot(active, active))
        slope = 2.0 * active
    else:
        value = float(active.sum())
        slope = (margin > 0).astype(np.float64)
    slope /= ctx.n_pairs
    grad = np.bincount(ctx.worse, weights=slope, minlength=ctx.n_rows) \
        - np.bincount(ctx.better, weights=slope, minlength=ctx.n_rows)
    return value / ctx.n_pairs, grad
