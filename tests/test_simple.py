"""BPH, average predicted (Avramidis 2013 §3.5), P@k and AP@k (docs/definitions.md#precision-at-k, #map)."""

import math

import numpy as np
import pytest

from rankeval_cli.measures.simple import average_precision, bph, mean_ap, mean_precision, precision_at_k
from slow_rank_measures import compare, make_batch, random_groups

NAN = math.nan

# a worked example of learning-to-rank tutorials: binary relevance in predicted order
Q1 = [1, 0, 1, 0, 1]
Q2 = [0, 0, 1, 1, 0]
ORDER = [1, 2, 3, 4, 5]


def test_seed_004_worked_example():
    # AP@5(q1) = (1/3)(1 + 2/3 + 3/5) = 0.7556; AP@5(q2) = (1/2)(1/3 + 2/4) = 0.4167
    assert average_precision(Q1, ORDER, k=5, relevance="grades") == pytest.approx((1 + 2 / 3 + 3 / 5) / 3)
    assert average_precision(Q2, ORDER, k=5, relevance="grades") == pytest.approx((1 / 3 + 1 / 2) / 2)
    assert round(average_precision(Q1, ORDER, k=5, relevance="grades"), 3) == 0.756
    assert round(average_precision(Q2, ORDER, k=5, relevance="grades"), 3) == 0.417
    batch = make_batch([(Q1, ORDER), (Q2, ORDER)])
    # MAP@5 = (34/45 + 5/12) / 2 = 0.58611; the tutorial prints 0.587, the mean of the rounded
    # values (0.756 + 0.417) / 2 = 0.5865
    assert mean_ap([batch], k=5, relevance="grades").mean == pytest.approx((34 / 45 + 5 / 12) / 2, rel=1e-15)
    assert round((0.756 + 0.417) / 2, 3) == 0.587
    # P@5 = (3/5 + 2/5) / 2 = 0.5
    assert mean_precision([batch], k=5, relevance="grades").mean == pytest.approx(0.5)


def test_precision_and_ap_tie_policies():
    # relevant = best gold rank: gold [2, 1, 3], all predicted tied, k = 1
    # pessimistic: relevant item last -> P@1 = 0; optimistic -> 1; expected -> 1/3
    assert precision_at_k([2, 1, 3], [1, 1, 1], k=1) == 0.0
    assert precision_at_k([2, 1, 3], [1, 1, 1], k=1, tie_policy="optimistic") == 1.0
    assert precision_at_k([2, 1, 3], [1, 1, 1], k=1, tie_policy="expected") == pytest.approx(1 / 3)
    # AP (R = 1): the relevant item at position 1, 2, 3 -> AP 1, 1/2, 1/3; expected = 11/18
    assert average_precision([2, 1, 3], [1, 1, 1], tie_policy="expected") == pytest.approx(11 / 18)
    assert average_precision([2, 1, 3], [1, 1, 1]) == pytest.approx(1 / 3)


def test_ap_uses_all_relevant_items_as_denominator():
    # grades [1, 0, 1], order as given, k = 1: trec_eval map_cut_1 = (1/1) / R(=2) = 0.5
    assert average_precision([1, 0, 1], [1, 2, 3], k=1, relevance="grades") == 0.5
    assert math.isnan(average_precision([0, 0], [1, 2], relevance="grades"))


def test_bph_shares_and_average():
    # group 1: predicted best is item 1, human rank 1
    # group 2: predicted best item has human (ceiling) rank 3: gold [1, 2, 3]
    # group 3: pred tie between gold [1, 2] (ceiling [1, 2]) -> pessimistic: worst human rank 2
    # group 4: all blank -> not counted
    groups = [([1, 2, 3], [1, 2, 3]), ([1, 2, 3], [2, 3, 1]), ([1, 2, 3], [1, 1, 2]), ([NAN], [1])]
    summary = bph([make_batch(groups)])
    assert summary.shares() == {1: pytest.approx(1 / 3), 2: pytest.approx(1 / 3), 3: pytest.approx(1 / 3)}
    assert summary.average == pytest.approx((1 + 3 + 2) / 3)
    assert (summary.groups, summary.empty, summary.blanks) == (3, 1, 1)
    opt = bph([make_batch(groups)], tie_policy="optimistic")
    assert opt.shares() == {1: pytest.approx(2 / 3), 3: pytest.approx(1 / 3)}
    # expected: group 3 adds 1/2 to rank 1 and 1/2 to rank 2
    exp = bph([make_batch(groups)], tie_policy="expected")
    assert exp.counts() == {1: 1.5, 2: 0.5, 3: 1.0}
    assert exp.average == pytest.approx((1 + 3 + 1.5) / 3)


