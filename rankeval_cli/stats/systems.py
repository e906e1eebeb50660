"""Several predictions of the same groups: scoring each, aligning their streams.

Used by ``rankeval compare``. A *system* is one prediction of the same gold:
another file holding the same groups and items in the same order, or another
column of one stream. Each system is scored exactly as the measure's own
command scores it (same accumulators, so the values agree to the last bit),
while its per-group statistics are kept for the paired tests of :mod:`.paired_resampling`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Iterator

import numpy as np

from ..batch import Batch
from ..errors import DataError
from ..vocabulary import DIRECTIONS
from .resample import GroupColumns, MeanStat, TauMicroStat, tau_raw


@dataclass
class MeasureSpec:
    """A measure and its options, as the measure's own command takes them."""

    name: str  # tau, mrr, ndcg, err, rankdcg
    variant: str = "penalize"  # tau
    average: str = "micro"  # tau: micro or macro
    tie_policy: str = "pessimistic"
    relevance: str = "ranks"
    missing_pred: str = "drop"
    scores: bool = False
    kernel_options: dict = field(default_factory=dict)  # k, gain, rel_max (parsed)

    @property
    def label(self) -> str:
        """The row name: tau_micro, tau_macro, mrr, ..."""
        return f"tau_{self.average}" if self.name == "tau" else self.name

    def stat(self):
        return TauMicroStat(self.variant) if self.name == "tau" and self.average == "micro" else MeanStat()

    def orient_gold(self, gold: np.ndarray) -> np.ndarray:
        """Gold in the measure's internal direction (as the measure commands orient it)."""
        if self.name == "tau":
            return -gold if (self.scores or self.relevance == "grades") else gold
        if self.relevance == "grades":
            return gold
        return -gold if self.scores else gold


class Scorer:
    """One system's streaming score and its kept per-group statistics."""

    def __init__(self, spec: MeasureSpec):
        from ..measures.tau import TauAccumulator
        from ..measures.ties import MeanSummary

        self.spec = spec
        self.kept = GroupColumns()
        if spec.name == "tau":
            self.acc = TauAccumulator(spec.variant)
        else:
            self.summary = MeanSummary(spec.name)
            self.kernel = _kernel(spec.name)

    def add(self, batch: Batch) -> None:
        """Add a batch whose gold and pred are already oriented (lower = better)."""
        if self.spec.name == "tau":
            rows = self.acc.add(batch)
            self.kept.add("raw", tau_raw(rows.counts) if self.spec.average == "micro" else rows.tau)
            return
        from ..measures.ties import Scores, prepare_batch

        spec = self.spec
        prep = prepare_batch(batch, tie_policy=spec.tie_policy, relevance=spec.relevance,
                             missing_pred=spec.missing_pred)
        values = self.kernel(prep, **spec.kernel_options)
        self.summary.add(Scores(batch, values, prep))
        self.kept.add("raw", values)

    def result(self) -> dict:
        """value, groups, undefined and the counts of skipped items."""
        if self.spec.name == "tau":
            s = self.acc.summary()
            value = s.micro if self.spec.average == "micro" else s.macro
            return dict(value=value, groups=s.groups, undefined=s.undefined, skipped=s.skipped, blanks=0,
                        missing_pred=0)
        s = self.summary
        return dict(value=s.mean, groups=s.groups, undefined=s.undefined, skipped=0, blanks=s.blanks,
                    missing_pred=s.missing_pred)

    def raw(self) -> np.ndarray:
        return self.kept.get("raw")


def _kernel(name: str):
    from ..measures import dcg, err, rankdcg, rr

    return {"mrr": rr.rr_values, "ndcg": dcg.ndcg_values, "err": err.err_values,
            "rankdcg": rankdcg.rankdcg_values}[name]


# --- systems from files ----------------------------------------------------------------------

def aligned(streams: list[Iterable[Batch]], names: list[str]) -> Iterator[list[Batch]]:
    """Batches of the same groups from every stream, checked to hold the same groups, items and gold.

    Streams may cut their batches at different groups; the longer batches are
    split. A mismatch is a :class:`DataError` naming the file, line and group.
    """
    iterators = [iter(s) for s in streams]
    pending: list[Batch | None] = [None] * len(iterators)
    while True:
        for i, it in enumerate(iterators):
            while pending[i] is None or pending[i].n_groups == 0:
                pending[i] = next(it, None)
                if pending[i] is None:
                    break
        ended = [p is None for p in pending]
        if all(ended):
            return
        if any(ended):
            _ended_error(pending, ended, names)
        n = min(p.n_groups for p in pending)
        heads = []
        for i, batch in enumerate(pending):
            if batch.n_groups == n:
                heads.append(batch)
                pending[i] = None
            else:
                first = np.arange(batch.n_groups) < n
                heads.append(batch.select_groups(first))
                pending[i] = batch.select_groups(~first)
        check_same_groups(heads, names)
        yield heads


