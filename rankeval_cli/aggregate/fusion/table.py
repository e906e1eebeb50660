"""Every run fusion method, one entry each: the table that --help, completion, the man page,
the docs and the tests read.

An entry (:class:`Method`) holds the name, the kernel, what the kernel reads (positions,
scores or both), its parameters with their defaults and search grids, whether it takes
per-run weights, what it learns from training qrels, a one-line description, the formula
and its source. A kernel maps the rows of a query set (:class:`.lists.Lists`: per row its
run, candidate, 1-based position pos, list length n and, for score-reading methods, the
normalized score s) to one fused score per candidate. Per candidate d of a query:
R is the set of runs, R_d the runs that retrieved d, w_r run r's weight (``--weights``,
default 1), C_q the query's candidates.

To add a method, add one entry to :data:`METHODS` (docs/design.md shows how).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from . import training
from .condorcet import condorcet
from .lists import Lists

SCORES, POSITIONS, BOTH = "scores", "positions", "positions+scores"


@dataclass(frozen=True)
class Param:
    """A method's parameter: its default, its valid range and the grid ``--optimize`` searches."""

    name: str
    default: float
    low: float
    high: float
    integer: bool = False
    grid: tuple = ()
    help: str = ""
    low_open: bool = False

    def parse(self, text: str):
        try:
            value = int(text) if self.integer else float(text)
        except ValueError:
            raise ValueError(f"{self.name} must be {'an integer' if self.integer else 'a number'}, not {text!r}") \
                from None
        if not (self.low < value if self.low_open else self.low <= value) or value > self.high or value != value:
            raise ValueError(f"{self.name} must be in {'(' if self.low_open else '['}{self.low:g}, {self.high:g}], "
                             f"not {text}")
        return value


@dataclass(frozen=True)
class Method:
    """One fusion method (see the module docstring)."""

    name: str
    kernel: Callable[[Lists, dict], np.ndarray]
    reads: str  # SCORES, POSITIONS or BOTH
    formula: str
    description: str
    source: str
    params: tuple = ()
    weighted: bool = False
    #: (lists, judged, params) -> model: what it learns from --train-qrels (None: nothing)
    train: Callable | None = None
    #: ranx's name, and its parameter names where they differ from ours (tests, docs)
    ranx: str = ""
    ranx_params: dict = field(default_factory=dict)
    aliases: tuple = ()

    @property
    def reads_scores(self) -> bool:
        return self.reads != POSITIONS

    @property
    def reads_positions(self) -> bool:
        return self.reads != SCORES

    def defaults(self) -> dict:
        return {p.name: p.default for p in self.params}


def _grid(low, high, step, digits=2):
    return tuple(round(low + i * step, digits) for i in range(int(round((high - low) / step)) + 1))


def _inverse_square(x: Lists) -> np.ndarray:
    return x.sum(1.0 / x.position.astype(np.float64) ** 2)


def _borda(x: Lists, p: dict) -> np.ndarray:
    """Σ_r w_r b_r(d): b_r(d) = |C_q| − pos + 1 if r retrieved d, else (|C_q| − n_r + 1)/2; computed
    as Σ_r w_r·share_r plus, per row, w_r·(points − share_r)."""
    c = x.candidates_per_query()
    share = (c[None, :] - x.list_sizes() + 1) / 2  # runs × queries
    base = (x.weights[:, None] * share).sum(axis=0)
    gain = (c[x.query] - x.position + 1) - share[x.run, x.query]
    return base[x.cand_query] + x.sum(x.row_weight() * gain)


def _median(x: Lists, p: dict) -> np.ndarray:
    order = np.lexsort((x.value, x.cand))
    v, counts = x.value[order], x.count().astype(np.int64)
    starts = np.cumsum(counts) - counts
    lo, hi = starts + (counts - 1) // 2, starts + counts // 2
    return (v[lo] + v[hi]) / 2


def _probfuse(x: Lists, p: dict) -> np.ndarray:
    size = np.maximum(np.ceil(x.length / p["segments"]).astype(np.int64), 1)
    seg = (x.position - 1) // size
    return x.sum(x.model[x.run, seg] / (seg + 1))


