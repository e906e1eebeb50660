"""Diversity measures of the TREC Web track (2009–2014), as ndeval computes them (``ndeval.c``,
version 4.5, the C program pyndeval ships and ir_measures runs): intent-aware measures over
diversity qrels (``qid subtopic docno judgment``; Agrawal et al. 2009).

Notation of :mod:`.diversity_batch`: G_i the gain at position i, S the query's subtopics with
a relevant document, R_j those of subtopic j, n the documents retrieved, k the cut-off (none:
k = n), II_k = Σ_{i≤k} S (1 − α)^{i−1} d_i, the "ideal ideal" sum for discounts d_i. With
ndeval: every value is 0 when S = 0; at k = 1 alpha-DCG and ERR-IA are not normalized (ndeval
divides from the second position on); a normalized value (nDCG, nERR) is 0 when the run gains
nothing in the first k; ndeval computes k ≤ 20, rankeval any k.
"""

from __future__ import annotations

import numpy as np

from ..trec.queries import Events
from ..trec.registry import Param, measure, spelling
from ..trec.spell import CUTOFF, JUDGED_ONLY, REL, common, named_value
from .diversity_batch import discount, powers
from .diversity_ties import expected_ap_totals, expected_coverage, expected_gains, expected_pair_count

ALPHA = Param("alpha", "float", 0.5, "redundancy intolerance α (0 ≤ α ≤ 1)", low=0.0)
BETA = Param("beta", "float", 0.5, "patience β of NRBP (0 ≤ β ≤ 1)", low=0.0)
SOURCE = "ndeval 4.5 (TREC Web track)"
DIVERSITY = dict(kind="named", reads="diversity", in_trec_eval=False, family="diversity")


def _ideal_ideal(S: np.ndarray, k: np.ndarray, alpha: float, weight: np.ndarray) -> np.ndarray:
    """II_k of every query: Σ_{i≤k} S (1 − α)^{i−1} weight_i, the gain multiplied factor after factor
    from (double) S and the sum formed term after term, as ndeval's computeDCG and computeERR."""
    out = np.zeros(len(S))
    top = int(k.max()) if len(k) else 0
    for s in np.unique(S).tolist():
        gain, total, table = float(s), 0.0, np.zeros(top + 1)
        for i in range(1, top + 1):
            total += gain * weight[i]
            table[i] = total
            gain *= 1.0 - alpha
        rows = S == s
        out[rows] = table[k[rows]]
    return out


def _weights(kind: str, top: int) -> np.ndarray:
    """d_i of position i = 1 … top: log(2)/log(i + 1) (alpha-DCG) or 1/i (ERR-IA)."""
    if kind == "dcg":
        return discount(top)[:top + 1]
    return np.r_[0.0, 1.0 / np.arange(1, top + 1, dtype=np.float64)]


def _summed(batch, gains: Events, kind: str, k: np.ndarray) -> np.ndarray:
    """Σ_{i≤k} G_i d_i of every query (the weighted events kept for the batch's other measures)."""
    def weighted():
        top = int(gains.pos.max()) if len(gains.pos) else 0
        return Events(gains.group, gains.pos, gains.terms * _weights(kind, top)[gains.pos], gains.n_queries)
    return batch.memo(("weighted", id(gains), kind), weighted).upto(k)


