"""Preference measures (``prefs`` and ``qrels_prefs`` judgments; trec_eval's
``form_prefs_counts.c`` and ``m_prefs_*.c``).

A query's judgments are lines (judgment group JG, sub-group JSG, document, level): within a
JSG every document is preferred to those of a lower level. A JG with one JSG is a list of
equivalence classes (ECs, one per level, highest first); a JG with several JSGs is a
preference matrix closed under transitivity (an inconsistency is an error). The judged
documents get internal ranks: the retrieved ones 0 … J_r − 1 in the run's order (ties by
docno *ascending*, as this file of trec_eval sorts them), the others J_r … J − 1 by docno.
A preference a > b is *fulfilled* when rank(a) < rank(b); per JG it is counted as

- ``ful_ret`` / ``poss_ret``: fulfilled / all, both documents retrieved;
- ``ful_imp`` / ``poss_imp``: exactly one retrieved (fulfilled when it is a);
- ``notoccur``: neither retrieved (never fulfilled);

and the counts array CA[a][b] sums the JGs preferring a to b. Level 0 means non-relevant.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...errors import DataError
from .counts import column
from .registry import measure, one_order

#: what every preference measure declares
PREFS = dict(reads="prefs", family="trec_eval",
             ties=one_order("preferences are counted in trec_eval's order of the run"))
COUNT = dict(PREFS, summary="sum", value="int", better="none")


@dataclass
class JudgmentGroup:
    ful_ret: int = 0
    poss_ret: int = 0
    ful_imp: int = 0
    poss_imp: int = 0
    notoccur: int = 0
    num_rel: int = 0
    num_rel_ret: int = 0
    num_nonrel: int = 0
    num_nonrel_ret: int = 0
    ecs: list = field(default_factory=list)  # [(level, sorted ranks)] highest level first; empty for a matrix
    matrix: np.ndarray | None = None  # closed preference matrix (J × J bool)
    levels: np.ndarray | None = None  # per internal rank: its level in this JG, −1 if none
    last_class_at: int = 0  # where the ranks of its last class start in the query's pool


@dataclass
class QueryPrefs:
    """One query's preference counts (trec_eval's RESULTS_PREFS)."""

    groups: list
    num_judged: int
    num_judged_ret: int
    counts: np.ndarray  # CA, J × J
    pool: np.ndarray = None  # the ranks of every class-list JG's classes, one after the other (trec_eval's rank_pool)


def query_prefs(lines, ranked, qid: str = "", source: str | None = None) -> QueryPrefs:
    """The :class:`QueryPrefs` of one query: ``lines`` = [(jg, jsg, level, docno bytes)],
    ``ranked`` = the retrieved docnos (bytes) in the run's order, ties by docno ascending."""
    judged_docs = sorted({d for _, _, _, d in lines})
    in_prefs = set(judged_docs)
    retrieved = [d for d in ranked if d in in_prefs]
    rank = {d: i for i, d in enumerate(retrieved)}
    j_r = len(retrieved)
    for d in judged_docs:
        if d not in rank:
            rank[d] = len(rank)
    j = len(rank)
    rows = sorted(((jg, jsg, -level, rank[d], level, d) for jg, jsg, level, d in lines),
                  key=lambda r: (r[0], r[1], r[2], r[3]))
    counts = np.zeros((j, j), dtype=np.int64)
    groups, pool = [], []
    start = 0
    for i in range(1, len(rows) + 1):
        if i == len(rows) or rows[i][0] != rows[start][0]:
            part = rows[start:i]
            if len({r[1] for r in part}) > 1:
                groups.append(_matrix_group(part, j, j_r, counts, qid, source))
            else:
                g = _ec_group(part, j_r, counts, qid, source)
                g.last_class_at = len(pool) + sum(len(ranks) for _, ranks in g.ecs[:-1])
                pool.extend(r for _, ranks in g.ecs for r in ranks.tolist())
                groups.append(g)
            start = i
    return QueryPrefs(groups, j, j_r, counts, np.array(pool, dtype=np.int64))


