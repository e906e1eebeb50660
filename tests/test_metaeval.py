"""Meta-evaluation statistics (rankeval_cli.stats.metaeval) against published values and slow loops.

Expected values marked "mt-metrics-eval stats_test.py" are copied (inputs and
asserted values) from google-research/mt-metrics-eval, mt_metrics_eval/stats_test.py.
"""

import itertools
import math
import os

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from rankeval_cli.stats import metaeval as me
from slow_spa import exact_p_values, float32_fragile
from rankeval_cli.stats.metaeval import calibration as cal
from rankeval_cli.stats.metaeval import hybrids
from rankeval_cli.stats.metaeval import permutation as pm


def packed(values, num_sys):
    """mt-metrics-eval's packed vector (system-major, None = missing) as a (num_sys, n_seg) matrix."""
    return np.array([np.nan if v is None else v for v in values], float).reshape(num_sys, -1)


# Values asserted by mt-metrics-eval stats_test.py ---------------------------------------

G6, M6 = packed([1, 2, 3, 4, 5, 6], 2), packed([2, 1, 4, 3, 3, 7], 2)


@pytest.mark.parametrize("statistic,variant,expected", [
    ("pearson", None, {"none": 0.776, "system": 0.760, "item": 1.00}),
    ("kendall", None, {"none": 0.552, "system": 0.575, "item": 1.00}),
    ("kendall", "c", {"none": 0.556, "system": 0.611, "item": 1.00}),
])
def test_mtme_correlation_values(statistic, variant, expected):
    # mt-metrics-eval stats_test.py: CorrelationTest.testPearson, testKendall, testKendallC
    for average_by, value in expected.items():
        got = me.seg_statistic(G6, M6, statistic, average_by, variant=variant).value
        assert round(got, 3) == value


def test_mtme_pdp():
    # mt-metrics-eval stats_test.py: CorrelationTest.testPearsonPdp, AverageCorrelationTest.testPdpWithAveragingAndNones
    for average_by, value in {"item": 0.926, "none": 0.776, "system": 0.766}.items():
        assert round(me.seg_statistic(G6, M6, "pdp", average_by).value, 3) == value
    g, m = packed([1, 5, None, 10, 2, 12], 2), packed([3, 15, 1, 20, 4, 24], 2)
    assert round(me.seg_statistic(g, m, "pdp", "item").value, 3) == 0.968
    assert round(me.seg_statistic(g, m, "pdp", "none").value, 3) == 0.975


def test_mtme_kendall_like():
    # mt-metrics-eval stats_test.py: CorrelationTest.testKendallLike, CorrelationFunctionsTest.testKendallLike
    assert me.kendall_like(packed([10, None, 100, 150], 1), packed([2, 1, 4, 3], 1), "none", 1).value == 1 / 3
    assert me.kendall_like(packed([10, 11, 100, 150], 2), packed([2, 1, 4, 3], 2), "item", 1).value == 1
    assert me.kendall_like(packed([10, None, 100, 150], 2), packed([2, 1, 4, 3], 2), "item", 1).value == 1
    r = me.kendall_like(packed([10, 11, 100, 150], 1), packed([2, 1, 4, 3], 1), "none")
    assert (r.value, r.counts["C"], r.counts["D"] + r.counts["T_m"]) == (3 / 5, 4, 1)
    r = me.kendall_like(packed([10, 11, 100, 150], 1), packed([2, 1, 4, 3], 1), "none", 1)
    assert (r.value, r.counts["C"], r.counts["D"] + r.counts["T_m"]) == (2 / 6, 4, 2)


def test_mtme_kendall_variants():
    # mt-metrics-eval stats_test.py: CorrelationTest.testKendallVariants, testKendallWithTiesOpt
    g, m = packed([1, 2, 2, 3, 4], 1), packed([2, 1, 1.5, 5, 3], 1)
    assert me.seg_statistic(g, m, "kendall", variant="b").value == pytest.approx(0.316227766)
    assert me.seg_statistic(g, m, "kendall", variant="c").value == 0.32
    assert me.seg_statistic(g, m, "kendall", variant="eq").value == pytest.approx(0.2, abs=1e-15)
    assert me.seg_statistic(g, m, "kendall", variant="acc-eq").value == 0.6
    assert me.seg_statistic(g, m, "accuracy", epsilon=2).value == 0.4
    assert me.seg_statistic(g, m, "accuracy", calibrate=True).value == 0.7


def test_mtme_kendall_variants_counts_and_epsilon():
    # mt-metrics-eval stats_test.py: testKendallVariants_23, testKendallVariantsWithPositiveEpsilon
    # (their x is the human vector, y the metric)
    x, y = packed([1, 1, 1, 2, 2, 3, 4], 1), packed([1, 1, 2, 2, 4, 3, 3], 1)
    assert me.seg_statistic(x, y, "kendall", variant="eq").value == (14 - 7) / 21
    assert me.seg_statistic(x, y, "kendall", variant="eq", epsilon=0.1).value == (14 - 7) / 21
    # epsilon 1 on the metric: T_m + T_hm = 13, T_h + T_hm = 3, T_hm = 3, D = 1
    r = me.seg_statistic(y, x, "kendall", variant="eq", epsilon=1.0)
    concordant = 21 - 1 - 10 - 0 - 3
    assert r.value == (concordant + 3 - 1 - 10 - 0) / 21
    assert r.counts == {"C": concordant, "D": 1, "T_h": 0, "T_m": 10, "T_hm": 3}


def test_mtme_calibrated_average_by():
    # mt-metrics-eval stats_test.py: CorrelationFunctionsTest.testKendallWithTiesOpt — the calibrated value
    # is the average of the groups' acc-eq at the chosen epsilon
    gold, metric = [1, 2, 2, 3, 3, 4], [2, 1, 1.5, 5, 3, 2]
    for average_by, groups in (("none", [[0, 1, 2, 3, 4, 5]]), ("system", [[0, 1, 2], [3, 4, 5]]),
                               ("item", [[0, 3], [1, 4], [2, 5]])):
        r = me.seg_statistic(packed(gold, 2 if average_by != "none" else 1),
                             packed(metric, 2 if average_by != "none" else 1), "accuracy", average_by,
                             calibrate=True)
        per_group = [me.seg_statistic(packed([gold[i] for i in g], 1), packed([metric[i] for i in g], 1),
                                      "accuracy", epsilon=r.epsilon).value for g in groups]
        assert r.value == pytest.approx(np.mean(per_group), abs=1e-15)


