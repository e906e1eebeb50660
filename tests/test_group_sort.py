"""The bucketed sorts (batch.py, measures/ties.py) against the global lexsort they replace.

``batch.sort_within_groups`` sorts short groups in (n_groups × k) matrices, one per
group size, and long groups by one lexsort; ``ranks.normalize_ranks`` derives
ceiling and dense ranks from it; ``prepare``, NDCG's ideal order and rankDCG use
them. Every result must be bit for bit what the old whole-batch lexsort code gave:
the old code is kept here as the reference and compared with ``array_equal`` on
thousands of random groups of every size 0..40 (plus long ones), with ties, NaN
gold and NaN predictions, for every tie policy.
"""

from __future__ import annotations

import numpy as np
import pytest

from rankeval_cli.batch import SORT_BUCKET_MAX, group_index, offsets_from_sizes, sort_within_groups
from rankeval_cli.measures import dcg, rankdcg, ties
from rankeval_cli import ranks
from rankeval_cli.ranks import normalize_ranks

POLICIES = ("pessimistic", "optimistic", "expected")


def global_sort(offsets, *keys):
    """The whole-batch stable sort the bucketed one replaces."""
    return np.lexsort((*keys, group_index(offsets)))


def random_sizes(rng, n_groups, shape="mixed"):
    """Group sizes: ``mixed`` 0..40 with a few beyond the small-group limit, ``uniform``
    all equal (1..40), ``short`` 0..COUNT_GROUP (the counted ceiling ranks)."""
    if shape == "uniform":
        return np.full(n_groups, int(rng.integers(1, 41)))
    if shape == "short":
        return rng.integers(0, ranks.COUNT_GROUP + 1, n_groups)
    sizes = rng.integers(0, 41, n_groups)
    long = rng.random(n_groups) < 0.01
    sizes[long] = rng.integers(SORT_BUCKET_MAX + 1, 3 * SORT_BUCKET_MAX, int(long.sum()))
    return sizes


SHAPES = ("mixed", "uniform", "short")


def tied_values(rng, n, levels=None):
    """Values with many ties, some ±0.0 and ±inf, no NaN."""
    levels = levels or int(rng.integers(1, 9))
    values = rng.integers(0, levels, n).astype(np.float64) - levels // 2
    values[values == 0] *= np.where(rng.random(int((values == 0).sum())) < 0.5, -1.0, 1.0)
    values[rng.random(n) < 0.03] = np.inf
    values[rng.random(n) < 0.03] = -np.inf
    return values


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("n_keys", [1, 2, 3])
def test_sort_within_groups_is_the_global_lexsort(shape, n_keys):
    rng = np.random.default_rng([n_keys, len(shape)])
    for _ in range(40):
        offsets = offsets_from_sizes(random_sizes(rng, int(rng.integers(1, 200)), shape))
        keys = [tied_values(rng, int(offsets[-1])) for _ in range(n_keys)]
        np.testing.assert_array_equal(sort_within_groups(offsets, *keys), global_sort(offsets, *keys))


def test_sort_within_groups_edge_cases():
    empty = np.zeros(1, np.int64)
    assert len(sort_within_groups(empty, np.zeros(0))) == 0
    offsets = np.array([0, 0, 3, 3, 4, 4, 7], np.int64)  # empty groups between runs of size 3
    key = np.array([3.0, 1, 2, 9, 2, 2, 1])
    np.testing.assert_array_equal(sort_within_groups(offsets, key), [1, 2, 0, 3, 6, 4, 5])
    np.testing.assert_array_equal(sort_within_groups(offsets, key), global_sort(offsets, key))


@pytest.mark.parametrize("mode", ["ceiling", "minimize"])
def test_counted_ranks_and_given_orders_match_the_sorted_ranks(mode, monkeypatch):
    """normalize_ranks' shortcuts (ceiling ranks counted in short groups, a caller's sort
    order) give the ranks of its general path, a sort and its tie blocks."""
    rng = np.random.default_rng(7)
    for trial in range(60):
        offsets = offsets_from_sizes(random_sizes(rng, int(rng.integers(1, 200)), SHAPES[trial % 3]))
        values = tied_values(rng, int(offsets[-1]))
        fast = normalize_ranks(values, offsets, mode)
        given = normalize_ranks(values, offsets, mode, order=global_sort(offsets, values))
        with monkeypatch.context() as m:
            m.setattr(ranks, "COUNT_GROUP", 0)
            sorted_ranks = normalize_ranks(values, offsets, mode)
        np.testing.assert_array_equal(fast, sorted_ranks)
        np.testing.assert_array_equal(given, sorted_ranks)


