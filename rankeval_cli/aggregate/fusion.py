"""Run fusion: several ranked lists per query (IR runs) combined into one.

All runs are stacked into one long table of rows (run r, query q, document d,
score s); queries and documents are integer codes into sorted numpy string
arrays, so nothing per row is a Python object. Each method is a small vectorized
kernel over that table (:data:`KERNELS`). Notation, per query q: R = the runs,
C_q = the candidates (documents retrieved by at least one run), n_rq = the
length of run r's list for q, pos_r(d) = d's 1-based position in that list and
s'_r(d) its normalized score; "d ∈ r" means run r retrieved d for q.

==============  ===========================================================  ==========================
method          fused score of d                                             source
==============  ===========================================================  ==========================
``rrf``         Σ_{r: d∈r} 1 / (k + pos_r(d)), k = 60                        Cormack, Clarke & Büttcher
                                                                             2009, eq. 1
``combsum``     Σ_{r: d∈r} s'_r(d)                                           Fox & Shaw 1994
``combmnz``     |{r: d∈r}| · Σ_{r: d∈r} s'_r(d)                              Fox & Shaw 1994
``combmax``     max_{r: d∈r} s'_r(d)                                         Fox & Shaw 1994
``borda-fuse``  Σ_r b_r(d): b_r(d) = |C_q| − pos_r(d) + 1 if d∈r, else        Aslam & Montague 2001
                (|C_q| − n_rq + 1) / 2 (the mean of the points left over)
==============  ===========================================================  ==========================

Normalizations of a run's scores for one query (score-based methods only; the
definitions and the 10⁻⁹ floor on the denominator are those of ranx's
``fuse``): ``min-max`` (s − min) / max(max − min, 10⁻⁹); ``z-score``
(s − mean) / max(std, 10⁻⁹) with the population standard deviation; ``sum``
(s − min) / max(Σs − n·min, 10⁻⁹); ``none``.

Positions within an input run follow the order trec_eval evaluates it in: score
descending, then document id descending (the run's own rank column is ignored,
as trec_eval and ranx ignore it). The fused list is ordered the same way, by
fused score and then document id descending, and ranked 1, 2, ...
A run without a query contributes nothing to it (to Borda fuse, (|C_q| + 1)/2
to every candidate, which leaves the order unchanged).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: ranx's floor on normalization denominators.
EPS = 1e-9
NORMALIZATIONS = ("min-max", "z-score", "sum", "none")
DEFAULT_RRF_K = 60.0


@dataclass
class Stacked:
    """Several runs as one table; rows sorted by (run, query, score desc, doc desc)."""

    run: np.ndarray  # int64 run index per row
    query: np.ndarray  # int64 code into ``queries``
    doc: np.ndarray  # int64 code into ``docs``
    score: np.ndarray  # float64
    position: np.ndarray  # 1-based position in the run's list for the query
    length: np.ndarray  # that list's length, per row
    queries: np.ndarray  # sorted unique query ids (str or bytes)
    docs: np.ndarray  # sorted unique document ids (str or bytes, sorted as trec_eval compares them)
    n_runs: int


@dataclass
class Fused:
    """A fused run: rows sorted by (query, fused score desc, doc desc)."""

    query: np.ndarray  # query ids, one per row (as given: str or bytes)
    doc: np.ndarray  # document ids
    rank: np.ndarray  # 1..n within each query
    score: np.ndarray  # fused score


def _bounds(keys: np.ndarray) -> np.ndarray:
    """Start offsets of the runs of equal values in sorted ``keys``, plus the end."""
    if len(keys) == 0:
        return np.zeros(1, dtype=np.int64)
    starts = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]]))
    return np.append(starts, len(keys)).astype(np.int64)


def stack(runs) -> Stacked:
    """Stack runs given as ``(query_ids, doc_ids, scores)`` triples.

    ``query_ids`` is one id per row, or a pair ``(names, codes)``: the distinct query ids
    and each row's index into them (as TREC files are read; saves a sort of the rows' ids).
    Raises ValueError if a run lists a document twice for one query.
    """
    runs = [(_query_codes(q), _ids(d), np.asarray(x, dtype=np.float64)) for q, d, x in runs]
    queries = np.unique(_concat([names for (names, _), _, _ in runs]))
    query = np.concatenate([np.searchsorted(queries, names)[codes] if len(codes) else codes
                            for (names, codes), _, _ in runs]) if runs else np.zeros(0, np.int64)
    dids = _concat([d for _, d, _ in runs])
    score = np.concatenate([x for _, _, x in runs]) if runs else np.zeros(0)
    run = np.repeat(np.arange(len(runs), dtype=np.int64), [len(x) for _, _, x in runs])
    docs, doc = np.unique(dids, return_inverse=True)
    query, doc = query.astype(np.int64).reshape(-1), doc.astype(np.int64).reshape(-1)
    order = np.lexsort((-doc, -score, query, run))
    run, query, doc, score = run[order], query[order], doc[order], score[order]
    list_key = run * max(len(queries), 1) + query
    bounds = _bounds(list_key)
    sizes = np.diff(bounds)
    starts = np.repeat(bounds[:-1], sizes)
    position = np.arange(len(run), dtype=np.int64) - starts + 1
    key = list_key * max(len(docs), 1) + doc  # (run, query, doc) as one code
    ordered = np.sort(key)
    repeated = ordered[1:][ordered[1:] == ordered[:-1]]
    if len(repeated):
        i = int(np.flatnonzero(key == repeated[0])[0])
        raise ValueError(f"run {int(run[i]) + 1} lists document {_str(docs[doc[i]])!r} twice for query "
                         f"{_str(queries[query[i]])!r}")
    return Stacked(run, query, doc, score, position, np.repeat(sizes, sizes), queries, docs, len(runs))


def _str(value) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _ids(values) -> np.ndarray:
    """Ids as a numpy string array (``S`` bytes or ``U``), or integer codes whose order is
    the ids' order (as :func:`fuse_files` gives them)."""
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


