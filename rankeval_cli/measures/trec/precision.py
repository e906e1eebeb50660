"""Precision, recall and set measures: counts of relevant documents at cut-offs.

Notation as in :mod:`.counts`; rel@k = Σ_{i ≤ min(k, n)} r_i, num_rel_ret = Σ_i r_i over
judged documents.
"""

from __future__ import annotations

import numpy as np

from .counts import column
from .legacy import legacy_values
from .queries import default_nan
from .registry import ORDER_FREE, Param, measure, one_order, spelling
from .spell import CUTOFF_REQUIRED, JUDGED_ONLY, REL, common, trec_value

CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
INTERPOLATED = "interpolated precision is a maximum over the positions below a recall level"
NO_EXPECTED = "precision at multiples of R is computed in one order only"


def _divide(num, den) -> np.ndarray:
    """num / den where den ≠ 0, else 0 (trec_eval leaves such values at 0)."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    return np.divide(num, den, out=np.zeros(np.broadcast(num, den).shape), where=den != 0)


@measure("P", "m_P.c", kind="cutoffs", default=CUTOFFS, position=11, family="trec_eval")
def precision(qb, params):
    """P_k = rel@k / k (documents missing below n count as non-relevant)."""
    k = qb.cutoffs(params.values)
    return qb.rel_upto(k) / k


@precision.expected
def precision_expected(qb, params):
    return legacy_values(qb, "p", params.values)


@measure("recall", "m_recall.c", kind="cutoffs", default=CUTOFFS, position=13, family="trec_eval")
def recall(qb, params):
    """recall_k = rel@k / R (0 when R = 0)."""
    return _divide(qb.rel_upto(qb.cutoffs(params.values)), qb.num_rel[:, None])


@recall.expected
def recall_expected(qb, params):
    return legacy_values(qb, "recall", params.values)


@measure("relative_P", "m_rel_P.c", kind="cutoffs", default=CUTOFFS, position=28, family="trec_eval")
def relative_precision(qb, params):
    """relative_P_k = rel@k / min(k, R): precision over the best precision possible at k (0 when R = 0)."""
    k = qb.cutoffs(params.values)
    return _divide(qb.rel_upto(k), np.minimum(k, qb.num_rel[:, None]))


@relative_precision.expected
def relative_precision_expected(qb, params):
    """E[rel@k] / min(k, R), E[rel@k] = Σ_i r_i · (share of its tie block's places ≤ k)."""
    out = []
    for k in params.values:
        hits = np.bincount(qb.group, weights=(qb.rel >= qb.level) * qb.block_mean((qb.pos <= k).astype(np.float64)),
                           minlength=qb.n_queries)
        out.append(_divide(hits, np.minimum(k, qb.num_rel)))
    return np.stack(out, axis=1)


@measure("success", "m_success.c", kind="cutoffs", default=(1, 5, 10), position=29, family="trec_eval")
def success(qb, params):
    """success_k = 1 if rel@k > 0, else 0 (Tomlinson)."""
    return (qb.rel_upto(qb.cutoffs(params.values)) > 0).astype(np.float64)


@success.expected
def success_expected(qb, params):
    return legacy_values(qb, "success", params.values)


@measure("Rprec", "m_Rprec.c", position=7, family="trec_eval")
def r_precision(qb, params):
    """Rprec = rel@R / R: precision after R documents (0 when min(n, R) = 0)."""
    return column(_divide(qb.rel_upto(qb.num_rel) * (qb.num_ret > 0), qb.num_rel))


@r_precision.expected
def r_precision_expected(qb, params):
    return legacy_values(qb, "rprec", (None,))


@measure("Rprec_mult", "m_Rprec_mult.c", kind="fractions", default=(0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
         position=16, family="trec_eval", ties=one_order(NO_EXPECTED))
def r_precision_multiples(qb, params):
    """Rprec_mult_x = precision after c = ⌊x·R + 0.9⌋ documents: rel@c / c, or
    num_rel_ret / c when c > n (0 when c < 1)."""
    x = np.asarray(params.values, dtype=np.float64)[None, :]
    c = np.trunc(x * qb.num_rel.astype(np.float64)[:, None] + 0.9).astype(np.int64)
    # trec_eval counts down from num_rel_ret (see interpolated_precision): the same as rel@c
    # unless rows outside the qrels count as relevant (ℓ ≤ −1)
    shift = (np.diff(qb.relevant_rows.offsets) - qb.num_rel_ret)[:, None]
    hits = np.maximum(qb.rel_upto(np.maximum(c, 0)) - shift, 0)
    inside = _divide(hits, c) * (c >= 1)
    return np.where(c > qb.num_ret[:, None], _divide(qb.num_rel_ret[:, None], c), inside)


def _lround(v: np.ndarray) -> np.ndarray:
    """C's ``lround``: to the nearest integer, halves away from zero."""
    t = np.trunc(v)
    return (t + np.where(np.abs(v - t) >= 0.5, np.sign(v), 0.0)).astype(np.int64)


def recall_cutoffs(qb, fractions) -> np.ndarray:
    """(queries × fractions) numbers of relevant documents for recall fractions: lround(x·R)
    (trec_eval 10), ⌊x·R + 0.9⌋ (trec_eval 9)."""
    r = qb.num_rel.astype(np.float64)[:, None]
    x = np.asarray(fractions, dtype=np.float64)[None, :]
    if qb.version >= 10:
        return _lround(x * r)
    return np.trunc(x * r + 0.9).astype(np.int64)


def interpolated_precision(qb, fractions) -> np.ndarray:
    """(queries × fractions) interpolated precision at recall fractions: with P_j = j / r_j the
    precision at the j-th relevant document retrieved (at position r_j), IP_j = max_{j' ≥ j} P_j';
    for c = the fraction's number of relevant documents, IP_c if 1 ≤ c ≤ num_rel_ret, 0 if c >
    num_rel_ret, and for c ≤ 0 max(IP_1, num_rel_ret / n) (NaN when n = 0, as trec_eval's 0/0).

    trec_eval walks the ranking upwards from a count of num_rel_ret (judged relevant documents)
    taking one off at every row whose value is ≥ ℓ; with ℓ ≤ −1 rows outside the qrels take one
    off too (M such rows in all), so the j-th counts as j − (M − num_rel_ret) and the walk stops
    where that reaches 0: this is what is computed."""
    def compute():
        events = qb.relevant_rows
        m = np.diff(events.offsets)
        shift = (m - qb.num_rel_ret)[events.group]  # 0 unless rows outside the qrels count (ℓ ≤ −1)
        count = events.rank - shift
        p = np.where(count > 0, count / events.pos, -np.inf)
        suffix = _suffix_max(p, events.offsets)
        with np.errstate(invalid="ignore", divide="ignore"):
            base = np.where(qb.num_ret > 0, qb.num_rel_ret / np.maximum(qb.num_ret, 1), default_nan())
        top = np.where(qb.num_rel_ret > 0, suffix[np.minimum(events.offsets[:-1], max(len(suffix) - 1, 0))]
                       if len(suffix) else 0.0, base)
        return events, suffix, m - qb.num_rel_ret, top

    events, suffix, shift, top = qb.memo("interpolated_precision", compute)
    c = recall_cutoffs(qb, fractions)
    out = np.zeros(c.shape)
    for j in range(c.shape[1]):
        cj = c[:, j]
        inside = (cj >= 1) & (cj <= qb.num_rel_ret)
        at = events.offsets[:-1] + cj + shift - 1
        out[:, j] = np.where(cj <= 0, top, 0.0)
        out[inside, j] = suffix[at[inside]]
    return out


def _suffix_max(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Within each group, the maximum of the values from each row to the group's end."""
    from ..ties import padded_buckets

    out = np.empty(len(values), dtype=np.float64)
    for rows, valid in padded_buckets(offsets):
        m = np.where(valid, values[rows], -np.inf)[:, ::-1]
        out[rows[valid]] = np.maximum.accumulate(m, axis=1)[:, ::-1][valid]
    return out


@measure("iprec_at_recall", "m_iprec_at_recall.c", kind="fractions", default=RECALL_POINTS, position=10,
         family="trec_eval", ties=one_order(INTERPOLATED))
def iprec_at_recall(qb, params):
    """iprec_at_recall_x: interpolated precision (max precision at any later position) at the
    document where recall reaches x (trec_eval 10 rounds x·R to the nearest count, 9 adds
    0.9 and truncates); see :func:`interpolated_precision`."""
    return interpolated_precision(qb, params.values)


@measure("11pt_avg", "m_11pt_avg.c", kind="numbers", default=RECALL_POINTS, position=18, family="trec_eval",
         ties=one_order(INTERPOLATED))
def eleven_point_average(qb, params):
    """11pt_avg = mean of iprec_at_recall over the given recall points (default the 11 points
    0, 0.1, …, 1), added from the last point to the first."""
    if not params.values:
        raise ValueError("trec_eval.calc_m_11ptavg: No cutoff values")
    values = interpolated_precision(qb, params.values)
    total = np.zeros(qb.n_queries)
    for j in range(values.shape[1] - 1, -1, -1):
        total = total + values[:, j]
    return column(total / len(params.values))


@measure("set_P", "m_set_P.c", position=30, family="trec_eval", ties=ORDER_FREE)
def set_precision(qb, params):
    """set_P = num_rel_ret / n (0 when n = 0)."""
    return column(_divide(qb.num_rel_ret, qb.num_ret))


@measure("set_relative_P", "m_set_rel_P.c", position=31, family="trec_eval", ties=ORDER_FREE)
def set_relative_precision(qb, params):
    """set_relative_P = num_rel_ret / min(n, R) (0 when either is 0)."""
    return column(_divide(qb.num_rel_ret, np.minimum(qb.num_ret, qb.num_rel)))


@measure("set_recall", "m_set_recall.c", position=32, family="trec_eval", ties=ORDER_FREE)
def set_recall(qb, params):
    """set_recall = num_rel_ret / R (0 when R = 0)."""
    return column(_divide(qb.num_rel_ret, qb.num_rel))


@measure("set_map", "m_set_map.c", position=33, family="trec_eval", ties=ORDER_FREE)
def set_map(qb, params):
    """set_map = num_rel_ret² / (n · R) (0 when either is 0)."""
    rr = qb.num_rel_ret.astype(np.float64)
    return column(_divide(rr * rr, qb.num_ret.astype(np.float64) * qb.num_rel.astype(np.float64)))


@measure("set_F", "m_set_F.c", kind="numbers", default=(1.0,), position=34, family="trec_eval", ties=ORDER_FREE)
def set_f(qb, params):
    """set_F = (β + 1)·P·R / (β·P + R) with P = set_P, R = set_recall, β the parameter
    (default 1; van Rijsbergen 1979); 0 when num_rel_ret = 0."""
    beta = params.values[0]
    rr = qb.num_rel_ret.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = rr / qb.num_ret
        r = rr / qb.num_rel
        value = (beta + 1.0) * p * r / (beta * p + r)
    return column(np.where(qb.num_rel_ret > 0, value, 0.0))


@measure("utility", "m_utility.c", kind="numbers", default=(1.0, -1.0, 0.0, 0.0), position=17, family="trec_eval",
         ties=ORDER_FREE)
def utility(qb, params):
    """utility = p1·a + p2·b + p3·c + p4·d over the contingency table a = num_rel_ret,
    b = n − a, c = R − a, d = N − a − b − c (N = -N, the documents in the collection)."""
    if len(params.values) != 4:
        raise ValueError("trec_eval.calc_utility: improper number of coefficients")
    p1, p2, p3, p4 = params.values
    a, n, r = qb.num_rel_ret, qb.num_ret, qb.num_rel
    d = qb.num_docs_in_coll + a - n - r
    return column(p1 * a + p2 * (n - a) + p3 * (r - a) + p4 * d)


# ---- ir_measures' spellings -----------------------------------------------------------------

AT_K = (CUTOFF_REQUIRED, REL, JUDGED_ONLY)


@spelling("P", params=AT_K, at="cutoff", aliases=("Precision",), peer="pytrec_eval",
          examples=("P@5", "Precision@3", "P(rel=2)@5", "P(judged_only=True)@10"))
def _spell_p(name, p, version):
    return trec_value(name, "P", str(p["cutoff"]), version=version, **common(p))


@spelling("R", params=AT_K, at="cutoff", aliases=("Recall",), peer="pytrec_eval", examples=("R@10", "Recall@20"))
def _spell_r(name, p, version):
    return trec_value(name, "recall", str(p["cutoff"]), version=version, **common(p))


@spelling("Success", params=AT_K, at="cutoff", peer="pytrec_eval", examples=("Success@5", "Success(rel=2)@10"))
def _spell_success(name, p, version):
    return trec_value(name, "success", str(p["cutoff"]), version=version, **common(p))


@spelling("Rprec", params=(REL, JUDGED_ONLY), aliases=("RPrec",), peer="pytrec_eval",
          examples=("Rprec", "RPrec", "Rprec(rel=2)"))
def _spell_rprec(name, p, version):
    return trec_value(name, "Rprec", version=version, **common(p))


@spelling("IPrec", params=(Param("recall", "float", None, "the recall level", required=True, low=0), REL, JUDGED_ONLY),
          at="recall", peer="pytrec_eval", examples=("IPrec@0.5",))
def _spell_iprec(name, p, version):
    """IPrec@x: iprec_at_recall.x, computed as trec_eval 10 computes it (ir_measures' pytrec_eval,
    trec_eval 9.0.8, truncates x·R where trec_eval 10 rounds it)."""
    return trec_value(name, "iprec_at_recall", repr(p["recall"]), version=version, **common(p))


@spelling("SetP", params=(REL, Param("relative", "bool", False, "divide by min(n, R), not n"), JUDGED_ONLY),
          presets=(("SetRelP", {"relative": True}),), peer="pytrec_eval", examples=("SetP", "SetRelP"))
def _spell_set_p(name, p, version):
    return trec_value(name, "set_relative_P" if p["relative"] else "set_P", version=version, **common(p))


@spelling("SetR", params=(REL,), peer="pytrec_eval", examples=("SetR", "SetR(rel=2)"))
def _spell_set_r(name, p, version):
    return trec_value(name, "set_recall", version=version, **common(p))


@spelling("SetF", params=(REL, Param("beta", "float", 1.0, "the weight of recall against precision"), JUDGED_ONLY),
          peer="pytrec_eval", examples=("SetF", "SetF(beta=0.5)"))
def _spell_set_f(name, p, version):
    return trec_value(name, "set_F", repr(p["beta"]), version=version, **common(p))


@spelling("SetAP", params=(REL, JUDGED_ONLY), peer="pytrec_eval")
def _spell_set_ap(name, p, version):
    return trec_value(name, "set_map", version=version, **common(p))