# ---- the old whole-batch code, kept as the reference ----------------------------------

def old_prepare(gold, pred, offsets, relevance, tie_policy, missing_pred):
    """``ties.prepare`` before the bucketed sorts (normalize_ranks and one lexsort)."""
    n_groups = len(offsets) - 1
    blank = np.isnan(gold)
    no_pred = np.isnan(pred) & ~blank
    keep = ~blank & ~no_pred if missing_pred == "drop" else ~blank
    rows = np.flatnonzero(keep)
    groups = group_index(offsets)[rows]
    kept_offsets = offsets_from_sizes(np.bincount(groups, minlength=n_groups))
    g, p = gold[rows], pred[rows]
    if relevance == "ranks":
        gold_rank = normalize_ranks(g, kept_offsets, ties="ceiling")
        rel = np.diff(kept_offsets)[groups] - gold_rank + 1
        relevant = gold_rank == ties.segment_reduce(np.minimum, gold_rank, kept_offsets, np.inf)[groups]
    else:
        gold_rank = normalize_ranks(g, kept_offsets, ties="ceiling", higher_better=True)
        rel, relevant = g, g > 0
    pred_key = np.where(np.isnan(p), np.inf, p)
    order = np.lexsort((-rel if tie_policy == "optimistic" else rel, pred_key, groups))
    sorted_groups = groups[order]
    pos = np.arange(len(order)) - kept_offsets[sorted_groups] + 1
    starts = ties.tie_block_starts(pred_key[order], sorted_groups)
    block = np.cumsum(starts) - 1
    return dict(offsets=kept_offsets, group=sorted_groups, pos=pos, rel=rel[order], relevant=relevant[order],
                gold=g[order], gold_rank=gold_rank[order], block=block, block_first=pos[starts][block],
                block_size=np.bincount(block)[block] if len(block) else block.copy(), row=rows[order])


def old_idcg_order(prep):
    return np.lexsort((-prep.rel, prep.group))


def old_rankdcg(prep):
    g = prep.n_groups
    from_top = normalize_ranks(prep.gold_rank, prep.offsets, ties="minimize")
    distinct = ties.segment_reduce(np.maximum, from_top, prep.offsets, 0.0)
    rel = distinct[prep.group] - from_top + 1
    ideal = np.lexsort((from_top, prep.group))
    worst_first = np.lexsort((-from_top, prep.group))
    discount = from_top[ideal]
    gained = ties.block_mean(rel, prep) if prep.tie_policy == "expected" else rel
    score = ties.segment_sum(gained / discount, prep.group, g)
    top = ties.segment_sum(rel[ideal] / discount, prep.group, g)
    bottom = ties.segment_sum(rel[worst_first] / discount, prep.group, g)
    out = np.full(g, np.nan)
    ok = distinct > 1
    out[ok] = (score[ok] - bottom[ok]) / (top[ok] - bottom[ok])
    return out


def random_batch_arrays(rng, shape):
    offsets = offsets_from_sizes(random_sizes(rng, int(rng.integers(1, 300)), shape))
    n = int(offsets[-1])
    gold = rng.integers(0, int(rng.integers(1, 7)), n).astype(np.float64)
    pred = rng.integers(0, int(rng.integers(1, 7)), n).astype(np.float64)
    gold[rng.random(n) < 0.1] = np.nan
    pred[rng.random(n) < 0.1] = np.nan
    return gold, pred, offsets


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("relevance", ["ranks", "grades"])
@pytest.mark.parametrize("missing_pred", ["drop", "last"])
def test_prepare_and_kernels_match_the_old_code(policy, relevance, missing_pred, monkeypatch):
    rng = np.random.default_rng([len(policy), len(relevance), len(missing_pred)])
    for trial in range(25):
        gold, pred, offsets = random_batch_arrays(rng, SHAPES[trial % 3])
        prep = ties.prepare(gold, pred, offsets, relevance=relevance, tie_policy=policy, missing_pred=missing_pred)
        for name, expected in old_prepare(gold, pred, offsets, relevance, policy, missing_pred).items():
            np.testing.assert_array_equal(getattr(prep, name), expected, err_msg=name)
        np.testing.assert_array_equal(sort_within_groups(prep.offsets, -prep.rel), old_idcg_order(prep))
        np.testing.assert_array_equal(prep.ideal, old_idcg_order(prep))  # by gold_rank: the same order
        np.testing.assert_array_equal(rankdcg.rankdcg_values(prep), old_rankdcg(prep))
        for k in (None, 3):
            fast = dcg.ndcg_values(prep, k), dcg.dcg_values(prep, k, "linear")
            with monkeypatch.context() as m:  # the ideal order of the old code: a global sort by -rel
                m.setattr(ties.Prepared, "ideal", property(lambda p: global_sort(p.offsets, -p.rel)))
                np.testing.assert_array_equal(fast[0], dcg.ndcg_values(prep, k))
                np.testing.assert_array_equal(fast[1], dcg.dcg_values(prep, k, "linear"))


