"""K-fold cross-validation by group.

Groups (not items) are dealt into K folds: a seeded permutation of the groups
(numpy's PCG64 generator, ``--seed``), the group at position p of it going to fold
p mod K, so fold sizes differ by at most one group. For each fold k a model is
trained (scaling included) on the groups of the other folds only and scores the
groups of fold k; every group is thus predicted exactly once, by a model that never
saw it. The output is the input stream in its order with ``pred`` = -score,
``score`` and ``fold`` columns, ready for any measure.
"""

from __future__ import annotations

import numpy as np

from . import data
from .model import train_model, with_scores


def assign_folds(n_groups: int, folds: int, seed: int) -> np.ndarray:
    """Fold number (0..K-1) of each group."""
    if folds < 2:
        raise ValueError("cross-validation needs at least 2 folds")
    order = np.random.default_rng(seed).permutation(n_groups)
    fold = np.empty(n_groups, dtype=np.int64)
    fold[order] = np.arange(n_groups) % folds
    return fold


def cross_validate(table: data.Table, objective: str, hp: dict, relevance: str, folds: int, seed: int, report=None):
    """Held-out scores of every row, the fold of every row, and the K models.

    The folds train as executor work units (``--jobs``); each fold's notes are returned
    and reported in fold order, so the output and the notes do not depend on how they ran.
    """
    import dataclasses

    from ..executor import map_units

    if table.n_groups < folds:
        from ..errors import DataError

        raise DataError(f"{folds} folds need at least {folds} groups; the input has {table.n_groups}",
                        table.sources[0] if table.sources else None)
    fold_of_group = assign_folds(table.n_groups, folds, seed)
    fold_of_row = np.repeat(fold_of_group, np.diff(table.offsets))
    features = dataclasses.replace(table, batches=[])  # the workers need the numbers, not the text
    shared = (features, fold_of_group, fold_of_row, objective, hp, relevance)
    results = map_units(_train_fold, range(folds), shared=shared, label="cross-validation folds")
    scores = np.full(len(table.utility), np.nan)
    models = []
    for k, (model, held_scores, notes) in enumerate(results):
        for note in notes if report else ():
            report(f"fold {k + 1}: {note}")
        scores[fold_of_row == k] = held_scores
        models.append(model)
    return scores, fold_of_row, models


def _train_fold(shared, k: int):
    """Fold k: the model trained on the other folds, its scores of fold k, its notes."""
    table, fold_of_group, fold_of_row, objective, hp, relevance = shared
    notes: list[str] = []
    model = train_model(data.groups_of(table, fold_of_group != k), objective, hp, relevance, notes.append)
    return model, model.scores(table.X[fold_of_row == k]), notes


def scored_batches(table: data.Table, scores: np.ndarray, fold_of_row: np.ndarray):
    """The kept batches of ``table`` with pred = -score and ``score``/``fold`` columns."""
    start = 0
    for batch in table.batches:
        end = start + batch.n_rows
        folds = np.array([str(f + 1) for f in range(int(fold_of_row.max()) + 1)], dtype=object)[fold_of_row[start:end]]
        yield with_scores(batch, scores[start:end], fold=folds)
        start = end