def normalize(stacked: Stacked, method: str = "min-max") -> np.ndarray:
    """Each row's score normalized within its (run, query) list (see the module docstring)."""
    s = stacked.score
    if method == "none" or len(s) == 0:
        return s.copy()
    bounds = _bounds(stacked.run * max(len(stacked.queries), 1) + stacked.query)
    sizes = np.diff(bounds)
    starts = bounds[:-1]
    if method == "min-max":
        # rows are sorted by score descending within a list: max first, min last
        hi, lo = s[starts], s[bounds[1:] - 1]
        den = np.maximum(hi - lo, EPS)
        return (s - np.repeat(lo, sizes)) / np.repeat(den, sizes)
    if method == "z-score":
        mean = np.add.reduceat(s, starts) / sizes
        centred = s - np.repeat(mean, sizes)
        std = np.sqrt(np.add.reduceat(centred * centred, starts) / sizes)
        return centred / np.repeat(np.maximum(std, EPS), sizes)
    if method == "sum":
        lo = s[bounds[1:] - 1]
        den = np.maximum(np.add.reduceat(s, starts) - lo * sizes, EPS)
        return (s - np.repeat(lo, sizes)) / np.repeat(den, sizes)
    raise ValueError(f"unknown normalization {method!r}; known: {', '.join(NORMALIZATIONS)}")


# -- kernels: (stacked, candidate index per row, number of candidates, options) -> fused scores --------

def combsum(stacked: Stacked, cand: np.ndarray, n_cand: int, values: np.ndarray, **_) -> np.ndarray:
    """CombSUM (Fox & Shaw 1994): Σ over the runs that retrieved d of its normalized score.

    Summed run by run in input order (rows are sorted by run), as ranx sums.
    """
    return np.bincount(cand, weights=values, minlength=n_cand)


def combmnz(stacked: Stacked, cand: np.ndarray, n_cand: int, values: np.ndarray, **_) -> np.ndarray:
    """CombMNZ (Fox & Shaw 1994): CombSUM × the number of runs that retrieved d."""
    return combsum(stacked, cand, n_cand, values) * np.bincount(cand, minlength=n_cand)


def combmax(stacked: Stacked, cand: np.ndarray, n_cand: int, values: np.ndarray, **_) -> np.ndarray:
    """CombMAX (Fox & Shaw 1994): the largest normalized score d got from a run."""
    out = np.full(n_cand, -np.inf)
    np.maximum.at(out, cand, values)
    return out


def rrf(stacked: Stacked, cand: np.ndarray, n_cand: int, *, k: float = DEFAULT_RRF_K, **_) -> np.ndarray:
    """Reciprocal rank fusion (Cormack, Clarke & Büttcher 2009, eq. 1): Σ_r 1 / (k + pos_r(d))."""
    return np.bincount(cand, weights=1.0 / (k + stacked.position), minlength=n_cand)


def borda_fuse(stacked: Stacked, cand: np.ndarray, n_cand: int, *, cand_query: np.ndarray, **_) -> np.ndarray:
    """Borda fuse (Aslam & Montague 2001): with c = |C_q| candidates, position p earns c − p + 1
    points and each candidate a run left out shares the points left: (c − n_rq + 1) / 2.

    Computed as Σ_r (c − n_rq + 1)/2 over all runs (n_rq = 0 for a run without the
    query) plus, for each run that retrieved d, its points minus that share.
    """
    n_queries = len(stacked.queries)
    c = np.bincount(cand_query, minlength=n_queries).astype(np.float64)  # candidates per query
    n = np.zeros((stacked.n_runs, n_queries))
    np.add.at(n, (stacked.run, stacked.query), 1.0)
    left_share = (c[None, :] - n + 1) / 2  # per (run, query)
    base = left_share.sum(axis=0)  # as if no run had retrieved anything
    c_row = c[stacked.query]
    gain = (c_row - stacked.position + 1) - left_share[stacked.run, stacked.query]
    return base[cand_query] + np.bincount(cand, weights=gain, minlength=n_cand)


