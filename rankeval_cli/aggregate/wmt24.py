"""WMT24's ranking of systems from ESA scores: domain macro-averages, per-domain signed-rank
tests combined by Stouffer's method, and WMT24's clusters (``aggregate --method z-score
--protocol wmt24``).

Read from WMT24's ``humeval/calculate_clusters.py`` and ``tools.py``
(wmt-conference/wmt24-news-systems; Kocmi et al. 2024, "Findings of the WMT24 General
Machine Translation Shared Task"). The judgments enter as :mod:`.judgments` collects them,
with a judge's last score of an item replacing the earlier ones; r̄_sg is the mean
score of system s on segment g (x = the ESA score, or z with ``rank_by="z"``), and
every segment lies in one domain δ(g).

1. **Domain macro-average**: m_sd = mean of r̄_sg over the segments g of domain d that
   s was scored on; value_s = mean of m_sd over the D_s domains where s has segments.
2. **Order** by value_s, higher first; equal values by system id.
3. **Tests**, for every ordered pair (a, b), a ≠ b: on the segments both were scored
   on, per domain d the differences d_g = r̄_ag − r̄_bg and the two-sided Wilcoxon
   signed-rank p_d (:mod:`.signed_rank`; ``test_method`` ``scipy-1.14``, the rule of
   the scipy WMT24 ran, by default); the D domains with shared segments combined by
   Stouffer's method with equal weights (:mod:`.stouffer`, the complements in floating
   point as WMT24 computes them): p_ab = 1 − Φ(Σ_d Φ⁻¹(1 − p_d)/√D). p_ab and p_ba are
   equal except where the scipy-1.14 rule makes them differ.
4. **Wins and losses**: for a ≠ b with p_ab < α, a gets a win when value_a > value_b,
   else a loss (b's p_ba counts for b). Rank range lo = losses + 1, hi = K − wins.
5. **Clusters**: walking down the order, a cluster ends after position i unless some
   system at positions 1..i is not significantly different from some system below i
   (p_jk > α for j ≤ i < k). NaN p-values (no shared segment; a domain with every
   difference 0 tested asymptotically; p_d of 0 and 1 in one pair) are neither wins nor
   "not different", as WMT24's comparisons ``p < α`` and ``p > α`` are both false for NaN.
"""

from __future__ import annotations

import numpy as np

from .judgments import Cells, ZRanking, checked_scores, id_order

#: the signed-rank rule WMT24 ran (scipy ≤ 1.14); see :mod:`.signed_rank`
DEFAULT_TEST_METHOD = "scipy-1.14"


def domain_means(cells: Cells, scores: np.ndarray) -> np.ndarray:
    """m_sd per system (rows) and domain (columns); NaN where s has no segment of d (step 1)."""
    k, n_domains = len(cells.systems), len(cells.domains)
    index = cells.system * n_domains + cells.domain
    total = np.bincount(index, weights=scores, minlength=k * n_domains)
    count = np.bincount(index, minlength=k * n_domains).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (total / count).reshape(k, n_domains)


def macro_means(means: np.ndarray) -> np.ndarray:
    """value_s = the mean over the domains where s has segments (step 1)."""
    present = ~np.isnan(means)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(present, means, 0.0).sum(axis=1) / present.sum(axis=1)


def segment_matrix(cells: Cells, scores: np.ndarray) -> np.ndarray:
    """r̄_sg as a systems × segments matrix, NaN where s was not scored on g."""
    matrix = np.full((len(cells.systems), cells.n_segments), np.nan)
    matrix[cells.system, cells.segment] = scores
    return matrix


def pair_p(a: np.ndarray, b: np.ndarray, segment_domain: np.ndarray, test_method: str) -> float:
    """p_ab of step 3 from the rows of a and b of :func:`segment_matrix`."""
    from .signed_rank import signed_rank
    from .stouffer import stouffer

    both = ~np.isnan(a) & ~np.isnan(b)
    differences, domain = a[both] - b[both], segment_domain[both]
    pvalues = [signed_rank(differences[domain == d], "two-sided", test_method)[1]
               for d in _first_seen(domain)]
    return stouffer(pvalues, tails="complement")[1]


def _first_seen(values: np.ndarray) -> list:
    _, first = np.unique(values, return_index=True)
    return values[np.sort(first)].tolist()


def wmt24_clusters(p: np.ndarray, alpha: float) -> np.ndarray:
    """Cluster numbers down the order (step 5): a boundary after position i unless p[j, k] > α
    for some j ≤ i < k.

    >>> p = np.array([[np.nan, .01, .01], [.01, np.nan, .30], [.01, .30, np.nan]])
    >>> wmt24_clusters(p, 0.05).tolist()  # 1 differs from both; 2 and 3 do not differ
    [1, 2, 2]
    """
    k = len(p)
    if k == 0:
        return np.zeros(0, dtype=np.int64)
    with np.errstate(invalid="ignore"):
        same = p > alpha
    boundary = [not same[:i + 1, i + 1:].any() for i in range(k - 1)]
    return 1 + np.concatenate([[0], np.cumsum(boundary, dtype=np.int64)])


def wins_losses(p: np.ndarray, value: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Step 4: wins and losses of each system from the full matrix p (rows: the tested system)."""
    with np.errstate(invalid="ignore"):
        significant = p < alpha
    above = value[:, None] > value[None, :]
    return (significant & above).sum(axis=1), (significant & ~above).sum(axis=1)


def rank_cells_wmt24(cells: Cells, key: tuple = (), rank_by: str = "raw", alpha: float = 0.05,
                     test_method: str = DEFAULT_TEST_METHOD) -> ZRanking:
    """Steps 1-5 of the module doc on one partition's cells (which carry domains)."""
    scores = checked_scores(cells, rank_by)
    raw = macro_means(domain_means(cells, cells.raw))
    z = None if cells.z is None else macro_means(domain_means(cells, cells.z))
    value = z if rank_by == "z" else raw
    names = np.array(cells.systems, dtype=object)
    order = np.lexsort((id_order(names), -value))
    matrix = segment_matrix(cells, scores)[order]
    segment_domain = np.full(cells.n_segments, -1, dtype=np.int64)
    segment_domain[cells.segment] = cells.domain
    k = len(order)
    p = np.full((k, k), np.nan)
    for i in range(k):
        for j in range(k):
            if i != j:
                p[i, j] = pair_p(matrix[i], matrix[j], segment_domain, test_method)
    wins, losses = wins_losses(p, value[order], alpha)
    k_all = len(cells.systems)
    segments = np.bincount(cells.system, minlength=k_all)
    judgments = np.bincount(cells.system, weights=cells.judgments, minlength=k_all)
    return ZRanking(key=key, rank_by=rank_by, systems=names[order].tolist(), value=value[order], raw=raw[order],
                    z=None if z is None else z[order], segments=segments[order].astype(np.int64),
                    judgments=judgments[order], wins=wins, losses=losses, lo=losses + 1, hi=k - wins,
                    cluster=wmt24_clusters(p, alpha), p=p, z_source=cells.z_source)
