"""Features for learning to rank translations: sentence-BLEU statistics and intra-set features.

Definitions, with their equations and sources, are in ``docs/learn-features.md``.

**Sentence-BLEU statistics** (Papineni et al. 2002; Duh 2008, Table 1). For a hypothesis
h and its reference r, both tokenized by sacreBLEU (Post 2018; tokenizer ``13a`` by
default): m_n = Σ_g min(count_h(g), count_r(g)) over the n-grams g of h (clipped
matches, Papineni et al. 2002 §2.1), t_n = the number of n-grams of h, n = 1..4, the
lengths c = |h| and ρ = |r| in tokens, the brevity penalty BP = 1 if c ≥ ρ else
exp(1 − ρ/c) (0 when c = 0; Papineni et al. 2002 §2.3), and sentence BLEU

    BLEU = 100 · BP · exp((1/N') Σ_{n≤N'} log p_n),   p_n = m_n / t_n,

with N' the number of orders whose t_n > 0 (sacreBLEU's ``effective_order``, as its
``sentence_bleu``). sacreBLEU's own code extracts (c, ρ, m_n, t_n) per sentence; the
scores are then computed from these statistics for a whole batch with numpy, following
sacreBLEU's ``BLEU.compute_bleu`` step for step (the tests check them against sacreBLEU's
``sentence_score``).

**Smoothing.** ``add-k`` with k = 1 (the default) adds one to m_n and t_n for n > 1:
exactly the smoothed BLEU of Lin & Och (2004), the add-one smoothing Duh (2008) used for his
"smoothed BLEU" (feature 13), and sacreBLEU's ``add-k`` (Chen & Cherry 2014, method 2).
``exp`` gives the k-th order with no match p_n = 1/(2^k t_n) (NIST mteval-v13a, Chen &
Cherry method 3); ``floor`` p_n = 0.1/t_n for orders with no match (method 1); ``none``
none. Whatever the method, a hypothesis with no matching n-gram at all scores 0
(sacreBLEU's rule).

**Intra-set features** (Duh 2008, §3.1, features 14-20), generalised: for any feature F
and each item of a group, its rank within the group (``F.rank``), whether it holds the
group's best value (``F.best``) or worst (``F.worst``), and its difference from the
group mean (``F.dmean``). Higher values are better: rank 1 is the highest value.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from ..vocabulary import DEFAULT_INTRA_KINDS, INTRA_KINDS, SMOOTH_DEFAULTS, SMOOTH_METHODS, TOKENIZERS

#: Highest n-gram order of the statistics (BLEU-4).
BLEU_ORDER = 4
#: sacreBLEU's floor for the log of a zero precision (``sacrebleu.utils.my_log``).
LOG_ZERO = -9999999999.0

#: Columns written by :func:`bleu_features`, in this order.
BLEU_COLUMNS = (
    "bleu", "bleu_unsmoothed", "bleu_bp", "bleu_ratio", "bleu_hyp_len", "bleu_ref_len",
    *(f"bleu_m{n}" for n in range(1, BLEU_ORDER + 1)),
    *(f"bleu_t{n}" for n in range(1, BLEU_ORDER + 1)),
    *(f"bleu_p{n}" for n in range(1, BLEU_ORDER + 1)),
)


# --- sentence BLEU ---------------------------------------------------------------------

def bleu_statistics(hypotheses: Sequence[str], references: Sequence[str], tokenize: str = "13a",
                    lowercase: bool = False) -> np.ndarray:
    """sacreBLEU's sufficient statistics of each hypothesis against its one reference.

    Returns an (n, 2 + 2·4) int64 array in sacreBLEU's order: hypothesis length c,
    reference length ρ (tokens), matches m_1..m_4, totals t_1..t_4. The engine is
    sacreBLEU's public ``BLEU.sentence_score`` (one call per sentence: its
    tokenizer and n-gram counting), with smoothing off so that the counts it
    reports are the raw ones.
    """
    from sacrebleu.metrics import BLEU

    if tokenize not in TOKENIZERS:
        raise ValueError(f"unknown tokenizer {tokenize!r}; expected one of {', '.join(TOKENIZERS)}")
    bleu = BLEU(tokenize=tokenize, lowercase=lowercase, smooth_method="none", effective_order=True)
    stats = np.zeros((len(hypotheses), 2 + 2 * BLEU_ORDER), dtype=np.int64)
    for i, (hyp, ref) in enumerate(zip(hypotheses, references)):
        score = bleu.sentence_score(hyp, [ref])
        stats[i, 0] = score.sys_len
        stats[i, 1] = score.ref_len
        stats[i, 2:2 + BLEU_ORDER] = score.counts
        stats[i, 2 + BLEU_ORDER:] = score.totals
    return stats


def brevity_penalty(hyp_len: np.ndarray, ref_len: np.ndarray) -> np.ndarray:
    """BP = 1 if c ≥ ρ, else exp(1 − ρ/c); 0 when c = 0 (Papineni et al. 2002 §2.3)."""
    hyp_len = np.asarray(hyp_len, dtype=np.float64)
    ref_len = np.asarray(ref_len, dtype=np.float64)
    bp = np.ones(len(hyp_len))
    short = hyp_len < ref_len
    with np.errstate(divide="ignore"):
        bp[short] = np.where(hyp_len[short] > 0, np.exp(1 - ref_len[short] / np.maximum(hyp_len[short], 1)), 0.0)
    return bp


def bleu_scores(stats: np.ndarray, smooth: str = "add-k", smooth_value: float | None = None,
                effective_order: bool = True) -> np.ndarray:
    """Sentence BLEU (0-100) of every row of ``stats`` (as :func:`bleu_statistics` returns).

    BLEU = 100 · BP · exp((1/N') Σ_{n≤N'} log p_n) (Papineni et al. 2002 §2.3),
    smoothed by ``smooth`` (module doc), computed as sacreBLEU's ``compute_bleu``
    does: orders are taken up to the first with t_n = 0 (after add-k), N' is their
    number with ``effective_order`` (else 4, a missing order counting log 0), log 0 is
    floored at −9999999999, and a row without any match scores 0.
    """
    if smooth not in SMOOTH_DEFAULTS:
        raise ValueError(f"unknown smoothing {smooth!r}; expected one of {', '.join(SMOOTH_METHODS)}")
    k = SMOOTH_DEFAULTS[smooth] if smooth_value is None else float(smooth_value)
    stats = np.asarray(stats, dtype=np.float64).reshape(-1, 2 + 2 * BLEU_ORDER)
    raw_matches = stats[:, 2:2 + BLEU_ORDER]
    matches = raw_matches.copy()
    totals = stats[:, 2 + BLEU_ORDER:].copy()
    if smooth == "add-k":
        matches[:, 1:] += k
        totals[:, 1:] += k
    counted = np.logical_and.accumulate(totals > 0, axis=1)  # sacreBLEU stops at the first empty order
    orders = counted.sum(axis=1) if effective_order else np.full(len(stats), BLEU_ORDER)

    precision = np.zeros_like(matches)
    hit = counted & (matches > 0)
    precision[hit] = 100.0 * matches[hit] / totals[hit]
    miss = counted & (matches == 0)
    if smooth == "exp":
        halvings = np.cumsum(miss, axis=1)  # the j-th order without a match gets 1/2^j
        precision[miss] = 100.0 / (2.0 ** halvings[miss] * totals[miss])
    elif smooth == "floor":
        precision[miss] = 100.0 * k / totals[miss]

    positive = precision > 0
    log_p = np.full_like(precision, LOG_ZERO)
    log_p[positive] = np.log(precision[positive])
    log_sum = np.zeros(len(stats))
    for n in range(BLEU_ORDER):  # summed in sacreBLEU's order, n = 1, 2, ...
        log_sum = log_sum + np.where(n < orders, log_p[:, n], 0.0)
    scores = np.zeros(len(stats))
    scored = raw_matches.any(axis=1) & (orders > 0)
    bp = brevity_penalty(stats[:, 0], stats[:, 1])
    scores[scored] = bp[scored] * np.exp(log_sum[scored] / orders[scored])
    return scores


def bleu_features_from_statistics(stats: np.ndarray, smooth: str = "add-k") -> dict[str, np.ndarray]:
    """The :data:`BLEU_COLUMNS` (float64 arrays) from sacreBLEU statistics.

    ``bleu`` is smoothed by ``smooth`` (default add-one, Lin & Och 2004),
    ``bleu_unsmoothed`` is not (Duh 2008 features 13 and 12); ``bleu_ratio`` = c/ρ
    (feature 5); ``bleu_p<n>`` = m_n/t_n, 0 when t_n = 0 (features 6-9).
    """
    stats = np.asarray(stats, dtype=np.int64).reshape(-1, 2 + 2 * BLEU_ORDER)
    hyp_len = stats[:, 0].astype(np.float64)
    ref_len = stats[:, 1].astype(np.float64)
    out = {
        "bleu": bleu_scores(stats, smooth),
        "bleu_unsmoothed": bleu_scores(stats, "none"),
        "bleu_bp": brevity_penalty(hyp_len, ref_len),
    }
    with np.errstate(divide="ignore", invalid="ignore"):
        out["bleu_ratio"] = np.where(ref_len > 0, hyp_len / np.maximum(ref_len, 1), np.nan)
    out["bleu_hyp_len"] = hyp_len
    out["bleu_ref_len"] = ref_len
    matches = stats[:, 2:2 + BLEU_ORDER].astype(np.float64)
    totals = stats[:, 2 + BLEU_ORDER:].astype(np.float64)
    for n in range(BLEU_ORDER):
        out[f"bleu_m{n + 1}"] = matches[:, n]
    for n in range(BLEU_ORDER):
        out[f"bleu_t{n + 1}"] = totals[:, n]
    for n in range(BLEU_ORDER):
        out[f"bleu_p{n + 1}"] = np.divide(matches[:, n], totals[:, n], out=np.zeros(len(stats)),
                                          where=totals[:, n] > 0)
    return out


def bleu_features(hypotheses: Sequence[str], references: Sequence[str], tokenize: str = "13a",
                  lowercase: bool = False, smooth: str = "add-k") -> dict[str, np.ndarray]:
    """:func:`bleu_statistics` then :func:`bleu_features_from_statistics`."""
    return bleu_features_from_statistics(bleu_statistics(hypotheses, references, tokenize, lowercase), smooth)


# --- intra-set features ----------------------------------------------------------------

def intra_set_name(feature: str, kind: str) -> str:
    """Column name of an intra-set feature: ``FEATURE.KIND`` (e.g. ``bleu.rank``)."""
    return f"{feature}.{kind}"


def intra_set(values: Mapping[str, np.ndarray], offsets: np.ndarray,
              kinds: Sequence[str] = DEFAULT_INTRA_KINDS) -> dict[str, np.ndarray]:
    """Intra-set features of every feature in ``values`` over the groups of ``offsets``.

    For a feature F with values x_1..x_n in a group (higher = better), per item i:

    - ``F.rank``  = 1 + #{j: x_j > x_i} + (#{j ≠ i: x_j = x_i})/2: the rank from the
      highest value down, tied values sharing the mean of their positions (scipy
      ``rankdata(-x, "average")``);
    - ``F.best``  = 1 if x_i = max_j x_j else 0 (every tied maximum gets 1; Duh 2008
      §3.1, features 14-20);
    - ``F.worst`` = 1 if x_i = min_j x_j else 0;
    - ``F.dmean`` = x_i − (1/n) Σ_j x_j.

    Missing values (NaN) take no part: their own features are NaN and the others
    are computed over the present values. ``values`` maps feature names to float
    arrays (one value per row); values must be finite or NaN (ValueError on ±inf).
    All groups are computed at once (one sort and a few reductions per feature).
    Returns ``{F.KIND: float64 array}``, features in the given order, kinds in the
    order of ``kinds``.
    """
    from ..batch import group_index
    from ..ranks import normalize_ranks

    unknown = [k for k in kinds if k not in INTRA_KINDS]
    if unknown:
        raise ValueError(f"unknown intra-set kind {unknown[0]!r}; expected some of {', '.join(INTRA_KINDS)}")
    offsets = np.asarray(offsets, dtype=np.int64)
    sizes = np.diff(offsets)
    rows = group_index(offsets)
    starts = offsets[:-1][sizes > 0]
    nonempty = np.flatnonzero(sizes > 0)
    out: dict[str, np.ndarray] = {}
    for name, column in values.items():
        x = np.asarray(column, dtype=np.float64)
        if len(x) != offsets[-1]:
            raise ValueError(f"feature {name!r} has {len(x)} values for {offsets[-1]} rows")
        if np.isinf(x).any():
            raise ValueError(f"feature {name!r} has an infinite value")
        missing = np.isnan(x)
        for kind in kinds:
            if kind == "rank":
                result = normalize_ranks(x, offsets, "middle", higher_better=True)
            elif kind in ("best", "worst"):
                extreme = np.full(len(sizes), np.nan)
                if len(starts):
                    reduce = np.fmax if kind == "best" else np.fmin
                    extreme[nonempty] = reduce.reduceat(x, starts)
                result = (x == extreme[rows]).astype(np.float64)
            else:  # dmean
                present = np.bincount(rows, weights=~missing, minlength=len(sizes))
                total = np.bincount(rows, weights=np.where(missing, 0.0, x), minlength=len(sizes))
                with np.errstate(invalid="ignore", divide="ignore"):
                    mean = total / present
                result = x - mean[rows]
            result[missing] = np.nan
            out[intra_set_name(name, kind)] = result
    return out
