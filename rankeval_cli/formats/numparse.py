"""Vectorized parsing of decimal numbers straight from a byte buffer.

Fields like ``3``, ``-0.25`` or ``12.5`` (a sign, digits, at most one point, no
exponent) are parsed for all rows at once: the digits form an integer mantissa m and
the value is m / 10^f for f fractional digits.

- Up to 15 significant digits (fields of at most 23 bytes), m < 10^15 < 2^53 and
  10^f with f <= 22 are exact doubles and IEEE division rounds correctly, so the result
  is the correctly rounded value of the text (Clinger 1990's fast path) — the float
  Python's ``float()`` gives.
- 16 to 18 significant digits (``repr`` of a double prints up to 17), m < 10^18 < 2^63:
  where the platform's ``long double`` has a 64-bit significand (x86), m and 10^f are
  exact in it and the quotient q is rounded once to 64 bits. Rounding q to a double then
  gives the correctly rounded value of m / 10^f unless q lies exactly halfway between two
  doubles: rounding is monotone and every halfway point between doubles is representable
  in 64 bits, so m / 10^f and q lie between the same two halfway points unless q is one.
  Those rare fields (about one in 2,000 of random 17-digit ones) take the slow path; an
  integer mantissa (no fractional digits) is q exactly and never does.

Every other field (exponents, longer mantissas, garbage) is converted by
:func:`parse_exact`: numpy's string cast for plain decimal bytes, else ``float()`` one
by one after a check of plain decimal syntax (no ``inf``, ``nan``, ``1_000`` or
non-ASCII digits).
"""

from __future__ import annotations

import math
import re

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

MAX_DIGITS = 15  # exact in double arithmetic
LONG_DIGITS = 18  # exact in a 64-bit long double significand
ZERO, NINE, DOT, MINUS, PLUS = 48, 57, 46, 45, 43
POWERS_OF_TEN = 10.0 ** np.arange(23)  # exact doubles (10^k for k <= 22)
#: longest field parsed here: at most 22 fractional digits, so that 10^f is exact
MAX_WIDTH = 23
#: whether ``long double`` arithmetic carries a 64-bit significand here (x86 extended precision)
LONG_EXACT = np.finfo(np.longdouble).nmant >= 63


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
    if width > MAX_WIDTH:
        long = length > MAX_WIDTH
        slow |= long
        width = MAX_WIDTH
        length = np.where(long, 0, length)
    chars = _windows(buf, start, width).T.copy()  # chars[j] = j-th byte of every field
    inside = np.arange(width)[:, None] < length[None, :]
    chars *= inside  # bytes past a field's end: 0

    minus = chars[0] == MINUS
    body = inside.copy()
    body[0] &= ~(minus | (chars[0] == PLUS))
    digit_value = chars - np.uint8(ZERO)  # 0..9 for digits; anything else wraps above 9
    digit = body & (digit_value <= 9)
    dot = chars == DOT
    count = lambda mask: mask.sum(axis=0, dtype=np.uint8)  # noqa: E731  (width <= 23)
    n_digits, n_dots = count(digit), count(dot)
    plain = (length > 0) & (n_digits > 0) & (n_dots <= 1) & (n_digits + n_dots == count(body))

    # Horner's scheme over the columns: a digit multiplies the mantissa by 10 and adds itself
    step = digit.view(np.uint8) * np.uint8(9) + np.uint8(1)
    digit_value *= digit
    mantissa = digit_value[0].astype(np.int64)
    fraction = np.zeros(n, dtype=np.uint8)  # digits after the point
    after_dot = dot[0].copy()
    for j in range(1, width):
        np.multiply(mantissa, step[j], out=mantissa)
        np.add(mantissa, digit_value[j], out=mantissa)
        fraction += digit[j] & after_dot
        after_dot |= dot[j]
    parsed = mantissa / POWERS_OF_TEN[fraction]

    # Up to 18 digits the mantissa is exact (< 10^18 < 2^63), and leading zeros add nothing to
    # it: at most 15 significant digits is mantissa < 10^15. More digits are fine only when the
    # extra ones are leading zeros.
    fits = n_digits <= LONG_DIGITS
    many = np.flatnonzero(plain & ~fits)
    if len(many):
        some_digit, value = digit[:, many], digit_value[:, many]
        first = (some_digit & (value > 0)).argmax(axis=0)
        leading = count(some_digit & (np.arange(width)[:, None] < first[None, :]))
        fits[many] = n_digits[many] - leading <= LONG_DIGITS
    plain &= fits
    short = mantissa < 10**MAX_DIGITS
    good = plain & short
    longer = np.flatnonzero(plain & ~short) if LONG_EXACT else np.zeros(0, np.int64)
    if len(longer):
        exact = _long_quotients(mantissa[longer], fraction[longer])
        parsed[longer] = exact
        good[longer] = ~np.isnan(exact)
    parsed = np.where(minus, -parsed, parsed)

    values[good] = parsed[good]
    slow |= (length > 0) & ~good
    return values, slow


