"""A running float sum that is exact until its one final rounding.

Streaming summaries add one batch at a time. Adding rounded per-batch sums makes the
last bit of a mean depend on where the input was cut into batches (a TSV and a JSON
lines reading of the same data are cut differently). ``ExactSum`` keeps the exact
total as a short list of floats whose sum is exact (Shewchuk 1997's expansions; the
same arithmetic as ``math.fsum``), so the result is the correctly rounded sum of all
values added, whatever the batches.
"""

from __future__ import annotations

import math

import numpy as np


class ExactSum:
    """Σ of every value added, rounded once when read (``value``)."""

    def __init__(self):
        self._parts: list[float] = []

    def add(self, values) -> None:
        """Add finite floats: a float64 numpy array (reduced at once, :func:`exact_terms`) or an iterable."""
        if isinstance(values, np.ndarray) and values.dtype == np.float64:
            terms = exact_terms(values)
        else:
            terms = [float(v) for v in values]
        terms = self._parts + terms
        parts: list[float] = []
        # Each pass takes the correctly rounded remainder; it shrinks by 2^-53 or more per pass,
        # and a sum of floats is a dyadic rational, so this ends (usually after 1 or 2 passes).
        while True:
            rest = math.fsum(terms + [-p for p in parts])
            if rest == 0.0:
                break
            parts.append(rest)
        self._parts = parts

    @property
    def value(self) -> float:
        return math.fsum(self._parts)

    def __float__(self) -> float:
        return self.value


#: Values per reduction: partial sums stay below 2^53 (2^26 halves of at most 2^27 each).
CHUNK = 1 << 26


def exact_terms(values: np.ndarray) -> list[float]:
    """A few floats (two per binary exponent present) whose exact sum is that of ``values``.

    Each value is q·2^(e−53) with an integer |q| < 2^53 (``np.frexp``); q is split into
    an upper part h·2^26 and a lower part l < 2^26, and the h and l of values with
    the same exponent are summed with ``np.bincount``: integers below 2^53, so float64
    adds them exactly; scaled by powers of two they stay exact. Values beyond what
    that scaling keeps exact (subnormal, or above 2^900) fall back to a list for fsum.
    """
    values = values.ravel()
    if len(values) == 0:
        return []
    biggest = np.abs(values).max()
    if not biggest < 2.0**900 or (np.abs(values[values != 0]) < 2.0**-1000).any():
        return values.tolist()
    terms = []
    for start in range(0, len(values), CHUNK):
        fraction, exponent = np.frexp(values[start:start + CHUNK])
        q = fraction * 2.0**53
        high = np.floor(q * 2.0**-26)
        low = q - high * 2.0**26
        lowest = int(exponent.min())
        bins = exponent - lowest
        for part, shift in ((high, -27), (low, -53)):
            sums = np.bincount(bins, weights=part)
            present = np.flatnonzero(sums)
            terms.extend(np.ldexp(sums[present], present + lowest + shift).tolist())
    return terms
