"""Run fusion (aggregate.fusion): hand-computed cases, a slow direct implementation on
random runs, and ranx's fused runs (tests/data/fusion, written by scripts/ranx-fusion-fixture)."""

from __future__ import annotations

import math
import os
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from rankeval_cli.aggregate.fusion import NORMALIZATIONS, fuse

FIXTURES = Path(__file__).resolve().parent / "data" / "fusion"
METHODS = ("rrf", "combsum", "combmnz", "combmax", "borda-fuse")


def triples(run: dict):
    """{query: {doc: score}} -> (query ids, doc ids, scores)."""
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    return ([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])


def as_dict(fused) -> dict:
    out: dict = defaultdict(list)
    for q, d, r, s in zip(fused.query.tolist(), fused.doc.tolist(), fused.rank.tolist(), fused.score.tolist()):
        out[q].append((d, r, s))
    return dict(out)


# -- hand-computed cases ------------------------------------------------------------------------

A = {"q": {"d1": 10.0, "d2": 6.0, "d3": 2.0}}
B = {"q": {"d3": 0.9, "d4": 0.5, "d2": 0.1}}


def test_rrf_by_hand():
    # Cormack et al. 2009: 1/(k + r); d2: 1/62 + 1/63, d3: 1/63 + 1/61, d1: 1/61, d4: 1/62
    f = as_dict(fuse([triples(A), triples(B)], "rrf"))["q"]
    expected = {"d1": 1 / 61, "d2": 1 / 62 + 1 / 63, "d3": 1 / 63 + 1 / 61, "d4": 1 / 62}
    assert [d for d, _, _ in f] == ["d3", "d2", "d1", "d4"]
    for d, _, s in f:
        assert s == pytest.approx(expected[d], rel=1e-15)


def test_comb_methods_by_hand():
    # min-max: A -> d1 1, d2 0.5, d3 0; B -> d3 1, d4 0.5, d2 0
    want = {
        "combsum": {"d1": 1.0, "d2": 0.5, "d3": 1.0, "d4": 0.5},
        "combmnz": {"d1": 1.0, "d2": 1.0, "d3": 2.0, "d4": 0.5},
        "combmax": {"d1": 1.0, "d2": 0.5, "d3": 1.0, "d4": 0.5},
    }
    for method, expected in want.items():
        f = as_dict(fuse([triples(A), triples(B)], method))["q"]
        assert {d: s for d, _, s in f} == expected, method
    # ties broken by docno descending, as trec_eval orders a run
    assert [d for d, _, _ in as_dict(fuse([triples(A), triples(B)], "combsum"))["q"]] == ["d3", "d1", "d4", "d2"]


def test_normalizations_by_hand():
    run = {"q": {"a": 3.0, "b": 1.0, "c": 2.0}}
    f = {d: s for d, _, s in as_dict(fuse([triples(run)], "combsum", "z-score"))["q"]}
    sd = math.sqrt(2 / 3)
    assert f == pytest.approx({"a": 1 / sd, "b": -1 / sd, "c": 0.0})
    f = {d: s for d, _, s in as_dict(fuse([triples(run)], "combsum", "sum"))["q"]}
    assert f == pytest.approx({"a": 2 / 3, "b": 0.0, "c": 1 / 3})  # (s - 1) / (6 - 3)
    f = {d: s for d, _, s in as_dict(fuse([triples(run)], "combsum", "none"))["q"]}
    assert f == {"a": 3.0, "b": 1.0, "c": 2.0}
    one = {"q": {"x": 5.0}}  # a single document: 0 / 1e-9 = 0, as ranx
    assert as_dict(fuse([triples(one)], "combsum", "min-max"))["q"] == [("x", 1, 0.0)]


def test_borda_fuse_by_hand():
    # Aslam & Montague 2001: c = 4 candidates; A ranks d1 d2 d3 (4, 3, 2 points), d4 gets (4-3+1)/2 = 1;
    # B ranks d3 d4 d2 (4, 3, 2), d1 gets 1
    f = {d: s for d, _, s in as_dict(fuse([triples(A), triples(B)], "borda-fuse"))["q"]}
    assert f == {"d1": 5.0, "d2": 5.0, "d3": 6.0, "d4": 4.0}


def test_depth_and_queries_in_one_run():
    c = {"q2": {"z": 1.0, "y": 2.0}}
    f = as_dict(fuse([triples(A), triples(c)], "rrf", depth=2))
    assert [d for d, _, _ in f["q"]] == ["d1", "d2"] and [d for d, _, _ in f["q2"]] == ["y", "z"]
    assert [r for _, r, _ in f["q2"]] == [1, 2]


def test_duplicate_document_is_an_error():
    with pytest.raises(ValueError, match="twice"):
        fuse([(["q", "q"], ["d", "d"], [1.0, 2.0])], "rrf")


# -- a slow direct implementation on random runs ---------------------------------------------------

