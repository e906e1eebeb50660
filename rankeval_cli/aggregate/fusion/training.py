"""What the learning fusion methods estimate from training qrels, as ranx 0.3.21 estimates it.

The training topics are the queries of the training qrels; a run's list for a topic is
read as it is fused (trec_eval's order), and a document is relevant when its grade is
at least 1 (ranx's ``rel_lvl=1``). A run without a training topic has an empty list
there, which still counts in the averages over topics (|Q| below), as in ranx. Every
estimate is one array per run (runs × positions or segments).

Notation: Q the training topics, h_q(i) = 1 when the document at 1-based position i of
the run's list for q is relevant, n_q the list's length, R_q the relevant documents of q.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .lists import Lists

#: SegFuse's segment boundaries (Shokouhi 2007 §3: segment k holds (10·2^(k−1) − 5) positions)
SEGFUSE_BOUNDS = np.array([0] + [10 * 2 ** (k - 1) - 5 for k in range(1, 11)])
#: BayesFuse's rank cut-offs, as ranx bins positions
BAYES_CUTOFFS = np.array([0, 5, 10, 15, 20, 30, 100, 200, 500, 1000])
#: log odds of a document a run did not retrieve (ranx: log(0.001 / 0.999))
MIN_LOG_ODDS = math.log(0.001 / 0.999)


@dataclass
class Judged:
    """Relevance of each row of the training topics, from the training qrels."""

    hit: np.ndarray  # float per row of the lists: 1 if relevant (grade >= 1) and the row's query is a topic
    topic: np.ndarray  # bool per row: the row's query is a training topic
    n_rel: np.ndarray  # relevant documents per query code (0 outside the topics)
    n_topics: int


def judge(lists: Lists, qrels) -> Judged:
    """``qrels`` = (query code, doc code, grade) arrays in the codes of ``lists``; query
    codes of training topics the runs never retrieved for are ``>= lists.n_queries``."""
    q, d, g = (np.asarray(a, dtype=np.int64) for a in qrels)
    topics = np.unique(q)
    if len(topics) == 0:
        raise ValueError("the training qrels hold no judgment")
    known = q < lists.n_queries
    n_rel = np.bincount(q[known & (g >= 1)], minlength=lists.n_queries).astype(np.float64)
    n_docs = int(max(lists.cand_doc.max(initial=0), d.max(initial=0))) + 1
    relevant = np.unique(q[g >= 1] * n_docs + d[g >= 1])
    row_key = lists.query * n_docs + lists.cand_doc[lists.cand]
    at = np.minimum(np.searchsorted(relevant, row_key), max(len(relevant) - 1, 0))
    hit = (relevant[at] == row_key) if len(relevant) else np.zeros(len(row_key), bool)
    is_topic = np.zeros(lists.n_queries, bool)
    is_topic[topics[topics < lists.n_queries]] = True
    return Judged(hit.astype(np.float64), is_topic[lists.query], n_rel, len(topics))


def _per_run(lists: Lists, rows: np.ndarray, column: np.ndarray, values: np.ndarray, width: int) -> np.ndarray:
    out = np.zeros((lists.n_runs, max(width, 0)))
    np.add.at(out, (lists.run[rows], column[rows]), values[rows])
    return out


def probfuse(lists: Lists, judged: Judged, segments: int) -> np.ndarray:
    """ProbFuse (Lillis et al. 2006, eq. 1): P(rel | segment k) = (1/|Q|) Σ_q |relevant in
    segment k of q| / |segment k of q|, the list of q cut into ``segments`` segments of
    ⌈n_q / segments⌉ positions (the last may be shorter)."""
    size = np.ceil(lists.length / segments).astype(np.int64)
    seg = (lists.position - 1) // np.maximum(size, 1)
    seg_len = np.minimum(size, lists.length - seg * size)
    rows = np.flatnonzero(judged.topic)
    return _per_run(lists, rows, seg, judged.hit / np.maximum(seg_len, 1), segments) / judged.n_topics


def segfuse(lists: Lists, judged: Judged) -> np.ndarray:
    """SegFuse (Shokouhi 2007, eq. 2): per segment k of :data:`SEGFUSE_BOUNDS`,
    (1/|Q|) Σ_q |relevant in segment k of q| / (size of segment k)."""
    seg = np.searchsorted(SEGFUSE_BOUNDS, lists.position - 1, side="right") - 1
    rows = np.flatnonzero(judged.topic & (lists.position <= SEGFUSE_BOUNDS[-1]))
    sizes = np.diff(SEGFUSE_BOUNDS).astype(np.float64)
    return _per_run(lists, rows, seg, judged.hit / sizes[np.minimum(seg, len(sizes) - 1)], len(sizes)) \
        / judged.n_topics


def positions(lists: Lists, judged: Judged) -> np.ndarray:
    """PosFuse and SlideFuse (Lillis et al. 2008, 2010): P(rel | position i) = Σ_q h_q(i) /
    |{q : n_q ≥ i}|, up to the longest training list of each run (0 beyond it)."""
    rows = np.flatnonzero(judged.topic)
    width = int(lists.position[rows].max(initial=0))
    hits = _per_run(lists, rows, lists.position - 1, judged.hit, width)
    reached = _per_run(lists, rows, lists.position - 1, np.ones(len(lists.run)), width)
    return np.divide(hits, reached, out=np.zeros_like(hits), where=reached > 0)


def mean_ap(lists: Lists, judged: Judged) -> np.ndarray:
    """MAPFuse (Lillis et al. 2010): each run's mean average precision over the topics,
    AP_q = Σ_{i: h_q(i) = 1} P@i / R_q (0 when R_q = 0), averaged over all |Q| topics."""
    rows = np.flatnonzero(judged.topic)
    key = lists.run[rows] * lists.n_queries + lists.query[rows]
    hit = judged.hit[rows]
    edges = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if len(key) else np.zeros(0, np.int64)
    cum = np.cumsum(hit)
    before = np.repeat(np.r_[0.0, cum][edges] if len(edges) else cum[:0], np.diff(np.r_[edges, len(key)]))
    precision = np.where(hit > 0, (cum - before) / lists.position[rows], 0.0)
    n_rel = judged.n_rel[lists.query[rows]]
    ap_part = np.divide(precision, n_rel, out=np.zeros_like(precision), where=n_rel > 0)
    return np.bincount(lists.run[rows], weights=ap_part, minlength=lists.n_runs) / judged.n_topics


def bayes_log_odds(lists: Lists, judged: Judged) -> np.ndarray:
    """BayesFuse (Aslam & Montague 2001 §3.1) as ranx estimates it: per bin [c_j, c_j+1) of
    :data:`BAYES_CUTOFFS`, p = (1/|Q|) Σ_q |relevant in the bin| / (c_j+1 − c_j) (0.001 where
    p = 0, and 1 − p floored at 0.001), and every position of the bin gets log(p / (1 − p))."""
    cut = BAYES_CUTOFFS
    rows = np.flatnonzero(judged.topic & (lists.position <= cut[-1]))
    bin_ = np.searchsorted(cut, lists.position - 1, side="right") - 1
    widths = np.diff(cut).astype(np.float64)
    p = _per_run(lists, rows, bin_, judged.hit / widths[np.minimum(bin_, len(widths) - 1)], len(widths)) \
        / judged.n_topics
    p = np.where(p == 0, p + 0.001, p)
    q = 1 - p
    q = np.where(q == 0, q + 0.001, q)
    return np.repeat(np.log(p / q), np.diff(cut).astype(np.int64), axis=1)
