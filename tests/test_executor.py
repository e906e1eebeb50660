"""The executor: the same results, in unit order, serially and in a process pool; a worker's
error raised again as itself; unit seeds that depend only on the user's seed and the unit's key."""

from __future__ import annotations

import numpy as np
import pytest

from rankeval_cli import executor
from rankeval_cli.errors import DataError


def draw(shared, unit):
    """A unit that draws from its own seed: mean of ``shared`` resampled once."""
    rng = np.random.default_rng(executor.unit_seed(12345, unit))
    return float(shared[rng.integers(0, len(shared), len(shared))].mean())


def fail_on_three(shared, unit):
    if unit == 3:
        raise DataError("bad value", "f.tsv", 7)
    return unit


@pytest.fixture
def always_parallel(monkeypatch):
    """Workers used however small the work (the units here take microseconds)."""
    monkeypatch.setenv("RANKEVAL_MIN_PARALLEL_SECONDS", "0")


def test_pool_equals_serial_in_unit_order(always_parallel):
    shared = np.arange(100, dtype=float) ** 1.5
    serial = executor.map_units(draw, range(20), shared=shared, jobs=1)
    pooled = executor.map_units(draw, range(20), shared=shared, jobs=2)
    assert serial == pooled
    assert len(set(serial)) > 1  # units draw differently


def test_worker_error_is_raised_as_itself(always_parallel):
    for jobs in (1, 2):
        with pytest.raises(DataError) as info:
            executor.map_units(fail_on_three, range(6), jobs=jobs)
        assert str(info.value) == "f.tsv:7: bad value"


def test_unit_seed_depends_on_seed_and_key_only():
    a = np.random.default_rng(executor.unit_seed(1, ("pair", 2))).random(3)
    b = np.random.default_rng(executor.unit_seed(1, ("pair", 2))).random(3)
    c = np.random.default_rng(executor.unit_seed(1, ("pair", 3))).random(3)
    d = np.random.default_rng(executor.unit_seed(2, ("pair", 2))).random(3)
    assert (a == b).all() and not (a == c).all() and not (a == d).all()


def test_jobs_default_from_environment(monkeypatch):
    monkeypatch.delenv(executor.JOBS_ENV, raising=False)
    assert executor.resolve_jobs(None) == 1
    monkeypatch.setenv(executor.JOBS_ENV, "3")
    assert executor.resolve_jobs(None) == 3
    assert executor.resolve_jobs(0) >= 1
    import click

    for text in ("many", "-1", "1.5", "1e3", "+2", "2_0", "0x10"):
        monkeypatch.setenv(executor.JOBS_ENV, text)
        with pytest.raises(click.UsageError):
            executor.resolve_jobs(None)
    monkeypatch.setenv(executor.JOBS_ENV, "10000")
    assert executor.resolve_jobs(None) == executor.JOBS_PER_CPU * executor.cpu_count()


@pytest.fixture(scope="module")
def dask_scheduler():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        yield cluster.scheduler_address


def test_dask_equals_serial_in_unit_order(dask_scheduler, always_parallel):
    shared = np.arange(100, dtype=float) ** 1.5
    serial = executor.map_units(draw, range(20), shared=shared, jobs=1)
    assert executor.map_units(draw, range(20), shared=shared, scheduler=dask_scheduler) == serial


def test_dask_worker_error_is_raised_as_itself(dask_scheduler, always_parallel):
    with pytest.raises(DataError) as info:
        executor.map_units(fail_on_three, range(6), scheduler=dask_scheduler)
    assert str(info.value) == "f.tsv:7: bad value"


def test_unreachable_scheduler_is_a_one_line_error(monkeypatch, always_parallel):
    pytest.importorskip("distributed")
    monkeypatch.setenv("RANKEVAL_DASK_TIMEOUT", "1")
    with pytest.raises(DataError) as info:
        executor.map_units(draw, range(3), shared=np.ones(3), scheduler="tcp://127.0.0.1:9")
    assert "cannot reach the dask scheduler" in str(info.value) and "\n" not in str(info.value)


