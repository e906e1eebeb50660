"""The canonical TSV and JSON-lines encodings: reading, writing, round trips, errors."""

from __future__ import annotations

import io

import numpy as np
import pytest

from rankeval_cli import DataError
from rankeval_cli.batch import concat
from rankeval_cli.formats import read, write
from rankeval_cli.formats.tsv import _read_blocks
from rankeval_cli.inputs import read_blocks

from conftest import tsv_bytes

ROWS = [
    ("s1", "sysA", 1, 2, "de-en"),
    ("s1", "sysB", 2, "", "de-en"),
    ("s1", "_ref", "", 1.5, "de-en"),
    ("s2", "sysA", 3, 0.25, "x\\ty"),
]
HEADER = ("group", "item", "gold", "pred", "lp")


def read_all(stream, fmt=None):
    return concat(list(read(stream, fmt=fmt)))


def test_tsv_values_blanks_and_extras():
    batch = read_all(tsv_bytes(ROWS, HEADER))
    assert batch.group.tolist() == ["s1", "s2"]
    assert batch.offsets.tolist() == [0, 3, 4]
    assert batch.item.tolist() == ["sysA", "sysB", "_ref", "sysA"]
    np.testing.assert_array_equal(batch.gold, [1, 2, np.nan, 3])
    np.testing.assert_array_equal(batch.pred, [2, np.nan, 1.5, 0.25])
    assert batch.extra["lp"].tolist() == ["de-en", "de-en", "de-en", "x\ty"]
    assert batch.line.tolist() == [2, 3, 4, 5]


def test_pred_column_is_optional():
    batch = read_all(tsv_bytes([("g", "a", 1), ("g", "b", 2)], ("group", "item", "gold")))
    assert np.isnan(batch.pred).all()


def convert(text: str, fmt: str) -> str:
    out = io.StringIO()
    write(read(io.BytesIO(text.encode())), out, fmt=fmt)
    return out.getvalue()


def test_tsv_to_jsonl_to_tsv_loses_nothing():
    original = tsv_bytes(ROWS, HEADER).getvalue().decode()
    assert convert(convert(original, "jsonl"), "tsv") == original


def test_jsonl_to_tsv_to_jsonl_loses_nothing():
    jsonl = convert(tsv_bytes(ROWS, HEADER).getvalue().decode(), "jsonl")
    assert convert(convert(jsonl, "tsv"), "jsonl") == jsonl


def test_jsonl_layout_and_scalars_broadcast():
    text = '{"group": 7, "items": ["a", "b"], "gold": [1, null], "lp": "de-en"}\n'
    batch = read_all(io.BytesIO(text.encode()))
    assert batch.group.tolist() == ["7"]
    assert batch.extra["lp"].tolist() == ["de-en", "de-en"]
    assert np.isnan(batch.pred).all() and np.isnan(batch.gold[1])
    out = io.StringIO()
    write([batch], out, fmt="jsonl")
    assert out.getvalue() == '{"group": "7", "items": ["a", "b"], "gold": [1, null], "pred": [null, null], "lp": ["de-en", "de-en"]}\n'


def test_groups_spanning_block_boundaries_stay_whole():
    rows = [(f"g{g}", f"i{i}", i + 1, (i * 7) % 5) for g in range(50) for i in range(g % 6 + 1)]
    data = tsv_bytes(rows).getvalue()
    for block in (7, 64, 1000):
        batches = list(_read_blocks(read_blocks(io.BytesIO(data), "t", block), "t"))
        whole = concat(batches)
        assert whole.group.tolist() == [f"g{g}" for g in range(50)]
        assert np.diff(whole.offsets).tolist() == [g % 6 + 1 for g in range(50)]
        assert whole.line.tolist() == list(range(2, len(rows) + 2))


def test_crlf_bom_and_blank_lines():
    data = b"\xef\xbb\xbfgroup\titem\tgold\tpred\r\ng\ta\t1\t2\r\n\r\ng\tb\t2\t1\r\n\n"
    batch = read_all(io.BytesIO(data))
    assert batch.item.tolist() == ["a", "b"]
    assert batch.line.tolist() == [2, 4]


