"""Sign-flip permutation sums decided exactly, whatever the CPU, BLAS or thread count.

A paired sign-flip trial r flips the segments of a set N_r. Its difference of system sums
Σ_s σ_rs (x_is − x_js) is at least the observed Σ_s (x_is − x_js) exactly when

    Σ_{s ∈ N_r} x_is  ≤  Σ_{s ∈ N_r} x_js                                   (1)

(subtract the two sides: Σ_s (σ_rs − 1)(x_is − x_js) = −2 Σ_{s∈N_r} (x_is − x_js)). A float sum
rounds, and how it rounds depends on the order of the additions, which BLAS chooses by CPU and
thread count, so near-ties (and exact ties, which discrete human scores make common) would fall
either side. :func:`count_at_most` decides (1) exactly:

1. A = F·Xᵀ in float64 (F the 0/1 flip matrix). Each sum of n exact terms is off by at most
   γ_n Σ_s |x_is| in any order of addition (γ_n = nu/(1 − nu), u = 2⁻⁵³; Higham 2002, eq. 4.4),
   so a pair whose computed difference lies outside a margin of four times those bounds is decided.
2. The rest, near-ties and ties, are decided in integer arithmetic: each score is split into a few
   integer limbs of w bits (x = Σ_k L_k 2^{b_k}, truncated so that no bit is lost), the limbs
   are summed by the same matrix product (integers below 2^50, so every order of addition is
   exact), and the sign of the limb-wise difference is read after carrying.
"""

from __future__ import annotations

import math

import numpy as np

def flip_matrix(signs: np.ndarray) -> np.ndarray:
    """F (trials × segments, float64): 1 where the trial flips the segment (σ = −1), else 0."""
    return (np.asarray(signs) < 0).astype(np.float64)


def count_at_most(flips: np.ndarray, X: np.ndarray, i, j) -> np.ndarray:
    """c[k, p] = #{r : Σ_s F_rs X[k, i_p, s] ≤ Σ_s F_rs X[k, j_p, s]}, decided exactly (equation 1).

    ``flips``: (R, n) 0/1 float64 (:func:`flip_matrix`); ``X``: (K, m, n) finite float64, K
    matrices of m rows (systems) each; ``i``, ``j``: the rows of the pairs compared in each.
    """
    X = np.ascontiguousarray(X, np.float64)
    K, m, n = X.shape
    R = flips.shape[0]
    rows = X.reshape(K * m, n)
    At = (rows @ flips.T).reshape(K, m, R)  # a pair's trials contiguous
    u = 2.0 ** -53
    gamma = n * u / (1 - n * u)
    margin = 4.0 * gamma * np.abs(X).sum(axis=2) + 4.0 * np.finfo(np.float64).tiny  # (K, m)
    counts = np.zeros((K, len(i)), np.int64)
    for p, (a, b) in enumerate(zip(i, j)):
        D = At[:, a] - At[:, b]
        tol = (margin[:, a] + margin[:, b])[:, None]
        below = np.count_nonzero(D < -tol, axis=1)
        counts[:, p] = below
        near = np.flatnonzero(np.count_nonzero(D <= tol, axis=1) > below)  # some |D| <= tol
        if len(near):
            k, r = np.nonzero(np.abs(D[near]) <= tol[near])
            k = near[k]
            counts[:, p] += np.bincount(k, weights=_exact_at_most(flips, rows, r, k * m + a, k * m + b),
                                        minlength=K).astype(np.int64)
    return counts


def _exact_at_most(flips, X, r, a, b) -> np.ndarray:
    """1 where Σ_s F[r,s] X[a,s] ≤ Σ_s F[r,s] X[b,s] exactly, for cells (r, a, b); else 0."""
    trials, r = np.unique(r, return_inverse=True)
    rows, ab = np.unique(np.concatenate([a, b]), return_inverse=True)
    a, b = ab[:len(a)], ab[len(a):]
    n = flips.shape[1]
    width = 50 - max(1, math.ceil(math.log2(n + 1)))
    limbs = _limbs(X[rows], width)
    if not limbs:  # every score 0: every sum ties
        return np.ones(len(r), np.int8)
    F = flips[trials]
    D = []
    for L in limbs:
        S = F @ L.T  # exact: integers below 2^50
        D.append(S[r, a] - S[r, b])
    scale = 2.0 ** width
    for k in range(len(D) - 1, 0, -1):  # carry: every limb but the top in [0, 2^w)
        carry = np.floor(D[k] / scale)
        D[k] = D[k] - carry * scale
        D[k - 1] = D[k - 1] + carry
    lower_zero = np.ones(len(r), bool)
    for d in D[1:]:
        lower_zero &= d == 0
    return ((D[0] < 0) | ((D[0] == 0) & lower_zero)).astype(np.int8)


def _limbs(Y: np.ndarray, width: int) -> list[np.ndarray]:
    """Integer-valued float64 arrays L_k (|L_k| < 2^width) with Y = Σ_k L_k 2^{b_k}, exactly.

    b_0 = e − width for |Y| < 2^e, then down by ``width`` until the lowest set bit of any value.
    Each limb is Y's remainder truncated toward zero at 2^{b_k}: the remainder keeps the value's
    sign and a subset of its mantissa bits, so every step is exact.
    """
    nonzero = Y[Y != 0]
    if not len(nonzero):
        return []
    mant, expo = np.frexp(nonzero)
    q = np.abs(np.ldexp(mant, 53)).astype(np.int64)
    lowest_bit = expo.astype(np.int64) - 53 + _trailing_zeros(q)
    top, bottom = int(expo.max()), int(lowest_bit.min())
    limbs = []
    rest = Y.copy()
    base = top
    while base > bottom:
        base -= width
        limb = np.trunc(np.ldexp(rest, -base))
        rest -= np.ldexp(limb, base)
        limbs.append(limb)
    return limbs


def _trailing_zeros(q: np.ndarray) -> np.ndarray:
    """Trailing zero bits of positive int64 values (exact: the lowest set bit is a power of two)."""
    return np.log2((q & -q).astype(np.float64)).astype(np.int64)
