"""Feature columns of the canonical stream as a float matrix, and the gold as a utility.

Features are extra columns of the stream (LETOR ``f1..fM``, JCML ``tgt@ATTR``, any
numeric column). ``--features`` takes names and shell patterns (``f*``,
``'tgt@*'``), in any number, comma-separated or repeated:

- a name must be a column of the input, and every value of it a number;
- a pattern keeps the columns it matches whose values are numbers and leaves out,
  naming them on stderr, those holding text (``tgt@system``); a pattern that
  matches no column is an error;
- a missing (empty) value in a selected column is an error at its line: nothing
  is filled in;
- a column constant on the training data is an error when named, and left out
  (named on stderr) when a pattern matched it.

The gold becomes a *utility*, higher = better: the grade with ``--relevance
grades``, minus the gold rank with ``--relevance ranks`` (the default).
"""

from __future__ import annotations

import fnmatch
import hashlib
from dataclasses import dataclass, field

import numpy as np

from ..batch import Batch, concat, offsets_from_sizes
from ..errors import DataError
from ..formats.columns import is_number
from ..vocabulary import RELEVANCE



def split_specs(specs) -> list[str]:
    """``--features`` values: repeated and comma-separated, empty entries ignored."""
    return [s.strip() for spec in specs for s in spec.split(",") if s.strip()]


def is_pattern(spec: str) -> bool:
    return any(c in spec for c in "*?[")


@dataclass
class Selection:
    """The feature columns chosen from a stream's extra columns by ``--features``."""

    names: list[str]
    explicit: set[str] = field(default_factory=set)  # named, not matched by a pattern
    dropped: dict[str, str] = field(default_factory=dict)  # column -> why it was left out


def select(batch: Batch, specs, report=None) -> Selection:
    """Resolve ``--features`` against the extra columns of the first batch."""
    specs = split_specs(specs)
    if not specs:
        raise DataError("no features given (--features NAMES/PATTERNS)", batch.source)
    columns = list(batch.extra)
    chosen: list[str] = []
    explicit: set[str] = set()
    unknown = [s for s in specs if not is_pattern(s) and s not in columns]
    if unknown:
        raise DataError(f"feature column{'s' if len(unknown) > 1 else ''} not in the input: {', '.join(unknown)} "
                        f"(columns: {', '.join(columns) or 'none'})", batch.source, _first_line(batch))
    empty = [s for s in specs if is_pattern(s) and not fnmatch.filter(columns, s)]
    if empty:
        raise DataError(f"feature pattern{'s' if len(empty) > 1 else ''} matching no column: {', '.join(empty)} "
                        f"(columns: {', '.join(columns) or 'none'})", batch.source, _first_line(batch))
    dropped: dict[str, str] = {}
    for spec in specs:
        if is_pattern(spec):
            for name in fnmatch.filter(columns, spec):
                if name in chosen or name in dropped:
                    continue
                text = _non_number(batch.extra[name])
                if text is not None:
                    dropped[name] = f"holds text ({text[:30]!r})"
                else:
                    chosen.append(name)
        elif spec not in chosen:
            chosen.append(spec)
            explicit.add(spec)
            dropped.pop(spec, None)
    if dropped and report:
        report(f"features left out: {', '.join(f'{k} {v}' for k, v in dropped.items())}")
    if not chosen:
        raise DataError("no numeric feature column selected by --features", batch.source, _first_line(batch))
    return Selection(chosen, explicit, dropped)


def _first_line(batch: Batch):
    return None if batch.line is None or not len(batch.line) else int(batch.line[0])


def _non_number(values: np.ndarray):
    """The first non-empty value that is not a number, or None."""
    try:
        np.array(values.tolist(), dtype=np.float64)  # the common case: every value parses (inf/nan are
        return None  # refused later by feature_matrix, with their line)
    except ValueError:
        pass
    for text in dict.fromkeys(values.tolist()):
        if text != "" and not is_number(text):
            return text
    return None


def feature_matrix(batch: Batch, names: list[str]) -> np.ndarray:
    """(rows x features) float64 of the named columns; a missing column, an empty or non-numeric value is an error."""
    absent = [n for n in names if n not in batch.extra]
    if absent:
        raise DataError(f"feature column{'s' if len(absent) > 1 else ''} missing from the input: {', '.join(absent)}",
                        batch.source, _first_line(batch))
    X = np.empty((batch.n_rows, len(names)))
    for j, name in enumerate(names):
        X[:, j] = _column(batch, name)
    return X


