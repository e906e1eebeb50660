"""What the figures draw, read from rankeval's own tables (no matplotlib here).

* :func:`read_rankings`: ``aggregate``/``borda`` output (``[BY...] system value rank
  [rank_ci_low rank_ci_high cluster] signature``), one :class:`Ranking` per value of
  the ``--by`` columns.
* :func:`read_series`: ``--per-group`` output of a measure (``group items skipped
  VALUE``), one list of values per (file, column).
* :func:`scatter_panels`: system scores on two sides (human and metric), from a stream
  aggregated twice or from two aggregate tables, joined on the system names as
  ``rankeval correlate`` joins them, with the correlations ``correlate`` prints.

Every reader accepts TSV with a header or JSON lines (one record per line), as the
summary writers produce them; a bad cell is a :class:`~rankeval_cli.errors.DataError`
naming its file and line.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from ..errors import DataError

#: per-group columns that hold a measure's value, in ``--per-group`` outputs
MEASURE_COLUMNS = ("tau", "mrr", "rr", "ndcg", "err", "rankdcg", "ap", "value", "rho")


@dataclass
class Ranking:
    """One system ranking: items best first, their score, rank and bootstrap rank range."""

    key: tuple
    items: list = field(default_factory=list)
    scores: list = field(default_factory=list)
    ranks: list = field(default_factory=list)
    lo: list = field(default_factory=list)
    hi: list = field(default_factory=list)
    cluster: list = field(default_factory=list)
    has_ranges: bool = False


@dataclass
class Series:
    """One distribution: the defined values of a column, and how many were undefined."""

    label: str
    values: list
    undefined: int
    column: str = "value"


@dataclass
class ScatterPanel:
    """Paired system scores (x = human, y = metric) and their correlations."""

    key: tuple
    items: list
    x: list
    y: list
    correlations: dict  # measure -> Correlation
    unmatched: int
    legend: str | None = None  # the legend entry, when not correlate's (meta-eval system scores)


def records(source):
    """``(line, dict)`` for every row of a TSV-with-header or JSON-lines table."""
    from ..formats.summary_reader import read_summaries

    return read_summaries(source)


def number(value, column: str, name: str, line_no: int) -> float:
    """A cell as a float; empty, ``nan`` or null is NaN."""
    if value is None or value == "" or (isinstance(value, str) and value.lower() == "nan"):
        return math.nan
    try:
        return float(value)
    except (TypeError, ValueError):
        raise DataError(f"{column}: not a number: {value!r}", name, line_no) from None


def read_rankings(source, by=()) -> list[Ranking]:
    """The rankings of an ``aggregate`` (or ``borda``) table, one per ``--by`` value, best first.

    An empty table gives no ranking (the figure says so).

    ``rank_ci_low rank_ci_high cluster`` (written by ``aggregate --ci``) give the rank ranges; without
    them every item's range is its rank and ``has_ranges`` is False. Items without a rank
    (never compared) are left out. A ``--column both`` table is refused: plot one side.
    """
    from ..inputs import source_name

    name = source_name(source)
    by = tuple(by)
    rankings: dict = {}
    seen: dict = {}
    score_column = None
    for line_no, record in records(source):
        if score_column is None:
            score_column = _ranking_columns(record, by, name, line_no)
        key = tuple(str(record.get(b)) for b in by)
        item = str(record["system"])
        ranking = rankings.get(key)
        if ranking is None:
            ranking = rankings[key] = Ranking(key, has_ranges="rank_ci_low" in record)
            seen[key] = {}
        if item in seen[key]:
            before = [c for c in record if c not in ("system", "value", "rank", "rank_ci_low", "rank_ci_high",
                                                      "cluster", "signature") and c not in by]
            hint = f"; name its partition columns with --by ({', '.join(before)})" if before else ""
            raise DataError(f"system {item!r} appears twice in one ranking (first at line {seen[key][item]})"
                            f"{hint}", name, line_no)
        seen[key][item] = line_no
        rank = number(record.get("rank"), "rank", name, line_no)
        if math.isnan(rank):
            continue
        ranking.items.append(item)
        ranking.scores.append(number(record.get(score_column), score_column, name, line_no))
        ranking.ranks.append(int(rank))
        if ranking.has_ranges:
            for column, values in (("rank_ci_low", ranking.lo), ("rank_ci_high", ranking.hi),
                                   ("cluster", ranking.cluster)):
                value = number(record.get(column), column, name, line_no)
                if math.isnan(value):
                    raise DataError(f"{column}: empty for a ranked item", name, line_no)
                values.append(int(value))
    out = []
    for ranking in rankings.values():
        order = sorted(range(len(ranking.items)), key=lambda i: (ranking.ranks[i], ranking.items[i]))
        for column in ("items", "scores", "ranks", "lo", "hi", "cluster"):
            values = getattr(ranking, column)
            if values:
                setattr(ranking, column, [values[i] for i in order])
        if not ranking.has_ranges:
            ranking.lo, ranking.hi = list(ranking.ranks), list(ranking.ranks)
            ranking.cluster = list(range(1, len(ranking.items) + 1))
        if ranking.items:
            out.append(ranking)
    return out


def _ranking_columns(record: dict, by: tuple, name: str, line_no: int) -> str:
    if "gold_rank" in record or "pred_rank" in record:
        raise DataError("a table with gold and pred sides (aggregate --column both): write one side "
                        "with --column gold or --column pred", name, line_no)
    for column in ("system", "rank", "value", *by):
        if column not in record:
            raise DataError(f"no {column!r} column: not an aggregate table", name, line_no)
    return "value"


def read_series(sources, columns=(), labels=(), by=None, report=None) -> list[Series]:
    """One series per (source, key, column) of ``--per-group`` tables; NaN values counted, not drawn.

    ``columns`` default to the one measure column a table holds (``tau``, ``ndcg``, ...).
    A table's *key columns* are those written before ``group`` (``system`` for several IR
    runs). ``by`` names the key columns that split a table into boxes; without it a table
    whose ``system`` varies gets one box per system, and one whose other key columns vary is
    an error naming ``--by`` (nothing is pooled unasked). Key columns left out of ``by`` that
    vary are pooled, and ``report`` says so. Labels: ``labels`` in order, else the key, the
    file name and the column, as many of them as tell the series apart.
    """
    from pathlib import Path

    from ..inputs import source_name

    report = report or (lambda message: None)
    found = []  # (stem, key, column, values)
    for source in sources:
        name = source_name(source)
        stem = Path(name).name
        for suffix in (".gz", ".tsv", ".jsonl", ".json"):
            stem = stem[: -len(suffix)] if stem.endswith(suffix) else stem
        table = _per_group_table(source, name, list(columns), by)
        split = table.split_by(by, name, report)
        for key, column, values in table.series(split):
            found.append((stem, key, column, values))
    several = {"file": len(sources) > 1, "key": any(key for _, key, _, _ in found),
               "column": len({c for _, _, c, _ in found} - {None}) > 1}
    series = []
    for stem, key, column, values in found:
        label = ", ".join(key) if several["key"] else stem if several["file"] else column or stem
        if several["key"] and several["file"]:
            label = f"{stem}: {label}"
        if several["column"] and (several["key"] or several["file"]):
            label = f"{label}:{column}"
        defined = [v for v in values if not math.isnan(v)]
        series.append(Series(label, defined, len(values) - len(defined), column or "value"))
    if labels:
        if len(labels) != len(series):
            raise ValueError(f"{len(labels)} labels for {len(series)} series")
        for s, label in zip(series, labels):
            s.label = label
    return series


@dataclass
class _PerGroup:
    """A ``--per-group`` table read whole: its key columns, measure columns and rows."""

    keys: list
    columns: list
    rows: list  # (key values, {column: value})

    def split_by(self, by, name: str, report) -> list:
        """The key columns that split the table into boxes (see :func:`read_series`)."""
        varying = [k for k in self.keys if len({row[0][k] for row in self.rows}) > 1]
        if by is None:
            others = [k for k in varying if k != "system"]
            if others:
                values = sorted({row[0][others[0]] for row in self.rows})
                shown = ", ".join(values[:4]) + (", ..." if len(values) > 4 else "")
                raise DataError(f"the rows hold several {others[0]} values ({shown}): draw one box per "
                                f"value with --by {','.join(varying)}", name)
            return varying
        pooled = [k for k in varying if k not in by]
        if pooled:
            counts = ", ".join(f"{len({row[0][k] for row in self.rows})} {k} values" for k in pooled)
            report(f"{name}: each box pools the groups of {counts}; --by {','.join([*by, *pooled])} draws "
                   "one box per value")
        return list(by)

    def series(self, split: list):
        """(key, column, values) per box, in order of first appearance."""
        out: dict = {}
        for key_values, values in self.rows:
            key = tuple(str(key_values[k]) for k in split)
            for column in self.columns:
                out.setdefault((key, column), []).append(values[column])
        return [(key, column, values) for (key, column), values in out.items()] or \
            [((), column, []) for column in self.columns]


def _per_group_table(source, name: str, chosen: list, by) -> _PerGroup:
    """Read a ``--per-group`` table: key columns (before ``group``, and the ``--by`` ones) and the
    values of the chosen measure columns (default: its one measure column)."""
    table = None
    for line_no, record in records(source):
        if table is None:
            if "group" not in record:
                raise DataError("no group column: not a --per-group table (tau, ndcg, report, ... --per-group "
                                "write one)", name, line_no)
            if not chosen:
                found = [c for c in MEASURE_COLUMNS if c in record]
                if len(found) != 1:
                    raise DataError(f"cannot tell the measure column ({', '.join(found) or 'none of '}"
                                    f"{'' if found else ', '.join(MEASURE_COLUMNS)}); name it with "
                                    "--column", name, line_no)
                chosen = found
            for column in [*chosen, *(by or ())]:
                if column not in record:
                    raise DataError(f"no column {column!r}" + (" (--by)" if column not in chosen else ""),
                                    name, line_no)
            names = list(record)
            keys = names[:names.index("group")]
            keys += [b for b in (by or ()) if b not in keys]
            table = _PerGroup([k for k in keys if k not in chosen], chosen, [])
        table.rows.append(({k: str(record.get(k)) for k in table.keys},
                           {c: number(record[c], c, name, line_no) for c in table.columns}))
    return table or _PerGroup([], chosen or [None], [])  # an empty table: its column unknown


def scatter_panels(pairs: dict) -> list[ScatterPanel]:
    """Join each partition's two sides of system scores and correlate them (as ``correlate``)."""
    from ..aggregate.correlate import join_scores, system_correlations

    panels = []
    for key, (x_scores, y_scores) in pairs.items():
        items, x, y, unmatched = join_scores(x_scores, y_scores)
        correlations = {c.measure: c for c in system_correlations(x, y)}
        panels.append(ScatterPanel(key, list(items), [float(v) for v in x], [float(v) for v in y],
                                   correlations, unmatched))
    return panels


