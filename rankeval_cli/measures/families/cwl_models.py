"""The C/W/L framework (Moffat et al. 2013; Azzopardi, Thomas & Moffat 2019, cwl_eval), vectorized
over the queries of a batch: a user model is its continuation probabilities C_i (the chance to go
on from position i to i + 1), and every quantity follows from them.

With P_i = Π_{j<i} C_j (P_1 = 1) over the positions i = 1 … N of the ranking padded to N (cwl_eval's
``max_n``, 1000), g_i the gain and c_i the cost of position i, G_i and K_i their running sums:

- W_i = P_i / Σ_j P_j (the weight of position i; a few models define W themselves), L_i = P_i (1 − C_i)
  (the chance to stop there);
- EU = Σ W_i g_i (expected utility per item: the measure's value), ETU = Σ L_i G_i (expected total
  utility), EC = Σ W_i c_i, ETC = Σ L_i K_i, ED = Σ_j P_j = 1 / W_1 (expected depth);
- as cwl_eval computes them: a document the judgments lack gains 0 and costs the largest cost (the
  worst case), and the positions past the ranking gain 0; the *residuals* are the same quantities
  with unjudged documents and the positions past the ranking at the largest gain and the smallest
  cost (the best case), minus these.

Sums are formed in position order (``np.cumsum``), so no value depends on a BLAS build (cwl_eval's
``np.dot`` may differ in the last bits, which shows as ``-0.0000`` for a residual of 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import math

import numpy as np

#: cwl_eval's quantities and their residuals, in its column order
QUANTITIES = ("EU", "ETU", "EC", "ETC", "ED", "ResEU", "ResETU", "ResEC", "ResETC", "ResED")


@dataclass
class Vectors:
    """(queries × N) gains and costs of the padded rankings, their running sums, and positions."""

    g: np.ndarray
    c: np.ndarray

    @property
    def G(self) -> np.ndarray:
        return np.cumsum(self.g, axis=1)

    @property
    def K(self) -> np.ndarray:
        return np.cumsum(self.c, axis=1)

    @property
    def i(self) -> np.ndarray:
        """1-based positions, (1 × N)."""
        return np.arange(1, self.g.shape[1] + 1, dtype=np.float64)[None, :]


def padded(values: np.ndarray, offsets: np.ndarray, n: int, fill: float, pad: float, queries=None,
           cutoff: int | None = None) -> np.ndarray:
    """(queries × n): each query's values in order, NaN (a document the judgments lack) as ``fill``,
    the positions past its ranking (or past ``cutoff``) ``pad``; rankings longer than n are cut."""
    queries = np.arange(len(offsets) - 1) if queries is None else queries
    sizes = np.minimum(np.diff(offsets)[queries], n if cutoff is None else min(n, cutoff))
    out = np.full((len(queries), n), pad, dtype=np.float64)
    rows = np.repeat(np.arange(len(queries)), sizes)
    cols = np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    taken = np.asarray(values, dtype=np.float64)[np.repeat(offsets[queries], sizes) + cols]
    out[rows, cols] = np.where(np.isnan(taken), fill, taken)
    return out


def quantities(worst: Vectors, best: Vectors | None, continuation) -> dict:
    """cwl_eval's quantities (module docstring): ``continuation(vectors)`` gives C (or (C, W) for a model
    that defines its weights W itself); ``best`` the best-case vectors for the residuals (None: none)."""
    out = _scores(worst, *_pair(continuation(worst)))
    if best is not None:
        upper = _scores(best, *_pair(continuation(best)))
        out.update({f"Res{k}": upper[k] - out[k] for k in ("EU", "ETU", "EC", "ETC", "ED")})
    return out


def _last(matrix: np.ndarray) -> np.ndarray:
    """Per row, the sum of its entries added in order."""
    return np.cumsum(matrix, axis=1)[:, -1] if matrix.shape[1] else np.zeros(matrix.shape[0])


def _pair(model_out):
    return model_out if isinstance(model_out, tuple) else (model_out, None)


def _scores(v: Vectors, C: np.ndarray, W: np.ndarray | None = None) -> dict:
    """The quantities of one case. With the weights from C, W_i = P_i / Σ_j P_j, computed as the ratio
    Σ P_i x_i / Σ P_j (so EC is 1 exactly when every cost is 1)."""
    C = np.asarray(C, dtype=np.float64) * np.ones(v.g.shape)
    P = np.ones_like(C)
    if C.shape[1] > 1:
        P[:, 1:] = np.cumprod(C[:, :-1], axis=1)
    L = P * (1.0 - C)
    out = {"ETU": _last(L * v.G), "ETC": _last(L * v.K)}
    with np.errstate(divide="ignore", invalid="ignore"):
        if W is None:
            depth = _last(P)
            out.update(EU=_last(P * v.g) / depth, EC=_last(P * v.c) / depth, ED=depth)
        else:
            out.update(EU=_last(W * v.g), EC=_last(W * v.c), ED=1.0 / W[:, 0])
    return out


# ---- the user models: C_i of each ---------------------------------------------------------------

def rbp(v: Vectors, p: float) -> np.ndarray:
    """RBP (Moffat & Zobel 2008): C_i = p."""
    return np.full(v.g.shape, p)


def precision(v: Vectors, k: int) -> np.ndarray:
    """P@k: C_i = 1 for i < k, 0 after."""
    return np.where(v.i < k, 1.0, 0.0) * np.ones(v.g.shape)


def sdcg(v: Vectors, k: int) -> np.ndarray:
    """Scaled DCG@k (Järvelin & Kekäläinen 2002 as a user model): C_i = log2(i + 1)/log2(i + 2) for i < k
    (logarithms by the C library, as Python's ``math.log``)."""
    n = v.g.shape[1]
    c = np.array([math.log(i + 1, 2.0) / math.log(i + 2, 2.0) if i < k else 0.0 for i in range(1, n + 1)])
    return np.broadcast_to(c[None, :], v.g.shape)


def insq(v: Vectors, T: float) -> np.ndarray:
    """INSQ (Moffat, Scholer & Thomas 2012): C_i = ((i + 2T − 1)/(i + 2T))²."""
    i = v.i
    return (((i + 2.0 * T) - 1.0) / (i + 2.0 * T)) ** 2.0 * np.ones(v.g.shape)


def inst(v: Vectors, T: float) -> np.ndarray:
    """INST (Moffat, Bailey, Scholer & Thomas 2015): C_i = ((i + T + T_i − 1)/(i + T + T_i))², T_i = T − G_i."""
    i, Ti = v.i, T - v.G
    return (((i + T + Ti) - 1.0) / (i + T + Ti)) ** 2.0


def bpm(v: Vectors, T: float, K: float) -> np.ndarray:
    """BPM, static (Zhang et al. 2017): C_i = 1 while G_i < T and K_i < K (each from the first position
    on, until it first fails), else 0."""
    return ((np.cumprod(v.G < T, axis=1) * np.cumprod(v.K < K, axis=1)) > 0).astype(np.float64)


def nerr8(v: Vectors, k: int) -> np.ndarray:
    """NERR, Azzopardi, Mackenzie & Moffat (2021) eq. 8: C_i = 1 − g_i for i < k, 0 after."""
    return np.where(v.i < k, 1.0 - v.g, 0.0)


def nerr9(v: Vectors, k: int) -> np.ndarray:
    """NERR eq. 9: C_i = (i/(i + 1))(1 − g_i) for i < k, 0 after."""
    i = v.i
    return np.where(i < k, (1.0 * i / (i + 1.0)) * (1.0 - v.g), 0.0)


def nerr10(v: Vectors, p: float) -> np.ndarray:
    """NERR eq. 10: C_i = p (1 − g_i)."""
    return p * (1.0 - v.g)


def nerr11(v: Vectors, T: float) -> np.ndarray:
    """NERR eq. 11: C_i = ((i + 2T − 1)/(i + 2T))² (1 − g_i)."""
    i = v.i
    return (((i + 2.0 * T) - 1.0) / (i + 2.0 * T)) ** 2.0 * (1.0 - v.g)


def reciprocal_rank(v: Vectors) -> np.ndarray:
    """RR: C_i = 1 before the first position with a gain, 0 from it on."""
    return (np.cumsum(v.g > 0, axis=1) == 0).astype(np.float64)


# ---- the models only cwl_eval's metrics files name (rankeval cwl_eval) ------------------------------

def from_weights(W: np.ndarray):
    """(C, W) of a model given by its weights: C_i = W_{i+1} / W_i (0 where W_i = 0, and at the end)."""
    C = np.zeros_like(W)
    with np.errstate(divide="ignore", invalid="ignore"):
        C[:, :-1] = np.where(W[:, :-1] > 0, W[:, 1:] / np.where(W[:, :-1] > 0, W[:, :-1], 1.0), 0.0)
    return C, W


def npv(v: Vectors, rate: float) -> np.ndarray:
    """NPV (Azzopardi, Thomas & Moffat 2019): C_i = 1/(1 + rate)."""
    return np.full(v.g.shape, 1.0 / (1.0 + rate))


def set_measure(v: Vectors, beta: float, k: int) -> np.ndarray:
    """SET (Azzopardi 2014): C_i = w(i + 1)/w(i) for i < k, w(i) = (i + 1)^β − i^β."""
    i = v.i

    def w(x):
        return np.power(x + 1, beta) - np.power(x, beta)
    return np.where(i < k, w(i + 1) / w(i), 0.0) * np.ones(v.g.shape)


def average_precision(v: Vectors) -> np.ndarray:
    """AP as a C/W/L model: C_i = Σ_{j>i} g_j/j / Σ_{j≥i} g_j/j (0 when the numerator is 0, and at the end)."""
    r = v.g / v.i
    suffix = np.cumsum(r[:, ::-1], axis=1)[:, ::-1]
    C = np.zeros_like(r)
    with np.errstate(divide="ignore", invalid="ignore"):
        C[:, :-1] = np.where(suffix[:, 1:] > 0, suffix[:, 1:] / suffix[:, :-1], 0.0)
    return C


def tbg(v: Vectors, halflife: float):
    """TBG (Smucker & Clarke 2012): W_i ∝ D(K_{i−1}), D(x) = h 2^{−x/h} / ln 2, K_0 = 0."""
    def decay(x):
        return (halflife * np.power(2.0, -x / halflife)) / math.log(2.0, math.e)
    at = np.concatenate((np.zeros((v.g.shape[0], 1)), v.K[:, :-1]), axis=1)
    w = decay(at)
    return from_weights(w / np.cumsum(w, axis=1)[:, -1:])


def u_measure(v: Vectors, L: float):
    """U-measure (Sakai & Dou 2013): W_i ∝ max(0, 1 − K_{i−1}/L) for i < N, W_N = 0."""
    at = np.concatenate((np.zeros((v.g.shape[0], 1)), v.K[:, :-1]), axis=1)
    w = np.maximum(0.0, 1.0 - at / L)
    w[:, -1] = 0.0
    return from_weights(w / np.cumsum(w[:, :-1], axis=1)[:, -1:])


def ift(v: Vectors, goal=None, rate=None) -> np.ndarray:
    """IFT (Azzopardi, Thomas & Craswell 2018): C_i = c1(G_i) · c2(G_i/K_i), c1 = 1 − 1/(1 + b1 e^{(T−G)R1}),
    c2 = 1/(1 + b2 e^{(A − G/K)R2}); ``goal`` = (T, b1, R1), ``rate`` = (A, b2, R2), either or both."""
    C = np.ones(v.g.shape)
    if goal is not None:
        T, b1, R1 = goal
        C = C * (1.0 - np.power(1.0 + b1 * np.power(math.e, (T - v.G) * R1), -1.0))
    if rate is not None:
        A, b2, R2 = rate
        C = C * np.power(1.0 + b2 * np.power(math.e, (A - v.G / v.K) * R2), -1.0)
    return C


def bpm_dynamic(v: Vectors, T: float, K: float, hb: float, gain_med: float) -> np.ndarray:
    """BPM, dynamic, as cwl_eval computes it: C_i = 1 while G_i < T_i (T_1 = T, T_{i+1} = T_i + hb (g_i −
    median)) and K_i < K, else 0 (cwl_eval's update of the cost bound adds to T, which is read no more)."""
    steps = np.concatenate((np.full((v.g.shape[0], 1), float(T)), hb * (v.g[:, :-1] - gain_med)), axis=1)
    T_i = np.cumsum(steps, axis=1)  # T, then T + hb (g_1 − median), … added one after the other
    return ((np.cumprod(v.G < T_i, axis=1) * np.cumprod(v.K < K, axis=1)) > 0).astype(np.float64)


def truncated_ap(v: Vectors, rels: np.ndarray):
    """TrAP (Harman 1992, divided by the relevant documents R): W_i = G'_i / K_i / R (not normalized), G'
    the running gain with its leading zeros read as 1, R the larger of the judged relevant documents
    and the positions with a gain (the best case counts the unjudged); C_i = W_{i+1}/W_i."""
    rels = np.maximum(np.count_nonzero(v.g > 0, axis=1), rels)
    G = v.G.copy()
    lead = np.cumprod(G == 0, axis=1).astype(bool)
    lead[:, -1] = False
    G[lead] = 1.0
    w = G / v.K
    w = np.where(rels[:, None] > 0, w / np.where(rels > 0, rels, 1.0)[:, None], w)
    return from_weights(w)
