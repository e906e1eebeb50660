"""The short-group path of pair_counts (position-pair matrices per group size) against the
general path (dense ranks, sorted tie blocks, Knight's merge), a slow pair loop and scipy."""

from __future__ import annotations

import math
from dataclasses import fields

import numpy as np
import pytest
from scipy.stats import kendalltau

from rankeval_cli.batch import offsets_from_sizes
from rankeval_cli.measures.pairs import PairCounts, pair_counts
from rankeval_cli.measures.tau import group_tau

from slow_pairs import COUNTS, slow_blocks, slow_counts

SHORT, GENERAL = 10**9, 0  # values of ``small`` forcing one path


def random_batch(rng, n_groups, max_size):
    """Groups of 1..max_size items with ties (few levels per group), NaNs, ±inf and -0.0."""
    sizes = rng.integers(1, max_size + 1, size=n_groups)
    levels = np.repeat(rng.choice([1, 2, 3, 5, 10, 1000], size=n_groups), sizes)
    n = int(sizes.sum())
    gold = np.floor(rng.random(n) * levels) - 1
    pred = np.floor(rng.random(n) * levels) * 0.5 - 0.5
    for values in (gold, pred):
        values[rng.random(n) < 0.04] = np.nan
        values[rng.random(n) < 0.01] = np.inf
        values[rng.random(n) < 0.01] = -np.inf
        values[values == 0] = np.where(rng.random(int((values == 0).sum())) < 0.5, -0.0, 0.0)
    return gold, pred, offsets_from_sizes(sizes)


def assert_same(a: PairCounts, b: PairCounts):
    for f in fields(PairCounts):
        x, y = getattr(a, f.name), getattr(b, f.name)
        assert x.dtype == y.dtype, f.name
        np.testing.assert_array_equal(x, y, err_msg=f.name)


@pytest.mark.parametrize("seed", range(3))
def test_short_path_equals_general_path_on_thousands_of_groups(seed):
    rng = np.random.default_rng(100 + seed)
    gold, pred, offsets = random_batch(rng, 4000, 40)
    general = pair_counts(gold, pred, offsets, small=GENERAL)
    assert_same(pair_counts(gold, pred, offsets, small=SHORT), general)
    assert_same(pair_counts(gold, pred, offsets), general)  # sizes 1..40: all short by default
    assert_same(pair_counts(gold, pred, offsets, small=7), general)  # mixed: short ≤ 7 < long
    assert_same(pair_counts(gold, pred, offsets, small=24), general)


def test_every_size_equals_slow_loop():
    rng = np.random.default_rng(7)
    gold, pred, offsets = random_batch(rng, 3000, 40)
    c = pair_counts(gold, pred, offsets, small=SHORT)
    for g in range(len(offsets) - 1):
        gg, pp = gold[offsets[g]:offsets[g + 1]], pred[offsets[g]:offsets[g + 1]]
        assert tuple(int(getattr(c, k)[g]) for k in COUNTS) == slow_counts(gg, pp)
        keep = ~(np.isnan(gg) | np.isnan(pp))
        assert (c.gold_distinct[g], c.gold_t2[g], c.gold_t3[g], c.gold_t5[g]) == slow_blocks(gg[keep].tolist())
        assert (c.pred_distinct[g], c.pred_t2[g], c.pred_t3[g], c.pred_t5[g]) == slow_blocks(pp[keep].tolist())
        assert c.n[g] == keep.sum() and c.skipped[g] == len(gg) - keep.sum()


def test_groups_without_pairs_and_empty_input():
    c = pair_counts([1.0, np.nan, 2.0, np.nan, np.nan], [1.0, 1.0, np.nan, np.nan, 3.0], [0, 0, 1, 3, 5])
    assert c.n.tolist() == [0, 1, 0, 0] and c.skipped.tolist() == [0, 0, 2, 2]
    assert c.gold_distinct.tolist() == c.pred_distinct.tolist() == [0, 1, 0, 0]
    assert_same(c, pair_counts([1.0, np.nan, 2.0, np.nan, np.nan], [1.0, 1.0, np.nan, np.nan, 3.0],
                               [0, 0, 1, 3, 5], small=GENERAL))
    assert len(pair_counts([], [], [0])) == 0


