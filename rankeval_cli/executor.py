"""Work units and the one executor that runs them.

Every parallel workload of rankeval (a batch of bootstrap replicates, a batch of
permutations, a TrueSkill run, a cross-validation fold, a pair of metrics, a run file)
is a list of *units*. A unit is run by a pure, module-level function

    fn(shared, unit) -> result

where ``shared`` is data common to every unit (sent once per worker, not once per
unit) and ``unit`` is small (a key, a seed, a slice). :func:`map_units` runs the
units serially, in a pool of processes (``--jobs N``) or on a ``dask.distributed``
cluster (``--scheduler ADDRESS``) and returns their results in unit order, so a
workload's output cannot depend on how it ran.

Randomness: a unit never draws from a generator another unit has touched. It draws
from :func:`unit_seed` ``(seed, key)``, a ``numpy.random.SeedSequence`` derived from
the user's seed and the unit's own key (its position in the workload, or a name), so
``--jobs 1``, ``--jobs 8`` and a cluster give byte-identical output.

Errors: an exception raised in a worker (a :class:`~rankeval_cli.errors.DataError`
naming file and line, a usage error) is raised again in the calling process as the
same exception, so the message and exit status are those of an in-process run.
"""

from __future__ import annotations

import hashlib
import os
from typing import Any, Callable, Hashable, Iterator, Sequence

from .scheduler_address import SCHEDULER_ENV  # noqa: F401  (the default of --scheduler; re-exported)

#: the environment variable giving the default of --jobs
JOBS_ENV = "RANKEVAL_JOBS"


def unit_seed(seed: int, key) -> "np.random.SeedSequence":
    """The seed sequence of one unit: the user's ``seed`` with the unit's ``key`` as spawn key.

    ``key`` is an int, a str or a tuple of them; strings enter as the first 8 bytes of
    their BLAKE2b digest (stable across processes and machines, unlike ``hash``).

    >>> unit_seed(12345, (0, 3)).spawn_key, unit_seed(12345, 3).spawn_key
    ((0, 3), (3,))
    """
    import numpy as np

    parts = key if isinstance(key, tuple) else (key,)
    return np.random.SeedSequence(seed, spawn_key=tuple(_key_int(p) for p in parts))


