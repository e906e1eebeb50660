"""Gain-based measures: DCG and nDCG (Järvelin & Kekäläinen 2002), their cut-off, R-level and
relevant-document variants, G and binG's kin, rank-biased precision (Moffat & Zobel 2008).

**Gains** (trec_eval's ``gain_init.c``). A document's gain is its grade unless the measure's
parameters say ``grade=gain`` (``ndcg.1=3,2=9``; names that are not integers are skipped by
trec_eval 10, read as 0 by 9). trec_eval builds, per query, a table of the parameter pairs in
the order given, then the grades 0 … (highest judged grade) not named, each with its number of
judged documents, and sorts it by gain with C's ``qsort`` and the comparison ``(int)(g₁ − g₂)``:
gains less than 1 apart compare equal, so their order is the one glibc's merge sort leaves, which
:func:`glibc_msort` reproduces. A retrieved document takes the gain of the first table entry of its
grade (0 if none). The **ideal ranking** walks the table from its end: the judged documents of each
entry with documents, gain after gain, until an entry with documents and a gain ≤ 0 (nothing at
all when the last entry's gain is ≤ 0).

With g_i the gain at position i (1-based) of the run and g*_j of the ideal ranking (L entries),
DCG@k = Σ_{i ≤ k, g_i ≠ 0} g_i / log2(i + 1), IDCG@k the same over g*.
"""

from __future__ import annotations

import math

import numpy as np

from ...batch import distinct
from .counts import column
from .params import c_atol
from .legacy import legacy_values
from .queries import Events
from .registry import ORDER_FREE, Param, measure, one_order, spelling
from .spell import CUTOFF, JUDGED_ONLY, named_value, trec_value
from .precision import CUTOFFS

AVERAGED = "nDCG averaged over positions that the ranking chooses"
G_NOTE = "G's discount depends on the gains above each document"


def _valid_int(text: str) -> bool:
    """trec_eval 10's ``valid_int``: an optional sign, then one or more digits."""
    body = text[1:] if text[:1] in ("-", "+") else text
    return body != "" and all("0" <= ch <= "9" for ch in body)


def _c_int(x: float) -> int:
    """C's conversion of a double to ``int``: truncation toward zero."""
    return int(x) if math.isfinite(x) else 0


