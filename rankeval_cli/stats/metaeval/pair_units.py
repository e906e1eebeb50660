"""The permutation tests of a whole metrics table as work units, each pair on its own stream.

A WMT metrics table tests every pair of metrics on every task (statistic × language
pair): with 40 metrics, 780 pairs per task, each of up to 1,000 trials. mt-metrics-eval
draws them all from one ``RandomState`` stream, pair after pair and task after task,
so where one pair's trials start depends on how many trials every earlier pair ran
(early stopping): that order cannot be split. Here each pair draws from its own
stream instead,

    RandomState(MT19937(SeedSequence(seed, spawn_key=key(lp, statistic, a, b))))

(:func:`rankeval_cli.executor.unit_seed`; ``a`` the better metric of the pair), with
the same draws per trial as mt-metrics-eval (one uniform per cell, or per pair of
cells, trial after trial; :mod:`.permutation`). The pairs are then independent work
units (:func:`rankeval_cli.executor.map_units`): ``--jobs`` and ``--scheduler`` run
them anywhere with the same output, byte for byte, and a metric added to or removed
from a table leaves the p-values of the other pairs as they were. The p-values follow
the same permutation distribution as mt-metrics-eval's, not its exact draws;
``meta-eval --permutation-stream mtme`` (:func:`serial_tests`) keeps its single stream
and so its p-values bit for bit, running serially.

What travels to a worker: every task's ranked inputs once (the human and metric
score matrices: 8 bytes a cell), then per unit a list of (task, i, j); what comes
back per pair is its p-value, δ, trial count and the (hybrid a, hybrid b) value of
each trial (16 bytes a trial), which the average over tasks needs.
"""

from __future__ import annotations

from .compare import RankedMetrics, test_pair, test_pairs
from .permutation import as_rng

#: work units per planned worker (pairs differ in cost: many units keep every worker busy to the end)
UNITS_PER_WORKER = 16


def pair_key(task, ranked: RankedMetrics, i: int, j: int) -> tuple:
    """The spawn key of one pair's stream: the task's key, then the two metrics' names."""
    return ("permutation", *task, ranked.names[i], ranked.names[j])


def _run_pairs(shared, unit):
    """Work unit: the permutation tests of ``unit`` (a list of (task, i, j)), each on its own stream."""
    import numpy as np

    from ...executor import unit_seed

    ranked, permutations, seed, early_stop = shared
    out = []
    for task, i, j in unit:
        rng = np.random.RandomState(np.random.MT19937(unit_seed(seed, pair_key(task, ranked[task], i, j))))
        out.append(test_pair(ranked[task], i, j, permutations, rng, early_stop))
    return out


def pair_cost(ranked: RankedMetrics) -> float:
    """Rough milliseconds of one pair's test on this task (measured on WMT20 en-de, 1,000
    trials): about 3 ms of fixed work, plus 5 µs per cell for the score-swapping test, twelve
    times that for the pairwise-comparison test (n × n draws per group)."""
    return 3.0 + ranked.cells() / 200 * (12 if ranked.perm_test == "pairs" else 1)


def units(ranked: dict, workers: int) -> list[list[tuple]]:
    """Every (task, i, j), cut into units of consecutive pairs of about equal cost
    (:func:`pair_cost`), about ``UNITS_PER_WORKER`` per worker, the costliest first so that
    the last units to finish are small; one unit serially. The cut never changes a result."""
    pairs = [(task, i, j) for task, r in ranked.items() for i, j in r.pairs]
    if workers <= 1 or not pairs:
        return [pairs] if pairs else []
    cost = {task: pair_cost(r) for task, r in ranked.items()}
    target = sum(cost[task] for task, _, _ in pairs) / (workers * UNITS_PER_WORKER)
    out, current, size = [], [], 0.0
    for pair in pairs:
        current.append(pair)
        size += cost[pair[0]]
        if size >= target:
            out.append((size, current))
            current, size = [], 0.0
    if current:
        out.append((size, current))
    return [unit for _, unit in sorted(out, key=lambda x: -x[0])]


def parallel_tests(ranked: dict, permutations: int, seed: int, early_stop=None) -> dict:
    """``{task: {(i, j): PermutationResult}}`` for every pair of every ranked task, each pair on
    its own stream, as work units (module docstring)."""
    from ...executor import map_units, planned_workers

    if not permutations:
        return {task: {} for task in ranked}
    work = units(ranked, planned_workers())
    cost = {task: pair_cost(r) for task, r in ranked.items()}
    parts = map_units(_run_pairs, work, shared=(ranked, permutations, seed, early_stop),
                      label="permutation tests", sizes=[sum(cost[task] for task, _, _ in unit) for unit in work])
    results: dict = {task: {} for task in ranked}
    for unit, part in zip(work, parts):
        for (task, i, j), res in zip(unit, part):
            results[task][(i, j)] = res
    return results


def serial_tests(ranked: dict, permutations: int, seed, early_stop=None) -> dict:
    """The same from one ``RandomState(seed)`` stream consumed pair after pair, task after task
    (mt-metrics-eval's order, so its p-values bit for bit), in this process."""
    if not permutations:
        return {task: {} for task in ranked}
    rng = as_rng(seed)  # one stream, continued from task to task
    return {task: test_pairs(r, permutations, rng, early_stop) for task, r in ranked.items()}
