"""The group ids one stream has shown so far, in bounded memory.

A group must not reappear after another group. Remembering every id would grow
with the input, so each group is kept as a 64-bit hash with the line of its
first row:

* up to ``MEMORY_GROUPS`` groups stay in sorted in-memory runs, and a batch is
  checked against them at once (the message names the group);
* beyond that, all runs but the newest batch's are spilled, merged into one
  sorted run, to an anonymous temporary file. A repeat of a spilled group is
  found by :meth:`SeenGroups.finish` at the end of the stream, by an external
  merge: the hash range is cut into slices of about ``MEMORY_GROUPS`` hashes, and
  each slice of every run is read, sorted and scanned for equal neighbours. That
  message names the two lines.

So memory stays near ``MEMORY_GROUPS`` × 16 bytes (2 MB) plus one batch, however
many groups the input holds; the temporary file takes 16 bytes per group. Hashes are mixed with
the splitmix64 finalizer so that slices of the hash range hold similar counts
whatever the ids are. Two different ids with the same 64-bit hash would be taken
for a repeat (odds about n²/2⁶⁵: 3e-8 for a million groups).
"""

from __future__ import annotations

import numpy as np

#: Groups remembered in memory (16 bytes each); older ones are spilled to disk.
MEMORY_GROUPS = 1 << 17


def group_hashes(values: np.ndarray) -> np.ndarray:
    """64-bit hashes of ids, spread evenly over the int64 range (splitmix64 finalizer)."""
    h = np.fromiter(map(hash, values.tolist()), dtype=np.int64, count=len(values)).view(np.uint64)
    with np.errstate(over="ignore"):
        h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return (h ^ (h >> np.uint64(31))).view(np.int64)


class SeenGroups:
    """Hashes of earlier groups with the line of each one's first row (0 when unknown)."""

    def __init__(self):
        self.runs: list[tuple[np.ndarray, np.ndarray]] = []  # (sorted hashes, lines)
        self.in_memory = 0
        self.spill = None
        self.spilled: list[tuple[int, int]] = []  # (byte offset, count) of each run in the file

    def contains(self, ordered: np.ndarray) -> np.ndarray:
        """Which of these sorted hashes are among the groups held in memory."""
        found = np.zeros(len(ordered), dtype=bool)
        for hashes, _ in self.runs:
            pos = np.searchsorted(hashes, ordered)
            found |= (pos < len(hashes)) & (hashes[np.minimum(pos, len(hashes) - 1)] == ordered)
        return found

    def add(self, ordered: np.ndarray, lines: np.ndarray) -> None:
        """Remember a batch's groups: sorted hashes and their lines, in the same order.

        Runs of similar size are merged (timsort merges two sorted runs in linear
        time), so there are O(log) runs; past ``MEMORY_GROUPS`` all but this batch's go
        to disk.
        """
        self.runs.append((ordered, lines))
        self.in_memory += len(ordered)
        if self.in_memory > MEMORY_GROUPS and len(self.runs) > 1:
            self._spill_older()
        while len(self.runs) > 1 and len(self.runs[-2][0]) <= 2 * len(self.runs[-1][0]):
            self.runs.append(_merge(self.runs.pop(-2), self.runs.pop()))

    def _spill_older(self) -> None:
        """Move every run but the newest batch's to the file, merged into one."""
        newest = self.runs.pop()
        while len(self.runs) > 1:
            self.runs.append(_merge(self.runs.pop(-2), self.runs.pop()))
        self._write(*self.runs.pop())
        self.runs = [newest]
        self.in_memory = len(newest[0])

    def _write(self, hashes: np.ndarray, lines: np.ndarray) -> None:
        if self.spill is None:
            import tempfile

            self.spill = tempfile.TemporaryFile(prefix="rankeval-groups-")
        self.spill.seek(0, 2)
        self.spilled.append((self.spill.tell(), len(hashes)))
        hashes.tofile(self.spill)
        lines.tofile(self.spill)

    def finish(self):
        """(line of the earliest repeat, line of its first appearance), or None.

        Only repeats of spilled groups are left to find here; the others were
        found as their batch came in.
        """
        if self.spill is None:
            return None
        self.spill.flush()
        runs = [_SpilledRun(self.spill, *run) for run in self.spilled]
        runs += [_MemoryRun(*run) for run in self.runs]
        slices = -(-sum(run.n for run in runs) // MEMORY_GROUPS)
        edges = np.array([-(1 << 63) + (k << 64) // slices for k in range(1, slices)], dtype=np.int64)
        cuts = [np.concatenate(([0], run.positions(edges), [run.n])) for run in runs]
        found = [_repeat_in_slice([(run, cut[k], cut[k + 1]) for run, cut in zip(runs, cuts)])
                 for k in range(slices)]
        found = [f for f in found if f is not None]
        self.spill.close()
        return min(found) if found else None


class _MemoryRun:
    def __init__(self, hashes: np.ndarray, lines: np.ndarray):
        self.hashes, self.lines, self.n = hashes, lines, len(hashes)

    def positions(self, values: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.hashes, values)

    def read(self, a: int, b: int):
        return self.hashes[a:b], self.lines[a:b]


class _SpilledRun:
    """A sorted run in the spill file: its hashes, then its lines (read, never mapped)."""

    def __init__(self, spill, offset: int, n: int):
        self.spill, self.offset, self.n = spill, offset, n

    def positions(self, values: np.ndarray) -> np.ndarray:
        return np.searchsorted(self._column(0, 0, self.n), values)

    def read(self, a: int, b: int):
        return self._column(0, a, b), self._column(1, a, b)

    def _column(self, column: int, a: int, b: int) -> np.ndarray:
        self.spill.seek(self.offset + 8 * (column * self.n + a))
        return np.fromfile(self.spill, dtype=np.int64, count=b - a)


def _merge(older, newer):
    """One sorted run of two, in at most 4 arrays of the merged size at a time."""
    hashes = np.concatenate((older[0], newer[0]))
    lines = np.concatenate((older[1], newer[1]))
    del older, newer  # the caller holds no other reference: the inputs are freed here
    order = np.argsort(hashes, kind="stable")
    hashes.sort(kind="stable")
    return hashes, lines[order]


def _repeat_in_slice(parts):
    """Earliest (repeat line, first line) among the rows ``run[a:b]`` of ``(run, a, b)``, or None.

    Runs are in stream order and a run holds no repeat of its own, so equal
    hashes in two runs are a repeat whose second appearance is in the later run.
    """
    columns = [(*run.read(a, b), np.full(b - a, k)) for k, (run, a, b) in enumerate(parts)]
    hashes, lines, run = (np.concatenate(c) for c in zip(*columns))
    order = np.argsort(hashes, kind="stable")
    hashes, lines, run = hashes[order], lines[order], run[order]
    same = np.flatnonzero(hashes[1:] == hashes[:-1])
    if not len(same):
        return None
    k = min(same.tolist(), key=lambda i: (run[i + 1], lines[i + 1]))
    return int(lines[k + 1]), int(lines[k])
