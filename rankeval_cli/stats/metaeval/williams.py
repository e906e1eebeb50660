"""Williams' test for two dependent correlations with the human scores (Williams 1959; Graham & Baldwin 2014)."""

from __future__ import annotations

import numpy as np

from .cells import as_matrix
from .segment import seg_statistic


def williams_test(r12: float, r13: float, r23: float, n: int, one_sided: bool = True) -> float:
    """p of Williams' (1959) test that r12 > r13 for dependent correlations sharing variable 1.

    t = (r12 - r13) sqrt((n-1)(1+r23)) / sqrt(2 (n-1)/(n-3) K + r̄² (1-r23)³),
    K = 1 - r12² - r13² - r23² + 2 r12 r13 r23, r̄ = (r12 + r13)/2, with n - 3
    degrees of freedom (Graham & Baldwin 2014); one-sided p = P(T > |t|).
    """
    from scipy.stats import t as student_t

    k = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r23 * r13
    rbar = (r12 + r13) / 2
    tnum = (r12 - r13) * np.sqrt((n - 1) * (1 + r23))
    tden = np.sqrt(2 * (n - 1) / (n - 3) * k + rbar ** 2 * (1 - r23) ** 3)
    p = float(student_t.sf(np.abs(tnum / tden), n - 3))
    return p if one_sided else 2 * p


def williams(human, metric_a, metric_b, statistic: str = "pearson", average_by: str = "none",
             one_sided: bool = True, **options) -> tuple[float, float, float]:
    """(p, r_a, r_b): Williams test between two metrics' correlations with human scores.

    As mt-metrics-eval's WilliamsSigDiff: r_a, r_b against human, r_ab between
    the metrics (same statistic and grouping), n = all cells of the matrix.
    """
    human = as_matrix(human, "human")
    ra = seg_statistic(human, metric_a, statistic, average_by, **options).value
    rb = seg_statistic(human, metric_b, statistic, average_by, **options).value
    rab = seg_statistic(metric_a, metric_b, statistic, average_by, **options).value
    return williams_test(ra, rb, rab, human.size, one_sided), ra, rb
