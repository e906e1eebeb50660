"""ByteIds (formats/byteids.py) against Python's own bytes: order, equality, hashing,
taking, packing, in both layouts and across the vectorized/long boundary."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from robust import fuzz_settings
from rankeval_cli.formats.byteids import FIXED_BYTES, VECTOR_BYTES, ByteIds, same

#: lengths around every boundary: a word, the fixed layout, the vectorized words
LENGTHS = [1, 2, 7, 8, 9, 15, 16, 17, FIXED_BYTES - 1, FIXED_BYTES, FIXED_BYTES + 1, VECTOR_BYTES - 1, VECTOR_BYTES,
           VECTOR_BYTES + 1, 200]
#: ids share long prefixes (so that order and equality are decided late) and hold any byte but NUL
one_id = st.builds(lambda n, tail, fill: (fill * n)[:max(n - len(tail), 0)] + tail[:n],
                   st.sampled_from(LENGTHS), st.binary(min_size=0, max_size=3).map(lambda b: b.replace(b"\0", b"\1")),
                   st.sampled_from([b"a", b"ab", b"\xff", b"\x01"]))
id_lists = st.lists(one_id, max_size=25)


def column(values: list[bytes], split: int | None = None) -> ByteIds:
    """From a buffer of fields with separators (some ids end near the buffer's end), or as
    two columns concatenated."""
    if split is not None and 0 < split < len(values):
        return ByteIds.concat([column(values[:split]), column(values[split:])])
    buf = np.frombuffer(b" ".join(values), dtype=np.uint8)
    length = np.array([len(v) for v in values], dtype=np.int64)
    start = np.concatenate(([0], np.cumsum(length + 1)[:-1])).astype(np.int64) if values else np.zeros(0, np.int64)
    return ByteIds.from_fields(buf, start, start + length)


@given(values=id_lists, split=st.integers(0, 25))
@fuzz_settings(150)
def test_column_holds_the_ids(values, split):
    ids = column(values, split)
    assert ids.tolist() == values
    assert [ids[i] for i in range(len(values))] == values
    assert ids.longest == max(map(len, values), default=0)
    layout_fixed = ids.width > 0
    assert layout_fixed == (max(map(len, values), default=0) <= FIXED_BYTES)


@given(values=id_lists, split=st.integers(0, 25), data=st.data())
@fuzz_settings(150)
def test_order_and_unique_are_strcmp(values, split, data):
    ids = column(values, split)
    if values:
        order = np.lexsort(ids.sort_keys())
        assert [values[i] for i in order] == sorted(values)
        order = np.lexsort(ids.sort_keys(descending=True))
        assert [values[i] for i in order] == sorted(values, reverse=True)
    distinct, inverse = ids.unique()
    assert distinct.tolist() == sorted(set(values))
    assert [distinct.tolist()[i] for i in inverse] == values
    rows = data.draw(st.lists(st.integers(0, max(len(values) - 1, 0)), max_size=10)) if values else []
    taken = ids.take(np.array(rows, dtype=np.int64))
    assert taken.tolist() == [values[i] for i in rows] == taken.compact().tolist()
    assert taken.adjacent_same().tolist() == [rows and values[a] == values[b] for a, b in zip(rows, rows[1:])]


@given(values=id_lists, other=id_lists, data=st.data())
@fuzz_settings(150)
def test_equality_and_hash_do_not_depend_on_the_layout(values, other, data):
    a, b = column(values), column(other + values, split=len(other))
    assert (b.slice(len(other), len(other) + len(values)).hash() == a.hash()).all()
    seed = np.array(data.draw(st.lists(st.integers(0, 3), min_size=len(values), max_size=len(values))),
                    dtype=np.int64)
    h = a.hash(seed)
    for i in range(len(values)):
        for j in range(len(values)):
            if values[i] == values[j] and seed[i] == seed[j]:
                assert h[i] == h[j]
    if values and other:
        pairs = data.draw(st.lists(st.tuples(st.integers(0, len(values) - 1), st.integers(0, len(other) - 1)),
                                   max_size=10))
        rows_a = np.array([p[0] for p in pairs], dtype=np.int64)
        rows_b = np.array([p[1] for p in pairs], dtype=np.int64)
        assert same(a, rows_a, column(other), rows_b).tolist() == [values[i] == other[j] for i, j in pairs]


def test_distinct_ids_hash_apart():
    """Prefixes, ids differing in their last byte, long ids differing past the vectorized words."""
    values = [b"a" * n for n in range(1, 80)] + [b"a" * 70 + bytes([c]) for c in range(1, 200) if c != 97] + \
        [b"x" * 64 + b"y", b"x" * 64 + b"z", b"x" * 65]
    assert len(set(values)) == len(values)
    h = column(values).hash()
    assert len(set(h.tolist())) == len(values)


def test_a_field_at_the_very_end_of_the_buffer():
    buf = np.frombuffer(b"q1 abcdefghij", dtype=np.uint8)
    ids = ByteIds.from_fields(buf, np.array([0, 3]), np.array([2, 13]))
    assert ids.tolist() == [b"q1", b"abcdefghij"] and ids.width == 16


def test_numpy_bytes_array_manners():
    """Indexing, comparison with one id and the explicit S array behave as a numpy ``S``
    array's would (for code written against one)."""
    values = [b"ceci", b"x" * 70, b"ab", b"ceci"]
    ids, plain = ByteIds.from_list(values), np.array(values)
    assert (ids == b"ceci").tolist() == (plain == b"ceci").tolist() and (ids != "ab").tolist() == [True, True, False,
                                                                                                   True]
    assert ids[1:3].tolist() == plain[1:3].tolist() and ids[np.array([3, 0])].tolist() == [b"ceci", b"ceci"]
    assert ids[plain == b"ab"].tolist() == [b"ab"] and ids[-1] == b"ceci"
    assert np.asarray(ids).tolist() == values and ids.dtype == plain.dtype
    assert ByteIds.of(plain).tolist() == values == ByteIds.of([v.decode() for v in values]).tolist()
