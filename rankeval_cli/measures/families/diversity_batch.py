"""The per-query intermediates of the diversity measures (:mod:`.diversity`), as ndeval forms
them (``ndeval.c`` of the TREC Web track, version 4.5), for a whole batch of queries at once.

A retrieved document is relevant to subtopic j when its judgment for j is ≥ ℓ (ndeval: > 0);
S = the query's subtopics with at least one relevant document in the qrels (ndeval's
``actualSubtopics``), R_j = the relevant documents of subtopic j. With c_j(i) = the documents
relevant to j above position i, the *gain* at position i is

    G_i = Σ_{j: i relevant to j} (1 − α)^{c_j(i)}        (Clarke et al. 2008, eq. 5)

added over j in ascending subtopic order, each power a product formed factor after factor, as
ndeval forms it. The *ideal ranking* is ndeval's greedy one (``idealResult``): at each step the
judged document of largest gain given those above it, ties to the largest docno (strcmp). The
"ideal ideal" normalizers are the same sums for a ranking whose i-th document gains S(1 − α)^{i−1}.
Every sum is formed term after term in rank order, so that ndeval's ``%.6f`` output is met to the
last digit (:func:`rankeval_cli.measures.trec.queries.sequential_prefix`).
"""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np

from ..trec.queries import Events


def powers(factor: float, top: int) -> np.ndarray:
    """factor^0 … factor^top, each the one before times ``factor`` (C's ``x *= factor``)."""
    out = np.empty(top + 1)
    value = 1.0
    for i in range(top + 1):
        out[i] = value
        value *= factor
    return out


_DISCOUNT = np.zeros(1)


def discount(top: int) -> np.ndarray:
    """log(2)/log(p + 1) for positions p = 1 … top (entry 0 unused): ndeval's ``discount``, by
    the C library's ``log`` (``math.log``)."""
    global _DISCOUNT
    if len(_DISCOUNT) <= top:
        size = max(top + 1, 2 * len(_DISCOUNT))
        _DISCOUNT = np.array([0.0] + [math.log(2.0) / math.log(p + 1.0) for p in range(1, size)])
    return _DISCOUNT


class DiversityBatch:
    """A batch of rankings joined with diversity qrels (module docstring): ``ranking`` in the tie
    policy's order (its ``doc`` the qrels row of each retrieved row), ``dq`` the
    :class:`~rankeval_cli.formats.diversity_qrels.DiversityQrels`, ``level`` = ℓ."""

    def __init__(self, ranking, dq, *, rel_level: int = 1, expected: bool = False, queries=None):
        self.ranking, self.dq, self.level, self.expected = ranking, dq, int(rel_level), expected
        self.offsets = np.zeros(len(queries) + 1, np.int64) if ranking is None else \
            np.asarray(ranking.offsets, dtype=np.int64)
        self.n_queries = len(self.offsets) - 1
        self.n = np.diff(self.offsets)
        self._cache: dict = {}
        if queries is not None:
            self.query = np.asarray(queries, dtype=np.int64)

    def memo(self, key, compute):
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    # ---- the queries' subtopics
    @cached_property
    def query(self) -> np.ndarray:  # (set in __init__ when the queries are given)
        """The qrels query of each query of the batch."""
        first = np.asarray(self.ranking.judged_doc)[np.asarray(self.ranking.judged_offsets)[:-1]]
        return np.searchsorted(self.dq.qrels.offsets, first, side="right") - 1

    @cached_property
    def sub_base(self) -> np.ndarray:
        """The first global subtopic number of each query (its subtopics are base … base + count − 1)."""
        counts = np.array([len(self.dq.subtopics[q]) for q in self.query.tolist()], dtype=np.int64)
        return np.concatenate(([0], np.cumsum(counts)))

    def _relevant_pairs(self, docs: np.ndarray):
        """(index into ``docs``, global subtopic) of every judgment ≥ ℓ of these qrels rows, in the
        order of ``docs``, subtopics ascending."""
        dq = self.dq
        lo, hi = dq.doc_offsets[docs], dq.doc_offsets[docs + 1]
        count = hi - lo
        owner = np.repeat(np.arange(len(docs)), count)
        at = np.repeat(lo - np.concatenate(([0], np.cumsum(count)))[:-1], count) + np.arange(int(count.sum()))
        keep = dq.judgment[at] >= self.level
        return owner[keep], dq.subtopic[at[keep]]

    def judged_rows(self):
        """(the rows of the qrels judged for the batch's queries, query by query; their counts)."""
        qrels = self.dq.qrels
        q = self.query
        sizes = qrels.offsets[q + 1] - qrels.offsets[q]
        docs = np.repeat(qrels.offsets[q] - np.concatenate(([0], np.cumsum(sizes)))[:-1], sizes) + \
            np.arange(int(sizes.sum()))
        return docs, sizes

    @cached_property
    def nrel(self) -> np.ndarray:
        """R_j of every global subtopic."""
        docs, sizes = self.judged_rows()
        owner, sub = self._relevant_pairs(docs)
        group = np.repeat(np.arange(self.n_queries), sizes)[owner]
        return np.bincount(self.sub_base[group] + sub, minlength=int(self.sub_base[-1]))

    @cached_property
    def S(self) -> np.ndarray:
        """Per query, its subtopics with a relevant document (ndeval's actualSubtopics)."""
        owner = np.repeat(np.arange(self.n_queries), np.diff(self.sub_base))
        return np.bincount(owner[self.nrel > 0], minlength=self.n_queries)

    # ---- the run's relevant (row, subtopic) pairs, in rank order, subtopics ascending
    @cached_property
    def pairs(self):
        """(row, global subtopic, c = the rows above relevant to that subtopic) of every relevant pair."""
        doc = np.asarray(self.ranking.doc)
        rows = np.flatnonzero(doc >= 0)
        owner, sub = self._relevant_pairs(doc[rows])
        row = rows[owner]
        group = np.searchsorted(self.offsets, row, side="right") - 1
        gsub = self.sub_base[group] + sub
        order = np.lexsort((row, gsub))
        first = np.r_[True, gsub[order][1:] != gsub[order][:-1]] if len(order) else np.zeros(0, dtype=bool)
        start = np.maximum.accumulate(np.where(first, np.arange(len(order)), 0)) if len(order) else first
        c = np.empty(len(order), dtype=np.int64)
        c[order] = np.arange(len(order)) - start
        return row, gsub, c

    @cached_property
    def group(self) -> np.ndarray:
        return np.repeat(np.arange(self.n_queries), self.n)

    @cached_property
    def pos(self) -> np.ndarray:
        return np.arange(int(self.offsets[-1])) - self.offsets[self.group] + 1

    def row_gain(self, alpha: float) -> np.ndarray:
        """G_i of every retrieved row."""
        def compute():
            row, _, c = self.pairs
            pw = powers(1.0 - alpha, int(c.max()) if len(c) else 0)
            return np.bincount(row, weights=pw[c], minlength=len(self.pos)) if len(row) else np.zeros(len(self.pos))
        return self.memo(("row_gain", alpha), compute)

    def gains(self, alpha: float) -> Events:
        """The rows with G_i > 0 as events (terms: G_i)."""
        def compute():
            g = self.row_gain(alpha)
            rows = np.flatnonzero(g > 0)
            return Events(self.group[rows], self.pos[rows], g[rows], self.n_queries)
        return self.memo(("gains", alpha), compute)

    def ideal(self, alpha: float) -> Events:
        """The ideal ranking's gains (ndeval's greedy ``idealResult``) as events: made once for every query
        of the qrels (at this α and ℓ), kept with them, this batch's queries taken."""
        def compute():
            key = ("ideal", alpha, self.level)
            whole = self.dq.cache.get(key)
            if whole is None:
                every = DiversityBatch(None, self.dq, rel_level=self.level, queries=np.arange(len(self.dq.qids)))
                whole = self.dq.cache[key] = greedy_ideal(every, alpha)
            sizes = np.diff(whole.offsets)[self.query]
            rows = np.repeat(whole.offsets[self.query] - np.concatenate(([0], np.cumsum(sizes)))[:-1], sizes) + \
                np.arange(int(sizes.sum()))
            return Events(np.repeat(np.arange(self.n_queries), sizes), whole.pos[rows], whole.terms[rows],
                          self.n_queries)
        return self.memo(("ideal", alpha), compute)

    def depth(self, cutoff: int | None) -> np.ndarray:
        """Per query the cut-off k (no cut-off: the documents retrieved)."""
        return self.n.copy() if cutoff is None else np.full(self.n_queries, int(cutoff), dtype=np.int64)