@pytest.mark.parametrize("data, message", [
    (b"", "1: empty input"),
    (b"group\titem\tgold\tpred\n", None),
    (b"item\tgold\tpred\n", "1: header lacks column(s) group"),
    (b"group\titem\tgold\tgold\n", "1: header repeats column(s) gold"),
    (b"group\titem\tgold\tpred\ng\ta\t1\n", "2: expected 4 tab-separated fields, found 3"),
    (b"group\titem\tgold\tpred\ng\ta\t1\t2\t3\n", "2: expected 4 tab-separated fields, found 5"),
    (b"group\titem\tgold\tpred\ng\ta\tone\t2\n", "2: column 'gold': 'one' is not a finite number"),
    (b"group\titem\tgold\tpred\ng\ta\t1\tnan\n", "2: column 'pred': 'nan' is not a finite number"),
    (b"group\titem\tgold\tpred\ng\ta\t1\t1e999\n", "2: column 'pred': '1e999' is not a finite number"),
    (b"group\titem\tgold\tpred\ng\ta\t1\t2\ng\ta\t2\t1\n", "3: item 'a' appears twice in group 'g'"),
    (b"group\titem\tgold\tpred\ng\ta\t1\t2\nh\ta\t1\t1\ng\tb\t2\t1\n", "4: group 'g' appears again"),
    (b"group\titem\tgold\tpred\ng\ta\t1\t\xff\n", "2: invalid UTF-8"),
])
def test_tsv_errors_name_the_line(data, message):
    if message is None:
        assert list(read(io.BytesIO(data), fmt="tsv")) == []
        return
    with pytest.raises(DataError) as err:
        list(read(io.BytesIO(data), fmt="tsv"))
    assert message in str(err.value)


@pytest.mark.parametrize("line, message", [
    ("not json", "1: invalid JSON"),
    ("[1, 2]", "1: expected a JSON object"),
    ('{"items": ["a"], "gold": [1]}', "lacks the key 'group'"),
    ('{"group": "g", "items": ["a"], "gold": [1, 2]}', "'gold' must be a list of 1 numbers"),
    ('{"group": "g", "items": ["a"], "gold": [NaN]}', "invalid JSON"),
    ('{"group": "g", "items": ["a"], "gold": ["x"]}', "not a finite number"),
    ('{"group": "g", "items": ["a"], "gold": [1], "lp": ["x", "y"]}', "'lp' has 2 values for 1 items"),
])
def test_jsonl_errors_name_the_line(line, message):
    with pytest.raises(DataError) as err:
        list(read(io.BytesIO((line + "\n").encode()), fmt="jsonl"))
    assert message in str(err.value)


def test_repeated_group_across_jsonl_lines_is_an_error():
    text = '{"group": "g", "items": ["a"], "gold": [1]}\n{"group": "g", "items": ["b"], "gold": [1]}\n'
    with pytest.raises(DataError, match="2: group 'g' appears again"):
        list(read(io.BytesIO(text.encode())))


def test_repeated_group_found_across_batches():
    """Group ids are remembered across batches (hashes in sorted arrays)."""
    from rankeval_cli.formats import checked
    from rankeval_cli.batch import Batch

    def batch(groups, first_line):
        n = len(groups)
        return Batch(np.array(groups, dtype=object), np.arange(n + 1), np.array(["i"] * n, dtype=object),
                     np.ones(n), np.ones(n), {}, np.arange(first_line, first_line + n), "f")

    stream = [batch([f"g{i}" for i in range(k * 10, k * 10 + 10)], k * 10) for k in range(12)]
    stream.append(batch(["new", "g57"], 500))
    with pytest.raises(DataError, match="f:501: group 'g57' appears again"):
        list(checked(stream, "f"))


def test_duplicate_item_in_a_long_group_is_found():
    rows = [("g", f"i{k}", k, k) for k in range(40)] + [("g", "i7", 1, 1)]
    with pytest.raises(DataError, match=r"42: item 'i7' appears twice in group 'g'"):
        list(read(tsv_bytes(rows)))
