"""Average precision and its kin: measures summed over the relevant documents retrieved.

Notation as in :mod:`.counts`; p_i = the position of a relevant document, c_i = the
relevant documents up to and including it, so that c_i / p_i is the precision there.
"""

from __future__ import annotations

import numpy as np

from .counts import column
from .legacy import legacy_values
from .queries import UNJUDGED, Events, c_log
from .registry import measure, one_order, spelling
from .spell import CUTOFF, JUDGED_ONLY, REL, common, trec_value
from .precision import CUTOFFS

#: trec_eval's floor for a value before its logarithm (MIN_GEO_MEAN)
MIN_GEO_MEAN = 0.00001
INFAP_EPSILON = 0.00001
GEOMETRIC = "a logarithm of AP"
BPREF = "each relevant document's term counts the judged non-relevant documents above it"
INFERRED = "inferred AP's terms are ratios of counts above each document"
BING = "binG's discount counts the non-relevant documents above each relevant one"


def _ap_events(qb):
    """The relevant rows with their terms c_i / p_i, shared by map, gm_map, map_cut, yaap."""
    def compute():
        rows = qb.relevant_rows
        return Events(rows.group, rows.pos, rows.rank / rows.pos, qb.n_queries)
    return qb.memo("ap_events", compute)


def _ap(qb) -> np.ndarray:
    """Σ_i c_i / p_i / R where a relevant document was retrieved, else 0 (``m_map.c``)."""
    events = _ap_events(qb)
    found = np.diff(events.offsets) > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(found, events.total / qb.num_rel, 0.0)


@measure("map", "m_map.c", position=5, family="trec_eval")
def average_precision(qb, params):
    """AP = (1/R) Σ_{relevant i} c_i / p_i (Buckley & Voorhees 2005); 0 without a relevant
    document retrieved."""
    return column(_ap(qb))


@average_precision.expected
def average_precision_expected(qb, params):
    return legacy_values(qb, "ap", (None,))


@measure("gm_map", "m_gm_map.c", summary="gmean", per_query=False, position=6, family="trec_eval",
         ties=one_order(GEOMETRIC))
def geometric_map(qb, params):
    """gm_map: per query log(max(AP, 0.00001)); over queries exp of their mean (the
    geometric mean); printed for ``all`` only."""
    events = _ap_events(qb)
    found = np.diff(events.offsets) > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        ap = np.where(found, events.total / qb.num_rel, events.total)
    return column(c_log(np.maximum(ap, MIN_GEO_MEAN)))


