"""ListMLE: minus the Plackett-Luce log-likelihood of the gold order.

Xia, Liu, Wang, Zhang & Li (2008), "Listwise approach to learning to rank: theory and
algorithm", eq. (5): with the items of a group sorted best first by gold (π),

    L_g(s) = Σ_k [ log Σ_(m ≥ k) exp(s_π(m)) - s_π(k) ],   L(s) = (1/G) Σ_g L_g(s)

Gold ties. The gold order is ambiguous where gold values are equal; we do not break
ties arbitrarily but use Breslow's (1974) rule for ties in the Cox partial likelihood,
which has the same form: every item i of a tied block is chosen from the set of items
not strictly better than it,

    L_g(s) = Σ_i [ log Σ_(j: u_j ≤ u_i) exp(s_j) - s_i ]

This is symmetric in tied items and equals Xia et al.'s eq. (5) when there are no
ties. Gradient: dL/ds_j = (1/G) [ exp(s_j) Σ_(i: u_i ≥ u_j) 1/D_i - 1 ], with
D_i = Σ_(j: u_j ≤ u_i) exp(s_j). Both sums are cumulative sums over each group sorted
by utility, read at the ends of tie blocks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...batch import group_index
from ..groups import ascending_blocks, segment_cumsum, segment_max, size_plan


@dataclass
class Context:
    offsets: np.ndarray
    rows: np.ndarray  # group of each row (input order)
    order: np.ndarray  # rows sorted by utility ascending within groups
    block_first: np.ndarray  # per sorted position: first sorted position of its tie block
    block_last: np.ndarray  # per sorted position: last sorted position of its tie block
    plan: list  # groups.size_plan(offsets), for within-group cumulative sums

    @property
    def n_groups(self) -> int:
        return len(self.offsets) - 1


def prepare(utility: np.ndarray, offsets: np.ndarray) -> Context:
    rows = group_index(offsets)
    order, block_first, block_last = ascending_blocks(utility, offsets)
    return Context(offsets, rows, order, block_first, block_last, size_plan(offsets))


def loss(scores: np.ndarray, ctx: Context) -> tuple[float, np.ndarray]:
    n = len(scores)
    if ctx.n_groups == 0:
        return 0.0, np.zeros(n)
    top = segment_max(scores, ctx.offsets)[ctx.rows]
    s_sorted = (scores - top)[ctx.order]  # shifted by the group max: exp never overflows
    e = np.exp(s_sorted)
    # D at each sorted position: Σ e from the group's worst row to the end of its tie block
    denom = segment_cumsum(e, ctx.plan)[ctx.block_last]
    value = float(np.sum(np.log(denom) - s_sorted)) / ctx.n_groups
    # Σ of 1/D over the rows at least as good: from the start of the tie block to the group's best row
    tail = segment_cumsum(1.0 / denom, ctx.plan, reverse=True)[ctx.block_first]
    grad = np.empty(n)
    grad[ctx.order] = (e * tail - 1.0) / ctx.n_groups
    return value, grad
