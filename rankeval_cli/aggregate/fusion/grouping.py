"""Grouping and ordering rows by integer keys with one sort of plain integers.

``np.unique(keys, return_inverse=True)`` and ``np.lexsort`` sort an index array by the
keys (an indirect sort: one key comparison and one index move per step). Where the keys
are small enough, the row index is packed into the low bits of each key and the packed
integers are sorted directly (numpy sorts plain integer arrays several times faster, with
SIMD instructions where the CPU has them); the order and the groups are read back from the
low bits. Results are those of the indirect sorts, the same on every machine; keys that do
not fit take the indirect sort.
"""

from __future__ import annotations

import numpy as np

_MAX_BITS = 63


def _bits(n: int) -> int:
    return max(int(n - 1).bit_length(), 1) if n > 1 else 1


def group(keys: np.ndarray, bound: int, by: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, int]:
    """(the distinct keys in increasing order, each key's index among them, a row that repeats
    the key and ``by`` value of an earlier row, or −1), for integer keys in [0, ``bound``):
    ``np.unique(keys, return_inverse=True)``. ``by`` (optional) must not decrease from row to
    row (the run of each row of stacked runs)."""
    keys = np.asarray(keys, dtype=np.int64)
    n = len(keys)
    low = _bits(n)
    if n == 0 or _bits(bound) + low > _MAX_BITS:
        unique, inverse = np.unique(keys, return_inverse=True)
        inverse = inverse.reshape(-1).astype(np.int64)
        repeat = -1
        if by is not None and n:
            pair = inverse * (int(by.max()) + 1) + by
            ordered = np.sort(pair)
            twice = ordered[1:][ordered[1:] == ordered[:-1]]
            repeat = int(np.flatnonzero(pair == twice[0])[-1]) if len(twice) else -1
        return unique, inverse, repeat
    packed = np.sort((keys << low) | np.arange(n, dtype=np.int64))
    rows = packed & ((1 << low) - 1)
    ordered = packed >> low
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    inverse = np.empty(n, dtype=np.int64)
    inverse[rows] = np.cumsum(new) - 1
    repeat = -1
    if by is not None:
        ranked_by = by[rows]
        twice = np.flatnonzero(~new[1:] & (ranked_by[1:] == ranked_by[:-1]))
        repeat = int(rows[twice[0] + 1]) if len(twice) else -1
    return ordered[new], inverse, repeat


def dense_rank(values: np.ndarray) -> tuple[np.ndarray, int]:
    """(each value's rank among the distinct values, 0 for the smallest; how many there are),
    equal values (−0.0 and 0.0 included) sharing a rank."""
    n = len(values)
    if n == 0:
        return np.zeros(0, dtype=np.int64), 0
    order = np.argsort(values)
    ordered = values[order]
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.cumsum(new) - 1
    return rank, int(rank[order[-1]]) + 1


def by_score(query: np.ndarray, score: np.ndarray, n_queries: int) -> np.ndarray:
    """The order of candidates given sorted by (query, doc code) that sorts them by (query,
    score descending, doc code descending): ``np.lexsort((-doc, -score, query))``."""
    n = len(score)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    if not np.isnan(score).any():
        rank, n_ranks = dense_rank(-score)
        low, mid = _bits(n), _bits(n_ranks)
        if _bits(n_queries) + mid + low <= _MAX_BITS:
            reverse = n - 1 - np.arange(n, dtype=np.int64)  # doc descending within a query
            packed = np.sort((np.asarray(query, np.int64) << (mid + low)) | (rank << low) | reverse)
            return n - 1 - (packed & ((1 << low) - 1))
    return np.lexsort((-np.arange(n), -score, query))


def candidates(query: np.ndarray, ids, run: np.ndarray):
    """The candidates of a block of rows (a query and a document each, rows in run order):
    (each row's candidate, each candidate's query, a row of each candidate, a row that
    repeats the query, document and run of an earlier row or −1), the candidates in (query,
    document bytes) order; None where the ids are too long for the vectorized steps or two
    (query, document) pairs share a hash (then group exactly).

    The rows are grouped by one sort of a 64-bit hash of (query, document) with the row
    index packed below it, and every group is checked to hold one pair."""
    n = len(query)
    if n == 0 or ids.longest > 8 * ids.key_words or ids.longest == 0:
        return None
    words = ids.words()
    low = _bits(n)
    packed = np.sort(((ids.hash(np.asarray(query, np.uint64), words) >> np.uint64(low + 1)).astype(np.int64) << low)
                     | np.arange(n, dtype=np.int64))
    rows = packed & ((1 << low) - 1)
    hashed = packed >> low
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(hashed[1:], hashed[:-1], out=new[1:])
    same = ~new[1:]
    both = ((query << 32) | run)[rows]  # query and run of each row (runs < 2^32)
    if (((both[1:] ^ both[:-1]) >> 32 != 0) & same).any():
        return None  # a hash shared by two pairs
    for j in range(words.shape[1]):
        w = words[:, j][rows]
        if ((w[1:] != w[:-1]) & same).any():
            return None
    twice = np.flatnonzero(same & (both[1:] == both[:-1]))
    first = rows[new]
    order = _by_query_and_words(query[first], words[first])
    rank = np.empty(len(first), dtype=np.int64)
    rank[order] = np.arange(len(first), dtype=np.int64)
    cand = np.empty(n, dtype=np.int64)
    cand[rows] = rank[np.cumsum(new) - 1]
    return cand, query[first[order]], first[order], int(rows[twice[0] + 1]) if len(twice) else -1


def _by_query_and_words(query: np.ndarray, words: np.ndarray) -> np.ndarray:
    """The order of rows by (query, words): the words sorted first, then the query packed above
    each row's place in that order."""
    n = len(query)
    if words.shape[1] == 1:
        by_words = np.argsort(words[:, 0])
    else:
        by_words = np.lexsort(tuple(words[:, j] for j in range(words.shape[1] - 1, -1, -1)))
    low = _bits(n)
    if _bits(int(query.max()) + 1) + low > _MAX_BITS:
        return by_words[np.argsort(query[by_words], kind="stable")]
    packed = np.sort((query[by_words] << low) | np.arange(n, dtype=np.int64))
    return by_words[packed & ((1 << low) - 1)]
