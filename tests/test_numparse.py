"""The vectorized decimal parser against Python's ``float()`` (the slow obvious
implementation): every value it returns is ``float()``'s, bit for bit and sign of zero
included; long mantissas (``repr`` of doubles, 16–18 digits) through one long-double
division; fields exactly halfway between two doubles left to ``float()``; and
``parse_exact``'s first bad field."""

from __future__ import annotations

import math
import random
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np
import pytest

from rankeval_cli.formats import numparse


def _buffer(fields):
    text = " ".join(fields).encode()
    lengths = np.array([len(f.encode()) for f in fields], dtype=np.int64)
    start = np.concatenate(([0], np.cumsum(lengths + 1)[:-1])).astype(np.int64)
    return np.frombuffer(text, dtype=np.uint8), start, start + lengths


def _same(value: float, text: str) -> bool:
    expected = float(text)
    return value == expected and math.copysign(1, value) == math.copysign(1, expected)


def _check(fields) -> int:
    """Assert every value the fast parser gives is float()'s; returns how many it deferred."""
    values, slow = numparse.parse_fields(*_buffer(fields))
    for text, value, deferred in zip(fields, values.tolist(), slow.tolist()):
        if text == "":
            assert math.isnan(value) and not deferred
        elif not deferred:
            assert _same(value, text), (text, value)
    return int(slow.sum())


def _halfway_decimals(rng, count):
    """Decimal texts (at most 18 significant digits) exactly halfway between two doubles."""
    getcontext().prec = 60
    out = [str(2**53 + 2 * k + 1) for k in range(count)]  # odd integers just above 2^53
    while len(out) < 2 * count:
        x = rng.uniform(1, 1000) * 2.0 ** -rng.randint(0, 3)
        half = (Fraction(x) + Fraction(float(np.nextafter(x, np.inf)))) / 2
        text = format(Decimal(half.numerator) / Decimal(half.denominator), "f")
        if len(text.replace(".", "").lstrip("0")) <= 18:
            out.append(text)
        else:
            out.append(str(2**54 + 4 * len(out) + 2))  # halfway between doubles 4 apart
    return out


def test_hand_cases():
    cases = ["0", "-0", "+0.0", "12.5", "-0.25", ".5", "5.", "007", "123456789012345", "1234567890123456",
             "0.1", "0.30000000000000004", "9007199254740993", "-9007199254740993.0", "0.000000000000000000001"]
    assert _check(cases) <= 2  # only the halfway ones may be deferred


def test_random_short_and_long_mantissas_equal_float():
    rng = random.Random(2024)
    fields = []
    for _ in range(20000):
        kind = rng.random()
        if kind < 0.4:
            text = repr(rng.uniform(-1, 1) * 10 ** rng.randint(-6, 14))
            fields.append(text if "e" not in text else "1.5")
        elif kind < 0.7:
            digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 22)))
            at = rng.randint(0, len(digits))
            fields.append(rng.choice(["", "-", "+"]) + digits[:at] + rng.choice([".", ""]) + digits[at:])
        else:
            fields.append(f"{rng.uniform(-1e4, 1e4):.{rng.randint(0, 17)}f}")
    _check(fields)
    values, slow = numparse.parse_fields(*_buffer(fields))
    for text, deferred in zip(fields, slow.tolist()):
        if deferred and numparse.LONG_EXACT:  # only what the module leaves to float()
            assert not _ours(text), text


def _ours(text: str) -> bool:
    """Whether the fast parser must take the field: plain syntax, at most 23 bytes and 18
    significant digits, and not within a 64-bit rounding step of a point halfway between
    two doubles (where the long-double quotient may land on that point)."""
    body = text.lstrip("+-")
    digits = body.replace(".", "", 1)
    if len(text) > 23 or not digits.isdigit() or len(text) - len(body) > 1:
        return False
    if len(digits.lstrip("0")) > 18:
        return False
    exact = Fraction(text)
    value = float(text)
    neighbour = float(np.nextafter(value, math.inf if exact > Fraction(value) else -math.inf))
    halfway = (Fraction(value) + Fraction(neighbour)) / 2
    return abs(exact - halfway) > Fraction(2) ** (math.frexp(value)[1] - 62) if value else True


def test_halfway_fields_are_deferred_or_exact():
    rng = random.Random(7)
    fields = _halfway_decimals(rng, 300)
    values, slow = numparse.parse_fields(*_buffer(fields))
    for text, value, deferred in zip(fields, values.tolist(), slow.tolist()):
        assert deferred or _same(value, text), text
    assert not slow[:300].any()  # 2^53 + odd, an integer: the long double holds it exactly
    if numparse.LONG_EXACT:  # with a point the quotient may have been rounded onto the halfway point
        _, slow = numparse.parse_fields(*_buffer(["9007199254740993.0", "4503599627370497.5", "-0.1"]))
        assert slow.tolist() == [True, True, False]


def test_without_extended_long_double_long_mantissas_go_to_the_cast(monkeypatch):
    monkeypatch.setattr(numparse, "LONG_EXACT", False)
    rng = random.Random(3)
    fields = [repr(rng.uniform(0, 30)) for _ in range(500)]
    assert _check(fields) > 0
    values, bad = numparse.parse_exact(*_buffer(fields))
    assert bad is None and all(_same(v, t) for v, t in zip(values.tolist(), fields))


@pytest.mark.parametrize("seed", range(5))
def test_parse_exact_equals_float_and_finds_the_first_bad_field(seed):
    rng = random.Random(seed)
    junk = ["nan", "inf", "-Infinity", "1e400", "1_0", "x", "1.2.3", "--1", "1e", ".", "+", "0x10", "١"]
    for _ in range(300):
        fields = []
        for _ in range(rng.randint(1, 40)):
            kind = rng.random()
            if kind < 0.05:
                fields.append(rng.choice(junk))
            elif kind < 0.5:
                fields.append(repr(rng.uniform(-1e3, 1e3) * 10.0 ** rng.randint(-40, 40)))
            elif kind < 0.8:
                fields.append("".join(rng.choice("0123456789") for _ in range(rng.randint(1, 30))))
            else:
                fields.append(f"{rng.uniform(-100, 100):.{rng.randint(0, 20)}f}")
        values, bad = numparse.parse_exact(*_buffer(fields))
        want_bad = next((i for i, t in enumerate(fields) if numparse.parse_slow([t])[1][0]), None)
        assert bad == want_bad, fields
        for i, text in enumerate(fields[:want_bad]):
            assert _same(values[i], text), text