def test_mtme_average_correlation():
    # mt-metrics-eval stats_test.py: AverageCorrelationTest (missing entries, by system, by item,
    # NaN handling, micro averaging)
    pearson = scipy.stats.pearsonr
    g, m = packed([1, None, 3, 4, 5, 6], 1), packed([2, 1, 4, 3, 5, 6], 1)
    assert me.seg_statistic(g, m).value == pytest.approx(pearson([1, 3, 4, 5, 6], [2, 4, 3, 5, 6])[0])
    g, m = packed([1, 2, 3, 4, 5, 6], 2), packed([2, 1, 8, 3, 5, 6], 2)
    assert me.seg_statistic(g, m, "pearson", "system").value == pytest.approx(
        (pearson([1, 2, 3], [2, 1, 8])[0] + pearson([4, 5, 6], [3, 5, 6])[0]) / 2)
    assert me.seg_statistic(g, m, "pearson", "item").value == pytest.approx(
        (pearson([1, 4], [2, 3])[0] + pearson([2, 5], [1, 5])[0] + pearson([3, 6], [8, 6])[0]) / 3)
    g, m = packed([1, None, 3, 4, 5, 6], 2), packed([2, 1, 8, 3, 5, 6], 2)
    assert me.seg_statistic(g, m, "pearson", "item").value == pytest.approx(
        (pearson([1, 4], [2, 3])[0] + pearson([3, 6], [8, 6])[0]) / 2)
    g, m = packed([1, 2, 3, 4, 5, 6], 2), packed([2, 2, 2, 4, 5, 6], 2)
    assert me.seg_statistic(g, m, "pearson", "system").value == pytest.approx(1.0)
    assert me.seg_statistic(g, m, "pearson", "system", undefined_as_zero=True).value == pytest.approx(0.5)
    g, m = packed([1, None, 3, 4, 5, 6], 2), packed([2, 1, 8, 3, 5, 6], 2)
    assert me.seg_statistic(g, m, "pearson", "system", weighting="items").value == pytest.approx(
        (2 * pearson([1, 3], [2, 8])[0] + 3 * pearson([4, 5, 6], [3, 5, 6])[0]) / 5)


def test_mtme_agreement_and_spa():
    # mt-metrics-eval stats_test.py: CorrelationFunctionsTest.testAgreement, CorrelationTest.testPairwiseConfidenceError
    assert me.agreement([1, 2, 3, 3, 4], [1, 1, 2, 1, 2]) == (5, 10)
    assert me.pairwise_accuracy([1, 2, 3, 3, 4], {"m": [1, 1, 2, 1, 2]}) == {"m": 0.5}
    spa = me.soft_pairwise_accuracy(packed([1, 2, 3, 2, 3, 4], 2), packed([2, 2, 4, 1, 3, 5], 2))
    assert round(spa, 3) == 0.872


def test_mtme_williams():
    # mt-metrics-eval stats_test.py: WilliamsSigDiffTest
    gold = packed([1, 2, 3, 4, 5], 5)
    p, r1, r2 = me.williams(gold, packed([1.1, 2, 3.1, 4, 5.1], 5), packed([1.5, 2, 3.1, 4, 5.5], 5))
    assert (round(p, 3), round(r1, 3), round(r2, 3)) == (0.019, 0.999, 0.987)
    gold = packed([1, None, 3, 4, 5, 6], 3)
    p, r1, r2 = me.williams(gold, packed([1, 2, 3, 3, 7, 3], 3), packed([2, 1, 2, 6, 8, 8], 3), "pearson", "item")
    assert (round(p, 3), round(r1, 3), round(r2, 3)) == (0.121, 0.982, 0.933)


def test_mtme_reshape_and_filter():
    # mt-metrics-eval stats_test.py: testReshapeAndFilter
    gold = packed([1, 2, None, None, 5, None], 3)
    for average_by, sizes, order in (("system", [2, 1], [1, 2, 5]), ("item", [2, 1], [1, 5, 2]),
                                     ("none", [3], [1, 2, 5])):
        cells = me.grouped_cells(gold, [gold], average_by)
        assert cells.sizes.tolist() == sizes and cells.human.tolist() == order


