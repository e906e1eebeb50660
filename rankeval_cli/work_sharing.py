"""How a list of work units runs when several workers are asked for: only where it pays.

Parallel work has fixed costs: worker processes start (a fork, the imports of the unit's
module), the shared data travels to each, every task makes a round trip. On a small
workload these costs exceed the work, and when the machine's other cores are busy each
extra process only takes a share of them. So :func:`run` (used by
:func:`rankeval_cli.executor.map_units` for ``--jobs N`` and ``--scheduler``):

1. runs the first unit in this process and times it (the *pilot*: the processor time this
   process spent on it, which the machine's other load does not inflate); then the second one
   too, the first having paid for imports and caches, when there are many units or the first
   one's estimate is near the threshold below (a few folds of a cross-validation);
2. if the rest would take less than :data:`POOL_MIN_SECONDS` (a process pool) or
   :data:`CLUSTER_MIN_SECONDS` (a Dask cluster) at the pilot's pace, runs it here too;
3. otherwise groups the remaining units into *batches* of about :data:`POOL_TASK_SECONDS`
   (:data:`CLUSTER_TASK_SECONDS`), at least two per worker where there are units enough, so
   that a task's round trip is small against its work;
4. in a process pool, this process works too: the pool has N - 1 workers taking batches from
   the front, and this process takes the batches no worker has started from the back
   (cancelling them in the pool), until the two meet. ``--jobs 2`` is this process and one
   worker.

Units are independent and results are returned in unit order, so none of this changes a
result, only where and when each unit runs. Workload sizes below which this matters are
measured in BENCHMARKS.md (scripts/bench_parallel.py).
"""

from __future__ import annotations

import math
import os
import time
from typing import Any, Callable

#: below this many seconds of work after the pilot (at its pace), a process pool does not pay
POOL_MIN_SECONDS = 1.0
#: the same for a Dask cluster (a client connection, a scatter, scheduler round trips)
CLUSTER_MIN_SECONDS = 3.0
#: the work a task sent to a pool worker carries, at least (many small units are batched)
POOL_TASK_SECONDS = 0.05
#: the same for a Dask worker (each task costs the scheduler a few milliseconds)
CLUSTER_TASK_SECONDS = 0.5
#: batches per worker, at most: a little slack for uneven units
BATCHES_PER_WORKER = 8


def run(fn: Callable[[Any, Any], Any], units: list, shared: Any, workers: int, scheduler: str | None,
        advance: Callable[[int], None], sizes: list | None = None) -> list:
    """``[fn(shared, u) for u in units]`` on ``workers`` processes (this one included) or on the
    cluster at ``scheduler``, where that pays (module docstring). ``sizes``: each unit's work in
    any unit (a range's length), for the estimate and the batches; equal by default."""
    sizes = [1.0] * len(units) if sizes is None else [float(x) for x in sizes]
    results: list = [None] * len(units)
    pilots, pace = _pilots(fn, units, shared, sizes, results, advance, min_seconds(scheduler))
    if pilots is None:
        return results  # all done here
    rest = list(range(pilots, len(units)))
    task_seconds = CLUSTER_TASK_SECONDS if scheduler else POOL_TASK_SECONDS
    batches = batch(rest, [sizes[i] for i in rest], pace, task_seconds, workers)
    if scheduler:
        from ._dask import map_on_cluster

        parts = map_on_cluster(_run_batch, [[units[i] for i in b] for b in batches], (fn, shared), scheduler,
                               None, on_result=lambda part: advance(len(part)))
        for b, part in zip(batches, parts):
            for i, value in zip(b, part):
                results[i] = value
        return results
    _pool_with_this_process(fn, units, shared, batches, workers - 1, results, advance)
    return results


def _pilots(fn, units, shared, sizes, results, advance, threshold) -> tuple[int | None, float]:
    """Run the pilot here and time it; run every unit here (and return None) when the rest would
    take less than ``threshold`` seconds at its pace; else return how many units were run, and
    the last one's pace (seconds per unit of size). The first unit may pay for imports and
    caches, so the second is timed too when there are units enough and either the first two are
    a small part of the work or the first one's estimate is near the threshold (within 4 times)."""
    total = sum(sizes)
    done = 0
    while True:
        start = time.process_time()
        results[done] = fn(shared, units[done])
        advance(1)
        pace = (time.process_time() - start) / max(sizes[done], 1e-12)  # seconds per unit of size
        done += 1
        estimate = pace * sum(sizes[done:])
        if estimate < threshold:
            for i in range(done, len(units)):
                results[i] = fn(shared, units[i])
                advance(1)
            return None, pace
        if done > 1 or len(units) - done < 2:
            return done, pace
        if sizes[0] + sizes[1] > total / 4 and estimate >= 4 * threshold:
            return done, pace


