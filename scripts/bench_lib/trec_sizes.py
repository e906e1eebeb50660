"""TREC at the sizes most users have: pooled collections of 50 and 255 topics, runs of 1,000
documents per topic, and many runs of one collection (the ``TREC`` workload of scripts/bench).

Per topic a pool of 4,000 documents; the qrels judge 800 of them (grade 0 for 80%, 1 for 14%,
2 for 6%), as a TREC ad hoc pool does; each run ranks 1,000 documents of the pool (relevant
ones drawn a little more often), scores with four decimals, 5% of them tied with the score
above. Deterministic (numpy's PCG64 from fixed seeds), written once into the scratch folder.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .workloads import SEED, _write_plain

POOL, JUDGED, DOCS = 4000, 800, 1000
GRADE_P = (0.80, 0.14, 0.06)
VERSION = 1


@dataclass(frozen=True)
class TrecCollection:
    qrels: Path
    runs: list  # of Path
    topics: int


def _pool(q: int):
    rng = np.random.default_rng([SEED, 71, q])
    pool = rng.choice(2_000_000, POOL, replace=False)
    judged = rng.choice(POOL, JUDGED, replace=False)
    grades = rng.choice(3, size=JUDGED, p=GRADE_P)
    return pool, judged, grades


def _qrels_text(topics: int):
    lines = []
    for q in range(topics):
        pool, judged, grades = _pool(q)
        lines.extend(f"{401 + q} 0 FT{pool[j]:07d} {g}\n" for j, g in zip(judged.tolist(), grades.tolist()))
    yield "".join(lines)


def _run_text(topics: int, r: int):
    lines = []
    for q in range(topics):
        pool, judged, grades = _pool(q)
        rng = np.random.default_rng([SEED, 72, r, q])
        weight = np.ones(POOL)
        weight[judged[grades > 0]] = 4.0
        docs = pool[rng.choice(POOL, DOCS, replace=False, p=weight / weight.sum())]
        scores = np.round(np.sort(rng.gamma(9.0, 1.6, DOCS))[::-1] + 3.0, 4)
        tied = rng.random(DOCS) < 0.05
        tied[0] = False
        idx = np.where(tied, 0, np.arange(DOCS))
        scores = scores[np.maximum.accumulate(idx)]
        lines.extend(f"{401 + q} Q0 FT{d:07d} {i} {s:.4f} run{r:03d}\n"
                     for i, (d, s) in enumerate(zip(docs.tolist(), scores.tolist())))
    yield "".join(lines)


def collection(folder: Path, topics: int, runs: int) -> TrecCollection:
    """``runs`` runs of ``topics`` topics x 1,000 documents and their qrels, under ``folder``."""
    folder = folder / f"trec-{topics}-v{VERSION}"
    folder.mkdir(parents=True, exist_ok=True)
    qrels = folder / "qrels"
    if not qrels.exists():
        _write_plain(qrels, _qrels_text(topics))
    paths = []
    for r in range(runs):
        path = folder / f"run{r:03d}"
        if not path.exists():
            _write_plain(path, _run_text(topics, r))
        paths.append(path)
    return TrecCollection(qrels, paths, topics)


def cases(rk, small: TrecCollection, large: TrecCollection, trec_eval: Path | None) -> list:
    """``rankeval trec_eval -m all_trec`` beside trec_eval's binary on 50 topics (with and
    without -q), on 255 topics, and on all of ``small``'s runs: one rankeval call against a
    shell loop calling the binary once per run (the outputs are then the same bytes)."""
    from .plan import Case, rankeval_argv

    binary, ours = str(trec_eval or ""), ("cmd:trec_eval",)
    needs = (f"exe:{binary}",)
    out = []
    for key, what, args in (("50", f"{small.topics} topics", [small.qrels, small.runs[0]]),
                            ("50q", f"{small.topics} topics, -q", ["-q", small.qrels, small.runs[0]]),
                            ("255", f"{large.topics} topics", [large.qrels, large.runs[0]])):
        out.append(Case(f"TREC/te-{key}", "TREC", f"trec_eval -m all_trec, {what} (binary)",
                        [binary, "-m", "all_trec", *map(str, args)], tool="trec_eval", needs=needs,
                        out=f"trec-te-{key}.txt"))
        out.append(Case(f"TREC/rk-{key}", "TREC", "rankeval trec_eval, the same arguments",
                        rankeval_argv(rk, "trec_eval", "-m", "all_trec", *args), needs=ours, out=f"trec-rk-{key}.txt"))
    runs = " ".join(f"'{p}'" for p in small.runs)
    n = len(small.runs)
    out.append(Case("TREC/te-runs", "TREC", f"trec_eval -m all_trec on {n} runs: {n} calls (a shell loop)",
                    f"for r in {runs}; do '{binary}' -m all_trec '{small.qrels}' \"$r\"; done", tool="trec_eval",
                    needs=needs, out="trec-te-runs.txt"))
    out.append(Case("TREC/rk-runs", "TREC", f"rankeval trec_eval -m all_trec QRELS RUN1 ... RUN{n}: one call",
                    rankeval_argv(rk, "trec_eval", "-m", "all_trec", small.qrels, *small.runs), needs=ours,
                    out="trec-rk-runs.txt"))
    return out


#: (label, ours, the binary's, at most this many times the binary's wall time)
TIME_TARGETS = (("50 topics -m all_trec: wall time vs trec_eval", "TREC/rk-50", "TREC/te-50", 3),
                ("50 topics -q -m all_trec: wall time vs trec_eval", "TREC/rk-50q", "TREC/te-50q", 3),
                ("255 topics -m all_trec: wall time vs trec_eval", "TREC/rk-255", "TREC/te-255", 1),
                ("100 runs in one call vs 100 calls of trec_eval", "TREC/rk-runs", "TREC/te-runs", 1))
#: (label, ours, the binary's, at most this many times the binary's peak RSS)
MEMORY_TARGETS = (("255 topics -m all_trec: peak RSS vs trec_eval", "TREC/rk-255", "TREC/te-255", 2),)
#: (ours, the binary's, what): outputs that must be the same bytes
SAME_BYTES = (("TREC/rk-50", "TREC/te-50", "50 topics"), ("TREC/rk-50q", "TREC/te-50q", "50 topics, -q"),
              ("TREC/rk-255", "TREC/te-255", "255 topics"), ("TREC/rk-runs", "TREC/te-runs", "100 runs"))