def _segfuse(x: Lists, p: dict) -> np.ndarray:
    seg = np.searchsorted(training.SEGFUSE_BOUNDS, x.position - 1, side="right") - 1
    inside = x.position <= training.SEGFUSE_BOUNDS[-1]
    prob = np.where(inside, x.model[x.run, np.minimum(seg, x.model.shape[1] - 1)], 0.0)
    return x.sum(prob * (x.value + 1))


def _at(model: np.ndarray, run: np.ndarray, index: np.ndarray, missing: float = 0.0) -> np.ndarray:
    """model[run, index], ``missing`` where index is past the model's width."""
    inside = index < model.shape[1]
    return np.where(inside, model[run, np.minimum(index, max(model.shape[1] - 1, 0))] if model.shape[1] else missing,
                    missing)


def _slidefuse(x: Lists, p: dict) -> np.ndarray:
    w, width = int(p["w"]), x.model.shape[1]
    cum = np.concatenate([np.zeros((x.n_runs, 1)), np.cumsum(x.model, axis=1)], axis=1)
    a = np.maximum(x.position - 1 - w, 0)
    b = np.minimum(x.position - 1 + w, x.length - 1)
    total = cum[x.run, np.minimum(b + 1, width)] - cum[x.run, np.minimum(a, width)]
    return x.sum(total / (b - a + 1))


def _bayesfuse(x: Lists, p: dict) -> np.ndarray:
    odds = _at(x.model, x.run, x.position - 1, training.MIN_LOG_ODDS)
    return x.n_runs * training.MIN_LOG_ODDS + x.sum(odds - training.MIN_LOG_ODDS)


K = Param("k", 60.0, 0.0, 1e9, grid=_grid(10, 100, 10), help="k of 1/(k + pos)")
GAMMA = Param("gamma", 0.5, 0.0, 1e9, grid=_grid(0.05, 1.0, 0.05), help="exponent of |R_d|")
SIGMA = Param("sigma", 0.01, 0.0, 1.0, grid=_grid(0.05, 1.0, 0.05), help="added to |R_d| in the log")
PHI = Param("phi", 0.8, 0.0, 1.0, grid=_grid(0.05, 0.95, 0.05), help="persistence", low_open=True)
SEGMENTS = Param("segments", 25, 1, 1e6, integer=True, grid=(2, 5, 10, 25, 50, 100), help="segments per list")
WINDOW = Param("w", 5, 0, 1e6, integer=True, grid=(1, 2, 5, 10, 20, 50), help="half-width of the window")

FOX_SHAW = "Fox & Shaw 1994, \"Combination of multiple searches\", TREC-2"
MOURAO = "Mourão, Martins & Magalhães 2015, \"Multimodal medical information retrieval with unsupervised rank " \
         "fusion\", CMIG 39"
WU = "Wu & Crestani 2002, \"Data fusion with estimated weights\", CIKM"
ASLAM = "Aslam & Montague 2001, \"Models for metasearch\", SIGIR"
CONDORCET = "Montague & Aslam 2002, \"Condorcet fusion for improved retrieval\", CIKM"
LILLIS10 = "Lillis, Zhang, Toolan, Collier, Leonard & Dunnion 2010, \"Estimating probabilities for effective " \
           "data fusion\", SIGIR"