def test_configured_jobs_are_the_default(monkeypatch):
    from rankeval_cli import work_sharing

    monkeypatch.delenv(executor.JOBS_ENV, raising=False)
    calls = []
    monkeypatch.setattr(work_sharing, "run", lambda fn, units, shared, workers, scheduler, advance, sizes:
                        calls.append(workers) or [])
    executor.configure(jobs=2)
    try:
        executor.map_units(draw, range(4), shared=np.ones(3))
        executor.map_units(draw, range(4), shared=np.ones(3), jobs=3)
    finally:
        executor.configure(jobs=None)
    assert calls == [2, 3]


def where(shared, unit):
    """The process that ran the unit, after ``shared`` seconds of work."""
    import os
    import time

    time.sleep(shared)
    return unit, os.getpid()


def test_small_work_stays_in_this_process(monkeypatch):
    """The first unit is timed; when the rest would take less than POOL_MIN_SECONDS, no worker starts."""
    import concurrent.futures as cf
    import os

    monkeypatch.delenv("RANKEVAL_MIN_PARALLEL_SECONDS", raising=False)
    monkeypatch.setattr(cf, "ProcessPoolExecutor", None)  # starting a pool would fail
    assert executor.map_units(where, range(6), shared=0.0, jobs=2) == [(u, os.getpid()) for u in range(6)]
    assert list(executor.imap_units(where, range(6), shared=0.0, jobs=2)) == [(u, os.getpid()) for u in range(6)]


def test_this_process_takes_part_and_units_are_batched(always_parallel):
    """--jobs 2: one worker process and this one; results in unit order whoever ran them."""
    import os

    out = executor.map_units(where, range(24), shared=0.02, jobs=2)
    assert [u for u, _ in out] == list(range(24))
    pids = {pid for _, pid in out}
    assert os.getpid() in pids and len(pids) == 2


def first_pays(shared, unit):
    """Unit 0 spends ``shared`` seconds of processor time (as a first unit importing modules does)."""
    import os
    import time

    end = time.process_time() + (shared if unit == 0 else 0.0)
    while time.process_time() < end:
        pass
    return unit, os.getpid()


def test_a_first_unit_that_pays_for_imports_does_not_start_workers(monkeypatch):
    """Five units, the first 0.4 s of processor time and the rest instant: at the first one's pace the
    rest would take 1.6 s, near the 1 s threshold, so the second is timed too, and no worker starts."""
    import concurrent.futures as cf
    import os

    monkeypatch.delenv("RANKEVAL_MIN_PARALLEL_SECONDS", raising=False)
    monkeypatch.setattr(cf, "ProcessPoolExecutor", None)  # starting a pool would fail
    assert executor.map_units(first_pays, range(5), shared=0.4, jobs=2) == [(u, os.getpid()) for u in range(5)]


def test_batches():
    from rankeval_cli.work_sharing import batch

    units, ones = list(range(1, 101)), [1] * 100
    # 100 units of 1 ms, 50 ms a task: 2 batches; at least 2 per worker: 4 with 2 workers
    assert [len(b) for b in batch(units, ones, 0.001, 0.05, 1)] == [50, 50]
    assert [len(b) for b in batch(units, ones, 0.001, 0.05, 2)] == [25] * 4
    # slow units: one a batch, but no more than 8 batches per worker
    assert len(batch(units, ones, 1.0, 0.05, 2)) == 16 and sum(map(len, batch(units, ones, 1.0, 0.05, 2))) == 100
    assert batch([7], [1], 1.0, 0.05, 4) == [[7]]
    # sizes weigh: a short range and two long ones of TrueSkill runs, two processes
    assert batch([1, 2, 3], [50, 475, 475], 0.01, 0.05, 2) == [[1, 2], [3]]


def test_ranges_begin_with_two_short_ones(monkeypatch):
    """In parallel, two short ranges come first (what the work-sharing times), then per_worker per worker."""
    monkeypatch.delenv(executor.JOBS_ENV, raising=False)
    executor.configure(jobs=2)
    try:
        assert executor.ranges(1000, 50, per_worker=1) == [(0, 50), (50, 100), (100, 550), (550, 1000)]
        cut = executor.ranges(2000)
        assert cut[:2] == [(0, 32), (32, 64)] and len(cut) == 10 and cut[-1][1] == 2000
        assert executor.ranges(100, 60) == [(0, 100)]
    finally:
        executor.configure(jobs=None)
    assert executor.ranges(100) == [(0, 100)]
