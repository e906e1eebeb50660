"""Bradley-Terry strengths by regularized maximum likelihood.

Model: P(i beats j) = σ(θ_i − θ_j) = e^θ_i / (e^θ_i + e^θ_j). With W[i, j] the
comparisons *i* won against *j*, the estimate minimizes the convex objective

    f(θ) = Σ_{i,j} W[i, j] · log(1 + exp(θ_j − θ_i)) + α Σ_i θ_i²,

the negative log-likelihood plus an L2 penalty (the convention of choix's
``opt_pairwise``: penalty ``alpha * sum(params**2)``). Without it an item that never
loses has no finite estimate. At the optimum Σθ = 0 (the likelihood gradient sums to
zero), so scores are centred log-strengths. Ties: ``ties="ignore"`` drops them (the
model has no tie outcome), ``"half"`` counts a tie as half a win for each side.
Solved by Newton's method with backtracking on the exact gradient and Hessian,
to a gradient max-norm below ``tol`` (numpy only).
"""

from __future__ import annotations

import math

import numpy as np

from ..vocabulary import BT_TIES

DEFAULT_ALPHA = 0.01


def objective(theta: np.ndarray, wins: np.ndarray, alpha: float) -> float:
    """f(θ) of the module docstring."""
    diff = theta[None, :] - theta[:, None]  # [i, j] = θ_j − θ_i
    return float((wins * np.logaddexp(0.0, diff)).sum() + alpha * (theta ** 2).sum())


def _grad_hess(theta, wins, alpha):
    diff = theta[None, :] - theta[:, None]
    s = 0.5 * (1.0 + np.tanh(diff / 2))  # σ(θ_j − θ_i) = P(j beats i), overflow-free
    q = wins * s
    grad = q.sum(0) - q.sum(1) + 2 * alpha * theta
    m = wins * s * (1 - s)
    m = m + m.T
    hess = -m
    hess[np.diag_indices_from(hess)] = m.sum(1) + 2 * alpha
    return grad, hess


def fit(wins: np.ndarray, alpha: float = DEFAULT_ALPHA, tol: float = 1e-10,
        max_iter: int = 200, start: np.ndarray | None = None) -> np.ndarray:
    """θ minimizing the regularized negative log-likelihood of ``wins`` (K × K)."""
    if alpha <= 0:
        raise ValueError("alpha must be positive (an undefeated item has no finite estimate)")
    wins = np.asarray(wins, dtype=np.float64)
    k = wins.shape[0]
    theta = np.zeros(k) if start is None else np.asarray(start, dtype=np.float64).copy()
    scale = max(1.0, float(wins.sum()))
    value = objective(theta, wins, alpha)
    for _ in range(max_iter):
        grad, hess = _grad_hess(theta, wins, alpha)
        if np.max(np.abs(grad), initial=0.0) <= tol * scale:
            break
        step = np.linalg.solve(hess, -grad)
        t = 1.0
        while True:
            candidate = theta + t * step
            new_value = objective(candidate, wins, alpha)
            if new_value <= value + 1e-4 * t * float(grad @ step) or t < 1e-12:
                break
            t /= 2
        if new_value > value:  # no descent possible at float precision
            break
        theta, value = candidate, new_value
    return theta


def bt_scores(stats, alpha: float = DEFAULT_ALPHA, ties: str = "ignore") -> np.ndarray:
    """θ for every replicate of ``stats`` (leading axes allowed)."""
    if ties not in BT_TIES:
        raise ValueError(f"ties must be one of {BT_TIES}, not {ties!r}")
    wins = np.asarray(stats.wins, dtype=np.float64)
    if ties == "half":
        wins = wins + np.asarray(stats.ties, dtype=np.float64) / 2
    k = wins.shape[-1]
    flat = wins.reshape(math.prod(wins.shape[:-2]), k, k)  # not -1: ambiguous when there is no item (k = 0)
    out = np.empty((len(flat), k))
    for b, w in enumerate(flat):
        out[b] = fit(w, alpha)
    return out.reshape(wins.shape[:-1])
