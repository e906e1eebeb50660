"""Deterministic synthetic workloads, written once into the scratch directory.

Every file is produced from ``numpy.random.default_rng(SEED + k)`` (PCG64 is stable
across numpy versions), in chunks so generating ten million groups stays small in
memory. A file is written to a temporary name and renamed, so an interrupted run
never leaves a half file that a later run would take for a finished one.

W1  shared-task scale: G groups x 5 items; gold = uniform integer ranks 1..5 (ties),
    pred = gold + an integer in -2..2 clipped to 1..5 (ties, correlated with gold).
W1t the same groups with tie-free predictions (pred + a distinct tenth per item):
    the data on which trec_eval's document-id tie-break cannot matter.
W2  IR scale: G queries x 100 documents; gold = grade 0..4 (half zero, at least one
    positive per query); pred = a real-valued score, higher = better, distinct
    within a query (integer part = rank of a noisy latent score, plus a fraction < 0.9).
W3  one group of N items; gold = integers 1..1000 (ties), pred = gold + rounded
    normal noise (ties).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

SEED = 20130601  # RankEval's publication month; any constant would do
VERSION = 1  # bump when a generator changes, so cached files are rebuilt
HEADER = "group\titem\tgold\tpred\n"
CHUNK_GROUPS = 200_000


@dataclass(frozen=True)
class Workload:
    name: str
    path: Path
    groups: int
    items: int  # per group


def _write(path: Path, chunks) -> Path:
    """Write an iterable of text chunks to ``path`` atomically (tmp + rename)."""
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "w", encoding="ascii", newline="\n") as out:
        out.write(HEADER)
        for text in chunks:
            out.write(text)
    os.replace(tmp, path)
    return path


def _ensure(path: Path, make) -> Path:
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        _write(path, make())
    return path


def _rows(groups, items, gold, pred) -> str:
    """TSV text of rows; ``groups``/``items`` are lists of ids, gold/pred lists of text."""
    return "".join(f"{g}\t{i}\t{a}\t{b}\n" for g, i, a, b in zip(groups, items, gold, pred))


def _chunks(total: int):
    for start in range(0, total, CHUNK_GROUPS):
        yield start, min(CHUNK_GROUPS, total - start)


def w1_arrays(rng: np.random.Generator, count: int):
    """Gold and pred integer ranks, shape (count, 5)."""
    gold = rng.integers(1, 6, size=(count, 5))
    pred = np.clip(gold + rng.integers(-2, 3, size=(count, 5)), 1, 5)
    return gold, pred


def _w1_text(n_groups: int, tie_free: bool, seed_offset: int):
    items = [f"sys{j}" for j in range(1, 6)]
    for start, count in _chunks(n_groups):
        rng = np.random.default_rng([SEED, seed_offset, start])
        gold, pred = w1_arrays(rng, count)
        pred_text = pred.astype(str)
        if tie_free:
            tenth = np.argsort(rng.random((count, 5)), axis=1)  # distinct 0..4 per group
            pred_text = np.char.add(np.char.add(pred_text, "."), tenth.astype(str))
        ids = [f"s{g:08d}" for g in range(start, start + count) for _ in range(5)]
        yield _rows(ids, items * count, gold.ravel().astype(str).tolist(), pred_text.ravel().tolist())


def w1(folder: Path, n_groups: int, tie_free: bool = False, x10: bool = False) -> Workload:
    name = "W1x10" if x10 else ("W1t" if tie_free else "W1")
    path = folder / f"{name.lower()}-{n_groups}-v{VERSION}.tsv"
    _ensure(path, lambda: _w1_text(n_groups, tie_free, 1))
    return Workload(name, path, n_groups, 5)


W2_ITEMS = 100
GRADE_P = (0.5, 0.2, 0.15, 0.1, 0.05)


def w2_arrays(rng: np.random.Generator, count: int):
    """Grades (count, 100) with a positive one per row; distinct real scores."""
    grade = rng.choice(5, size=(count, W2_ITEMS), p=GRADE_P)
    none = grade.max(axis=1) == 0
    grade[none, rng.integers(0, W2_ITEMS, size=int(none.sum()))] = 1
    latent = grade + rng.normal(0.0, 1.5, size=grade.shape)
    rank = np.argsort(np.argsort(latent, axis=1), axis=1)  # 0..99, distinct within a row
    score = rank + rng.random(grade.shape) * 0.9
    return grade, score


def _w2_text(n_groups: int):
    items = [f"d{j:02d}" for j in range(W2_ITEMS)]
    for start, count in _chunks(n_groups):
        rng = np.random.default_rng([SEED, 2, start])
        grade, score = w2_arrays(rng, count)
        ids = [f"q{g:07d}" for g in range(start, start + count) for _ in range(W2_ITEMS)]
        scores = [f"{s:.6f}" for s in score.ravel().tolist()]
        yield _rows(ids, items * count, grade.ravel().astype(str).tolist(), scores)


def w2(folder: Path, n_groups: int) -> Workload:
    path = folder / f"w2-{n_groups}-v{VERSION}.tsv"
    _ensure(path, lambda: _w2_text(n_groups))
    return Workload("W2", path, n_groups, W2_ITEMS)


def _w3_text(n_items: int):
    rng = np.random.default_rng([SEED, 3])
    gold = rng.integers(1, 1001, size=n_items)
    pred = gold + np.rint(rng.normal(0.0, 200.0, size=n_items)).astype(np.int64)
    step = 1_000_000
    for start in range(0, n_items, step):
        stop = min(n_items, start + step)
        items = [f"i{j:07d}" for j in range(start, stop)]
        yield _rows(["g1"] * (stop - start), items, gold[start:stop].astype(str).tolist(),
                    pred[start:stop].astype(str).tolist())


def w3(folder: Path, n_items: int) -> Workload:
    path = folder / f"w3-{n_items}-v{VERSION}.tsv"
    _ensure(path, lambda: _w3_text(n_items))
    return Workload("W3", path, 1, n_items)


def tiny(folder: Path) -> Workload:
    """The 10-line input of the start-up measurement (header + 9 rows)."""
    path = folder / f"tiny-v{VERSION}.tsv"
    rows = "".join(f"g{g}\tsys{j}\t{j}\t{(j + g) % 3 + 1}\n" for g in range(3) for j in range(1, 4))
    _ensure(path, lambda: [rows])
    return Workload("tiny", path, 3, 3)


# W5: MS MARCO scale, TREC files ---------------------------------------------------------------

W5_DOCS = 1000
W5_CORPUS = 8_841_823  # MS MARCO passages: docnos 0..8841822


def _w5_queries(n_queries: int, start: int, count: int):
    """(qids, docnos (count × 1000), scores, relevant docnos per query) of a chunk."""
    rng = np.random.default_rng([SEED, 5, start])
    qids = 1_000_000 + (np.arange(start, start + count) * 7919) % 9_000_000
    # distinct docnos within a query: a random start plus strides of 7901 and a jitter below 7900
    first = rng.integers(0, W5_CORPUS, size=(count, 1))
    docs = (first + np.arange(W5_DOCS)[None, :] * 7901 + rng.integers(0, 7900, size=(count, W5_DOCS))) % W5_CORPUS
    docs = np.take_along_axis(docs, np.argsort(rng.random((count, W5_DOCS)), axis=1), axis=1)
    scores = np.round(np.sort(rng.gamma(9.0, 1.6, size=(count, W5_DOCS)), axis=1)[:, ::-1] + 3.0, 4)
    tie = rng.random((count, W5_DOCS)) < 0.05  # 5% of the rows copy the score above them
    tie[:, 0] = False
    idx = np.where(tie, 0, np.arange(W5_DOCS)[None, :])
    np.maximum.accumulate(idx, axis=1, out=idx)
    scores = np.take_along_axis(scores, idx, axis=1)
    return rng, qids, docs, scores


def _w5_run_text(n_queries: int):
    for start, count in _chunks_of(n_queries, 500):
        _, qids, docs, scores = _w5_queries(n_queries, start, count)
        lines = []
        for q, row_d, row_s in zip(qids.tolist(), docs.tolist(), scores.tolist()):
            lines.append("".join(f"{q} Q0 {d} {r} {s:.4f} bm25\n" for r, (d, s) in enumerate(zip(row_d, row_s), 1)))
        yield "".join(lines)


def _w5_qrels_text(n_queries: int, graded: bool):
    """Sparse binary qrels (about 1.1 relevant passages per query, most retrieved, rank skewed
    to the top) or a graded variant (grades 0-3 on 40 judged passages per query)."""
    for start, count in _chunks_of(n_queries, 500):
        rng, qids, docs, _ = _w5_queries(n_queries, start, count)
        rng = np.random.default_rng([SEED, 6, start])
        lines = []
        for i, q in enumerate(qids.tolist()):
            n_judged = 40 if graded else 1 + int(rng.random() < 0.1)
            picks = np.minimum(rng.geometric(0.02, size=n_judged) - 1, W5_DOCS - 1)
            picks = np.unique(picks)
            chosen = [int(docs[i, p]) if rng.random() < 0.85 else int(rng.integers(W5_CORPUS)) for p in picks]
            chosen = list(dict.fromkeys(chosen))
            for d in chosen:
                grade = int(rng.choice(4, p=(0.5, 0.25, 0.15, 0.1))) if graded else 1
                lines.append(f"{q} 0 {d} {grade}\n")
        yield "".join(lines)


def _chunks_of(total: int, size: int):
    for start in range(0, total, size):
        yield start, min(size, total - start)


def _write_plain(path: Path, chunks) -> Path:
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "w", encoding="ascii", newline="\n") as out:
        for text in chunks:
            out.write(text)
    os.replace(tmp, path)
    return path


@dataclass(frozen=True)
class TrecWorkload:
    run: Path
    qrels: Path
    qrels_graded: Path
    run_tie_free: Path
    run_long_scores: Path
    queries: int


def w5(folder: Path, n_queries: int) -> TrecWorkload:
    """MS MARCO-sized TREC files: a run of n × 1000 passages (5% of the scores tied with
    the one above), sparse binary qrels, graded qrels, a tie-free copy of the run
    (scores made distinct in trec_eval's order: for the peers that break ties otherwise)
    and a copy with long scores (see :func:`_w5_long_scores`)."""
    folder.mkdir(parents=True, exist_ok=True)
    run = folder / f"w5-{n_queries}-v{VERSION}.run"
    if not run.exists():
        _write_plain(run, _w5_run_text(n_queries))
    qrels = folder / f"w5-{n_queries}-v{VERSION}.qrels"
    if not qrels.exists():
        _write_plain(qrels, _w5_qrels_text(n_queries, graded=False))
    graded = folder / f"w5-{n_queries}-v{VERSION}.graded.qrels"
    if not graded.exists():
        _write_plain(graded, _w5_qrels_text(n_queries, graded=True))
    tie_free = folder / f"w5-{n_queries}-v{VERSION}.tiefree.run"
    if not tie_free.exists():
        _write_plain(tie_free, _w5_tie_free(run))
    long_scores = folder / f"w5-{n_queries}-v{VERSION}.long.run"
    if not long_scores.exists():
        _write_plain(long_scores, _w5_long_scores(run))
    return TrecWorkload(run, qrels, graded, tie_free, long_scores, n_queries)


def _w5_long_scores(run: Path):
    """The run with every score divided by 3 and printed as Python's repr (16-17 significant
    digits, as runs written from float scores are): the same order and ties, so the same
    measures, through the parser's long-mantissa path."""
    with open(run, encoding="ascii") as stream:
        out = []
        for line in stream:
            q, q0, d, r, s, tag = line.split()
            out.append(f"{q} {q0} {d} {r} {float(s) / 3!r} {tag}\n")
            if len(out) >= 100_000:
                yield "".join(out)
                out = []
        yield "".join(out)


