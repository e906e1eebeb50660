"""Minimising objective(scorer(X; θ)) + (λ/2)‖θ_weights‖² with L-BFGS-B and analytic gradients.

The objective's data term and its gradient in the scores come from
:mod:`.objectives`; the scorer back-propagates that gradient to θ
(:mod:`.scorers`). scipy's L-BFGS-B (Byrd, Lu, Nocedal & Zhu 1995) stops after
``max_iter`` iterations, when the largest component of the projected gradient
falls below ``gtol``, or when an iteration reduces the objective by less than
1e-15 of its value (the rounding of the objective itself).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .objectives import objective as objective_module
from .scorers import scorer as make_scorer

#: defaults that work on the bundled data (MSLR sample, WMT10 JCML); recorded in every model
DEFAULTS = {
    "lambda": 0.1,
    "max_iter": 1000,
    "gtol": 1e-9,
    "hidden": 0,
    "loss": "squared-hinge",
    "seed": 12345,
}


@dataclass(frozen=True)
class Solver:
    """The settings of a fit: the L2 penalty λ, the hidden layer's width (0: a linear scorer),
    RankSVM's loss, L-BFGS-B's iteration cap and gradient tolerance, and the seed of a
    network's first weights."""

    l2: float = DEFAULTS["lambda"]
    hidden: int = DEFAULTS["hidden"]
    loss: str = DEFAULTS["loss"]
    max_iter: int = DEFAULTS["max_iter"]
    seed: int = DEFAULTS["seed"]
    gtol: float = DEFAULTS["gtol"]

    @classmethod
    def of(cls, hp: dict) -> "Solver":
        """The settings of a model's hyperparameters (named as in the model file; ``loss`` and
        ``seed``, kept only where they apply, otherwise the defaults)."""
        return cls(l2=hp["lambda"], hidden=hp["hidden"], loss=hp.get("loss", DEFAULTS["loss"]),
                   max_iter=hp["max_iter"], seed=hp.get("seed", DEFAULTS["seed"]), gtol=hp["gtol"])


@dataclass
class Fit:
    theta: np.ndarray
    scorer: object
    value: float  # final objective value (data term + penalty)
    iterations: int
    converged: bool
    message: str
    n_pairs: int | None = None


def objective_function(name: str, X: np.ndarray, utility: np.ndarray, offsets: np.ndarray, *, l2: float,
                       hidden: int = 0, loss: str = "squared-hinge"):
    """``(f, scorer, ctx)``: f(θ) -> (value, gradient) of the full training objective."""
    module = objective_module(name)
    ctx = module.prepare(utility, offsets, loss=loss) if name == "ranksvm" else module.prepare(utility, offsets)
    net = make_scorer(X.shape[1], hidden)
    mask = net.penalized()

    def f(theta: np.ndarray):
        scores, cache = net.scores(theta, X)
        value, grad_s = module.loss(scores, ctx)
        grad = net.backward(theta, X, cache, grad_s)
        weights = np.where(mask, theta, 0.0)
        return value + 0.5 * l2 * float(np.dot(weights, weights)), grad + l2 * weights

    return f, net, ctx


def fit(name: str, X: np.ndarray, utility: np.ndarray, offsets: np.ndarray, solver: Solver = Solver()) -> Fit:
    """Train objective ``name`` on scaled features ``X`` with gold ``utility`` (higher = better)."""
    from scipy.optimize import minimize

    f, net, ctx = objective_function(name, X, utility, offsets, l2=solver.l2, hidden=solver.hidden,
                                     loss=solver.loss)
    theta0 = net.init(np.random.default_rng(solver.seed))
    result = minimize(f, theta0, jac=True, method="L-BFGS-B",
                      options={"maxiter": solver.max_iter, "gtol": solver.gtol, "ftol": 1e-15, "maxcor": 20})
    return Fit(theta=result.x, scorer=net, value=float(result.fun), iterations=int(result.nit),
               converged=bool(result.success), message=str(result.message),
               n_pairs=getattr(ctx, "n_pairs", None))