def slow_fuse(runs: list[dict], method: str, norm: str = "min-max", k: float = 60.0) -> dict:
    """The definitions read literally, one query and one document at a time."""
    queries = sorted({q for run in runs for q in run})
    out = {}
    for q in queries:
        lists = []
        for run in runs:
            docs = run.get(q, {})
            ranked = sorted(docs.items(), key=lambda t: (t[1], t[0]), reverse=True)  # score, docno desc
            scores = [s for _, s in ranked]
            if norm == "min-max" and scores:
                lo, hi = min(scores), max(scores)
                ranked = [(d, (s - lo) / max(hi - lo, 1e-9)) for d, s in ranked]
            elif norm == "z-score" and scores:
                mean = sum(scores) / len(scores)
                sd = math.sqrt(sum((s - mean) ** 2 for s in scores) / len(scores))
                ranked = [(d, (s - mean) / max(sd, 1e-9)) for d, s in ranked]
            elif norm == "sum" and scores:
                lo = min(scores)
                ranked = [(d, (s - lo) / max(sum(scores) - lo * len(scores), 1e-9)) for d, s in ranked]
            lists.append(ranked)
        cands = sorted({d for ranked in lists for d, _ in ranked})
        fused = {}
        for d in cands:
            hits = [(pos, s) for ranked in lists for pos, (dd, s) in enumerate(ranked, 1) if dd == d]
            if method == "rrf":
                fused[d] = sum(1 / (k + pos) for pos, _ in hits)
            elif method == "combsum":
                fused[d] = sum(s for _, s in hits)
            elif method == "combmnz":
                fused[d] = len(hits) * sum(s for _, s in hits)
            elif method == "combmax":
                fused[d] = max(s for _, s in hits)
            else:
                total = 0.0
                for ranked in lists:
                    pos = next((p for p, (dd, _) in enumerate(ranked, 1) if dd == d), None)
                    total += len(cands) - pos + 1 if pos else (len(cands) - len(ranked) + 1) / 2
                fused[d] = total
        out[q] = fused
    return out


def random_runs(rng, n_runs=3):
    runs = []
    for r in range(n_runs):
        run = {}
        for q in range(6):
            if rng.random() < 0.2:  # query missing from this run
                continue
            n = int(rng.integers(1, 15))
            docs = rng.choice(25, size=n, replace=False)
            scores = rng.integers(0, 6, n) * (0.5 + r) if rng.random() < 0.5 else rng.normal(r, 3, n)
            run[f"q{q}"] = {f"doc{int(d)}": float(s) for d, s in zip(docs, scores)}  # many tied scores
        runs.append(run)
    return runs


@pytest.mark.parametrize("method", METHODS)
def test_against_slow_implementation(method):
    rng = np.random.default_rng(7)
    for _ in range(30):
        runs = random_runs(rng, int(rng.integers(1, 5)))
        for norm in (NORMALIZATIONS if method.startswith("comb") else ("min-max",)):
            fused = as_dict(fuse([triples(r) for r in runs], method, norm, k=60.0))
            slow = slow_fuse(runs, method, norm)
            assert sorted(fused) == sorted(q for q in slow if slow[q])
            for q, rows in fused.items():
                got = {d: s for d, _, s in rows}
                assert got == pytest.approx(slow[q], rel=1e-12, abs=1e-12)
                # order: fused score descending, then docno descending; ranks 1..n
                scores = [s for _, _, s in rows]
                assert all(a >= b for a, b in zip(scores, scores[1:]))
                assert [r for _, r, _ in rows] == list(range(1, len(rows) + 1))
                for (d1, _, s1), (d2, _, s2) in zip(rows, rows[1:]):
                    assert s1 > s2 or d1 > d2, (q, d1, d2)


# -- ranx ----------------------------------------------------------------------------------------

def read_trec(path: Path) -> dict:
    """{query: [(doc, score), ...]} in file order (a test-only reader of the small fixtures)."""
    out: dict = defaultdict(list)
    for line in path.read_text().splitlines():
        q, _, d, _, s, _ = line.split()
        out[q].append((d, float(s)))
    return dict(out)


RANX_NAMES = {"rrf": "rrf", "sum": "combsum", "mnz": "combmnz", "max": "combmax", "bordafuse": "borda-fuse"}
RANX_NORMS = {"min-max": "min-max", "zmuv": "z-score", "sum": "sum"}
RANX_FILES = sorted(FIXTURES.glob("ranx.*.trec"))


def ours_for(name: str):
    _, method, norm, *params = name[: -len(".trec")].split(".")
    k = float(params[0][1:]) if params else 60.0
    runs = [read_trec(FIXTURES / f"run{i}.trec") for i in (1, 2, 3)]
    runs = [{q: dict(rows) for q, rows in run.items()} for run in runs]
    return as_dict(fuse([triples(r) for r in runs], RANX_NAMES[method], RANX_NORMS[norm], k=k))