def _ec_group(rows, j_r, counts, qid, source) -> JudgmentGroup:
    """A JG of one JSG: equivalence classes by level; every pair across classes is a preference."""
    g = JudgmentGroup()
    for r in rows:
        if not g.ecs or g.ecs[-1][0] != r[4]:
            g.ecs.append((r[4], []))
        g.ecs[-1][1].append(r[3])
    g.ecs = [(level, np.array(ranks, dtype=np.int64)) for level, ranks in g.ecs]
    for e1, (level, ranks) in enumerate(g.ecs):
        ret = int((ranks < j_r).sum())
        if level > 0.0:
            g.num_rel_ret += ret
            g.num_rel += len(ranks)
        else:
            g.num_nonrel_ret += ret
            g.num_nonrel += len(ranks)
        for _, lower in g.ecs[e1 + 1:]:
            a, b = ranks[:, None], lower[None, :]
            if (a == b).any():
                doc = next(r[5] for r in rows if r[3] == int(ranks[(ranks[:, None] == lower[None, :]).any(axis=1)][0]))
                raise DataError(f"query {qid}: document {doc.decode('utf-8', 'replace')} has two levels in one "
                                "judgment sub-group", source)
            np.add.at(counts, (np.broadcast_to(a, (len(ranks), len(lower))), np.broadcast_to(b, (len(ranks),
                                                                                                 len(lower)))), 1)
            ful = a < b
            g.ful_ret += int((ful & (b < j_r)).sum())
            g.ful_imp += int((ful & (b >= j_r) & (a < j_r)).sum())
            g.notoccur += int((ful & (a >= j_r)).sum())
            g.poss_ret += int((~ful & (a < j_r)).sum())
            g.poss_imp += int((~ful & (a >= j_r) & (b < j_r)).sum())
            g.notoccur += int((~ful & (a >= j_r) & (b >= j_r)).sum())
    g.poss_ret += g.ful_ret
    g.poss_imp += g.ful_imp
    return g


def _matrix_group(rows, j, j_r, counts, qid, source) -> JudgmentGroup:
    """A JG of several JSGs: the preference matrix, closed under transitivity."""
    g = JudgmentGroup()
    levels = np.full(j, -1.0)
    pa = np.zeros((j, j), dtype=bool)
    for i, r in enumerate(rows):
        old = levels[r[3]]
        if (old > 0.0 and r[4] == 0.0) or (old == 0.0 and r[4] > 0.0):
            raise DataError(f"query {qid}: document '{r[5].decode('utf-8', 'replace')}' has both 0 and non-0 "
                            "levels in one judgment group", source)
        levels[r[3]] = r[4]
        k = i + 1
        while k < len(rows) and rows[k][1] == r[1] and rows[k][4] == r[4]:
            k += 1
        while k < len(rows) and rows[k][1] == r[1]:
            pa[r[3], rows[k][3]] = True
            k += 1
    closure = pa | np.eye(j, dtype=bool)
    while True:
        wider = (closure.astype(np.int64) @ closure.astype(np.int64)) > 0
        if (wider == closure).all():
            break
        closure = wider
    np.fill_diagonal(closure, False)
    if (closure & closure.T).any():
        a, b = np.argwhere(closure & closure.T)[0]
        raise DataError(f"query {qid}: inconsistent preferences in one judgment group (internal ranks {a} and "
                        f"{b} are preferred to each other)", source)
    g.matrix, g.levels = closure, levels
    ret = np.arange(j) < j_r
    g.num_rel_ret = int((levels[ret] > 0).sum())
    g.num_nonrel_ret = int((levels[ret] == 0).sum())
    g.num_rel = int((levels > 0).sum())
    g.num_nonrel = int((levels == 0).sum())
    counts += closure
    upper = np.triu(np.ones((j, j), dtype=bool), 1)
    rr = ret[:, None] & ret[None, :]
    g.ful_ret = int((closure & rr & upper).sum())
    g.poss_ret = int((closure & rr & ~upper).sum()) + g.ful_ret
    g.ful_imp = int((closure & ret[:, None] & ~ret[None, :]).sum())
    g.poss_imp = int((closure & ~ret[:, None] & ret[None, :]).sum()) + g.ful_imp
    g.notoccur = int((closure & ~ret[:, None] & ~ret[None, :]).sum())
    return g


def _values(batch, fn) -> np.ndarray:
    return column([fn(q) for q in batch.queries])


@dataclass
class PrefsBatch:
    queries: list  # [QueryPrefs]

    @property
    def n_queries(self) -> int:
        return len(self.queries)


def _ratio(num, den) -> float:
    return num / den if den else 0.0


@measure("prefs_num_prefs_poss", "m_prefs_num_prefs_poss.c", position=36, **COUNT)
def prefs_num_prefs_poss(batch, params):
    """Preferences possible: Σ_JG poss_ret + poss_imp + notoccur."""
    return _values(batch, lambda q: sum(g.poss_ret + g.poss_imp + g.notoccur for g in q.groups))


@measure("prefs_num_prefs_ful", "m_prefs_num_prefs_ful.c", position=37, **COUNT)
def prefs_num_prefs_ful(batch, params):
    """Preferences fulfilled, implied ones included: Σ_JG ful_ret + ful_imp."""
    return _values(batch, lambda q: sum(g.ful_ret + g.ful_imp for g in q.groups))


