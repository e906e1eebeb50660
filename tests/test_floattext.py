"""Float64 arrays written as Python's ``repr`` writes each value (formats/floattext.py), and TREC
run lines made column by column (formats/trec/write.py) equal to formatting each line."""

from __future__ import annotations

import io

import numpy as np
import pytest

from rankeval_cli.formats.byteids import ByteIds
from rankeval_cli.formats.floattext import texts
from rankeval_cli.formats.trec.write import write_run


def values(rng, n: int) -> dict:
    """Seeded values of the kinds fused scores take, and the edges of the method."""
    tens = 10.0 ** rng.integers(-6, 18, n)
    return {
        "uniform": rng.random(n) * 3,
        "log-uniform, both signs": np.exp(rng.uniform(np.log(1e-6), np.log(1e18), n)) * rng.choice([-1, 1], n),
        "sums": rng.random((n, 10)).sum(axis=1),
        "reciprocal ranks": (1 / (60 + rng.integers(1, 1000, (n, 3)))).sum(axis=1),
        "short decimals": rng.integers(0, 10 ** 6, n) / 10.0 ** rng.integers(0, 9, n),
        "integers and halves": rng.integers(-10 ** 9, 10 ** 9, n) / 2.0,
        "large integers": rng.integers(0, 2 ** 53, n).astype(float),
        "any bit pattern": rng.integers(0, 2 ** 64 - 1, n, dtype=np.uint64).view(np.float64),
        "powers of ten and their neighbours": np.concatenate([tens, np.nextafter(tens, 0), np.nextafter(tens, np.inf)]),
        "powers of two and their neighbours": np.concatenate([p := 2.0 ** rng.integers(-20, 60, n),
                                                             np.nextafter(p, 0), np.nextafter(p, np.inf)]),
        "edges": np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1e-4, np.nextafter(1e-4, 0), 1e15, 1e16,
                           np.nextafter(1e16, 0), 9007199254740993.0, 5e-324, 2.2250738585072014e-308,
                           1.7976931348623157e308, 0.1, 0.2 + 0.1, 123456789012345.5, 1234567890123456.5,
                           0.30000000000000004, 2.0 ** -13, 2.0 ** 52, -(2.0 ** 53)]),
    }


@pytest.mark.parametrize("kind", list(values(np.random.default_rng(0), 1)))
def test_texts_equal_repr(kind):
    x = values(np.random.default_rng(2024), 20_000)[kind]
    got = [t.decode("ascii") for t in texts(x).tolist()]
    assert got == [repr(v) for v in x.tolist()]


def test_texts_of_nothing():
    assert texts(np.zeros(0)).tolist() == []


def test_write_run_equals_formatting_each_line():
    rng = np.random.default_rng(3)
    n = 70_000  # more than one chunk
    pool = ["d1", "é-doc", "€uro", "x" * 40, "D" * 33, "12345678"]
    docs = [pool[i] for i in rng.integers(0, len(pool), n)]
    queries = np.array([f"q{i}" for i in rng.integers(0, 30, n)], dtype=object)
    ranks = rng.integers(1, 3000, n)
    scores = rng.random(n) * 10 - 2
    expected = "".join(f"{q} Q0 {d} {r} {s!r} tag\n" for q, d, r, s in zip(queries, docs, ranks.tolist(),
                                                                           scores.tolist()))
    for doc_column in (np.array(docs), ByteIds.from_list([d.encode() for d in docs]), np.array(docs, dtype=object)):
        out = io.StringIO()
        write_run(out, queries, doc_column, ranks, scores, "tag")
        assert out.getvalue() == expected
    out = io.StringIO()
    write_run(out, queries[:3], np.array(docs[:3]), np.array([1.5, 2.0, 3.0]), np.array([3, 2, 1]), "t", digits=None)
    assert out.getvalue() == "".join(f"{q} Q0 {d} {r} {s} t\n" for q, d, r, s in
                                     zip(queries[:3], docs[:3], [1.5, 2.0, 3.0], [3, 2, 1]))


def test_write_run_keeps_a_nul_inside_an_id():
    """Lines are copied into one byte matrix whose NUL padding is dropped; an id holding a NUL
    byte (which no reader accepts, but a caller may pass) is written as given."""
    out = io.StringIO()
    write_run(out, np.array([b"q\x001", b"q2"]), np.array([b"d1", b"\x00d"]), np.array([1, 2]), np.array([0.5, 1e-7]),
              "t")
    assert out.getvalue() == "q\x001 Q0 d1 1 0.5 t\nq2 Q0 \x00d 2 1e-07 t\n"
