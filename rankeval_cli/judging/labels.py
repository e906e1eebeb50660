"""The qrels of a study read and aligned: one row per (topic, document) that any of them
labels, one column of grades per qrels (the reference first), and the reference's scale.

A grade ≥ 0 is a label; a negative grade (trec_eval's "judged but not to be counted") and
an absent row are no label. The scale is the set of the reference's labels; a candidate's
label outside it is an error naming the candidate's file and line.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: the grade of a (topic, document) that a qrels does not hold
MISSING = np.iinfo(np.int64).min


@dataclass
class Labels:
    """Every qrels of a study on one index of (topic, document) pairs."""

    sources: list  # file names, the reference first
    qids: list  # topics any qrels holds, sorted by their bytes
    offsets: np.ndarray  # int64, len(qids) + 1: the pairs of qids[i]
    docno: object  # ByteIds, sorted within each topic
    grades: np.ndarray  # (pairs, qrels) int64, MISSING where a qrels lacks the pair
    lines: np.ndarray  # (pairs, qrels) int64 line of each judgment, 0 where none
    scale: np.ndarray  # the reference's labels (grades ≥ 0), ascending

    @property
    def topic(self) -> np.ndarray:
        """The topic index of every pair."""
        return np.repeat(np.arange(len(self.qids)), np.diff(self.offsets))

    def labelled(self, k: int) -> np.ndarray:
        """Pairs qrels ``k`` labels (a grade ≥ 0)."""
        return self.grades[:, k] >= 0

    def positions(self, k: int) -> np.ndarray:
        """Scale positions of qrels ``k``'s labels (−1 where it has none)."""
        g = self.grades[:, k]
        pos = np.searchsorted(self.scale, np.maximum(g, 0))
        return np.where(g >= 0, pos, -1)

    def topics_of(self, k: int) -> set:
        """The topics qrels ``k`` holds a row of."""
        present = np.bincount(self.topic[self.grades[:, k] != MISSING], minlength=len(self.qids)) > 0
        return {q for q, p in zip(self.qids, present) if p}

    def first_line(self, k: int, topic: int) -> int:
        """The first line of qrels ``k`` about topic index ``topic`` (0 if none)."""
        lines = self.lines[self.offsets[topic]:self.offsets[topic + 1], k]
        lines = lines[lines > 0]
        return int(lines.min()) if len(lines) else 0

    def union_qrels(self):
        """A :class:`~rankeval_cli.formats.trec.qrels.Qrels` of every pair (grade 0): what a run is
        joined with once, its ``qrels_row`` then indexing the pairs."""
        from ..formats.trec.qrels import Qrels

        n = len(self.grades)
        return Qrels("<pairs>", list(self.qids), self.offsets, self.docno, np.zeros(n, np.int64),
                          np.zeros(n, np.int64))


def read_labels(paths: list) -> Labels:
    """Read the reference (``paths[0]``) and the candidates; align them (module docstring).

    A duplicate pair within a qrels, a malformed line or an empty qrels is the reader's
    error (file and line); a candidate label outside the reference's scale is one too."""
    from ..formats.byteids import ByteIds
    from ..formats.trec.qrels import read_qrels

    qrels = [read_qrels(path) for path in paths]
    qids = sorted({q for r in qrels for q in r.qids}, key=lambda q: q.encode("utf-8"))
    index = {q: i for i, q in enumerate(qids)}
    codes = [np.repeat(np.array([index[q] for q in r.qids], np.int64), np.diff(r.offsets)) for r in qrels]
    code = np.concatenate(codes)
    source = np.concatenate([np.full(len(c), k, np.int64) for k, c in enumerate(codes)])
    docno = ByteIds.concat([r.docno for r in qrels])
    grade = np.concatenate([r.grade for r in qrels])
    line = np.concatenate([r.line for r in qrels])
    order = np.lexsort((source, *docno.sort_keys(), code))
    code, source, grade, line = code[order], source[order], grade[order], line[order]
    docno = docno.take(order).compact()
    new = np.ones(len(code), bool)
    if len(code) > 1:
        new[1:] = (code[1:] != code[:-1]) | ~docno.adjacent_same()
    pair = np.cumsum(new) - 1
    n_pairs = int(pair[-1]) + 1 if len(pair) else 0
    grades = np.full((n_pairs, len(paths)), MISSING, np.int64)
    lines = np.zeros((n_pairs, len(paths)), np.int64)
    grades[pair, source] = grade
    lines[pair, source] = line
    heads = np.flatnonzero(new)
    sizes = np.bincount(code[heads], minlength=len(qids))
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    reference = grades[:, 0]
    scale = np.unique(reference[reference >= 0])
    labels = Labels([r.source for r in qrels], qids, offsets, docno.take(heads).compact(), grades, lines, scale)
    _check_scale(labels)
    return labels


def _check_scale(labels: Labels) -> None:
    """A candidate label the reference never gives is an error at its line."""
    from ..errors import DataError

    if not len(labels.scale):
        raise DataError("the reference qrels holds no label (grade >= 0)", labels.sources[0])
    shown = ", ".join(str(int(g)) for g in labels.scale)
    for k in range(1, len(labels.sources)):
        g = labels.grades[:, k]
        outside = (g >= 0) & ~np.isin(g, labels.scale)
        if outside.any():
            rows = np.flatnonzero(outside)
            row = rows[np.argmin(labels.lines[rows, k])]
            raise DataError(f"grade {int(g[row])} is outside the reference's scale ({shown}; "
                            f"{labels.sources[0]})", labels.sources[k], int(labels.lines[row, k]))
