"""Slow references for soft pairwise accuracy's sign-flip p-values (Thompson et al. 2024).

``exact_p_values`` decides every trial with rational arithmetic (``fractions.Fraction``): the
definition itself, p[i, j] = #{r : Σ_s σ_rs (x_is − x_js) ≥ Σ_s (x_is − x_js)} / R.
``float32_fragile`` counts, per system pair, the trials whose decision float32 arithmetic (as
mt-metrics-eval's pce.py computes it: scores cast to float32, a float32 matrix product and a
float32 sum) could reverse: those whose exact margin lies within the worst-case rounding error of
those operations in any order of addition (Higham 2002, eq. 4.4). A float32 p-value can differ
from the exact one only by such trials, whatever the CPU's BLAS kernel.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np


def exact_p_values(seg, signs) -> np.ndarray:
    x = [[Fraction(float(v)) for v in row] for row in np.asarray(seg, np.float64)]
    signs = np.asarray(signs)
    n = len(x)
    p = np.full((n, n), np.nan)
    for i in range(n):
        for j in range(i + 1, n):
            observed = sum(a - b for a, b in zip(x[i], x[j]))
            count = 0
            for row in signs:
                null = sum((a - b) * int(s) for a, b, s in zip(x[i], x[j], row))
                count += null >= observed
            p[i, j] = count / len(signs)
    return p


def float32_fragile(seg, signs) -> np.ndarray:
    """(n_sys, n_sys) counts of trials float32 rounding could decide either way (upper triangle)."""
    x = np.asarray(seg, np.float64)
    n_seg = x.shape[1]
    u32 = 2.0 ** -24
    gamma32 = n_seg * u32 / (1 - n_seg * u32)
    flips = (np.asarray(signs) < 0).astype(np.float64)
    flipped_sums = flips @ x.T  # float64: its own error is far below the float32 bound
    size = np.abs(x).sum(axis=1)
    n = x.shape[0]
    out = np.zeros((n, n), np.int64)
    for i in range(n):
        for j in range(i + 1, n):
            # null − observed = −2 Σ_flipped (x_i − x_j); float32 errs by the casts (u32 per term, in
            # the product and in the sums), the two sums of n terms (γ32 each) and the subtractions
            bound = 4 * (u32 + gamma32) * (size[i] + size[j]) * (1 + 1e-6)
            margin = 2 * np.abs(flipped_sums[:, i] - flipped_sums[:, j])
            out[i, j] = np.count_nonzero(margin <= bound)
    return out