@measure("prefs_num_prefs_ful_ret", "m_prefs_num_prefs_ful_ret.c", position=38, **COUNT)
def prefs_num_prefs_ful_ret(batch, params):
    """Preferences fulfilled between retrieved documents: Σ_JG ful_ret."""
    return _values(batch, lambda q: sum(g.ful_ret for g in q.groups))


def _simple(parts):
    def value(q):
        ful = poss = 0
        for g in q.groups:
            f, p = parts(g)
            ful, poss = ful + f, poss + p
        return _ratio(ful, poss)
    return value


def _per_group(parts):
    def value(q):
        total = 0.0
        for g in q.groups:
            f, p = parts(g)
            if p:
                total += f / p
        return total / len(q.groups) if total > 0.0 else 0.0
    return value


_ALL = lambda g: (g.ful_ret + g.ful_imp, g.poss_ret + g.poss_imp + g.notoccur)  # noqa: E731
_RET = lambda g: (g.ful_ret, g.poss_ret)  # noqa: E731
_IMP = lambda g: (g.ful_ret + g.ful_imp, g.poss_ret + g.poss_imp)  # noqa: E731


@measure("prefs_simp", "m_prefs_simp.c", position=39, **PREFS)
def prefs_simp(batch, params):
    """Σ_JG fulfilled / Σ_JG possible (implied and unretrieved pairs count as possible)."""
    return _values(batch, _simple(_ALL))


@measure("prefs_simp_ret", "m_prefs_simp_ret.c", position=43, **PREFS)
def prefs_simp_ret(batch, params):
    """Σ ful_ret / Σ poss_ret: pairs of retrieved documents only."""
    return _values(batch, _simple(_RET))


@measure("prefs_simp_imp", "m_prefs_simp_imp.c", position=47, **PREFS)
def prefs_simp_imp(batch, params):
    """Σ (ful_ret + ful_imp) / Σ (poss_ret + poss_imp): pairs with a retrieved document."""
    return _values(batch, _simple(_IMP))


@measure("prefs_avgjg", "m_prefs_avgjg.c", position=41, **PREFS)
def prefs_avgjg(batch, params):
    """Per JG fulfilled / possible, averaged over the JGs (0 unless the sum is positive)."""
    return _values(batch, _per_group(_ALL))


@measure("prefs_avgjg_ret", "m_prefs_avgjg_ret.c", position=45, **PREFS)
def prefs_avgjg_ret(batch, params):
    """Per JG ful_ret / poss_ret, averaged over the JGs."""
    return _values(batch, _per_group(_RET))


@measure("prefs_avgjg_imp", "m_prefs_avgjg_imp.c", position=49, **PREFS)
def prefs_avgjg_imp(batch, params):
    """Per JG (ful_ret + ful_imp) / (poss_ret + poss_imp), averaged over the JGs."""
    return _values(batch, _per_group(_IMP))


def _pairs(q: QueryPrefs, blocks: int) -> float:
    """The mean over document pairs with a preference either way of CA[a][b] / (CA[a][b] +
    CA[b][a]) (a before b in internal rank): blocks 1 = both retrieved, 2 = and one retrieved,
    3 = and pairs of unretrieved documents (which count, adding 0)."""
    ca, jr, j = q.counts, q.num_judged_ret, q.num_judged
    either = (ca > 0) | (ca.T > 0)
    total, pairs = 0.0, 0
    upper = np.triu_indices(jr, 1)
    parts = [(ca[upper], ca.T[upper], either[upper])]
    if blocks >= 2:
        parts.append((ca[:jr, jr:].ravel(), ca.T[:jr, jr:].ravel(), either[:jr, jr:].ravel()))
    for fwd, back, mask in parts:
        with np.errstate(invalid="ignore"):
            for v in (fwd[mask] / (fwd[mask] + back[mask])).tolist():
                total += v
        pairs += int(mask.sum())
    if blocks >= 3:
        pairs += int(np.triu(either[jr:, jr:], 1).sum())
    return total / pairs if pairs else 0.0


@measure("prefs_pair", "m_prefs_pair.c", position=40, **PREFS)
def prefs_pair(batch, params):
    """Mean over preferred pairs of the share of JGs agreeing with the run's order
    (unretrieved pairs count, with 0)."""
    return _values(batch, lambda q: _pairs(q, 3))


@measure("prefs_pair_ret", "m_prefs_pair_ret.c", position=44, **PREFS)
def prefs_pair_ret(batch, params):
    """prefs_pair over pairs of retrieved documents."""
    return _values(batch, lambda q: _pairs(q, 1))


