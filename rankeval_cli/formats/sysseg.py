"""Human and metric scores of one language pair joined into systems x segments matrices.

The meta-evaluation of MT metrics (Freitag et al. 2021-2024; google-research
mt-metrics-eval) works on one table per language pair: for every system and
every test-set segment, the human score (MQM, DA) and each metric's score. The
readers deliver scores in long form (:class:`LongScores`: one row per system and
segment, the segment named by its test-set number); :func:`build_table` places
them into float64 matrices ``(n_systems, n_segments)``, NaN = missing.

Every placement is checked to be one-to-one: two rows for the same (system,
segment) are a :class:`DataError` naming both lines. This is what catches a
wrong join key, e.g. the per-document SEGID of a WMT20 score file taken for the
test-set number (every system would get up to ~100 rows for segment 1).

Systems are chosen as mt-metrics-eval's ``GetCorrelations`` chooses them: those
with at least one human segment score; minus human translations (names matching
``Human-*`` or a reference name of an mt-metrics-eval directory) unless
``include_human``; minus ``--exclude-systems`` patterns. A metric must score every
(system, segment) cell the humans scored, for every chosen system: a missing MT
system or cell is an error. A human translation a metric does not score (it is
that metric's reference) is left out of the whole table, with a note, as
mt-metrics-eval always leaves out the systems of the references in use.

System-level scores come from system-level files where given (a metric's
``.sys.score``, mt-metrics-eval's ``LP.NAME.sys.score``); otherwise they are
the mean of the system's available segment scores (how MQM system scores are
defined, Freitag et al. 2021; ``sys_origin`` says which). A metric's own
system score (corpus-level chrF or BLEU) is not the mean of its segment
scores, so ``meta-eval`` names the metrics whose system scores are means
(:func:`rankeval_cli.stats.table_notes.segment_means`).
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import Callable, Iterable

import numpy as np

from ..errors import DataError

#: Systems that are human translations in WMT19-21 naming (``Human-A.0``, ``Human-B.0``).
HUMAN_PATTERNS = ("Human-*",)


@dataclass
class LongScores:
    """Scores in long form: parallel arrays, one row per (system, segment) score.

    ``segment`` is the test-set segment number (1-based; 0 for system-level scores),
    ``value`` NaN where the file says ``None``.
    """

    name: str
    source: str
    system: np.ndarray  # object array of system names
    segment: np.ndarray  # int64
    value: np.ndarray  # float64
    line: np.ndarray  # int64 source line of each row

    def __len__(self) -> int:
        return len(self.value)


@dataclass
class SysSegTable:
    """One language pair's scores: ``human`` and each metric as (n_systems, n_segments) matrices."""

    lp: str
    systems: list[str]
    segments: np.ndarray  # int64 test-set segment numbers, ascending
    human: np.ndarray  # float64 (n_sys, n_seg), NaN = missing
    human_sys: np.ndarray  # float64 (n_sys,)
    metrics: dict[str, np.ndarray | None] = field(default_factory=dict)  # name -> (n_sys, n_seg) or None
    metrics_sys: dict[str, np.ndarray] = field(default_factory=dict)  # name -> (n_sys,)
    sys_origin: dict[str, str] = field(default_factory=dict)  # name -> "file" or "mean"
    human_name: str = "human"

    @property
    def metric_names(self) -> list[str]:
        return list(self.metrics_sys)


def place(scores: LongScores, systems: list[str], segments: np.ndarray) -> tuple[np.ndarray, int]:
    """The (n_sys, n_seg) matrix of ``scores`` and the number of rows outside it.

    Rows of other systems or segments are left out (counted); two rows for one
    cell are a DataError naming both lines: the join must be one-to-one.
    """
    codes = {s: i for i, s in enumerate(systems)}
    sys_pos = np.fromiter((codes.get(s, -1) for s in scores.system.tolist()), dtype=np.int64, count=len(scores))
    seg_pos = np.searchsorted(segments, scores.segment)
    seg_pos = np.minimum(seg_pos, max(len(segments) - 1, 0))
    inside = (sys_pos >= 0) & (len(segments) > 0)
    if len(segments):
        inside &= segments[seg_pos] == scores.segment
    rows = np.flatnonzero(inside)
    cell = sys_pos[rows] * len(segments) + seg_pos[rows]
    _check_one_to_one(scores, rows, cell)
    matrix = np.full((len(systems), len(segments)), np.nan)
    matrix.reshape(-1)[cell] = scores.value[rows]
    return matrix, int(len(scores) - len(rows))


