"""The JSON-lines reader and writer against plain per-group ``json`` code.

The writer lays out every group's text in one array; the reference builds each
group's dict and calls ``json.dumps``, as the first version did. The reader's
plain path converts whole flat lists; the reference is its record-by-record
path (`_checked_batch`), which must agree on every plainly valid batch.
"""

import io
import json
import math

import numpy as np
import pytest

from rankeval_cli.batch import Batch, offsets_from_sizes
from rankeval_cli.errors import DataError
from rankeval_cli.formats import jsonl

TEXTS = ["a", "b", "sys 1", 'q"uote', "back\\slash", "tab\there", "new\nline", "é", "日本", "\x01", "", "\u2028"]
VALUES = [1.0, 2.0, 0.0, -0.0, -3.0, 0.5, 1e-7, 1e16, 2.0**53, -2.0**53 + 1, 1e300, 123456789.125, math.nan]


def random_batch(rng, extras=("lp",)):
    sizes = rng.integers(0, 6, int(rng.integers(1, 30)))
    n = int(sizes.sum())
    pick = lambda pool, size: np.array([pool[i] for i in rng.integers(0, len(pool), size)], dtype=object)  # noqa: E731
    return Batch(group=np.array([f"g{i}{pick(TEXTS, 1)[0]}" for i in range(len(sizes))], dtype=object),
                 offsets=offsets_from_sizes(sizes), item=pick(TEXTS, n),
                 gold=np.array(pick(VALUES, n), dtype=float), pred=np.array(pick(VALUES, n), dtype=float),
                 extra={k: pick(TEXTS, n) for k in extras}, line=None, source="x")


def reference_lines(batch):
    """One ``json.dumps`` per group, numbers integral → int and NaN → null."""
    def number(v):
        if math.isnan(v):
            return None
        return int(v) if v == round(v) and abs(v) < 2.0**53 else v

    out = []
    for g, group in enumerate(batch.group.tolist()):
        a, b = batch.offsets[g], batch.offsets[g + 1]
        record = {"group": group, "items": batch.item[a:b].tolist(),
                  "gold": [number(v) for v in batch.gold[a:b].tolist()],
                  "pred": [number(v) for v in batch.pred[a:b].tolist()]}
        record.update({k: v[a:b].tolist() for k, v in batch.extra.items()})
        out.append(json.dumps(record, ensure_ascii=False) + "\n")
    return "".join(out)


@pytest.mark.parametrize("extras", [(), ("lp",), ("lp", "sy\"s")])
def test_the_writer_writes_what_json_dumps_writes(extras):
    rng = np.random.default_rng(len(extras))
    for _ in range(300):
        batch = random_batch(rng, extras)
        out = io.StringIO()
        jsonl.write_jsonl([batch], out)
        assert out.getvalue() == reference_lines(batch)


def test_written_lines_read_back_to_the_same_batch():
    rng = np.random.default_rng(7)
    for _ in range(100):
        batch = random_batch(rng)
        out = io.StringIO()
        jsonl.write_jsonl([batch], out)
        (back,) = jsonl.read_jsonl(io.BytesIO(out.getvalue().encode("utf-8")))
        nonempty = np.diff(batch.offsets) > 0  # the reader drops nothing, but compare groups that hold rows
        assert back.group.tolist() == batch.group.tolist()
        assert back.item.tolist() == batch.item.tolist()
        np.testing.assert_array_equal(back.gold, batch.gold)
        np.testing.assert_array_equal(back.pred, batch.pred)
        assert back.extra["lp"].tolist() == batch.extra["lp"].tolist()
        assert nonempty.sum() <= len(back.group)


def records_of(text):
    lines = [line for line in text.splitlines()]
    return [json.loads(line) for line in lines], list(range(1, len(lines) + 1))


