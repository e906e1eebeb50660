"""Every fusion method and normalization against ranx's fused runs.

tests/data/fusion/ranx-0.3.21 (written by scripts/ranx-fusion-fixture with ranx 0.3.21): four
seeded random runs with tied scores in half of the queries, documents in one run only, lists of
1-40 documents and a query one run lacks; training qrels on six tie-free queries; and ranx's
``fuse`` of them by every method (after every normalization for the methods that read scores),
the learning methods trained by ranx's ``*_train``.

ranx orders tied scores by an unstable sort; the rank column of each input run file records
ranx's positions. So: methods and normalizations that read scores only are compared on every
query; those that read positions on the queries without tied scores directly, and on the others
with ranx's positions given to rankeval (the scores replaced by minus ranx's rank: only the order
is read). ranx's Condorcet sorts with a comparison that is no order where majorities cycle or tie
(its result then depends on a set's iteration order), and a run lacking both documents votes for
the second it is asked about; so Condorcet is compared on three runs that rank every candidate
(condorcet.jsonl.gz), on the queries where ranx's comparison is a strict order. The fused scores must agree to 1e-9 and the order
must be the same except among equal fused scores.
"""

from __future__ import annotations

import gzip
import json
from collections import defaultdict
from functools import cmp_to_key
from pathlib import Path

import pytest

from rankeval_cli.aggregate.fusion import METHODS, NORMALIZATIONS, fuse

FIXTURE = Path(__file__).resolve().parent / "data" / "fusion" / "ranx-0.3.21"
BY_RANX = {m.ranx: m.name for m in METHODS.values()}
NORM_BY_RANX = {n.ranx: n.name for n in NORMALIZATIONS.values() if n.ranx}


def read_run(path: Path) -> dict:
    """{query: {doc: (score, ranx's rank)}}."""
    out: dict = defaultdict(dict)
    for line in path.read_text().splitlines():
        q, _, d, rank, s, _ = line.split()
        out[q][d] = (float(s), int(rank))
    return dict(out)


RUNS = [read_run(FIXTURE / f"run{i}.trec") for i in range(1, 5)]
QRELS = [line.split() for line in (FIXTURE / "train.qrels").read_text().splitlines()]
TIED = {q for run in RUNS for q, docs in run.items() if len({s for s, _ in docs.values()}) < len(docs)}


def cases() -> list:
    with gzip.open(FIXTURE / "fused.jsonl.gz", "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


CASES = [c for c in cases() if not c["method"].endswith("condorcet")]


def test_condorcet_equals_ranx():
    with gzip.open(FIXTURE / "condorcet.jsonl.gz", "rt", encoding="utf-8") as f:
        runs, *fused_cases = [json.loads(line) for line in f]
    runs = runs["runs"]
    inputs = [([q for q in run for _ in run[q]], [d for q in run for d in run[q]],
               [s for q in run for s in run[q].values()]) for run in runs]
    for case in fused_cases:
        weights = case["params"].get("weights")
        fused = fuse(inputs, BY_RANX[case["method"]], weights=weights)
        mine: dict = defaultdict(list)
        for q, d, s in zip(fused.query.tolist(), fused.doc.tolist(), fused.score.tolist()):
            mine[q].append((d, s))
        compared = [q for q in case["fused"] if ranx_comparison_is_an_order(runs, q, weights)]
        assert len(compared) >= 20, len(compared)
        for q in compared:
            assert mine[q] == [tuple(r) for r in case["fused"][q]], q


def triples(runs, by_rank: bool):
    out = []
    for run in runs:
        rows = [(q, d, -rank if by_rank else score) for q, docs in run.items() for d, (score, rank) in docs.items()]
        out.append(([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]))
    return out


def ours(case: dict, by_rank: bool) -> dict:
    method = METHODS[BY_RANX[case["method"]]]
    params = {next((k for k, v in method.ranx_params.items() if v == name), name): value
              for name, value in case["params"].items() if name != "weights"}
    fused = fuse(triples(RUNS, by_rank), method.name, NORM_BY_RANX[case["norm"]], params=params,
                 weights=case["params"].get("weights"),
                 train_qrels=([r[0] for r in QRELS], [r[2] for r in QRELS], [int(r[3]) for r in QRELS])
                 if method.train else None)
    out: dict = defaultdict(list)
    for q, d, s in zip(fused.query.tolist(), fused.doc.tolist(), fused.score.tolist()):
        out[q].append((d, s))
    return dict(out)


def ranx_comparison_is_an_order(runs: list, q: str, weights) -> bool:
    """Whether ranx's Condorcet comparison (x first iff x's votes >= the rest, a run lacking both
    voting for the second) is a strict total order on the query's candidates."""
    lists = [sorted(run.get(q, {}), key=lambda d: -run[q][d]) for run in runs]
    where = [{d: i for i, d in enumerate(lst)} for lst in lists]
    weights = weights or [1.0] * len(runs)
    cands = sorted({d for lst in lists for d in lst})

    def first(x, y):
        votes = sum(w for pos, w in zip(where, weights) if pos.get(x, 10 ** 6) < pos.get(y, 10 ** 6))
        return votes >= sum(weights) - votes

    for i, x in enumerate(cands):
        for y in cands[i + 1:]:
            if first(x, y) == first(y, x):
                return False
    order = sorted(cands, key=cmp_to_key(lambda x, y: -1 if first(x, y) else 1))
    return all(first(a, b) for i, a in enumerate(order) for b in order[i + 1:])


def assert_same(mine: list, theirs: list, where: str) -> None:
    assert {d for d, _ in mine} == {d for d, _ in theirs}, where
    got = dict(mine)
    for d, s in theirs:
        assert got[d] == pytest.approx(s, rel=1e-9, abs=1e-9), (where, d)
    scores = [s for _, s in mine]
    for i, ((d, s), (e, _)) in enumerate(zip(mine, theirs)):
        tied = any(abs(s - t) <= 1e-9 * max(1.0, abs(s)) for j, t in enumerate(scores) if j != i)
        assert d == e or tied, (where, i, d, e)


@pytest.mark.parametrize("case", CASES, ids=[f"{c['method']}.{c['norm']}." + ".".join(
    f"{k}={v}" for k, v in c["params"].items() if k != "weights") for c in CASES])
def test_equals_ranx(case):
    method = METHODS[BY_RANX[case["method"]]]
    norm = NORMALIZATIONS[NORM_BY_RANX[case["norm"]]]
    positions = method.reads_positions or (method.reads_scores and norm.name in ("rank", "borda"))
    theirs = case["fused"]
    plain, ranked = ours(case, False), (ours(case, True) if positions and method.reads != "positions+scores"
                                        else None)
    compared = 0
    for q, rows in theirs.items():
        if positions and q in TIED:
            if ranked is None:
                continue  # segfuse: positions and scores; compared where nothing is tied
            assert_same(ranked[q], [tuple(r) for r in rows], f"{q} (ranx's positions)")
        else:
            assert_same(plain[q], [tuple(r) for r in rows], q)
        compared += 1
    assert compared >= 5, f"only {compared} queries compared"


def test_every_method_and_normalization_is_compared():
    assert {BY_RANX[c["method"]] for c in CASES} | {"condorcet", "w-condorcet"} == set(METHODS)
    assert {NORM_BY_RANX[c["norm"]] for c in CASES} == set(NORMALIZATIONS) - {"none"}
