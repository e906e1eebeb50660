"""Google's MQM segment scores (google/wmt-mqm-human-evaluation, Freitag et al. 2021).

``mqm_<TESTSET>_<xxyy>.avg_seg_scores.tsv``: space-separated, a header line, then
one line per system and segment::

    system mqm_avg_score seg_id
    eTranslation.737 -2.333333 1

``mqm_avg_score`` is the MQM score averaged over the raters of the segment:
minus the weighted error count, so higher (closer to 0) is better; ``None`` =
not rated. ``seg_id`` is the segment's number within the test set (from 1), the
``SEGNO`` of the WMT test-set index, not the per-document SEGID of the WMT20
metric score files.

As a ranking stream (``convert --from mqm``) a group is one segment (groups in
order of first appearance), its items the systems, ``gold`` = -score (lower =
better, as ``pred`` of converted metric scores), the score text kept in ``mqm``.
Extra columns: ``lp``, ``testset`` (from the file name or the options), ``segno``
(= seg_id) and ``segment``: with a test-set index (``index``), ``DOCID::DOCSEG``,
the key the WMT20-21 metric score files use, so ``convert --scores`` fills
``pred`` from them; without one, the seg_id.
"""

from __future__ import annotations

import os
import re
from array import array
from typing import Iterator

import numpy as np

from ..batch import BATCH_ROWS, Batch, offsets_from_sizes
from ..errors import DataError
from ..inputs import iter_lines, source_name
from .sysseg import LongScores
from .wmtids import normalize_lp

HEADER = ("system", "mqm_avg_score", "seg_id")
_NAME = re.compile(r"mqm_(?P<testset>[A-Za-z0-9-]+)_(?P<src>[a-z]{2})(?P<tgt>[a-z]{2})(?:\.|_|$)")


def lp_and_testset(path: str) -> tuple[str | None, str | None]:
    """(``xx-yy``, test set) from a file name like ``mqm_newstest2020_ende.avg_seg_scores.tsv``."""
    found = _NAME.search(os.path.basename(str(path)))
    if not found:
        return None, None
    return normalize_lp(f"{found['src']}-{found['tgt']}"), found["testset"]


def load_mqm(source, name: str = "mqm") -> LongScores:
    """The MQM segment scores of a file, in long form (segment = seg_id).

    Memory: four numbers per row (each system name is kept once, every row points to it).
    """
    where = source_name(source)
    names: dict[str, str] = {}  # each system name once
    systems: list[str] = []
    segments, lines = array("q"), array("q")
    values: list[np.ndarray] = []
    texts, text_lines = [], []
    header = False
    for number, line in iter_lines(source, skip_blank=True):
        fields = line.split()
        if not fields:
            continue
        if not header:
            if tuple(fields) != HEADER:
                raise DataError(f"expected the header {' '.join(HEADER)!r} (an MQM avg_seg_scores file), "
                                f"found {line[:80]!r}", where, number)
            header = True
            continue
        if len(fields) != len(HEADER):
            raise DataError(f"expected {len(HEADER)} space-separated fields ({' '.join(HEADER)}), "
                            f"found {len(fields)}", where, number)
        system, score, seg_id = fields
        if not seg_id.isdigit() or not seg_id.isascii() or len(seg_id) > 18 or int(seg_id) < 1:
            raise DataError(f"seg_id must be a positive integer, found {seg_id[:40]!r}", where, number)
        systems.append(names.setdefault(system, system))
        segments.append(int(seg_id))
        lines.append(number)
        texts.append(score)
        text_lines.append(number)
        if len(texts) >= SCORES_PER_PARSE:
            values.append(_scores(texts, where, text_lines))
            texts, text_lines = [], []
    if not header:
        raise DataError(f"empty input: expected the header {' '.join(HEADER)!r}", where, 1)
    if texts:
        values.append(_scores(texts, where, text_lines))
    system = np.empty(len(systems), dtype=object)
    system[:] = systems
    return LongScores(name=name, source=where, system=system, segment=np.frombuffer(segments, dtype=np.int64).copy(),
                      value=np.concatenate(values) if values else np.empty(0),
                      line=np.frombuffer(lines, dtype=np.int64).copy())


#: score texts parsed at a time (so they are not all held as text)
SCORES_PER_PARSE = 1 << 16


