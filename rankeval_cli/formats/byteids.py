"""Columns of byte-string ids (TREC docnos, query ids) held at the length of the data.

trec_eval keeps ids as C strings and compares them with ``strcmp``. A :class:`ByteIds`
column of n ids is one byte buffer and, per id, its length (and its start, when the ids
lie end to end), in one of two layouts:

- *fixed*: every id in a row of ``width`` bytes (a multiple of 8, at most
  :data:`FIXED_BYTES`), zero-padded — gathered from a file's bytes as 64-bit words in one
  step, the common case (docnos of a few to a few dozen bytes);
- *packed*: the ids' bytes one after another and a start per id, for a column holding a
  longer id.

So memory is at most ``FIXED_BYTES`` + 4 bytes per id, or the ids' total length + 12
bytes per id: it follows the data, never the longest id times their number.

What the join needs of ids is vectorized over their first :data:`VECTOR_WORDS` 64-bit
words (ids that long are rare; a longer one takes a step of its own): a 64-bit hash
(:meth:`ByteIds.hash`), equality (:func:`same`) and byte order (:meth:`ByteIds.sort_keys`).
An id holds no NUL byte (the readers refuse one), so zero padding never makes two ids
equal, and the big-endian words of the zero-padded ids compare as ``strcmp`` compares
the ids (a prefix sorts first).
"""

from __future__ import annotations

import numpy as np

#: longest id of a fixed-layout column (longer ones make the column packed)
FIXED_BYTES = 32
#: words of an id handled by the vectorized steps; longer ids take a step each
VECTOR_WORDS = 8
VECTOR_BYTES = 8 * VECTOR_WORDS
#: zero bytes after the ids of a packed column, so that every word gathers in place
PAD = VECTOR_BYTES + 8
#: bytes of short ids gathered at once when packing (bounds the index arrays)
_GATHER_BYTES = 1 << 22

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1, _M2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