class TestMtmePermutation:
    # mt-metrics-eval stats_test.py: PermutationSigDiffTest, PairwisePermutationSigDiffTest
    gold = packed([1, 2, 3, 4, 5, 5, 7, 8], 4)
    metric1 = packed([1, 2, 3, 3, 7, 3, 5, 5], 4)
    metric2 = packed([2, 1, 2, 6, 8, 8, 7, 6], 4)

    def test_pearson_no_average(self):
        delta = (scipy.stats.pearsonr(self.metric2.ravel(), self.gold.ravel())[0]
                 - scipy.stats.pearsonr(self.metric1.ravel(), self.gold.ravel())[0])
        r = me.permutation_test(self.gold, self.metric2, self.metric1, "pearson", "none", permutations=1000, seed=1)
        assert r.p > 0 and r.delta == pytest.approx(delta) and r.k == 1000 and len(r.draws) == 1000
        assert np.mean(r.draws[:, 0] - r.draws[:, 1] >= r.delta) == r.p

    def test_pearson_early_stop(self):
        r = me.permutation_test(self.gold, self.metric2, self.metric1, "pearson", "none", permutations=1000,
                                seed=1, early_stop=pm.EarlyStop(50, 0.02, 0.2))
        assert r.p > 0 and r.k < 1000 and len(r.draws) == r.k and r.k % 50 == 0

    @pytest.mark.parametrize("statistic,average_by,variant", [
        ("pearson", "system", None), ("pearson", "item", None), ("kendall", "item", None),
        ("kendall", "item", "c"), ("kendall", "item", "eq"), ("kendall", "item", "acc-eq")])
    def test_delta(self, statistic, average_by, variant):
        opts = {"variant": variant} if variant else {}
        delta = (me.seg_statistic(self.gold, self.metric2, statistic, average_by, **opts).value
                 - me.seg_statistic(self.gold, self.metric1, statistic, average_by, **opts).value)
        r = me.permutation_test(self.gold, self.metric2, self.metric1, statistic, average_by, permutations=10,
                                seed=1, **opts)
        assert r.p > 0 and r.delta == pytest.approx(delta) and r.k == 10

    def test_pairwise_calibrated(self):
        gold = packed([1, 3, 3, 3, 1, 2, 1, 2], 4)
        m1, m2 = packed([2, 4, 6, 6, 2, 6, 3, 7], 4), packed([1, 5, 4, 4, 4, 3, 2, 1], 4)
        t1 = me.seg_statistic(gold, m1, "accuracy", "item", calibrate=True).value
        t2 = me.seg_statistic(gold, m2, "accuracy", "item", calibrate=True).value
        r = me.permutation_test(gold, m2, m1, "accuracy", "item", permutations=10, seed=1, calibrate=True)
        assert r.p > 0 and r.delta == pytest.approx(t2 - t1) and r.k == 10 and len(r.draws) == 10
        # variant b at a fixed epsilon 1 for both metrics
        cells = me.grouped_cells(gold, [m2, m1], "item")
        r = pm.pairwise_permutation(cells.human, cells.metrics[0], cells.metrics[1], cells.offsets, "b", 1, 1, 10, 1)
        assert r.delta == pytest.approx(me.seg_statistic(gold, m2, "kendall", "item", variant="b", epsilon=1).value
                                        - me.seg_statistic(gold, m1, "kendall", "item", variant="b", epsilon=1).value)


# Slow direct implementations on random matrices ----------------------------------------

def random_task(seed, n_sys=5, n_seg=7, missing=0.15):
    rng = np.random.default_rng(seed)
    human = rng.integers(0, 4, (n_sys, n_seg)).astype(float)  # many ties
    human[rng.random(human.shape) < missing] = np.nan
    metric = np.round(np.nan_to_num(human, nan=1.0) + rng.normal(0, 1.5, human.shape), 1)
    metric[rng.random(human.shape) < 0.05] = np.nan
    return human, metric


def slow_groups(human, metric, average_by):
    n_sys, n_seg = human.shape
    if average_by == "none":
        cells = [[(s, t) for s in range(n_sys) for t in range(n_seg)]]
    elif average_by == "system":
        cells = [[(s, t) for t in range(n_seg)] for s in range(n_sys)]
    else:
        cells = [[(s, t) for s in range(n_sys)] for t in range(n_seg)]
    out = []
    for group in cells:
        pts = [(human[c], metric[c]) for c in group if not (np.isnan(human[c]) or np.isnan(metric[c]))]
        out.append(([p[0] for p in pts], [p[1] for p in pts]))
    return out


def slow_counts(h, m, epsilon=0.0, min_diff=None):
    counts = dict.fromkeys(("C", "D", "T_h", "T_m", "T_hm"), 0)
    for (h1, m1), (h2, m2) in itertools.combinations(zip(h, m), 2):
        if min_diff is not None and abs(h1 - h2) < min_diff:
            continue
        mt, ht = abs(m1 - m2) <= epsilon, h1 == h2
        key = "T_hm" if ht and mt else "T_h" if ht else "T_m" if mt else \
            "C" if (h1 - h2) * (m1 - m2) > 0 else "D"
        counts[key] += 1
    return counts


def slow_tau(variant, c):
    C, D, Th, Tm, Thm = c["C"], c["D"], c["T_h"], c["T_m"], c["T_hm"]
    N = C + D + Th + Tm + Thm
    num, den = {"b": (C - D, math.sqrt((C + D + Th) * (C + D + Tm))), "eq": (C + Thm - D - Th - Tm, N),
                "acc-eq": (C + Thm, N), "penalize": (C - D - Tm, C + D + Tm), "ignore": (C - D, C + D),
                "a": (C - D, N)}[variant]
    return num / den if den else math.nan


def slow_average(values, sizes, weights=None, zero=False):
    kept = [(v, w) for v, s, w in zip(values, sizes, weights or [1] * len(values)) if s >= 2]
    kept = [(0.0 if (zero and math.isnan(v)) else v, w) for v, w in kept]
    kept = [(v, w) for v, w in kept if not math.isnan(v)]
    total = sum(w for _, w in kept)
    if weights is None:  # mt-metrics-eval's np.average: the same rounding decides ties at delta
        return float(np.average([v for v, _ in kept])) if kept else 0.0
    return sum(v * w for v, w in kept) / total if total else 0.0


