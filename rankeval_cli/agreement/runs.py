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


@dataclass
class PairValues:
    """One ordered pair of runs: the queries either has (ids in byte order), how many of them
    only one has, and each measure's value per query."""

    queries: list = field(default_factory=list)
    lacking: int = 0
    values: dict = field(default_factory=dict)


def compare(paths, settings: "AgreementSettings") -> tuple[list, dict]:
    """(run names, {(i, j): PairValues}) of every pair of runs (i < j: every measure; i > j:
    tau-ap alone, the only asymmetric one), the runs read a block of queries at a time
    (:mod:`rankeval_cli.aggregate.fusion.blocks`): side by side, or read whole where one is not
    in the byte order of its query ids."""
    from dataclasses import replace

    from ..aggregate.fusion.blocks import NotByQuery, query_blocks

    n = len(paths)
    pairs = {(i, j): settings if i < j else replace(settings, measures=("tau-ap",)) for i in range(n)
             for j in range(n) if i < j or (i > j and "tau-ap" in settings.measures)}
    for whole in (False, True):
        names, out = [str(p) for p in paths], {pair: PairValues() for pair in pairs}
        try:
            for at, block in enumerate(query_blocks(list(paths), whole)):
                runs = block_lists(block)
                if at == 0:
                    names = [part.tag or str(path) for part, path in zip(block.parts, paths)]
                for (i, j), pair_settings in pairs.items():
                    _add(out[i, j], runs[i], runs[j], block.names, pair_settings)
            break
        except NotByQuery:
            continue
    if len(set(names)) < len(names):
        names = [str(p) for p in paths]
    for pair in out.values():
        pair.values = {name: np.concatenate(parts) for name, parts in pair.values.items()}
    return names, out


def _add(pair: PairValues, x: "RunLists", y: "RunLists", names: list, settings) -> None:
    queries = pair_queries(x, y)
    pair.queries += [names[q] for q in queries]
    pair.lacking += len(set(x.lists) ^ set(y.lists))
    for name, values in per_query(x, y, queries, settings).items():
        pair.values.setdefault(name, []).append(values)


def block_lists(block) -> list:
    """Each run's rankings of the block's queries (RunLists keyed by query index): doc codes
    shared by the runs, in docno order within a query; a document twice in a run's ranking of
    a query is a DataError at its line."""
    from ..aggregate.fusion.files import block_candidates, doc_codes, repeat_error
    from ..aggregate.fusion.lists import Repeated
    from ..formats.byteids import ByteIds

    try:
        found = block_candidates(block)
    except Repeated as exc:
        raise repeat_error(block, exc.run) from None
    code = found[1] if found is not None else doc_codes(ByteIds.concat([p.docno for p in block.parts]))[1]
    out, at = [], 0
    for r, part in enumerate(block.parts):
        c, at = code[at:at + len(part.score)], at + len(part.score)
        heads = np.flatnonzero(np.r_[True, part.query[1:] != part.query[:-1]]) if len(c) else np.zeros(0, np.int64)
        ends = np.append(heads[1:], len(c))
        if found is None and len(c):
            key = np.sort(part.query * (int(c.max()) + 1) + c)
            if (key[1:] == key[:-1]).any():
                raise repeat_error(block, r)
        out.append(RunLists(part.tag, {int(part.query[h]): (c[h:e], part.score[h:e]) for h, e in
                                       zip(heads.tolist(), ends.tolist())}))
    return out


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
