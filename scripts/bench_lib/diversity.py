"""W7: the diversity and C/W/L measures at MS MARCO scale — a run of 7,000 topics × 1,000 documents
(5% of the scores tied with the one above, topics numbered 1 … 7000 as ndeval reads them), diversity
qrels of 20 subtopics per topic (25 judged documents each, a line per subtopic, about 1 in 6 relevant),
and graded qrels of 25 judged documents per topic (grades 0-3) for nDCG@10 and the C/W/L models.

The cases: ndeval (the C program, ``--ndeval PATH``) and ``rankeval ndeval`` with ``-traditional``
(ndeval's order by score; the run's ranks agree with it), ``report`` with ten diversity measures, and
``report`` with nDCG@10 beside each C/W/L measure alone."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .plan import Case, rankeval_argv
from .workloads import SEED, VERSION, _chunks_of, _write_plain

DOCS, SUBTOPICS, JUDGED = 1000, 20, 25
DIVERSITY_MEASURES = ("ERR_IA@20", "nERR_IA@20", "alpha_DCG@20", "alpha_nDCG@20", "NRBP", "nNRBP", "AP_IA",
                      "P_IA@20", "StRecall@20", "alpha_nDCG@10")
CWL_MEASURES = ("INST(T=2.0,max_rel=3)", "INSQ(T=2.0,max_rel=3)", "BPM(T=2.0,max_rel=3)@20", "SDCG(max_rel=3)@10",
                "NERR8(max_rel=3)@10", "NERR9(max_rel=3)@10", "NERR10(max_rel=3)", "NERR11(T=2.0,max_rel=3)",
                "RBP(rel=1)")


@dataclass(frozen=True)
class DiversityWorkload:
    run: Path
    diversity: Path
    graded: Path
    topics: int


def _topics(start: int, count: int):
    """(topic numbers, docnos (count × DOCS), scores) of a chunk."""
    rng = np.random.default_rng([SEED, 60, start])
    topics = np.arange(start + 1, start + count + 1)
    first = rng.integers(0, 8_000_000, size=(count, 1))
    docs = first + np.arange(DOCS)[None, :] * 7901 + rng.integers(0, 7900, size=(count, DOCS))
    scores = np.round(np.sort(rng.gamma(9.0, 1.6, size=(count, DOCS)), axis=1)[:, ::-1] + 3.0, 4)
    tie = rng.random((count, DOCS)) < 0.05
    tie[:, 0] = False
    idx = np.where(tie, 0, np.arange(DOCS)[None, :])
    np.maximum.accumulate(idx, axis=1, out=idx)
    return rng, topics, docs, np.take_along_axis(scores, idx, axis=1)


def _run_text(n: int):
    for start, count in _chunks_of(n, 500):
        _, topics, docs, scores = _topics(start, count)
        yield "".join(f"{t} Q0 {d} {r} {s:.4f} div\n" for t, row_d, row_s in
                      zip(topics.tolist(), docs.tolist(), scores.tolist())
                      for r, (d, s) in enumerate(zip(row_d, row_s), 1))


def _judged(rng, docs_row):
    picks = np.unique(np.minimum(rng.geometric(0.03, size=JUDGED * 2) - 1, DOCS - 1))[:JUDGED]
    return [int(docs_row[p]) for p in picks]


def _qrels_text(n: int, graded: bool):
    for start, count in _chunks_of(n, 500):
        _, topics, docs, _ = _topics(start, count)
        rng = np.random.default_rng([SEED, 61 if graded else 62, start])
        lines = []
        for t, row in zip(topics.tolist(), docs):
            for d in _judged(rng, row):
                if graded:
                    lines.append(f"{t} 0 {d} {int(rng.choice(4, p=(0.5, 0.25, 0.15, 0.1)))}\n")
                else:
                    lines += [f"{t} {s} {d} {int(rng.random() < 0.17)}\n" for s in range(1, SUBTOPICS + 1)]
        yield "".join(lines)


def w7(folder: Path, n: int) -> DiversityWorkload:
    folder.mkdir(parents=True, exist_ok=True)
    names = {"run": f"w7-{n}-v{VERSION}.run", "diversity": f"w7-{n}-v{VERSION}.diversity.qrels",
             "graded": f"w7-{n}-v{VERSION}.graded.qrels"}
    makers = {"run": lambda: _run_text(n), "diversity": lambda: _qrels_text(n, False),
              "graded": lambda: _qrels_text(n, True)}
    paths = {}
    for key, name in names.items():
        paths[key] = folder / name
        if not paths[key].exists():
            _write_plain(paths[key], makers[key]())
    return DiversityWorkload(paths["run"], paths["diversity"], paths["graded"], n)


def w7_cases(rk, w7, ndeval: Path | None = None) -> list[Case]:
    binary = str(ndeval or "")
    report = lambda qrels, *names: rankeval_argv(rk, "report", *[x for m in names for x in ("-m", m)],  # noqa: E731
                                                  "--qrels", qrels, w7.run)
    cases = [
        Case("W7/ndeval", "W7", "ndeval -traditional (the C program)", [binary, "-traditional", w7.diversity, w7.run],
             tool="ndeval", needs=(f"exe:{binary}",), out="w7-ndeval.csv"),
        Case("W7/rk-ndeval", "W7", "rankeval ndeval -traditional, the same arguments",
             rankeval_argv(rk, "ndeval", "-traditional", w7.diversity, w7.run), needs=("cmd:ndeval",),
             out="w7-rk-ndeval.csv"),
        Case("W7/report-diversity", "W7", "rankeval report, 10 diversity measures", report(w7.diversity,
                                                                                        *DIVERSITY_MEASURES),
             needs=("cmd:report",), out="w7-report-diversity.tsv"),
        Case("W7/report-ndcg", "W7", "rankeval report -m nDCG@10 (graded qrels)", report(w7.graded, "nDCG@10"),
             needs=("cmd:report",), out="w7-report-ndcg.tsv"),
    ]
    for i, m in enumerate(CWL_MEASURES):
        cases.append(Case(f"W7/report-cwl{i}", "W7", f"rankeval report -m {m}", report(w7.graded, m),
                          needs=("cmd:report",), out=f"w7-report-cwl{i}.tsv"))
    return cases