#: name -> method; the order is that of --help and the docs
METHODS = {m.name: m for m in (
    Method("rrf", lambda x, p: x.sum(x.row_weight() / (p["k"] + x.position)), POSITIONS,
           "Σ_{r∈R_d} w_r / (k + pos_r(d))", "reciprocal rank fusion",
           "Cormack, Clarke & Büttcher 2009, \"Reciprocal rank fusion outperforms Condorcet and individual rank "
           "learning methods\", SIGIR, eq. 1", params=(K,), weighted=True, ranx="rrf",
           aliases=("reciprocal-rank-fusion",)),
    Method("combsum", lambda x, p: x.sum(x.value), SCORES, "Σ_{r∈R_d} s_r(d)", "sum of the normalized scores",
           FOX_SHAW, ranx="sum", aliases=("comb-sum", "sum")),
    Method("combmnz", lambda x, p: x.sum(x.value) * x.count(), SCORES, "|R_d| · Σ_{r∈R_d} s_r(d)",
           "CombSUM times the number of runs that retrieved d", FOX_SHAW, ranx="mnz", aliases=("comb-mnz", "mnz")),
    Method("combmax", lambda x, p: x.extreme(np.maximum, x.value, -1e9), SCORES,
           "max_{r∈R_d} s_r(d) (a run that lacks d counts −10⁹, as in ranx)", "largest normalized score",
           FOX_SHAW, ranx="max", aliases=("comb-max", "max")),
    Method("combmin", lambda x, p: x.extreme(np.minimum, x.value, 1e9), SCORES,
           "min_{r∈R_d} s_r(d) (a run that lacks d counts 10⁹, as in ranx)", "smallest normalized score",
           FOX_SHAW, ranx="min", aliases=("comb-min", "min")),
    Method("combmed", _median, SCORES, "median_{r∈R_d} s_r(d)", "median normalized score", FOX_SHAW,
           ranx="med", aliases=("comb-med", "med")),
    Method("combanz", lambda x, p: x.sum(x.value) / x.count(), SCORES, "Σ_{r∈R_d} s_r(d) / |R_d|",
           "mean normalized score over the runs that retrieved d", FOX_SHAW, ranx="anz",
           aliases=("comb-anz", "anz")),
    Method("combgmnz", lambda x, p: x.sum(x.value) * x.count() ** p["gamma"], SCORES,
           "|R_d|^γ · Σ_{r∈R_d} s_r(d)", "CombSUM times |R_d| to the power gamma",
           "Lee 1997, \"Analyses of multiple evidence combination\", SIGIR", params=(GAMMA,), ranx="gmnz",
           aliases=("comb-gmnz", "gmnz")),
    Method("isr", lambda x, p: _inverse_square(x) * x.count(), POSITIONS, "|R_d| · Σ_{r∈R_d} 1 / pos_r(d)²",
           "inverse square rank", MOURAO, ranx="isr"),
    Method("log-isr", lambda x, p: _inverse_square(x) * np.log(x.count()), POSITIONS,
           "log|R_d| · Σ_{r∈R_d} 1 / pos_r(d)²", "inverse square rank, log of the runs retrieving d",
           MOURAO, ranx="log_isr"),
    Method("logn-isr", lambda x, p: _inverse_square(x) * np.log(x.count() + p["sigma"]), POSITIONS,
           "log(|R_d| + σ) · Σ_{r∈R_d} 1 / pos_r(d)²", "log-isr with sigma added to the count", MOURAO,
           params=(SIGMA,), ranx="logn_isr"),
    Method("rbc", lambda x, p: x.sum((1 - p["phi"]) * p["phi"] ** (x.position - 1.0)), POSITIONS,
           "Σ_{r∈R_d} (1 − φ) φ^(pos_r(d) − 1)", "rank-biased centroid",
           "Bailey, Moffat, Scholer & Thomas 2017, \"Retrieval consistency in the presence of query variations\", "
           "SIGIR, §4", params=(PHI,), ranx="rbc"),
    Method("wsum", lambda x, p: x.sum(x.row_weight() * x.value), SCORES, "Σ_{r∈R_d} w_r s_r(d)",
           "weighted sum of the normalized scores", WU, weighted=True, ranx="wsum", aliases=("weighted-sum",)),
    Method("wmnz", lambda x, p: x.sum(x.value) * x.sum(x.row_weight()), SCORES,
           "Σ_{r∈R_d} w_r · Σ_{r∈R_d} s_r(d)", "CombSUM times the weights of the runs that retrieved d", WU,
           weighted=True, ranx="wmnz"),
    Method("mixed", lambda x, p: x.sum(x.row_weight() * x.value) * np.sqrt(x.count()), SCORES,
           "√|R_d| · Σ_{r∈R_d} w_r s_r(d)", "weighted sum times the square root of |R_d|", WU, weighted=True,
           ranx="mixed"),
    Method("borda-fuse", _borda, POSITIONS,
           "Σ_r w_r b_r(d), b_r(d) = |C_q| − pos_r(d) + 1 if d∈r, else (|C_q| − n_r + 1)/2",
           "Borda count, unretrieved candidates sharing the points left", ASLAM + ", §3", ranx="bordafuse",
           aliases=("bordafuse",)),
    Method("w-borda-fuse", _borda, POSITIONS, "borda-fuse with run weights w_r",
           "weighted Borda count", ASLAM + ", §3", weighted=True, ranx="w_bordafuse",
           aliases=("w-bordafuse", "weighted-borda-fuse")),
    Method("condorcet", condorcet, POSITIONS,
           "order by pairwise majorities (Copeland score, then docno descending); score |C_q| − rank + 1",
           "Condorcet fuse", CONDORCET + ", §3", ranx="condorcet"),
    Method("w-condorcet", condorcet, POSITIONS, "condorcet with votes weighted by w_r", "weighted Condorcet fuse",
           CONDORCET + ", §3", weighted=True, ranx="w_condorcet", aliases=("weighted-condorcet",)),
    Method("probfuse", _probfuse, POSITIONS, "Σ_{r∈R_d} P_r(seg_r(d)) / seg_r(d), segments of ⌈n_r/x⌉ positions",
           "probability of relevance per segment, learned", "Lillis, Toolan, Collier & Dunnion 2006, "
           "\"ProbFuse: a probabilistic approach to data fusion\", SIGIR, eq. 1-2", params=(SEGMENTS,),
           train=lambda x, j, p: training.probfuse(x, j, int(p["segments"])), ranx="probfuse",
           ranx_params={"segments": "n_segments"}),
    Method("segfuse", _segfuse, BOTH, "Σ_{r∈R_d} P_r(seg(pos_r(d))) · (s_r(d) + 1), segments of 10·2^(k−1) − 5",
           "probability per exponentially growing segment times the score, learned",
           "Shokouhi 2007, \"Segmentation of search engine results for effective data-fusion\", ECIR, eq. 2",
           train=lambda x, j, p: training.segfuse(x, j), ranx="segfuse"),
    Method("slidefuse", _slidefuse, POSITIONS,
           "Σ_{r∈R_d} mean of P_r(i) over the positions i within w of pos_r(d)",
           "probability of relevance per position, smoothed over a window, learned",
           "Lillis, Toolan, Collier & Dunnion 2008, \"Extending probabilistic data fusion using sliding windows\", "
           "ECIR", params=(WINDOW,), train=lambda x, j, p: training.positions(x, j), ranx="slidefuse"),
    Method("posfuse", lambda x, p: x.sum(_at(x.model, x.run, x.position - 1)), POSITIONS,
           "Σ_{r∈R_d} P_r(pos_r(d))", "probability of relevance per position, learned", LILLIS10,
           train=lambda x, j, p: training.positions(x, j), ranx="posfuse"),
    Method("mapfuse", lambda x, p: x.sum(x.model[x.run] / x.position), POSITIONS, "Σ_{r∈R_d} MAP_r / pos_r(d)",
           "each run's training MAP over the position", LILLIS10,
           train=lambda x, j, p: training.mean_ap(x, j), ranx="mapfuse"),
    Method("bayesfuse", _bayesfuse, POSITIONS,
           "Σ_r log odds of relevance at pos_r(d), log(0.001/0.999) where r lacks d",
           "log odds of relevance per rank bin, learned", ASLAM + ", §3.1",
           train=lambda x, j, p: training.bayes_log_odds(x, j), ranx="bayesfuse"),
)}
DEFAULT_METHOD = "rrf"


def aliases() -> dict:
    """alias -> method name, for every method."""
    return {alias: m.name for m in METHODS.values() for alias in m.aliases}