def _column(batch: Batch, name: str) -> np.ndarray:
    """One feature column as floats; empty, non-numeric, non-finite and beyond ±1e300 are errors."""
    from ..formats.validate import MAX_ABS_VALUE

    texts = batch.extra[name].tolist()
    try:
        values = np.array(texts, dtype=np.float64)
        with np.errstate(invalid="ignore"):
            bad = ~(np.abs(values) <= MAX_ABS_VALUE)  # NaN and the infinities too
    except ValueError:
        values, bad = None, np.array([not is_number(t) for t in texts])
    if values is not None and not bad.any():
        return values
    row = int(np.flatnonzero(bad)[0])
    source, line = batch.row_location(row)
    if texts[row] == "":
        raise DataError(f"feature {name!r} is missing (empty) for item {batch.item[row]!r}; every selected feature "
                        "needs a value on every item: fill it in or leave the column out of --features", source, line)
    if values is not None and np.isfinite(values[row]):
        raise DataError(f"feature {name!r}: {texts[row]!r} is outside the supported range (|value| <= 1e300)",
                        source, line)
    what = "a finite number" if values is not None else "a number"
    raise DataError(f"feature {name!r}: {texts[row]!r} is not {what}", source, line)


def utility_of(gold: np.ndarray, relevance: str) -> np.ndarray:
    """Gold as higher-is-better utility: grades as they are, ranks negated (NaN stays NaN)."""
    if relevance not in RELEVANCE:
        raise ValueError(f"unknown relevance {relevance!r}; expected ranks or grades")
    return gold.copy() if relevance == "grades" else -gold


@dataclass
class Table:
    """Every row of a stream: features, utility (NaN = blank gold), group structure; and the batches."""

    X: np.ndarray
    utility: np.ndarray
    offsets: np.ndarray
    group: np.ndarray
    names: list[str]
    batches: list[Batch]
    sources: list[str]
    explicit: set = field(default_factory=set)  # features named, not matched by a pattern

    @property
    def n_groups(self) -> int:
        return len(self.group)


def load(batches, specs, relevance: str, report=None, keep_batches: bool = False, empty_ok: bool = False):
    """Read a whole stream into a :class:`Table` (features parsed batch by batch, text dropped).

    An input without groups is an error, or None with ``empty_ok``.
    """
    selection = None
    parts, utilities, groups, sizes, kept, sources = [], [], [], [], [], []
    for batch in batches:
        if batch.n_groups == 0:
            continue
        if selection is None:
            selection = select(batch, specs, report)
        parts.append(feature_matrix(batch, selection.names))
        utilities.append(utility_of(batch.gold, relevance))
        groups.append(batch.group)
        sizes.append(batch.sizes)
        if batch.source not in sources:
            sources.append(batch.source)
        if keep_batches:
            kept.append(batch)
    if selection is None:
        if empty_ok:
            return None
        raise DataError("no groups in the input", None)
    return Table(X=np.concatenate(parts), utility=np.concatenate(utilities),
                 offsets=offsets_from_sizes(np.concatenate(sizes)), group=np.concatenate(groups),
                 names=selection.names, batches=kept, sources=sources, explicit=selection.explicit)


def training_rows(utility: np.ndarray, offsets: np.ndarray, pairwise: bool):
    """Rows to train on and their offsets: rows with a gold value; for ranking objectives
    only groups with at least two different gold values (the others hold no order).

    Returns ``(rows, offsets, blanks, groups_without_order)``.
    """
    has_gold = ~np.isnan(utility)
    sizes = np.add.reduceat(has_gold.astype(np.int64), offsets[:-1]) if len(offsets) > 1 else np.zeros(0, np.int64)
    blanks = int((~has_gold).sum())
    keep_group = sizes > 0
    without_order = 0
    if pairwise and has_gold.any():
        filled_hi = np.where(has_gold, utility, -np.inf)
        filled_lo = np.where(has_gold, utility, np.inf)
        hi = np.maximum.reduceat(filled_hi, offsets[:-1])
        lo = np.minimum.reduceat(filled_lo, offsets[:-1])
        ordered = keep_group & (hi > lo)
        without_order = int((keep_group & ~ordered).sum())
        keep_group = ordered
    rows = has_gold & np.repeat(keep_group, np.diff(offsets))
    new_sizes = np.add.reduceat(rows.astype(np.int64), offsets[:-1]) if len(offsets) > 1 else np.zeros(0, np.int64)
    return np.flatnonzero(rows), offsets_from_sizes(new_sizes[new_sizes > 0]), blanks, without_order


def data_signature(X: np.ndarray, utility: np.ndarray, offsets: np.ndarray) -> str:
    """sha256 of the training features, utility and group sizes (float64 bytes): the data a model saw."""
    digest = hashlib.sha256()
    for array in (np.ascontiguousarray(X, dtype=np.float64), np.ascontiguousarray(utility, dtype=np.float64),
                  np.ascontiguousarray(np.diff(offsets), dtype=np.int64)):
        digest.update(array.tobytes())
    return digest.hexdigest()


def groups_of(table: Table, keep: np.ndarray) -> Table:
    """The rows of the groups where ``keep`` (one bool per group) is true."""
    rows = np.repeat(keep, np.diff(table.offsets))
    return Table(X=table.X[rows], utility=table.utility[rows], offsets=offsets_from_sizes(np.diff(table.offsets)[keep]),
                 group=table.group[keep], names=table.names, batches=[], sources=table.sources,
                 explicit=table.explicit)
