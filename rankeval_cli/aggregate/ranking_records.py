"""Rankings as output records (one per system) and the counts reported on stderr.

One column: ``[BY...] system value rank [rank_ci_low rank_ci_high cluster] signature``,
best first. ``--column both``: one row per system, ``[BY...] system gold_value gold_rank
[gold_rank_ci_low gold_rank_ci_high gold_cluster] pred_value pred_rank [pred_rank_ci_low
...] signature``, in gold order (systems ranked only on the pred side follow in pred
order; missing cells are empty). A system whose value is undefined (NaN: never
compared) gets no rank.
"""

from __future__ import annotations

import math

from ..signature import signature
from .registry import canonical


def table_signature(method: str, column: str, options: dict, bootstrap: int = 0, seed: int | None = None,
                    command: str = "aggregate", level: float | None = None) -> str:
    """``aggregate|method:...|column:...|...|v:VERSION`` (``borda|...`` for ``rankeval borda``)."""
    method = canonical(method)
    settings = {"method": None if command == "borda" else method, "column": column}
    if method == "borda":
        settings.update(missing=options.get("borda_missing"), points=options.get("borda_points"))
    elif method == "fv":
        settings["denominator"] = options.get("fv_denominator")
    elif method == "kemeny":
        settings["search"] = "local" if options.get("approximate") else "exact"
    elif method == "bradley-terry":
        settings.update(alpha=options.get("bt_alpha"), ties=options.get("bt_ties"))
    elif method == "trueskill":  # random even without repeated runs: the seed always counts
        from .trueskill import DEFAULT_SEED, DRAW_PROBABILITY, MU0, SIGMA0, TAU

        settings.update(mu0=MU0, sigma0=SIGMA0, beta="sigma0*plays/40", tau=TAU, draw=DRAW_PROBABILITY,
                        runs=bootstrap or 1, resample="yes" if bootstrap else "no",
                        seed=DEFAULT_SEED if seed is None else seed)
        if bootstrap:
            settings["ci"] = repr(float(level or 0.95))
        return signature(command, **settings)
    if bootstrap:
        settings.update(ci=repr(float(level or 0.95)), bootstrap=bootstrap, seed=seed)
    return signature(command, **settings)


def _cells(ranking, position: int, prefix: str) -> dict:
    score = float(ranking.scores[position])
    cells = {f"{prefix}value": score,
             f"{prefix}rank": None if math.isnan(score) else int(ranking.ranks[position])}
    if ranking.lo is not None:
        cells.update({f"{prefix}rank_ci_low": int(ranking.lo[position]),
                      f"{prefix}rank_ci_high": int(ranking.hi[position]),
                      f"{prefix}cluster": int(ranking.cluster[position])})
    return cells


def _empty_cells(ranking, prefix: str) -> dict:
    cells = {f"{prefix}value": None, f"{prefix}rank": None}
    if ranking.lo is not None:
        cells.update({f"{prefix}rank_ci_low": None, f"{prefix}rank_ci_high": None, f"{prefix}cluster": None})
    return cells


def ranking_records(rankings, by, column: str, method: str, options: dict,
                    seed: int | None = None, command: str = "aggregate", level: float | None = None):
    """Output records of :func:`.run.aggregate`'s rankings (see module doc)."""
    by = tuple(by)
    partitions: dict = {}
    for ranking in rankings:
        partitions.setdefault(ranking.key, {})[ranking.column] = ranking
    for key, sides in partitions.items():
        first = next(iter(sides.values()))
        sig = table_signature(method, column, options, first.replicates,
                              seed if first.replicates or first.method == "trueskill" else None, command, level)
        head = dict(zip(by, key))
        if column != "both":
            ranking = sides[column]
            for pos, item in enumerate(ranking.items):
                yield {**head, "system": item, **_cells(ranking, pos, ""), "signature": sig}
            continue
        gold, pred = sides["gold"], sides["pred"]
        gold_pos = {item: p for p, item in enumerate(gold.items)}
        pred_pos = {item: p for p, item in enumerate(pred.items)}
        items = list(gold.items) + [i for i in pred.items if i not in gold_pos]
        for item in items:
            g = _cells(gold, gold_pos[item], "gold_") if item in gold_pos else _empty_cells(gold, "gold_")
            p = _cells(pred, pred_pos[item], "pred_") if item in pred_pos else _empty_cells(pred, "pred_")
            yield {**head, "system": item, **g, **p, "signature": sig}


def report_counts(rankings, by, warn) -> None:
    """Blank values and empty groups go to stderr (never dropped silently)."""
    for ranking in rankings:
        where = ", ".join(f"{b}={k}" for b, k in zip(by, ranking.key))
        where = f" ({where})" if where else ""
        if ranking.blank_rows:
            warn(f"{ranking.column}{where}: {ranking.blank_rows} blank values not ranked")
        if getattr(ranking, "idle_plays", 0):
            warn(f"{ranking.column}{where}: {ranking.idle_plays} TrueSkill play(s) drew a pair of systems "
                 "never compared and changed nothing")
        if ranking.empty_groups:
            warn(f"{ranking.column}{where}: {ranking.empty_groups} group(s) with no ranked item skipped")


def read_table(source, by=()) -> tuple[dict, list]:
    """Read an aggregate/borda output table (TSV with header, or JSON lines).

    Returns ``({key: {column: {system: value}}}, columns)`` where the columns are the
    value columns found: ``value``, or ``gold_value`` and ``pred_value`` (tables written
    before 1.0 are read under these names). Empty, ``nan`` or null values are NaN.
    """
    from ..errors import DataError
    from ..formats.summary_reader import read_summaries
    from ..inputs import source_name

    name = source_name(source)
    table: dict = {}
    score_columns: list = []
    for line_no, record in read_summaries(source):
        if not score_columns:
            score_columns = _score_columns(record, name, line_no)
        for column in ("system", *by):
            if column not in record:
                raise DataError(f"no {column!r} column in an aggregate table", name, line_no)
        key = tuple(str(record[b]) for b in by)
        cells = table.setdefault(key, {c: {} for c in score_columns})
        for column in score_columns:
            cells[column][str(record["system"])] = _number(record.get(column), column, name, line_no)
    return table, score_columns


def _score_columns(record: dict, name, line_no) -> list:
    from ..errors import DataError

    if "gold_value" in record and "pred_value" in record:
        return ["gold_value", "pred_value"]
    if "value" in record:
        return ["value"]
    raise DataError("not an aggregate table: expected a value column or gold_value and pred_value",
                    name, line_no)


def _number(value, column, name, line_no) -> float:
    from ..errors import DataError

    if value is None or value == "" or (isinstance(value, str) and value.lower() == "nan"):
        return math.nan
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise DataError(f"{column}: not a number: {value!r}", name, line_no) from None
    return number
