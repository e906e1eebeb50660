"""Label agreement between a reference assessor and a candidate, from confusion counts.

Every statistic here is a function of sums over topics, so a bootstrap replicate that
resamples topics only re-weights the topics' confusion matrices. Arrays are vectorized over
leading axes: a confusion array has shape (..., K, K), ``O[..., a, b]`` the number of
(topic, document) pairs the reference labels with the a-th grade of the scale and the
candidate with the b-th. The scale is the reference's grades v_0 < ... < v_{K-1}; N = Σ O.

- raw agreement p_o = Σ_a O_aa / N;
- Cohen's kappa (Cohen 1960; weighted: Cohen 1968): κ_w = 1 − Σ w_ab O_ab / Σ w_ab E_ab with
  E_ab = r_a c_b / N (r, c the row and column sums); unweighted w_ab = [a ≠ b], linear
  w_ab = |a − b|, quadratic w_ab = (a − b)², a and b positions on the scale. This is
  scikit-learn's ``cohen_kappa_score(..., labels=scale, weights=None|"linear"|"quadratic")``;
- Krippendorff's alpha (Krippendorff 2011, "Computing Krippendorff's alpha-reliability",
  eqs. for two coders without missing values): the coincidence matrix o = O + Oᵀ,
  n_c = Σ_k o_ck, n = 2N, α = 1 − (n − 1) Σ o_ck δ²_ck / Σ n_c n_k δ²_ck with the nominal
  metric δ² = [c ≠ k], the interval metric δ² = (v_c − v_k)² and the ordinal metric
  δ²_ck = (Σ_{g=c}^{k} n_g − (n_c + n_k)/2)²; the ``krippendorff`` package's ``alpha``;
- binary agreement: p_o and κ after mapping grades ≥ ℓ (``--rel-level``) to relevant;
- precision and recall of a grade g: O_gg / Σ_a O_ag (of the candidate's g labels, the share
  the reference also gives g) and O_gg / Σ_b O_gb;
- Fleiss' kappa across m ≥ 2 candidates (Fleiss 1971, eqs. 2-9) on the pairs all of them
  label, from the sums :func:`fleiss_sums` gives per topic: P̄ = (Σ_i Σ_j n_ij² − N m) /
  (N m (m − 1)), p_j = Σ_i n_ij / (N m), P̄_e = Σ_j p_j², κ = (P̄ − P̄_e) / (1 − P̄_e);
  statsmodels' ``fleiss_kappa(table, method="fleiss")``.

A statistic whose denominator is 0 (no pair, or every label one grade) is NaN.
"""

from __future__ import annotations

import numpy as np

#: the label statistics of one candidate, in output order
LABEL_STATISTICS = ("kappa", "kappa_linear", "kappa_quadratic", "alpha_nominal", "alpha_ordinal",
                    "alpha_interval", "agreement", "agreement_binary", "kappa_binary")
KAPPA_WEIGHTS = {"kappa": "none", "kappa_linear": "linear", "kappa_quadratic": "quadratic"}
ALPHA_METRICS = {"alpha_nominal": "nominal", "alpha_ordinal": "ordinal", "alpha_interval": "interval"}


def _ratio(num, den):
    num, den = np.asarray(num, np.float64), np.asarray(den, np.float64)
    return np.divide(num, den, out=np.full(np.broadcast(num, den).shape, np.nan), where=den != 0)


def kappa_weights(k: int, weights: str) -> np.ndarray:
    """The K × K disagreement weights of Cohen's kappa on scale positions."""
    a = np.arange(k, dtype=np.float64)
    diff = a[:, None] - a[None, :]
    if weights == "none":
        return (diff != 0).astype(np.float64)
    if weights == "linear":
        return np.abs(diff)
    if weights == "quadratic":
        return diff ** 2
    raise ValueError(f"unknown kappa weights {weights!r}")


def cohen_kappa(conf, weights: str = "none") -> np.ndarray:
    """Cohen's (weighted) kappa of confusion counts (..., K, K)."""
    conf = np.asarray(conf, np.float64)
    w = kappa_weights(conf.shape[-1], weights)
    n = conf.sum(axis=(-2, -1))
    expected = conf.sum(axis=-1)[..., :, None] * conf.sum(axis=-2)[..., None, :]
    observed = (w * conf).sum(axis=(-2, -1))
    chance = _ratio((w * expected).sum(axis=(-2, -1)), n)
    return 1.0 - _ratio(observed, chance)


