"""Pair counts and tie-block statistics (docs/definitions.md#pairs and #tau) against slow obvious loops.

The broadcast path (small groups) and Knight's merge-sort path (long groups) are
each checked against a pure-Python pair loop and against each other; the null
variance of S against exhaustive permutation and against scipy's asymptotic test.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import kendalltau

from rankeval_cli.batch import offsets_from_sizes
from rankeval_cli.measures.pairs import _inversions, pair_counts, pair_table

from slow_pairs import COUNTS, slow_blocks, slow_counts, slow_var_S

BROADCAST, KNIGHT = 10**9, 0  # values of ``small`` forcing one path


def random_groups(rng, n_groups, max_size, levels):
    sizes = rng.integers(0, max_size + 1, size=n_groups)
    n = int(sizes.sum())
    gold = rng.integers(0, levels, n).astype(float)
    pred = rng.integers(0, levels, n).astype(float)
    gold[rng.random(n) < 0.05] = np.nan
    pred[rng.random(n) < 0.05] = np.nan
    return gold, pred, offsets_from_sizes(sizes)


def test_hand_computed_reference_example():
    # gold = [1,2,2,3,4], pred = [2,1,1.5,5,3] (scores). Pairs (i,j):
    # (0,1) D (0,2) D (0,3) C (0,4) C (1,2) gold tie (1,3) C (1,4) C (2,3) C (2,4) C (3,4) D
    # -> C=6, D=3, T_h=1. Gold blocks {2,2}: Σt(t-1)=2, Σt(t-1)(2t+5)=2*9=18.
    for small in (BROADCAST, KNIGHT):
        c = pair_counts([1, 2, 2, 3, 4], [2, 1, 1.5, 5, 3], [0, 5], small=small)
        assert [int(getattr(c, k)[0]) for k in COUNTS] == [6, 3, 1, 0, 0]
        assert (c.n[0], c.gold_distinct[0], c.pred_distinct[0]) == (5, 4, 5)
        assert (c.gold_t2[0], c.gold_t3[0], c.gold_t5[0]) == (2, 0, 18)
        # Var(S) = (5*4*15 - 18)/18 = 282/18 (v1 = v2 = 0: pred has no ties)
        assert c.var_S()[0] == pytest.approx(282 / 18, rel=1e-15)


def test_hand_computed_every_kind_of_pair():
    # gold = [1,1,2,2,3], pred = [1,1,3,2,2] (ranks). Pairs:
    # (0,1) T_hm; (0,2) (0,3) (0,4) (1,2) (1,3) (1,4) C; (2,3) T_h; (2,4) D; (3,4) T_m.
    # Blocks t = u = {2,2,1}: Σt(t-1) = 4, Σt(t-1)(t-2) = 0, Σt(t-1)(2t+5) = 18 + 18 = 36.
    # Var(S) = (300 - 36 - 36)/18 + 4*4/(2*5*4) + 0 = 38/3 + 2/5 = 196/15.
    for small in (BROADCAST, KNIGHT):
        c = pair_counts([1, 1, 2, 2, 3], [1, 1, 3, 2, 2], [0, 5], small=small)
        assert [int(getattr(c, k)[0]) for k in COUNTS] == [6, 1, 1, 1, 1]
        assert (c.gold_t2[0], c.gold_t5[0], c.pred_t2[0], c.pred_t5[0]) == (4, 36, 4, 36)
        assert c.var_S()[0] == pytest.approx(196 / 15, rel=1e-15)
        assert c.S[0] == 5 and c.pairs[0] == 10


def test_missing_values_take_no_pair_and_are_counted():
    nan = np.nan
    # group 0: item 2 lacks gold, item 3 lacks pred -> pairs over items 0, 1, 4 only.
    # group 1: one usable item -> no pair. group 2: empty.
    gold = [1, 2, nan, 3, 4, 1, nan]
    pred = [1, 2, 3, nan, 0, 5, 1]
    c = pair_counts(gold, pred, [0, 5, 7, 7])
    assert c.n.tolist() == [3, 1, 0]
    assert c.skipped.tolist() == [2, 1, 0]
    # items (1,1) (2,2) (4,0): (0,1) C, (0,4) D, (1,4) D
    assert [getattr(c, k).tolist() for k in COUNTS] == [[1, 0, 0], [2, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]]
    assert c.var_S().tolist() == [pytest.approx(3 * 2 * 11 / 18), 0.0, 0.0]


def test_infinite_values_tie_with_each_other():
    inf = np.inf
    for small in (BROADCAST, KNIGHT):
        c = pair_counts([inf, inf, 1], [-inf, -inf, 0], [0, 3], small=small)
        # (0,1) tied in both; (0,2), (1,2): gold inf > 1, pred -inf < 0 -> discordant.
        assert [int(getattr(c, k)[0]) for k in COUNTS] == [0, 2, 0, 0, 1]


@pytest.mark.parametrize("small", [BROADCAST, KNIGHT])
def test_counts_and_blocks_equal_slow_loop_on_random_groups(small):
    rng = np.random.default_rng(11)
    gold, pred, offsets = random_groups(rng, 1500, 9, 4)
    c = pair_counts(gold, pred, offsets, small=small)
    for g in range(len(offsets) - 1):
        gg, pp = gold[offsets[g]:offsets[g + 1]], pred[offsets[g]:offsets[g + 1]]
        assert tuple(int(getattr(c, k)[g]) for k in COUNTS) == slow_counts(gg, pp)
        keep = ~(np.isnan(gg) | np.isnan(pp))
        gk, pk = gg[keep].tolist(), pp[keep].tolist()
        assert (c.gold_distinct[g], c.gold_t2[g], c.gold_t3[g], c.gold_t5[g]) == slow_blocks(gk)
        assert (c.pred_distinct[g], c.pred_t2[g], c.pred_t3[g], c.pred_t5[g]) == slow_blocks(pk)
        assert c.var_S()[g] == pytest.approx(slow_var_S(gk, pk), rel=1e-12, abs=1e-12)


def test_knight_equals_broadcast_on_long_groups():
    rng = np.random.default_rng(3)
    for levels in (2, 7, 1000):
        gold, pred, offsets = random_groups(rng, 40, 300, levels)
        a = pair_counts(gold, pred, offsets, small=KNIGHT)
        b = pair_counts(gold, pred, offsets, small=BROADCAST)
        for key in ("n", "skipped") + COUNTS:
            np.testing.assert_array_equal(getattr(a, key), getattr(b, key))


def test_mixed_paths_in_one_batch_equal_slow_loop():
    rng = np.random.default_rng(5)
    gold, pred, offsets = random_groups(rng, 60, 80, 5)
    c = pair_counts(gold, pred, offsets, small=20)
    for g in range(len(offsets) - 1):
        sl = slice(offsets[g], offsets[g + 1])
        assert tuple(int(getattr(c, k)[g]) for k in COUNTS) == slow_counts(gold[sl], pred[sl])


def test_one_long_group_matches_scipy_tau_b_and_p():
    rng = np.random.default_rng(8)
    n = 20000
    x = rng.integers(0, 300, n).astype(float)
    y = (0.001 * x + rng.normal(0, 3, n)).round()  # weak association: p well above 0
    c = pair_counts(x, y, [0, n])
    C, D, T_h, T_m = (float(getattr(c, k)[0]) for k in ("C", "D", "T_h", "T_m"))
    ref = kendalltau(x, y, method="asymptotic")
    assert (C - D) / math.sqrt((C + D + T_h) * (C + D + T_m)) == pytest.approx(ref.statistic, rel=1e-12)
    z = (C - D) / math.sqrt(c.var_S()[0])
    assert 1e-12 < ref.pvalue < 0.5
    assert math.erfc(abs(z) / math.sqrt(2)) == pytest.approx(ref.pvalue, rel=1e-12)


def test_inversions_small_cases():
    # [3,2,1,0]: all 6 pairs inverted; [0,1,1,0]: (1,3) and (2,3) -> 2; [5]: none.
    values = np.array([3, 2, 1, 0, 0, 1, 1, 0, 5])
    np.testing.assert_array_equal(_inversions(values, np.array([0, 4, 8, 8, 9])), [6, 2, 0, 0])
    np.testing.assert_array_equal(_inversions(np.zeros(0, np.int64), np.array([0])), [])


def test_inversions_equal_slow_count():
    rng = np.random.default_rng(2)
    sizes = rng.integers(0, 70, 50)
    values = rng.integers(0, 20, sizes.sum())
    offsets = offsets_from_sizes(sizes)
    got = _inversions(values, offsets)
    for g in range(len(sizes)):
        v = values[offsets[g]:offsets[g + 1]].tolist()
        assert got[g] == sum(a > b for a, b in itertools.combinations(v, 2))


@pytest.mark.parametrize("seed", range(6))
def test_var_S_equals_exact_permutation_variance(seed):
    # Under the null every assignment of the pred values to the items is equally likely;
    # Var(S) with ties is the exact variance of S over all n! permutations.
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 7))
    gold = rng.integers(0, 3, n).astype(float)
    pred = rng.integers(0, 3, n).astype(float)
    s_values = [slow_counts(gold, perm) for perm in itertools.permutations(pred)]
    s_values = [c - d for c, d, *_ in s_values]
    mean = sum(s_values) / len(s_values)
    exact = sum((s - mean) ** 2 for s in s_values) / len(s_values)
    assert mean == pytest.approx(0, abs=1e-12)
    assert pair_counts(gold, pred, [0, n]).var_S()[0] == pytest.approx(exact, rel=1e-12)


def test_set_variance_p_matches_scipy_asymptotic_per_group():
    # scipy's asymptotic p for tau-b is z = (C - D) / sqrt(Var(S)) with this variance.
    rng = np.random.default_rng(4)
    gold, pred, offsets = random_groups(rng, 300, 12, 4)
    c = pair_counts(gold, pred, offsets)
    for g in range(len(offsets) - 1):
        sl = slice(offsets[g], offsets[g + 1])
        keep = ~(np.isnan(gold[sl]) | np.isnan(pred[sl]))
        x, y = gold[sl][keep], pred[sl][keep]
        if len(x) < 3 or len(set(x)) < 2 or len(set(y)) < 2:
            continue
        ref = kendalltau(x, y, method="asymptotic").pvalue
        z = c.S[g] / math.sqrt(c.var_S()[g])
        assert math.erfc(abs(z) / math.sqrt(2)) == pytest.approx(ref, rel=1e-12)


def test_total_pools_every_field():
    rng = np.random.default_rng(9)
    gold, pred, offsets = random_groups(rng, 30, 8, 3)
    c = pair_counts(gold, pred, offsets)
    t = c.total()
    assert len(t) == 1 and t.C[0] == c.C.sum() and t.pred_t5[0] == c.pred_t5.sum()
    assert c.take(c.n > 2).n.tolist() == c.n[c.n > 2].tolist()


def test_pair_table_lists_every_pair():
    # group 0: pred [2, 1, 1.5] gold [1, 2, 2]; pairs (0,1) (0,2) (1,2); group 1: one item.
    group, gcmp, pcmp, absdiff = pair_table([1, 2, 2, 7], [2, 1, 1.5, 3], [0, 3, 4])
    assert group.tolist() == [0, 0, 0]
    assert gcmp.tolist() == [1, 1, 0]
    assert pcmp.tolist() == [-1, -1, 1]
    assert absdiff.tolist() == [1.0, 0.5, 0.5]
