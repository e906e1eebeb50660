"""Running a reader one or two items ahead in a background thread.

Reading and parsing the next block of a large file overlaps with the work on the
current one; numpy releases the interpreter lock in its array loops, so on a machine
with two cores the two halves run side by side. Items come out in order, an exception
raised by the generator is raised at the point of the sequence where it occurred, and
closing the consumer stops the producer and waits for it.

Only regular files are read ahead (:func:`ahead_of_files`): a read from stdin, a pipe or
a terminal may block for as long as the writer likes, and a thread blocked inside
``sys.stdin`` at exit would hold its lock while the interpreter closes it.
"""

from __future__ import annotations

import contextvars
import queue
import threading

#: Items (blocks or batches) produced ahead of the consumer: memory holds this many more.
DEPTH = 2
#: How long a closed consumer waits for the producer to finish its item.
JOIN_SECONDS = 10.0

_END = object()


class _Raised:
    def __init__(self, exc: BaseException):
        self.exc = exc


def ahead(make, depth: int = DEPTH):
    """Yield the items of the generator ``make()``, produced in a daemon thread up to
    ``depth`` items ahead of the consumer."""
    items: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def put(item) -> bool:
        while not stop.is_set():
            try:
                items.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce():
        try:
            for item in make():
                if not put(item):
                    return
        except BaseException as exc:  # handed to the consumer, raised there
            put(_Raised(exc))
            return
        put(_END)

    # the producer runs in the consumer's context (its context variables: how a command reads)
    thread = threading.Thread(target=contextvars.copy_context().run, args=(produce,), name="rankeval-read-ahead",
                              daemon=True)
    thread.start()
    try:
        while True:
            item = items.get()
            if item is _END:
                return
            if isinstance(item, _Raised):
                raise item.exc
            yield item
    finally:
        stop.set()
        # the producer ends at its next item (its files are closed); this generator may be
        # finalized by the garbage collector in the producer thread itself, which cannot wait for itself
        if thread is not threading.current_thread():
            thread.join(timeout=JOIN_SECONDS)


def ahead_of_files(sources, make, depth: int = DEPTH):
    """``ahead(make)`` when every source is a regular file, else ``make()`` itself."""
    from .inputs import is_regular_file

    return ahead(make, depth) if all(map(is_regular_file, sources)) else make()