def _alpha_delta(totals, scale, metric: str) -> np.ndarray:
    """δ²_ck (..., K, K) of Krippendorff's metric, given the value totals n_c (..., K)."""
    k = totals.shape[-1]
    if metric == "nominal":
        return np.broadcast_to((np.arange(k)[:, None] != np.arange(k)[None, :]).astype(np.float64),
                               totals.shape[:-1] + (k, k))
    if metric == "interval":
        v = np.asarray(scale, np.float64)
        return np.broadcast_to((v[:, None] - v[None, :]) ** 2, totals.shape[:-1] + (k, k))
    if metric == "ordinal":
        cum = np.cumsum(totals, axis=-1)
        lo, hi = np.minimum.outer(np.arange(k), np.arange(k)), np.maximum.outer(np.arange(k), np.arange(k))
        before = np.concatenate([np.zeros(totals.shape[:-1] + (1,)), cum], axis=-1)
        between = before[..., hi + 1] - before[..., lo]  # Σ_{g=lo}^{hi} n_g
        half = (totals[..., :, None] + totals[..., None, :]) / 2.0
        return (between - half) ** 2
    raise ValueError(f"unknown alpha metric {metric!r}")


def krippendorff_alpha(conf, scale, metric: str = "nominal") -> np.ndarray:
    """Krippendorff's alpha of two coders from their confusion counts (..., K, K)."""
    conf = np.asarray(conf, np.float64)
    coincidence = conf + np.swapaxes(conf, -1, -2)
    totals = coincidence.sum(axis=-1)
    n = totals.sum(axis=-1)
    delta = _alpha_delta(totals, scale, metric)
    observed = (coincidence * delta).sum(axis=(-2, -1))
    expected = (totals[..., :, None] * totals[..., None, :] * delta).sum(axis=(-2, -1))
    return 1.0 - _ratio((n - 1.0) * observed, expected)


def raw_agreement(conf) -> np.ndarray:
    conf = np.asarray(conf, np.float64)
    return _ratio(np.trace(conf, axis1=-2, axis2=-1), conf.sum(axis=(-2, -1)))


def binarized(conf, scale, rel_level: int) -> np.ndarray:
    """The (..., 2, 2) confusion counts after grades ≥ ``rel_level`` become relevant."""
    conf = np.asarray(conf, np.float64)
    relevant = np.asarray(scale) >= rel_level
    parts = [conf[..., ~relevant, :], conf[..., relevant, :]]
    rows = np.stack([p.sum(axis=-2) for p in parts], axis=-2)
    return np.stack([rows[..., ~relevant].sum(axis=-1), rows[..., relevant].sum(axis=-1)], axis=-1)


def label_statistics(conf, scale, rel_level: int) -> np.ndarray:
    """(..., len(LABEL_STATISTICS)) values of every statistic of :data:`LABEL_STATISTICS`."""
    binary = binarized(conf, scale, rel_level)
    out = [cohen_kappa(conf, KAPPA_WEIGHTS[s]) for s in ("kappa", "kappa_linear", "kappa_quadratic")]
    out += [krippendorff_alpha(conf, scale, ALPHA_METRICS[s]) for s in ALPHA_METRICS]
    out += [raw_agreement(conf), raw_agreement(binary), cohen_kappa(binary)]
    return np.stack(out, axis=-1)


def precision_recall(conf) -> tuple[np.ndarray, np.ndarray]:
    """(precision, recall), each (..., K): per grade of the scale."""
    conf = np.asarray(conf, np.float64)
    diagonal = np.diagonal(conf, axis1=-2, axis2=-1)
    return _ratio(diagonal, conf.sum(axis=-2)), _ratio(diagonal, conf.sum(axis=-1))


def fleiss_sums(labels: np.ndarray, k: int) -> np.ndarray:
    """Fleiss' sufficient statistics of one topic: [N, Σ_i Σ_j n_ij², n_·0, ..., n_·K-1].

    ``labels`` is (subjects × raters) of scale positions, every rater labelling every subject."""
    labels = np.asarray(labels, np.int64)
    n_subjects = labels.shape[0]
    counts = np.zeros((n_subjects, k), np.int64)
    for r in range(labels.shape[1]):
        counts[np.arange(n_subjects), labels[:, r]] += 1
    return np.concatenate([[n_subjects, int((counts ** 2).sum())], counts.sum(axis=0)]).astype(np.float64)


def fleiss_kappa(sums, raters: int) -> np.ndarray:
    """Fleiss' kappa from (pooled or re-weighted) :func:`fleiss_sums` (..., 2 + K)."""
    sums = np.asarray(sums, np.float64)
    n, squares, totals = sums[..., 0], sums[..., 1], sums[..., 2:]
    m = float(raters)
    p_bar = _ratio(squares - n * m, n * m * (m - 1.0))
    p_j = _ratio(totals, (n * m)[..., None])
    p_e = (p_j ** 2).sum(axis=-1)
    return _ratio(p_bar - p_e, 1.0 - p_e)
