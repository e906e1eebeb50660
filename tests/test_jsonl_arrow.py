"""JSON lines through pyarrow (the ``arrow`` extra) against the standard decoder: the same
batches on seeded random files, the same error (file and line) where a block holds anything
the fast path does not take, and numbers parsed to the same float64 bit for bit."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from rankeval_cli.errors import DataError
from rankeval_cli.formats import jsonl, jsonl_arrow

pytest.importorskip("pyarrow", reason="the arrow extra (pip install rankeval-cli[arrow])")

TEXTS = ["a", "sys 1", 'q"uote', "back\\slash", "tab\there", "é", "日本", "", "\u2028", "x" * 30]


def read(text: str, arrow: bool, monkeypatch) -> list:
    monkeypatch.setattr(jsonl_arrow, "MIN_BYTES", 0 if arrow else 1 << 62)
    return list(jsonl.read_jsonl(io.BytesIO(text.encode("utf-8"))))


def flat(batches):
    out = {}
    for name in ("group", "item", "gold", "pred", "line"):
        out[name] = np.concatenate([getattr(b, name) for b in batches]).tolist()
    out["sizes"] = np.concatenate([np.diff(b.offsets) for b in batches]).tolist()
    out["extra"] = {k: np.concatenate([b.extra[k] for b in batches]).tolist() for k in batches[0].extra}
    return out


def same(a, b) -> bool:
    nan = lambda v: [repr(x) for x in v]  # noqa: E731  (NaN == NaN, -0.0 != 0.0)
    return all(a[k] == b[k] for k in a if k not in ("gold", "pred")) and \
        all(nan(a[k]) == nan(b[k]) for k in ("gold", "pred"))


def number(rng):
    kind = rng.integers(0, 5)
    if kind == 0:
        return int(rng.integers(-5, 6))
    if kind == 1:
        return float(rng.standard_normal() * 10.0 ** rng.integers(-300, 300))
    if kind == 2:
        return None
    if kind == 3:
        return int(rng.integers(-2**62, 2**62)) * 3
    return round(float(rng.random()), int(rng.integers(0, 6)))


def random_lines(rng, n, extras=("lp",), pred="list"):
    lines = []
    for g in range(n):
        k = int(rng.integers(0, 6))
        record = {"group": f"g{g}{TEXTS[g % len(TEXTS)]}", "items": [TEXTS[i] for i in rng.integers(0, 10, k)],
                  "gold": [number(rng) for _ in range(k)]}
        if pred == "list" or (pred == "some" and g % 3):
            record["pred"] = [number(rng) for _ in range(k)]
        elif pred == "some" and g % 2:
            record["pred"] = None
        for key in extras:
            record[key] = [TEXTS[i] for i in rng.integers(0, 10, k)] if key != "scalar" else "de-en"
        lines.append(json.dumps(record, ensure_ascii=bool(g % 2)))
    return lines


@pytest.mark.parametrize("extras, pred", [((), "list"), (("lp", "scalar"), "some"), (("lp",), "none")])
def test_the_same_batches_as_the_standard_decoder(extras, pred, monkeypatch):
    rng = np.random.default_rng(len(extras) * 7 + len(pred))
    lines = random_lines(rng, 20_000, extras, pred)
    text = "\n".join(lines[:5000]) + "\n\n\r\n" + "\r\n".join(lines[5000:]) + "\n"
    exact, fast = flat(read(text, False, monkeypatch)), flat(read(text, True, monkeypatch))
    assert same(exact, fast)


def test_numbers_parse_to_the_nearest_float64_as_python_does(monkeypatch):
    rng = np.random.default_rng(5)
    values = rng.standard_normal(30_000) * 10.0 ** rng.integers(-307, 307, 30_000)
    digits = rng.integers(1, 25, 30_000)
    texts = [repr(float(v)) for v in values] + [f"{float(v):.{int(d)}g}" for v, d in zip(values, digits)]
    texts += [str(int(v)) for v in rng.integers(-2**63, 2**63 - 1, 10_000, dtype=np.int64)] + ["-0.0", "1E2"]
    lines = [f'{{"group": "g{i}", "items": ["a", "b"], "gold": [{texts[2 * i]}, {texts[2 * i + 1]}]}}'
             for i in range(len(texts) // 2)]
    got = flat(read("\n".join(lines) + "\n", True, monkeypatch))["gold"]
    want = [float(json.loads(t)) for t in texts]  # as the standard decoder reads them (-0 is the integer 0)
    assert np.array_equal(np.array(got).view(np.int64), np.array(want).view(np.int64))


GOOD = '{"group": "g%d", "items": ["a", "b"], "gold": [1, 2], "pred": [0.5, null], "lp": ["x", "y"]}'


@pytest.mark.parametrize("bad", [
    '{"group": "g", "items": ["a"], "gold": [NaN], "pred": [1], "lp": ["x"]}',
    '{"group": "g", "items": ["a"], "gold": [1e400], "pred": [1], "lp": ["x"]}',
    '{"group": "g", "items": ["a"], "gold": [1], "pred": [1], "lp": ["x"]} {"group": "h"}',
    '{"group": "g", "items": ["a"], "pred": [1], "lp": ["x"]}',
    '{"group": "g", "items": ["a"], "gold": [1, 2], "pred": [1], "lp": ["x"]}',
    '{"group": "g", "items": ["a"], "gold": [1], "pred": [1], "lp": ["x"], "more": ["y"]}',
    '{"group": "g", "items": ["a"], "gold": [1], "pred": [1], "lp": ["\\ud800"]}',
    '{"group": "g", "items": ["a"], "gold": [1], "pred": [1], "lp": ["x"],}',
    '  {"group": "g", "items": ["a"], "gold": [1], "pred": [1], "lp": ["x"]}',
    '{"group": 7, "items": [3], "gold": [1], "pred": [1], "lp": ["x"]}',
    '{"group": "g", "items": ["a"], "gold": ["1"], "pred": [1], "lp": ["x"]}',
    '{"group": "g", "items": ["a"], "gold": [true], "pred": [1], "lp": ["x"]}',
    '{"group": "g", "items": [], "gold": [], "pred": [], "lp": []}',
    '{"group": "g", "items": ["a"], "gold": [1], "pred": 1, "lp": ["x"]}',
    '{"group": "g", "items": ["a"], "gold": [[1]], "pred": [1], "lp": ["x"]}',
    '{"group": "g", "items": ["a"], "gold": [1], "pred": [1], "lp": [null]}',
    '{"group": "g", "items": ["a"], "gold": [1], "pred": [1], "lp": [2]}',
    '{"group": "g", "items": ["a"], "gold": [123456789012345678901234567890], "pred": [1], "lp": ["x"]}',
    '{"group": "g", "items": ["a"], "gold": [-0], "pred": [1], "lp": ["x"]}',
    '{"group": "g", "items": ["a"], "gold": [1], "pred": [1], "lp": "x", "lp": ["y"]}',
])
def test_a_block_the_fast_path_does_not_take_reads_as_the_standard_decoder_reads_it(bad, monkeypatch):
    text = "\n".join([GOOD % i for i in range(40)] + [bad] + [GOOD % i for i in range(40, 50)]) + "\n"
    outcomes = []
    for arrow in (False, True):
        try:
            outcomes.append(("ok", flat(read(text, arrow, monkeypatch))))
        except DataError as exc:
            outcomes.append(("error", str(exc), exc.line))
    assert outcomes[0][0] == outcomes[1][0]
    assert same(outcomes[0][1], outcomes[1][1]) if outcomes[0][0] == "ok" else outcomes[0] == outcomes[1]
