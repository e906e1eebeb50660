"""Several runs as one table of rows, and the per-candidate view every fusion kernel reads.

All runs are stacked into one long table of rows (run r, query q, document d, score s);
queries and documents are integer codes into sorted numpy arrays, so nothing per row is
a Python object. Positions within a run follow the order trec_eval evaluates it in: score
descending, then document id descending (the run's own rank column is ignored, as
trec_eval and ranx ignore it).

:class:`Lists` is what a kernel of :mod:`.table` receives: per row its run, its
candidate (the (query, document) pair it scores), its 1-based position and its list's
length, and the normalized score where the method reads scores; with helpers that reduce
rows to one value per candidate (``sum``, ``count``, ``max``, ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np


@dataclass
class Stacked:
    """Several runs as one table; rows sorted by (run, query, score desc, doc desc)."""

    run: np.ndarray  # int64 run index per row
    query: np.ndarray  # int64 code into ``queries``
    doc: np.ndarray  # int64 code into ``docs``
    score: np.ndarray  # float64
    position: np.ndarray  # 1-based position in the run's list for the query
    length: np.ndarray  # that list's length, per row
    queries: np.ndarray  # sorted unique query ids (str or bytes), or codes
    docs: np.ndarray  # sorted unique document ids, or codes
    n_runs: int
    #: when given, ``doc`` codes are candidates (a (query, document) each, in (query, docno)
    #: order) and this is the query of each: the grouping into candidates is done
    cand_query: np.ndarray | None = None


def bounds(keys: np.ndarray) -> np.ndarray:
    """Start offsets of the runs of equal values in sorted ``keys``, plus the end."""
    if len(keys) == 0:
        return np.zeros(1, dtype=np.int64)
    starts = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]]))
    return np.append(starts, len(keys)).astype(np.int64)


def stack(runs, extra_docs=None) -> Stacked:
    """Stack runs given as ``(query_ids, doc_ids, scores)`` triples.

    ``query_ids`` is one id per row, or a pair ``(names, codes)``: the distinct query ids
    and each row's index into them (as TREC files are read; saves a sort of the rows' ids).
    ``extra_docs`` are document ids that get codes too (the judged documents of training
    qrels). Raises ValueError if a run lists a document twice for one query.
    """
    runs = [(_query_codes(q), _ids(d), np.asarray(x, dtype=np.float64)) for q, d, x in runs]
    queries = np.unique(_concat([names for (names, _), _, _ in runs]))
    query = np.concatenate([np.searchsorted(queries, names)[codes] if len(codes) else codes
                            for (names, codes), _, _ in runs]) if runs else np.zeros(0, np.int64)
    dids = _concat([d for _, d, _ in runs] + ([_ids(extra_docs)] if extra_docs is not None else []))
    score = np.concatenate([x for _, _, x in runs]) if runs else np.zeros(0)
    run = np.repeat(np.arange(len(runs), dtype=np.int64), [len(x) for _, _, x in runs])
    docs, doc = np.unique(dids, return_inverse=True)
    doc = doc.reshape(-1)[:len(run)]
    query, doc = query.astype(np.int64).reshape(-1), doc.astype(np.int64)
    order = np.lexsort((-doc, -score, query, run))
    run, query, doc, score = run[order], query[order], doc[order], score[order]
    list_key = run * max(len(queries), 1) + query
    edges = bounds(list_key)
    sizes = np.diff(edges)
    position = np.arange(len(run), dtype=np.int64) - np.repeat(edges[:-1], sizes) + 1
    key = list_key * max(len(docs), 1) + doc  # (run, query, doc) as one code
    ordered = np.sort(key)
    repeated = ordered[1:][ordered[1:] == ordered[:-1]]
    if len(repeated):
        i = int(np.flatnonzero(key == repeated[0])[0])
        raise ValueError(f"run {int(run[i]) + 1} lists document {shown(docs[doc[i]])!r} twice for query "
                         f"{shown(queries[query[i]])!r}")
    return Stacked(run, query, doc, score, position, np.repeat(sizes, sizes), queries, docs, len(runs))


def stack_codes(parts, n_queries: int, n_docs: int) -> Stacked:
    """Stack runs whose query and doc ids are already dense integer codes (0..n-1, codes in the
    ids' order), given as ``(query codes, doc codes, scores)`` per run, as :mod:`.files` reads
    them. Runs written in trec_eval's order (each query's lines together, by score and docno
    descending), as runs are, need no sort: that is checked in one pass, and a run that is
    not is sorted. A document twice in a query of a run is left to the caller to find."""
    columns = {name: [] for name in ("query", "doc", "score", "position", "length")}
    for q, d, x in parts:
        q, d, x = np.asarray(q, np.int64), np.asarray(d, np.int64), np.asarray(x, np.float64)
        order, heads = _trec_order(q, d, x)
        if order is not None:
            q, d, x = q[order], d[order], x[order]
        sizes = np.diff(np.append(heads, len(q)))
        for name, column in zip(columns, (q, d, x, np.arange(1, len(q) + 1) - np.repeat(heads, sizes),
                                          np.repeat(sizes, sizes))):
            columns[name].append(column)
    run = np.repeat(np.arange(len(parts), dtype=np.int64), [len(c) for c in columns["query"]])
    cat = {name: np.concatenate(c) if c else np.zeros(0, np.float64 if name == "score" else np.int64)
           for name, c in columns.items()}
    return Stacked(run, cat["query"], cat["doc"], cat["score"], cat["position"], cat["length"],
                   np.arange(n_queries), np.arange(n_docs), len(parts))


def _trec_order(q: np.ndarray, d: np.ndarray, x: np.ndarray) -> tuple:
    """(the row order that puts a run in trec_eval's order, or None when it is in it; the first
    row of each query in that order). A run whose queries are each together and by score has
    only its tied stretches reordered (by docno)."""
    if len(q) < 2:
        return None, np.zeros(len(q), dtype=np.int64)
    same = q[1:] == q[:-1]
    heads = np.flatnonzero(np.r_[True, ~same])
    starts = q[heads]
    if len(np.unique(starts)) != len(starts) or ((x[:-1] < x[1:]) & same).any():
        order = np.lexsort((-d, -x, q))  # queries scattered or not by score: a full sort
        return order, np.flatnonzero(np.r_[True, q[order][1:] != q[order][:-1]])
    tied = same & (x[:-1] == x[1:])
    if not (tied & (d[:-1] < d[1:])).any():
        return None, heads
    # only the tied stretches: their rows sorted by (stretch, docno descending)
    rows = np.flatnonzero(np.r_[tied, False] | np.r_[False, tied])
    stretch = np.cumsum(np.r_[True, ~tied])[rows]
    order = np.arange(len(q))
    order[rows] = rows[_ascending(stretch, -d[rows])]
    return order, heads


def _ascending(major: np.ndarray, minor: np.ndarray) -> np.ndarray:
    """``np.lexsort((minor, major))`` for integer keys, by one sort of packed keys where they fit."""
    n = len(major)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    low, lo_minor = max(int(n - 1).bit_length(), 1), int(minor.min())
    mid = max(int(minor.max()) - lo_minor, 1).bit_length()
    if max(int(major.max()), 1).bit_length() + mid + low > 63 or major.min() < 0:
        return np.lexsort((minor, major))
    packed = np.sort((major << (mid + low)) | ((minor - lo_minor) << low) | np.arange(n, dtype=np.int64))
    return packed & ((1 << low) - 1)


def shown(value) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _ids(values) -> np.ndarray:
    """Ids as a numpy string array (``S`` bytes or ``U``), or integer codes whose order is
    the ids' order (as :func:`.fuse_files` gives them)."""
    values = np.asarray(values)
    return values if values.dtype.kind in "SUiu" else values.astype(str)


