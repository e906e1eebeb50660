"""Reproducibility measures of Breuer et al. 2020 ("How to measure the reproducibility of
system-oriented IR experiments", SIGIR), as repro_eval (irgroup/repro_eval 0.5) computes them.

An original experiment has a baseline run b and an advanced run a; a reproduction has b' and
a'. Per-topic values come from rankeval's IR measures (any ``-m`` name). *Replicability*
(the same topics and qrels) compares the runs topic by topic; *reproducibility* (another
collection, ``--qrels-repro``) compares only the effects.

Document orderings (replicability; per topic, the mean over the topics of the reproduced run):

- **KTU** (Kendall's tau Union, §3.1): the first ``cutoff`` documents of both rankings (trec_eval's
  order), the union of their docnos sorted, and Kendall's τ_b between the union ranks of the
  original's i-th and the reproduction's i-th documents over the positions i; repro_eval needs
  equal lengths (scipy refuses others), rankeval pairs the first min(n, n') positions;
- **RBO** (§3.1, as repro_eval computes it after Clarke et al. 2020): Σ_{d=1}^{D} p^(d−1) |O_d ∩ R_d|/d
  / Σ_{d=1}^{D} p^(d−1), O_d and R_d the first d documents, D = ``cutoff`` (repro_eval: depth
  1000), p = 0.95.

Effectiveness (per measure m, over the topics of the original run):

- **RMSE** = √(mean_q (m_q − m'_q)²); **nRMSE** = RMSE / √(mean_q max(m_q, 1 − m_q)²) (§3.2);
- **ER** (Effect Ratio, §3.3) = mean_q (a'_q − b'_q) / mean_q (a_q − b_q);
- **ΔRI** (Delta Relative Improvement, §3.3) = RI − RI', RI = (mean a − mean b) / mean b;
- **p_t**: the two-sided t-test of the original against the reproduction, per run: paired
  (``scipy.stats.ttest_rel``) for replicability, unpaired with equal variances
  (``ttest_ind``) for reproducibility; as repro_eval, 1 when every p is undefined and the
  scores are equal.
"""

from __future__ import annotations

import math

import numpy as np


def ktu(orig: tuple, rep: tuple, cutoff: int) -> float:
    """KTU of one topic; ``orig``/``rep`` = (doc codes in docno order, scores)."""
    from ..measures.pairs import pair_counts
    from ..measures.tau import group_tau

    o, r = _first(*orig, cutoff), _first(*rep, cutoff)
    n = min(len(o), len(r))
    if n < 2:
        return float("nan")
    union = np.union1d(o, r)
    x, y = np.searchsorted(union, o[:n]).astype(float), np.searchsorted(union, r[:n]).astype(float)
    return float(group_tau("b", pair_counts(x, y, np.array([0, n])))[0])


def rbo_at(orig: tuple, rep: tuple, p: float, depth: int) -> float:
    """repro_eval's RBO of one topic: the p-weighted mean of the overlap shares up to ``depth``."""
    o, r = _first(*orig, depth), _first(*rep, depth)
    d = np.arange(1, depth + 1)
    seen = np.zeros(depth + 1)
    pos_o = {int(doc): i for i, doc in enumerate(o)}
    for j, doc in enumerate(r):  # a document counts from the depth at which both have listed it
        i = pos_o.get(int(doc))
        if i is not None:
            seen[max(i, j)] += 1
    overlap = np.cumsum(seen)[:depth]
    weight = p ** (d - 1.0)
    return float(np.sum(weight * overlap / d) / np.sum(weight))


def _first(doc, score, k):
    order = np.lexsort((-np.asarray(doc), -np.asarray(score, float)))[:k]
    return np.asarray(doc)[order]


def rmse(orig: np.ndarray, rep: np.ndarray) -> float:
    return math.sqrt(np.sum((orig - rep) ** 2) / len(orig)) if len(orig) else float("nan")


def nrmse(orig: np.ndarray, rep: np.ndarray) -> float:
    worst = rmse(np.maximum(orig, 1 - orig), np.zeros(len(orig)))
    return rmse(orig, rep) / worst if worst else float("nan")


def effect_ratio(orig_b, orig_a, rep_b, rep_a) -> float:
    den = float(np.mean(orig_a - orig_b))
    return float(np.mean(rep_a - rep_b)) / den if den else float("nan")


def delta_ri(orig_b, orig_a, rep_b, rep_a) -> float:
    def ri(b, a):
        mb = float(np.mean(b))
        return (float(np.mean(a)) - mb) / mb if mb else float("nan")
    return ri(orig_b, orig_a) - ri(rep_b, rep_a)


def t_test(orig: np.ndarray, rep: np.ndarray, paired: bool) -> float:
    from scipy.stats import ttest_ind, ttest_rel

    with np.errstate(all="ignore"):
        p = float((ttest_rel if paired else ttest_ind)(orig, rep).pvalue) if len(orig) > 1 else float("nan")
    if math.isnan(p) and len(orig) == len(rep) and np.array_equal(orig, rep):
        return 1.0
    return p
