"""Group fairness of a ranking (Yang & Stoyanovich 2017: rND, rKL, rRD), as ir_measures' fairness
measures compute them (terrierteam/ir_measures pull request 43, "Add fairness measures"): how far the
share of a *protected group* among the first i documents strays from its share among the query's
judged documents, over i, normalized by the largest such value any order of the same documents has.

Every document has a group (``--doc-groups FILE``, the column ``group_col``). With n the query's
judged documents in the groups considered (``groups``, else every group of the qrels), S⁺ those of
the protected group, s⁺_i the protected documents among the first i retrieved (after the cut-off),
L the documents retrieved, and w_i = 1/log2(i + 1), for i = 1 … L − 1 (as ir_measures sums them):

- rND = Σ_i w_i |s⁺_i/(i + 1) − S⁺/n|;
- rKL = Σ_i KL((s⁺_i/i, 1 − s⁺_i/i) ‖ (S⁺/n, 1 − S⁺/n)) w_i, a share of 0 or 1 moved to the next double
  inside (``correct_extreme``);
- rRD = Σ_i w_i |s⁺_i/s⁻_i − S⁺/S⁻| (a ratio with a zero part read as 0);

each divided by its largest value over every order of the retrieved documents (0 when that is 0),
found exactly by a recursion over (i, s⁺_i) where ir_measures enumerates the orders. The protected
group is ``protected_group``: a group's name, ``minority`` (the group with the fewest judged documents
in the query) or ``majority``; a tie is an error unless ``tie_breaking`` is ``group-ascending``,
``group-descending`` or a comma list of groups by preference (ir_measures' ``random`` is refused:
its values would change from run to run). A query with n = 0 has no value (left out of the mean).
"""

from __future__ import annotations

import math

import numpy as np

from ...errors import DataError
from ..trec.registry import Param, measure, spelling
from ..trec.spell import CUTOFF, named_value
from .ordering import _hypergeometric_pmf

PARAMS = (CUTOFF, Param("group_col", "str", "group", "the column of --doc-groups"),
          Param("groups", "str", None, "the groups considered, comma-separated (None: every group of the qrels)"),
          Param("protected_group", "str", "minority", "a group, or minority or majority"),
          Param("tie_breaking", "str", None, "group-ascending, group-descending or groups by preference"))
CORRECT = Param("correct_extreme", "bool", True, "move shares of 0 and 1 inside the interval (rKL)")
SOURCE = "Yang & Stoyanovich 2017 (ir_measures pull request 43)"
FAIRNESS = dict(kind="named", reads="groups", in_trec_eval=False, family="fairness", summary="defined",
                better="lower")


class GroupsBatch:
    """Rankings with each document's group (``ranking.label``: its row of the document groups;
    ``ranking.query``: each query's index in the qrels, whose rows ``qrels_label`` labels)."""

    def __init__(self, ranking, *, groups, qrels, qrels_label, rel_level: int = 1, expected: bool = False):
        self.ranking, self.groups, self.qrels, self.qrels_label = ranking, groups, qrels, qrels_label
        self.expected = expected
        self.offsets = np.asarray(ranking.offsets, dtype=np.int64)
        self.n_queries = len(self.offsets) - 1

    def codes(self, column: str):
        """(group names, the code of every group value of the document-groups rows)."""
        values = self.groups.column(column)
        names = sorted(set(values))
        index = {g: i for i, g in enumerate(names)}
        return names, np.array([index[v] for v in values], dtype=np.int64)


def _protected(names, counts, p, qid, source) -> int:
    """The protected group's index among ``names`` (``counts``: the query's judged documents per group)."""
    choice = p["protected_group"]
    if choice not in ("minority", "majority"):
        if choice not in names:
            raise DataError(f"protected group {choice!r} is not among the groups ({', '.join(names)})", source)
        return names.index(choice)
    ordered = sorted(range(len(names)), key=lambda g: counts[g], reverse=choice == "majority")
    tied = [g for g in ordered if counts[g] == counts[ordered[0]]]
    if len(tied) == 1:
        return ordered[0]
    breaking = p["tie_breaking"]
    if breaking is None:
        raise DataError(f"query {qid}: the protected group by {choice} is a tie: groups "
                        f"{', '.join(names[g] for g in tied)} each hold {counts[ordered[0]]} judged documents "
                        "(set tie_breaking)", source)
    if breaking in ("group-ascending", "group-descending"):
        return sorted(tied, key=lambda g: names[g], reverse=breaking == "group-descending")[0]
    for name in (g.strip() for g in breaking.split(",")):
        if name in names and names.index(name) in tied:
            return names.index(name)
    raise DataError(f"query {qid}: tie_breaking {breaking!r} names none of the tied groups", source)


