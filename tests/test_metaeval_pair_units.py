"""The permutation tests of a metrics table as work units (stats/metaeval/pair_units.py).

Each pair of metrics on each task draws from its own stream (the user's seed with the
language pair, statistic and both metrics as spawn key). Checked here: every pair's
result equals the one-pair test (metaeval.compare.test_pair) run by hand on that
stream; a metric added to the table leaves the other pairs' p-values unchanged; the
``mtme`` stream is the single stream of compare_metrics (mt-metrics-eval's order:
the bit-for-bit comparison with mt-metrics-eval itself is tests/test_meta_eval_mtme.py);
the cut into work units never changes a result. The same bytes for --jobs 1, 2 and a
Dask cluster are tests/test_parallel.py's.
"""

from __future__ import annotations

import numpy as np
import pytest

from rankeval_cli import executor
from rankeval_cli.stats.metaeval import compare, pair_units
from rankeval_cli.stats.metaeval.permutation import MTME_EARLY_STOP


def synthetic_task(metrics=4, systems=6, segments=40, seed=3):
    """Human and metric score matrices (systems x segments) with ties, metrics of varying quality."""
    rng = np.random.default_rng(seed)
    human = -rng.poisson(2.0, (systems, segments)).astype(float)
    scores = {f"m{k}": human + rng.normal(0, 0.5 + k, human.shape) for k in range(metrics)}
    return human, scores


def ranked_tasks(metrics=4):
    human, scores = synthetic_task(metrics)
    return {
        ("xx-yy", "seg-pearson@item"): compare.rank_metrics(human, scores, "pearson", average_by="item"),
        ("xx-yy", "seg-acc-eq@item"): compare.rank_metrics(human, scores, "accuracy", average_by="item",
                                                           calibrate=True),
        ("xx-yy", "sys-pearson"): compare.rank_metrics(np.nanmean(human, 1),
                                                       {m: s.mean(1) for m, s in scores.items()},
                                                       "pearson", level="sys"),
    }


def test_each_pair_is_the_one_pair_test_on_its_own_stream():
    ranked = ranked_tasks()
    results = pair_units.parallel_tests(ranked, 200, 7, MTME_EARLY_STOP)
    for task, r in ranked.items():
        assert set(results[task]) == set(r.pairs)
        for i, j in r.pairs:
            key = ("permutation", *task, r.names[i], r.names[j])
            rng = np.random.RandomState(np.random.MT19937(np.random.SeedSequence(7, spawn_key=tuple(
                executor._key_int(part) for part in key))))
            alone = compare.test_pair(r, i, j, 200, rng, MTME_EARLY_STOP)
            got = results[task][(i, j)]
            assert (got.p, got.k, got.delta) == (alone.p, alone.k, alone.delta)
            assert np.array_equal(got.draws, alone.draws)


def test_a_metric_added_leaves_the_other_pairs_as_they_were():
    small, large = ranked_tasks(3), ranked_tasks(4)
    a = pair_units.parallel_tests(small, 100, 11)
    b = pair_units.parallel_tests(large, 100, 11)
    for task, r in small.items():
        names = large[task].names
        for (i, j), res in a[task].items():
            i2, j2 = names.index(r.names[i]), names.index(r.names[j])
            assert (b[task][(i2, j2)].p, b[task][(i2, j2)].k) == (res.p, res.k)


def test_the_mtme_stream_is_compare_metrics_stream():
    human, scores = synthetic_task()
    ranked = {("xx-yy", "seg-pearson@item"): compare.rank_metrics(human, scores, "pearson", average_by="item"),
              ("xx-yy", "seg-kendall@none"): compare.rank_metrics(human, scores, "kendall", average_by="none",
                                                                   variant="b")}
    serial = pair_units.serial_tests(ranked, 150, 5, MTME_EARLY_STOP)
    rng = np.random.RandomState(5)  # one stream, continued from the first task to the second
    for (lp, name), r in ranked.items():
        statistic, grouping = ("pearson", "item") if name.startswith("seg-pearson") else ("kendall", "none")
        direct = compare.compare_metrics(human, scores, statistic, average_by=grouping, permutations=150, seed=rng,
                                         early_stop=MTME_EARLY_STOP, variant="b" if statistic == "kendall" else None)
        for i, j in r.pairs:
            assert serial[(lp, name)][(i, j)].p == direct.p[i, j]
            assert serial[(lp, name)][(i, j)].k == direct.trials[i, j]


@pytest.mark.parametrize("workers", [1, 2, 3, 16])
def test_the_cut_into_units_keeps_every_pair_once(workers):
    ranked = ranked_tasks()
    work = pair_units.units(ranked, workers)
    flat = [pair for unit in work for pair in unit]
    assert sorted(flat) == sorted((task, i, j) for task, r in ranked.items() for i, j in r.pairs)
    assert len(set(flat)) == len(flat)
    assert len(work) == 1 if workers == 1 else len(work) > 1


def test_units_run_in_any_grouping_give_the_same_results(monkeypatch):
    ranked = ranked_tasks()
    one = pair_units.parallel_tests(ranked, 100, 3, MTME_EARLY_STOP)
    monkeypatch.setattr(executor, "planned_workers", lambda: 5)  # many units, still run in this process
    monkeypatch.setattr(executor, "resolve_jobs", lambda jobs: 1)
    many = pair_units.parallel_tests(ranked, 100, 3, MTME_EARLY_STOP)
    for task in ranked:
        for pair, res in one[task].items():
            assert (many[task][pair].p, many[task][pair].k) == (res.p, res.k)
            assert np.array_equal(many[task][pair].draws, res.draws)
