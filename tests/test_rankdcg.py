"""rankDCG (Katerenchuk & Rosenberg 2016, docs/definitions.md#rankdcg)."""

import math

import numpy as np
import pytest

from rankeval_cli.measures.rankdcg import mean_rankdcg, rankdcg
from slow_rank_measures import compare, make_batch, random_groups

from helpers.rankdcg_paper import L, TABLE_1


@pytest.mark.parametrize("policy", ["pessimistic", "optimistic", "expected"])
@pytest.mark.parametrize("hypothesis,value", TABLE_1)
def test_table_1(hypothesis, value, policy):
    # predicted scores become ranks by negation; gold as grades (scores) or as negated ranks
    pred = [-v for v in hypothesis]
    assert rankdcg(L, pred, relevance="grades", tie_policy=policy) == pytest.approx(value, abs=1e-12)
    assert rankdcg([-v for v in L], pred, tie_policy=policy) == pytest.approx(value, abs=1e-12)


def test_table_1_row_3_by_hand():
    # rel' = [4,3,3,2,2,2,1,1,1,1]; discounts D = [1,2,2,3,3,3,4,4,4,4]
    # max = 4/1 + (3+3)/2 + (2+2+2)/3 + 4/4 = 4 + 3 + 2 + 1 = 10
    # min: reversed rel' [1,1,1,1,2,2,2,3,3,4]: 1/1 + (1+1)/2 + (1+2+2)/3 + (2+3+3+4)/4 = 1 + 1 + 5/3 + 3 = 20/3
    # hypothesis [4,4,2,9,2,2,1,1,1,1], predicted order by score 9 > 4 > 2 > 1:
    # pos1: item with score 9 = item 4 (gold 2, rel' 2)        -> 2/1
    # pos2-3: score 4 = items 1, 2 (gold 9, 4; rel' 4, 3)        -> (4 + 3)/2
    # pos4-6: score 2 = items 3, 5, 6 (gold 4, 2, 2; rel' 3,2,2) -> (3 + 2 + 2)/3
    # pos7-10: score 1 = items 7-10 (rel' 1 each)                -> 4/4
    # DCG' = 2 + 7/2 + 7/3 + 1 = 53/6; rankDCG = (53/6 - 20/3) / (10 - 20/3) = (13/6) / (10/3) = 0.65
    assert (53 / 6 - 20 / 3) / (10 - 20 / 3) == pytest.approx(0.65)
    assert rankdcg(L, [-v for v in TABLE_1[2][0]], relevance="grades") == pytest.approx(0.65, abs=1e-12)


def test_undefined_when_all_gold_equal():
    assert math.isnan(rankdcg([2, 2, 2], [1, 2, 3]))
    summary = mean_rankdcg([make_batch([([2, 2], [1, 2]), ([1, 2], [1, 2])])])
    assert (summary.mean, summary.defined, summary.undefined) == (1.0, 1, 1)


def test_tie_policy_matters_across_discount_steps():
    # gold [1, 2] (rel' 2, 1; D = 1, 2), both predicted tied.
    # max = 2/1 + 1/2 = 2.5, min = 1/1 + 2/2 = 2
    # pessimistic: worst first = min -> 0; optimistic: 1; expected: mean rel' 1.5 * (1 + 1/2) = 2.25 -> 0.5
    assert rankdcg([1, 2], [1, 1]) == 0.0
    assert rankdcg([1, 2], [1, 1], tie_policy="optimistic") == 1.0
    assert rankdcg([1, 2], [1, 1], tie_policy="expected") == 0.5


def reference_code_rankdcg(reference, hypothesis):
    """The steps of dkaterenchuk/ranking_measures ``find_rankdcg`` (MIT), re-typed for the test:
    stable sorts only, scores higher = better, predicted ties keep ascending-gold order."""
    pairs = sorted(enumerate(reference), key=lambda x: x[1])
    ref = [x[1] for x in pairs]
    hyp = [hypothesis[x[0]] for x in pairs]
    ordered = sorted(ref, reverse=True)
    high, low = float(len(set(ref))), 1.0
    relative, reverse = [high], [low]
    for i, rank in enumerate(ordered[:-1]):
        if ordered[i + 1] != rank:
            high -= 1.0
            low += 1.0
        relative.append(high)
        reverse.append(low)
    by_ref = sorted(enumerate(ref), key=lambda p: p[1], reverse=True)
    rel_of = [0.0] * len(ref)
    for position, value in enumerate(relative):
        rel_of[by_ref[position][0]] = value
    best = sum(r / reverse[i] for i, r in enumerate(relative))
    worst = sum(r / reverse[i] for i, r in enumerate(reversed(relative)))
    by_hyp = sorted(enumerate(hyp), key=lambda p: p[1], reverse=True)
    score = sum(rel_of[p[0]] / reverse[i] for i, p in enumerate(by_hyp))
    return (score - worst) / (best - worst)


def test_pessimistic_equals_the_reference_code():
    rng = np.random.default_rng(17)
    for _ in range(1500):
        n = int(rng.integers(2, 12))
        gold = rng.integers(0, 5, n).astype(float)
        if len(set(gold)) < 2:
            continue
        scores = rng.integers(0, 4, n).astype(float)
        ours = rankdcg(gold, -scores, relevance="grades")
        assert ours == pytest.approx(reference_code_rankdcg(list(gold), list(scores)), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("policy", ["pessimistic", "optimistic", "expected"])
def test_rankdcg_matches_slow_reference(policy):
    rng = np.random.default_rng(4000)
    groups = random_groups(rng, 1500, max_size=8)
    groups += random_groups(rng, 200, max_size=40, pred_levels=40, gold_levels=10)
    compare("rankdcg", groups, policy)
    compare("rankdcg", groups, policy, missing_pred="last")
    compare("rankdcg", random_groups(rng, 1000, max_size=8, grades=True), policy, relevance="grades")
