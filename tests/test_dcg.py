"""DCG and NDCG (Avramidis 2013 §3.3 eqs. 7-8, docs/definitions.md#ndcg)."""

import math
from math import log2

import numpy as np
import pytest

from rankeval_cli.measures.dcg import dcg, mean_ndcg, ndcg
from slow_rank_measures import compare, make_batch, random_groups

NAN = math.nan


# ---- hand-computed ------------------------------------------------------------------------
# gold ranks [1, 2, 3] -> n = 3, rel = n - rank + 1 = [3, 2, 1]; exp gains 2^rel - 1 = [7, 3, 1].
# predicted [1, 1, 2]: items 1 and 2 tie at positions 1-2, item 3 at position 3.
# discounts 1/log2(i+1): 1, 1/log2 3, 1/2.  IDCG = 7 + 3/log2 3 + 1/2.
IDCG = 7 + 3 / log2(3) + 1 / 2


def test_dcg_hand_pessimistic():
    # worst gold first in the tie: item 2 (gain 3) at 1, item 1 (gain 7) at 2
    assert dcg([1, 2, 3], [1, 1, 2]) == pytest.approx(3 + 7 / log2(3) + 1 / 2, rel=1e-15)
    assert ndcg([1, 2, 3], [1, 1, 2]) == pytest.approx((3 + 7 / log2(3) + 1 / 2) / IDCG, rel=1e-15)


def test_dcg_hand_optimistic():
    assert ndcg([1, 2, 3], [1, 1, 2], tie_policy="optimistic") == pytest.approx(1.0, rel=1e-15)


def test_dcg_hand_expected():
    # both tied items get the mean discount (1 + 1/log2 3)/2 (McSherry & Najork)
    value = (7 + 3) * (1 + 1 / log2(3)) / 2 + 1 / 2
    assert dcg([1, 2, 3], [1, 1, 2], tie_policy="expected") == pytest.approx(value, rel=1e-15)
    assert ndcg([1, 2, 3], [1, 1, 2], tie_policy="expected") == pytest.approx(value / IDCG, rel=1e-15)


def test_dcg_linear_gain_and_cutoff():
    # linear gains = rel = [3, 2, 1]; predicted order item 3, item 1, item 2 (no ties)
    # DCG@2 = 1/1 + 3/log2 3; IDCG@2 = 3 + 2/log2 3
    got = ndcg([1, 2, 3], [2, 3, 1], gain="linear", k=2)
    assert got == pytest.approx((1 + 3 / log2(3)) / (3 + 2 / log2(3)), rel=1e-15)
    # expected with k = 1: block {1,2,3} of size 3, discounts [1, 0, 0] -> mean 1/3 each
    # DCG@1 = (3 + 2 + 1)/3 = 2, IDCG@1 = 3
    assert ndcg([1, 2, 3], [1, 1, 1], gain="linear", k=1, tie_policy="expected") == pytest.approx(2 / 3)


def test_gold_ties_and_blanks():
    # gold [1, 1, blank, 3] -> ranked n = 3, ceiling ranks [2, 2, 3], rel [2, 2, 1]
    # predicted [3, 2, 1, 1]: item 4 (gain 1) first, item 2 (gain 3), item 1 (gain 3)
    value = 1 + 3 / log2(3) + 3 / 2
    ideal = 3 + 3 / log2(3) + 1 / 2
    assert ndcg([1, 1, NAN, 3], [3, 2, 1, 1]) == pytest.approx(value / ideal, rel=1e-15)


def test_idcg_zero_is_undefined():
    assert math.isnan(ndcg([0, 0, 0], [1, 2, 3], relevance="grades"))
    assert dcg([0, 0, 0], [1, 2, 3], relevance="grades") == 0.0
    summary = mean_ndcg([make_batch([([0, 0], [1, 2]), ([1, 0], [1, 2])])], relevance="grades")
    assert (summary.mean, summary.defined, summary.undefined) == (1.0, 1, 1)