def test_bph_uses_ceiling_human_ranks():
    # gold [1, 1, 3]: ceiling ranks [2, 2, 3]; predicted best is item 2 -> human rank 2
    summary = bph([make_batch([([1, 1, 3], [2, 1, 3])])])
    assert summary.shares() == {2: 1.0} and summary.average == 2.0


@pytest.mark.parametrize("policy", ["pessimistic", "optimistic", "expected"])
@pytest.mark.parametrize("k", [None, 1, 4])
def test_matches_slow_reference(policy, k):
    rng = np.random.default_rng(5000 + (k or 0))
    groups = random_groups(rng, 1200, max_size=8)
    groups += random_groups(rng, 200, max_size=40, pred_levels=40)
    compare("p", groups, policy, k=k)
    compare("ap", groups, policy, k=k)
    compare("bph", groups, policy)
    compare("ap", groups, policy, missing_pred="last", k=k)
    grades = random_groups(rng, 1000, max_size=8, grades=True, gold_levels=2)
    compare("p", grades, policy, relevance="grades", k=k)
    compare("ap", grades, policy, relevance="grades", k=k)


def test_matches_pytrec_eval_on_tie_free_predictions():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(8)
    qrels, run, groups = {}, {}, []
    for q in range(300):
        n = int(rng.integers(1, 20))
        grades = rng.integers(0, 2, n)
        grades[rng.integers(0, n)] = 1
        scores = rng.permutation(n).astype(float)
        qrels[f"q{q}"] = {f"d{i}": int(g) for i, g in enumerate(grades)}
        run[f"q{q}"] = {f"d{i}": float(s) for i, s in enumerate(scores)}
        groups.append((grades.astype(float), -scores))
    result = pytrec_eval.RelevanceEvaluator(qrels, {"P_5", "map_cut_5", "map"}).evaluate(run)
    for q, (gold, pred) in enumerate(groups):
        res = result[f"q{q}"]
        assert precision_at_k(gold, pred, k=5, relevance="grades") == pytest.approx(res["P_5"], rel=1e-12)
        assert average_precision(gold, pred, k=5, relevance="grades") == pytest.approx(res["map_cut_5"], rel=1e-12)
        assert average_precision(gold, pred, relevance="grades") == pytest.approx(res["map"], rel=1e-12)


@pytest.mark.parametrize("policy", ["pessimistic", "expected"])
def test_bph_does_not_depend_on_batch_cuts(policy):
    """Fractional expected-policy counts (1/3 + 1/3 + ...) are exact sums, rounded once when read."""
    rng = np.random.default_rng(11)
    groups = random_groups(rng, 300)
    whole = bph([make_batch(groups)], tie_policy=policy)
    cut = bph([make_batch(groups[a:a + 23]) for a in range(0, 300, 23)], tie_policy=policy)
    assert cut.counts() == whole.counts()
    assert cut.average == whole.average
    exact = {r: math.fsum(c for g, c in _bph_contributions(groups, policy) if g == r)
             for r in whole.counts()}
    assert whole.counts() == exact


def _bph_contributions(groups, policy):
    """(human rank, weight) per group, from the slow definition: the best-predicted items' ceiling ranks."""
    from scipy.stats import rankdata

    for gold, pred in groups:
        gold, pred = np.asarray(gold, float), np.asarray(pred, float)
        ok = ~np.isnan(gold) & ~np.isnan(pred)
        if not ok.any():
            continue
        human = rankdata(gold[ok], method="max")
        best = pred[ok] == pred[ok].min()
        if policy == "expected":
            for r in human[best]:
                yield int(r), 1.0 / best.sum()
        else:
            yield int(human[best].max()), 1.0