def _ended_error(pending, ended, names) -> None:
    i = ended.index(True)
    j = ended.index(False)
    batch = pending[j]
    source, line = _location(batch, 0, names[j])
    raise DataError(f"group {batch.group[0]!r} is missing from {names[i]} (which ends before it); "
                    f"compared inputs must hold the same groups in the same order", source, line)


def _location(batch: Batch, row: int, name: str):
    source, line = batch.row_location(row) if batch.n_rows else (batch.source, None)
    return source or name, line


def check_same_groups(batches: list[Batch], names: list[str]) -> None:
    """Raise a DataError at the first group whose id, items or gold differ from the baseline's."""
    base = batches[0]
    for batch, name in zip(batches[1:], names[1:]):
        same_group = np.array([a == b for a, b in zip(base.group.tolist(), batch.group.tolist())], dtype=bool)
        if not same_group.all():
            g = int(np.argmin(same_group))
            source, line = _location(batch, int(batch.offsets[g]), name)
            raise DataError(f"group {batch.group[g]!r} where {names[0]} has group {base.group[g]!r} "
                            f"(compared inputs must hold the same groups in the same order)", source, line)
        sizes = batch.sizes != base.sizes
        if sizes.any():
            g = int(np.argmax(sizes))
            source, line = _location(batch, int(batch.offsets[g]), name)
            raise DataError(f"group {batch.group[g]!r} has {batch.sizes[g]} items here and {base.sizes[g]} in "
                            f"{names[0]}", source, line)
        items = np.array([a == b for a, b in zip(base.item.tolist(), batch.item.tolist())], dtype=bool)
        gold = (base.gold == batch.gold) | (np.isnan(base.gold) & np.isnan(batch.gold))
        bad = ~(items & gold)
        if bad.any():
            row = int(np.argmax(bad))
            g = int(np.searchsorted(batch.offsets, row, side="right") - 1)
            source, line = _location(batch, row, name)
            if not items[row]:
                what = f"item {batch.item[row]!r} where {names[0]} has {base.item[row]!r} (same position)"
            else:
                what = f"item {batch.item[row]!r} has gold {_show(batch.gold[row])} here and " \
                       f"{_show(base.gold[row])} in {names[0]}"
            raise DataError(f"group {batch.group[g]!r}: {what}", source, line)


def _show(value: float) -> str:
    return "missing" if np.isnan(value) else f"{value:g}"


# --- systems from columns of one stream ------------------------------------------------------

@dataclass
class ColumnSystem:
    """A prediction column: its name as given, the column it resolves to and its direction."""

    name: str
    column: str | None = None  # resolved on the first batch ("pred" = the pred column)
    higher_better: bool | None = None  # None = the global default


def parse_column_list(text: str) -> list[ColumnSystem]:
    """``COL[:higher|:lower],...`` → systems (a name may itself contain ':')."""
    out = []
    for part in text.split(","):
        part = part.strip()
        direction = None
        name, _, suffix = part.rpartition(":")
        if name and suffix in DIRECTIONS:
            direction, part = suffix == "higher", name
        if not part:
            raise ValueError(f"empty column name in {text!r}")
        out.append(ColumnSystem(part, None, direction))
    if len(out) < 2:
        raise ValueError("--pred-columns needs at least two columns (the first is the baseline)")
    return out


def resolve_columns(systems: list[ColumnSystem], batch: Batch) -> None:
    """Map each name to a column of ``batch``: ``pred``, the exact name, ``tgt@NAME`` (JCML items), or
    else the one column ending in ``@NAME``."""
    columns = list(batch.extra)
    for system in systems:
        if system.column is not None:
            continue
        if system.name == "pred" or system.name in batch.extra:
            system.column = system.name
            continue
        matches = [c for c in columns if c.endswith("@" + system.name)]
        if "tgt@" + system.name in matches:  # JCML: the item's own attribute, not the group's (src@)
            matches = ["tgt@" + system.name]
        if len(matches) != 1:
            why = "matches several columns: " + ", ".join(matches) if matches else "is not a column"
            source, line = _location(batch, 0, batch.source or "<input>")
            raise DataError(f"--pred-columns: {system.name!r} {why} (columns: {', '.join(['pred'] + columns)})",
                            source, line)
        system.column = matches[0]


