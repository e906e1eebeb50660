"""The process pool of ``--jobs N``: workers that end with their parent, never after it.

* While a pool is open, every ending signal (HUP, INT, QUIT, TERM, ...) raises in the
  parent (KeyboardInterrupt for SIGINT, exit 128 + N for the others); leaving the pool
  on an exception kills its workers at once instead of waiting for their units, so
  Ctrl-C ends a ``--jobs`` run within a second with status 130.
* A worker ignores SIGINT (Ctrl-C at a terminal reaches the whole process group: the
  parent alone decides) and ends itself when the parent is gone, so a parent killed with
  SIGKILL still takes its workers (and with them the start method's server).
* A worker that dies (killed, out of memory) is an error of the run (exit 1, one line),
  never a hang.
"""

from __future__ import annotations

import contextlib
import os

from .errors import DataError

#: seconds to wait for killed workers to be reaped
REAP_SECONDS = 2.0
#: how often a worker checks that its parent still runs
WATCH_SECONDS = 0.25


@contextlib.contextmanager
def worker_pool(jobs: int, initializer, initargs: tuple):
    """A ``ProcessPoolExecutor`` of ``jobs`` workers, each started by ``initializer(*initargs)``."""
    import concurrent.futures as cf
    from concurrent.futures.process import BrokenProcessPool

    from . import process_pool
    from .outputs import _Interrupts

    _quiet_manager_race()
    with _Interrupts.raising():
        pool = cf.ProcessPoolExecutor(jobs, mp_context=process_pool.context(), initializer=_start_worker,
                                      initargs=(os.getpid(), initializer, initargs))
        try:
            yield _HeldSubmits(pool)
        except BrokenProcessPool:
            codes = _stop(pool)
            raise DataError(f"a worker process ended unexpectedly{_how(codes)}; "
                            "the run is abandoned", "--jobs") from None
        except BaseException:
            _stop(pool)
            raise
        pool.shutdown(wait=True)


def _quiet_manager_race() -> None:
    """From the first pool on: the pool's manager thread failing on a future this process had
    cancelled (to run its unit itself) when the workers end is not printed; the run's own exit
    status and line say what happened. (CPython's terminate_broken sets the exception of every
    pending work item, cancelled ones included, and raises InvalidStateError on them; the thread
    may do so after the pool is left, so the filter stays for the rest of the process.)"""
    import threading
    from concurrent.futures import InvalidStateError

    previous = threading.excepthook
    if not getattr(previous, "rankeval_quiet_manager_race", False):
        def hook(args):
            if not (issubclass(args.exc_type, InvalidStateError)
                    and type(args.thread).__name__ == "_ExecutorManagerThread"):
                previous(args)

        hook.rankeval_quiet_manager_race = True
        threading.excepthook = hook


class _HeldSubmits:
    """The pool, its ``submit`` not interrupted by a signal: a worker it starts is known, and killed, at once."""

    def __init__(self, pool):
        self.pool = pool

    def broken(self) -> bool:
        """A worker has died (the pool is broken): work this process does beside it should stop."""
        return bool(getattr(self.pool, "_broken", False))

    @contextlib.contextmanager
    def alongside(self):
        """While this (main) thread computes units beside the workers: a worker's death interrupts
        it (a thread watching the pool), so the run ends at once with the pool's error, not after
        this process's share. Elsewhere than in the main thread, the dead worker is seen after it."""
        import threading
        from concurrent.futures.process import BrokenProcessPool

        if threading.current_thread() is not threading.main_thread():
            yield
            return
        done, interrupted = threading.Event(), threading.Event()

        def watch():
            import _thread

            while not done.wait(WATCH_SECONDS):
                if self.broken():
                    interrupted.set()
                    _thread.interrupt_main()
                    return

        watcher = threading.Thread(target=watch, name="rankeval-pool-watch", daemon=True)
        watcher.start()
        try:
            yield
        except KeyboardInterrupt:
            if interrupted.is_set():
                raise BrokenProcessPool("a worker process ended") from None
            raise
        finally:
            done.set()
            watcher.join()

    def submit(self, fn, *args):
        from .outputs import _Interrupts

        with _Interrupts.held():
            return self.pool.submit(fn, *args)


def _start_worker(parent: int, initializer, initargs) -> None:
    import signal
    import threading

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_parent, args=(parent,), name="rankeval-parent-watch", daemon=True).start()
    initializer(*initargs)


def _watch_parent(parent: int) -> None:
    """End this worker within :data:`WATCH_SECONDS` of the parent's end, however it ended.

    The start method's server is the worker's own parent and lives as long as its workers do,
    so the kernel's parent-death signal would never come: the parent is watched instead.
    """
    import time

    while _alive(parent):
        time.sleep(WATCH_SECONDS)
    os._exit(1)


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie, not yet reaped by its own parent, has ended)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except OSError:
            return True
        return True


def _stop(pool) -> list:
    """Kill the pool's workers and shut it down without waiting for their units; their exit codes."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for process in processes:
        with contextlib.suppress(Exception):
            process.kill()
    pool.shutdown(wait=False, cancel_futures=True)
    codes = []
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(REAP_SECONDS)
            codes.append(process.exitcode)
    return codes


def _how(codes: list) -> str:
    """`` (killed by SIGKILL)`` for the first worker that did not end by our hand, if known."""
    import signal

    for code in codes:
        if code is not None and code < 0 and code != -signal.SIGKILL:
            return f" (killed by {signal.Signals(-code).name})"
    return " (killed, or out of memory)"
