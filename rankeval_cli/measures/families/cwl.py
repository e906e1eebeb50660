"""C/W/L user models (Moffat et al. 2013; cwl_eval, Azzopardi, Thomas & Moffat 2019): INST, INSQ,
BPM, NERR8–NERR11, SDCG and RBP, as cwl_eval computes them (:mod:`.cwl_models`) and ir_measures
reaches them (its cwl_eval provider).

Gains: a grade is clipped to [min_rel, max_rel] (a negative grade first to 0) and scaled to
(grade − min_rel)/(max_rel − min_rel); RBP takes binary gains, 1 for a grade ≥ rel. A document the
qrels lack gains 0 (its residual counts it as 1), as do the positions past the ranking up to
N = 1000 (cwl_eval's ``max_n``); the first 1000 documents count. Costs are 1 per document. The value
is the expected utility per item EU; ``quantity`` picks another of cwl_eval's (ETU, EC, ETC, ED, or
the residual of one: ResEU, …), which ir_measures does not offer.
"""

from __future__ import annotations

import numpy as np

from ..trec.queries import NONPOOL
from ..trec.registry import Param, measure, one_order, spelling
from ..trec.spell import CUTOFF, CUTOFF_REQUIRED, MAX_REL, MIN_REL, REL, named_value, trec_value
from . import cwl_models as models

N = 1000  # cwl_eval's max_n, and ir_measures'
T_PARAM = Param("T", "float", 1.0, "the gain the user wants (scaled gains)")
QUANTITY = Param("quantity", "str", "EU", "which of cwl_eval's quantities", choices=models.QUANTITIES)
GRADED = (MIN_REL, MAX_REL, QUANTITY)
SOURCE = "cwl_eval 1.0.12 (Azzopardi, Thomas & Moffat 2019)"
CWL = dict(kind="named", in_trec_eval=False, family="cwl")
GAIN_DEPENDENT = one_order("its continuation probabilities depend on the gains above each position, so its "
                           "value is a ratio of sums over the order; no expected value is computed")


def _gains(qb, p: dict, best: bool) -> np.ndarray:
    """Per retrieved row its gain (NaN: a document the qrels lack)."""
    rel = qb.rel.astype(np.float64)
    if "min_rel" in p:
        low, high = p["min_rel"], p["max_rel"]
        if not low < high:
            raise ValueError(f"min_rel ({low}) must be less than max_rel ({high})")
        g = (np.clip(np.maximum(rel, 0.0), low, high) - low) / (high - low)
    else:
        g = (np.maximum(rel, 0.0) >= qb.level).astype(np.float64)
    g = np.where(qb.rel == NONPOOL, np.nan, g)
    if qb.expected:  # a gain-free model: the block mean of each position's gain (unjudged at the case's value)
        g = qb.block_mean(np.where(np.isnan(g), 1.0 if best else 0.0, g))
    return g