def _key_int(part: Hashable) -> int:
    if isinstance(part, (bool, int)) and part >= 0:
        return int(part)
    digest = hashlib.blake2b(repr(part).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little")


#: what the running command asked for (``--jobs``, ``--scheduler``), read by :func:`map_units`
_configured: dict = {"jobs": None, "scheduler": None}


def configure(**settings) -> None:
    """Set the command's ``jobs`` and/or ``scheduler`` (the ``--jobs``/``--scheduler`` options
    call this), so that kernels deep in the library run their units accordingly without
    every signature carrying them."""
    unknown = set(settings) - set(_configured)
    if unknown:
        raise TypeError(f"unknown executor settings: {sorted(unknown)}")
    _configured.update(settings)


#: the most worker processes a run starts, per CPU this process may use
JOBS_PER_CPU = 4


def resolve_jobs(jobs: int | None) -> int:
    """The number of worker processes: ``jobs``, else ``$RANKEVAL_JOBS``, else 1.

    0 means one per CPU this process may use. The default is 1 (not the CPU count)
    because rankeval is a filter that Makefiles run many at a time (``make -j``).
    More than :data:`JOBS_PER_CPU` per CPU is capped there (:func:`jobs_note`). A value of
    ``$RANKEVAL_JOBS`` that is not a whole number >= 0 is a usage error (exit 2).
    """
    if jobs is None:
        jobs = jobs_from_environment()
        if jobs is None:
            return 1
    cpus = cpu_count()
    if jobs == 0:
        return cpus
    return min(jobs, JOBS_PER_CPU * cpus)


def jobs_note(jobs: int | None) -> str | None:
    """The note announcing that ``jobs`` (else ``$RANKEVAL_JOBS``) is capped, or None."""
    asked = jobs if jobs is not None else jobs_from_environment()
    if asked is None or asked <= JOBS_PER_CPU * cpu_count():
        return None
    return f"{asked} jobs is more than {JOBS_PER_CPU} per CPU ({cpu_count()} CPUs): running {resolve_jobs(asked)}"


def jobs_from_environment() -> int | None:
    """``$RANKEVAL_JOBS`` as a whole number >= 0, None when unset or blank; else a usage error."""
    import re

    text = os.environ.get(JOBS_ENV, "").strip()
    if not text:
        return None
    if not re.fullmatch(r"[0-9]{1,9}", text):
        import click

        raise click.UsageError(f"{JOBS_ENV}={text!r} is not a whole number of jobs >= 0 (0 = one per CPU)")
    return int(text)


def cpu_count() -> int:
    """The CPUs this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def resolve_scheduler(scheduler: str | None) -> str | None:
    """The dask scheduler address: ``scheduler``, else ``$RANKEVAL_SCHEDULER``, else None."""
    if scheduler:
        return scheduler
    return os.environ.get(SCHEDULER_ENV, "").strip() or None


def planned_workers() -> int:
    """How many workers :func:`map_units` would use now (a cluster counts as :data:`CLUSTER_WIDTH`)."""
    if resolve_scheduler(_configured["scheduler"]):
        return CLUSTER_WIDTH
    return resolve_jobs(_configured["jobs"])


#: units per worker when a workload is cut into ranges (a little slack for uneven units)
UNITS_PER_WORKER = 4
#: the worker count assumed for a dask cluster when cutting a workload (its size is not known here)
CLUSTER_WIDTH = 32


class Ranges(list):
    """``(start, stop)`` ranges that know their lengths: :func:`map_units` weighs them by it."""

    @property
    def sizes(self) -> list[int]:
        return [b - a for a, b in self]


def ranges(n: int, min_size: int = 1, per_worker: int = UNITS_PER_WORKER) -> Ranges:
    """``[0, n)`` cut into contiguous ``(start, stop)`` ranges for the planned workers: one range
    when running serially, else two short ranges first (about 1/32 of the work per worker each,
    at least ``min_size``: what :mod:`.work_sharing` times to decide whether workers pay), then
    up to ``per_worker`` per worker, each at least ``min_size`` long (``per_worker=1`` for units
    whose fixed cost does not shrink with their size). How a workload is cut never changes its
    result (units draw from their own seeds), only how it is spread."""
    workers = planned_workers()
    size = max(min_size, 1)
    if workers <= 1 or n < 2 * size:
        return Ranges([(0, n)] if n > 0 else [])
    pilot = max(size, -(-n // (32 * workers)))
    start = 2 * pilot if n - 2 * pilot >= size else 0
    count = max(1, min(workers * per_worker, (n - start) // size))
    edges = [start + round(i * (n - start) / count) for i in range(count + 1)]
    head = [(0, pilot), (pilot, start)] if start else []
    return Ranges(head + [(a, b) for a, b in zip(edges[:-1], edges[1:]) if b > a])


def map_units(fn: Callable[[Any, Any], Any], units: Sequence, *, shared: Any = None, jobs: int | None = None,
              scheduler: str | None = None, label: str | None = None, serial: bool = False,
              sizes: Sequence | None = None) -> list:
    """``[fn(shared, u) for u in units]``, run serially, in ``jobs`` processes or on ``scheduler``
    where the work pays for them (:mod:`.work_sharing`: a timed first unit, batches, this
    process taking part).

    ``jobs``/``scheduler`` default to what the command configured (:func:`configure`),
    then to ``$RANKEVAL_JOBS``/``$RANKEVAL_SCHEDULER``, then to one process. ``fn`` must
    be a module-level function (it is pickled by reference). ``label`` names the phase
    on the progress display (stderr, terminals only). ``serial`` runs every unit in this
    process whatever was configured (for units that read this process's stdin). ``sizes``: the
    work of each unit in any measure (a range's length; equal by default), which the decision
    and the batches weigh (:mod:`.work_sharing`); :func:`ranges` carry theirs.
    """
    sizes = getattr(units, "sizes", None) if sizes is None else sizes
    units = list(units)
    jobs = 1 if serial else resolve_jobs(jobs if jobs is not None else _configured["jobs"])
    scheduler = None if serial else resolve_scheduler(scheduler or _configured["scheduler"])
    if (jobs <= 1 and not scheduler) or len(units) <= 1:
        return _serial(fn, units, shared, label)
    from . import work_sharing
    from .pipeline import phase_progress

    with phase_progress(label, len(units)) as advance:
        return work_sharing.run(fn, units, shared, min(jobs, len(units)), scheduler, advance, sizes)


def imap_units(fn: Callable[[Any, Any], Any], units: Sequence, *, shared: Any = None, jobs: int | None = None,
               scheduler: str | None = None, label: str | None = None, serial: bool = False) -> Iterator:
    """Like :func:`map_units`, but yields each result in unit order as soon as it and every
    earlier one are done, with at most a few units per worker in flight: output can be
    written while later units run, and memory holds a window of results, not all of them.
    A unit's exception is raised when its turn comes, after the earlier results. As in
    :func:`map_units`, the first unit runs here, timed, and the rest go to workers only when
    they would take long enough to pay for them (:mod:`.work_sharing`)."""
    import time

    from . import work_sharing
    from .pipeline import phase_progress

    units = list(units)
    jobs = 1 if serial else resolve_jobs(jobs if jobs is not None else _configured["jobs"])
    scheduler = None if serial else resolve_scheduler(scheduler or _configured["scheduler"])
    parallel = (jobs > 1 or scheduler) and len(units) > 1
    with phase_progress(label, len(units)) as advance:
        done, start = 0, time.process_time()
        for unit in units:  # here: all units, or the first (timed) when workers were asked for
            yield fn(shared, unit)
            advance(1)
            done += 1
            if parallel and done == 1:
                if (time.process_time() - start) * (len(units) - 1) >= work_sharing.min_seconds(scheduler):
                    break
        if done == len(units):
            return
    if scheduler:
        from ._dask import imap_on_cluster

        yield from imap_on_cluster(fn, units[1:], shared, scheduler, label, window=CLUSTER_WIDTH * 2)
        return
    yield from _pool_ordered(fn, units[1:], shared, min(jobs, len(units) - 1), label)


def _pool_ordered(fn, units, shared, jobs, label):
    import collections

    from . import process_pool
    from .pipeline import phase_progress
    from .worker_pool import worker_pool

    window = collections.deque()
    with phase_progress(label, len(units)) as advance, \
            worker_pool(jobs, process_pool.install, (shared,)) as pool:
        try:
            pending = iter(units)
            for unit in pending:
                window.append(pool.submit(process_pool.call, fn, unit))
                if len(window) >= 2 * jobs:
                    break
            while window:
                result = window.popleft().result()
                advance(1)
                for unit in pending:
                    window.append(pool.submit(process_pool.call, fn, unit))
                    break
                yield result
        finally:
            for future in window:
                future.cancel()


def _serial(fn, units, shared, label):
    from .pipeline import phase_progress

    out = []
    with phase_progress(label, len(units)) as advance:
        for unit in units:
            out.append(fn(shared, unit))
            advance(1)
    return out
