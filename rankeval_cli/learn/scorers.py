"""Scoring functions s = f(x; θ) and their gradients (back-propagation by hand).

- ``linear``: s = x·w + b.
- ``mlp``: one hidden layer of H tanh units, s = v·tanh(xW + b₁) + c, the neural
  scorer of ListNet (Cao et al. 2007 §4.2 use a linear network; a hidden layer as in
  RankNet, Burges et al. 2005).

Parameters are one flat float64 vector θ (what L-BFGS-B optimises); the L2 penalty
(λ/2)‖·‖² covers the weights (w; W and v), never the biases.
"""

from __future__ import annotations

import numpy as np


class Linear:
    name = "linear"

    def __init__(self, d: int):
        self.d = d
        self.size = d + 1

    def init(self, rng: np.random.Generator) -> np.ndarray:
        return np.zeros(self.size)

    def unpack(self, theta: np.ndarray) -> dict:
        return {"w": theta[: self.d], "b": theta[self.d]}

    def pack(self, params: dict) -> np.ndarray:
        return np.r_[np.asarray(params["w"], dtype=np.float64), float(params["b"])]

    def penalized(self) -> np.ndarray:
        mask = np.ones(self.size, dtype=bool)
        mask[self.d] = False
        return mask

    def scores(self, theta: np.ndarray, X: np.ndarray):
        return X @ theta[: self.d] + theta[self.d], None

    def backward(self, theta: np.ndarray, X: np.ndarray, cache, grad_s: np.ndarray) -> np.ndarray:
        return np.r_[X.T @ grad_s, grad_s.sum()]

    def to_dict(self, theta: np.ndarray) -> dict:
        p = self.unpack(theta)
        return {"w": p["w"].tolist(), "b": float(p["b"])}


class MLP:
    name = "mlp"

    def __init__(self, d: int, hidden: int):
        self.d, self.h = d, hidden
        self.size = d * hidden + hidden + hidden + 1

    def init(self, rng: np.random.Generator) -> np.ndarray:
        """W ~ N(0, 1/d) and v ~ N(0, 1/H) (LeCun-style), biases 0; seeded."""
        W = rng.normal(0.0, 1.0 / np.sqrt(self.d), size=(self.d, self.h))
        v = rng.normal(0.0, 1.0 / np.sqrt(self.h), size=self.h)
        return np.r_[W.ravel(), np.zeros(self.h), v, 0.0]

    def unpack(self, theta: np.ndarray) -> dict:
        d, h = self.d, self.h
        return {"W": theta[: d * h].reshape(d, h), "b1": theta[d * h: d * h + h],
                "v": theta[d * h + h: d * h + 2 * h], "c": theta[-1]}

    def pack(self, params: dict) -> np.ndarray:
        return np.r_[np.asarray(params["W"], dtype=np.float64).ravel(), np.asarray(params["b1"], dtype=np.float64),
                     np.asarray(params["v"], dtype=np.float64), float(params["c"])]

    def penalized(self) -> np.ndarray:
        d, h = self.d, self.h
        mask = np.zeros(self.size, dtype=bool)
        mask[: d * h] = True
        mask[d * h + h: d * h + 2 * h] = True
        return mask

    def scores(self, theta: np.ndarray, X: np.ndarray):
        p = self.unpack(theta)
        hidden = np.tanh(X @ p["W"] + p["b1"])
        return hidden @ p["v"] + p["c"], hidden

    def backward(self, theta: np.ndarray, X: np.ndarray, hidden, grad_s: np.ndarray) -> np.ndarray:
        p = self.unpack(theta)
        grad_v = hidden.T @ grad_s
        grad_z = np.outer(grad_s, p["v"]) * (1.0 - hidden * hidden)
        return np.r_[(X.T @ grad_z).ravel(), grad_z.sum(axis=0), grad_v, grad_s.sum()]

    def to_dict(self, theta: np.ndarray) -> dict:
        p = self.unpack(theta)
        return {"W": p["W"].tolist(), "b1": p["b1"].tolist(), "v": p["v"].tolist(), "c": float(p["c"])}


def scorer(d: int, hidden: int = 0):
    """The linear scorer, or a network with ``hidden`` tanh units when hidden > 0."""
    return MLP(d, hidden) if hidden else Linear(d)
