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


def test_pool_equals_serial_in_unit_order():
    shared = np.arange(100, dtype=float) ** 1.5
    serial = executor.map_units(draw, range(20), shared=shared, jobs=1)
    pooled = executor.map_units(draw, range(20), shared=shared, jobs=2)
    assert serial == pooled
    assert len(set(serial)) > 1  # units draw differently


def test_worker_error_is_raised_as_itself():
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


def test_dask_equals_serial_in_unit_order(dask_scheduler):
    shared = np.arange(100, dtype=float) ** 1.5
    serial = executor.map_units(draw, range(20), shared=shared, jobs=1)
    assert executor.map_units(draw, range(20), shared=shared, scheduler=dask_scheduler) == serial


def test_dask_worker_error_is_raised_as_itself(dask_scheduler):
    with pytest.raises(DataError) as info:
        executor.map_units(fail_on_three, range(6), scheduler=dask_scheduler)
    assert str(info.value) == "f.tsv:7: bad value"


def test_unreachable_scheduler_is_a_one_line_error(monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setenv("RANKEVAL_DASK_TIMEOUT", "1")
    with pytest.raises(DataError) as info:
        executor.map_units(draw, range(3), shared=np.ones(3), scheduler="tcp://127.0.0.1:9")
    assert "cannot reach the dask scheduler" in str(info.value) and "\n" not in str(info.value)


def test_configured_jobs_are_the_default(monkeypatch):
    monkeypatch.delenv(executor.JOBS_ENV, raising=False)
    calls = []
    monkeypatch.setattr(executor, "_pool", lambda fn, units, shared, jobs, label: calls.append(jobs) or [])
    executor.configure(jobs=2)
    try:
        executor.map_units(draw, range(4), shared=np.ones(3))
        executor.map_units(draw, range(4), shared=np.ones(3), jobs=3)
    finally:
        executor.configure(jobs=None)
    assert calls == [2, 3]
