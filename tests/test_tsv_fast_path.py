"""The TSV reader's fast path (plain ASCII blocks) gives exactly what the general path gives.

Random canonical TSVs (column orders, optional pred and extra columns, empty fields,
long and empty ids, numbers the fast number parser leaves to ``float()``) are read
with several block sizes, once as they are and once with the fast path switched
off; the batches must be identical, and so must any error.
"""

from __future__ import annotations

import io
import random

import numpy as np
import pytest

from rankeval_cli.batch import concat
from rankeval_cli.errors import DataError
from rankeval_cli.formats import numparse, tsv
from rankeval_cli.inputs import read_blocks


def _read(data: bytes, block_bytes: int, monkeypatch, fast: bool):
    with monkeypatch.context() as patch:
        if not fast:
            patch.setattr(tsv, "_parse_plain", lambda *args, **kwargs: None)
        try:
            return list(tsv._read_blocks(read_blocks(io.BytesIO(data), "x.tsv", block_bytes), "x.tsv"))
        except DataError as exc:
            return f"DataError: {exc}"


def _same(a, b) -> None:
    if isinstance(a, str) or isinstance(b, str):
        assert a == b
        return
    assert bool(a) == bool(b)
    if not a:
        return
    x, y = concat(a), concat(b)
    assert x.group.tolist() == y.group.tolist()
    assert x.offsets.tolist() == y.offsets.tolist()
    assert x.item.tolist() == y.item.tolist()
    assert np.array_equal(x.gold, y.gold, equal_nan=True)
    assert np.array_equal(x.pred, y.pred, equal_nan=True)
    assert list(x.extra) == list(y.extra)
    assert all(x.extra[k].tolist() == y.extra[k].tolist() for k in x.extra)
    assert x.line.tolist() == y.line.tolist()


def _random_tsv(rng: random.Random) -> bytes:
    columns = ["group", "item", "gold"] + (["pred"] if rng.random() < 0.8 else []) \
        + (["lp"] if rng.random() < 0.5 else [])
    rng.shuffle(columns)
    lines = ["\t".join(columns)]
    for g in range(rng.randint(0, 40)):
        group = rng.choice(["g", "", "x" * rng.randint(1, 20)]) + str(g)
        for i in range(rng.randint(1, 7)):
            row = {"group": group,
                   "item": rng.choice(["a", f"sys{i}", "", "item-" + "z" * rng.randint(0, 30) + str(i)]),
                   "gold": rng.choice(["1", "2.5", "", "-3", "0.125", "10", "1e3", " 7", "0012"]),
                   "pred": rng.choice(["1", "", "4.25", "-0.5", "123456.789", "+2", ".5"]),
                   "lp": rng.choice(["de-en", "", "cs-en"])}
            lines.append("\t".join(row[c] for c in columns))
    if rng.random() < 0.1:
        lines.insert(rng.randint(1, len(lines)), "")  # a blank line: general path only
    return ("\n".join(lines) + ("\n" if rng.random() < 0.8 else "")).encode()


@pytest.mark.parametrize("seed", range(4))
def test_fast_path_equals_general_path(seed, monkeypatch):
    rng = random.Random(seed)
    for _ in range(40):
        data = _random_tsv(rng)
        for block_bytes in (32, 200, 1 << 16):
            _same(_read(data, block_bytes, monkeypatch, fast=True), _read(data, block_bytes, monkeypatch, fast=False))


def test_fast_path_is_taken_for_plain_blocks():
    block = b"g1\ta\t1\t2\ng1\tb\t2\t1\ng2\ta\t1\t1\n"
    buf = np.frombuffer(block, dtype=np.uint8)
    batch, carry = tsv._parse_plain(block, buf, 2, ["group", "item", "gold", "pred"], "x", final=False)
    assert batch.group.tolist() == ["g1"] and batch.item.tolist() == ["a", "b"]
    assert carry == (b"g2\ta\t1\t1\n", 4)
    for other in (b"g1\ta\t1\t2\r\n", b"g1\ta\\tb\t1\t2\n", "g1\tä\t1\t2\n".encode(), b"g1\ta\t1\n", b"\n"):
        assert tsv._parse_plain(other, np.frombuffer(other, dtype=np.uint8), 2,
                                ["group", "item", "gold", "pred"], "x", final=True) is None