# --- the names drawn ---------------------------------------------------------------------------------

_SUBMISSION_ID = re.compile(r"^(?P<name>.+?)\.\d+$")


def short_name(system: str) -> str:
    """A system's name for a figure: its WMT id without the test set, the language pair and the
    submission number (``newstest2016.online-B.0.ro-en`` -> ``online-B``, ``OPPO.1481`` -> ``OPPO``)."""
    from ..formats.wmtids import system_key

    key = system_key(system)
    found = _SUBMISSION_ID.match(key)
    return found.group("name") if found else key


def display_names(systems, renames: dict | None = None, keep_ids: bool = False) -> list[str]:
    """The names drawn for ``systems`` (one panel's): ``renames`` first (by the full id, then by
    the short name), else the short name (:func:`short_name`) unless ``keep_ids``; where two
    systems would get the same short name, both keep their full id."""
    renames = renames or {}
    systems = [str(s) for s in systems]
    shorts = {s: s if keep_ids else short_name(s) for s in systems}
    taken: dict = {}
    for s in systems:
        taken.setdefault(shorts[s], []).append(s)
    out = []
    for s in systems:
        if s in renames:
            out.append(renames[s])
        elif shorts[s] in renames:
            out.append(renames[shorts[s]])
        else:
            out.append(shorts[s] if len(taken[shorts[s]]) == 1 else s)
    return out


def read_renames(source) -> dict:
    """``--rename FILE``: one ``OLD<TAB>NEW`` per line (``#`` comments and blank lines skipped);
    OLD is a system's full id or its short name."""
    from ..inputs import iter_lines, source_name

    name = source_name(source)
    renames: dict = {}
    for line_no, text in iter_lines(source):
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        fields = text.rstrip("\r\n").split("\t")
        if len(fields) != 2 or not fields[0] or not fields[1].strip():
            raise DataError("expected OLD<TAB>NEW (a system's id or short name, a tab, the name to draw)",
                            name, line_no)
        if fields[0] in renames:
            raise DataError(f"{fields[0]!r} is renamed twice", name, line_no)
        renames[fields[0]] = fields[1].strip()
    return renames