@measure("prefs_pair_imp", "m_prefs_pair_imp.c", position=48, **PREFS)
def prefs_pair_imp(batch, params):
    """prefs_pair over pairs with a retrieved document."""
    return _values(batch, lambda q: _pairs(q, 2))


def _rnonrel(q: QueryPrefs, retrieved_only: bool) -> float:
    """prefs_avgjg_Rnonrel(_ret): per JG, fulfilled / possible as if it held as many non-relevant
    documents as relevant ones (R = N): R − N fulfilled non-relevant preferences added per
    retrieved relevant document when N < R, else the preferences recounted with the first R
    non-relevant documents only; averaged over the JGs."""
    total = 0.0
    for g in q.groups:
        r, n = (g.num_rel_ret, g.num_nonrel_ret) if retrieved_only else (g.num_rel, g.num_nonrel)
        if r >= n:
            if retrieved_only:
                ful = g.ful_ret + g.num_rel_ret * (r - n)
                poss = g.poss_ret + g.num_rel * (r - n)
            else:
                ful = g.ful_ret + g.ful_imp + g.num_rel_ret * (r - n)
                poss = g.poss_ret + g.poss_imp + g.notoccur + g.num_rel * (r - n)
        else:
            ful, poss = _recount(g, q, retrieved_only)
        total += ful / poss if poss else (float("nan") if ful == 0 else float("inf"))
    return total / len(q.groups) if total > 0.0 else 0.0


def _recount(g: JudgmentGroup, q: QueryPrefs, retrieved_only: bool):
    """trec_eval's ``recalculate`` of m_prefs_avgjg_Rnonrel(_ret).c."""
    jr = q.num_judged_ret
    ful = poss = 0
    if g.ecs:
        # trec_eval takes the first R entries from the start of the last class, reading on into the
        # classes of the next judgment groups when the last class holds fewer (levels below 0)
        keep = g.num_rel_ret if retrieved_only else g.num_rel
        nonrel = q.pool[g.last_class_at:g.last_class_at + keep]
        classes = [ranks[ranks < jr] if retrieved_only else ranks for _, ranks in g.ecs]
        if retrieved_only:
            nonrel = nonrel[np.cumprod(nonrel < jr).astype(bool)]
        for e1 in range(len(classes)):
            for e2 in range(e1 + 1, len(classes) - 1):
                f, p = _ec_counts(classes[e1], classes[e2], jr, retrieved_only)
                ful, poss = ful + f, poss + p
        for e1 in range(len(classes)):
            f, p = _ec_counts(classes[e1], nonrel, jr, retrieved_only)
            ful, poss = ful + f, poss + p
        return ful, poss + ful
    levels, a = g.levels, g.matrix
    limit = jr if retrieved_only else q.num_judged
    seen, first = 0, limit
    for i in range(limit):
        if levels[i] == 0.0:
            seen += 1
            if seen == g.num_rel + 1:
                first = i
                break
    dropped = (np.arange(q.num_judged) >= first) & (levels == 0.0)
    kept = ~dropped
    ret = np.arange(q.num_judged) < jr
    live = a & kept[:, None] & kept[None, :]
    upper = np.triu(np.ones_like(a), 1)
    ful = int((live & ret[:, None] & ret[None, :] & upper).sum())
    poss = int((live & ret[:, None] & ret[None, :] & ~upper).sum())
    if not retrieved_only:
        ful += int((live & ret[:, None] & ~ret[None, :]).sum())
        poss += int((live & ~ret[:, None]).sum())
    return ful, poss + ful


def _ec_counts(high, low, jr, retrieved_only):
    a, b = high[:, None], low[None, :]
    ful = (a < b) if retrieved_only else ((a < b) & (a < jr))
    return int(ful.sum()), int((~ful).sum())


@measure("prefs_avgjg_Rnonrel", "m_prefs_avgjg_Rnonrel.c", position=42, **PREFS)
def prefs_avgjg_rnonrel(batch, params):
    """prefs_avgjg with the non-relevant documents of each JG cut or padded to R (see :func:`_rnonrel`)."""
    return _values(batch, lambda q: _rnonrel(q, False))


@measure("prefs_avgjg_Rnonrel_ret", "m_prefs_avgjg_Rnonrel_ret.c", position=46, **PREFS)
def prefs_avgjg_rnonrel_ret(batch, params):
    """prefs_avgjg_Rnonrel over retrieved documents (R = relevant retrieved, N = non-relevant retrieved)."""
    return _values(batch, lambda q: _rnonrel(q, True))