def _query_codes(q) -> tuple[np.ndarray, np.ndarray]:
    """(distinct names, int64 code per row) from per-row ids or a (names, codes) pair."""
    if isinstance(q, tuple):
        names, codes = q
        return _ids(names), np.asarray(codes, dtype=np.int64)
    names, codes = np.unique(_ids(q), return_inverse=True)
    return names, codes.astype(np.int64).reshape(-1)


def _concat(parts) -> np.ndarray:
    """Concatenated id arrays; bytes are decoded (UTF-8) when text arrays are mixed in."""
    if not parts:
        return np.zeros(0, "U1")
    if len({p.dtype.kind for p in parts}) > 1:
        parts = [np.char.decode(p, "utf-8") if p.dtype.kind == "S" else p for p in parts]
    return np.concatenate(parts)


class Repeated(ValueError):
    """A run lists a document twice for one query."""

    def __init__(self, run: int, query, doc):
        self.run, self.query, self.doc = run, query, doc
        super().__init__(f"run {run + 1} lists document {shown(doc)!r} twice for query {shown(query)!r}")


@dataclass
class Lists:
    """A kernel's input: one row per (run, retrieved document), rows in (run, query, position)
    order; per candidate (a document some run retrieved for a query) one fused score out.

    ``value`` is the normalized score of each row (None for methods that read positions
    only). A normalization may add rows (``borda`` gives every run every candidate); such
    rows have position 0. ``weights`` holds one weight per run, ``params`` the method's
    parameters, ``model`` what training estimated (see :mod:`.training`).
    """

    run: np.ndarray
    query: np.ndarray
    cand: np.ndarray
    position: np.ndarray
    length: np.ndarray
    n_cand: int
    cand_query: np.ndarray
    cand_doc: np.ndarray
    n_runs: int
    n_queries: int
    value: np.ndarray | None = None
    weights: np.ndarray | None = None
    params: dict = field(default_factory=dict)
    model: object = None

    @classmethod
    def of(cls, stacked: Stacked) -> "Lists":
        """The candidates of stacked runs; ValueError (:class:`Repeated`) if a run lists a document twice
        for a query."""
        from .grouping import group

        if stacked.cand_query is not None:
            n_cand = len(stacked.cand_query)
            return cls(stacked.run, stacked.query, stacked.doc, stacked.position, stacked.length, n_cand,
                       stacked.cand_query, np.arange(n_cand, dtype=np.int64), stacked.n_runs,
                       max(len(stacked.queries), 1), weights=np.ones(stacked.n_runs))
        n_docs = max(len(stacked.docs), 1)
        unique, cand, repeat = group(stacked.query * n_docs + stacked.doc, max(len(stacked.queries), 1) * n_docs,
                                     stacked.run)
        if repeat >= 0:
            raise Repeated(int(stacked.run[repeat]), stacked.queries[stacked.query[repeat]],
                           stacked.docs[stacked.doc[repeat]])
        return cls(stacked.run, stacked.query, cand.reshape(-1), stacked.position, stacked.length, len(unique),
                   unique // n_docs, unique % n_docs, stacked.n_runs, max(len(stacked.queries), 1),
                   weights=np.ones(stacked.n_runs))

    def with_values(self, value: np.ndarray) -> "Lists":
        return replace(self, value=value)

    # -- reductions of rows to candidates --------------------------------------------------------
    def sum(self, values: np.ndarray) -> np.ndarray:
        """Σ over each candidate's rows, added in run order (as ranx adds)."""
        return np.bincount(self.cand, weights=values, minlength=self.n_cand)

    def count(self) -> np.ndarray:
        """The number of runs that retrieved each candidate."""
        return np.bincount(self.cand, minlength=self.n_cand).astype(np.float64)

    def extreme(self, ufunc: np.ufunc, values: np.ndarray, missing: float) -> np.ndarray:
        """``ufunc`` (maximum, minimum) over each candidate's rows, with ``missing`` as the
        value of every run that did not retrieve it (ranx: ±10⁹)."""
        out = np.full(self.n_cand, -np.inf if ufunc is np.maximum else np.inf)
        ufunc.at(out, self.cand, values)
        lacking = self.count() < self.n_runs
        out[lacking] = ufunc(out[lacking], missing)
        return out

    def row_weight(self) -> np.ndarray:
        """Each row's run weight."""
        return self.weights[self.run]

    def segments(self) -> np.ndarray:
        """Offsets of the (run, query) lists in the rows."""
        return bounds(self.run * self.n_queries + self.query)

    def list_sizes(self) -> np.ndarray:
        """Runs × queries: the length of each run's list (0 where the run lacks the query)."""
        sizes = np.zeros((self.n_runs, self.n_queries))
        np.add.at(sizes, (self.run, self.query), 1.0)
        return sizes

    def candidates_per_query(self) -> np.ndarray:
        return np.bincount(self.cand_query, minlength=self.n_queries).astype(np.float64)
