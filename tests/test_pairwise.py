"""The comparison library of every compare path: pairs and families, the resampling tests equal to
:mod:`rankeval_cli.stats.paired_resampling` pair by pair, the per-topic tests equal to scipy, identical results
for any number of jobs, and the randomization test against ranx's Fisher test and sacreBLEU's
paired approximate randomization (distributional agreement within Monte Carlo error)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats as st

from rankeval_cli.stats import comparisons
from rankeval_cli.stats.multitest import adjust
from rankeval_cli.stats.paired_resampling import compare as paired_compare
from rankeval_cli.stats.resample import MeanStat, TauMicroStat


def _systems(m=4, n=30, seed=0, nan=0):
    rng = np.random.default_rng(seed)
    x = rng.random((m, n)) * 0.5 + np.linspace(0, 0.2, m)[:, None]
    for i in range(nan):
        x[1 + i % (m - 1), rng.integers(n)] = np.nan
    values = [float(np.nanmean(r)) for r in x]
    return comparisons.Systems([f"s{i}" for i in range(m)], MeanStat(), list(x), values), x


def test_pairs_of():
    assert comparisons.pairs_of(4, [2]) == [(0, 2), (1, 2), (3, 2)]
    assert comparisons.pairs_of(3, [1, 0]) == [(0, 1), (2, 1), (2, 0)]
    assert len(comparisons.pairs_of(6, [], all_pairs=True)) == 15


@pytest.mark.parametrize("nan", [0, 3])
def test_resampling_equals_paired_compare_for_every_baseline(nan):
    systems, x = _systems(nan=nan)
    settings = comparisons.Settings(tests=("bootstrap", "randomization"), bootstrap=300, permutations=400, seed=7)
    pairs = comparisons.pairs_of(4, [0, 2])
    outcome = comparisons.compare(systems, pairs, settings)
    for row in outcome.rows:
        if row.baseline is None:
            continue
        ref = paired_compare(MeanStat(), [x[row.baseline], x[row.system]], bootstrap=300, permutations=400, seed=7)
        assert (row.ci_low, row.ci_high) == (ref[1].ci_low, ref[1].ci_high)
        assert (row.delta_ci_low, row.delta_ci_high) == (ref[1].delta_ci_low, ref[1].delta_ci_high)
        assert (row.p["bootstrap"], row.p["randomization"]) == (ref[1].p_bootstrap, ref[1].p_randomization)
    assert [(r.system, r.baseline) for r in outcome.rows] == [(0, None), (1, 0), (2, 0), (3, 0), (2, None),
                                                              (1, 2), (3, 2)]
    assert outcome.family == 5 and all(r.family == 5 for r in outcome.rows if r.baseline is not None)


def test_micro_tau_uses_the_pooled_counts():
    rng = np.random.default_rng(1)
    raws = [rng.integers(0, 5, size=(20, 6)).astype(float) for _ in range(3)]
    stat = TauMicroStat("penalize")
    values = [float(stat.value(stat.expand(r).sum(axis=0))) for r in raws]
    systems = comparisons.Systems(["a", "b", "c"], stat, raws, values)
    outcome = comparisons.compare(systems, comparisons.pairs_of(3, [0]), comparisons.Settings(bootstrap=100, permutations=100))
    ref = paired_compare(stat, raws, bootstrap=100, permutations=100)
    for row in outcome.rows[1:]:
        assert row.p["randomization"] == ref[row.system].p_randomization and row.effect is None
    with pytest.raises(ValueError, match="per-topic"):
        comparisons.compare(systems, comparisons.pairs_of(3, [0]), comparisons.Settings(tests=("t",)))


def test_per_topic_tests_on_the_topics_both_have_and_corrections_over_the_family():
    systems, x = _systems(m=5, nan=4)
    settings = comparisons.Settings(tests=("t", "wilcoxon", "randomization", "tukey"), bootstrap=50,
                                 permutations=50, correction="by")
    pairs = comparisons.pairs_of(5, [], all_pairs=True)
    outcome = comparisons.compare(systems, pairs, settings)
    paired = [r for r in outcome.rows if r.baseline is not None]
    assert len(paired) == 10
    for row in paired:
        a, b = x[row.system], x[row.baseline]
        both = np.isfinite(a) & np.isfinite(b)
        assert row.p["t"] == pytest.approx(st.ttest_rel(a[both], b[both]).pvalue, rel=1e-9)
        assert row.p["wilcoxon"] == pytest.approx(st.wilcoxon(a[both], b[both]).pvalue, rel=1e-9)
        assert row.effect.n == both.sum() and row.delta == systems.values[row.system] - systems.values[row.baseline]
    for test in ("t", "wilcoxon", "randomization"):
        assert [r.p_adj[test] for r in paired] == adjust([r.p[test] for r in paired], "by")
    assert all("tukey" not in r.p_adj for r in paired)  # Tukey's HSD is not adjusted again
    complete = np.isfinite(x).all(axis=0)
    assert outcome.complete_topics == complete.sum()


def test_one_group_has_no_bootstrap():
    systems = comparisons.Systems(["a", "b"], MeanStat(), [np.array([0.2]), np.array([0.5])], [0.2, 0.5])
    row = comparisons.compare(systems, [(1, 0)], comparisons.Settings()).rows[1]
    assert math.isnan(row.p["bootstrap"]) and math.isnan(row.ci_low) and math.isnan(row.delta_ci_low)
    assert row.p["randomization"] == 1.0  # swapping one group can only give ±δ: no evidence


def test_identical_for_any_jobs():
    systems, _ = _systems(m=4, n=60, nan=2)
    settings = dict(tests=("bootstrap", "randomization", "randomized-tukey", "t"), bootstrap=600, permutations=700,
                    seed=3)
    pairs = comparisons.pairs_of(4, [], all_pairs=True)
    one = comparisons.compare(systems, pairs, comparisons.Settings(**settings, jobs=1))
    two = comparisons.compare(systems, pairs, comparisons.Settings(**settings, jobs=2))
    assert repr(one.rows) == repr(two.rows)


def _fake_metric_module():
    """A sacreBLEU metric whose corpus score is the mean of per-segment scores (hypotheses are the scores)."""
    sacrebleu = pytest.importorskip("sacrebleu")

    class Score:
        def __init__(self, score):
            self.score = score

    class MeanMetric:
        def _extract_corpus_statistics(self, hypotheses, references):
            return [[float(h), 1.0] for h in hypotheses]

        def _aggregate_and_compute(self, stats):
            total = np.sum(np.asarray(stats, dtype=float), axis=0)
            return Score(total[0] / total[1])

        def _compute_score_from_stats(self, stats):
            return Score(stats[0] / stats[1])

    return sacrebleu, MeanMetric()


@pytest.mark.parametrize("shift", [0.0, 0.01, 0.03])
def test_randomization_agrees_with_sacrebleu_paired_ar(shift):
    """sacreBLEU 2.x ``_paired_ar_test``: p = (1 + #{|Δ*| > |δ|}) / (1 + R) with its own random stream; ours
    is the same statistic (≥ up to 1e-9) on per-trial streams. Two estimates of one p from R and R' trials
    differ by at most 5·√(p(1−p)(1/R + 1/R')) + 1/R beyond a tie, failing by chance with probability < 1e-6."""
    sacrebleu, metric = _fake_metric_module()
    from sacrebleu.significance import _paired_ar_test

    rng = np.random.default_rng(17)
    base = rng.random(150)
    other = np.clip(base + rng.normal(shift, 0.1, 150), 0, 1)
    trials = 10000
    bl_stats = metric._extract_corpus_statistics([repr(float(v)) for v in base], None)
    bl_result = sacrebleu.significance.Result(metric._aggregate_and_compute(bl_stats).score)
    _, results = _paired_ar_test({"m": (np.array(bl_stats), bl_result)}, "x", [repr(float(v)) for v in other], None,
                                 {"m": metric}, n_samples=trials, seed=12345)
    theirs = results["m"].p_value
    systems = comparisons.Systems(["b", "x"], MeanStat(), [base, other], [base.mean(), other.mean()])
    ours = comparisons.compare(systems, [(1, 0)], comparisons.Settings(tests=("randomization",), bootstrap=0,
                                                                  permutations=trials)).rows[1].p["randomization"]
    p = (ours + theirs) / 2
    assert abs(ours - theirs) <= 5 * math.sqrt(p * (1 - p) * 2 / trials) + 1 / trials, (ours, theirs)


def test_randomization_agrees_with_ranx_fisher():
    """ranx's ``fisher_randomization_test`` (Smucker et al. 2007): p = #{|Δ*| ≥ |δ|}/R; tolerance as above."""
    pytest.importorskip("ranx")
    from ranx.statistical_tests import fisher_randomization_test

    rng = np.random.default_rng(23)
    for shift in (0.0, 0.04):
        a = rng.random(40)
        b = np.clip(a + rng.normal(shift, 0.15, 40), 0, 1)
        trials = 10000
        theirs, _ = fisher_randomization_test(a, b, trials, 0.05, 42)
        systems = comparisons.Systems(["a", "b"], MeanStat(), [a, b], [a.mean(), b.mean()])
        ours = comparisons.compare(systems, [(1, 0)], comparisons.Settings(tests=("randomization",), bootstrap=0,
                                                                      permutations=trials)).rows[1].p["randomization"]
        p = (ours + theirs) / 2
        assert abs(ours - theirs) <= 5 * math.sqrt(p * (1 - p) * 2 / trials) + 1 / trials, (ours, theirs)


def test_bootstrap_interval_agrees_with_sacrebleu_paired_bs():
    """sacreBLEU's ``_paired_bs_test`` interval of a system's score is mean ± half the distance between the
    (N/40)-th order statistics, i.e. the order statistics themselves; ours is the type-7 percentile interval.
    Both estimate the 2.5% and 97.5% quantiles of the bootstrap distribution of the mean from N replicates:
    each estimate has a standard error of about √(q(1−q)/N)/φ(z_q)·σ (σ = s/√n the bootstrap sd, q = 0.025),
    so the two differ by at most 5·√2 of it (failing by chance with probability < 1e-6)."""
    sacrebleu, metric = _fake_metric_module()
    from sacrebleu.significance import _paired_bs_test

    rng = np.random.default_rng(29)
    base, other = rng.random(300), rng.random(300) * 0.9 + 0.05
    replicates = 1000
    bl_stats = metric._extract_corpus_statistics([repr(float(v)) for v in base], None)
    bl_result = sacrebleu.significance.Result(metric._aggregate_and_compute(bl_stats).score)
    _, results = _paired_bs_test({"m": (np.array(bl_stats), bl_result)}, "x", [repr(float(v)) for v in other],
                                 None, {"m": metric}, n_samples=replicates, seed=12345)
    theirs = results["m"]
    systems = comparisons.Systems(["b", "x"], MeanStat(), [base, other], [base.mean(), other.mean()])
    row = comparisons.compare(systems, [(1, 0)], comparisons.Settings(tests=("bootstrap",), bootstrap=replicates,
                                                                 permutations=0)).rows[1]
    sigma = other.std(ddof=1) / math.sqrt(len(other))
    q = 0.025
    tolerance = 5 * math.sqrt(2) * math.sqrt(q * (1 - q) / replicates) / st.norm.pdf(st.norm.ppf(q)) * sigma
    assert abs(row.ci_low - (theirs.mean - theirs.ci)) <= tolerance
    assert abs(row.ci_high - (theirs.mean + theirs.ci)) <= tolerance
    assert theirs.score == pytest.approx(row.value, rel=1e-6)  # sacreBLEU sums in float32
