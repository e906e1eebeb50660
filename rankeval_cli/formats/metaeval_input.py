"""The inputs of a meta-evaluation, read and joined into one :class:`sysseg.SysSegTable` per language pair.

Two sources:

* files: human segment scores (:mod:`mqm` files, or mt-metrics-eval ``LP.NAME.seg.score``
  files), WMT metric score files (:mod:`wmt_long`; segment and system level, any
  number of metrics and language pairs each) and WMT test-set indexes
  (:mod:`testset_index`) to join WMT20-21 files;
* an mt-metrics-eval test-set directory (:mod:`mtme`).

Each language pair's scores go through :func:`sysseg.build_table`, which checks
that every join is one-to-one and chooses the systems. The metric score files are
read as work units (:func:`rankeval_cli.executor.map_units`: one file each, in
parallel with ``--jobs``), their notes printed in file order.
"""

from __future__ import annotations

import os
import re
from typing import Callable

from ..errors import DataError
from .sysseg import HUMAN_PATTERNS, LongScores, SysSegTable, SystemChoice, build_table
from .wmtids import normalize_lp

_MTME_HUMAN = re.compile(r"(?P<lp>[a-z]{2,3}-[a-z]{2,3})\.(?P<name>.+)\.seg\.score$")


def tables_from_files(humans, metric_files, indexes=(), lps=(), refset=None, include_human=False,
                      exclude=(), report: Callable[[str], None] | None = None) -> list[SysSegTable]:
    """One table per language pair of the human files (in their order), restricted to ``lps`` if given."""
    from .testset_index import read_index

    report = report or (lambda message: None)
    wanted = [normalize_lp(lp) for lp in lps]
    human_by_lp: dict[str, tuple[LongScores, str | None]] = {}
    for path in humans:
        lp, testset, scores = _read_human(path, wanted)
        if wanted and lp not in wanted:
            continue
        if lp in human_by_lp:
            raise DataError(f"a second human score file for {lp} (the first: {human_by_lp[lp][0].source})", path)
        human_by_lp[lp] = (scores, testset)
    missing = [lp for lp in wanted if lp not in human_by_lp]
    if missing:
        raise DataError(f"no human scores for {', '.join(missing)} among the --human files")
    index = read_index(list(indexes)) if indexes else None
    seg: dict[str, dict[str, LongScores]] = {lp: {} for lp in human_by_lp}
    sys_: dict[str, dict[str, LongScores]] = {lp: {} for lp in human_by_lp}
    testsets = {lp: t for lp, (_, t) in human_by_lp.items() if t}
    from ..executor import map_units

    read = map_units(_read_metric_file, [str(p) for p in metric_files], label="score files",
                     shared=(list(human_by_lp), index, testsets, refset))
    for path, (level, per_lp, notes) in zip(metric_files, read):
        for note in notes:
            report(note)
        for lp, metrics in per_lp.items():
            target = seg[lp] if level == "seg" else sys_[lp]
            for name, scores in metrics.items():
                if name in target:
                    raise DataError(f"{lp}: {level}-level scores of {name} given twice "
                                    f"(first in {target[name].source})", path)
                target[name] = scores
    for path in metric_files:
        if not any(s.source == str(path) for lp in seg for s in (*seg[lp].values(), *sys_[lp].values())):
            report(f"{path}: no scores for {', '.join(human_by_lp)}")
    choice = SystemChoice(include_human, tuple(exclude), HUMAN_PATTERNS, report)
    return [_build(lp, human, seg[lp], sys_[lp], None, choice) for lp, (human, _) in human_by_lp.items()]


def _read_metric_file(shared, path):
    """Work unit: one WMT metric score file's (level, {lp: {metric: LongScores}}, notes), read
    for the language pairs, test-set index, test sets and reference set in ``shared``."""
    from .wmt_long import wmt_long_scores

    lps, index, testsets, refset = shared
    notes: list[str] = []
    level, per_lp = wmt_long_scores(path, lps, index, testsets, refset, notes.append)
    return level, per_lp, notes


def _read_human(path, wanted) -> tuple[str, str | None, LongScores]:
    """(lp, test set, scores) of a human file: mt-metrics-eval by its name, else MQM."""
    from .mqm import load_mqm, lp_and_testset
    from .mtme import load_mtme_scores

    base = os.path.basename(str(path))
    found = _MTME_HUMAN.match(base)
    if found:
        return normalize_lp(found["lp"]), None, load_mtme_scores(path, found["name"], "seg", allow_none=True)
    lp, testset = lp_and_testset(base)
    if lp is None:
        if len(wanted) != 1:
            raise DataError("cannot tell the language pair from the file name (mqm_TESTSET_xxyy... or "
                            "LP.NAME.seg.score); give one --lp", path)
        lp = wanted[0]
    return lp, testset, load_mqm(path)


def tables_from_mtme(root, human_name=None, lps=(), refset=None, include_human=False, exclude=(),
                     report: Callable[[str], None] | None = None) -> list[SysSegTable]:
    """One table per language pair of an mt-metrics-eval test-set directory."""
    from .mtme import check_test_set, find_tasks, load_mtme_scores, test_set_files

    report = report or (lambda message: None)
    tables = []
    for task in find_tasks(root, human_name, [normalize_lp(lp) for lp in lps] or None, refset):
        name = os.path.basename(task.human_seg).split(".")[1]
        size, systems, where = test_set_files(root, task.lp)

        def load(path, score_name, level, allow_none):
            nonlocal size, where
            scores = load_mtme_scores(path, score_name, level, allow_none=allow_none)
            if size is None and level == "seg" and len(scores):  # no sources/: the human file sets the length
                size, where = int(scores.segment.max()), path
            check_test_set(scores, level, size, systems, where)
            return scores

        human = load(task.human_seg, name, "seg", True)
        human_sys = load(task.human_sys, name, "sys", True) if task.human_sys else None
        seg = {m: load(p["seg"], m, "seg", False) for m, p in task.metrics.items() if "seg" in p}
        sys_ = {m: load(p["sys"], m, "sys", False) for m, p in task.metrics.items() if "sys" in p}
        if task.refset:
            report(f"{root}: {task.lp}: metrics scored against {task.refset} or without a reference")
        # the reference in use is never a system (mt-metrics-eval)
        choice = SystemChoice(include_human, (*exclude, *([task.refset] if task.refset else [])),
                              (*HUMAN_PATTERNS, *task.references), report)
        tables.append(_build(task.lp, human, seg, sys_, human_sys, choice))
    return tables


def _build(lp, human, seg, sys_, human_sys, choice: SystemChoice):
    if not seg and not sys_:
        raise DataError(f"{lp}: no metric scores", human.source)
    return build_table(lp, human, seg, sys_, human_sys, choice)
