"""The runs of a study evaluated under every qrels at once.

Each run file is read and joined (trec_eval's order, ``--depth``) once, with the union of
the study's (topic, document) pairs (:meth:`.labels.Labels.union_qrels`); the relevance
value of each retrieved document under qrels k is then a look-up in k's grade column
(a grade, or −1 "not in the qrels", or −2 for a negative grade, as trec_eval), and every
(qrels, topic) is one query of a single batch handed to the IR measures
(:func:`rankeval_cli.ir.evaluate.evaluate`). The values are trec_eval's: with the topics
of the study evaluated for every run (a topic the run lacks is an empty ranking, trec_eval
``-c``), and a topic a qrels does not judge has no relevant document (every measure 0).

One run is one executor work unit (``--jobs``), so the values do not depend on how they ran.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .labels import MISSING


@dataclass(frozen=True)
class Evaluated:
    """Per-topic values of the runs under each evaluated qrels."""

    systems: list  # run names (tags; file names when two runs share a tag)
    sources: list  # run files
    values: np.ndarray  # (qrels, measures, systems, topics) float64
    unjudged: np.ndarray  # (qrels, systems, topics): unjudged share of the first k documents, NaN if none
    missing: list  # per run, the study's topics it lacks


@dataclass(frozen=True)
class Judgments:
    """What every run unit shares: the pairs' grades of each evaluated qrels and their
    judged grades per topic (highest first), the union qrels, the topics and the settings."""

    union: object  # trec.Qrels of every pair
    topics: np.ndarray  # study topics (indexes of the union's qids)
    grades: np.ndarray  # (pairs, qrels) int64, MISSING where unlabelled
    judged_offsets: np.ndarray  # (qrels × topics) + 1
    judged_grade: np.ndarray
    measures: tuple
    settings: object  # rankeval_cli.ir.evaluate.Settings
    k: int  # depth of the unjudged share


def judgments(labels, grades: np.ndarray, topics, measures, settings, k: int) -> Judgments:
    """The shared data of :func:`evaluate_runs` for the grade columns ``grades`` (pairs × qrels)."""
    topics = np.asarray(topics, np.int64)
    sizes, parts = [], []
    for q in range(grades.shape[1]):
        for t in topics.tolist():
            g = grades[labels.offsets[t]:labels.offsets[t + 1], q]
            g = np.sort(g[g >= 0])[::-1]
            parts.append(g)
            sizes.append(len(g))
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    judged = np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)
    return Judgments(labels.union_qrels(), topics, grades, offsets, judged, tuple(measures), settings, k)


def evaluate_runs(paths, shared: Judgments) -> Evaluated:
    """Every run evaluated under every qrels of ``shared`` (module docstring)."""
    from ..executor import map_units

    out = map_units(_evaluate_run, list(paths), shared=shared, label="runs")
    tags = [tag or path for (tag, *_), path in zip(out, paths)]
    if len(set(tags)) < len(tags):  # two runs with one tag: named by their files
        tags = list(paths)
    values = np.stack([v for _, v, _, _ in out], axis=2) if out else np.zeros((0, 0, 0, 0))
    unjudged = np.stack([u for _, _, u, _ in out], axis=1) if out else np.zeros((0, 0, 0))
    return Evaluated(tags, list(paths), values, unjudged, [m for *_, m in out])


def _evaluate_run(shared: Judgments, path: str):
    """(tag, values (qrels, measures, topics), unjudged (qrels, topics), missing topics) of one run."""
    from ..formats.trec.join import NONPOOL, UNJUDGED, join
    from ..formats.trec.run import read_run
    from ..ir.evaluate import evaluate
    from ..measures.ir import Ranking

    run = read_run(path)
    joined = join(run, shared.union, depth=shared.settings.depth, queries=shared.topics.tolist())
    sizes = np.diff(joined.offsets)
    n_q, n_t = shared.grades.shape[1], len(shared.topics)
    pair = np.asarray(joined.qrels_row, np.int64)
    g = shared.grades[np.maximum(pair, 0)].T if len(pair) else np.zeros((n_q, 0), np.int64)  # (qrels, rows)
    rel = np.where((pair < 0)[None, :] | (g == MISSING), NONPOOL, np.where(g >= 0, g, UNJUDGED))
    span = int(joined.tie_block[-1]) + 1 if len(joined.tie_block) else 0
    blocks = np.concatenate([joined.tie_block + q * span for q in range(n_q)])
    offsets = np.concatenate([[0], np.cumsum(np.tile(sizes, n_q))]).astype(np.int64)
    ranking = Ranking(offsets, rel.reshape(-1), blocks, shared.judged_offsets, shared.judged_grade)
    values = evaluate(ranking, shared.measures, shared.settings)
    stacked = np.stack([np.asarray(values[m.name], np.float64) for m in shared.measures])
    unjudged = _unjudged_share(rel, joined.offsets, shared.k)
    present = set(run.qids)
    missing = [shared.union.qids[t] for t in shared.topics.tolist() if shared.union.qids[t] not in present]
    return run.tag, stacked.reshape(len(shared.measures), n_q, n_t).transpose(1, 0, 2), unjudged, missing


def _unjudged_share(rel: np.ndarray, offsets: np.ndarray, k: int) -> np.ndarray:
    """(qrels, topics): documents not in the qrels among each ranking's first min(k, n)."""
    sizes = np.diff(offsets)
    group = np.repeat(np.arange(len(sizes)), sizes)
    top = (np.arange(rel.shape[1]) - offsets[group]) < k if rel.shape[1] else np.zeros(0, bool)
    shown = np.minimum(sizes, k).astype(np.float64)
    out = np.empty((rel.shape[0], len(sizes)))
    for q in range(rel.shape[0]):
        holes = np.bincount(group[top], weights=(rel[q][top] == -1).astype(np.float64), minlength=len(sizes))
        out[q] = np.divide(holes, shown, out=np.full(len(sizes), np.nan), where=shown > 0)
    return out
