"""Float64 arrays as the text Python's ``repr`` writes for each value, without a call per value.

``repr(x)`` is the shortest decimal that reads back to ``x`` (of several such, the one
nearest ``x``), written positionally (``0.0123``, ``16.0``) when its decimal exponent E
(x = d.ddd × 10^E) is in [−4, 15] and as ``1e-05`` otherwise (Steele & White 1990;
Gay 1990, mode 0 of ``dtoa``). :func:`field` computes it with integer arithmetic on whole
arrays for the values in that positional range below 10^15, takes ±0 and powers of two
from a table and calls ``repr`` for the rest (tiny or huge values, exact halfway cases).

Method, for x = m·2^e (m the 53-bit significand) and E its decimal exponent: y = x·10^s
with s = 16 − E lies in [10^16, 10^17), and y = m·5^s / 2^t (t = −(e + s)) is split
exactly into its integer part q and remainder r < 2^t, t > 0 (m·5^s needs 102 bits: two
64-bit words). The numbers that read back to x are those within half a unit in the last
place of x, h = 5^s / 2^(t+1) in units of y (5^s is odd, so no decimal lies on the
bound and rounding half to even never decides). The nearest 15-, 16- and 17-digit decimals are the nearest multiples of 100,
10 and 1 of y. An interval of width 2h < 10^−15·y holds at most one 15-digit decimal, so
when the nearest one is inside it the shortest text is that decimal without its trailing
zeros; else, when the nearest 16-digit decimal is inside, it is the text (the nearest
of the shortest); else the nearest 17-digit one (always inside: h > 0.55).
"""

from __future__ import annotations

import numpy as np

#: values converted at once (temporaries that stay in the cache)
CHUNK = 1 << 14
#: the longest text ``repr`` writes for a float64 ('-2.2250738585072014e-308')
WIDTH = 24
_U = np.uint64
_POW5 = np.array([5 ** s for s in range(23)], dtype=_U)
_LOW52 = _U((1 << 52) - 1)
_LOW32 = _U(0xFFFFFFFF)
#: 4-digit groups as 4 ASCII bytes in memory order (a little-endian uint32 each)
_DIGITS4 = np.frombuffer("".join(f"{v:04d}" for v in range(10000)).encode(), dtype="<u4")
#: the same with the trailing zeros NUL (the last group of a number's digits)
_TRAILING4 = np.frombuffer("".join(f"{v:04d}".rstrip("0").ljust(4, "\0") for v in range(10000)).encode(),
                           dtype="<u4")