def scipy_value(statistic, h, m):
    if len(set(h)) == 1 or len(set(m)) == 1:
        return math.nan
    fn = {"pearson": scipy.stats.pearsonr, "spearman": scipy.stats.spearmanr, "kendall": scipy.stats.kendalltau}
    return float(fn[statistic](h, m)[0])


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("average_by", me.AVERAGE_BY)
def test_correlations_against_scipy(seed, average_by):
    human, metric = random_task(seed)
    groups = slow_groups(human, metric, average_by)
    for statistic in ("pearson", "spearman", "kendall"):
        values = [scipy_value(statistic, h, m) if len(h) >= 2 else math.nan for h, m in groups]
        sizes = [len(h) for h, _ in groups]
        for zero in (False, True):
            got = me.seg_statistic(human, metric, statistic, average_by, undefined_as_zero=zero).value
            assert got == pytest.approx(slow_average(values, sizes, zero=zero), abs=1e-12)
        got = me.seg_statistic(human, metric, statistic, average_by, weighting="items").value
        assert got == pytest.approx(slow_average(values, sizes, sizes), abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("average_by", me.AVERAGE_BY)
def test_tau_variants_epsilon_min_diff_against_pair_loops(seed, average_by):
    human, metric = random_task(seed)
    groups = slow_groups(human, metric, average_by)
    sizes = [len(h) for h, _ in groups]
    for variant in ("b", "eq", "acc-eq", "penalize", "ignore", "a"):
        for epsilon, min_diff in ((0.0, None), (0.45, None), (0.0, 2), (0.3, 1)):
            counts = [slow_counts(h, m, epsilon, min_diff) for h, m in groups]
            values = [slow_tau(variant, c) for c in counts]
            got = me.seg_statistic(human, metric, "kendall", average_by, variant=variant, epsilon=epsilon,
                                   min_human_diff=min_diff)
            assert got.value == pytest.approx(slow_average(values, sizes), abs=1e-12)
            pairs = [sum(c.values()) for c in counts]
            pooled = me.seg_statistic(human, metric, "kendall", average_by, variant=variant, epsilon=epsilon,
                                      min_human_diff=min_diff, weighting="pairs").value
            assert pooled == pytest.approx(slow_average(values, sizes, pairs), abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("average_by", me.AVERAGE_BY)
def test_calibration_against_brute_force(seed, average_by):
    human, metric = random_task(seed)
    groups = slow_groups(human, metric, average_by)
    sizes = [len(h) for h, _ in groups]
    candidates = sorted({0.0} | {abs(a - b) for _, m in groups for a, b in itertools.combinations(m, 2)})
    for variant in ("acc-eq", "eq"):
        scores = [slow_average([slow_tau(variant, slow_counts(h, m, e)) for h, m in groups], sizes)
                  for e in candidates]
        best = max(scores)
        first = next(e for e, s in zip(candidates, scores) if s >= best - 1e-12)
        got = me.seg_statistic(human, metric, "kendall", average_by, variant=variant, calibrate=True)
        assert got.value == pytest.approx(best, abs=1e-12) and got.epsilon == first


def slow_pdp(human, metric, average_by):
    """PDP as mt-metrics-eval defines it: every ordered pair (a, b) of a group's cells, a = b included,
    gives (h_b - h_a, m_b - m_a); scipy's Pearson r of all of them pooled; 0 when undefined."""
    return slow_pdp_of_groups(slow_groups(human, metric, average_by))


def slow_pdp_of_groups(groups):
    dh, dm = [], []
    for h, m in groups:
        for a, b in itertools.product(range(len(h)), repeat=2):
            dh.append(h[b] - h[a])
            dm.append(m[b] - m[a])
    if len(dh) < 2 or len(set(dh)) == 1 or len(set(dm)) == 1:
        return 0.0
    return float(scipy.stats.pearsonr(dh, dm)[0])


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 5), st.integers(1, 7), st.sampled_from(me.AVERAGE_BY),
       st.booleans())
def test_pdp_against_pair_enumeration(seed, n_sys, n_seg, average_by, constant_groups):
    human, metric = random_task(seed, n_sys, n_seg)
    if constant_groups:  # whole rows and columns of equal scores: groups whose differences are all 0
        human[0, :] = 1.5
        metric[:, 0] = 0.1
    got = me.seg_statistic(human, metric, "pdp", average_by).value
    assert got == pytest.approx(slow_pdp(human, metric, average_by), abs=1e-12)


def test_pdp_none_is_pearson():
    human, metric = random_task(3, 6, 9)
    assert me.seg_statistic(human, metric, "pdp").value == pytest.approx(me.seg_statistic(human, metric).value,
                                                                         abs=1e-14)
    with pytest.raises(ValueError, match="pooled"):
        me.seg_statistic(human, metric, "pdp", "item", weighting="items")


