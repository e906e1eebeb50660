"""The statistics of ``rankeval judges`` against the libraries that define them (scikit-learn,
the ``krippendorff`` package, statsmodels, scipy, meta-eval's SPA) and slow obvious
implementations, on seeded random inputs."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from rankeval_cli.judging import agreement as A
from rankeval_cli.judging import ranking as R

SEEDS = range(6)


def _labels(seed: int, n: int = 300):
    """Reference and candidate grades on a scale with a gap (0, 1, 2, 4), correlated."""
    rng = np.random.default_rng(seed)
    scale = np.array([0, 1, 2, 4])
    a = rng.integers(0, 4, n)
    b = np.clip(a + rng.integers(-1, 2, n) * (rng.random(n) < 0.4), 0, 3)
    conf = np.zeros((4, 4))
    np.add.at(conf, (a, b), 1)
    return scale, scale[a], scale[b], conf


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_cohen_kappa_equals_scikit_learn(seed, weights):
    from sklearn.metrics import cohen_kappa_score

    scale, a, b, conf = _labels(seed)
    expected = cohen_kappa_score(a, b, labels=scale, weights=weights)
    assert A.cohen_kappa(conf, weights or "none") == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("metric", ["nominal", "ordinal", "interval"])
def test_krippendorff_alpha_equals_the_krippendorff_package(seed, metric):
    import krippendorff

    scale, a, b, conf = _labels(seed)
    expected = krippendorff.alpha(np.stack([a, b]).astype(float), level_of_measurement=metric)
    assert A.krippendorff_alpha(conf, scale, metric) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_fleiss_kappa_equals_statsmodels_pooled_over_topics(seed):
    from statsmodels.stats.inter_rater import fleiss_kappa

    rng = np.random.default_rng(seed)
    raters, k = 5, 4
    topics = [rng.integers(0, k, (int(rng.integers(5, 30)), raters)) for _ in range(7)]
    pooled = sum(A.fleiss_sums(t, k) for t in topics)
    table = np.zeros((sum(len(t) for t in topics), k))
    for r in range(raters):
        np.add.at(table, (np.arange(len(table)), np.concatenate(topics)[:, r]), 1)
    assert A.fleiss_kappa(pooled, raters) == pytest.approx(fleiss_kappa(table, method="fleiss"), abs=1e-12)


def test_label_statistics_by_hand():
    """Cohen (1960)'s definition on a 2 × 2 table: p_o = 0.7, p_e = 0.5·0.6 + 0.5·0.4 = 0.5, κ = 0.4."""
    conf = np.array([[25.0, 25.0], [5.0, 45.0]])
    assert A.raw_agreement(conf) == pytest.approx(0.7)
    assert A.cohen_kappa(conf) == pytest.approx(0.4)
    precision, recall = A.precision_recall(conf)
    assert precision.tolist() == pytest.approx([25 / 30, 45 / 70])
    assert recall.tolist() == pytest.approx([0.5, 0.9])
    binary = A.binarized(np.array([[3.0, 1, 0], [0, 2, 1], [1, 0, 4]]), np.array([0, 1, 2]), 2)
    assert binary.tolist() == [[6, 1], [1, 4]]


def test_bootstrap_replicates_vectorize_the_statistics():
    """The statistics of a stack of confusion matrices are those of each matrix."""
    stack = np.stack([_labels(s)[3] for s in SEEDS])
    scale = _labels(0)[0]
    together = A.label_statistics(stack, scale, 1)
    for i, conf in enumerate(stack):
        assert together[i].tolist() == A.label_statistics(conf, scale, 1).tolist()


# --- system rankings ----------------------------------------------------------------------------

def _systems(seed: int, b: int = 12, s: int = 15, ties: bool = True):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(b, s))
    y = x + rng.normal(scale=0.8, size=(b, s))
    if ties:  # tied values in both
        x[0, :4] = 0.5
        y[0, 2:7] = 1.5
        y[1] = np.round(y[1])
    return x, y


def _tau_ap_slow(x, y) -> float:
    """Yilmaz et al. (2008) eq. 3 as written: systems in the candidate's order (ties: reference ascending)."""
    n = len(x)
    order = sorted(range(n), key=lambda i: (-y[i], x[i]))
    total = 0.0
    for i in range(1, n):
        total += sum(1 for j in order[:i] if x[j] > x[order[i]]) / i
    return 2.0 / (n - 1) * total - 1.0


@pytest.mark.parametrize("seed", SEEDS)
def test_tau_ap_equals_a_brute_force_reference(seed):
    x, y = _systems(seed)
    got = R.tau_ap(x, y)
    for row, (a, b) in enumerate(zip(x, y)):
        assert got[row] == pytest.approx(_tau_ap_slow(a, b), abs=1e-12)


def test_tau_ap_by_hand():
    """Candidate order A, B, C; reference B, A, C: C(2) = 0, C(3) = 2, τ_AP = (2/2)(0/1 + 2/2) − 1 = 0."""
    x = np.array([[2.0, 3.0, 1.0]])  # reference: B > A > C
    y = np.array([[3.0, 2.0, 1.0]])  # candidate: A > B > C
    assert R.tau_ap(x, y)[0] == pytest.approx(0.0)
    assert R.tau_ap(x, x)[0] == 1.0
    assert R.tau_ap(x, -x)[0] == -1.0


