"""Group and item ids of JCML groups: unique within the stream and within each group.

A <judgedsentence> ``id`` that is absent or already given to an earlier group
becomes ``<id>#<n>`` (n = the 1-based position of the <judgedsentence>), so
repeated judgments of one sentence stay separate groups. A <tgt> ``system`` that
is absent or repeats one in its group becomes ``tgt<k>`` (k = its position).
"""

from __future__ import annotations

import hashlib

import numpy as np


class UsedIds:
    """The group ids given so far, as 64-bit BLAKE2b digests in sorted numpy runs (8 bytes an id).

    Memory stays near 8 bytes a group, not a Python string each. Two ids with the same
    digest (odds about n²/2^65) would only rename the second, which needed no renaming;
    ids stay unique and the digest is the same in every process.

    This is not :class:`..seen.SeenGroups`: that one checks a whole batch at once,
    spills old groups to disk and finds their repeats only at the end of the stream,
    with Python's per-process string hash; renaming needs the answer for each id as it
    comes, the same in every run.
    """

    FLUSH, MERGE = 4096, 8

    def __init__(self):
        self.runs: list[np.ndarray] = []
        self.recent: set[int] = set()

    @staticmethod
    def _key(text: str) -> int:
        return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little", signed=True)

    def __contains__(self, text: str) -> bool:
        key = self._key(text)
        if key in self.recent:
            return True
        for run in self.runs:
            pos = int(np.searchsorted(run, key))
            if pos < len(run) and run[pos] == key:
                return True
        return False

    def add(self, text: str) -> None:
        self.recent.add(self._key(text))
        if len(self.recent) >= self.FLUSH:
            self.runs.append(np.sort(np.fromiter(self.recent, dtype=np.int64, count=len(self.recent))))
            self.recent = set()
            if len(self.runs) > self.MERGE:
                self.runs = [np.sort(np.concatenate(self.runs))]


def group_id(elem, ordinal: int, used: UsedIds) -> str:
    """The ``id`` attribute, or ``<id>#<ordinal>`` when it is absent or already used."""
    group = elem.get("id") or ""
    if not group or group in used:
        group = f"{group}#{ordinal}"
        while group in used:
            group += f"#{ordinal}"
    used.add(group)
    return group


def items(tgts) -> list[str]:
    """System names, with ``tgt<k>`` for a missing or repeated one (never equal to another item)."""
    systems = [t.get("system") or "" for t in tgts]
    taken = set(systems)
    out, seen = [], set()
    for k, system in enumerate(systems, start=1):
        if not system or system in seen:
            system = f"tgt{k}"
            while system in taken:
                system += f"#{k}"
        seen.add(system)
        taken.add(system)
        out.append(system)
    return out