def random_groups(seed, max_groups=4, max_size=25):
    """Random groups with many human ties and metric scores rounded to 0-2 decimals (metric ties)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, max_size, rng.integers(1, max_groups + 1))
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    human = rng.integers(0, 4, offsets[-1]).astype(float)
    metric = np.round(human + rng.normal(0, 1.5, offsets[-1]), int(rng.integers(0, 3)))
    return human, metric, offsets


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["acc-eq", "eq"]), st.sampled_from(["plain", "pairs"]),
       st.integers(1, 60))
def test_calibration_sweep_equals_pair_enumeration(seed, variant, weighting, band_pairs):
    """The O(n log n) sweep (bands of at most band_pairs pairs, so bounds and splits are exercised)
    finds the same threshold and the same counts as scoring every pair at every threshold."""
    human, metric, offsets = random_groups(seed)
    counts, eps = cal.calibrated_counts(variant, human, metric, offsets, weighting=weighting)
    swept, swept_eps = cal.sweep_calibrated_counts(variant, human, metric, offsets, weighting=weighting,
                                                   band_pairs=band_pairs)
    assert swept_eps == eps
    for k in ("C", "D", "T_h", "T_m", "T_hm"):
        assert getattr(swept, k).tolist() == getattr(counts, k).tolist(), k


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0, 3))
def test_threshold_counts_equal_pair_enumeration(seed, epsilon):
    human, metric, offsets = random_groups(seed)
    _, _, mdiff, _, _ = cal.pair_categories(human, metric, offsets)
    counter = cal.ThresholdCounts(human, metric, offsets)
    for t in (epsilon, *np.random.default_rng(seed).choice(mdiff, min(3, len(mdiff)))):  # also at differences
        group, category, _, _, _ = cal.pair_categories(human, metric, offsets, epsilon=t)
        expected = cal.counts_from_categories(group, category, len(offsets) - 1, np.diff(offsets))
        got, _ = counter.counts(t)
        assert [x.tolist() for x in got] == [getattr(expected, k).tolist() for k in ("C", "D", "T_h", "T_m", "T_hm")]


def test_large_groups_take_the_sweep(monkeypatch):
    """Above SWEEP_MIN_PAIRS pairs, calibrated and fixed-ε statistics are counted without enumerating
    the pairs, with the same values."""
    human, metric = random_task(21, 6, 40)
    before = {avg: me.seg_statistic(human, metric, "accuracy", avg, calibrate=True) for avg in me.AVERAGE_BY}
    fixed = {avg: me.seg_statistic(human, metric, "kendall", avg, variant="eq", epsilon=0.5) for avg in me.AVERAGE_BY}
    monkeypatch.setattr(cal, "SWEEP_MIN_PAIRS", 0)
    monkeypatch.setattr(cal, "pair_categories", None)  # would fail if called
    for avg in me.AVERAGE_BY:
        after = me.seg_statistic(human, metric, "accuracy", avg, calibrate=True)
        assert (after.value, after.epsilon, after.counts) == (before[avg].value, before[avg].epsilon,
                                                              before[avg].counts)
        again = me.seg_statistic(human, metric, "kendall", avg, variant="eq", epsilon=0.5)
        assert (again.value, again.counts) == (fixed[avg].value, fixed[avg].counts)


def test_pairwise_test_on_large_groups(monkeypatch):
    """Groups of more pairs than MAX_PAIRS: the pairwise test draws, per group and trial, how many of the
    pairs good for one metric only each hybrid keeps; same δ as the per-pair test, and p-values that
    estimate the same permutation distribution."""
    human, a = random_task(31, 5, 30, missing=0.1)
    _, b = random_task(32, 5, 30, missing=0.0)
    cells = me.grouped_cells(human, [a, b], "system")
    h, x, y, off = cells.human, cells.metrics[0], cells.metrics[1], cells.offsets
    per_pair = pm.pairwise_permutation(h, x, y, off, "acc-eq", 0.4, 0.0, 3000, 1)
    both, only_a, only_b = pm._joint_good_counts(h, x, y, off, 0.4, 0.0)
    for g, (start, end) in enumerate(zip(off[:-1], off[1:])):
        good = []
        for values, eps in ((x, 0.4), (y, 0.0)):
            c = slow_counts(h[start:end], values[start:end], eps)
            good.append(c["C"] + c["T_hm"])
        pairs = (end - start) * (end - start - 1) // 2
        assert both[g] + only_a[g] == good[0] and both[g] + only_b[g] == good[1]
        assert both[g] + only_a[g] + only_b[g] <= pairs
    monkeypatch.setattr(pm, "MAX_PAIRS", 0)
    monkeypatch.setattr(pm, "PAIR_CHUNK", 7)  # many chunks
    by_counts = pm.pairwise_permutation(h, x, y, off, "acc-eq", 0.4, 0.0, 3000, 1)
    assert by_counts.delta == per_pair.delta and by_counts.k == 3000
    assert abs(by_counts.p - per_pair.p) < 0.04
    again = pm.pairwise_permutation(h, x, y, off, "acc-eq", 0.4, 0.0, 3000, 1)
    assert again.draws.tobytes() == by_counts.draws.tobytes()
    with pytest.raises(ValueError, match="eq and acc-eq"):
        pm.pairwise_permutation(h, x, y, off, "b", 0.4, 0.0, 10, 1)


def test_system_level_and_pairwise_accuracy():
    rng = np.random.default_rng(3)
    hs = [rng.integers(0, 5, 6).astype(float), rng.normal(size=4)]
    hs[0][2] = np.nan
    ms = {"a": [np.round(h + rng.normal(size=len(h)), 0) for h in hs], "b": [h * 2 for h in hs]}
    got = me.pairwise_accuracy(hs, ms)
    for name, m in ms.items():
        agree = pairs = 0
        for h, x in zip(hs, m):
            for i, j in itertools.combinations(range(len(h)), 2):
                if np.isnan(h[i]) or np.isnan(h[j]):
                    continue
                pairs += 1
                agree += np.sign(h[i] - h[j]) == np.sign(x[i] - x[j])
        assert got[name] == agree / pairs
    h, x = hs[1], ms["a"][1]
    assert me.sys_statistic(h, x, "pearson") == pytest.approx(scipy.stats.pearsonr(h, x)[0], abs=1e-12)
    assert me.sys_statistic(h, x, "kendall") == pytest.approx(scipy.stats.kendalltau(h, x)[0], abs=1e-12)
    assert me.sys_statistic(h, x, "spearman") == pytest.approx(scipy.stats.spearmanr(h, x)[0], abs=1e-12)


def test_spa_against_the_definition():
    """Exact sums equal the definition in rational arithmetic; float32 sums (mt-metrics-eval's) differ
    from it only on trials float32 rounding can decide either way."""
    rng = np.random.default_rng(2)
    human = rng.normal(size=(4, 30))
    metric = human + rng.normal(size=human.shape)
    signs = me.permutation_signs(30, 200, 4)
    assert set(np.unique(signs)) == {-1.0, 1.0}
    hp, mp = exact_p_values(human, signs), exact_p_values(metric, signs)
    np.testing.assert_array_equal(me.pairwise_p_values(metric, signs=signs), mp)
    expected = 1 - np.mean([abs(hp[i, j] - mp[i, j]) for i, j in itertools.combinations(range(4), 2)])
    assert me.soft_pairwise_accuracy(human, metric, me.SpaSpec(200)) == pytest.approx(expected, abs=1e-15)
    iu = np.triu_indices(4, 1)
    f32 = me.pairwise_p_values(metric, signs=signs, sums="float32")
    assert np.all(np.abs(np.round((f32 - mp) * 200))[iu] <= float32_fragile(metric, signs)[iu])
    # a segment with a missing score is left out for every system
    human[1, 5] = np.nan
    keep = np.ones(30, bool)
    keep[5] = False
    for sums in me.SPA_SUMS:
        spec = me.SpaSpec(200, sums=sums)
        assert me.soft_pairwise_accuracy(human, metric, spec) == me.soft_pairwise_accuracy(
            human[:, keep], metric[:, keep], spec)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["discrete", "tiny", "wide", "huge", "zeros"]))
def test_exact_sums_equal_the_definition_on_ties_and_wide_ranges(seed, kind):
    """Exact ties (discrete scores, duplicated systems), values spanning 600 binary orders, subnormals,
    values near the ±1e300 limit and all zeros: every trial decided as rational arithmetic decides it."""
    rng = np.random.default_rng(seed)
    n_seg = int(rng.integers(1, 25))
    if kind == "discrete":
        x = rng.integers(-3, 4, size=(4, n_seg)) * 0.5
    elif kind == "tiny":
        x = rng.normal(size=(4, n_seg)) * 2.0 ** rng.integers(-1074, -1000, size=(4, n_seg))
    elif kind == "wide":
        x = rng.normal(size=(4, n_seg)) * 2.0 ** rng.integers(-300, 300, size=(4, n_seg))
    elif kind == "huge":
        x = rng.choice([-1e300, 1e300, 3e299, 0.0, 1e-300], size=(4, n_seg))
    else:
        x = np.zeros((4, n_seg))
    x[3] = x[0]  # a duplicated system: every trial ties, p = 1
    signs = me.permutation_signs(n_seg, 40, int(rng.integers(0, 100)))
    p = me.pairwise_p_values(x, signs=signs)
    np.testing.assert_array_equal(p, exact_p_values(x, signs))
    assert p[0, 3] == 1.0


def test_spa_sums_are_exact_across_cpu_kernels_and_threads(shared):
    """SPA's p-values on WMT20 zh-en (MQM and YiSi-2, 8 systems x 2,000 segments) are the same bytes
    under OpenBLAS kernels of two families and 1, 2 and 4 threads (fresh processes; OPENBLAS_CORETYPE
    is read when numpy loads)."""
    import platform
    import subprocess
    import sys

    if platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("the kernel names are OpenBLAS's x86-64 ones")
    code = (
        "import sys, hashlib\n"
        "from rankeval_cli.formats.metaeval_input import tables_from_files\n"
        "from rankeval_cli.stats import metaeval as me\n"
        "from threadpoolctl import threadpool_info\n"
        "d = sys.argv[1]\n"
        "(t,) = tables_from_files([d + '/wmt20-mqm/mqm_newstest2020_zhen.avg_seg_scores.tsv'],"
        " [d + '/wmt20-mqm/YiSi-2.seg.score.gz'], [d + '/wmt20-mqm/details.zh-en.txt'])\n"
        "signs = me.permutation_signs(t.human.shape[1])\n"
        "p = me.pairwise_p_values(t.human, signs=signs).tobytes() + me.pairwise_p_values(t.metrics['YiSi-2'],"
        " signs=signs).tobytes()\n"
        "spa = me.soft_pairwise_accuracy(t.human, t.metrics['YiSi-2'])\n"
        "info = [i.get('architecture') for i in threadpool_info() if i['user_api'] == 'blas']\n"
        "print(hashlib.sha256(p).hexdigest(), repr(spa), info)\n")
    outputs, kernels = set(), set()
    for coretype in ("Sandybridge", "Haswell"):
        for threads in ("1", "2", "4"):
            env = dict(os.environ, OPENBLAS_CORETYPE=coretype, OPENBLAS_NUM_THREADS=threads, OMP_NUM_THREADS=threads)
            out = subprocess.run([sys.executable, "-c", code, str(shared)], env=env, capture_output=True, text=True,
                                 check=True).stdout.split(maxsplit=2)
            outputs.add(tuple(out[:2]))
            kernels.add(out[2])
    assert len(outputs) == 1, outputs
    assert outputs.pop()[1] == "0.5824285714285714"  # mt-metrics-eval's table with exact sums
    assert len(kernels) == 2, kernels  # the two kernel families were really used


# Permutation tests against slow trial-by-trial loops -----------------------------------

def slow_perm_both(stat_fn, human, a, b, k, seed, block=None, lo=0.02, hi=0.5):
    """PERM-BOTH as a plain loop: z-scores, one binomial draw per cell per trial (RandomState)."""
    rs = np.random.RandomState(seed)
    zb, za = scipy.stats.zscore(b), scipy.stats.zscore(a)
    delta = stat_fn(za) - stat_fn(zb)
    large = 0
    for i in range(1, k + 1):
        w = rs.binomial(1, 0.5, len(za))
        m1 = w * zb + (1 - w) * za
        m2 = (1 - w) * zb + w * za
        large += stat_fn(m2) - stat_fn(m1) >= delta
        if block and i % block == 0 and not lo <= large / i <= hi:
            break
    return large / i, i


@pytest.mark.parametrize("statistic,average_by,variant", [
    ("pearson", "none", None), ("pearson", "item", None), ("spearman", "system", None),
    ("kendall", "item", "b"), ("kendall", "none", "b"), ("kendall", "item", "acc-eq"),
    ("kendall", "system", "eq"), ("pdp", "item", None), ("pdp", "system", None)])
def test_perm_both_against_loop(statistic, average_by, variant):
    human, a = random_task(5, 4, 9, missing=0.1)
    _, b = random_task(6, 4, 9, missing=0.0)
    cells = me.grouped_cells(human, [a, b], average_by)
    opts = {"variant": variant} if variant else {}
    groups = np.split(np.arange(len(cells.human)), cells.offsets[1:-1])

    def stat_fn(x):
        if statistic == "pdp":
            return slow_pdp_of_groups([(list(cells.human[g]), list(x[g])) for g in groups])
        return me.seg_statistic(cells.human[None], x[None], statistic, "none", **opts).value if average_by == "none" \
            else slow_average([scipy_value(statistic, list(cells.human[g]), list(x[g]))
                               if variant in (None, "b") else
                               slow_tau(variant, slow_counts(cells.human[g], x[g])) for g in groups],
                              [len(g) for g in groups])

    p, k = slow_perm_both(stat_fn, cells.human, cells.metrics[0], cells.metrics[1], 60, 9, block=20, lo=0.1)
    stat = me.make_cell_statistic(statistic, cells.human, cells.offsets, **opts)
    r = pm.paired_permutation(stat, cells.metrics[0], cells.metrics[1], 60, 9, early_stop=pm.EarlyStop(20, 0.1, 0.5))
    assert (r.p, r.k) == (p, k)


def test_long_group_kendall_paths_agree(monkeypatch):
    """Few long groups: scipy's compiled count and the vectorized merge sort give the same trials."""
    human, a = random_task(9, 4, 120)  # groups longer than the per-pair path takes
    _, b = random_task(10, 4, 120)
    for average_by in ("none", "system"):
        cells = me.grouped_cells(human, [a, b], average_by)
        runs = []
        for fallback in (False, True):
            if fallback:
                monkeypatch.setattr(hybrids, "_kendall_dis", lambda: None)
            stat = me.make_cell_statistic("kendall", cells.human, cells.offsets, variant="wmt14")
            assert (getattr(stat, "_long", None) is None) == fallback
            runs.append(pm.paired_permutation(stat, cells.metrics[0], cells.metrics[1], 40, 2))
        monkeypatch.undo()
        assert runs[0].draws.tobytes() == runs[1].draws.tobytes() and runs[0].p == runs[1].p


def test_pairwise_permutation_against_loop():
    human, a = random_task(7, 5, 6, missing=0.1)
    _, b = random_task(8, 5, 6, missing=0.0)
    cells = me.grouped_cells(human, [a, b], "item")
    groups = np.split(np.arange(len(cells.human)), cells.offsets[1:-1])
    ea, eb = 0.3, 0.0
    rs = np.random.RandomState(4)

    def cats(x, e, g):
        return {(i, j): slow_counts([cells.human[g][i], cells.human[g][j]], [x[g][i], x[g][j]], e)
                for i, j in itertools.combinations(range(len(g)), 2)}

    ca = [cats(cells.metrics[0], ea, g) for g in groups]
    cb = [cats(cells.metrics[1], eb, g) for g in groups]

    def value(chosen):
        return slow_average([slow_tau("acc-eq", {k: sum(c[k] for c in ch.values()) for k in ("C", "D", "T_h", "T_m", "T_hm")})
                             for ch in chosen], [len(g) for g in groups])

    delta = value(ca) - value(cb)
    large = 0
    for _ in range(30):
        h1, h2 = [], []
        for g, A, B in zip(groups, ca, cb):
            w = np.triu(rs.binomial(1, 0.5, (len(g), len(g))))
            h1.append({p: (B[p] if w[p] else A[p]) for p in A})
            h2.append({p: (A[p] if w[p] else B[p]) for p in A})
        large += value(h2) - value(h1) >= delta - 1e-12
    r = pm.pairwise_permutation(cells.human, cells.metrics[0], cells.metrics[1], cells.offsets, "acc-eq", ea, eb, 30, 4)
    assert r.delta == pytest.approx(delta, abs=1e-12) and r.p == large / 30


def test_spa_permutation_against_loop():
    rng = np.random.default_rng(1)
    human = rng.normal(size=(3, 12))
    a, b = human + rng.normal(size=human.shape), human + 2 * rng.normal(size=human.shape)
    signs = me.permutation_signs(12, 50, 4)
    hp = exact_p_values(human, signs)

    def spa(x):
        mp = exact_p_values(x.reshape(3, 12), signs)
        return 1 - np.mean([abs(hp[i, j] - mp[i, j]) for i, j in itertools.combinations(range(3), 2)])

    p, k = slow_perm_both(spa, None, a.ravel(), b.ravel(), 20, 3)
    r = pm.paired_permutation(hybrids.SpaStatistic(human, me.SpaSpec(50)), a.ravel(), b.ravel(), 20, 3)
    assert r.p == p and r.k == k


# Determinism, chunking, clusters, averages ---------------------------------------------

def test_seeded_and_chunk_independent(monkeypatch):
    human, a = random_task(11, 6, 20)
    _, b = random_task(12, 6, 20)
    metrics = {"a": a, "b": b, "c": (a + b) / 2}
    runs = [me.compare_metrics(human, metrics, "pearson", average_by="item", permutations=200, seed=5)
            for _ in range(2)]
    monkeypatch.setattr(pm, "CHUNK_VALUES", 100)
    runs.append(me.compare_metrics(human, metrics, "pearson", average_by="item", permutations=200, seed=5))
    for r in runs[1:]:
        assert r.names == runs[0].names and r.p.tobytes() == runs[0].p.tobytes()
        assert all(r.draws[k].tobytes() == runs[0].draws[k].tobytes() for k in r.draws)
    calibrated = [me.compare_metrics(human, metrics, "accuracy", average_by="item", calibrate=True,
                                     permutations=50, seed=5) for _ in range(2)]
    assert calibrated[0].p.tobytes() == calibrated[1].p.tobytes()


def test_assign_ranks():
    p = np.array([[0, 0.3, 0.04, 0.01],
                  [0, 0, 0.2, 0.03],
                  [0, 0, 0, 0.5],
                  [0, 0, 0, 0]])
    # metric 2 is beaten by metric 0 (0.04): new cluster from 2; metric 3 is not beaten by 2: same cluster
    assert me.assign_ranks(p) == [1, 1, 2, 2]
    assert me.assign_ranks(p, 0.01) == [1, 1, 1, 2]


def test_average_over_tasks():
    def task(names, values, ranks, draws, rng=(-1.0, 1.0)):
        n = len(names)
        return me.Comparison(names, np.array(values), ranks, np.zeros((n, n)), draws, np.zeros((n, n), int), rng)

    t1 = task(["a", "b"], [0.5, 0.1], [1, 2], {(0, 1): np.array([[0.4, 0.2], [0.1, 0.5]])})
    t2 = task(["b", "a"], [0.9, 0.7], [1, 1], {(0, 1): np.array([[0.9, 0.6]])}, (0.0, 1.0))
    w = [0.25, 0.75]
    assert me.average_ranks([t1, t2], w) == {"a": 1.0, "b": 0.25 * 2 + 0.75}
    scores = me.average_scores([t1, t2], w)
    assert scores["a"] == pytest.approx(0.25 * 0.75 + 0.75 * 0.7)
    assert scores["b"] == pytest.approx(0.25 * 0.55 + 0.75 * 0.9)
    avg = me.average_comparison([t1, t2], w)
    assert avg.names == ["b", "a"]
    # draws of (b, a): task 1 reversed [[0.2, 0.4], [0.5, 0.1]], task 2 [[0.9, 0.6]] repeated
    null = [0.25 * (0.2 - 0.4) / 2 + 0.75 * 0.3, 0.25 * (0.5 - 0.1) / 2 + 0.75 * 0.3]
    assert avg.p[0, 1] == np.mean(np.array(null) >= scores["b"] - scores["a"])
    assert me.wmt23_weights(2) == [2 / 8] + [1 / 8] * 6


def test_global_accuracy_permutation_against_loop():
    """System-level pairwise accuracy over two language pairs (WMT22-23): z-scores over all systems,
    pooled agreements / pairs, as mt-metrics-eval's CompareMetricsWithGlobalAccuracy."""
    rng = np.random.default_rng(4)
    hs = [np.round(rng.normal(size=7), 1), np.round(rng.normal(size=5), 1)]
    ms = {"a": [np.round(h + rng.normal(0, 0.5, len(h)), 1) for h in hs],
          "b": [np.round(h + rng.normal(0, 1.0, len(h)), 1) for h in hs]}
    cmp = me.compare_metrics(hs, ms, "accuracy", level="sys", permutations=300, seed=8)
    hi, lo = cmp.names
    sizes = [len(h) for h in hs]

    def acc(x):
        agree = pairs = start = 0
        for h, n in zip(hs, sizes):
            a, p = me.agreement(h, x[start:start + n])
            agree, pairs, start = agree + a, pairs + p, start + n
        return agree / pairs

    p, k = slow_perm_both(acc, None, np.concatenate(ms[hi]), np.concatenate(ms[lo]), 300, 8)
    assert cmp.p[0, 1] == p and cmp.trials[0, 1] == k
    assert cmp.values.tolist() == [me.pairwise_accuracy(hs, ms)[n] for n in cmp.names]


def test_wmt_task_sets():
    rng = np.random.default_rng(12)
    seg = {}
    for lp in ("en-de", "zh-en"):
        human = -rng.poisson(2, (5, 30)).astype(float)
        human[rng.random(human.shape) < 0.1] = np.nan
        base = np.nan_to_num(human, nan=-2)
        seg[lp] = (human, {m: base + rng.normal(0, s, human.shape) for m, s in (("good", 0.5), ("bad", 3.0))})
    r24 = me.wmt_tasks(24, seg, permutations=20, seed=1)
    assert [name for name, _ in r24.tasks] == ["en-de sys spa", "en-de seg acc-eq calibrated item",
                                               "zh-en sys spa", "zh-en seg acc-eq calibrated item"]
    assert r24.weights == [0.25] * 4 and set(r24.average.names) == {"good", "bad"}
    human, metrics = seg["zh-en"]
    assert r24.tasks[2][1].as_dict()["good"][0] == me.soft_pairwise_accuracy(human[:, ~np.isnan(human).any(0)],
                                                                             metrics["good"][:, ~np.isnan(human).any(0)])
    avg = me.average_scores([r for _, r in r24.tasks], r24.weights)
    assert r24.average.values.tolist() == [avg[n] for n in r24.average.names]
    r23 = me.wmt_tasks(23, seg, permutations=20, seed=1)
    assert len(r23.tasks) == 7 and r23.weights == me.wmt23_weights(2)
    assert r23.tasks[0][0] == "sys accuracy en-de,zh-en"
    again = me.wmt_tasks(23, seg, permutations=20, seed=1)
    assert all(a[1].p.tobytes() == b[1].p.tobytes() for a, b in zip(r23.tasks, again.tasks))


# The rooms of the package ---------------------------------------------------------------

ROOMS = ["cells", "calibration", "segment", "signflip", "system", "hybrids", "permutation", "williams", "intervals", "compare",
         "pair_units", "tasks", "spans", "span_table"]


def test_rooms_import_one_way():
    """Each module of stats/metaeval imports only modules listed before it (no circle), and every
    module of the package is in the list."""
    import ast
    from pathlib import Path

    package = Path(me.__file__).parent
    assert {p.stem for p in package.glob("*.py")} - {"__init__"} == set(ROOMS)
    for position, room in enumerate(ROOMS):
        tree = ast.parse((package / f"{room}.py").read_text())
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                imported |= {node.module} if node.module else {a.name for a in node.names}
        assert imported <= set(ROOMS[:position]), (room, imported - set(ROOMS[:position]))


@pytest.mark.parametrize("sums", ["exact", "float32"])
def test_spa_trials_equal_one_matrix_product_per_hybrid(sums):
    """Permutation trials compute the sign sums of a chunk of hybrids in one matrix product; each hybrid's
    SPA equals the one computed alone (pairwise_p_values), bit for bit: exact sums decide every trial
    alike, and float32 sums see the operand layout mt-metrics-eval's call gives BLAS."""
    rng = np.random.default_rng(8)
    human = np.round(rng.normal(size=(6, 300)), 1)
    a, b = human + rng.normal(size=human.shape), np.round(human + 2 * rng.normal(size=human.shape), 2)
    spec = me.SpaSpec(sums=sums)
    stat = hybrids.SpaStatistic(human, spec)
    bits = rng.random((25, human.size)) > 0.5
    ms1, ms2 = pm.zscore(b.ravel()), pm.zscore(a.ravel())
    c1, _ = stat.hybrid_values(ms1, ms2, bits)
    for r in range(25):
        alone = me.soft_pairwise_accuracy(human, np.where(bits[r], ms1, ms2).reshape(human.shape), spec)
        assert c1[r] == alone


def test_spa_does_not_depend_on_the_blas_threads_of_the_process():
    """SPA's exact sums, and the float32 ones (which fix two BLAS threads), give the same SPA and
    p-values under any BLAS thread count of the process (a one-core machine, a Dask worker)."""
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(21)
    human = np.round(rng.normal(size=(8, 1500)), 1)
    metric = human + rng.normal(0, 2.0, human.shape)
    for sums in me.SPA_SUMS:
        found = set()
        for threads in (1, 2, 4):
            with threadpool_limits(limits=threads, user_api="blas"):
                p = me.pairwise_p_values(metric, sums=sums)
                spa = me.soft_pairwise_accuracy(human, metric, me.SpaSpec(sums=sums))
                found.add((spa, p[np.triu_indices(8, 1)].tobytes()))
        assert len(found) == 1