def _check_one_to_one(scores: LongScores, rows: np.ndarray, cell: np.ndarray) -> None:
    order = np.argsort(cell, kind="stable")
    repeated = np.flatnonzero(cell[order][1:] == cell[order][:-1])
    if not len(repeated):
        return
    first, second = rows[order[repeated[0]]], rows[order[repeated[0] + 1]]
    level = "system level" if scores.segment[first] == 0 else f"segment {scores.segment[first]}"
    raise DataError(f"the join is not one-to-one: {scores.name} has a second score for system "
                    f"{scores.system[first]}, {level} (first at line {scores.line[first]}); "
                    "are segments numbered within documents? join through the test-set index",
                    scores.source, int(scores.line[second]))


def matches(names: Iterable[str], patterns: Iterable[str]) -> list[bool]:
    """Whether each name matches any shell-style pattern."""
    patterns = list(patterns)
    return [any(fnmatch.fnmatchcase(n, p) for p in patterns) for n in names]


@dataclass(frozen=True)
class SystemChoice:
    """Which systems a table keeps (module docstring): human translations (names matching
    ``human_patterns``) only with ``include_human``, none matching an ``exclude`` pattern;
    ``report`` hears of the systems left out."""

    include_human: bool = False
    exclude: tuple = ()
    human_patterns: tuple = HUMAN_PATTERNS
    report: Callable[[str], None] | None = None


def build_table(lp: str, human: LongScores, metrics_seg: dict[str, LongScores],
                metrics_sys: dict[str, LongScores], human_sys: LongScores | None = None,
                choice: SystemChoice = SystemChoice()) -> SysSegTable:
    """Join one language pair's human and metric scores (rules in the module docstring)."""
    report = choice.report or (lambda message: None)
    segments = np.unique(human.segment[~np.isnan(human.value)]) if len(human) else np.empty(0, np.int64)
    everyone = sorted(set(human.system.tolist()))
    matrix, _ = place(human, everyone, segments)
    rated = [s for s, row in zip(everyone, matrix) if not np.isnan(row).all()]
    systems = _choose_systems(lp, rated, choice, report, human.source)
    rows = [everyone.index(s) for s in systems]
    seg = {name: _metric_matrix(scores, systems, segments, matrix[rows]) for name, scores in metrics_seg.items()}
    names = list(dict.fromkeys([*metrics_seg, *metrics_sys]))
    sys_level = {name: place(metrics_sys[name], systems, np.zeros(1, np.int64))[0][:, 0]
                 for name in names if name in metrics_sys}
    unscored = _unscored_systems(lp, systems, seg, sys_level, metrics_seg, metrics_sys, choice.human_patterns)
    if unscored:
        report(f"{lp}: left out {', '.join(sorted(unscored))}: human translation(s) that "
               f"{', '.join(sorted({m for ms in unscored.values() for m in ms}))} do not score "
               "(their references)")
    keep = np.array([s not in unscored for s in systems], dtype=bool)
    systems = [s for s, k in zip(systems, keep) if k]
    human_matrix = matrix[rows][keep]
    table = SysSegTable(lp=lp, systems=systems, segments=segments, human=human_matrix,
                        human_sys=_human_system_scores(human_sys, systems, human_matrix, human.name),
                        human_name=human.name)
    for name in names:
        m = seg.get(name)
        table.metrics[name] = None if m is None else m[keep]
        if name in sys_level:
            table.metrics_sys[name], table.sys_origin[name] = sys_level[name][keep], "file"
        else:
            table.metrics_sys[name], table.sys_origin[name] = _row_means(table.metrics[name]), "mean"
    return table


