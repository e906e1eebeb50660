"""Stream stages shared by the commands: excluding systems, rebatching, counting."""

from __future__ import annotations

import contextlib
import fnmatch
import re
from typing import Iterable, Iterator

import numpy as np

from .batch import Batch
from .messages import quiet, warn


def system_matcher(patterns: Iterable[str]):
    """A vectorized predicate: true for item ids matching any shell-style pattern."""
    regex = re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in patterns))

    def matches(items: np.ndarray) -> np.ndarray:
        return np.fromiter((regex.match(i) is not None for i in items.tolist()), dtype=bool, count=len(items))

    return matches


def exclude(batches: Iterable[Batch], patterns: Iterable[str], report=None) -> Iterator[Batch]:
    """Drop rows whose item matches a pattern; report the count at the end.

    ``report`` receives a message; by default it goes to stderr. Groups left with
    no rows disappear (and are counted too).
    """
    report = report or warn
    matches = system_matcher(patterns)
    rows = groups = 0
    for batch in batches:
        drop = matches(batch.item)
        if drop.any():
            kept = batch.select_rows(~drop)
            rows += int(drop.sum())
            groups += batch.n_groups - kept.n_groups
            batch = kept
        yield batch
    if rows:
        report(f"excluded {rows} item rows matching {', '.join(patterns)}"
               + (f" ({groups} groups left empty and dropped)" if groups else ""))


def progress(batches: Iterable[Batch], label: str = "groups", fed_by_pipe: bool = False,
             command: str | None = None) -> Iterator[Batch]:
    """Count groups on a click progress display on stderr (``rankeval COMMAND: groups``), only when
    stderr is a terminal.

    One display per pipeline: a command ``fed_by_pipe`` (its input is a pipe, a FIFO
    or a socket: another program's output) shows none, so in ``rankeval convert F |
    rankeval normalize | rankeval tau`` only the first command counts. Never writes to
    stdout. ``RANKEVAL_PROGRESS=0`` turns it off; ``RANKEVAL_PROGRESS=1`` shows it
    also when fed by a pipe (e.g. ``zcat big.gz | rankeval tau``).
    """
    import os
    import sys

    import click

    setting = os.environ.get("RANKEVAL_PROGRESS", "auto")
    if setting == "0" or not sys.stderr.isatty() or (fed_by_pipe and setting != "1") or quiet():
        yield from batches
        return
    unknown_length = (_ for _ in ())  # a generator: click shows a count, not a percentage
    text = f"rankeval {command}: {label}" if command else f"rankeval: {label}"
    with _shown(), click.progressbar(unknown_length, label=text, file=sys.stderr, show_pos=True) as bar:
        for batch in batches:
            bar.update(batch.n_groups)
            yield batch


@contextlib.contextmanager
def phase_progress(label: str | None, total: int):
    """A progress display for a phase of ``total`` work units (``rankeval: LABEL [###   ] 40/100``),
    on stderr, only when it is a terminal and ``RANKEVAL_PROGRESS`` is not 0; yields
    ``advance(n)``. With no ``label`` nothing is shown."""
    import os
    import sys

    setting = os.environ.get("RANKEVAL_PROGRESS", "auto")
    if not label or total <= 1 or setting == "0" or not sys.stderr.isatty() or quiet():
        yield lambda n=1: None
        return
    import click

    with _shown(), click.progressbar(length=total, label=f"rankeval: {label}", file=sys.stderr,
                                     show_pos=True) as bar:
        yield bar.update


#: progress displays open now (a phase's elapsed-time line waits while one is)
_OPEN_DISPLAYS = [0]
#: a phase's elapsed time appears after this many seconds (shorter phases show nothing);
#: $RANKEVAL_PROGRESS_DELAY changes it
PHASE_DELAY = 1.0


@contextlib.contextmanager
def _shown():
    _OPEN_DISPLAYS[0] += 1
    try:
        yield
    finally:
        _OPEN_DISPLAYS[0] -= 1


@contextlib.contextmanager
def phase(label: str):
    """An elapsed-time line for a phase whose length is not known in advance
    (``rankeval: training... 12s``), on stderr: only on a terminal, not under
    ``--quiet`` or ``RANKEVAL_PROGRESS=0``, and only once the phase has taken
    :data:`PHASE_DELAY` seconds; the line is erased when the phase ends. The display
    is click's (already loaded: tqdm or rich would add 0.2 s or more to start-up,
    see BENCHMARKS.md) and a thread that redraws the line. A phase that
    runs work units (:func:`~rankeval_cli.executor.map_units`) shows their count bar
    instead while it is open.
    """
    import os
    import sys
    import threading
    import time

    if os.environ.get("RANKEVAL_PROGRESS", "auto") == "0" or not sys.stderr.isatty() or quiet():
        yield
        return
    try:
        delay = float(os.environ.get("RANKEVAL_PROGRESS_DELAY", PHASE_DELAY))
    except ValueError:
        delay = PHASE_DELAY
    done = threading.Event()
    start = time.monotonic()
    drawn = [False]

    def draw():
        spinner = "|/-\\"
        tick = 0
        while not done.wait(0.25):
            elapsed = time.monotonic() - start
            if elapsed < delay or _OPEN_DISPLAYS[0]:
                continue
            sys.stderr.write(f"\rrankeval: {label}... {spinner[tick % 4]} {elapsed:.0f}s\033[K")
            sys.stderr.flush()
            drawn[0], tick = True, tick + 1

    thread = threading.Thread(target=draw, name="rankeval-phase", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        if drawn[0]:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