@pytest.mark.parametrize("seed", SEEDS)
def test_correlations_equal_scipy_and_accuracy_equals_meta_eval(seed):
    from scipy.stats import kendalltau, pearsonr, spearmanr

    from rankeval_cli.stats.metaeval import pairwise_accuracy

    x, y = _systems(seed)
    tau, rho, r, acc = R.kendall_tau_b(x, y), R.spearman(x, y), R.pearson(x, y), R.pairwise_accuracy(x, y)
    for row, (a, b) in enumerate(zip(x, y)):
        assert tau[row] == pytest.approx(kendalltau(a, b).statistic, abs=1e-12)
        assert rho[row] == pytest.approx(spearmanr(a, b).statistic, abs=1e-12)
        assert r[row] == pytest.approx(pearsonr(a, b).statistic, abs=1e-12)
        assert acc[row] == pytest.approx(pairwise_accuracy(a, {"m": b})["m"], abs=1e-12)


def test_top_k_overlap_and_best_rank_change_by_hand():
    x = np.array([[5.0, 4.0, 3.0, 2.0, 1.0]])
    y = np.array([[1.0, 5.0, 4.0, 3.0, 2.0]])
    assert R.top_k_overlap(x, y, 2)[0] == 0.5  # {0, 1} against {1, 2}
    assert R.best_rank_change(x, y)[0] == 4.0  # the reference's best is last
    assert R.best_rank_change(x, x)[0] == 0.0


# --- paired t-tests and soft pairwise accuracy --------------------------------------------------

@pytest.mark.parametrize("df", [1, 4, 49, 999])
def test_t_tail_equals_scipy(df):
    from scipy.special import stdtr

    t = np.concatenate([np.linspace(-80, 80, 200001), [np.inf, -np.inf]])
    got = R.TDistribution(df).upper(t)
    assert np.max(np.abs(got - stdtr(df, -t))) < 2e-13
    assert np.isnan(R.TDistribution(df).upper(np.array([np.nan])))[0]


@pytest.mark.parametrize("seed", SEEDS)
def test_pair_t_equals_compare_t_test(seed):
    from rankeval_cli.stats.topic_tests import paired_t

    rng = np.random.default_rng(seed)
    x, b = rng.random((50, 20)), rng.random((50, 20))
    x[0] = b[0]  # every difference 0: undefined
    d = x - b
    t = R.pair_t(d.sum(axis=1), (d * d).sum(axis=1), 20)
    expected = np.array([paired_t(u, v)[0] for u, v in zip(x, b)])
    assert np.isnan(t[0]) and np.isnan(expected[0])
    assert np.allclose(t[1:], expected[1:], rtol=1e-10, atol=0)


def _study(seed: int, systems: int = 9, topics: int = 12):
    """A TopicData of a reference and one candidate over random per-topic values."""
    from rankeval_cli.judging.study import Settings, TopicData

    rng = np.random.default_rng(seed)
    quality = rng.random(systems)[:, None]
    ref = np.clip(quality + rng.normal(scale=0.2, size=(systems, topics)), 0, 1)
    cand = np.clip(ref + rng.normal(scale=0.15, size=(systems, topics)), 0, 1)
    values = np.stack([ref, cand])[:, None]  # (qrels, measures, systems, topics)
    conf = np.ones((1, topics, 2, 2))
    return TopicData(conf, np.array([0, 1]), None, 1, values, ["m"], Settings(bootstrap=0)), ref, cand


@pytest.mark.parametrize("seed", SEEDS)
def test_spa_equals_meta_eval_spa_on_the_same_p_values(seed):
    """SPA of the study = meta-eval's spa_from_p_values on scipy's one-sided paired t-test p-values."""
    from scipy.stats import ttest_rel

    from rankeval_cli.judging.ranking import RANKING_STATISTICS
    from rankeval_cli.judging.study import observed
    from rankeval_cli.stats.metaeval import spa_from_p_values

    data, ref, cand = _study(seed)

    def p_matrix(v):
        p = np.full((len(v), len(v)), np.nan)
        for i, j in itertools.combinations(range(len(v)), 2):
            p[i, j] = ttest_rel(v[i], v[j], alternative="greater").pvalue
        return p

    values = observed(data)
    names = [c.statistic for c in data.columns() if c.section == "ranking"]
    got = values[-len(RANKING_STATISTICS):][names.index("spa")]
    assert got == pytest.approx(spa_from_p_values(p_matrix(ref), p_matrix(cand)), abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_significance_agreement_uses_compare_t_test(seed):
    from rankeval_cli.judging.ranking import RANKING_STATISTICS
    from rankeval_cli.judging.study import observed
    from rankeval_cli.stats.topic_tests import paired_t

    data, ref, cand = _study(seed)
    same = []
    for i, j in itertools.combinations(range(len(ref)), 2):
        decided = []
        for v in (ref, cand):
            t, p = paired_t(v[i], v[j])
            decided.append(0 if not p < 0.05 else np.sign(t))
        same.append(decided[0] == decided[1])
    got = observed(data)[-len(RANKING_STATISTICS):][RANKING_STATISTICS.index("sig_agreement")]
    assert got == pytest.approx(np.mean(same), abs=1e-12)