class ByteIds:
    """A column of byte-string ids (module docstring).

    ``length`` (int32) holds each id's length. In the fixed layout (``width`` > 0) ``data``
    is an (n, width / 8) uint64 matrix: the ids' bytes as big-endian words, zero-padded. In
    the packed layout (``width`` 0) ``data`` is a uint8 buffer, id i at
    ``data[start[i]:start[i] + length[i]]``, with ``PAD`` zero bytes after the last id.
    """

    __slots__ = ("data", "start", "length", "width", "_longest")

    def __init__(self, data: np.ndarray, length: np.ndarray, width: int = 0, start: np.ndarray | None = None):
        self.data, self.length, self.width, self.start = data, length, width, start
        self._longest = None

    # ---- building --------------------------------------------------------------------------

    @classmethod
    def from_fields(cls, buf: np.ndarray, start: np.ndarray, end: np.ndarray) -> "ByteIds":
        """The fields ``buf[start:end]`` of a byte buffer (never copied whole)."""
        length = np.subtract(end, start, out=np.empty(len(start), np.int32), casting="unsafe")
        longest = int(length.max()) if len(length) else 0
        if longest > FIXED_BYTES:
            return _pack([(buf, start.astype(np.int64), length)], length)
        words = max(-(-longest // 8), 1)
        ids = cls(_words(buf, start, length, words), length, 8 * words)
        ids._longest = longest
        return ids

    @classmethod
    def from_list(cls, values) -> "ByteIds":
        """From a sequence of ``bytes``."""
        values = list(values)
        buf = np.frombuffer(b"".join(values), dtype=np.uint8)
        length = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
        start = np.zeros(len(values), dtype=np.int64)
        np.cumsum(length[:-1], out=start[1:])
        return cls.from_fields(buf, start, start + length)

    @classmethod
    def of(cls, values) -> "ByteIds":
        """``values`` as a column: a ByteIds itself, a numpy ``S`` array, or ``bytes`` or
        ``str`` (encoded as UTF-8) in any sequence."""
        if isinstance(values, ByteIds):
            return values
        if isinstance(values, np.ndarray) and values.dtype.kind == "S":
            return cls.from_list(values.reshape(-1).tolist())
        return cls.from_list([v.encode("utf-8") if isinstance(v, str) else bytes(v) for v in values])

    @classmethod
    def concat(cls, parts) -> "ByteIds":
        """The ids of ``parts`` one after another (fixed when every part is fixed)."""
        parts = list(parts)
        if not parts:
            return cls.from_list([])
        if len(parts) == 1:
            return parts[0]
        length = np.concatenate([p.length for p in parts])
        if all(p.width for p in parts):
            words = max(p.width for p in parts) // 8
            if all(p.width == 8 * words for p in parts):
                return cls(np.concatenate([p.data for p in parts]), length, 8 * words)
            out = np.zeros((len(length), words), dtype=np.uint64)
            at = 0
            for p in parts:
                out[at:at + len(p), :p.data.shape[1]] = p.data
                at += len(p)
            return cls(out, length, 8 * words)
        return _pack([p._raw() for p in parts], length)

    def _raw(self) -> tuple:
        """(uint8 buffer, start of each id, length of each id)."""
        if self.width:
            return self.data.byteswap().view(np.uint8).reshape(-1), np.arange(len(self), dtype=np.int64) * \
                self.width, self.length
        return self.data, self.start, self.length

    # ---- reading -----------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.length)

    @property
    def longest(self) -> int:
        if self._longest is None:
            self._longest = int(self.length.max()) if len(self) else 0
        return self._longest

    def __getitem__(self, key):
        """An id (``bytes``) for an integer; a column for a slice, an index array or a mask."""
        if isinstance(key, (int, np.integer)):
            i = int(key) + (len(self) if key < 0 else 0)
            if self.width:
                return self.data[i].byteswap().tobytes()[:int(self.length[i])]
            s = int(self.start[i])
            return self.data[s:s + int(self.length[i])].tobytes()
        if isinstance(key, slice):
            lo, hi, step = key.indices(len(self))
            return self.slice(lo, max(hi, lo)) if step == 1 else self.take(np.arange(lo, hi, step))
        key = np.asarray(key)
        return self.take(np.flatnonzero(key) if key.dtype == bool else key)

    def __eq__(self, other):
        """Per id, whether it equals ``other`` (``bytes`` or ``str``)."""
        if isinstance(other, str):
            other = other.encode("utf-8")
        if not isinstance(other, (bytes, bytearray)):
            return NotImplemented
        if not other:
            return self.length == 0
        value = ByteIds.from_list([bytes(other)])
        k = max(self.key_words, value.key_words)
        equal = (self.length == len(other)) & (self.words(k) == value.words(k)).all(axis=1)
        for i in np.flatnonzero(equal & (self.length > VECTOR_BYTES)).tolist():
            equal[i] = self[i] == other
        return equal

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else ~equal

    __hash__ = None

    # ---- as a numpy bytes array (at the width of the longest id: for small columns) ---------

    @property
    def dtype(self) -> np.dtype:
        """The ``S`` dtype that holds every id (what :meth:`fixed` gives)."""
        return np.dtype(f"S{max(self.longest, 1)}")

    def fixed(self) -> np.ndarray:
        """The ids as a numpy ``S`` array as wide as the longest: memory n × the longest id,
        so only for a few ids (an error message, a small batch)."""
        return np.array(self.tolist(), dtype=self.dtype) if len(self) else np.zeros(0, "S1")

    def astype(self, dtype) -> np.ndarray:
        return self.fixed().astype(dtype)

    def __array__(self, dtype=None, copy=None):
        return self.fixed() if dtype is None else self.fixed().astype(dtype)

    def take(self, rows: np.ndarray) -> "ByteIds":
        """The ids at ``rows`` (a packed column shares its buffer)."""
        rows = np.asarray(rows, dtype=np.int64)
        if self.width:
            return ByteIds(np.take(self.data, rows, axis=0), self.length[rows], self.width)
        return ByteIds(self.data, self.length[rows], 0, self.start[rows])

    def slice(self, lo: int, hi: int) -> "ByteIds":
        """The ids ``lo:hi`` (a view)."""
        if self.width:
            return ByteIds(self.data[lo:hi], self.length[lo:hi], self.width)
        return ByteIds(self.data, self.length[lo:hi], 0, self.start[lo:hi])

    def compact(self) -> "ByteIds":
        """The same ids without bytes of ids left out by :meth:`take` (a packed column)."""
        if self.width or len(self.data) == int(self.length.sum()) + PAD:
            return self
        return _pack([self._raw()], self.length)

    def tolist(self) -> list:
        """The ids as ``bytes`` objects."""
        if self.width:
            return self.data.byteswap().view(f"S{self.width}").reshape(-1).tolist()  # no NUL in an id
        raw = self.data.tobytes()
        return [raw[s:s + n] for s, n in zip(self.start.tolist(), self.length.tolist())]

    def decode(self) -> list:
        """The ids as ``str`` (UTF-8; the readers have checked it)."""
        values = self.tolist()
        if not values:
            return []
        if any(b"\n" in v for v in values):
            return [v.decode("utf-8") for v in values]
        return b"\n".join(values).decode("utf-8").split("\n")

    # ---- keys ----------------------------------------------------------------------------------

    @property
    def key_words(self) -> int:
        """Words the vectorized steps look at: the longest id's, at most VECTOR_WORDS."""
        return min(max(-(-self.longest // 8), 1), VECTOR_WORDS)

    def words(self, k: int | None = None) -> np.ndarray:
        """(n, k) uint64: the first 8k bytes of every id as big-endian words, zero past its end."""
        k = self.key_words if k is None else k
        n = len(self)
        if self.width:
            have = self.width // 8
            if k == have:
                return self.data
            out = np.zeros((n, k), dtype=np.uint64)
            out[:, :min(k, have)] = self.data[:, :min(k, have)]
            return out
        unaligned = np.ndarray((len(self.data) - 7,), dtype="<u8", buffer=self.data, strides=(1,))
        out = np.empty((n, k), dtype=np.uint64)
        for j in range(k):
            at = np.minimum(self.start + 8 * j, len(self.data) - 8)
            out[:, j] = (unaligned[at] & _low_mask(self.length - 8 * j)).byteswap()
        return out

    def _long_rows(self) -> np.ndarray:
        return np.flatnonzero(self.length > VECTOR_BYTES) if self.longest > VECTOR_BYTES else np.zeros(0, np.int64)

    def hash(self, seed: np.ndarray | None = None, words: np.ndarray | None = None) -> np.ndarray:
        """A 64-bit hash of (seed, id) per id (splitmix64 steps over the id's words; an id
        longer than VECTOR_BYTES hashes its BLAKE2b digest). Equal ids with equal seeds hash
        equal, whatever the columns' layouts; ``words`` = :meth:`words` when at hand."""
        words = self.words() if words is None else words
        n = len(self)
        with np.errstate(over="ignore"):
            h = np.zeros(n, np.uint64)
            if seed is not None:
                h[:] = seed
                h *= _GOLDEN
            for j in range(words.shape[1]):
                w = words[:, j]
                if j == 0:
                    h ^= w
                    _mix(h)
                else:  # a word past an id's end is zero (no NUL inside an id) and leaves the hash alone
                    mixed = h ^ w
                    _mix(mixed)
                    h = np.where(w != 0, mixed, h)
            long = self._long_rows()
            if len(long):
                import hashlib

                digest = np.array([int.from_bytes(hashlib.blake2b(self[i], digest_size=8).digest(), "little")
                                   for i in long.tolist()], dtype=np.uint64)
                base = np.asarray(seed, dtype=np.uint64)[long] * _GOLDEN if seed is not None else np.uint64(0)
                h[long] = _mix(np.asarray(base ^ digest, dtype=np.uint64))
            h ^= h >> np.uint64(31)
        return h

    def sort_keys(self, descending: bool = False) -> list:
        """Keys for ``np.lexsort`` (the last most significant) ordering the ids by their bytes
        (``strcmp``), or in reverse."""
        words = self.words()
        keys = [~words[:, j] if descending else words[:, j] for j in range(words.shape[1] - 1, -1, -1)]
        long = self._long_rows()
        if len(long):  # ids sharing their first VECTOR_BYTES: ordered by their whole bytes
            values = [self[i] for i in long.tolist()]
            rank_of = {v: r for r, v in enumerate(sorted(set(values)))}
            rank = np.full(len(self), -1, dtype=np.int64)  # a shorter id with those bytes is their prefix: first
            rank[long] = [rank_of[v] for v in values]
            keys.insert(0, -rank if descending else rank)
        return keys

    def adjacent_same(self, words: np.ndarray | None = None) -> np.ndarray:
        """Whether each id but the first equals the one before it."""
        words = self.words() if words is None else words
        equal = self.length[1:] == self.length[:-1]
        equal &= (words[1:] == words[:-1]).all(axis=1) if words.shape[1] > 1 else words[1:, 0] == words[:-1, 0]
        for i in np.flatnonzero(equal & (self.length[1:] > VECTOR_BYTES)).tolist():
            equal[i] = self[i + 1] == self[i]
        return equal

    def unique(self) -> tuple["ByteIds", np.ndarray]:
        """(the distinct ids in byte order, the index of every id among them)."""
        n = len(self)
        if n == 0:
            return self, np.zeros(0, dtype=np.int64)
        order = np.lexsort(self.sort_keys())
        ordered = self.take(order)
        new = np.ones(n, dtype=bool)
        new[1:] = ~ordered.adjacent_same()
        inverse = np.empty(n, dtype=np.int64)
        inverse[order] = np.cumsum(new) - 1
        return ordered.take(np.flatnonzero(new)).compact(), inverse


def same(a: ByteIds, rows_a: np.ndarray, b: ByteIds, rows_b: np.ndarray | None = None,
         words_a: np.ndarray | None = None, words_b: np.ndarray | None = None) -> np.ndarray:
    """Whether ``a[rows_a[i]] == b[rows_b[i]]``, for every i (``rows_b`` None: every id of
    ``b`` in turn). ``words_a``/``words_b``: the columns' :meth:`~ByteIds.words` with one
    k, when at hand."""
    rows_a = np.asarray(rows_a, dtype=np.int64)
    len_b = b.length if rows_b is None else b.length[rows_b]
    equal = a.length[rows_a] == len_b
    if words_a is None or words_b is None or words_a.shape[1] != words_b.shape[1]:
        k = max(a.key_words, b.key_words)
        words_a, words_b = a.words(k), b.words(k)
    wb = words_b if rows_b is None else words_b[rows_b]
    equal &= (words_a[rows_a] == wb).all(axis=1) if wb.shape[1] > 1 else words_a[rows_a, 0] == wb[:, 0]
    for i in np.flatnonzero(equal & (len_b > VECTOR_BYTES)).tolist():
        equal[i] = a[rows_a[i]] == b[i if rows_b is None else rows_b[i]]
    return equal


def _mix(h: np.ndarray) -> np.ndarray:
    """One splitmix64 finalizing step, in place (wraps by design); returns ``h``."""
    h ^= h >> np.uint64(31)
    h *= _M1
    h ^= h >> np.uint64(27)
    h *= _M2
    return h


def _words(buf: np.ndarray, start: np.ndarray, length: np.ndarray, words: int) -> np.ndarray:
    """(n, words) uint64: ``buf[start:start + length]`` as big-endian words, zero past each
    end, read as unaligned little-endian words; the few fields within ``8 * words`` bytes
    of the buffer's end are read from a padded copy of that end."""
    n = len(start)
    if n == 0:
        return np.empty((0, words), dtype=np.uint64)
    reach = 8 * words
    if len(buf) < reach + 8:
        buf = np.concatenate((buf, np.zeros(reach + 8, dtype=np.uint8)))
    safe = len(buf) - reach  # a field starting here or before reads inside the buffer
    late = np.flatnonzero(start > safe) if int(start.max()) > safe else None
    at = start if late is None else np.minimum(start, safe)
    out = np.empty((n, words), dtype=np.uint64)
    unaligned = np.ndarray((len(buf) - 7,), dtype="<u8", buffer=buf, strides=(1,))
    shortest = int(length.min())
    for j in range(words):
        column = unaligned[at + 8 * j] if j else unaligned[at]
        if shortest < 8 * (j + 1):  # some field ends before the word does
            column &= _low_mask(length - 8 * j)
        column.byteswap(inplace=True)
        if words == 1 and late is None:
            return column.reshape(n, 1)
        out[:, j] = column
    if late is not None:
        lo = int(start[late].min())
        tail = np.concatenate((buf[lo:], np.zeros(reach + 8, dtype=np.uint8)))
        out[late] = _words(tail, start[late] - lo, length[late], words)
    return out


def _low_mask(remaining: np.ndarray) -> np.ndarray:
    """Per id, a mask of the low ``min(max(remaining, 0), 8)`` bytes of a little-endian word."""
    bits = np.clip(remaining, 0, 8).astype(np.uint64) * np.uint64(8)
    return np.where(bits == 64, ~np.uint64(0), (np.uint64(1) << (bits & np.uint64(63))) - np.uint64(1))


def _pack(pieces, length: np.ndarray) -> ByteIds:
    """A packed column of the ids ``buf[start:start + length]`` of every (buf, start, length)
    piece: short ids gathered a few MB at a time, a long one copied as one slice (no index
    per byte of it)."""
    data = np.zeros(int(length.sum()) + PAD, dtype=np.uint8)
    out_start = np.zeros(len(length), dtype=np.int64)
    np.cumsum(length[:-1], out=out_start[1:])
    at = 0
    for buf, start, size in pieces:
        size = size.astype(np.int64)
        dest = out_start[at:at + len(size)]
        short = np.flatnonzero(size <= VECTOR_BYTES)
        for chunk in np.array_split(short, max(1, -(-len(short) * VECTOR_BYTES // _GATHER_BYTES))):
            s, n, d = start[chunk], size[chunk], dest[chunk]
            first = np.zeros(len(n), dtype=np.int64)
            np.cumsum(n[:-1], out=first[1:])
            pos = np.arange(int(n.sum()), dtype=np.int64) - np.repeat(first, n)  # byte within its id
            data[np.repeat(d, n) + pos] = buf[np.repeat(s, n) + pos]
        long = np.flatnonzero(size > VECTOR_BYTES)
        for s, n, d in zip(start[long].tolist(), size[long].tolist(), dest[long].tolist()):
            data[d:d + n] = buf[s:s + n]
        at += len(size)
    return ByteIds(data, length.astype(np.int32), 0, out_start)
