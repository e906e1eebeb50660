"""Regression (ridge): squared error between the score and the gold utility.

The pointwise baseline of Duh (2008) (there a regression SVM), as ridge regression
(Hoerl & Kennard 1970): over the N training items,

    L(s) = (1/2N) Σ_i (s_i - u_i)²,     dL/ds_i = (s_i - u_i)/N

plus (λ/2)‖w‖² (the bias is not penalised). u is the grade with ``--relevance
grades`` and minus the gold rank otherwise, so minus the score predicts the rank.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Context:
    utility: np.ndarray


def prepare(utility: np.ndarray, offsets: np.ndarray) -> Context:
    return Context(np.asarray(utility, dtype=np.float64))


def loss(scores: np.ndarray, ctx: Context) -> tuple[float, np.ndarray]:
    n = len(scores)
    if n == 0:
        return 0.0, np.zeros(0)
    diff = scores - ctx.utility
    return float(np.dot(diff, diff)) / (2 * n), diff / n