# ---- aggregate: item numbering ----------------------------------------------------------

def old_indices(index: dict, items: np.ndarray) -> np.ndarray:
    """PairCounter._indices before the dict factorization (np.unique over the ids)."""
    uniq, inverse = np.unique(items, return_inverse=True)
    for item in uniq.tolist():
        index.setdefault(item, len(index))
    return np.array([index[item] for item in uniq.tolist()], dtype=np.int64)[inverse.reshape(-1)]


def test_pair_counter_numbers_items_as_before():
    from rankeval_cli.aggregate.win_counts import PairCounter
    from rankeval_cli.batch import Batch

    rng = np.random.default_rng(3)
    counter, reference = PairCounter("gold"), {}
    names = np.array([f"sys{i}" for i in rng.permutation(60)], dtype=object)
    for _ in range(30):
        sizes = rng.integers(1, 12, int(rng.integers(1, 50)))
        offsets = offsets_from_sizes(sizes)
        items = names[rng.integers(0, int(rng.integers(1, 61)), int(offsets[-1]))]
        gold = rng.integers(1, 5, len(items)).astype(np.float64)
        batch = Batch(group=np.arange(len(sizes)).astype(str).astype(object), offsets=offsets, item=items,
                      gold=gold, pred=np.full(len(items), np.nan))
        ranked = np.ones(len(items), bool)
        np.testing.assert_array_equal(counter._indices(items, batch, ranked), old_indices(reference, items))
        assert list(counter.index) == list(reference)


def test_report_builds_group_rows_only_when_asked():
    from rankeval_cli.stats.report import Report
    from slow_rank_measures import make_batch, random_groups

    groups = random_groups(np.random.default_rng(5), 40)
    assert Report().add(make_batch(groups)) is None
    rows = Report().add(make_batch(groups), per_group=True)
    assert len(rows) == 40 and set(rows[0]) >= {"group", "items", "skipped", "tau", "rr", "ndcg", "err", "rankdcg"}


@pytest.mark.parametrize("shape", SHAPES)
def test_exclusive_cumprod_is_the_sequential_product(shape):
    rng = np.random.default_rng(len(shape))
    for _ in range(10):
        offsets = offsets_from_sizes(random_sizes(rng, int(rng.integers(1, 100)), shape))
        values = rng.random(int(offsets[-1])) + 0.5
        got = ties.exclusive_cumprod(values, offsets)
        expected = np.empty_like(values)
        for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist()):
            p = 1.0
            for i in range(a, b):
                expected[i] = p  # same multiplication order: bit-identical
                p *= values[i]
        np.testing.assert_array_equal(got, expected)


def test_pair_counts_by_outcome_codes_match_the_selection_path():
    """PairCounter without the bootstrap store counts by (a, b, outcome) codes; with it,
    by selecting winners and ties. Both must give the same matrices."""
    from rankeval_cli.aggregate.win_counts import PairCounter
    from rankeval_cli.batch import Batch

    rng = np.random.default_rng(9)
    names = np.array([f"s{i}" for i in range(30)], dtype=object)
    fast, slow = PairCounter("gold"), PairCounter("gold", keep_groups=True)
    for _ in range(20):
        sizes = rng.integers(1, 14, int(rng.integers(1, 80)))
        offsets = offsets_from_sizes(sizes)
        items = np.concatenate([names[rng.permutation(30)[:k]] for k in sizes.tolist()])
        gold = rng.integers(1, 5, len(items)).astype(np.float64)
        gold[rng.random(len(items)) < 0.1] = np.nan
        gold[rng.random(len(items)) < 0.05] = np.inf
        batch = Batch(group=np.arange(len(sizes)).astype(str).astype(object), offsets=offsets, item=items,
                      gold=gold, pred=np.full(len(items), np.nan))
        fast.add(batch)
        slow.add(batch)
    a, b = fast.stats(), slow.stats()
    assert a.items == b.items
    np.testing.assert_array_equal(a.wins, b.wins)
    np.testing.assert_array_equal(a.ties, b.ties)
    assert a.wins.sum() > 0 and a.ties.sum() > 0