def glibc_msort(items: list, compare) -> list:
    """glibc's ``qsort`` for small arrays: a top-down merge sort (halves of n//2 and the rest,
    the left element taken while ``compare(left, right) <= 0``), so equal elements keep their order."""
    if len(items) <= 1:
        return list(items)
    half = len(items) // 2
    left, right = glibc_msort(items[:half], compare), glibc_msort(items[half:], compare)
    out, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        if compare(left[i], right[j]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def gain_table(pairs, levels: int, version: int = 10):
    """The sorted gain table of a query with ``levels`` = 1 + its highest judged grade:
    ``(grades, gains, counted)`` per entry, ``counted`` = the entry holds the documents of its grade."""
    entries = []  # (grade, gain, counted)
    seen = set()
    for name, value in pairs:
        if version >= 10 and not _valid_int(name):
            continue
        grade = c_atol(name)
        counted = 0 <= grade < levels and grade not in seen
        seen.add(grade)
        entries.append((grade, float(value), counted))
    for grade in range(levels):
        if grade not in seen:
            entries.append((grade, float(grade), True))
    ordered = glibc_msort(entries, lambda a, b: _c_int(a[1] - b[1]))
    return (np.array([e[0] for e in ordered], dtype=np.int64), np.array([e[1] for e in ordered], dtype=np.float64),
            np.array([e[2] for e in ordered], dtype=bool))


class Gains:
    """Per batch, for one parameter list: the gains of the retrieved rows (``group``, ``pos``,
    ``gain`` over the pooled rows, or every row when a gain is given to documents in no qrels)
    and the ideal rankings (``ideal_group``, ``ideal_pos``, ``ideal_gain``, ``ideal_length``)."""

    def __init__(self, qb, pairs, normalize: bool = False, walk: str = "ndcg"):
        self.qb = qb
        tables = {}
        for levels in distinct(qb.num_rel_levels).tolist():
            grades, g, counted = gain_table(pairs, levels, qb.version)
            if normalize:  # rbp: gains into [0, 1]; trec_eval starts min and max unset (taken as 0)
                low, high = min(0.0, g.min(initial=0.0)), max(0.0, g.max(initial=0.0))
                if low < 0 or high > 1:
                    g = (g - low) / (high - low)
            tables[levels] = (grades, g, counted)
        first_gain = [dict(reversed(list(zip(t[0].tolist(), t[1].tolist())))) for t in tables.values()]
        every_row = any(f.get(-1, 0.0) != 0.0 for f in first_gain)
        if every_row:
            self.group, self.pos, rel = qb.group, qb.pos, qb.rel
        else:
            self.group, self.pos, rel = qb.p_group, qb.p_pos, qb.p_rel
        self.gain = np.zeros(len(rel))
        groups, gains = [], []
        for levels, (grades, g, counted) in tables.items():
            queries = np.flatnonzero(qb.num_rel_levels == levels)
            self._row_gains(queries, rel, grades, g)
            per_query = np.stack([qb.level_count(int(v)) for v in grades], axis=1)[queries] if len(grades) else \
                np.zeros((len(queries), 0), dtype=np.int64)
            emit = self._ideal_counts(per_query * counted[None, :], g, walk)
            groups.append(np.repeat(np.repeat(queries, len(g)), emit.ravel()))
            gains.append(np.repeat(np.tile(g[::-1], len(queries)), emit.ravel()))
        group = np.concatenate(groups) if groups else np.zeros(0, np.int64)
        order = np.argsort(group, kind="stable")
        self.ideal_group, self.ideal_gain = group[order], np.concatenate(gains)[order] if gains else np.zeros(0)
        self.ideal_length = np.bincount(self.ideal_group, minlength=qb.n_queries)
        start = np.concatenate(([0], np.cumsum(self.ideal_length)))[:-1]
        self.ideal_pos = np.arange(len(self.ideal_group)) - start[self.ideal_group] + 1

    def _row_gains(self, queries, rel, grades, g) -> None:
        """Each row of these queries takes the gain of the first table entry of its grade."""
        first = {}
        for grade, gain in zip(grades.tolist(), g.tolist()):
            first.setdefault(grade, gain)
        rows = np.flatnonzero(np.isin(self.group, queries)) if len(queries) < self.qb.n_queries else \
            np.arange(len(rel))
        sub = rel[rows]
        lookup = np.zeros(len(sub))
        for grade, gain in first.items():
            if gain != 0.0:
                lookup[sub == grade] = gain
        self.gain[rows] = lookup

    @staticmethod
    def _ideal_counts(per_query, g, walk) -> np.ndarray:
        """(queries × entries, last entry first) documents each entry puts in the ideal ranking."""
        rev_count, rev_gain = per_query[:, ::-1], g[::-1]
        if not len(g):
            return rev_count
        if walk == "ndcg":  # stop at the first entry with documents and a gain <= 0
            stop = (rev_count > 0) & (rev_gain <= 0)[None, :]
            if rev_gain[0] <= 0:
                return np.zeros_like(rev_count)
        else:  # ndcg_p: stop at the first entry reached with a gain <= 0
            stop = np.broadcast_to((rev_gain <= 0)[None, :], rev_count.shape).copy()
            stop[:, 0] &= rev_count[:, 0] > 0
        blocked = np.cumsum(stop, axis=1) > 0
        return np.where(blocked, 0, rev_count)

    def events(self, terms_of) -> Events:
        """The rows with a gain ≠ 0, with the terms ``terms_of(gain, pos)``."""
        rows = self.gain != 0
        return Events(self.group[rows], self.pos[rows], terms_of(self.gain[rows], self.pos[rows]),
                      self.qb.n_queries)

    def dcg_events(self, discount) -> Events:
        """The rows with a gain ≠ 0, with the terms gain / discount(position)."""
        return self.events(lambda gain, pos: gain / discount(pos))

    def ideal_events(self, discount) -> Events:
        return Events(self.ideal_group, self.ideal_pos, self.ideal_gain / discount(self.ideal_pos), self.qb.n_queries)


def gains_of(qb, params, normalize=False, walk="ndcg") -> Gains:
    """The batch's :class:`Gains` of a parameter list (shared by the measures that ask)."""
    pairs = tuple(params.values) if params is not None else ()
    return qb.memo(("gains", pairs, normalize, walk), lambda: Gains(qb, pairs, normalize, walk))


def dense_gains(qb, params, normalize=False) -> np.ndarray:
    """The gain of every retrieved row (for the expected tie policy's block means)."""
    gains = gains_of(qb, params, normalize)
    out = np.zeros(len(qb.rel))
    rows = gains.pos - 1 + qb.offsets[gains.group]
    out[rows] = gains.gain
    return out


def _log2_discount(qb):
    """Position i (1-based) → log2(i + 1)."""
    return lambda pos: qb.log2(pos + 1)


def _dcg(qb, params):
    def compute():
        gains = gains_of(qb, params)
        disc = _log2_discount(qb)
        return gains, gains.dcg_events(disc), gains.ideal_events(disc)
    return qb.memo(("dcg", tuple(params.values)), compute)


@measure("ndcg", "m_ndcg.c", kind="pairs", position=23, family="trec_eval")
def ndcg(qb, params):
    """nDCG = DCG / IDCG over the whole ranking and the whole ideal ranking (0 when IDCG = 0);
    gains as in the module docstring (Järvelin & Kekäläinen 2002)."""
    _, dcg, ideal = _dcg(qb, params)
    return column(np.divide(dcg.total, ideal.total, out=np.zeros(qb.n_queries), where=ideal.total > 0))


@ndcg.expected
def ndcg_expected(qb, params):
    if not params.values:
        return legacy_values(qb, "ndcg", (None,))
    _, _, ideal = _dcg(qb, params)
    dcg = np.bincount(qb.group, weights=dense_gains(qb, params) * qb.block_mean(1.0 / qb.log2(qb.pos + 1)),
                      minlength=qb.n_queries)
    return column(np.divide(dcg, ideal.total, out=np.zeros(qb.n_queries), where=ideal.total > 0))


@measure("dcg", "m_ndcg.c", kind="pairs", since=10, position=21, family="trec_eval")
def dcg(qb, params):
    """DCG = Σ_{g_i ≠ 0} g_i / log2(i + 1) over the whole ranking."""
    return column(_dcg(qb, params)[1].total)


@dcg.expected
def dcg_expected(qb, params):
    return column(np.bincount(qb.group, weights=dense_gains(qb, params) * qb.block_mean(1.0 / qb.log2(qb.pos + 1)),
                              minlength=qb.n_queries))


@measure("ideal_dcg", "m_ndcg.c", kind="pairs", since=10, position=22, family="trec_eval", ties=ORDER_FREE)
def ideal_dcg(qb, params):
    """IDCG = Σ_j g*_j / log2(j + 1) over the ideal ranking."""
    return column(_dcg(qb, params)[2].total)


@measure("ndcg_cut", "m_ndcg_cut.c", kind="cutoffs", default=CUTOFFS, position=26, family="trec_eval")
def ndcg_cut(qb, params):
    """ndcg_cut_k = DCG@k / IDCG@k with the grades as gains (no gain parameters), documents of
    grade ≤ 0 adding nothing; DCG@k itself when IDCG@k = 0."""
    def compute():
        rows = qb.p_rel > 0
        dcg = qb.pooled_where(rows, qb.p_rel[rows] / qb.log2(qb.p_pos[rows] + 1))
        grade = qb.judged_grade
        keep = grade > 0
        group = qb.judged_group[keep]
        start = np.concatenate(([0], np.cumsum(np.bincount(group, minlength=qb.n_queries))))[:-1]
        pos = np.arange(len(group)) - start[group] + 1
        ideal = Events(group, pos, grade[keep] / qb.log2(pos + 1), qb.n_queries)
        return dcg, ideal
    dcg, ideal = qb.memo("ndcg_cut", compute)
    k = qb.cutoffs(params.values)
    num, den = dcg.upto(k), ideal.upto(k)
    return np.divide(num, den, out=num.copy(), where=den > 0)


@ndcg_cut.expected
def ndcg_cut_expected(qb, params):
    return legacy_values(qb, "ndcg", params.values)


@measure("ndcg_rel", "m_ndcg_rel.c", kind="pairs", position=24, family="trec_eval", ties=one_order(AVERAGED))
def ndcg_rel(qb, params):
    """ndcg_rel = (1/L) [Σ_{g_i > 0} DCG@i / IDCG@min(i, L) + (L − r) · DCG / IDCG], nDCG averaged
    over the L documents of positive ideal gain, r of them retrieved (a missing one counts with
    the whole ranking's nDCG); 0 unless the sum is positive."""
    gains, dcg, ideal = _dcg(qb, params)
    rows = gains.gain > 0
    pos = gains.pos[rows]
    group = gains.group[rows]
    L = gains.ideal_length
    at = np.searchsorted((dcg.group << 32) + dcg.pos, (group << 32) + pos)
    d = dcg.prefix[at] if len(at) else np.zeros(0)
    ideal_at = _ideal_upto(ideal, group, np.minimum(pos, L[group]))
    with np.errstate(divide="ignore", invalid="ignore"):
        total = Events(group, pos, d / ideal_at, qb.n_queries).total
        r = np.bincount(group, minlength=qb.n_queries)
        total = total + (L - r).astype(np.float64) * dcg.total / ideal.total
        value = total / L
    return column(np.where(total > 0, value, 0.0))


def _ideal_upto(ideal: Events, group, k) -> np.ndarray:
    """IDCG@k for each (query, k) pair (k ≥ 1 and ≤ the query's ideal length, else 0 below 1)."""
    last = ideal.offsets[group] + k - 1
    return np.where(k > 0, ideal.prefix[np.maximum(last, 0)] if len(ideal.prefix) else 0.0, 0.0)


@measure("Rndcg", "m_Rndcg.c", kind="pairs", position=25, family="trec_eval", ties=one_order(AVERAGED))
def r_ndcg(qb, params):
    """Rndcg: nDCG averaged at the R levels, the ideal positions c where the ideal gain changes
    (c = 1 … L, the last at L): the mean of DCG@min(c, n) / IDCG@c, plus DCG@n / IDCG@L when
    L + 1 < n (trec_eval's loop); 0 when R = 0."""
    gains, dcg, ideal = _dcg(qb, params)
    g, group, pos = gains.ideal_gain, gains.ideal_group, gains.ideal_pos
    L = gains.ideal_length
    change = np.ones(len(g), dtype=bool)  # ideal row j ends a level: the next differs or none follows
    if len(g) > 1:
        change[:-1] = (g[1:] != g[:-1]) | (group[1:] != group[:-1])
    cq, c = group[change], pos[change]
    n = qb.num_ret
    extra = np.flatnonzero((L >= 1) & (L + 1 < n))
    cq = np.concatenate((cq, extra))
    c_dcg = np.concatenate((np.minimum(c, n[group[change]]), n[extra]))
    c_ideal = np.concatenate((c, L[extra]))
    order = np.lexsort((np.r_[np.zeros(len(c)), np.ones(len(extra))], c_ideal, cq))
    cq, c_dcg, c_ideal = cq[order], c_dcg[order], c_ideal[order]
    num = _dcg_upto(dcg, cq, c_dcg)
    den = _ideal_upto(ideal, cq, c_ideal)
    with np.errstate(divide="ignore", invalid="ignore"):
        total = Events(cq, np.arange(len(cq)), num / den, qb.n_queries).total
        count = np.bincount(cq, minlength=qb.n_queries).astype(np.float64)
        value = total / count
    return column(np.where(qb.num_rel == 0, 0.0, value))


def _dcg_upto(dcg: Events, group, k) -> np.ndarray:
    """DCG@k for each (query, k) pair."""
    key = (dcg.group << 32) + dcg.pos
    count = np.searchsorted(key, (group << 32) + k, side="right") - dcg.offsets[group]
    last = dcg.offsets[group] + count - 1
    return np.where(count > 0, dcg.prefix[np.maximum(last, 0)] if len(dcg.prefix) else 0.0, 0.0)


@measure("G", "m_G.c", kind="pairs", position=20, family="trec_eval", ties=one_order(G_NOTE))
def g_measure(qb, params):
    """G = (Σ_{g_i ≠ 0} g_i / log2(2 + C_i − S_i)) / Σ_j g*_j with S_i = Σ_{i' ≤ i} g_i', C_i =
    Σ_{i' ≤ i} max(g*_i', 1) (1 beyond the ideal ranking): a gain weighs more when the run is
    near the ideal there (experimental, Buckley 2008)."""
    gains = gains_of(qb, params)
    results = gains.events(lambda gain, pos: gain)
    s = results.prefix  # S_i: the gains up to each row of gain ≠ 0, added in order
    pos, group = results.pos, results.group
    cost = np.maximum(gains.ideal_gain, 1.0)
    ideal_cost = Events(gains.ideal_group, gains.ideal_pos, cost, qb.n_queries)
    L = gains.ideal_length[group]
    c = _ideal_upto(ideal_cost, group, np.minimum(pos, L))
    beyond = np.maximum(pos - L, 0)
    if np.all(cost == np.round(cost)) and cost.sum() < 2 ** 52:
        c = c + beyond  # integers: every partial sum exact
    else:
        for _ in range(int(beyond.max()) if len(beyond) else 0):  # add 1 per position beyond, as trec_eval
            more = beyond > 0
            c[more] += 1.0
            beyond = beyond - more
    arg = (2 + c) - s
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = results.terms / np.array([math.log2(x) if x > 0 else (-math.inf if x == 0 else math.nan)
                                          for x in arg.tolist()])
    total = Events(group, pos, terms, qb.n_queries).total
    ideal_sum = Events(gains.ideal_group, gains.ideal_pos, gains.ideal_gain, qb.n_queries).total
    return column(np.divide(total, ideal_sum, out=np.zeros(qb.n_queries), where=ideal_sum > 0))


@measure("ndcg_p", "m_ndcg_p.c", kind="pairs", in_trec_eval=False, position=57, family="trec_eval",
         ties=one_order("computed in one order only, as m_ndcg_p.c (not compiled into trec_eval)"))
def ndcg_p(qb, params):
    """ndcg_p = DCG / IDCG with Järvelin & Kekäläinen's discount: gain / log2(i) from position 2
    on, the first undiscounted; the ideal ranking stops at the first table entry reached with
    a gain ≤ 0; 0 when no relevant document is retrieved. (m_ndcg_p.c is not compiled into
    trec_eval 10.0.)"""
    gains = gains_of(qb, params, walk="ndcg_p")
    disc = lambda pos: np.where(pos > 1, qb.log2(np.maximum(pos, 2)), 1.0)  # noqa: E731
    dcg = gains.dcg_events(disc)
    ideal = gains.ideal_events(disc)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = dcg.total / ideal.total
    return column(np.where(qb.num_rel_ret > 0, value, 0.0))


def _persistence(params) -> float:
    p = 0.9
    for name, value in params.values:
        if name == "p":
            p = float(value)
    return p


def _powers(p: float, top: int) -> np.ndarray:
    """p^0, p^1, … as trec_eval forms them: each the one before times p."""
    return np.cumprod(np.r_[1.0, np.full(max(top, 0), p)])


@measure("rbp", "m_rbp.c", kind="pairs", since=10, position=54, family="trec_eval")
def rbp(qb, params):
    """RBP = (1 − p) Σ_i g_i p^(i−1) (Moffat & Zobel 2008), persistence p = 0.9 unless ``p=…``;
    gains as for nDCG, rescaled to [0, 1] by (g − min)/(max − min) when one lies outside."""
    p = _persistence(params)
    gains = gains_of(qb, params, normalize=True)
    powers = _powers(p, int(qb.num_ret.max()) if qb.n_queries else 0)
    total = gains.events(lambda gain, pos: gain * powers[pos - 1]).total
    return column((1.0 - p) * total)


@rbp.expected
def rbp_expected(qb, params):
    p = _persistence(params)
    powers = _powers(p, int(qb.pos.max()) if len(qb.pos) else 0)
    weight = qb.block_mean(powers[qb.pos - 1]) if len(qb.pos) else np.zeros(0)
    gain = dense_gains(qb, params, normalize=True)
    return column((1.0 - p) * np.bincount(qb.group, weights=gain * weight, minlength=qb.n_queries))


@measure("rbp_resid", "m_rbp_resid.c", kind="pairs", since=10, position=55, family="trec_eval",
         better="none")
def rbp_residual(qb, params):
    """rbp_resid = p^n + (1 − p) Σ_{rel_i < 0} p^(i−1): the RBP the unjudged documents and the
    rest of the ranking could still add; 0 when every retrieved document is judged."""
    p = _persistence(params)
    top = int(qb.num_ret.max()) if qb.n_queries else 0
    powers = _powers(p, top)
    everything = np.concatenate(([0.0], np.cumsum(powers[:top])))  # p^0 + … + p^(n−1), added in order
    judged = qb.p_rel >= 0
    total = everything[qb.num_ret] - qb.pooled_where(judged, powers[qb.p_pos[judged] - 1]).total
    unjudged = qb.num_ret - np.bincount(qb.p_group[judged], minlength=qb.n_queries)
    return column(np.where(unjudged > 0, powers[qb.num_ret] + (1 - p) * total, 0.0))


@rbp_residual.expected
def rbp_residual_expected(qb, params):
    p = _persistence(params)
    powers = _powers(p, int(qb.num_ret.max()) if qb.n_queries else 0)
    rows = qb.rel < 0
    weight = qb.block_mean(powers[qb.pos - 1]) if len(qb.pos) else np.zeros(0)
    total = np.bincount(qb.group, weights=rows * weight, minlength=qb.n_queries)
    unjudged = np.bincount(qb.group[rows], minlength=qb.n_queries)
    return column(np.where(unjudged > 0, powers[qb.num_ret] + (1 - p) * total, 0.0))


# ---- ir_measures' spellings -----------------------------------------------------------------

@spelling("nDCG", params=(CUTOFF, Param("dcg", "str", "log2", "gain: grade (log2) or 2^grade − 1 (exp-log2)",
                                         choices=("log2", "exp-log2")),
                          Param("gains", "gains", None, "a gain per grade, {grade: gain} (others: their grade)"),
                          JUDGED_ONLY),
          at="cutoff", aliases=("NDCG",), peer="pytrec_eval",
          examples=("nDCG", "NDCG", "nDCG@10", "nDCG(gains={0:0,1:1,2:3,3:7})@10", "nDCG(judged_only=True)@10",
                    "nDCG(dcg='exp-log2')@10"))
def _spell_ndcg(name, p, version):
    """nDCG: ndcg; nDCG@k: ndcg_cut.k; ``gains`` maps the grades first (as ir_measures does for
    pytrec_eval); ``dcg='exp-log2'``: rankeval's ndcg_exp (gain 2^g − 1)."""
    grade_map = None if p["gains"] is None else tuple(sorted(p["gains"].items()))
    if p["dcg"] == "exp-log2":
        if grade_map is not None:
            raise ValueError("dcg='exp-log2' and gains cannot be combined")
        from .names import load_families

        load_families()  # rankeval's ndcg_exp
        return named_value(name, "ndcg_exp", p, judged_only=p["judged_only"])
    if p["cutoff"] is None:
        return trec_value(name, "ndcg", version=version, grade_map=grade_map, judged_only=p["judged_only"])
    return trec_value(name, "ndcg_cut", str(p["cutoff"]), version=version, grade_map=grade_map,
                      judged_only=p["judged_only"])

