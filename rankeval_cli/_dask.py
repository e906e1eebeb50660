"""Work units on a ``dask.distributed`` cluster (``--scheduler ADDRESS``), imported only when asked.

The shared data of a workload (per-group sufficient statistics, never the raw input
files) is scattered once to every worker; each unit then travels as a small task
``fn(shared, unit)``. Results come back in unit order, so the output is the same as
a serial run; a worker's exception is raised again here as itself (dask pickles it),
so a DataError keeps its file, line and exit status.
"""

from __future__ import annotations

import contextlib

from .errors import DataError


def map_on_cluster(fn, units: list, shared, address: str, label: str | None, on_result=None) -> list:
    """``[fn(shared, u) for u in units]`` computed on the cluster whose scheduler is ``address``;
    ``on_result(result)`` is called as each arrives (progress)."""
    with _client(address) as client:
        return _run(client, fn, units, shared, label, on_result)


def imap_on_cluster(fn, units: list, shared, address: str, label: str | None, window: int):
    """The results of ``fn(shared, u)`` in unit order, at most ``window`` units in flight."""
    import collections

    from .pipeline import phase_progress

    with _client(address) as client, phase_progress(label, len(units)) as advance:
        shared_data = client.scatter(shared, broadcast=True, hash=False) if shared is not None else None
        pending, flight = iter(units), collections.deque()
        for unit in pending:
            flight.append(client.submit(_on_worker, fn, shared_data, unit, pure=False))
            if len(flight) >= window:
                break
        while flight:
            result = flight.popleft().result()
            advance(1)
            for unit in pending:
                flight.append(client.submit(_on_worker, fn, shared_data, unit, pure=False))
                break
            yield result


@contextlib.contextmanager
def _client(address: str):
    """A client of the scheduler at ``address`` (current while in use), closed on the way out."""
    try:
        from distributed import Client
    except ImportError:
        import click

        raise click.UsageError("--scheduler needs dask.distributed: pip install 'rankeval-cli[dask]'") from None
    from .scheduler_address import check_address, connect_timeout

    try:
        address = check_address(address)
    except ValueError as exc:
        import click

        raise click.UsageError(str(exc)) from None
    try:
        client = Client(address, timeout=connect_timeout(), set_as_default=False)
    except Exception as exc:  # noqa: BLE001 -- Dask raises many kinds for one failure to connect
        reason = " ".join(str(exc).split())[:300] or type(exc).__name__
        raise DataError(f"cannot reach the dask scheduler ({reason})", address) from None
    try:
        with client.as_current():
            yield client
    finally:
        client.close()


def _run(client, fn, units, shared, label, on_result=None):
    from distributed import as_completed

    from .pipeline import phase_progress

    shared_data = client.scatter(shared, broadcast=True, hash=False) if shared is not None else None
    futures = client.map(_on_worker, [fn] * len(units), [shared_data] * len(units), units, pure=False)
    index = {future.key: i for i, future in enumerate(futures)}
    results: list = [None] * len(units)
    with phase_progress(label, len(units)) as advance:
        for future in as_completed(futures):
            results[index[future.key]] = future.result()  # raises the worker's exception
            advance(1)
            if on_result is not None:
                on_result(results[index[future.key]])
    return results


def _on_worker(fn, shared, unit):
    """``fn(shared, unit)`` on a Dask worker, its allocator set up first (:func:`_malloc_thresholds`)."""
    _malloc_thresholds()
    return fn(shared, unit)


_TUNED = False


def _malloc_thresholds() -> None:
    """Undo what MALLOC_TRIM_THRESHOLD_ does to glibc on a Dask worker, once per process.

    Dask's nanny starts workers with ``MALLOC_TRIM_THRESHOLD_=65536``. Setting a trim
    threshold turns off glibc's sliding mmap threshold, which stays at 128 KiB: every
    batch array of a reader is then mmap'd and unmapped again, and reading a TREC run
    took twice as long on a worker as in a process of its own (3.1 s against 1.5 s for
    a 250 MB run). Fixed thresholds near glibc's own upper bounds (mmap 32 MiB, trim
    64 MiB) give the speed back; memory is still returned to the system above them.
    """
    global _TUNED
    if _TUNED:
        return
    _TUNED = True
    import os

    if "MALLOC_TRIM_THRESHOLD_" not in os.environ:
        return
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(-3, 32 << 20)  # M_MMAP_THRESHOLD
        libc.mallopt(-1, 64 << 20)  # M_TRIM_THRESHOLD
    except (OSError, AttributeError):  # not glibc: nothing to undo
        pass
