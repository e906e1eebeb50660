"""System-level scores from pairwise statistics; higher score = better.

Every function takes a :class:`~.win_counts.PairStats` (possibly with leading replicate
axes) and returns scores of shape ``(..., K)``. Notation: W = ``wins`` (W[i, j] =
comparisons *i* won against *j*), T = ``ties``, w_i = Σ_j W[i, j] (wins),
l_i = Σ_j W[j, i] (losses), t_i = Σ_j T[i, j] (ties), K = number of items.

=================  =====================================================  ===========================
method             score_i                                                source
=================  =====================================================  ===========================
``borda``          Σ over lists of (N − r), ties sharing their mean;       de Borda 1781
                   see :func:`borda`
``fv``             Σ_j P_ij, P_ij = W_ij / (W_ij + W_ji + T_ij)             Duh 2008 §3.2
``ge-others``      (w_i + t_i) / (w_i + l_i + t_i)                          WMT07-11; Li, Jiang & Wang 2013 §3
``gt-others``      w_i / (w_i + l_i)                                        WMT12 (Bojar et al. 2011)
``expected-wins``  1/(K−1) Σ_{j≠i} W_ij / (W_ij + W_ji), 0 if never         WMT13 (Koehn 2012)
                   decided
``copeland``       Σ_j sign(W_ij − W_ji): majority wins − majority losses   Copeland 1951
``kemeny``         K − position in the Kemeny-optimal order                 see :mod:`.kemeny`
``bradley-terry``  log-strength θ_i, regularized maximum likelihood         see :mod:`.bradley_terry`
=================  =====================================================  ===========================

A ratio with a zero denominator (an item never compared) is undefined: NaN, ranked
after every defined score. Ties between scores are broken by item id (items are kept
sorted by id, so by index): see :func:`rank_positions`.
"""

from __future__ import annotations

import numpy as np

from ..vocabulary import BORDA_MISSING, BORDA_POINTS, FV_DENOMINATORS
from .win_counts import PairStats

#: Scores equal after rounding to this many decimals are tied (summed fractions such
#: as 1/3 + 2/3 and 2/3 + 1/3 may differ in the last bit).
TIE_DECIMALS = 9


def _ratio(num: np.ndarray, den: np.ndarray, empty: float = np.nan) -> np.ndarray:
    """num / den, ``empty`` where den == 0."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.full(np.broadcast_shapes(num.shape, den.shape), empty)
    np.divide(num, den, out=out, where=den != 0)
    return out


def _swap(m: np.ndarray) -> np.ndarray:
    return np.swapaxes(m, -1, -2)


def borda(stats: PairStats, missing: str = "ignore", points: str = "n-r") -> np.ndarray:
    """Borda count (de Borda 1781): an item at position r of an N-list earns N − r points.

    Tied items share the mean of the points of the positions they span, which is
    (items strictly below) + ½ (other items tied with it); so a list's points are
    w + t/2 in that list, and the sum over lists is w_i + t_i / 2.
    ``points="n-r+1"`` adds one point per list position (the seed's code, 0-based r).

    Items absent from a list (or blank in it), ``missing``:

    * ``ignore``: the list is N = its ranked items; an absent item earns nothing.
    * ``bottom``: the list is extended to all K items; absent items share the bottom
      positions n+1..K, each earning (K − n − 1)/2 (+1), and every ranked item earns
      K − n more than under ``ignore``.
    """
    if missing not in BORDA_MISSING:
        raise ValueError(f"missing must be one of {BORDA_MISSING}, not {missing!r}")
    if points not in BORDA_POINTS:
        raise ValueError(f"points must be one of {BORDA_POINTS}, not {points!r}")
    w = stats.wins.sum(-1).astype(np.float64)
    t = stats.ties.sum(-1).astype(np.float64)
    score = w + t / 2
    present = np.asarray(stats.present, dtype=np.float64)
    if missing == "bottom":
        k = stats.n_items
        n_groups = np.asarray(stats.n_groups, dtype=np.float64)[..., None]
        total_len = np.asarray(stats.total_len, dtype=np.float64)[..., None]
        present_len = np.asarray(stats.present_len, dtype=np.float64)
        score = score + k * present - present_len  # Σ_{lists with i} (K − n)
        score = score + ((k - 1) * (n_groups - present) - (total_len - present_len)) / 2
        if points == "n-r+1":
            score = score + n_groups
    elif points == "n-r+1":
        score = score + present
    return score


def fv(stats: PairStats, denominator: str = "pair") -> np.ndarray:
    """Duh's FV heuristic (Duh 2008 §3.2): score_i = Σ_j P_ij.

    ``denominator="pair"``: P_ij = W_ij / (comparisons of i and j),
    0 for a pair never compared. ``"all"`` (the seed's literal wording): W_ij / the
    number of groups. Both agree when every group ranks every item.
    """
    if denominator not in FV_DENOMINATORS:
        raise ValueError(f"denominator must be one of {FV_DENOMINATORS}, not {denominator!r}")
    w = stats.wins
    if denominator == "all":
        den = np.asarray(stats.n_groups, dtype=np.float64)[..., None, None]
    else:
        den = w + _swap(w) + stats.ties
    return _ratio(w, den, 0.0).sum(-1)


def ge_others(stats: PairStats) -> np.ndarray:
    """WMT07-11 "≥ others": (wins + ties) / (wins + losses + ties) of the item's comparisons."""
    w, l, t = stats.wins.sum(-1), stats.wins.sum(-2), stats.ties.sum(-1)
    return _ratio(w + t, w + l + t)


def gt_others(stats: PairStats) -> np.ndarray:
    """WMT12 "> others": wins / (wins + losses); ties are left out."""
    w, l = stats.wins.sum(-1), stats.wins.sum(-2)
    return _ratio(w, w + l)


def expected_wins(stats: PairStats) -> np.ndarray:
    """WMT13 expected wins: 1/(K−1) Σ_{j≠i} W_ij / (W_ij + W_ji); an undecided pair adds 0."""
    w = stats.wins
    share = _ratio(w, w + _swap(w), 0.0).sum(-1)
    return _ratio(share, np.full(share.shape, stats.n_items - 1.0))


def copeland(stats: PairStats) -> np.ndarray:
    """Copeland: pairs won by majority minus pairs lost (equal or never compared: 0)."""
    w = stats.wins
    return np.sign(w - _swap(w)).sum(-1).astype(np.float64)


def rank_positions(scores: np.ndarray) -> np.ndarray:
    """1-based positions after sorting by score (higher first), then by index (item id).

    Scores equal to ``TIE_DECIMALS`` decimals are tied; NaN scores come last. Works
    along the last axis of any array.
    """
    scores = np.asarray(scores, dtype=np.float64)
    order = sort_order(scores)
    positions = np.empty_like(order)
    np.put_along_axis(positions, order, np.broadcast_to(np.arange(1, scores.shape[-1] + 1), order.shape), axis=-1)
    return positions


def sort_order(scores: np.ndarray) -> np.ndarray:
    """Indices sorting the last axis by score (higher first), NaN last, then by index."""
    scores = np.asarray(scores, dtype=np.float64)
    undefined = np.isnan(scores)
    key = np.where(undefined, 0.0, -np.round(scores, TIE_DECIMALS))
    index = np.broadcast_to(np.arange(scores.shape[-1]), scores.shape)
    return np.lexsort((index, key, undefined), axis=-1)