def test_number_parser_matches_float():
    """The vectorized decimal parser gives float()'s value or defers the field to float()."""
    rng = random.Random(7)
    fields = [str(rng.randint(-10**15, 10**15)) for _ in range(300)]
    fields += [repr(rng.uniform(-1e3, 1e3))[:rng.randint(1, 17)] for _ in range(300)]
    fields += ["", "-", "+", ".", "1.", ".5", "+.5", "-0", "00012", "1.2.3", "--1", "9" * 15, "9" * 16, "1e5"]
    text = "\t".join(fields).encode()
    lengths = np.array([len(f) for f in fields])
    start = np.concatenate(([0], np.cumsum(lengths + 1)[:-1]))
    values, slow = numparse.parse_fields(np.frombuffer(text, dtype=np.uint8), start, start + lengths)
    for field, value, deferred in zip(fields, values.tolist(), slow.tolist()):
        if field == "":
            assert np.isnan(value) and not deferred
        elif not deferred:
            assert value == float(field), field


@pytest.mark.parametrize("seed", range(3))
def test_holding_blocks_of_a_long_group_changes_nothing(seed, monkeypatch):
    """Blocks that only continue the carried group are held unparsed; the batches are the same."""
    rng = random.Random(100 + seed)
    for _ in range(20):
        lines = ["group\titem\tgold\tpred"]
        for g in range(rng.randint(1, 4)):
            group = rng.choice(["g", "long-group-id-"]) + str(g)
            lines += [f"{group}\ti{i}\t{rng.randint(1, 9)}\t{rng.choice(['', '1', '2.5'])}"
                      for i in range(rng.randint(1, 60))]
        data = ("\n".join(lines) + "\n").encode()
        for block_bytes in (16, 64, 256):
            held = _read(data, block_bytes, monkeypatch, fast=True)
            with monkeypatch.context() as patch:
                patch.setattr(tsv, "_continues", lambda *args: False)
                parsed = _read(data, block_bytes, monkeypatch, fast=True)
            _same(held, parsed)


@pytest.mark.parametrize("pool", ["0123456789", "123-", "12.", "1 ", "5+"])
def test_one_character_columns_match_float(pool):
    """Columns of one character each (digits: ranks, grades) take a shortcut; others the general path."""
    rng = random.Random(pool)
    for _ in range(50):
        fields = [rng.choice(pool) for _ in range(rng.randint(1, 40))]
        text = "\t".join(fields).encode()
        start = np.arange(len(fields)) * 2
        values, slow = numparse.parse_fields(np.frombuffer(text, dtype=np.uint8), start, start + 1)
        for field, value, deferred in zip(fields, values.tolist(), slow.tolist()):
            if deferred:
                assert field in "-+. "
            else:
                assert value == float(field), field


@pytest.mark.parametrize("late_values", [False, True])
def test_strings_from_fixed_fields_match_a_plain_decode(late_values):
    """Fixed-width gathering and the distinct-value shortcut give every field's text,
    also when values first appear after the rows the shortcut looks at."""
    rng = random.Random(late_values)
    texts = [rng.choice(["sys1", "sys2", "a-much-longer-system-name", "x"]) for _ in range(3000)]
    if late_values:
        texts[2500] = "appears-late"
        texts[2999] = "sys10"
    data = ("\t".join(texts) + "\t").encode()
    lengths = np.array([len(t) for t in texts])
    start = np.concatenate(([0], np.cumsum(lengths + 1)[:-1]))
    padded = np.concatenate((np.frombuffer(data, dtype=np.uint8), np.zeros(tsv.MAX_FIXED, dtype=np.uint8)))
    fixed = tsv._fixed(padded, start, lengths)
    assert fixed.tolist() == [t.encode() for t in texts]
    assert tsv._strings(fixed).tolist() == texts
    short = tsv._fixed(padded, start[lengths <= 4], lengths[lengths <= 4])  # 8-byte keys
    assert tsv._strings(short).tolist() == [t for t in texts if len(t) <= 4]