def test_long_lists_keep_exponential_gain_finite():
    # 1500 items: top relevance 1500, 2^1500 overflows a float; NDCG stays exact
    n = 1500
    gold = np.arange(1, n + 1, dtype=float)
    pred = gold.copy()
    pred[[0, 1]] = pred[[1, 0]]  # swap the two best
    # gains relative to the top one, from exact integers: (2^rel - 1) / 2^n, rel = n - rank + 1
    order = np.argsort(pred)
    rel = [n - int(gold[i]) + 1 for i in order]
    scaled = [(2 ** r - 1) / 2 ** n for r in rel]
    dcg_value = sum(g / log2(i + 2) for i, g in enumerate(scaled))
    ideal = sum(g / log2(i + 2) for i, g in enumerate(sorted(scaled, reverse=True)))
    expected = dcg_value / ideal
    assert 0.85 < expected < 0.9  # (1/2 + 1/log2 3 + ...) / (1 + 1/(2 log2 3) + ...)
    assert ndcg(gold, pred) == pytest.approx(expected, rel=1e-12)
    assert ndcg(gold, gold) == 1.0


# ---- against the slow reference -----------------------------------------------------------

@pytest.mark.parametrize("policy", ["pessimistic", "optimistic", "expected"])
@pytest.mark.parametrize("kind,k", [("exp", None), ("exp", 3), ("linear", None), ("linear", 1)])
def test_ndcg_matches_slow_reference(policy, kind, k):
    rng = np.random.default_rng(2000 + (k or 0) + (kind == "exp"))
    groups = random_groups(rng, 1200, max_size=8)
    groups += random_groups(rng, 200, max_size=40, pred_levels=40, gold_levels=10)
    compare("ndcg", groups, policy, k=k, kind=kind)
    compare("ndcg", groups, policy, missing_pred="last", k=k, kind=kind)
    compare("dcg", groups, policy, k=k, kind=kind)
    grades = random_groups(rng, 1000, max_size=8, grades=True)
    compare("ndcg", grades, policy, relevance="grades", k=k, kind=kind)


# ---- against scikit-learn and pytrec_eval --------------------------------------------------

def test_expected_linear_ndcg_matches_sklearn_tie_averaging():
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(9)
    for _ in range(150):
        n = int(rng.integers(2, 12))
        grades = rng.integers(0, 4, n).astype(float)
        if grades.max() == 0:
            grades[0] = 1
        pred = rng.integers(1, 4, n).astype(float)  # many predicted ties
        for k in (None, 1, 3):
            theirs = metrics.ndcg_score([grades], [-pred], k=k, ignore_ties=False)
            ours = ndcg(grades, pred, gain="linear", k=k, tie_policy="expected", relevance="grades")
            assert ours == pytest.approx(theirs, rel=1e-12)


def test_ndcg_matches_pytrec_eval_on_tie_free_predictions():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(6)
    qrels, run, groups = {}, {}, []
    for q in range(300):
        n = int(rng.integers(1, 25))
        grades = rng.integers(0, 4, n)
        grades[rng.integers(0, n)] = max(1, grades.max())
        scores = rng.permutation(n).astype(float)
        qrels[f"q{q}"] = {f"d{i}": int(g) for i, g in enumerate(grades)}
        run[f"q{q}"] = {f"d{i}": float(s) for i, s in enumerate(scores)}
        groups.append((grades.astype(float), -scores))
    measures = {"ndcg", "ndcg_cut_5", "ndcg_cut_10"}
    result = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    for q, (gold, pred) in enumerate(groups):
        for name, k in (("ndcg", None), ("ndcg_cut_5", 5), ("ndcg_cut_10", 10)):
            ours = ndcg(gold, pred, gain="linear", k=k, relevance="grades")
            assert ours == pytest.approx(result[f"q{q}"][name], rel=1e-12), (q, name)