@measure("map_cut", "m_map_cut.c", kind="cutoffs", default=CUTOFFS, position=27, family="trec_eval")
def average_precision_cut(qb, params):
    """map_cut_k = (1/R) Σ_{relevant i, p_i ≤ k} c_i / p_i (0 when R = 0)."""
    events = _ap_events(qb)
    r = qb.num_rel[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(r > 0, events.upto(qb.cutoffs(params.values)) / r, 0.0)


@average_precision_cut.expected
def average_precision_cut_expected(qb, params):
    return legacy_values(qb, "ap", params.values)


@measure("recip_rank", "m_recip_rank.c", position=9, family="trec_eval")
def reciprocal_rank(qb, params):
    """RR = 1 / p_1, the position of the first relevant document (0 without one)."""
    rows = qb.relevant_rows
    first = rows.rank == 1
    out = np.zeros(qb.n_queries)
    out[rows.group[first]] = 1.0 / rows.pos[first]
    return column(out)


@reciprocal_rank.expected
def reciprocal_rank_expected(qb, params):
    return legacy_values(qb, "rr", (None,))


def _bpref(qb) -> np.ndarray:
    """bpref per query (``m_bpref.c``)."""
    judged = qb.p_rel >= 0
    nonrel = judged & (qb.p_rel < qb.level)
    relevant = judged & ~nonrel
    above = qb.before(nonrel)[relevant]
    group = qb.p_group[relevant]
    r, n = qb.num_rel[group], qb.num_nonrel[group]
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(above > 0, 1.0 - np.minimum(above, r) / np.minimum(n, r).astype(np.float64), 1.0)
    total = qb.pooled_where(relevant, term).total
    return np.divide(total, qb.num_rel, out=total.copy(), where=qb.num_rel != 0)


@measure("bpref", "m_bpref.c", position=8, family="trec_eval", ties=one_order(BPREF))
def bpref(qb, params):
    """bpref = (1/R) Σ_{relevant i} (1 − min(m_i, R) / min(N, R)), m_i = judged non-relevant
    documents above i (a term is 1 when m_i = 0), N = judged non-relevant documents;
    unjudged documents are skipped (Buckley & Voorhees 2004)."""
    return column(_bpref(qb))


@measure("gm_bpref", "m_gm_bpref.c", summary="gmean", per_query=False, position=15, family="trec_eval",
         ties=one_order(BPREF))
def geometric_bpref(qb, params):
    """gm_bpref: bpref averaged by the geometric mean (log(max(bpref, 0.00001)) per query)."""
    return column(c_log(np.maximum(_bpref(qb), MIN_GEO_MEAN)))


@measure("infAP", "m_infap.c", position=14, family="trec_eval", ties=one_order(INFERRED))
def inferred_ap(qb, params):
    """infAP (Yilmaz & Aslam 2006): over the relevant documents i (0-based position j, after
    c − 1 relevant, m non-relevant and u unjudged-in-pool documents above, documents outside
    the pool skipped), (1/R) Σ_i [1 if j = 0, else 1/(j+1) + (j/(j+1)) · ((c−1+m+u)/j) ·
    ((c−1+ε)/(c−1+m+2ε))], ε = 0.00001."""
    judged = qb.p_rel >= 0
    nonrel = judged & (qb.p_rel < qb.level)
    relevant = judged & ~nonrel
    c1 = qb.before(relevant)[relevant]  # relevant above: c − 1
    m = qb.before(nonrel)[relevant]
    u = qb.before(qb.p_rel == UNJUDGED)[relevant]
    j = (qb.p_pos[relevant] - 1).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((c1 + m + u) / j) * \
            ((c1 + INFAP_EPSILON) / ((c1 + m) + 2 * INFAP_EPSILON))
    term = np.where(j == 0, 1.0, term)
    total = qb.pooled_where(relevant, term).total
    return column(np.divide(total, qb.num_rel, out=total.copy(), where=qb.num_rel != 0))


@measure("yaap", "m_yaap.c", position=53, family="trec_eval", ties=one_order(GEOMETRIC))
def yet_another_ap(qb, params):
    """yaap = log((1 + S) / (1 + R − S)), S = Σ_{relevant i} c_i / p_i (Robertson 2008)."""
    s = _ap_events(qb).total
    with np.errstate(divide="ignore", invalid="ignore"):
        return column(c_log((1.0 + s) / (1.0 + qb.num_rel.astype(np.float64) - s)))


@measure("binG", "m_binG.c", position=19, family="trec_eval", ties=one_order(BING))
def binary_g(qb, params):
    """binG = (1/R) Σ_{relevant i} 1 / log2(2 + m_i + 1), m_i = documents not relevant above i
    (experimental, Buckley 2008); 0 without a relevant document retrieved."""
    rows = qb.relevant_rows
    events = qb.memo("binG", lambda: Events(rows.group, rows.pos, 1.0 / qb.log2(2 + rows.pos - rows.rank),
                                            qb.n_queries))
    found = np.diff(events.offsets) > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        return column(np.where(found, events.total / qb.num_rel, 0.0))



@measure("rr_cut", "rankeval (ir_measures' RR@k)", kind="cutoffs", default=(10,), in_trec_eval=False,
         family="rankeval")
def reciprocal_rank_cut(qb, params):
    """RR@k = 1 / p_1 when the first relevant document is at p_1 ≤ k, else 0 (ir_measures;
    trec_eval's recip_rank has no cut-off)."""
    rows = qb.relevant_rows
    first = rows.rank == 1
    pos = np.full(qb.n_queries, np.inf)
    pos[rows.group[first]] = rows.pos[first]
    k = qb.cutoffs(params.values)
    return np.where(pos[:, None] <= k, 1.0 / pos[:, None], 0.0)


@reciprocal_rank_cut.expected
def reciprocal_rank_cut_expected(qb, params):
    return legacy_values(qb, "rr", params.values)


# ---- ir_measures' spellings -----------------------------------------------------------------

@spelling("AP", params=(CUTOFF, REL, JUDGED_ONLY), at="cutoff", aliases=("MAP",), peer="pytrec_eval",
          examples=("AP", "MAP", "AP@10", "AP(rel=2)", "AP(judged_only=True)"))
def _spell_ap(name, p, version):
    """AP: map; AP@k: map_cut.k."""
    if p["cutoff"] is None:
        return trec_value(name, "map", version=version, **common(p))
    return trec_value(name, "map_cut", str(p["cutoff"]), version=version, **common(p))


@spelling("RR", params=(CUTOFF, REL, JUDGED_ONLY), at="cutoff", aliases=("MRR",), peer="pytrec_eval",
          examples=("RR", "MRR", "RR(rel=2)", "RR@10"))
def _spell_rr(name, p, version):
    """RR: recip_rank; RR@k: rankeval's rr_cut (ir_measures computes it with its msmarco provider)."""
    if p["cutoff"] is None:
        return trec_value(name, "recip_rank", version=version, **common(p))
    return trec_value(name, "rr_cut", str(p["cutoff"]), version=version, **common(p))


@spelling("Bpref", params=(REL,), aliases=("BPref",), peer="pytrec_eval", examples=("Bpref", "BPref"))
def _spell_bpref(name, p, version):
    return trec_value(name, "bpref", version=version, **common(p))


@spelling("infAP", params=(REL,), peer="pytrec_eval")
def _spell_infap(name, p, version):
    return trec_value(name, "infAP", version=version, **common(p))