def texts(x: np.ndarray) -> np.ndarray:
    """Each value's ``repr`` as a numpy ``S24`` array (the bytes, NUL-padded)."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    out = np.zeros((len(x), WIDTH), dtype=np.uint8)
    for lo in range(0, len(x), CHUNK):
        _texts(x[lo:lo + CHUNK], out[lo:lo + CHUNK])
    return out.view(f"S{WIDTH}").reshape(len(x))


def _texts(x: np.ndarray, out: np.ndarray) -> None:
    bits = x.view(_U)
    ax = np.abs(x)
    fraction = bits & _LOW52
    fast = (ax >= 1e-4) & (ax < 1e15) & (fraction != 0)
    m, e = fraction | _U(1 << 52), (bits >> _U(52) & _U(0x7FF)).astype(np.int64) - 1075
    digits, exponent, ok = _shortest(m, e, np.where(fast, ax, 1.0))
    ok &= fast & (exponent >= -4) & (exponent <= 15)
    rows = np.flatnonzero(ok)
    _positional(out, rows, x[rows] < 0, digits[rows], exponent[rows])
    rest = np.flatnonzero(~ok)
    if len(rest):
        _texts_of(out, rest, x[rest])


def _shortest(m: np.ndarray, e: np.ndarray, ax: np.ndarray):
    """(17-digit integer D: the text's digits padded with zeros, decimal exponent E, whether
    the arithmetic decided it) for x = m·2^e (module docstring)."""
    exponent = np.floor(np.log10(ax)).astype(np.int64)
    q, r, t, limit = _scaled(m, e, exponent)
    fix = (q < _U(10 ** 16)) | (q >= _U(10 ** 17))
    if fix.any():  # log10 may miss by one next to a power of ten
        exponent[fix] += np.where(q[fix] < _U(10 ** 16), -1, 1)
        q[fix], r[fix], t[fix], limit[fix] = _scaled(m[fix], e[fix], exponent[fix])
    ok = (q >= _U(10 ** 16)) & (q < _U(10 ** 17)) & (t > 0) & (t < 64)
    unit = np.left_shift(_U(1), np.clip(t, 0, 63).astype(_U))
    reach = limit >> _U(1)  # a decimal within h of y: distance (over 2^t) <= (5^s - 1) / 2
    # the nearest 17-digit decimal (never exactly halfway: that is left to repr)
    half = unit >> _U(1)
    ok &= r != half
    digits = q + (r > half)
    # the nearest 16-digit decimal, if within h (of two within h, repr writes the nearer)
    a = q - q // _U(10) * _U(10)
    num = a * unit + r
    up = num > _U(5) * unit
    ok &= num != _U(5) * unit
    inside = np.where(up, _U(10) * unit - num, num) <= reach
    digits = np.where(inside, q - a + _U(10) * up, digits)
    # the 15-digit decimal within h, if any (at most one)
    a = q - q // _U(100) * _U(100)
    num = a * unit + r
    below, above = num <= reach, _U(100) * unit - num <= reach
    digits = np.where(below, q - a, np.where(above, q - a + _U(100), digits))
    over = digits == _U(10 ** 17)
    digits[over] = _U(10 ** 16)
    return digits, exponent + over, ok


def _scaled(m: np.ndarray, e: np.ndarray, exponent: np.ndarray):
    """y = m·2^e·10^s, s = 16 − exponent, as (integer part q, remainder r over 2^t, t, 5^s);
    q is 0 where it is out of reach (t <= 0, or s outside the table)."""
    s = 16 - exponent
    power = _POW5[np.clip(s, 0, len(_POW5) - 1)]
    lo, hi = _mul128(m, power)
    t = -(e + s)
    right = np.clip(t, 1, 63).astype(_U)
    q = np.left_shift(hi, _U(64) - right) | np.right_shift(lo, right)
    r = lo & (np.left_shift(_U(1), right) - _U(1))
    q[(s < 0) | (s >= len(_POW5)) | (t <= 0) | (t >= 64) | (np.right_shift(hi, right) != 0)] = 0
    return q, r, t, power


def _mul128(a: np.ndarray, b: np.ndarray):
    """(low, high) 64-bit words of a·b, for a < 2^53 and b < 2^53."""
    al, ah, bl, bh = a & _LOW32, a >> _U(32), b & _LOW32, b >> _U(32)
    low = al * bl
    mid = al * bh + ah * bl
    lo = low + (mid << _U(32))
    hi = ah * bh + (mid >> _U(32)) + (lo < low)
    return lo, hi


def _digit_matrix(digits: np.ndarray) -> np.ndarray:
    """(n, 17) uint8: the decimal digits of each integer in [10^16, 10^17) as ASCII, its
    trailing zeros as NUL (the end of the text)."""
    n = len(digits)
    groups = np.empty((n, 5), dtype="<u4")
    zero_after = np.ones(n, dtype=bool)  # every group after this one is 0000
    rest = digits
    for j in range(4, -1, -1):
        high = rest // _U(10000) if j else rest
        group = (rest - high * _U(10000)).astype(np.intp) if j else rest.astype(np.intp)
        groups[:, j] = np.where(zero_after, _TRAILING4[group], _DIGITS4[group])
        zero_after &= group == 0
        rest = high
    return groups.view(np.uint8).reshape(n, 20)[:, 3:]


def _positional(out, rows, negative, digits, exponent) -> None:
    """The positional texts: ``d.ddd`` (E >= 0; ``.0`` when no fraction digit is left) or
    ``0.00ddd`` (E < 0), a ``-`` first where negative. The rows are put in order of (E,
    sign), so that each class is a few column copies of a slice."""
    if len(rows) == 0:
        return
    key = ((exponent + 4) * 2 + negative).astype(np.uint8)
    order = np.argsort(key, kind="stable")
    key = key[order]
    d = _digit_matrix(digits[order])
    text = np.zeros((len(rows), WIDTH), dtype=np.uint8)
    edges = np.flatnonzero(np.r_[True, key[1:] != key[:-1], True])
    zero, point = np.uint8(ord("0")), np.uint8(ord("."))
    for lo, hi in zip(edges[:-1].tolist(), edges[1:].tolist()):
        E, sign = int(key[lo]) // 2 - 4, int(key[lo]) % 2
        block = text[lo:hi]
        if sign:
            block[:, 0] = ord("-")
        if E >= 0:  # the integer part and the first fraction digit: '0' past the last digit
            np.maximum(d[lo:hi, :E + 2], zero, out=block[:, sign:sign + E + 2])
            block[:, sign + E + 2] = block[:, sign + E + 1]
            block[:, sign + E + 1] = point
            block[:, sign + E + 3:sign + 18] = d[lo:hi, E + 2:]
        else:
            block[:, sign:sign + 1 - E] = zero
            block[:, sign + 1] = point
            block[:, sign + 1 - E:sign + 18 - E] = d[lo:hi]
    out[rows[order]] = text


def _texts_of(out, rows, x) -> None:
    """The values written otherwise: ±0 and ±2^k (k in [−13, 52]) from a table (the interval
    below a power of two is half the one above it), the rest by ``repr``."""
    ax = np.abs(x)
    exact = ((ax == 0) | (ax >= 2.0 ** -13)) & (ax < 2.0 ** 53) & ((x.view(_U) & _LOW52) == 0)
    key = np.where(ax == 0, 0, np.frexp(ax)[1] + 13) * 2 + np.signbit(x)
    out[rows[exact]] = _POWERS[key[exact]]
    for i in np.flatnonzero(~exact).tolist():
        b = repr(float(x[i])).encode("ascii")
        out[rows[i], :len(b)] = np.frombuffer(b, dtype=np.uint8)
        out[rows[i], len(b):] = 0


def _power_table() -> np.ndarray:
    """Texts of 0.0, -0.0, 2^-13, -2^-13, ..., 2^52, -2^52 (row 2(k + 13) + 2 + sign for 2^k)."""
    values = [0.0, -0.0] + [v for k in range(-13, 53) for v in (2.0 ** k, -(2.0 ** k))]
    return np.array([repr(v).encode("ascii") for v in values], dtype=f"S{WIDTH}").view(np.uint8).reshape(-1, WIDTH)


_POWERS = _power_table()
