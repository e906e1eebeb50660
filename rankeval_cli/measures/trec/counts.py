"""Counts and strings: what a run retrieved and what the qrels hold.

Notation (here and in the other families): n = documents retrieved, R = judged documents
with grade ≥ ℓ, r_i = 1 if the document at position i has relevance value ≥ ℓ, rel_i its
relevance value (−1 not in the qrels, −2 in the pool but unjudged).
"""

from __future__ import annotations

import numpy as np

from .queries import NONPOOL, UNJUDGED
from .registry import ORDER_FREE, measure, one_order, spelling
from .spell import REL, trec_value


def column(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float64)[:, None]


@measure("runid", "m_runid.c", summary="runid", value="str", per_query=False, reads="any", position=0, ties=ORDER_FREE,
         family="trec_eval", better="none")
def runid(batch, params):
    """The run's tag (the sixth field of the run's last line); printed once, for ``all``."""
    return None


@measure("num_q", "m_num_q.c", summary="queries", value="int", per_query=False, reads="any", position=1,
         ties=ORDER_FREE, family="trec_eval", better="none")
def num_q(batch, params):
    """Number of queries averaged over (with -c: the queries of the qrels)."""
    return np.ones((batch.n_queries, 1))


@measure("num_ret", "m_num_ret.c", summary="sum", value="int", position=2, ties=ORDER_FREE,
         family="trec_eval", better="none")
def num_ret(qb, params):
    """n, summed over queries."""
    return column(qb.num_ret)


@measure("num_rel", "m_num_rel.c", summary="sum", value="int", position=3, ties=ORDER_FREE,
         family="trec_eval", better="none")
def num_rel(qb, params):
    """R, summed over queries (with -c: every qrels judgment with grade > 0, whatever ℓ)."""
    return column(qb.num_rel)


@measure("num_rel_ret", "m_num_rel_ret.c", summary="sum", value="int", position=4, ties=ORDER_FREE,
         family="trec_eval", better="none")
def num_rel_ret(qb, params):
    """Σ_i r_i over judged documents, summed over queries."""
    return column(qb.num_rel_ret)


@measure("num_nonrel_judged_ret", "m_num_nonrel_judged_ret.c", summary="sum", value="int", position=35, ties=ORDER_FREE,
         family="trec_eval", better="none")
def num_nonrel_judged_ret(qb, params):
    """Retrieved documents judged with 0 ≤ grade < ℓ: n − nonpool − unjudged − num_rel_ret."""
    return column(qb.num_ret - qb.num_nonpool - qb.num_unjudged_in_pool - qb.num_rel_ret)


@measure("relstring", "m_relstring.c", kind="numbers", default=(10.0,), summary="none", value="str", position=12,
         family="trec_eval", better="none",
         ties=one_order("a string of the first N relevance values, in one order"))
def relstring(qb, params):
    """The relevance values of the first N retrieved documents (default 10) as a string: the
    grade for 0–9, ``>`` above 9, ``-`` not in the qrels, ``.`` in the pool but unjudged,
    ``<`` any other value. Printed per query only, between single quotes."""
    length = max(_c_long(params.values[0]) if params.values else 0, 0)  # C's (long) cast truncates
    shown = np.minimum(qb.num_ret, length)
    rows = np.repeat(qb.offsets[:-1], shown) + np.arange(int(shown.sum())) - \
        np.repeat(np.concatenate(([0], np.cumsum(shown)))[:-1], shown)
    rel = qb.rel[rows]
    chars = np.full(len(rel), ord("<"), dtype=np.uint8)
    grade = (rel >= 0) & (rel <= 9)
    chars[grade] = (ord("0") + rel[grade]).astype(np.uint8)
    chars[rel > 9] = ord(">")
    chars[rel == NONPOOL] = ord("-")
    chars[rel == UNJUDGED] = ord(".")
    text = chars.tobytes().decode("ascii")
    ends = np.cumsum(shown)
    return [text[a:b] for a, b in zip((ends - shown).tolist(), ends.tolist())]


def _c_long(x: float) -> int:
    """C's (long) cast of a double: truncation toward zero (0 for NaN, clamped)."""
    import math

    if math.isnan(x):
        return 0
    return int(max(min(x, 2.0 ** 62), -2.0 ** 62))


@measure("unj", "m_unjudged.c", kind="cutoffs", default=(5, 10, 20), since=10, position=56, family="trec_eval",
         better="lower")
def unj(qb, params):
    """unj_k = (documents not judged among the first min(k, n)) / k: those with rel_i < 0."""
    judged = qb.memo("judged_rows", lambda: qb.pooled_where(qb.p_rel >= 0, np.zeros(int((qb.p_rel >= 0).sum()))))
    k = qb.cutoffs(params.values)
    top = np.minimum(k, qb.num_ret[:, None])
    return (top - judged.count_upto(top)) / k


@unj.expected
def unj_expected(qb, params):
    """E[unj_k] = Σ_i [rel_i < 0] · E[position of i ≤ k] / k: each row's chance to sit in the
    first k is the mean of [pos ≤ k] over its tie block."""
    out = np.zeros((qb.n_queries, len(params.values)))
    unjudged = (qb.rel < 0).astype(np.float64)
    for j, k in enumerate(params.values):
        inside = qb.block_mean((qb.pos <= k).astype(np.float64))
        out[:, j] = np.bincount(qb.group, weights=unjudged * inside, minlength=qb.n_queries) / k
    return out


# ---- ir_measures' spellings -----------------------------------------------------------------

@spelling("NumQ", peer="pytrec_eval")
def _spell_num_q(name, p, version):
    return trec_value(name, "num_q", version=version)


@spelling("NumRel", params=(REL,), peer="pytrec_eval", examples=("NumRel", "NumRel(rel=2)"))
def _spell_num_rel(name, p, version):
    return trec_value(name, "num_rel", version=version, rel_level=p["rel"])


@spelling("NumRet", params=(REL,), presets=(("NumRelRet", {"rel": 1}),), peer="pytrec_eval",
          examples=("NumRet", "NumRelRet", "NumRet(rel=2)"))
def _spell_num_ret(name, p, version):
    """NumRet: num_ret; with ``rel``: num_rel_ret at that level."""
    return trec_value(name, "num_ret" if p["rel"] is None else "num_rel_ret", version=version, rel_level=p["rel"])
