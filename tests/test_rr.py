"""Reciprocal rank and MRR (Avramidis 2013 §3.2, docs/definitions.md#mrr)."""

import math
from fractions import Fraction

import numpy as np
import pytest

from rankeval_cli.measures.rr import mrr, reciprocal_rank
from slow_rank_measures import compare, make_batch, random_groups

NAN = math.nan


# ---- hand-computed ------------------------------------------------------------------------

def test_rr_without_ties():
    # gold best item (rank 1) is predicted third -> 1/3
    assert reciprocal_rank([1, 2, 3, 4], [3, 1, 2, 4]) == pytest.approx(1 / 3, rel=1e-15)
    # two items share the best gold rank; the better predicted one counts (Avramidis 2013 §3.2)
    assert reciprocal_rank([1, 1, 3], [3, 2, 1]) == 0.5


def test_rr_tie_policies_one_relevant_in_a_tie():
    # gold [1,2,3,4]; predicted [2,2,1,3]: item 3 first, then the block {1, 2} at positions 2-3.
    gold, pred = [1, 2, 3, 4], [2, 2, 1, 3]
    assert reciprocal_rank(gold, pred, tie_policy="pessimistic") == pytest.approx(1 / 3)  # = ceiling rank 3
    assert reciprocal_rank(gold, pred, tie_policy="optimistic") == 0.5  # = floor rank 2
    # expected: position 2 or 3 with probability 1/2 each: (1/2 + 1/3) / 2 = 5/12
    assert reciprocal_rank(gold, pred, tie_policy="expected") == pytest.approx(5 / 12, rel=1e-15)


def test_rr_expected_two_relevant_in_a_block_of_four():
    # gold [1,1,3,4], all predictions tied: m = 4, c = 2 relevant.
    # P(first relevant at 1) = 2/4 = 1/2; at 2: (2/4)(2/3) = 1/3; at 3: (2/4)(1/3)(2/2) = 1/6
    # E[RR] = 1/2 * 1 + 1/3 * 1/2 + 1/6 * 1/3 = 1/2 + 1/6 + 1/18 = 13/18
    gold, pred = [1, 1, 3, 4], [1, 1, 1, 1]
    assert reciprocal_rank(gold, pred, tie_policy="expected") == pytest.approx(13 / 18, rel=1e-15)
    assert reciprocal_rank(gold, pred, tie_policy="pessimistic") == pytest.approx(1 / 3)  # both relevant last
    assert reciprocal_rank(gold, pred, tie_policy="optimistic") == 1.0


def test_pessimistic_differs_from_2013_only_when_best_items_tie_together():
    # gold [1, 1, 3], all predictions tied. RankEval 2013: ceiling pred rank 3 for both best
    # items -> 1/3, a value no order reaches. Worst actual order: the non-best item first,
    # then the two best at positions 2 and 3 -> 1/2.
    assert reciprocal_rank([1, 1, 3], [1, 1, 1]) == 0.5
    # one best item in the tie: the ceiling rank, as RankEval 2013 (gold [1, 2, 3] -> 1/3)
    assert reciprocal_rank([1, 2, 3], [1, 1, 1]) == pytest.approx(1 / 3)


def test_rr_at_k():
    # first relevant at position 3: RR@2 = 0, RR@3 = 1/3
    assert reciprocal_rank([1, 2, 3], [3, 1, 2], k=2) == 0.0
    assert reciprocal_rank([1, 2, 3], [3, 1, 2], k=3) == pytest.approx(1 / 3)
    # expected with k = 2: block {1,2} at positions 2-3 -> (1/2 * 1/2 + 1/2 * 0) = 1/4
    assert reciprocal_rank([1, 2, 3, 4], [2, 2, 1, 3], k=2, tie_policy="expected") == 0.25


def test_blanks_are_not_ranked():
    # WMT blank (-1, NaN here) must not become rank 1: the real best (gold 2) is predicted first
    assert reciprocal_rank([NAN, 2, 3], [2, 1, 3]) == 1.0
    assert math.isnan(reciprocal_rank([NAN, NAN], [1, 2]))


def test_graded_relevance_is_grade_above_zero():
    # grades [0, 2, 1]: relevant = grade > 0 (trec_eval); predicted order item 1, item 3, item 2
    assert reciprocal_rank([0, 2, 1], [1, 3, 2], relevance="grades") == 0.5
    assert math.isnan(reciprocal_rank([0, 0], [1, 2], relevance="grades"))


