"""Ranking objectives: one module per loss, each a pair of small pure functions.

``prepare(utility, offsets) -> context`` computes what depends on the gold alone
(pairs, target distributions, sort orders); ``loss(scores, context) -> (value,
gradient)`` returns the data term of the objective and its gradient with respect to
the per-row scores. Regularisation and the scorer's parameters are added by
:mod:`..train`, so every loss is checked on its own against finite differences.
``utility`` is the gold in the higher-is-better direction.
"""

from __future__ import annotations

import importlib

from ...vocabulary import OBJECTIVES  # each objective is the module of its name here

#: objectives that take a one-hidden-layer network (--hidden)
NONLINEAR_OK = ("listnet", "listmle")


def objective(name: str):
    """The module of objective ``name`` (with ``prepare`` and ``loss``)."""
    if name not in OBJECTIVES:
        raise ValueError(f"unknown objective {name!r}; known: {', '.join(OBJECTIVES)}")
    return importlib.import_module(f"{__name__}.{name}")