def normalized(batch, alpha: float, cutoff, kind: str):
    """(the run's Σ_{i≤k} G_i d_i / II_k, the ideal ranking's, the run's sum): ndeval's dcg[k] and
    err[k] of run and ideal (not divided at k = 1; 0 where S = 0)."""
    k = batch.depth(cutoff)
    gains = expected_gains(batch, alpha) if batch.expected else batch.gains(alpha)
    run = _summed(batch, gains, kind, k)
    ideal = _summed(batch, batch.ideal(alpha), kind, k)
    ii = _ideal_ideal(batch.S, np.maximum(k, 1), alpha, _weights(kind, int(max(k.max(initial=1), 1))))
    divide = (k >= 2) & (batch.S > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        run_n = np.where(divide, run / np.where(divide, ii, 1.0), run)
        ideal_n = np.where(divide, ideal / np.where(divide, ii, 1.0), ideal)
    zero = batch.S == 0
    return np.where(zero, 0.0, run_n), np.where(zero, 0.0, ideal_n), np.where(zero, 0.0, run)


def ratio(run_n, ideal_n, run) -> np.ndarray:
    """run / ideal where the run gains (ndeval's ``if (rl->dcg[i])``), else 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(run != 0, run_n / np.where(run != 0, ideal_n, 1.0), 0.0)


def nrbp(batch, alpha: float, beta: float, ideal: bool = False) -> np.ndarray:
    """NRBP = (1 − (1 − α)β)/S · Σ_i G_i β^{i−1} over the whole ranking (0 where S = 0)."""
    gains = batch.ideal(alpha) if ideal else (expected_gains(batch, alpha) if batch.expected else batch.gains(alpha))
    top = int(gains.pos.max()) if len(gains.pos) else 0
    decay = powers(beta, top)
    total = Events(gains.group, gains.pos, gains.terms * decay[gains.pos - 1], gains.n_queries).total
    S = batch.S
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(S > 0, total * ((1.0 - (1.0 - alpha) * beta) / np.where(S > 0, S, 1)), 0.0)


def nnrbp(batch, alpha: float, beta: float) -> np.ndarray:
    """nNRBP = NRBP of the run / NRBP of the ideal ranking: NaN where S = 0 (ndeval's 0/0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.divide(nrbp(batch, alpha, beta), nrbp(batch, alpha, beta, ideal=True))


def _column(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float64)[:, None]


def _p(params, name):
    return params.named()[name]


@measure("alpha_dcg", SOURCE, named=(CUTOFF, ALPHA), **DIVERSITY)
def alpha_dcg(batch, params):
    """alpha-DCG@k = Σ_{i≤k} G_i / log2(i + 1), divided by II_k (Clarke et al. 2008, eq. 5 and 6,
    with ndeval's "ideal ideal" normalization; not divided at k = 1)."""
    return _column(normalized(batch, _p(params, "alpha"), _p(params, "cutoff"), "dcg")[0])


@measure("alpha_ndcg", SOURCE, named=(CUTOFF, ALPHA), **DIVERSITY)
def alpha_ndcg(batch, params):
    """alpha-nDCG@k = alpha-DCG@k of the run / alpha-DCG@k of ndeval's greedy ideal ranking (Clarke et
    al. 2008, eq. 6); 0 when the run gains nothing in the first k."""
    return _column(ratio(*normalized(batch, _p(params, "alpha"), _p(params, "cutoff"), "dcg")))


@measure("err_ia", SOURCE, named=(CUTOFF, ALPHA), **DIVERSITY)
def err_ia(batch, params):
    """ERR-IA@k as ndeval computes it: Σ_{i≤k} G_i / i, divided by II_k with d_i = 1/i (Chapelle et al.
    2009 intent-aware, with ndeval's gains and normalization; not divided at k = 1)."""
    return _column(normalized(batch, _p(params, "alpha"), _p(params, "cutoff"), "err")[0])


@measure("nerr_ia", SOURCE, named=(CUTOFF, ALPHA), **DIVERSITY)
def nerr_ia(batch, params):
    """nERR-IA@k = ERR-IA@k of the run / ERR-IA@k of the ideal ranking; 0 when the run gains nothing
    in the first k."""
    return _column(ratio(*normalized(batch, _p(params, "alpha"), _p(params, "cutoff"), "err")))


@measure("nrbp", SOURCE, named=(ALPHA, BETA), **DIVERSITY)
def novelty_rbp(batch, params):
    """NRBP = (1 − (1 − α)β)/S · Σ_i G_i β^{i−1} over the whole ranking (Clarke, Kolla & Vechtomova
    2009, eq. 9)."""
    return _column(nrbp(batch, _p(params, "alpha"), _p(params, "beta")))


@measure("nnrbp", SOURCE, named=(ALPHA, BETA), **DIVERSITY)
def normalized_nrbp(batch, params):
    """nNRBP = NRBP of the run / NRBP of the ideal ranking (Clarke, Kolla & Vechtomova 2009); 0 where
    S = 0 (ndeval: 0/0)."""
    return _column(np.nan_to_num(nnrbp(batch, _p(params, "alpha"), _p(params, "beta")), nan=0.0))


def _ap_totals(batch) -> np.ndarray:
    """Per subtopic j: Σ_{i relevant to j} (documents relevant to j up to i)/i, added in rank order."""
    row, gsub, c = batch.pairs
    order = np.lexsort((row, gsub))
    terms = (c[order] + 1) / batch.pos[row[order]]
    return np.bincount(gsub[order], weights=terms, minlength=len(batch.nrel))


def ap_ia(batch) -> np.ndarray:
    """AP-IA = (1/S) Σ_{j: R_j > 0} (1/R_j) Σ_{i relevant to j} c_j(i + 1)/i (ndeval's MAP-IA)."""
    total = expected_ap_totals(batch) if batch.expected else _ap_totals(batch)
    per_sub = np.divide(total, batch.nrel, out=np.zeros(len(total)), where=batch.nrel > 0)
    owner = np.repeat(np.arange(batch.n_queries), np.diff(batch.sub_base))
    summed = np.bincount(owner, weights=per_sub, minlength=batch.n_queries)
    S = batch.S
    return np.divide(summed, S, out=np.zeros(batch.n_queries), where=S > 0)


@measure("ap_ia", SOURCE, **DIVERSITY)
def intent_aware_ap(batch, params):
    """AP-IA = (1/S) Σ_{j: R_j > 0} AP_j, AP_j = (1/R_j) Σ_{i relevant to j} (documents relevant to j
    up to i)/i (Agrawal et al. 2009; ndeval's MAP-IA)."""
    return _column(ap_ia(batch))


def p_ia(batch, cutoff) -> np.ndarray:
    """P-IA@k = (relevant (document, subtopic) pairs in the first k) / (k S)."""
    k = batch.depth(cutoff)
    if batch.expected:
        count = expected_pair_count(batch, k)
    else:
        row, _, _ = batch.pairs
        inside = batch.pos[row] <= k[batch.group[row]]
        count = np.bincount(batch.group[row][inside], minlength=batch.n_queries)
    den = (k * batch.S).astype(np.float64)
    return np.divide(count, den, out=np.zeros(batch.n_queries), where=den > 0)


@measure("p_ia", SOURCE, named=(CUTOFF,), **DIVERSITY)
def intent_aware_precision(batch, params):
    """P-IA@k = (1/S) Σ_j P_j@k = (relevant (document, subtopic) pairs in the first k) / (k S)
    (Agrawal et al. 2009; ndeval's P-IA)."""
    return _column(p_ia(batch, _p(params, "cutoff")))


def subtopic_recall(batch, cutoff) -> np.ndarray:
    """S-recall@k = (subtopics with a relevant document in the first k) / S."""
    k = batch.depth(cutoff)
    if batch.expected:
        covered = expected_coverage(batch, k)
    else:
        row, _, c = batch.pairs
        first = row[c == 0]
        covered = np.bincount(batch.group[first][batch.pos[first] <= k[batch.group[first]]],
                              minlength=batch.n_queries)
    return np.divide(covered, batch.S, out=np.zeros(batch.n_queries), where=batch.S > 0)


@measure("strec", SOURCE, named=(CUTOFF,), **DIVERSITY)
def strec(batch, params):
    """S-recall@k = (subtopics with a relevant document in the first k) / S (Zhai, Cohen & Lafferty
    2003; ndeval's strec)."""
    return _column(subtopic_recall(batch, _p(params, "cutoff")))


# ---- the expected tie policy: the same kernels on the batch with expected=True -------------------

for _kernel in (alpha_dcg, alpha_ndcg, err_ia, nerr_ia, novelty_rbp, normalized_nrbp, intent_aware_ap,
                intent_aware_precision, strec):
    _kernel.expected(_kernel)


# ---- ir_measures' spellings (pyndeval's provider) ----------------------------------------------

def _spelled(name: str, root: str, params: tuple, at: str | None = "cutoff", aliases=(), examples=()):
    def resolve(spelled, p, version):
        return named_value(spelled, root, p, **common(p))
    spelling(name, params=params, at=at, aliases=aliases, peer="pyndeval", examples=examples or (name,))(resolve)


_spelled("alpha_DCG", "alpha_dcg", (CUTOFF, REL, ALPHA, JUDGED_ONLY), aliases=("α_DCG",),
         examples=("alpha_DCG@10", "alpha_DCG(alpha=0.8)@5", "α_DCG@20"))
_spelled("alpha_nDCG", "alpha_ndcg", (CUTOFF, REL, ALPHA, JUDGED_ONLY), aliases=("α_nDCG",),
         examples=("alpha_nDCG@20", "alpha_nDCG(judged_only=True)@10", "alpha_nDCG(rel=2)@5", "alpha_nDCG@1"))
_spelled("ERR_IA", "err_ia", (CUTOFF, REL, JUDGED_ONLY, ALPHA), examples=("ERR_IA@20", "ERR_IA@1"))
_spelled("nERR_IA", "nerr_ia", (CUTOFF, REL, JUDGED_ONLY, ALPHA), examples=("nERR_IA@10", "nERR_IA(rel=2)@20"))
_spelled("NRBP", "nrbp", (REL, ALPHA, BETA), at=None, examples=("NRBP", "NRBP(alpha=0.3,beta=0.8)"))
_spelled("nNRBP", "nnrbp", (REL, ALPHA, BETA), at=None, examples=("nNRBP", "nNRBP(beta=0.9)"))
_spelled("AP_IA", "ap_ia", (REL, JUDGED_ONLY), at=None, aliases=("MAP_IA",), examples=("AP_IA", "MAP_IA"))
_spelled("P_IA", "p_ia", (CUTOFF, REL, JUDGED_ONLY), examples=("P_IA@5", "P_IA@20"))
_spelled("StRecall", "strec", (CUTOFF, REL), examples=("StRecall@10", "StRecall(rel=2)@5"))