@pytest.mark.parametrize("text", [
    '{"group": "g", "items": ["a", "b"], "gold": [1, 2.5], "pred": [null, 3]}\n'
    '{"group": "h", "items": [], "gold": [], "pred": []}\n',
    '{"group": "g", "items": ["a"], "gold": [1]}\n',                      # no pred
    '{"group": "g", "items": ["a"], "gold": [1], "pred": null}\n',        # pred null
    '{"group": "g", "items": ["a"], "gold": [1], "lp": ["de-en"]}\n',
])
def test_the_plain_path_agrees_with_the_record_by_record_path(text):
    records, numbers = records_of(text)
    extras = [k for k in records[0] if k not in jsonl.CORE_KEYS]
    plain = jsonl._plain_batch(numbers, records, extras, "x")
    checked = jsonl._checked_batch(numbers, records, extras, "x")
    assert plain is not None
    for column in ("group", "item"):
        assert getattr(plain, column).tolist() == getattr(checked, column).tolist()
    for column in ("gold", "pred", "offsets", "line"):
        np.testing.assert_array_equal(getattr(plain, column), getattr(checked, column))
    assert {k: v.tolist() for k, v in plain.extra.items()} == {k: v.tolist() for k, v in checked.extra.items()}


@pytest.mark.parametrize("line, message", [
    ('{"group": 7, "items": ["a"], "gold": [1]}', None),                 # a number as id: converted
    ('{"group": "g", "items": [3], "gold": [1]}', None),
    ('{"group": "g", "items": ["a"], "gold": ["1"]}', "'gold' holds \"1\""),
    ('{"group": "g", "items": ["a"], "gold": [true]}', "'gold' holds true"),
    ('{"group": "g", "items": ["a"], "gold": [1e400]}', "'gold' holds"),
    ('{"group": "g", "items": ["a"], "gold": [1, 2]}', "'gold' must be a list of 1"),
    ('{"group": "g", "items": ["a"], "gold": [10000000000000000000000000000000000000000' + "0" * 300 + ']}',
     "'gold' holds"),
])
def test_anything_but_plain_values_takes_the_checked_path(line, message):
    records, numbers = records_of(line)
    assert jsonl._plain_batch(numbers, records, [], "x") is None
    if message is None:
        batch = jsonl._checked_batch(numbers, records, [], "x")
        assert batch.group.dtype == object and all(isinstance(v, str) for v in (*batch.group, *batch.item))
    else:
        with pytest.raises(DataError, match=message.replace("(", r"\(")):
            jsonl._checked_batch(numbers, records, [], "x")


def test_a_bad_line_among_good_ones_is_named_by_its_number():
    good = '{"group": "g%d", "items": ["a"], "gold": [1]}\n'
    text = "".join(good % i for i in range(5)) + '{"group": "x", "items": ["a"], "gold": [1],}\n' + good % 9
    with pytest.raises(DataError) as caught:
        list(jsonl.read_jsonl(io.BytesIO(text.encode())))
    assert caught.value.line == 6


def test_a_line_holding_two_values_is_not_split_across_records():
    text = '{"group": "g", "items": ["a"], "gold": [1]}, {"group": "h", "items": ["a"], "gold": [1]}\n'
    with pytest.raises(DataError) as caught:
        list(jsonl.read_jsonl(io.BytesIO(text.encode())))
    assert caught.value.line == 1 and "invalid JSON" in str(caught.value)


def test_infinite_values_are_written_as_null_like_nan():
    """JSON has no infinity; the per-group json.dumps writer wrote None for every non-finite value."""
    batch = Batch(group=np.array(["g"], dtype=object), offsets=offsets_from_sizes(np.array([3])),
                  item=np.array(["a", "b", "c"], dtype=object), gold=np.array([math.inf, 1.0, math.nan]),
                  pred=np.array([-math.inf, 2.5, 3.0]), extra={}, line=None, source="x")
    out = io.StringIO()
    jsonl.write_jsonl([batch], out)
    assert out.getvalue() == '{"group": "g", "items": ["a", "b", "c"], "gold": [null, 1, null], "pred": [null, 2.5, 3]}\n'
