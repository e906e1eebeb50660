"""Vectorized parsing of decimal numbers straight from a byte buffer.

Fields like ``3``, ``-0.25`` or ``12.5`` (a sign, at most 15 digits, at most one
point, no exponent) are parsed for all rows at once: the digits form an integer
mantissa m < 10^15 < 2^53 and the value is m / 10^f for f fractional digits.
Both operands are exact doubles, and IEEE division rounds correctly, so the
result is the correctly rounded value of the decimal text (Clinger 1990's fast
path) — the same float Python's ``float()`` gives. Every other field (exponents,
long mantissas, spaces, garbage) falls back to ``float()`` one by one, after a
check of plain decimal syntax (no ``inf``, ``nan``, ``1_000`` or non-ASCII digits).
"""

from __future__ import annotations

import math
import re

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

MAX_DIGITS = 15
ZERO, NINE, DOT, MINUS, PLUS = 48, 57, 46, 45, 43
POWERS_OF_TEN = 10.0 ** np.arange(MAX_DIGITS + 3)  # exact doubles; a field has at most 17 bytes here


def parse_fields(buf: np.ndarray, start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Values of the fields ``buf[start:end]`` and a mask of those left for the slow path.

    Empty fields are NaN (missing) and are not left for the slow path. The
    characters are gathered as a (position, field) ``uint8`` matrix, so each
    step below is one pass over contiguous bytes.
    """
    length = end - start
    n = len(start)
    values = np.full(n, np.nan)
    slow = np.zeros(n, dtype=bool)
    width = int(length.max()) if n else 0
    if width == 0:
        return values, slow
    if width == 1 and length.min() == 1:  # one character each: digits are the common case (ranks, grades)
        digit_value = buf[start] - np.uint8(ZERO)
        if (digit_value <= 9).all():
            return digit_value.astype(np.float64), slow
    if width > MAX_DIGITS + 2:
        long = length > MAX_DIGITS + 2
        slow |= long
        width = MAX_DIGITS + 2
        length = np.where(long, 0, length)
    if int(start.max()) + width > len(buf):
        buf = np.concatenate((buf, np.zeros(width, dtype=np.uint8)))
    chars = sliding_window_view(buf, width)[start].T.copy()  # chars[j] = j-th byte of every field
    inside = np.arange(width)[:, None] < length[None, :]
    chars[~inside] = 0

    minus = chars[0] == MINUS
    body = inside.copy()
    body[0] &= ~(minus | (chars[0] == PLUS))
    digit_value = chars - np.uint8(ZERO)  # 0..9 for digits; anything else wraps above 9
    digit = body & (digit_value <= 9)
    dot = chars == DOT
    n_digits, n_dots = digit.sum(axis=0), dot.sum(axis=0)
    good = (length > 0) & (n_digits > 0) & (n_digits <= MAX_DIGITS) & (n_dots <= 1) \
        & (n_digits + n_dots == body.sum(axis=0))

    mantissa = np.zeros(n, dtype=np.int64)
    fraction = np.zeros(n, dtype=np.int64)
    after_dot = np.zeros(n, dtype=bool)
    for j in range(width):
        mantissa = np.where(digit[j], mantissa * 10 + digit_value[j], mantissa)
        fraction += digit[j] & after_dot
        after_dot |= dot[j]
    parsed = mantissa / POWERS_OF_TEN[fraction]
    parsed = np.where(minus, -parsed, parsed)

    values[good] = parsed[good]
    slow |= (length > 0) & ~good
    return values, slow


#: Plain ASCII decimal notation: what ``float()`` accepts minus inf/nan, ``1_000`` and non-ASCII digits.
DECIMAL = re.compile(r"\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*", re.ASCII)


def is_decimal(text: str) -> bool:
    """True if ``text`` is a decimal number in plain notation (surrounding whitespace allowed)."""
    return DECIMAL.fullmatch(text) is not None


def parse_slow(texts: list[str]) -> tuple[list[float], list[bool]]:
    """``float()`` of each text; flags those that are not finite decimal numbers."""
    out, bad = [], []
    for text in texts:
        value = float(text) if is_decimal(text) else math.nan
        out.append(value)
        bad.append(not math.isfinite(value))
    return out, bad
