"""rankeval's own IR measures that ir_measures names: ERR@k (gdeval's), Judged@k, nDCG with exponential
gain (ir_measures' ``nDCG(dcg='exp-log2')``; its spelling is nDCG's, in trec_eval's gain family) and
rankDCG.

Notation as in :mod:`rankeval_cli.measures.trec.counts`: g_i the relevance value at position i
(−1 not in the qrels, −2 a negative grade), n the documents retrieved.
"""

from __future__ import annotations

import numpy as np

from ..trec.legacy import legacy_values
from ..trec.registry import measure, spelling
from ..trec.spell import CUTOFF, named_value

#: ERR's and Judged's parameter
AT = (CUTOFF,)


@measure("err", "Chapelle et al. 2009, eq. 4 (gdeval, the TREC Web track's script)", kind="named", named=AT,
         in_trec_eval=False, family="rankeval")
def err(qb, params):
    """ERR@k = Σ_{i≤k} (R_i / i) Π_{j<i} (1 − R_j), R_i = (2^{g_i} − 1) / 2^{g_max} (Chapelle,
    Metzler, Zhang & Grinspan 2009, eq. 4), g_max the top of the grade scale (``--rel-max
    scale:G``, default 4; a grade above it is an error), negative and unjudged values 0: gdeval's
    computation. The expected value over tied orders uses the elementary symmetric polynomials of
    each block's stopping probabilities."""
    return legacy_values(qb, "err", (params.named()["cutoff"],), expected=False)


@err.expected
def err_expected(qb, params):
    return legacy_values(qb, "err", (params.named()["cutoff"],))


@measure("judged", "ir_measures (its judged provider, after OpenNIR)", kind="named", named=AT, in_trec_eval=False,
         family="rankeval", better="none")
def judged(qb, params):
    """Judged@k = (documents in the qrels among the first min(k, n)) / min(k, n): g_i ≠ −1 (a
    negative grade is in the qrels); 0 when n = 0. The expected value: each row's chance to be
    judged is its tie block's share of judged rows."""
    return legacy_values(qb, "judged", (params.named()["cutoff"],), expected=False)


@judged.expected
def judged_expected(qb, params):
    return legacy_values(qb, "judged", (params.named()["cutoff"],))


@measure("rankdcg", "Katerenchuk & Rosenberg 2016", kind="named", in_trec_eval=False, family="rankeval")
def rank_dcg(qb, params):
    """rankDCG (Katerenchuk & Rosenberg 2016, :mod:`rankeval_cli.measures.rankdcg`) of the retrieved
    documents ranked by their grades (unjudged and negative = 0); 0 when they all share one grade."""
    return legacy_values(qb, "rankdcg", (None,), expected=False)


@rank_dcg.expected
def rank_dcg_expected(qb, params):
    return legacy_values(qb, "rankdcg", (None,))


# ---- rankeval's nDCG with exponential gain ----------------------------------------------------

@measure("ndcg_exp", "Burges et al. 2005 (ir_measures' nDCG(dcg='exp-log2'))", kind="named", named=AT,
         in_trec_eval=False, family="rankeval")
def ndcg_exponential(qb, params):
    """nDCG@k with gain 2^g − 1 (Burges et al. 2005): Σ_{i≤k} (2^{g_i} − 1)/log2(i + 1) over the
    same sum of the query's judged grades sorted highest first (unretrieved ones included);
    negative and unjudged values gain 0; 0 when the ideal sum is 0."""
    return legacy_values(qb, "ndcg", (params.named()["cutoff"],), expected=False, gain="exp")


@ndcg_exponential.expected
def ndcg_exponential_expected(qb, params):
    return legacy_values(qb, "ndcg", (params.named()["cutoff"],), gain="exp")


# ---- ir_measures' spellings (rankDCG is rankeval's) ---------------------------------------------

@spelling("ERR", params=AT, at="cutoff", peer="gdeval", examples=("ERR@20", "ERR"))
def _spell_err(name, p, version):
    return named_value(name, "err", p)


@spelling("Judged", params=AT, at="cutoff", peer="judged", examples=("Judged@5", "Judged@10", "Judged"))
def _spell_judged(name, p, version):
    return named_value(name, "judged", p)


@spelling("rankDCG", peer="", examples=("rankDCG",))
def _spell_rankdcg(name, p, version):
    return named_value(name, "rankdcg", p)
