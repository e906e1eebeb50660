"""Stouffer's method: one p-value from several independent tests (WMT24 combines its domains so).

Each p-value pᵢ becomes a normal quantile and the quantiles are summed (Stouffer,
Suchman, DeVinney, Star & Williams 1949, "The American Soldier", vol. 1, p. 45; with
weights wᵢ, Liptak 1958 and Whitlock 2005 eq. 2):

    zᵢ = Φ⁻¹(1 − pᵢ),    Z = Σᵢ wᵢzᵢ / √(Σᵢ wᵢ²),    p = 1 − Φ(Z)

(equal weights: Z = Σᵢ zᵢ / √D over D p-values). ``tails`` says how the two
complements are computed:

* ``accurate``: zᵢ = −Φ⁻¹(pᵢ) and p = Φ(−Z), exact even for tiny pᵢ; this is scipy's
  ``combine_pvalues(p, method="stouffer", weights=w)``.
* ``complement``: zᵢ = Φ⁻¹(fl(1 − pᵢ)) and p = fl(1 − Φ(Z)), the complements taken in
  floating point, as WMT24's ``tools.py`` writes them (``norm.ppf(1 - p)``,
  ``1 - norm.cdf(Z)``): a pᵢ below 2⁻⁵⁴ gives zᵢ = +∞ and a combined p below about
  1.1·10⁻¹⁶ becomes 0.

Either way pᵢ = 0 gives zᵢ = +∞ and pᵢ = 1 gives zᵢ = −∞ (so the combined p is 0 or
1 whatever the other tests say), both in one combination give ∞ − ∞ = NaN, and a NaN
pᵢ gives a NaN p. The sum runs in the order given.
"""

from __future__ import annotations

import math

import numpy as np

TAILS = ("accurate", "complement")


def stouffer(pvalues, weights=None, tails: str = "accurate") -> tuple[float, float]:
    """(Z, combined p) of Stouffer's method (module doc); (NaN, NaN) for no p-values.

    >>> z, p = stouffer([0.05, 0.05])  # z = 1.6449 each, Z = 2 × 1.6449 / √2 = 2.3262
    >>> round(z, 4), round(p, 4)
    (2.3262, 0.01)
    """
    from scipy.special import ndtr, ndtri

    if tails not in TAILS:
        raise ValueError(f"tails must be one of {', '.join(TAILS)}, not {tails!r}")
    p = np.asarray(pvalues, dtype=np.float64)
    if p.size == 0:
        return math.nan, math.nan
    w = np.ones(len(p)) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != p.shape:
        raise ValueError("one weight per p-value")
    z = ndtri(1.0 - p) if tails == "complement" else -ndtri(p)
    with np.errstate(invalid="ignore"):
        total = 0.0
        for term in (w * z).tolist():  # in the order given, as a Python or numpy sum of a short list
            total += term
        combined = total / math.sqrt(float(np.sum(w * w)))
    p_combined = 1.0 - float(ndtr(combined)) if tails == "complement" else float(ndtr(-combined))
    return float(combined), p_combined
