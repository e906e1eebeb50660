"""Per-topic values of one IR measure for runs held in memory (fused runs, the input runs),
joined with qrels by trec_eval's rules, as ``rankeval report --qrels`` evaluates files.

The topics are fixed once (:class:`Topics`): the qrels' queries that some input run has.
Every run is evaluated on all of them, a topic it lacks counting as an empty ranking (as
trec_eval ``-c``), so that the values of different runs and fusions are paired topic by topic.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Topics:
    qrels: object  # formats.trec.qrels.Qrels
    names: list  # the query ids of the stacked runs (str), by query code
    index: np.ndarray  # the qrels index of each evaluated topic
    code: np.ndarray  # the stacked query code of each evaluated topic
    measure: object  # the parsed measure
    run_to_q: np.ndarray  # qrels index of every stacked query code (−1: not judged)


def topics_of(qrels, names: list, measure_name: str) -> Topics:
    from ...ir.evaluate import measures_of

    measures = measures_of([measure_name])
    if len(measures) != 1:
        raise ValueError(f"--measure names one measure, not a set ({measure_name!r} is {len(measures)})")
    at = {q: i for i, q in enumerate(qrels.qids)}
    run_to_q = np.array([at.get(q, -1) for q in names], dtype=np.int64)
    code = np.flatnonzero(run_to_q >= 0)
    return Topics(qrels, names, run_to_q[code], code, measures[0], run_to_q)


def values(topics: Topics, query: np.ndarray, docno, score: np.ndarray) -> np.ndarray:
    """The measure per evaluated topic of a run given per row: stacked query code, docno (ByteIds), score."""
    from ...formats.trec.fields import LineMap
    from ...formats.trec.join import join
    from ...formats.trec.run import Run
    from ...ir.evaluate import Settings, evaluate
    from ...measures.ir import ranking_from_joined

    run = Run("<memory>", "fused", topics.names, np.asarray(query, dtype=np.int32), docno,
              np.asarray(score, dtype=np.float64), LineMap.consecutive(1, len(query)))
    joined = join(run, topics.qrels, run_to_q=topics.run_to_q, queries=sorted(topics.index.tolist()))
    got = evaluate(ranking_from_joined(joined), [topics.measure], Settings())[topics.measure.name]
    order = {q: i for i, q in enumerate(joined.qids)}
    return np.asarray(got, dtype=np.float64)[[order[topics.qrels.qids[i]] for i in topics.index]]
