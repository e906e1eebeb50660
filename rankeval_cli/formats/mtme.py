"""The mt-metrics-eval data layout (google-research/mt-metrics-eval, README "File organization").

One directory per test set (``wmt22``, ...) holding, for each language pair LP::

    human-scores/LP.NAME.LEVEL.score          NAME = mqm, wmt-z, da-sqm, ...
    metric-scores/LP/METRIC-REF.LEVEL.score   REF = refA, refA.refB, src (no reference), all
    references/LP.REF.txt                     (optional here: only its names are used)

LEVEL is ``seg`` or ``sys`` (``doc`` and ``domain`` files are not read). Each line
is ``SYSTEM SCORE`` separated by white space (the files use a tab); segment
files hold, for each system, one line per segment of the test set in order, so
a system's k-th line is test-set segment k. ``None`` marks a missing human
score; metric files may not contain it (mt-metrics-eval's ``ReadScoreFile`` and
``CheckScores``).

Systems named like a reference (``refA``) are human translations, as in
``EvalSet.human_sys_names``. The standard reference is not recorded in the data
(mt-metrics-eval keeps it in ``meta_info``): when the metric files use more than
one reference, it must be chosen (``refset``); metrics scored against any other
reference are left out, as ``GetCorrelations`` leaves them out.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field

import numpy as np

from ..errors import DataError
from ..inputs import iter_lines, source_name
from .sysseg import LongScores

LEVELS = ("seg", "sys")


def load_mtme_scores(source, name: str, level: str, allow_none: bool) -> LongScores:
    """A score file in long form: segment = the line's position within its system (1-based; 0 for sys)."""
    where = source_name(source)
    systems, texts, lines = [], [], []
    for number, line in iter_lines(source):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 2:
            raise DataError(f"expected 2 fields (SYSTEM SCORE) separated by white space, found {len(fields)}",
                            where, number)
        systems.append(fields[0])
        texts.append(fields[1])
        lines.append(number)
    system = np.array(systems, dtype=object)
    values = _values(texts, where, lines, allow_none)
    line = np.array(lines, dtype=np.int64)
    if level == "sys":
        segment = np.zeros(len(system), dtype=np.int64)
    else:
        segment = _positions(system)
    scores = LongScores(name=name, source=where, system=system, segment=segment, value=values, line=line)
    _check_lengths(scores, level)
    return scores


def _values(texts, where, lines, allow_none) -> np.ndarray:
    from .columns import parse_numbers

    if not texts:
        return np.empty(0)
    if "None" in texts and not allow_none:
        row = texts.index("None")
        raise DataError("a metric score may not be None (mt-metrics-eval allows None in human scores only)",
                        where, lines[row])
    return parse_numbers(["" if t == "None" else t for t in texts], "score", where, lines)


def _positions(system: np.ndarray) -> np.ndarray:
    """1-based count of each row among the earlier rows of its system."""
    if not len(system):
        return np.empty(0, dtype=np.int64)
    _, codes = np.unique(system, return_inverse=True)
    codes = codes.ravel()
    order = np.argsort(codes, kind="stable")
    sorted_codes = codes[order]
    starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
    run_start = np.repeat(starts, np.diff(np.r_[starts, len(codes)]))
    positions = np.empty(len(codes), dtype=np.int64)
    positions[order] = np.arange(len(codes)) - run_start + 1
    return positions


def _check_lengths(scores: LongScores, level: str) -> None:
    """Every system has the same number of segments (one score at system level)."""
    if not len(scores):
        return
    names, counts = np.unique(scores.system, return_counts=True)
    lengths, systems = np.unique(counts, return_counts=True)  # the odd system out is the one named
    expected = 1 if level == "sys" else int(lengths[systems == systems.max()].max())
    bad = np.flatnonzero(counts != expected)
    if len(bad):
        system = names[bad[0]]
        last = int(scores.line[scores.system == system].max())
        what = "one score" if level == "sys" else f"{expected} segment scores like the other systems"
        raise DataError(f"system {system} has {counts[bad[0]]} lines; expected {what}", scores.source, last)


def check_test_set(scores: LongScores, level: str, segments: int | None, systems: set | None,
                   segments_from: str) -> None:
    """Every system of a score file is a known system (when ``systems`` is known) and, at segment
    level, has exactly ``segments`` lines — a file of other length would pair every score with
    the wrong segment (mt-metrics-eval's ``CheckScores``). Errors name the file and line.
    """
    if not len(scores):
        return
    if systems is not None:
        unknown = np.flatnonzero(~np.isin(scores.system, list(systems)))
        if len(unknown):
            row = int(unknown[0])
            raise DataError(f"unknown system {scores.system[row]} (no output of it in {segments_from})",
                            scores.source, int(scores.line[row]))
    if level != "seg" or segments is None:
        return
    names, first, counts = np.unique(scores.system, return_index=True, return_counts=True)
    bad = np.flatnonzero(counts != segments)
    if len(bad):
        k = int(bad[np.argmin(first[bad])])
        rows = np.flatnonzero(scores.system == names[k])
        line = int(scores.line[rows[segments]] if counts[k] > segments else scores.line[rows[-1]])
        raise DataError(f"system {names[k]} has {counts[k]} segment scores, the test set {segments} "
                        f"({segments_from}); lines meet segments by position", scores.source, line)