def _windows(buf: np.ndarray, start: np.ndarray, width: int) -> np.ndarray:
    """The ``width`` bytes from each start, one row per field (zeros past the buffer's end)."""
    if int(start.max()) + width > len(buf):
        buf = np.concatenate((buf, np.zeros(width, dtype=np.uint8)))
    return sliding_window_view(buf, width)[start]


def _long_quotients(mantissa: np.ndarray, fraction: np.ndarray) -> np.ndarray:
    """mantissa / 10^fraction correctly rounded to doubles, for mantissas < 10^18, through
    one rounding to ``long double`` (module docstring); NaN where q is halfway between two
    doubles and may have been rounded there (double rounding could err)."""
    q = mantissa.astype(np.longdouble) / POWERS_OF_TEN[fraction].astype(np.longdouble)
    significand = np.ldexp(np.frexp(q)[0], 64).astype(np.uint64)  # q's 64 bits, the top one set
    halfway = (significand & np.uint64(0x7FF)) == np.uint64(0x400)  # the 11 bits a double drops: 1000...
    halfway &= fraction > 0  # an integer mantissa is q exactly: its halfway cases round right
    return np.where(halfway, np.nan, q.astype(np.float64))


def parse_exact(buf: np.ndarray, start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, int | None]:
    """Values of the fields ``buf[start:end]`` (empty ones NaN) and the index of the first
    field that is not a finite decimal number, or None.

    The fields :func:`parse_fields` leaves (long mantissas, exponents) are converted
    together by numpy's string-to-double cast, which gives ``float()``'s correctly rounded
    value, once their bytes are known to be digits, points, signs and exponent marks only;
    anything else, or a cast that fails, goes to :func:`parse_slow` one field at a time.
    """
    values, slow = parse_fields(buf, start, end)
    rows = np.flatnonzero(slow)
    if len(rows) == 0:
        return values, None
    parsed = _cast(buf, start[rows], end[rows])
    if parsed is not None:
        values[rows] = parsed
        return values, None
    for row in rows.tolist():
        text = bytes(buf[start[row]:end[row]]).decode("utf-8", "replace")
        number, bad = parse_slow([text])
        if bad[0]:
            return values, row
        values[row] = number[0]
    return values, None


#: bytes of plain decimal notation with an exponent (zero: the padding after a field)
_NUMBER_BYTES = np.zeros(256, dtype=bool)
_NUMBER_BYTES[list(b"0123456789.+-eE\0")] = True


def _cast(buf, start, end) -> np.ndarray | None:
    """The fields as doubles through numpy's cast, or None if one may not be a finite decimal."""
    length = end - start
    width = int(length.max())
    chars = np.where(np.arange(width)[None, :] < length[:, None], _windows(buf, start, width), np.uint8(0))
    if not _NUMBER_BYTES[chars].all():
        return None
    try:
        with np.errstate(over="ignore"):
            values = chars.view(f"S{width}").ravel().astype(np.float64)
    except ValueError:
        return None
    return values if np.isfinite(values).all() else None


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


#: C's ``strtod`` syntax (``atof``): decimal, hexadecimal, infinity and NaN, after leading blanks
_FLOAT = re.compile(r"[ \t\n\v\f\r]*([-+]?)(?:(0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][-+]?\d+)?)|"
                    r"((?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)|(inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?))",
                    re.IGNORECASE)


def c_atof(text: str) -> float:
    """C's ``atof`` (``strtod``): the longest number at the start (0.0 if none)."""
    m = _FLOAT.match(text)
    if not m:
        return 0.0
    sign = -1.0 if m.group(1) == "-" else 1.0
    hexa, dec, special = m.group(2), m.group(3), m.group(4)
    if hexa:
        body = hexa[2:]
        if "p" not in body.lower():
            body += "p0"
        try:
            return sign * float.fromhex("0x" + body)
        except (ValueError, OverflowError):
            return sign * math.inf
    if dec:
        return sign * float(dec)
    return sign * (math.inf if special.lower().startswith("inf") else math.nan)


def c_atol(text: str) -> int:
    """C's ``atol``: leading blanks, an optional sign, the digits that follow (0 if none)."""
    m = re.match(r"[ \t\n\v\f\r]*([-+]?)(\d*)", text)
    digits = m.group(2)
    value = int(digits) if digits else 0
    value = -value if m.group(1) == "-" else value
    return max(min(value, 2 ** 63 - 1), -2 ** 63)
