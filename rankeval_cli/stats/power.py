"""Statistical power and topic set size (how many topics an experiment needs).

Topic set size design (Sakai 2016, "Topic set size design", Inf. Retrieval J. 19:256-283,
after Nagata 2003) asks for the smallest number of topics n that meets a statistical
requirement, given a variance estimated from existing runs; power analysis (Webber,
Moffat & Zobel 2008, "Statistical power in retrieval experimentation", CIKM) asks what a
finished comparison could detect. Three designs, all two-sided at level α:

**Paired t-test.** With σ_d² the variance of the per-topic differences and a minimum
detectable difference D, the effect size is Δ = D / σ_d and the test statistic follows a
noncentral t with ν = n − 1 degrees of freedom and noncentrality λ = Δ√n:

    power(n) = P(T_{ν,λ} ≥ t_{1−α/2,ν}) + P(T_{ν,λ} ≤ −t_{1−α/2,ν}).

(Sakai's Excel tool approximates the noncentral t by a normal (Nagata 2003); this module
uses the exact distribution, ``scipy.stats.nct``, as ``statsmodels``' ``TTestPower``.)

**One-way ANOVA over m systems** (Sakai 2016): the test must detect any two systems
whose means differ by at least D (the minimum detectable range), the least favourable
configuration being two means at ±D/2 and the rest at the grand mean. With the
within-system variance σ², the noncentrality is λ = n·D²/(2σ²) and

    power(n) = P(F'_{m−1, m(n−1), λ} ≥ F_{1−α; m−1, m(n−1)}),

F' the noncentral F (``scipy.stats.ncf``). This is ``statsmodels``' ``FTestAnovaPower``
with Cohen's f² = D²/(2mσ²) and nobs = m·n.

**Confidence interval width** (Sakai 2016): the expected width of the t interval of
the mean difference, E[W] = 2 · t_{1−α/2,n−1} · σ_d · c₄(n) / √n with
c₄(n) = √(2/(n−1)) Γ(n/2) / Γ((n−1)/2) (E[s_d] = c₄ σ_d), must not exceed a cap W.

Topic counts are the smallest n ≥ 2 meeting the requirement (power ≥ 1 − β, or E[W] ≤ W):
each power is increasing in n, so a search from Nagata's closed-form starting point
n₀ = ((z_{α/2} + z_β)/Δ)² + z_{α/2}²/2 finds it.

**Variance estimates from a systems × topics matrix** (:func:`variance_estimates`):

- ``within``: the one-way ANOVA within-system variance V_E1 (:mod:`.anova`) — Sakai's
  estimate of σ² (2016); the paired designs use σ_d² = 2σ² (the variance of a
  difference of two independent systems: conservative, as it ignores how topics
  correlate the systems);
- ``residual``: the two-way ANOVA residual variance V_E, with σ_d² = 2V_E (the variance of
  a difference under the additive systems + topics model);
- ``paired``: the mean over all pairs of systems of the sample variance of their
  per-topic differences, σ_d² directly (σ² = σ_d²/2 for the ANOVA design), as Webber et al.
  (2008) estimate it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: largest topic count searched for
MAX_TOPICS = 10 ** 7


def ttest_power(difference: float, variance: float, topics: int, alpha: float) -> float:
    """Power of the two-sided paired t-test (module docstring); σ_d² = ``variance``."""
    from scipy.stats import nct, t as student

    n = int(topics)
    if n < 2 or not variance > 0:
        return math.nan
    df = n - 1
    nc = difference / math.sqrt(variance) * math.sqrt(n)
    crit = float(student.ppf(1 - alpha / 2, df))
    lower = float(nct.cdf(-crit, df, nc))
    if math.isnan(lower):  # scipy's nct.cdf fails far in the tail; T(ν, λ) = −T(ν, −λ) gives it as a survival
        lower = float(nct.sf(crit, df, -nc))
    return float(nct.sf(crit, df, nc)) + lower


def anova_power(difference: float, variance: float, systems: int, topics: int, alpha: float) -> float:
    """Power of the one-way ANOVA over ``systems`` to detect a range ``difference`` (σ² = ``variance``)."""
    from scipy.stats import f as fisher, ncf

    m, n = int(systems), int(topics)
    if m < 2 or n < 2 or not variance > 0:
        return math.nan
    df1, df2 = m - 1, m * (n - 1)
    nc = n * difference ** 2 / (2 * variance)
    crit = float(fisher.ppf(1 - alpha, df1, df2))
    return float(ncf.sf(crit, df1, df2, nc))


def expected_ci_width(variance: float, topics: int, alpha: float) -> float:
    """E[W] of the 1 − α t interval of a mean difference over ``topics`` (σ_d² = ``variance``)."""
    from scipy.special import gammaln
    from scipy.stats import t as student

    n = int(topics)
    if n < 2 or not variance >= 0:
        return math.nan
    c4 = math.sqrt(2 / (n - 1)) * math.exp(gammaln(n / 2) - gammaln((n - 1) / 2))
    return 2 * float(student.ppf(1 - alpha / 2, n - 1)) * math.sqrt(variance) * c4 / math.sqrt(n)


def nagata_start(effect: float, alpha: float, power: float) -> float:
    """Nagata's closed-form first guess n₀ = ((z_{α/2} + z_β)/Δ)² + z_{α/2}²/2."""
    from scipy.stats import norm

    z_a, z_b = float(norm.ppf(1 - alpha / 2)), float(norm.ppf(power))
    return ((z_a + z_b) / effect) ** 2 + z_a ** 2 / 2