def min_seconds(scheduler: str | None) -> float:
    """The work below which workers do not pay: ``$RANKEVAL_MIN_PARALLEL_SECONDS`` if set (0: always
    use them), else :data:`CLUSTER_MIN_SECONDS` or :data:`POOL_MIN_SECONDS`."""
    text = os.environ.get(MIN_SECONDS_ENV, "").strip()
    if text:
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"{MIN_SECONDS_ENV}={text!r} is not a number of seconds") from None
    return CLUSTER_MIN_SECONDS if scheduler else POOL_MIN_SECONDS


#: overrides the thresholds above (seconds; 0 = always use the workers)
MIN_SECONDS_ENV = "RANKEVAL_MIN_PARALLEL_SECONDS"


def batch(indices: list, sizes: list, pace: float, task_seconds: float, workers: int) -> list[list]:
    """Consecutive ``indices`` (units of the given ``sizes``) grouped into batches of about
    ``task_seconds`` each at ``pace`` seconds per unit of size, but into at least two batches per
    worker where there are units enough and at most :data:`BATCHES_PER_WORKER` per worker."""
    n = len(indices)
    total = float(sum(sizes))
    by_time = math.ceil(total * pace / task_seconds) if pace > 0 else 1
    count = max(1, min(n, max(min(by_time, BATCHES_PER_WORKER * workers), 2 * workers)))
    out, current, filled, done = [], [], 0.0, 0
    for index, size in zip(indices, sizes):
        current.append(index)
        filled += size
        left = n - len(current) - sum(len(b) for b in out)
        # close the batch at its share of the total, keeping a unit for every batch still to come
        if filled >= total * (len(out) + 1) / count - 1e-9 * total or left < count - len(out) - 1:
            out.append(current)
            current = []
    if current:
        out.append(current)
    return out


def _run_batch(fn_shared, units: list) -> list:
    """Work unit of a batch: ``fn(shared, u)`` for each of its units."""
    fn, shared = fn_shared
    return [fn(shared, unit) for unit in units]


def _pool_with_this_process(fn, units, shared, batches, pool_workers, results, advance) -> None:
    """The batches in a pool of ``pool_workers`` processes, this process taking the ones no worker
    has started, from the last back. The pool is :func:`~.worker_pool.worker_pool`'s: its workers end
    with this process, and leaving it on an exception kills them at once."""
    from . import process_pool
    from .worker_pool import worker_pool

    futures = []
    with worker_pool(max(1, pool_workers), process_pool.install, (shared,)) as pool:
        try:
            with process_pool.one_blas_thread(), pool.alongside():  # BLAS as the workers': the processes are the parallelism
                _share(fn, units, shared, batches, pool, futures, results, advance)
        except BaseException:
            for future in futures:
                future.cancel()
            raise


def _share(fn, units, shared, batches, pool, futures, results, advance) -> None:
    """Submit the batches; take the last ones no worker has started; collect in order."""
    from . import process_pool

    futures.extend(pool.submit(process_pool.call, _run_batch_here, (fn, [units[i] for i in b])) for b in batches)
    for k in range(len(futures) - 1, -1, -1):
        if not futures[k].cancel():
            break  # a worker has it, and every batch before it
        for i in batches[k]:
            if pool.broken():  # a worker died: end the run now, not after this process's share
                from concurrent.futures.process import BrokenProcessPool

                raise BrokenProcessPool("a worker process ended")
            results[i] = fn(shared, units[i])
            advance(1)
    for k, future in enumerate(futures):
        if not future.cancelled():
            for i, value in zip(batches[k], future.result()):
                results[i] = value
            advance(len(batches[k]))


def _run_batch_here(shared, fn_units) -> list:
    """On a pool worker (whose shared data the initializer installed): a batch of units."""
    fn, batch_units = fn_units
    return [fn(shared, unit) for unit in batch_units]
