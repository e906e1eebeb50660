"""Learning to rank: feature selection, scaling, objectives, scorers, training, cross-validation.

Data flows one way, like the rest of the toolkit: batches of the canonical stream
-> :mod:`.data` (a float feature matrix, the gold utility and group offsets) ->
:mod:`.scaling` (z-scores learned on training data) -> :mod:`.train` (an objective
from :mod:`.objectives` composed with a scorer from :mod:`.scorers`, minimised by
L-BFGS-B) -> :mod:`.model` (a versioned JSON model) -> batches with ``pred`` filled.
:mod:`.features` makes features: sentence-BLEU statistics and intra-set features.
Definitions, equations and sources: docs/objectives-and-training.md and docs/learn-features.md.
"""