def column_values(batch: Batch, column: str) -> np.ndarray:
    """The prediction values of ``column`` (empty = missing; anything else must be a finite number)."""
    if column == "pred":
        return batch.pred
    from ..formats.columns import parse_numbers

    lines = batch.line if batch.line is not None else np.zeros(batch.n_rows, np.int64)
    return parse_numbers(batch.extra[column].tolist(), column, batch.source, lines)


# --- systems as the items of every group (MT systems scored per segment) ---------------------

class ItemTable:
    """The items of every group read as systems: a systems × groups matrix of their values.

    Used by ``compare --items-are-systems``: each group is a topic (an MT segment), each
    item a system (an MT system), its value the metric's score of that system on that
    segment (e.g. ``convert --from wmt-scores``). Systems are numbered in order of first
    appearance; a system missing from a group has NaN there. An item appearing twice in
    a group, or a group appearing twice, is a :class:`DataError`.
    """

    def __init__(self):
        self.systems: dict = {}
        self.groups: dict = {}
        self.group_index: list = []
        self.system_index: list = []
        self.values: list = []
        self.first_line: dict = {}

    def add(self, batch: Batch, values: np.ndarray) -> None:
        if batch.n_groups == 0:
            return
        g0 = len(self.groups)
        for g, name in enumerate(batch.group.tolist()):
            if name in self.groups:
                source, line = _location(batch, int(batch.offsets[g]), batch.source or "<input>")
                raise DataError(f"group {name!r} appears twice (its items must be contiguous)", source, line)
            self.groups[name] = g0 + g
        names, inverse = np.unique(batch.item.astype(str), return_inverse=True)
        codes = np.array([self.systems.setdefault(n, len(self.systems)) for n in names.tolist()], dtype=np.int64)
        rows = codes[inverse]
        groups = g0 + batch.group_index
        pair = groups.astype(np.int64) * (1 << 31) + rows
        order = np.argsort(pair, kind="stable")
        twice = np.flatnonzero(pair[order][1:] == pair[order][:-1])
        if len(twice):
            row = int(order[twice[0] + 1])
            source, line = _location(batch, row, batch.source or "<input>")
            raise DataError(f"group {batch.group[batch.group_index[row]]!r} has item {batch.item[row]!r} twice",
                            source, line)
        self.group_index.append(groups)
        self.system_index.append(rows)
        self.values.append(np.asarray(values, dtype=np.float64))

    def matrix(self) -> tuple[list, list, np.ndarray]:
        """(system names, group ids, the systems × groups matrix with NaN for missing cells)."""
        out = np.full((len(self.systems), len(self.groups)), np.nan)
        if self.values:
            out[np.concatenate(self.system_index), np.concatenate(self.group_index)] = np.concatenate(self.values)
        return list(self.systems), list(self.groups), out


# --- systems of several predictions ------------------------------------------------------------

def systems_of_scorers(spec: MeasureSpec, scorers: list, results: list, groups, level: float):
    """The :class:`~.comparisons.Systems` of scored predictions and {system: its undefined groups}:
    ``groups`` lists (name, indexes of its scorers) per system; a system of several predictions
    (runs) has their mean per group and value, and the summary of its runs at ``level``."""
    from .comparisons import Systems
    from .effect import runs_summary

    raws, values, counts, runs, undefined = [], [], [], [], {}
    for i, (_, members) in enumerate(groups):
        member_raws = [scorers[j].raw() for j in members]
        raws.append(member_raws[0] if len(members) == 1 else np.mean(np.stack(member_raws), axis=0))
        member_values = [results[j]["value"] for j in members]
        values.append(member_values[0] if len(members) == 1 else float(np.mean(member_values)))
        counts.append(results[members[0]]["groups"] - results[members[0]]["undefined"])  # the groups averaged
        runs.append(runs_summary(member_values, level) if len(members) > 1 else None)
        undefined[i] = {"undefined": results[members[0]]["undefined"]}
    return Systems([name for name, _ in groups], spec.stat(), raws, values, groups=counts, runs=runs), undefined
