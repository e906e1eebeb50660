"""Attribute texts as numbers, and lists as numpy object arrays (shared by the reader and the writer)."""

from __future__ import annotations

import numpy as np

from ...errors import DataError


def objects(values: list) -> np.ndarray:
    """An object array holding ``values`` (strings stay Python strings)."""
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def numbers(texts: list[str], attr: str, name: str, lines: np.ndarray) -> np.ndarray:
    """Float64 values of attribute texts; empty = NaN; anything not a finite number is an error."""
    try:
        values = np.array([t or "nan" for t in texts], dtype=np.float64)
    except ValueError:
        values = np.array([_float(t) for t in texts], dtype=np.float64)
    bad = ~np.isfinite(values) & np.array([t != "" for t in texts], dtype=bool)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise DataError(f"<tgt> attribute {attr}={texts[row]!r} is not a finite number", name, int(lines[row]))
    return values


def _float(text: str) -> float:
    try:
        return float(text) if text else np.nan
    except ValueError:
        return np.inf  # flagged as bad by the caller



def parse_quietly(texts: np.ndarray) -> np.ndarray:
    """Float values of texts; empty = NaN, unparsable = inf (equal to no value)."""
    values = texts.tolist()
    try:
        return np.array([t or "nan" for t in values], dtype=np.float64)
    except ValueError:
        return np.array([_float(t) for t in values], dtype=np.float64)