def cwl_values(qb, params, continuation) -> np.ndarray:
    """The quantity ``params`` asks for, per query, of the model ``continuation(vectors, **model params)``."""
    p = params.named()
    quantity = p.get("quantity", "EU")
    model = {k: v for k, v in p.items() if k not in ("min_rel", "max_rel", "quantity", "rel", "depth")}
    depth = p.get("depth")
    out = np.zeros(qb.n_queries)
    step = max(1, (1 << 20) // N)
    for lo in range(0, qb.n_queries, step):
        queries = np.arange(lo, min(lo + step, qb.n_queries))
        worst = models.Vectors(models.padded(_gains(qb, p, False), qb.offsets, N, 0.0, 0.0, queries, depth),
                               np.ones((len(queries), N)))
        best = None
        if quantity.startswith("Res"):
            best = models.Vectors(models.padded(_gains(qb, p, True), qb.offsets, N, 1.0, 1.0, queries, depth),
                                  np.ones((len(queries), N)))
        out[queries] = models.quantities(worst, best, lambda v: continuation(v, **model))[quantity]
    return out[:, None]


def _declare(root: str, name: str, continuation, params: tuple, doc: str, *, gain_free: bool, at=None,
             examples=()):
    """One C/W/L measure: its registry definition and its ir_measures spelling."""
    def compute(qb, p):
        return cwl_values(qb, p, continuation)

    compute.__doc__ = doc
    compute.__name__ = root
    ties = {} if gain_free else {"ties": GAIN_DEPENDENT}
    registered = measure(root, SOURCE, named=params, **CWL, **ties)(compute)
    if gain_free:
        registered.expected(compute)

    def resolve(spelled, p, version):
        return named_value(spelled, root, p)
    spelling(name, params=params, at=at, peer="cwl_eval", examples=examples or (name,))(resolve)


_declare("inst", "INST", models.inst, (T_PARAM, *GRADED),
         "INST (Moffat, Bailey, Scholer & Thomas 2015): C_i = ((i + T + T_i − 1)/(i + T + T_i))², T_i = T − G_i; "
         "EU = Σ W_i g_i.", gain_free=False, examples=("INST(max_rel=3)", "INST(T=3.0,max_rel=3)"))
_declare("insq", "INSQ", models.insq, (T_PARAM, *GRADED),
         "INSQ (Moffat, Scholer & Thomas 2012): C_i = ((i + 2T − 1)/(i + 2T))²; EU = Σ W_i g_i.", gain_free=True,
         examples=("INSQ(max_rel=3)", "INSQ(T=2.0,max_rel=3)"))
_declare("bpm", "BPM", lambda v, T, cutoff: models.bpm(v, T, cutoff), (CUTOFF_REQUIRED, T_PARAM, *GRADED),
         "BPM, static (Zhang et al. 2017): C_i = 1 while G_i < T and i < k, else 0 (costs 1 each); "
         "EU = Σ W_i g_i.", gain_free=False, at="cutoff",
         examples=("BPM(T=1.0,max_rel=3)@10", "BPM(T=2.0,min_rel=1,max_rel=3)@20"))
_declare("sdcg", "SDCG", lambda v, cutoff, dcg: models.sdcg(v, cutoff),
         (CUTOFF_REQUIRED, Param("dcg", "str", "log2", "the discount", choices=("log2",)), *GRADED),
         "SDCG@k (Järvelin & Kekäläinen 2002, scaled): C_i = log2(i + 1)/log2(i + 2) for i < k; "
         "EU = Σ_{i≤k} g_i / log2(i + 1) / Σ_{i≤k} 1/log2(i + 1).", gain_free=True, at="cutoff",
         examples=("SDCG(max_rel=3)@10", "SDCG(min_rel=1,max_rel=3)@5"))
_declare("nerr8", "NERR8", lambda v, cutoff: models.nerr8(v, cutoff), (CUTOFF_REQUIRED, *GRADED),
         "NERR8 (Azzopardi, Mackenzie & Moffat 2021, eq. 8): C_i = 1 − g_i for i < k, 0 after.", gain_free=False,
         at="cutoff", examples=("NERR8(max_rel=3)@10",))
_declare("nerr9", "NERR9", lambda v, cutoff: models.nerr9(v, cutoff), (CUTOFF_REQUIRED, *GRADED),
         "NERR9 (Azzopardi, Mackenzie & Moffat 2021, eq. 9): C_i = (i/(i + 1))(1 − g_i) for i < k, 0 after.",
         gain_free=False, at="cutoff", examples=("NERR9(max_rel=3)@10",))
_declare("nerr10", "NERR10", models.nerr10, (Param("p", "float", 0.9, "persistence"), *GRADED),
         "NERR10 (Azzopardi, Mackenzie & Moffat 2021, eq. 10): C_i = p (1 − g_i).", gain_free=False,
         examples=("NERR10(max_rel=3)", "NERR10(p=0.7,max_rel=3)"))
_declare("nerr11", "NERR11", models.nerr11, (T_PARAM, *GRADED),
         "NERR11 (Azzopardi, Mackenzie & Moffat 2021, eq. 11): C_i = ((i + 2T − 1)/(i + 2T))² (1 − g_i).",
         gain_free=False, examples=("NERR11(max_rel=3)", "NERR11(T=2.0,max_rel=3)"))


@measure("rbp_cwl", SOURCE, named=(Param("p", "float", 0.8, "persistence"),
                                   Param("depth", "int", None, "the documents that count (RBP@k)", low=1), QUANTITY),
         **CWL)
def rbp_cwl(qb, params):
    """RBP as a C/W/L model (Moffat & Zobel 2008): C_i = p, so W_i = p^{i−1} / Σ_{j≤N} p^{j−1} over N =
    1000 positions, and binary gains, 1 for a grade ≥ rel, of the first k documents (@k): EU = Σ W_i g_i
    (trec_eval's rbp with the weights normalized over N; ResEU counts the unjudged documents and the
    positions past the ranking as relevant)."""
    return cwl_values(qb, params, models.rbp)


rbp_cwl.expected(rbp_cwl)


@spelling("RBP", params=(CUTOFF, Param("p", "float", 0.8, "persistence"), REL, QUANTITY), at="cutoff", peer="cwl_eval",
          examples=("RBP(rel=1)", "RBP(p=0.5,rel=2)", "RBP(rel=1,quantity='ResEU')", "RBP", "RBP(p=0.9)@20"))
def _spell_rbp(name, p, version):
    """RBP(rel=ℓ): the C/W/L model with binary gains (ir_measures' cwl_eval provider); without ``rel``
    (which ir_measures does not compute): trec_eval's rbp.p=x over graded gains; ``@k``: the first k
    documents."""
    if p["rel"] is None:
        if p["quantity"] != "EU":
            raise ValueError("quantity needs rel (the C/W/L model); trec_eval's rbp_resid is the graded residual")
        return trec_value(name, "rbp", f"p={p['p']!r}", version=version, depth=p["cutoff"])
    return named_value(name, "rbp_cwl", {**p, "depth": p["cutoff"]}, rel_level=p["rel"])
