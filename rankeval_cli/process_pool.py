"""The process pool's pieces, shared by :mod:`.executor` and :mod:`.work_sharing`: the start
method, the workers' initializer (the shared data, BLAS on one thread) and the call a worker runs."""

from __future__ import annotations

from typing import Any


def context():
    """forkserver, not fork: the reader's read-ahead thread may hold a lock at fork time. The fork
    server imports numpy once (:data:`PRELOAD`), so a worker starts without importing it again."""
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    if "forkserver" not in methods:
        return multiprocessing.get_context(None)
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)  # takes effect when the server starts (once a process)
    return context


#: modules the fork server imports before it forks workers
PRELOAD = ["numpy", "rankeval_cli.process_pool", "rankeval_cli.worker_pool"]


def one_blas_thread():
    """This process's BLAS on one thread: at once, and until the end of a ``with`` block used as
    a context (a no-op without threadpoolctl)."""
    import contextlib

    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - a dependency
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


_SHARED: Any = None


def install(shared) -> None:
    """A pool worker's initializer: the shared data, and BLAS on one thread (the workers are the
    parallelism; BLAS threads on top of them would compete for the same cores)."""
    global _SHARED
    _SHARED = shared
    one_blas_thread()


def call(fn, unit):
    return fn(_SHARED, unit)