def _smallest(meets, start: float) -> int:
    """The smallest n ≥ 2 with meets(n), given that meets is monotone in n and a first guess."""
    n = min(max(2, int(math.ceil(start))), MAX_TOPICS)
    if meets(n):
        while n > 2 and meets(n - 1):
            n -= 1
        return n
    low, high = n, n
    while not meets(high):  # gallop up, then bisect
        low, high = high, min(2 * high, MAX_TOPICS)
        if low == MAX_TOPICS:
            raise ValueError(f"more than {MAX_TOPICS} topics would be needed")
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if meets(mid) else (mid, high)
    return high


def ttest_topics(difference: float, variance: float, alpha: float, power: float) -> int:
    """Topics the paired t-test needs to detect ``difference`` with ``power`` at ``alpha``."""
    _check(difference, variance)
    effect = difference / math.sqrt(variance)
    return _smallest(lambda n: ttest_power(difference, variance, n, alpha) >= power,
                     nagata_start(effect, alpha, power))


def anova_topics(difference: float, variance: float, systems: int, alpha: float, power: float) -> int:
    """Topics a one-way ANOVA over ``systems`` needs to detect a range ``difference``."""
    _check(difference, variance)
    return _smallest(lambda n: anova_power(difference, variance, systems, n, alpha) >= power,
                     nagata_start(difference / math.sqrt(2 * variance), alpha, power))


def ci_topics(width: float, variance: float, alpha: float) -> int:
    """Topics for which the expected width of the 1 − α interval of a mean difference is at most ``width``."""
    from scipy.stats import norm

    _check(width, variance)
    z = float(norm.ppf(1 - alpha / 2))
    return _smallest(lambda n: expected_ci_width(variance, n, alpha) <= width, 4 * z * z * variance / width ** 2)


def minimum_difference(design: str, variance: float, topics: int, alpha: float, power: float,
                       systems: int = 2) -> float:
    """The least difference (range, for ``anova``) detected with ``power`` over ``topics``; for ``ci``
    the expected interval width."""
    from scipy.optimize import brentq

    if design == "ci":
        return expected_ci_width(variance, topics, alpha)
    if topics < 2 or not variance > 0:
        return math.nan

    def power_at(d):
        if design == "t":
            return ttest_power(d, variance, topics, alpha)
        return anova_power(d, variance, systems, topics, alpha)

    high = math.sqrt(variance)
    while power_at(high) < power:
        high *= 2
    return float(brentq(lambda d: power_at(d) - power, 0.0, high, xtol=1e-12, rtol=1e-12))


def _check(difference: float, variance: float) -> None:
    if not (math.isfinite(difference) and difference > 0):
        raise ValueError(f"the difference must be a positive number, not {difference!r}")
    if not (math.isfinite(variance) and variance > 0):
        raise ValueError(f"the variance must be a positive number, not {variance!r}")


@dataclass(frozen=True)
class Variances:
    """Variance estimates of one systems × topics matrix (module docstring)."""

    systems: int
    topics: int
    within: float  # V_E1 = σ̂²
    residual: float  # V_E of the two-way ANOVA
    paired: float  # mean variance of the pairwise differences = σ̂_d²

    def sigma2(self, source: str) -> float:
        """σ² for the ANOVA design."""
        return {"within": self.within, "residual": self.residual, "paired": self.paired / 2}[source]

    def sigma_d2(self, source: str) -> float:
        """σ_d² for the paired t and CI designs."""
        return {"within": 2 * self.within, "residual": 2 * self.residual, "paired": self.paired}[source]


def variance_estimates(values) -> Variances:
    """The three estimates of a complete m × n matrix (m ≥ 2, n ≥ 2)."""
    from .anova import one_way, two_way
    from .effect import mean_sd

    x = np.asarray(values, dtype=np.float64)
    m, n = x.shape
    pairs = [mean_sd(x[i] - x[j])[1] ** 2 for i in range(m) for j in range(i + 1, m)]
    paired = math.fsum(pairs) / len(pairs) if pairs else math.nan
    return Variances(m, n, one_way(x).within_variance, two_way(x).residual_variance, paired)