def _terms(kind: str, L: int, S_plus: int, n: int, correct: bool) -> np.ndarray:
    """f_i(s) for i = 1 … L − 1 and s = 0 … L − 1: (L − 1) × L, ir_measures' term of prefix i with s
    protected documents (NaN where s > i), each with its arithmetic."""
    i = np.arange(1, L, dtype=np.float64)[:, None]
    s = np.arange(max(L, 1), dtype=np.float64)[None, :]
    inv = np.array([1 / math.log(j + 1, 2) for j in range(1, L)])[:, None]
    log_i = np.array([math.log(j + 1, 2) for j in range(1, L)])[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        if kind == "rnd":
            out = inv * np.abs(np.abs(s / (i + 1)) - abs(S_plus / n))
        elif kind == "rrd":
            ratio = np.where((s == 0) | (i - s == 0), 0.0, np.abs(s / (i - s)))
            out = inv * np.abs(ratio - _fraction(S_plus, n - S_plus))
        else:
            q = _share(S_plus, n - S_plus, n, correct)
            kl = np.frompyfunc(lambda a, b: _kl(_share(int(a), int(b) - int(a), int(b), correct), q), 2, 1)
            out = kl(s, i).astype(np.float64) / log_i
    return np.where(s <= i, out, np.nan)


def _fraction(a: int, b: int) -> float:
    return 0 if a == 0 or b == 0 else abs(a / b)


def _share(plus: int, minus: int, n: int, correct: bool):
    share = (plus / n, minus / n)
    if correct and plus == n:
        q = math.nextafter(share[0], 0)
        share = (q, 1 - q)
    elif correct and minus == n:
        q = math.nextafter(share[1], 0)
        share = (1 - q, q)
    return share


def _kl(p, q) -> float:
    total = 0
    for x, y in zip(p, q):
        total += x * math.log(x / y) if x > 0 and y > 0 else (0 if x == 0 and y >= 0 else math.inf)
    return total


def _most(f: np.ndarray, L: int, k: int) -> float:
    """The largest Σ_i f_i(s_i) over the orders of L documents k of them protected: s_0 = 0, each
    step adds 0 or 1, s_L = k (a recursion over (i, s_i))."""
    best = np.full(L + 1, -np.inf)
    best[0] = 0.0
    s = np.arange(L + 1)
    for i in range(1, L):
        prev = np.maximum(best[: i + 1], np.r_[-np.inf, best[:i]])
        ok = (s[: i + 1] >= max(0, k - (L - i))) & (s[: i + 1] <= min(i, k)) & (prev > -np.inf)
        best = np.full(L + 1, -np.inf)
        best[: i + 1][ok] = f[i - 1, : i + 1][ok] + prev[ok]
    reachable = best[max(0, k - 1): k + 1]
    reachable = reachable[reachable > -np.inf]
    return float(reachable.max()) if len(reachable) else 0.0


def fairness(batch, params, kind: str) -> np.ndarray:
    """Per query the normalized unfairness (module docstring); NaN where n = 0."""
    p = params.named()
    names, code = batch.codes(p["group_col"])
    considered = [g.strip() for g in p["groups"].split(",")] if p["groups"] else \
        sorted({names[c] for c in code[batch.qrels_label]})
    keep = np.isin(np.array(names, dtype=object), np.array(considered, dtype=object))
    out = np.full(batch.n_queries, np.nan)
    for q in range(batch.n_queries):
        qi = batch.ranking.query[q]
        labels = code[batch.qrels_label[batch.qrels.offsets[qi]:batch.qrels.offsets[qi + 1]]]
        counts = np.bincount(labels, minlength=len(names)) * keep
        n = int(counts.sum())
        if n == 0:
            continue
        chosen = [g for g in range(len(names)) if keep[g]]
        pick = _protected([names[g] for g in chosen], [int(counts[g]) for g in chosen], p, batch.qrels.qids[qi],
                          batch.qrels.source)
        protected = chosen[pick]
        lo, hi = batch.offsets[q], batch.offsets[q + 1]
        mark = code[batch.ranking.label[lo:hi]] == protected
        L = hi - lo if p["cutoff"] is None else min(hi - lo, p["cutoff"])
        f = _terms(kind, L, int(counts[protected]), n, p.get("correct_extreme", True))
        if batch.expected:
            out[q] = _expected(f, mark, np.asarray(batch.ranking.tie_block[lo:hi]), L)
            continue
        most = _most(f, L, int(mark[:L].sum()))
        s = np.cumsum(mark[:L])
        value = 0
        for i in range(1, L):
            value += f[i - 1, s[i - 1]]
        with np.errstate(invalid="ignore"):
            out[q] = value / most if most != 0 else 0.0
    return out[:, None]


def _prefix_terms(f: np.ndarray, start: int, base: int, m: int, k: int, last: int) -> float:
    """E[Σ f_i(s⁺_i)] over the prefixes i = start + 1 … last of a block of m documents, k of them protected,
    in random order (s⁺_i = base + the protected among its first i − start: hypergeometric)."""
    pmf = _hypergeometric_pmf(m + 1, k)  # draws from the block's m documents
    total = 0.0
    x = np.arange(k + 1)
    for t in range(1, last - start + 1):
        i = start + t
        total += float((pmf[t] * np.where(x <= t, f[i - 1, np.minimum(base + x, i)], 0.0)).sum())
    return total


def _expected(f: np.ndarray, mark: np.ndarray, tie_block: np.ndarray, L: int) -> float:
    """E[unfairness / its largest value] over the orders of tied blocks, the first L documents kept: the
    blocks within the cut add their prefixes' expected terms; a block the cut splits keeps a hypergeometric
    share x of its protected documents, which sets the largest value."""
    before, start = 0.0, 0
    while start < L:
        end = start + int(np.sum(tie_block == tie_block[start]))
        m, k, base = end - start, int(mark[start:end].sum()), int(mark[:start].sum())
        if end <= L:
            before += _prefix_terms(f, start, base, m, k, min(end, L - 1))
            start = end
            continue
        from math import comb

        t, total = L - start, 0.0
        for x in range(max(0, t - (m - k)), min(k, t) + 1):
            most = _most(f, L, base + x)
            if most != 0:
                inner = _prefix_terms(f, start, base, t, x, L - 1)
                total += comb(k, x) * comb(m - k, t - x) / comb(m, t) * (before + inner) / most
        return total
    most = _most(f, L, int(mark[:L].sum()))
    return before / most if most != 0 else 0.0


def _declare(root: str, name: str, alias: str, kind: str, params: tuple, doc: str):
    def compute(batch, p):
        return fairness(batch, p, kind)

    compute.__doc__, compute.__name__ = doc, root
    registered = measure(root, SOURCE, named=params, **FAIRNESS)(compute)
    registered.expected(compute)

    def resolve(spelled, p, version):
        if p["tie_breaking"] == "random":
            raise ValueError("tie_breaking='random' would change the value from run to run: use group-ascending, "
                             "group-descending or a preference list")
        return named_value(spelled, root, p)
    spelling(name, params=params, at="cutoff", aliases=(alias,), peer="fairness (ir_measures pull request 43)",
             examples=(f"{name}@10", f"{name}(protected_group='majority')@5",
                       f"{name}(tie_breaking='group-ascending')"))(resolve)


_declare("rnd", "rND", "NormalizedDiscountedDifference", "rnd", PARAMS,
         "rND = Σ_{i<L} |s⁺_i/(i + 1) − S⁺/n| / log2(i + 1) over its largest value (Yang & Stoyanovich 2017, "
         "eq. 1, with ir_measures' prefixes).")
_declare("rkl", "rKL", "NormalizedDiscountedKlDivergence", "rkl", (*PARAMS, CORRECT),
         "rKL = Σ_{i<L} KL(P_i ‖ Q) / log2(i + 1) over its largest value (Yang & Stoyanovich 2017, eq. 3).")
_declare("rrd", "rRD", "NormalizedDiscountedRatio", "rrd", PARAMS,
         "rRD = Σ_{i<L} |s⁺_i/s⁻_i − S⁺/S⁻| / log2(i + 1) over its largest value "
         "(Yang & Stoyanovich 2017, eq. 2).")