def greedy_ideal(batch: DiversityBatch, alpha: float) -> Events:
    """ndeval's ideal ranking of every query at once: step after step, each query takes its judged
    document of largest gain given those taken (ties: the largest docno), until none gains; the
    gains of the taken documents, in order, as events."""
    docs, sizes = batch.judged_rows()
    owner, sub = batch._relevant_pairs(docs)
    doc_group = np.repeat(np.arange(batch.n_queries), sizes)
    cand, pair_cand = np.unique(owner, return_inverse=True)  # documents with a relevant subtopic, in docno order
    pair_cand = pair_cand.reshape(-1)
    cand_group = doc_group[cand]
    pair_sub = batch.sub_base[doc_group[owner]] + sub
    pw = powers(1.0 - alpha, int(np.bincount(pair_sub).max()) if len(pair_sub) else 0)
    taken = np.zeros(int(batch.sub_base[-1]), dtype=np.int64)
    out_group, out_gain = [], []
    live = np.arange(len(cand))  # the candidates not taken yet, in order; their pairs below
    while len(live):
        # each live candidate's gain: its pairs' gains added in subtopic order (bincount adds in array order)
        score = np.bincount(pair_cand, weights=pw[taken[pair_sub]], minlength=len(cand))[live]
        g = cand_group[live]
        starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
        best = np.maximum.reduceat(score, starts)
        top = np.repeat(best, np.diff(np.r_[starts, len(g)]))
        winner = np.maximum.reduceat(np.where(score == top, np.arange(len(live)), -1), starts)
        gains = best > 0
        chosen = live[winner[gains]]
        out_group.append(g[starts][gains])
        out_gain.append(best[gains])
        dead = np.zeros(len(cand), dtype=bool)
        dead[chosen] = True
        hit = dead[pair_cand]
        np.add.at(taken, pair_sub[hit], 1)
        dead[live[np.repeat(~gains, np.diff(np.r_[starts, len(g)]))]] = True  # their queries gain no more
        keep = ~dead[pair_cand]
        pair_cand, pair_sub = pair_cand[keep], pair_sub[keep]
        live = live[~dead[live]]
    group = np.concatenate(out_group) if out_group else np.zeros(0, dtype=np.int64)
    gain = np.concatenate(out_gain) if out_gain else np.zeros(0)
    order = np.argsort(group, kind="stable")
    group, gain = group[order], gain[order]
    start = np.searchsorted(group, np.arange(batch.n_queries))
    pos = np.arange(len(group)) - start[group] + 1
    return Events(group, pos, gain, batch.n_queries)
