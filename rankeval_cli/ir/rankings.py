"""Batches of joined rankings for trec_eval's evaluation: several joined parts as one batch,
and trec_eval 9's order of scores kept as C floats."""

from __future__ import annotations

import numpy as np

#: rows evaluated at once: joined parts are gathered up to this many (fewer, larger numpy steps)
BATCH_ROWS = 1 << 16


def concatenated(parts):
    """One (qids, ranking, docno, score) of several consecutive joined parts."""
    from ..measures.ir import Ranking

    if len(parts) == 1:
        return parts[0]
    qids = [q for p in parts for q in p[0]]
    rankings = [p[1] for p in parts]

    def offsets(arrays):
        sizes = np.concatenate([np.diff(a) for a in arrays])
        return np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)

    blocks, shift = [], 0
    for r in rankings:
        b = np.asarray(r.tie_block, dtype=np.int64)
        blocks.append(b - (b[0] if len(b) else 0) + shift)
        shift = int(blocks[-1][-1]) + 1 if len(b) else shift
    ranking = Ranking(offsets([r.offsets for r in rankings]), np.concatenate([r.rel for r in rankings]),
                      np.concatenate(blocks), offsets([r.judged_offsets for r in rankings]),
                      np.concatenate([r.judged_grade for r in rankings]))
    width = max(p[2].dtype.itemsize for p in parts)
    docno = np.concatenate([p[2].astype(f"S{width}") for p in parts])
    return qids, ranking, docno, np.concatenate([p[3] for p in parts])


def float32_order(ranking, score, docno) -> np.ndarray | None:
    """trec_eval 9 keeps scores as C floats: scores equal as floats are tied, and tied
    documents go by docno descending. The rows' new order (None = unchanged)."""
    from ..formats.trec.join import docno_words

    if len(score) < 2:
        return None
    block = _float_blocks(ranking, score)
    old = np.asarray(ranking.tie_block)
    if np.array_equal(np.r_[True, block[1:] != block[:-1]], np.r_[True, old[1:] != old[:-1]]):
        return None
    words = docno_words(np.asarray(docno))
    return np.lexsort((*[~words[:, j] for j in range(words.shape[1] - 1, -1, -1)], block))


def with_float_blocks(ranking, score):
    """The ranking with tie blocks of scores equal as C floats."""
    from ..measures.ir import Ranking

    return Ranking(ranking.offsets, ranking.rel, _float_blocks(ranking, score), ranking.judged_offsets,
                   ranking.judged_grade)


def _float_blocks(ranking, score) -> np.ndarray:
    f = np.asarray(score).astype(np.float32)
    sizes = np.diff(ranking.offsets)
    group = np.repeat(np.arange(len(sizes)), sizes)
    return np.cumsum(~np.r_[False, (f[1:] == f[:-1]) & (group[1:] == group[:-1])]) - 1