@pytest.mark.parametrize("policy", ["pessimistic", "optimistic", "expected"])
def test_groups_without_ranked_items_are_undefined_under_every_policy(policy):
    # Batches 1-3: one all-blank group, no group at all, one group whose only item has no
    # prediction (dropped by default): no ranked item in the batch. Batch 4: an all-blank group;
    # a group whose item 1 has no prediction and item 2 is blank; gold [1, 2] predicted [1, 1]:
    # pessimistic 1/2, optimistic 1, expected (1 + 1/2) / 2. Only the last group is defined;
    # the four others are undefined and counted, with 4 blanks and 2 missing predictions.
    value = {"pessimistic": 0.5, "optimistic": 1.0, "expected": 0.75}[policy]
    summary = mrr([make_batch([([NAN], [1])]), make_batch([]), make_batch([([1], [NAN])]),
                   make_batch([([NAN, NAN], [1, 2]), ([1, NAN], [NAN, 2]), ([1, 2], [1, 1])])], tie_policy=policy)
    assert summary.mean == value
    counts = (summary.groups, summary.defined, summary.undefined, summary.blanks, summary.missing_pred)
    assert counts == (5, 1, 4, 4, 2)


def test_mrr_summary_counts():
    groups = [([1, 2], [1, 2]), ([1, 2], [2, 1]), ([NAN, NAN], [1, 2]), ([1, NAN, 3], [2, 1, 1])]
    summary = mrr([make_batch(groups)])
    # RR: 1, 1/2, undefined, and group 4: item 3 (pred 1) first, item 1 second -> 1/2
    assert summary.mean == pytest.approx((1 + 0.5 + 0.5) / 3)
    assert (summary.groups, summary.defined, summary.undefined, summary.blanks) == (4, 3, 1, 3)


# ---- against the slow reference -----------------------------------------------------------

@pytest.mark.parametrize("policy", ["pessimistic", "optimistic", "expected"])
@pytest.mark.parametrize("k", [None, 1, 3])
def test_rr_matches_slow_reference(policy, k):
    rng = np.random.default_rng(1000 + (k or 0))
    groups = random_groups(rng, 1200, max_size=8, missing=0.05)
    groups += random_groups(rng, 300, max_size=30, pred_levels=30, gold_levels=10)
    compare("rr", groups, policy, k=k)
    compare("rr", groups, policy, missing_pred="last", k=k)
    grades = random_groups(rng, 1000, max_size=8, grades=True, gold_levels=3)
    compare("rr", grades, policy, relevance="grades", k=k)


def test_rr_expected_in_a_large_block_matches_exact_fractions():
    # 30 tied items, 4 relevant, block starts at position 3: E[1/(3+J)] with exact rationals
    m, c, s = 30, 4, 3
    exact = Fraction(0)
    for j in range(m - c + 1):
        p = Fraction(math.comb(m - 1 - j, c - 1), math.comb(m, c))  # first relevant at offset j
        exact += p / (s + j)
    gold = [5, 5] + [1] * c + [3] * (m - c)
    pred = [1, 2] + [3] * m
    assert reciprocal_rank(gold, pred, tie_policy="expected") == pytest.approx(float(exact), rel=1e-13)


# ---- against pytrec_eval ------------------------------------------------------------------

def test_rr_matches_pytrec_eval_on_tie_free_predictions():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(5)
    qrels, run, groups = {}, {}, []
    for q in range(300):
        n = int(rng.integers(1, 15))
        grades = rng.integers(0, 3, n)
        grades[rng.integers(0, n)] = max(1, grades.max())  # at least one relevant document
        scores = rng.permutation(n).astype(float)  # distinct: no ties
        qrels[f"q{q}"] = {f"d{i}": int(g) for i, g in enumerate(grades)}
        run[f"q{q}"] = {f"d{i}": float(s) for i, s in enumerate(scores)}
        groups.append((grades.astype(float).tolist(), (-scores).tolist()))  # ranks: lower = better
    result = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)
    ours = [reciprocal_rank(g, p, relevance="grades") for g, p in groups]
    theirs = [result[f"q{q}"]["recip_rank"] for q in range(300)]
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)