#: method name -> (kernel, uses normalized scores)
KERNELS = {
    "rrf": (rrf, False),
    "combsum": (combsum, True),
    "combmnz": (combmnz, True),
    "combmax": (combmax, True),
    "borda-fuse": (borda_fuse, False),
}
DESCRIPTIONS = {
    "rrf": "reciprocal rank fusion, sum of 1/(k + position) over runs (IR runs)",
    "combsum": "sum of the normalized scores a document got (IR runs)",
    "combmnz": "CombSUM times the number of runs that retrieved the document (IR runs)",
    "combmax": "largest normalized score a document got (IR runs)",
    "borda-fuse": "Borda count over runs, unretrieved documents sharing the points left (IR runs)",
}


def fuse(runs, method: str = "rrf", normalization: str = "min-max", k: float = DEFAULT_RRF_K,
         depth: int | None = None) -> Fused:
    """Fuse runs given as ``(query_ids, doc_ids, scores)`` triples; keep ``depth`` documents per query.

    >>> a = (["q1", "q1", "q1"], ["d1", "d2", "d3"], [3.0, 2.0, 1.0])
    >>> b = (["q1", "q1"], ["d3", "d2"], [0.9, 0.8])
    >>> f = fuse([a, b], "rrf")
    >>> f.doc.tolist(), [round(x, 6) for x in f.score.tolist()]  # 1/63 + 1/61, 2/62, 1/61
    (['d3', 'd2', 'd1'], [0.032266, 0.032258, 0.016393])
    """
    if method not in KERNELS:
        raise ValueError(f"unknown fusion method {method!r}; known: {', '.join(KERNELS)}")
    kernel, uses_scores = KERNELS[method]
    stacked = stack(runs)
    n_docs = max(len(stacked.docs), 1)
    pair = stacked.query * n_docs + stacked.doc
    unique, cand = np.unique(pair, return_inverse=True)
    cand = cand.reshape(-1)
    cand_query, cand_doc = unique // n_docs, unique % n_docs
    values = normalize(stacked, normalization) if uses_scores else None
    scores = kernel(stacked, cand, len(unique), values=values, k=k, cand_query=cand_query)
    order = np.lexsort((-cand_doc, -scores, cand_query))
    q, d, s = cand_query[order], cand_doc[order], scores[order]
    bounds = _bounds(q)
    sizes = np.diff(bounds)
    rank = np.arange(len(q), dtype=np.int64) - np.repeat(bounds[:-1], sizes) + 1
    if depth is not None:
        keep = rank <= depth
        q, d, s, rank = q[keep], d[keep], s[keep], rank[keep]
    return Fused(stacked.queries[q], stacked.docs[d], rank, s)


def fuse_files(sources, method: str = "rrf", normalization: str = "min-max", k: float = DEFAULT_RRF_K,
               depth: int | None = None) -> Fused:
    """Fuse TREC run files (read by :func:`rankeval_cli.formats.trec.run.read_run`). Query ids
    and docnos are fused as integer codes in the ids' byte order, so that no id is held at
    the width of the longest; the fused run's ``query`` is an object array of ``str``, its
    ``doc`` a :class:`~rankeval_cli.formats.byteids.ByteIds` column."""
    from ..formats.byteids import ByteIds
    from ..formats.trec.run import read_run

    runs = [read_run(source) for source in sources]
    qids = sorted({q for run in runs for q in run.qids}, key=lambda q: q.encode("utf-8"))
    q_code = {q: i for i, q in enumerate(qids)}
    docs, doc_code = ByteIds.concat([run.docno for run in runs]).unique()
    at, triples = 0, []
    for run in runs:
        query = np.array([q_code[q] for q in run.qids], dtype=np.int64)[run.code] if run.n_rows else \
            np.zeros(0, np.int64)
        doc = doc_code[at:at + run.n_rows]
        at += run.n_rows
        _check_repeats(run, query, doc, docs, qids)
        triples.append((query, doc, run.score))
    fused = fuse(triples, method, normalization, k, depth)
    return Fused(np.array(qids, dtype=object)[fused.query] if len(qids) else np.zeros(0, dtype=object),
                 docs.take(fused.doc), fused.rank, fused.score)


def _check_repeats(run, query: np.ndarray, doc: np.ndarray, docs, qids) -> None:
    """A document listed twice for one query of a run is an error at its second line."""
    from ..errors import DataError
    from ..formats.trec.fields import shown

    key = query * max(len(docs), 1) + doc
    order = np.argsort(key, kind="stable")
    again = np.flatnonzero(key[order][1:] == key[order][:-1]) + 1
    if len(again):
        row = int(order[again].min())  # the first repeat in the file
        d, q = shown(docs[int(doc[row])]), shown(qids[int(query[row])].encode("utf-8"))
        raise DataError(f"document '{d}' listed twice for query '{q}'", run.source,
                        run.line_of(row))