def test_set_files(root: str, lp: str) -> tuple[int | None, set | None, str | None]:
    """(segments, systems, where): the test-set size from ``sources/LP.txt`` and the system names
    from ``system-outputs/LP/`` when the directory has them (None otherwise)."""
    source = os.path.join(root, "sources", f"{lp}.txt")
    segments = sum(1 for _ in iter_lines(source)) if os.path.isfile(source) else None
    outputs = os.path.join(root, "system-outputs", lp)
    names = {os.path.splitext(os.path.basename(p))[0] for p in glob.glob(os.path.join(outputs, "*.*"))}
    where = ", ".join(p for p, ok in ((source, segments is not None), (outputs, bool(names))) if ok) or None
    return segments, names or None, where


def parse_metric_filename(path: str) -> tuple[str, str, str] | None:
    """(metric, refs, level) from ``METRIC-REF.LEVEL.score``; None for other names."""
    base = os.path.basename(path)
    parts = base.rsplit(".", 2)
    if len(parts) != 3 or parts[2] != "score" or parts[1] not in ("sys", "domain", "doc", "seg"):
        return None
    if "-" not in parts[0]:
        raise DataError("expected a metric score file named METRIC-REF.LEVEL.score", path)
    metric, refs = parts[0].rsplit("-", 1)
    return metric, refs, parts[1]


@dataclass
class MtmeTask:
    """The files of one language pair in an mt-metrics-eval test-set directory."""

    lp: str
    human_seg: str
    human_sys: str | None
    metrics: dict[str, dict[str, str]] = field(default_factory=dict)  # metric -> {level: path}
    references: list[str] = field(default_factory=list)
    refset: str | None = None


def find_tasks(root: str, human_name: str | None = None, lps=None, refset: str | None = None) -> list[MtmeTask]:
    """The language pairs of a test-set directory that have segment-level human scores."""
    if not os.path.isdir(os.path.join(root, "human-scores")):
        raise DataError("not an mt-metrics-eval test-set directory (no human-scores/ inside)", root)
    found: dict[str, dict[str, str]] = {}
    for path in sorted(glob.glob(os.path.join(root, "human-scores", "*.score"))):
        parts = os.path.basename(path).split(".")
        if len(parts) < 4 or parts[-2] not in LEVELS:
            continue
        found.setdefault(parts[0], {})[(".".join(parts[1:-2]), parts[-2])] = path
    tasks = []
    for lp in sorted(found) if not lps else list(lps):
        files = found.get(lp)
        if files is None:
            raise DataError(f"no human scores for {lp} in {root}/human-scores", root)
        name = human_name or _default_human(lp, files, root)
        if (name, "seg") not in files:
            if human_name is None or lps:
                raise DataError(f"no segment-level human scores {lp}.{name}.seg.score", root)
            continue
        task = MtmeTask(lp=lp, human_seg=files[(name, "seg")], human_sys=files.get((name, "sys")))
        task.references = _references(root, lp)
        task.metrics, task.refset = _metric_files(root, lp, refset)
        tasks.append(task)
    if not tasks:
        raise DataError(f"no segment-level human scores{' named ' + human_name if human_name else ''}", root)
    return tasks


def _default_human(lp: str, files: dict, root: str) -> str:
    names = sorted({n for n, level in files if level == "seg"})
    if "mqm" in names:
        return "mqm"
    if len(names) == 1:
        return names[0]
    raise DataError(f"{lp} has several segment-level human scores ({', '.join(names)}); choose one", root)


def _references(root: str, lp: str) -> list[str]:
    paths = glob.glob(os.path.join(root, "references", f"{lp}.*.*"))
    return sorted({os.path.basename(p).split(".")[-2] for p in paths})


def _metric_files(root: str, lp: str, refset: str | None):
    """{metric: {level: path}} for the metrics scored without a reference or against ``refset`` only."""
    entries = []
    for path in sorted(glob.glob(os.path.join(root, "metric-scores", lp, "*.score"))):
        parsed = parse_metric_filename(path)
        if parsed and parsed[2] in LEVELS:
            entries.append((path, *parsed))
    used = sorted({refs for _, _, refs, _ in entries if refs not in ("src", "all")})
    if refset is None:
        if len(used) > 1:
            raise DataError(f"{lp}: metrics are scored against several references ({', '.join(used)}); "
                            "choose the standard one", os.path.join(root, "metric-scores", lp))
        refset = used[0] if used else None
    chosen = [(path, metric, refs, level) for path, metric, refs, level in entries if refs in ("src", refset)]
    variants: dict[str, set] = {}
    for _, metric, refs, _ in chosen:
        variants.setdefault(metric, set()).add(refs)
    metrics: dict[str, dict[str, str]] = {}
    for path, metric, refs, level in chosen:
        name = metric if len(variants[metric]) == 1 else f"{metric}-{refs}"  # both -src and -REF: full names
        metrics.setdefault(name, {})[level] = path
    return metrics, refset