def _scores(texts: list[str], where: str, lines: list[int]) -> np.ndarray:
    """Floats from score texts; ``None`` -> NaN; anything else must be a finite decimal number."""
    from .columns import parse_numbers

    cleaned = ["" if t == "None" else t for t in texts]
    for i, t in enumerate(texts):
        if t == "":
            raise DataError("empty score", where, lines[i])
    return parse_numbers(cleaned, "mqm_avg_score", where, lines) if texts else np.empty(0)


def read_mqm(source, lp: str | None = None, testset: str | None = None, index=None) -> Iterator[Batch]:
    """Stream one group per segment, systems as items, gold = -MQM score (module docstring).

    ``index`` is a path (or list of paths) of WMT test-set index files. Batches hold whole
    segments, about ``BATCH_ROWS`` rows each; their text columns are made batch by batch.
    """
    scores = load_mqm(source)
    named_lp, named_testset = lp_and_testset(scores.source)
    lp = normalize_lp(lp) if lp else named_lp
    testset = testset or named_testset
    if lp is None:
        raise DataError("cannot tell the language pair from the file name (mqm_TESTSET_xxyy...); give --lp",
                        scores.source)
    order = np.lexsort((np.arange(len(scores)), _first_appearance(scores.segment)))
    segment = scores.segment[order]
    _, sizes = np.unique(_first_appearance(segment), return_counts=True)
    keys = docids = None
    if index is not None:
        keys, docids = _document_keys(index, lp, testset, segment, scores, order)
    offsets = offsets_from_sizes(sizes)
    start = 0
    while start < len(sizes):
        stop = max(int(np.searchsorted(offsets, offsets[start] + BATCH_ROWS, side="right")) - 1, start + 1)
        rows = slice(int(offsets[start]), int(offsets[stop]))
        yield _batch(scores, order[rows], segment[rows], sizes[start:stop], lp, testset,
                     None if keys is None else keys[rows], None if docids is None else docids[rows])
        start = stop


def _batch(scores: LongScores, rows, segment, sizes, lp, testset, keys, docids) -> Batch:
    n = len(rows)
    segno = segment.astype(str).astype(object)  # digits only: as wide as the largest seg_id
    extra = {"lp": np.full(n, lp, dtype=object), "testset": np.full(n, testset or "", dtype=object),
             "segno": segno, "segment": segno.copy() if keys is None else keys}
    if docids is not None:
        extra["docid"] = docids
    value = scores.value[rows]
    extra["mqm"] = np.array(["" if np.isnan(v) else repr(v) for v in value.tolist()], dtype=object)
    starts = offsets_from_sizes(sizes)[:-1]
    return Batch(group=np.array([f"{lp}:{s}" for s in segment[starts].tolist()], dtype=object),
                 offsets=offsets_from_sizes(sizes), item=scores.system[rows], gold=-value,
                 pred=np.full(n, np.nan), extra=extra, line=scores.line[rows], source=scores.source)


def _first_appearance(values: np.ndarray) -> np.ndarray:
    """Each value replaced by the rank of its first appearance (0, 1, ...)."""
    if not len(values):
        return values
    _, first, inverse = np.unique(values, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first)] = np.arange(len(first))
    return rank[inverse.ravel()]


def _document_keys(index, lp, testset, segment, scores, order):
    """``DOCID::DOCSEG`` and DOCID for each row, from the test-set index (an unknown seg_id is an error)."""
    from .testset_index import read_index

    table = read_index(index) if isinstance(index, (str, list, tuple)) else index
    by_segno = {(k[0], k[1], v): k for k, v in table.segno.items()}
    distinct, inverse = np.unique(segment, return_inverse=True)
    keys, docids = [], []
    for position, segno in enumerate(distinct.tolist()):  # once per segment, not per row
        key = by_segno.get((lp, testset, segno)) if testset else None
        if key is None:
            candidates = [k for (l, _, s), k in by_segno.items() if l == lp and s == segno]
            key = candidates[0] if len(candidates) == 1 else None
        if key is None:
            row = order[int(np.flatnonzero(inverse.ravel() == position)[0])]
            raise DataError(f"seg_id {segno} of {lp} {testset or ''} is not in the test-set index "
                            f"({', '.join(table.sources)})", scores.source, int(scores.line[row]))
        keys.append(f"{key[2]}::{key[3]}")
        docids.append(key[2])
    inverse = inverse.ravel()
    return np.array(keys, dtype=object)[inverse], np.array(docids, dtype=object)[inverse]