def _w5_tie_free(run: Path):
    """The run in trec_eval's order with score = 1000 − position (distinct within a query)."""
    current, rows = None, []

    def flush():
        rows.sort(key=lambda r: (-float(r[4]), tuple(-b for b in r[2].encode()), -len(r[2])))
        return "".join(f"{r[0]} Q0 {r[2]} {i} {1000 - i} bm25\n" for i, r in enumerate(rows, 1))

    out = []
    with open(run, encoding="ascii") as stream:
        for line in stream:
            fields = line.split()
            if fields[0] != current and rows:
                out.append(flush())
                rows = []
                if len(out) >= 500:
                    yield "".join(out)
                    out = []
            current = fields[0]
            rows.append(fields)
    if rows:
        out.append(flush())
    yield "".join(out)


def w6(folder: Path, n_queries: int, n_runs: int = 10) -> list[Path]:
    """Run fusion: ``n_runs`` runs of W5's size (n × 1000 passages, 4-decimal scores, 5% tied with the
    one above, in rank order with tied passages in no particular docno order), each query's passages
    drawn from a pool of 2,000 shared by the runs (so the runs overlap, as runs of one topic do)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"w6-{n_queries}-r{r}-v{VERSION}.run" for r in range(n_runs)]
    for r, path in enumerate(paths):
        if not path.exists():
            _write_plain(path, _w6_run_text(n_queries, r))
    return paths


def _w6_run_text(n_queries: int, r: int):
    rng = np.random.default_rng([SEED, 60, r])
    for start, count in _chunks_of(n_queries, 500):
        lines = []
        for q in range(start, start + count):
            pool = np.random.default_rng([SEED, 61, q]).choice(W5_CORPUS, 2 * W5_DOCS, replace=False)
            docs = rng.choice(pool, W5_DOCS, replace=False)
            scores = np.sort(rng.gamma(2.0, 3.0, W5_DOCS))[::-1].round(4)
            tied = rng.random(W5_DOCS) < 0.05
            tied[0] = False
            scores = np.where(tied, np.r_[scores[0], scores[:-1]], scores)
            scores = np.maximum.accumulate(scores[::-1])[::-1]
            lines.append("".join(f"{1000 + q} Q0 {d} {i} {s:.4f} r{r}\n"
                                 for i, (d, s) in enumerate(zip(docs.tolist(), scores.tolist()), 1)))
        yield "".join(lines)
