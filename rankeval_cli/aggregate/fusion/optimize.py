"""``aggregate --optimize``: the fusion chosen by k-fold cross-validation over topics, and its
held-out gain over the best single run.

The search space: every method of the table (or the one ``--method`` names); for the methods
that read scores, every normalization that may precede them; every value of each parameter's
grid (``Param.grid``: ranx's ranges, coarser steps); for the weighted methods, every weight
vector on the simplex with steps of 1/10 (up to 3 runs), 1/4 (4-5 runs), or equal weights
only (6 runs and more), as ranx's ``optimize_fusion`` grids weights (sums of 1).

The topics (the qrels' queries that some run has) are shuffled with ``seed`` and dealt into k
folds. For each fold, the configuration with the best mean of the measure over the other
folds' topics is chosen (the first in the order above among equals), and so is the best single
run; the learning methods are trained on those topics only. Both are then scored on the
fold's own topics, which took no part in the choice. Each topic is held out once, so the
held-out values of all folds form one paired sample: the gain of the chosen fusions over the
chosen single runs, its paired t-test (Student 1908) and a percentile bootstrap interval over
topics (Efron & Tibshirani 1993, §13.3). ranx's ``optimize_fusion`` instead reports the best
configuration on the topics it searched, with no test.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from . import Fusion, fuse_stacked
from .evaluation import Topics, values
from .normalizations import NORMALIZATIONS
from .table import METHODS


@dataclass(frozen=True)
class Config:
    method: str
    normalization: str
    params: tuple  # ((name, value), ...)
    weights: tuple | None

    def fusion(self) -> Fusion:
        return Fusion(self.method, self.normalization, dict(self.params), self.weights)

    def shown(self) -> dict:
        entry = METHODS[self.method]
        return {"method": self.method, "normalization": self.normalization if entry.reads_scores else None,
                "params": ",".join(f"{k}={v:g}" for k, v in self.params) or None,
                "weights": ",".join(f"{w:g}" for w in self.weights) if self.weights else None}


def weight_grid(n_runs: int) -> list:
    """Weight vectors summing to 1 on a grid of 1/10 (≤ 3 runs), 1/4 (≤ 5 runs), else equal weights."""
    steps = 10 if n_runs <= 3 else 4 if n_runs <= 5 else 0
    if not steps:
        return [tuple([1.0 / n_runs] * n_runs)]
    out = []
    for cut in itertools.combinations(range(steps + n_runs - 1), n_runs - 1):
        parts = np.diff([-1, *cut, steps + n_runs - 1]) - 1
        out.append(tuple(float(p) / steps for p in parts))
    return out


def configurations(n_runs: int, only: str | None = None) -> list:
    out = []
    for m in METHODS.values():
        if only is not None and m.name != only:
            continue
        norms = [n for n, norm in NORMALIZATIONS.items() if norm.with_positions or not m.reads_positions] \
            if m.reads_scores else ["min-max"]
        grids = itertools.product(*[p.grid or (p.default,) for p in m.params])
        weights = weight_grid(n_runs) if m.weighted else [None]
        for norm, grid, w in itertools.product(norms, list(grids), weights):
            out.append(Config(m.name, norm, tuple(zip((p.name for p in m.params), grid)), w))
    return out


@dataclass
class FoldResult:
    fold: int
    config: Config
    baseline: int  # the run chosen on the training topics
    train_value: float
    value: np.ndarray  # held-out fused values, per topic of the fold
    baseline_value: np.ndarray


def folds_of(n_topics: int, k: int, seed: int) -> np.ndarray:
    """The fold (0..k-1) of every topic: a seeded shuffle dealt round-robin."""
    order = np.random.default_rng(seed).permutation(n_topics)
    fold = np.empty(n_topics, dtype=np.int64)
    fold[order] = np.arange(n_topics) % k
    return fold


def _fused_values(stacked, docs, topics: Topics, config: Config, qrels=None) -> np.ndarray:
    q, d, _, s = fuse_stacked(stacked, config.fusion(), qrels)
    return values(topics, q, docs.take(stacked.docs[d]), s)


def run_values(stacked, docs, topics: Topics) -> np.ndarray:
    """runs × topics: each input run evaluated as it is."""
    out = []
    for r in range(stacked.n_runs):
        rows = stacked.run == r
        out.append(values(topics, stacked.query[rows], docs.take(stacked.docs[stacked.doc[rows]]),
                          stacked.score[rows]))
    return np.array(out)


def cross_validate(stacked, docs, topics: Topics, coded_qrels, k: int, seed: int, only: str | None = None,
                   progress=None) -> tuple[list[FoldResult], tuple]:
    """The fold results (see the module docstring), and (configuration, mean) chosen on all topics."""
    n = len(topics.code)
    if n < k:
        raise ValueError(f"{n} topics cannot make {k} folds: give --folds {max(n, 2)} or fewer")
    fold = folds_of(n, k, seed)
    singles = run_values(stacked, docs, topics)
    configs = configurations(stacked.n_runs, only)
    fixed = [c for c in configs if METHODS[c.method].train is None]
    learned = [c for c in configs if METHODS[c.method].train is not None]
    table = np.array([_fused_values(stacked, docs, topics, c) for c in _ticking(fixed, progress)]) \
        if fixed else np.zeros((0, n))
    results = []
    for f in range(k):
        train = fold != f
        rows = table
        if learned:
            topic_codes = set(topics.code[train].tolist())
            keep = np.isin(coded_qrels[0], list(topic_codes))
            fold_qrels = tuple(a[keep] for a in coded_qrels)
            rows = np.vstack([table, [_fused_values(stacked, docs, topics, c, fold_qrels)
                                      for c in _ticking(learned, progress)]])
        means = rows[:, train].mean(axis=1)
        best = int(np.argmax(means))
        run = int(np.argmax(singles[:, train].mean(axis=1)))
        results.append(FoldResult(f + 1, (fixed + learned)[best], run, float(means[best]), rows[best, ~train],
                                  singles[run, ~train]))
    rows = table
    if learned:
        rows = np.vstack([table, [_fused_values(stacked, docs, topics, c, coded_qrels) for c in learned]])
    means = rows.mean(axis=1)
    best = int(np.argmax(means))
    return results, ((fixed + learned)[best], float(means[best]))


def _ticking(items, progress):
    for item in items:
        if progress is not None:
            progress()
        yield item
