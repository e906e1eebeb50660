"""IR measures as trec_eval computes them: rankeval's first kernels (:class:`Evaluator`), which
the registry (:mod:`rankeval_cli.measures.trec`) reads for ERR, Judged, rankDCG, exponential-gain
nDCG and the expected tie policy of P, R, AP, RR, R-prec, nDCG and Success.

Every measure reads a *ranking* per query (the retrieved documents in order, each with
its relevance value: a grade ≥ 0, −1 = not in the qrels, −2 = a negative qrels grade,
see :mod:`rankeval_cli.formats.trec.join`) and the query's *judgments* (its non-negative
qrels grades, highest first). With ℓ the relevance level (``--rel-level``, trec_eval
``-l``, default 1), a document is relevant when its grade is ≥ ℓ; R = the number of
judged documents with grade ≥ ℓ, retrieved or not; N = those judged with 0 ≤ grade < ℓ;
r_i = 1 if the document at position i is relevant, n = the number retrieved. Values
follow trec_eval 9/10's ``m_*.c`` files (Buckley & Voorhees 2005 for the definitions):

- P@k = Σ_{i≤k} r_i / k (``m_P.c``; k even when n < k);
- R@k = Σ_{i≤k} r_i / R (``m_recall.c``);
- AP@k = (1/R) Σ_{i≤k} r_i · (Σ_{j≤i} r_j)/i (``m_map.c``, ``m_map_cut.c``; AP = AP@n);
- RR@k = 1/min{i ≤ k: r_i = 1} (``m_recip_rank.c``; RR = RR@n);
- R-prec = Σ_{i≤R} r_i / R (``m_Rprec.c``);
- bpref = (1/R) Σ_{i: r_i=1} (1 − min(m_i, R)/min(N, R)), m_i = judged non-relevant documents
  above i; a term is 1 when m_i = 0 (``m_bpref.c``; Buckley & Voorhees 2004);
- Success@k = 1 if some r_i = 1 with i ≤ k (``m_success.c``);
- nDCG@k = DCG@k / IDCG@k, DCG@k = Σ_{i≤k} g_i / log2(i+1), g = the grade (linear gain,
  trec_eval; negative values 0) or 2^grade − 1 with ``gain="exp"``; IDCG@k the same sum over
  the query's judged grades sorted highest first — the unretrieved ones included
  (``m_ndcg.c``, ``m_ndcg_cut.c``; Järvelin & Kekäläinen 2002). nDCG ignores ℓ;
- ERR@k = Σ_{i≤k} (R_i / i) Π_{j<i} (1 − R_j), R = (2^g − 1)/2^g_max with g_max = 4
  (Chapelle et al. 2009 eq. 4; gdeval, the TREC Web track script);
- Judged@k = judged documents among the first min(k, n) / min(k, n) (ir_measures);
- num_ret = n, num_rel = R, num_rel_ret = Σ r_i; summed, not averaged, over queries;
- rankDCG (Katerenchuk & Rosenberg 2016; :mod:`.rankdcg`) of the retrieved documents by
  grade, unjudged = 0 (not a trec_eval measure; 0 when all grades are equal).

A query without a relevant document gets 0 (never "undefined"), as in trec_eval.

Tie policies: ``trec`` (trec_eval's order, score descending then docno descending,
the default for TREC input) orders everything before this module; ``pessimistic`` /
``optimistic`` order each block of equal scores by relevance value, lowest / highest first
(a document outside the qrels below one with a negative grade, for Judged@k);
``expected`` is the exact expectation over uniformly random orders of every tied block
(McSherry & Najork 2008) for P, R, Success, AP, RR, R-prec, nDCG, ERR and Judged
(per-measure formulas in the functions below); bpref has none.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..batch import offsets_from_sizes
from .simple import hits_up_to
from .ties import Prepared, block_mean, segment_sum

NONPOOL, UNJUDGED = -1, -2

# ---- the kernels' names ---------------------------------------------------------------------

#: the kernels of :class:`Evaluator` with an exact expected value over tied blocks (all but bpref)
EXPECTED = ("ap", "p", "recall", "ndcg", "rr", "rprec", "success", "err", "judged", "num_ret", "num_rel",
            "num_rel_ret", "rankdcg")


@dataclass(frozen=True)
class Measure:
    """What :meth:`Evaluator.values` computes: a kernel (``kind``, one of ``ap``, ``p``,
    ``recall``, ``ndcg``, ``rr``, ``rprec``, ``bpref``, ``success``, ``err``, ``judged``,
    ``num_ret``, ``num_rel``, ``num_rel_ret``, ``rankdcg``) and its cut-off ``k``. Users' names
    go through the registry (:mod:`rankeval_cli.measures.trec.names`), which computes these
    kernels through :mod:`rankeval_cli.measures.trec.legacy`."""

    name: str
    kind: str
    k: int | None = None

    @property
    def summed(self) -> bool:
        """Counts are summed over queries (trec_eval), not averaged."""
        return self.kind in ("num_ret", "num_rel", "num_rel_ret")


# ---- rankings -----------------------------------------------------------------------------

@dataclass
class Ranking:
    """Per-query rankings and judgments (the measures' input; see the module docstring)."""

    offsets: np.ndarray  # int64, Q + 1, over retrieved rows
    rel: np.ndarray  # relevance value per retrieved row, in ranked order
    tie_block: np.ndarray  # nondecreasing block number per row: rows of equal score share one
    judged_offsets: np.ndarray  # int64, Q + 1
    judged_grade: np.ndarray  # non-negative grades per query, highest first
    doc: np.ndarray | None = None  # the qrels row of each retrieved row (−1: none), for diversity qrels
    judged_doc: np.ndarray | None = None  # the qrels row of each judged grade
    label: np.ndarray | None = None  # each retrieved row's document-groups row (the fairness measures)
    query: np.ndarray | None = None  # each query's index in the qrels

    @property
    def n_queries(self) -> int:
        return len(self.offsets) - 1


def prepared(ranking: Ranking, tie_policy: str, rel_level: int) -> Prepared:
    """The ranking as a :class:`~rankeval_cli.measures.ties.Prepared` (what the shared RR, ERR
    and tie-block code read), in the order the tie policy gives."""
    rel = np.asarray(ranking.rel, dtype=np.float64)
    offsets = ranking.offsets
    q = ranking.n_queries
    group = np.repeat(np.arange(q, dtype=np.int64), np.diff(offsets))
    block = np.asarray(ranking.tie_block, dtype=np.int64)
    if tie_policy in ("pessimistic", "optimistic") and len(rel):
        key = np.where(rel == UNJUDGED, -0.5, rel)  # unjudged < negative grade < 0 < 1 ...: worst first
        order = np.lexsort((key if tie_policy == "pessimistic" else -key, block))
        rel, block = rel[order], block[order]
    pos = np.arange(len(rel), dtype=np.int64) - offsets[group] + 1
    if tie_policy == "expected" and len(rel):
        starts = np.r_[True, block[1:] != block[:-1]]
        block = np.cumsum(starts) - 1
        block_first = pos[starts][block]
        block_size = np.bincount(block)[block]
    else:
        block = np.arange(len(rel), dtype=np.int64)
        block_first, block_size = pos.copy(), np.ones(len(rel), dtype=np.int64)
    return Prepared(offsets=offsets, group=group, pos=pos, rel=np.maximum(rel, 0.0), relevant=rel >= rel_level,
                    gold=rel, gold_rank=np.zeros(len(rel)), block=block, block_first=block_first,
                    block_size=block_size, tie_policy=tie_policy if tie_policy == "expected" else "pessimistic",
                    relevance="grades", row=np.arange(len(rel)))


class Evaluator:
    """Per-query values of any registered measure over one :class:`Ranking`."""

    def __init__(self, ranking: Ranking, *, tie_policy: str = "trec", rel_level: int = 1, gain: str = "linear",
                 rel_max: float = 4.0):
        self.ranking, self.rel_level, self.gain, self.rel_max = ranking, rel_level, gain, rel_max
        self.prep = prepared(ranking, tie_policy, rel_level)
        self.expected = tie_policy == "expected"
        q = ranking.n_queries
        j_group = np.repeat(np.arange(q), np.diff(ranking.judged_offsets))
        grade = ranking.judged_grade
        self.R = np.bincount(j_group[grade >= rel_level], minlength=q).astype(np.float64)
        self.N = np.bincount(j_group[grade < rel_level], minlength=q).astype(np.float64)
        self.n = np.diff(ranking.offsets).astype(np.float64)
        self._hits = self.prep.relevant.astype(np.float64)
        if self.expected:
            self._hits = block_mean(self._hits, self.prep)

    def values(self, measure: Measure) -> np.ndarray:
        """One value per query (0 where trec_eval gives 0 for want of relevant documents)."""
        if self.expected and measure.kind not in EXPECTED:
            raise ValueError(f"{measure.name}: no expected value over tied scores is defined; "
                             "use --tie-policy trec, pessimistic or optimistic")
        return getattr(self, "_" + measure.kind)(measure.k)

    # -- helpers
    def _in_top(self, k) -> np.ndarray:
        return np.ones(len(self.prep.pos), dtype=bool) if k is None else self.prep.pos <= k

    def _sum(self, values) -> np.ndarray:
        return segment_sum(values, self.prep.group, self.ranking.n_queries)

    def _per_R(self, sums) -> np.ndarray:
        return np.divide(sums, self.R, out=np.zeros_like(sums), where=self.R > 0)

    # -- measures
    def _p(self, k):
        return self._sum(self._hits * self._in_top(k)) / k

    def _recall(self, k):
        return self._per_R(self._sum(self._hits * self._in_top(k)))

    def _rprec(self, _k):
        cut = self.prep.pos <= self.R[self.prep.group]
        return self._per_R(self._sum(self._hits * cut))

    def _num_ret(self, _k):
        return self.n.copy()

    def _num_rel(self, _k):
        return self.R.copy()

    def _num_rel_ret(self, _k):
        return self._sum(self.prep.relevant.astype(np.float64))

    def _success(self, k):
        if not self.expected:
            return (self._sum(self.prep.relevant * self._in_top(k)) > 0).astype(np.float64)
        return 1.0 - self._none_in_top(k)

    def _none_in_top(self, k) -> np.ndarray:
        """P(no relevant document among the first k) under random orders of tied blocks:
        per block, t of its m positions inside the cut, c relevant: C(m − c, t) / C(m, t)."""
        p = self.prep
        first = np.r_[True, p.block[1:] != p.block[:-1]] if len(p.block) else np.zeros(0, bool)
        rows = np.flatnonzero(first)
        m = p.block_size[rows].astype(np.float64)
        c = np.bincount(p.block, weights=p.relevant.astype(np.float64))[p.block[rows]] if len(rows) else m
        t = np.clip(k - p.block_first[rows] + 1, 0, m)
        a = m - c
        with np.errstate(invalid="ignore"):
            log_p = _lgamma(a + 1) - _lgamma(np.maximum(a - t, 0) + 1) - _lgamma(m + 1) + _lgamma(m - t + 1)
        prob = np.where(t > a, 0.0, np.exp(np.where(t > a, 0.0, log_p)))
        logs = np.where(prob > 0, np.log(np.where(prob > 0, prob, 1.0)), -np.inf)
        total = segment_sum(np.where(np.isfinite(logs), logs, 0.0), p.group[rows], self.ranking.n_queries)
        zero = segment_sum((~np.isfinite(logs)).astype(np.float64), p.group[rows], self.ranking.n_queries) > 0
        return np.where(zero, 0.0, np.exp(total))

    def _ap(self, k):
        p = self.prep
        relevant = p.relevant.astype(np.float64)
        hit_count = hits_up_to(relevant, p, self.expected)
        return self._per_R(self._sum(hit_count / np.maximum(p.pos, 1) * self._in_top(k)))

    def _rr(self, k):
        from .rr import rr_values

        return np.nan_to_num(rr_values(self.prep, k), nan=0.0)

    def _ndcg(self, k):
        p = self.prep
        gain = p.rel if self.gain == "linear" else np.exp2(p.rel) - 1.0
        disc = 1.0 / np.log2(p.pos + 1.0)
        if k is not None:
            disc = np.where(p.pos <= k, disc, 0.0)
        if self.expected:
            disc = block_mean(disc, p)
        dcg = self._sum(gain * disc)
        idcg = self._ideal(k)
        return np.divide(dcg, idcg, out=np.zeros_like(dcg), where=idcg > 0)

    def _ideal(self, k) -> np.ndarray:
        r = self.ranking
        grade = r.judged_grade.astype(np.float64)
        q = r.n_queries
        j_group = np.repeat(np.arange(q), np.diff(r.judged_offsets))
        pos = np.arange(len(grade)) - r.judged_offsets[j_group] + 1
        gain = grade if self.gain == "linear" else np.exp2(grade) - 1.0
        disc = 1.0 / np.log2(pos + 1.0)
        if k is not None:
            disc = np.where(pos <= k, disc, 0.0)
        return segment_sum(gain * disc, j_group, q)

    def _err(self, k):
        from .err import err_values

        if len(self.prep.rel) and self.prep.rel.max() > self.rel_max:
            raise ValueError(f"ERR: relevance grade {self.prep.rel.max():g} above the scale top {self.rel_max:g} "
                             f"(--rel-max scale:G)")
        return np.nan_to_num(err_values(self.prep, k, ("scale", self.rel_max)), nan=0.0)

    def _judged(self, k):
        p = self.prep
        judged = (p.gold != NONPOOL).astype(np.float64)
        if self.expected:
            judged = block_mean(judged, p)
        shown = np.minimum(self.n, k) if k is not None else self.n.copy()
        return np.divide(self._sum(judged * self._in_top(k)), shown, out=np.zeros_like(shown), where=shown > 0)

    def _rankdcg(self, _k):
        """rankDCG (Katerenchuk & Rosenberg 2016) of the retrieved documents by their grades
        (unjudged and negative = 0); 0 when they all share one grade."""
        import dataclasses

        from ..ranks import normalize_ranks
        from .rankdcg import rankdcg_values

        p = self.prep
        gold_rank = normalize_ranks(p.rel, p.offsets, "ceiling", higher_better=True)
        return np.nan_to_num(rankdcg_values(dataclasses.replace(p, gold_rank=gold_rank)), nan=0.0)

    def _bpref(self, _k):
        p = self.prep
        nonrel = ((p.gold >= 0) & (p.gold < self.rel_level)).astype(np.float64)
        cum = np.cumsum(nonrel) - nonrel
        base = cum[np.minimum(p.offsets[:-1], len(cum) - 1)][p.group] if len(nonrel) else cum
        above = cum - base
        R, N = self.R[p.group], self.N[p.group]
        denom = np.minimum(N, R)
        term = np.where(above > 0, 1.0 - np.minimum(above, R) / np.where(denom > 0, denom, 1.0), 1.0)
        return self._per_R(self._sum(np.where(p.relevant, term, 0.0)))


def _lgamma(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.lgamma, otypes=[np.float64])(x) if len(x) else np.zeros(0)


# ---- rankings from a canonical stream -----------------------------------------------------

def ranking_from_rows(offsets, gold, pred, item, tie_policy: str):
    """A :class:`Ranking` from canonical rows (the marking ``convert --from trec`` writes):
    a row with a pred is retrieved, ordered by pred ascending, ties by item descending in
    byte order under the ``trec`` policy; gold empty = not in the qrels, negative = not
    judged; a row without pred but with gold is a judged document the run did not retrieve.
    Rows with neither are ignored. Returns (ranking, order of retrieved input rows)."""
    from ..batch import sort_within_groups
    from ..formats.trec.join import docno_words

    offsets = np.asarray(offsets, dtype=np.int64)
    q = len(offsets) - 1
    group = np.repeat(np.arange(q), np.diff(offsets))
    retrieved = ~np.isnan(pred)
    r_rows = np.flatnonzero(retrieved)
    r_offsets = offsets_from_sizes(np.bincount(group[r_rows], minlength=q))
    key = pred[r_rows]
    order = sort_within_groups(r_offsets, key)
    r_rows = r_rows[order]
    key = key[order]
    r_group = group[r_rows]
    tie = np.zeros(len(r_rows), dtype=bool)
    if len(r_rows) > 1:
        tie[1:] = (key[1:] == key[:-1]) & (r_group[1:] == r_group[:-1])
    block = np.cumsum(~tie) - 1
    if tie_policy == "trec" and tie.any():
        tied = tie.copy()
        tied[:-1] |= tie[1:]
        where = np.flatnonzero(tied)
        docno = np.array([s.encode("utf-8") for s in item[r_rows[where]]])
        words = docno_words(docno.astype(f"S{max(docno.dtype.itemsize, 1)}"))
        local = np.lexsort((*[~words[:, j] for j in range(words.shape[1] - 1, -1, -1)], block[where]))
        r_rows = r_rows.copy()
        r_rows[where] = r_rows[where][local]
    g = gold[r_rows]
    rel = np.where(np.isnan(g), NONPOOL, np.where(g < 0, UNJUDGED, g))
    judged = ~np.isnan(gold) & (gold >= 0)
    j_rows = np.flatnonzero(judged)
    j_rows = j_rows[np.lexsort((-gold[j_rows], group[j_rows]))]
    j_offsets = offsets_from_sizes(np.bincount(group[j_rows], minlength=q))
    return Ranking(r_offsets, rel, block, j_offsets, gold[j_rows]), r_rows


def ranking_from_joined(joined) -> Ranking:
    return Ranking(joined.offsets, joined.rel, joined.tie_block, joined.judged_offsets, joined.judged_grade,
                   joined.qrels_row, joined.judged_row)