@pytest.mark.parametrize("path", RANX_FILES, ids=[p.name for p in RANX_FILES])
def test_equals_ranx(path):
    """Same documents, same fused scores (to 1e-12), same order up to tied scores (ranx orders
    tied documents by an unstable sort, rankeval by docno descending)."""
    theirs = read_trec(path)
    ours = ours_for(path.name)
    assert sorted(ours) == sorted(theirs)
    for q, rows in theirs.items():
        mine = {d: s for d, _, s in ours[q]}
        assert mine == pytest.approx(dict(rows), rel=1e-12, abs=1e-12)
        assert [s for _, _, s in ours[q]] == pytest.approx([s for _, s in rows], rel=1e-12, abs=1e-12)


def test_fixture_covers_every_method():
    assert len(RANX_FILES) == 12
    assert {p.name.split(".")[1] for p in RANX_FILES} == set(RANX_NAMES)


@pytest.mark.skipif(not os.environ.get("RANKEVAL_RANX"), reason="ranx compiles for about a minute: "
                    "set RANKEVAL_RANX=1 to regenerate the fixture with ranx and compare")
def test_fixture_is_what_ranx_writes(tmp_path):
    import subprocess
    import sys

    script = Path(__file__).resolve().parents[1] / "scripts" / "ranx-fusion-fixture"
    subprocess.run([sys.executable, str(script), str(tmp_path)], check=True, capture_output=True)
    for path in RANX_FILES:
        fresh = read_trec(tmp_path / path.name)
        stored = read_trec(path)
        assert fresh.keys() == stored.keys()
        for q in stored:
            assert dict(fresh[q]) == dict(stored[q])


# -- the command line ----------------------------------------------------------------------------

def run_cli(args, **kw):
    from click.testing import CliRunner

    from rankeval_cli.cli import main

    return CliRunner().invoke(main, ["aggregate", *args], **kw)


RUNS = [str(FIXTURES / f"run{i}.trec") for i in (1, 2, 3)]


@pytest.mark.parametrize("method,norm", [("rrf", "min-max"), ("combmnz", "z-score"), ("borda-fuse", "min-max")])
def test_cli_writes_the_fused_trec_run(method, norm):
    result = run_cli(["--method", method, "--normalization", norm, "--run-tag", "fused", *RUNS])
    assert result.exit_code == 0, result.output
    runs = [{q: dict(rows) for q, rows in read_trec(Path(p)).items()} for p in RUNS]
    expected = fuse([triples(r) for r in runs], method, norm)
    lines = result.output.splitlines()
    assert len(lines) == len(expected.rank)
    for line, q, d, r, s in zip(lines, expected.query.tolist(), expected.doc.tolist(), expected.rank.tolist(),
                                expected.score.tolist()):
        assert line == f"{q} Q0 {d} {r} {s!r} fused"


def test_cli_records_and_depth():
    result = run_cli(["--method", "rrf", "--rrf-k", "10", "--k", "3", "--output-format", "tsv", *RUNS[:2]])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "group\titem\trank\tscore\tsignature"
    assert lines[1].endswith("aggregate|method:rrf|k:10.0|depth:3|runs:2|v:" + lines[1].rsplit("|v:", 1)[1])
    assert {line.split("\t")[2] for line in lines[1:]} == {"1", "2", "3"}


def test_cli_errors(tmp_path):
    dup = tmp_path / "dup.trec"
    dup.write_text("q Q0 a 1 3 t\nq Q0 b 2 2 t\nq Q0 a 3 1 t\n")
    result = run_cli(["--method", "rrf", str(dup)])
    assert result.exit_code == 1 and "dup.trec:3: document 'a' listed twice for query 'q'" in result.output
    result = run_cli(["--method", "rrf"], input="")
    assert result.exit_code == 2 and "give the run files" in result.output
    result = run_cli(["--method", "rrf", "--run-tag", "two words", *RUNS[:1]])
    assert result.exit_code == 2


def test_system_rankings_as_runs_can_be_fused(tmp_path):
    text = "group\titem\tgold\tpred\tlp\n" + "".join(
        f"g{g}\t{s}\t{r}\t\t{lp}\n" for g, (lp, order) in enumerate(
            [("de-en", "ABC"), ("de-en", "ACB"), ("de-en", "BAC"), ("fr-en", "CBA")]) for r, s in enumerate(order, 1))
    paths = []
    for method in ("borda", "expected-wins"):
        result = run_cli(["--method", method, "--by", "lp", "--output-format", "trec"], input=text)
        assert result.exit_code == 0, result.output
        paths.append(tmp_path / f"{method}.trec")
        paths[-1].write_text(result.output)
    lines = (tmp_path / "borda.trec").read_text().splitlines()
    assert lines[:3] == ["de-en Q0 A 1 5.0 borda", "de-en Q0 B 2 3.0 borda", "de-en Q0 C 3 1.0 borda"]
    fused = run_cli(["--method", "rrf", *map(str, paths)])
    assert fused.exit_code == 0 and fused.output.splitlines()[0].startswith("de-en Q0 A 1 ")
    assert run_cli(["--method", "borda", "--column", "both", "--output-format", "trec"], input=text).exit_code == 2
