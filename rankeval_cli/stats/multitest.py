"""Adjusting p-values for a family of comparisons.

A *family* is the set of hypotheses whose errors are controlled together; ``compare``
states it in its output (``family``: the number of comparisons) and in its signature.
With p_(1) ≤ … ≤ p_(m) the m defined p-values of a family in ascending order:

- **Bonferroni** (Dunn 1961): p'_i = min(1, m·p_i). Controls the family-wise error rate
  (FWER) under any dependence.
- **Holm** (1979, "A simple sequentially rejective multiple test procedure", Scand. J.
  Statist. 6): p'_(i) = max_{j ≤ i} min(1, (m − j + 1)·p_(j)). FWER under any dependence;
  uniformly more powerful than Bonferroni.
- **Benjamini-Hochberg** (1995, JRSS B 57, step-up procedure of their §3):
  p'_(i) = min_{j ≥ i} min(1, m·p_(j) / j). Controls the false discovery rate (FDR) for
  independent or positively dependent (PRDS) p-values.
- **Benjamini-Yekutieli** (2001, Ann. Statist. 29, Theorem 1.3): the BH values times
  c(m) = Σ_{k=1}^{m} 1/k, p'_(i) = min_{j ≥ i} min(1, c(m)·m·p_(j) / j). FDR under any
  dependence.

These are the adjusted p-values of ``statsmodels.stats.multitest.multipletests`` with
``bonferroni``, ``holm``, ``fdr_bh`` and ``fdr_by``. Undefined (NaN) p-values are left out
of m and stay NaN.
"""

from __future__ import annotations

import math

from ..vocabulary import CORRECTIONS

#: --correction choices; ``bh`` and ``by`` control the FDR, the others the FWER.
#: What each correction controls, for the table legend and the docs.
CONTROLS = {"holm": "FWER", "bonferroni": "FWER", "bh": "FDR", "by": "FDR"}
#: Names for legends.
NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg", "by": "Benjamini-Yekutieli"}


def adjust(pvalues, method: str) -> list[float]:
    """Adjusted p-values of one family, in the order given (see the module docstring).

    >>> adjust([0.01, 0.04, 0.03, 0.005], "bh")
    [0.02, 0.04, 0.04, 0.02]
    """
    if method not in CORRECTIONS:
        raise ValueError(f"unknown correction {method!r}; expected one of {', '.join(CORRECTIONS)}")
    p = [float(v) for v in pvalues]
    if method == "none":
        return p
    valid = [i for i, v in enumerate(p) if not math.isnan(v)]
    m = len(valid)
    out = list(p)
    if method == "bonferroni":
        for i in valid:
            out[i] = min(1.0, m * p[i])
        return out
    order = sorted(valid, key=lambda i: p[i])
    if method == "holm":
        running = 0.0
        for j, i in enumerate(order):
            running = max(running, min(1.0, (m - j) * p[i]))
            out[i] = running
        return out
    factor = m * (math.fsum(1.0 / k for k in range(1, m + 1)) if method == "by" else 1.0)
    running = 1.0
    for j in range(m - 1, -1, -1):  # step up: the running minimum from the largest p down
        i = order[j]
        running = min(running, min(1.0, factor * p[i] / (j + 1)))
        out[i] = running
    return out