def _choose_systems(lp, rated, choice: SystemChoice, report, source=None) -> list[str]:
    include_human, exclude = choice.include_human, choice.exclude
    human = matches(rated, choice.human_patterns)
    excluded = matches(rated, exclude) if exclude else [False] * len(rated)
    chosen = [s for s, h, x in zip(rated, human, excluded) if (include_human or not h) and not x]
    dropped_human = [s for s, h, x in zip(rated, human, excluded) if h and not include_human and not x]
    if dropped_human:
        report(f"{lp}: left out the human translations {', '.join(dropped_human)} (--include-human keeps them)")
    if any(excluded):
        report(f"{lp}: excluded {sum(excluded)} systems matching {', '.join(exclude)}")
    if len(chosen) < 2:
        raise DataError(f"{lp}: {len(chosen)} system(s) with human scores left; "
                        "a meta-evaluation needs at least 2", source)
    return chosen


def _metric_matrix(scores: LongScores, systems, segments, human: np.ndarray) -> np.ndarray:
    """The metric's matrix; its values must be present wherever the human score is (else an error)."""
    matrix, _ = place(scores, systems, segments)
    if np.isnan(scores.value).any():
        row = int(np.flatnonzero(np.isnan(scores.value))[0])
        raise DataError(f"{scores.name}: a metric score may not be missing (None)", scores.source,
                        int(scores.line[row]))
    gap = np.isnan(matrix) & ~np.isnan(human)
    for i in np.flatnonzero(gap.any(axis=1)).tolist():
        if np.isnan(matrix[i]).all():
            continue  # a system the metric does not score at all: decided by _unscored_systems
        j = int(np.flatnonzero(gap[i])[0])
        raise DataError(f"{scores.name} has no score for system {systems[i]}, segment {segments[j]}, "
                        f"which the humans scored ({int(gap[i].sum())} such segments)", scores.source)
    return matrix


def _unscored_systems(lp, systems, seg, sys_level, metrics_seg, metrics_sys, human_patterns) -> dict:
    """Human translations some metric does not score (-> left out); an MT system so is an error."""
    unscored: dict[str, list[str]] = {}
    human = dict(zip(systems, matches(systems, human_patterns)))
    for level, matrices, sources in (("segment", seg, metrics_seg), ("system", sys_level, metrics_sys)):
        for name, matrix in matrices.items():
            missing = np.isnan(matrix).all(axis=1) if matrix.ndim == 2 else np.isnan(matrix)
            for i in np.flatnonzero(missing).tolist():
                if not human[systems[i]]:
                    raise DataError(f"{lp}: {name} has no {level}-level scores for system {systems[i]}",
                                    sources[name].source)
                unscored.setdefault(systems[i], []).append(name)
    return unscored


def _human_system_scores(human_sys: LongScores | None, systems, matrix, name) -> np.ndarray:
    if human_sys is None:
        return _row_means(matrix)
    values = place(human_sys, systems, np.zeros(1, np.int64))[0][:, 0]
    if np.isnan(values).any():
        missing = systems[int(np.flatnonzero(np.isnan(values))[0])]
        raise DataError(f"{name}: no system-level human score for {missing}", human_sys.source)
    return values


def _row_means(matrix: np.ndarray | None) -> np.ndarray | None:
    """Mean of each row over its present values (NaN for a row with none)."""
    if matrix is None:
        return None
    present = ~np.isnan(matrix)
    counts = present.sum(axis=1)
    sums = np.where(present, matrix, 0.0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


def system_score_records(tables: list[SysSegTable]) -> list[dict]:
    """Every language pair's system scores in long form, as ``meta-eval --system-scores`` writes them:
    ``lp metric system human value sys_scores`` (``sys_scores``: ``file`` or ``mean``), the systems
    and scores every system-level statistic of the table was computed on."""
    out = []
    for t in tables:
        for name in t.metric_names:
            scores = t.metrics_sys.get(name)
            if scores is None:
                continue
            out += [{"lp": t.lp, "metric": name, "system": system, "human": float(h), "value": float(m),
                     "sys_scores": t.sys_origin.get(name)}
                    for system, h, m in zip(t.systems, t.human_sys, scores)]
    return out
