"""Agreement between every pair of several runs, query by query, and its means over queries.

Runs are TREC run files read as trec_eval reads them (:func:`rankeval_cli.formats.trec.run.read_run`);
docnos become integer codes in byte order, shared by all runs. For each pair of runs (X, Y)
and each query some run has, the measures of :mod:`.between` are computed; a query one run
lacks is an empty ranking there (RBO's min and ext are then 0, τ undefined); a pair is compared on the queries either of
its two runs has. Means are over
the queries where the value is defined, with a percentile bootstrap interval over queries
(:func:`rankeval_cli.stats.resample.bootstrap_intervals`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..vocabulary import AGREEMENT_MEASURES as MEASURES
from . import between


@dataclass(frozen=True)
class AgreementSettings:
    measures: tuple = MEASURES
    p: float = 0.9
    variant: str = "a"
    depth: int | None = None  # RBO on the first ``depth`` documents
    k: int = 10  # overlap@k, jaccard@k


@dataclass
class RunLists:
    """One run's rankings: per query code, its doc codes and scores."""

    name: str
    lists: dict = field(default_factory=dict)


def read_runs(paths) -> tuple[list, list]:
    """([RunLists], query ids in byte order)."""
    from ..formats.byteids import ByteIds
    from ..formats.trec.run import read_run

    runs = [read_run(path) for path in paths]
    docs, codes = ByteIds.concat([run.docno for run in runs]).unique()
    qids = sorted({q for run in runs for q in run.qids}, key=lambda q: q.encode("utf-8"))
    q_code = {q: i for i, q in enumerate(qids)}
    out, at = [], 0
    for path, run in zip(paths, runs):
        doc = codes[at:at + run.n_rows]
        at += run.n_rows
        query = np.array([q_code[q] for q in run.qids], dtype=np.int64)[run.code] if run.n_rows else \
            np.zeros(0, np.int64)
        order = np.argsort(query, kind="stable")
        edges = np.flatnonzero(np.r_[True, query[order][1:] != query[order][:-1]]) if len(order) else []
        lists = {}
        for lo, hi in zip(edges, list(edges[1:]) + [len(order)]):
            rows = order[lo:hi]
            lists[int(query[rows[0]])] = (doc[rows], run.score[rows])
        out.append(RunLists(run.tag or path, lists))
    names = [r.name for r in out]
    if len(set(names)) < len(names):
        for r, path in zip(out, paths):
            r.name = path
    return out, qids


EMPTY = (np.zeros(0, np.int64), np.zeros(0))


def pair_queries(x: RunLists, y: RunLists) -> list:
    """The query codes either run has, in order."""
    return sorted(set(x.lists) | set(y.lists))


def per_query(x: RunLists, y: RunLists, queries: list, settings: AgreementSettings) -> dict:
    """measure name -> values per query of ``queries`` (NaN: undefined)."""
    out = {}
    names = []
    for m in settings.measures:
        names += [f"rbo_{s}" for s in ("ext", "min", "max", "res")] if m == "rbo" else \
            [f"{m}@{settings.k}"] if m in ("overlap", "jaccard") else [m]
    for name in names:
        out[name] = np.full(len(queries), np.nan)
    for at, q in enumerate(queries):
        a, b = x.lists.get(q, EMPTY), y.lists.get(q, EMPTY)
        if "rbo" in settings.measures:
            for s, v in between.rbo_of(*a, *b, settings.p, settings.variant, settings.depth).items():
                out[f"rbo_{s}"][at] = v
        if "tau-b" in settings.measures:
            out["tau-b"][at] = between.tau_b(*a, *b)
        if "tau-ap" in settings.measures:
            out["tau-ap"][at] = between.tau_ap(*a, *b)
        if "overlap" in settings.measures or "jaccard" in settings.measures:
            o, j = between.overlaps(*a, *b, settings.k)
            if "overlap" in settings.measures:
                out[f"overlap@{settings.k}"][at] = o
            if "jaccard" in settings.measures:
                out[f"jaccard@{settings.k}"][at] = j
    return out


def mean_with_interval(values: np.ndarray, level: float | None, replicates: int, seed: int):
    """(mean over defined queries, ci_low, ci_high, defined, undefined); None for the mean and the
    interval when no query has a defined value."""
    from ..stats.resample import MeanStat, bootstrap_intervals

    defined = ~np.isnan(values)
    if not defined.any():  # no query where the value is defined: written as empty fields
        return None, None, None, 0, int(len(values))
    mean = float(values[defined].mean())
    low = high = None
    if level is not None:
        low, high = bootstrap_intervals([MeanStat()], [values], level, replicates, seed)[0]
    return mean, low, high, int(defined.sum()), int((~defined).sum())