def test_one_size_in_several_chunks(monkeypatch):
    from rankeval_cli.measures import pairs

    rng = np.random.default_rng(3)
    gold, pred, offsets = random_batch(rng, 500, 12)
    expected = pair_counts(gold, pred, offsets)
    monkeypatch.setattr(pairs, "_CHUNK_PAIRS", 100)
    assert_same(pair_counts(gold, pred, offsets), expected)


def test_tau_b_equals_scipy_per_group():
    rng = np.random.default_rng(12)
    gold, pred, offsets = random_batch(rng, 2000, 30)
    finite = np.isfinite(gold) | np.isnan(gold), np.isfinite(pred) | np.isnan(pred)
    gold, pred = np.where(finite[0], gold, 7.0), np.where(finite[1], pred, 7.0)  # scipy ranks inf oddly
    taus = group_tau("b", pair_counts(gold, pred, offsets))
    checked = 0
    for g in range(len(offsets) - 1):
        sl = slice(offsets[g], offsets[g + 1])
        keep = ~(np.isnan(gold[sl]) | np.isnan(pred[sl]))
        x, y = gold[sl][keep], pred[sl][keep]
        if len(x) < 2 or len(set(x.tolist())) < 2 or len(set(y.tolist())) < 2:
            assert math.isnan(taus[g]) or len(x) >= 2
            continue
        assert taus[g] == pytest.approx(kendalltau(x, y).statistic, rel=1e-12, abs=1e-15)
        checked += 1
    assert checked > 1000


@pytest.mark.parametrize("levels", [2, 50, 10**6])
def test_inversions_equal_quadratic_count_around_powers_of_two(levels):
    from rankeval_cli.measures.pairs import _inversions

    rng = np.random.default_rng(levels)
    sizes = np.array([0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257])
    sizes = rng.permutation(np.concatenate([sizes, rng.integers(0, 300, 30)]))
    values = rng.integers(0, levels, int(sizes.sum()))
    offsets = offsets_from_sizes(sizes)
    got = _inversions(values, offsets)
    for g in range(len(sizes)):
        v = values[offsets[g]:offsets[g + 1]]
        assert got[g] == int(np.triu(v[:, None] > v[None, :], 1).sum())


@pytest.mark.parametrize("case", ["few groups, many ties", "many groups, distinct values"])
def test_general_path_tie_blocks_by_count_and_by_sort_equal_slow_loop(case):
    """_tie_block_stats counts blocks with bincount when keys span little, else sorts; both are checked."""
    from rankeval_cli.measures import pairs

    rng = np.random.default_rng(21)
    if case == "few groups, many ties":
        sizes = rng.integers(30, 400, 6)
        gold = rng.integers(0, 9, sizes.sum()).astype(float)
        pred = rng.integers(0, 4, sizes.sum()) * 0.25
    else:
        sizes = rng.integers(25, 60, 300)
        gold = rng.random(sizes.sum())
        pred = np.round(rng.random(sizes.sum()), 2)
    offsets = offsets_from_sizes(sizes)
    gold_rank, span = pairs._dense_rank(gold)
    keys = np.repeat(np.arange(len(sizes)), sizes) * span + gold_rank
    assert (keys.max() < 2 * len(keys)) == (case == "few groups, many ties")
    c = pair_counts(gold, pred, offsets, small=GENERAL)
    for g in range(len(sizes)):
        gg, pp = gold[offsets[g]:offsets[g + 1]].tolist(), pred[offsets[g]:offsets[g + 1]].tolist()
        assert (c.gold_distinct[g], c.gold_t2[g], c.gold_t3[g], c.gold_t5[g]) == slow_blocks(gg)
        assert (c.pred_distinct[g], c.pred_t2[g], c.pred_t3[g], c.pred_t5[g]) == slow_blocks(pp)
        if g < 40:
            assert tuple(int(getattr(c, k)[g]) for k in COUNTS) == slow_counts(gg, pp)


def test_one_long_group_tau_b_equals_scipy():
    rng = np.random.default_rng(5)
    for levels in (3, 100, 10**9):
        x = rng.integers(0, levels, 50000).astype(float)
        y = np.round(x / levels + rng.normal(0, 0.5, len(x)), 1)
        tau_b = group_tau("b", pair_counts(x, y, [0, len(x)]))[0]
        assert tau_b == pytest.approx(kendalltau(x, y).statistic, rel=1e-12)
