"""Run fusion (aggregate.fusion): hand-computed cases, the slow literal definitions of
tests/slow_fusion.py on seeded random runs (every method and normalization of the fusion
table), and the command line. ranx's fused runs: tests/test_fusion_ranx.py."""

from __future__ import annotations

import math
import os
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from rankeval_cli.aggregate.fusion import METHODS, NORMALIZATIONS, fuse

from slow_fusion import slow_fuse

FIXTURES = Path(__file__).resolve().parent / "data" / "fusion"


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


def test_positional_methods_by_hand():
    # A ranks d1 d2 d3, B ranks d3 d4 d2: |R_d| = 1 for d1 and d4, 2 for d2 and d3
    f = {m: {d: s for d, _, s in as_dict(fuse([triples(A), triples(B)], m))["q"]}
         for m in ("isr", "log-isr", "rbc")}
    assert f["isr"] == pytest.approx({"d1": 1.0, "d2": 2 * (1 / 4 + 1 / 9), "d3": 2 * (1 / 9 + 1), "d4": 1 / 4})
    assert f["log-isr"] == pytest.approx({"d1": 0.0, "d2": math.log(2) * (1 / 4 + 1 / 9),
                                          "d3": math.log(2) * (1 / 9 + 1), "d4": 0.0})
    phi = 0.8  # Bailey et al. 2017: (1 - phi) phi^(pos - 1)
    assert f["rbc"] == pytest.approx({"d1": 0.2, "d2": 0.2 * (phi + phi ** 2), "d3": 0.2 * (phi ** 2 + 1),
                                      "d4": 0.2 * phi})


def test_weighted_methods_by_hand():
    # min-max: A -> d1 1, d2 0.5, d3 0; B -> d3 1, d4 0.5, d2 0; weights 0.7 and 0.3
    runs, w = [triples(A), triples(B)], (0.7, 0.3)
    got = {m: {d: s for d, _, s in as_dict(fuse(runs, m, weights=w))["q"]} for m in ("wsum", "wmnz", "mixed")}
    assert got["wsum"] == pytest.approx({"d1": 0.7, "d2": 0.35, "d3": 0.3, "d4": 0.15})
    assert got["wmnz"] == pytest.approx({"d1": 0.7, "d2": 0.5, "d3": 1.0, "d4": 0.15})
    assert got["mixed"] == pytest.approx({"d1": 0.7, "d2": 0.35 * math.sqrt(2), "d3": 0.3 * math.sqrt(2),
                                          "d4": 0.15})
    rrf = {d: s for d, _, s in as_dict(fuse(runs, "rrf", weights=w))["q"]}
    assert rrf["d3"] == pytest.approx(0.7 / 63 + 0.3 / 61)


def test_condorcet_by_hand():
    # three runs whose majorities cycle a > b > c > a, and d below all: Copeland a = b = c = 0, d = -3;
    # the cycle is ordered by docno descending (c, b, a), scores |C| - rank + 1
    runs = [{"q": {"a": 3.0, "b": 2.0, "c": 1.0, "d": 0.0}}, {"q": {"b": 3.0, "c": 2.0, "a": 1.0, "d": 0.0}},
            {"q": {"c": 3.0, "a": 2.0, "b": 1.0}}]
    f = as_dict(fuse([triples(r) for r in runs], "condorcet"))["q"]
    assert [(d, s) for d, _, s in f] == [("c", 4.0), ("b", 3.0), ("a", 2.0), ("d", 1.0)]
    # weighting the first run breaks the cycle: a > b (2.5 vs 1), c > a? 2 vs 2.5: no; b > c 3.5 vs 1
    f = as_dict(fuse([triples(r) for r in runs], "w-condorcet", weights=(2.5, 1, 1)))["q"]
    assert [d for d, _, _ in f] == ["a", "b", "c", "d"]


def test_probfuse_by_hand():
    # one training topic: run 1 ranks r1 n1 r2 n2 (relevant r*); 2 segments of 2: P = (1/2, 1/2)
    run = {"t": {"r1": 4.0, "n1": 3.0, "r2": 2.0, "n2": 1.0}, "q": {"x": 2.0, "y": 1.0, "z": 0.5}}
    qrels = (["t", "t", "t"], ["r1", "r2", "n1"], [1, 2, 0])
    f = {d: s for d, _, s in as_dict(fuse([triples(run)], "probfuse", params={"segments": 2},
                                          train_qrels=qrels))["q"]}
    # q has 3 documents: segments of ceil(3/2) = 2: x, y in segment 1 (P/1), z in segment 2 (P/2)
    assert f == pytest.approx({"x": 0.5, "y": 0.5, "z": 0.25})
    with pytest.raises(ValueError, match="learns from training qrels"):
        fuse([triples(run)], "probfuse")


def test_depth_and_queries_in_one_run():
    c = {"q2": {"z": 1.0, "y": 2.0}}
    f = as_dict(fuse([triples(A), triples(c)], "rrf", depth=2))
    assert [d for d, _, _ in f["q"]] == ["d1", "d2"] and [d for d, _, _ in f["q2"]] == ["y", "z"]
    assert [r for _, r, _ in f["q2"]] == [1, 2]


def test_duplicate_document_is_an_error():
    with pytest.raises(ValueError, match="twice"):
        fuse([(["q", "q"], ["d", "d"], [1.0, 2.0])], "rrf")


# -- the slow literal definitions on random runs --------------------------------------------------

def random_runs(rng, n_runs=3):
    """Runs of 6 queries over 25 documents: lists of 1-14 documents, queries some runs lack,
    half the lists with many tied scores."""
    runs = []
    for r in range(n_runs):
        run = {}
        for q in range(6):
            if rng.random() < 0.2:  # query missing from this run
                continue
            n = int(rng.integers(1, 15))
            docs = rng.choice(25, size=n, replace=False)
            scores = rng.integers(0, 6, n) * (0.5 + r) if rng.random() < 0.5 else rng.normal(r, 3, n)
            run[f"q{q}"] = {f"doc{int(d):02d}": float(s) for d, s in zip(docs, scores)}  # many tied scores
        runs.append(run)
    return runs


def random_qrels(rng):
    return {f"q{q}": {f"doc{int(d):02d}": int(rng.integers(0, 3)) for d in rng.choice(25, 12, replace=False)}
            for q in range(4)}


def qrels_triple(qrels: dict):
    rows = [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    return ([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])


def _norms(method):
    entry = METHODS[method]
    if not entry.reads_scores:
        return ("min-max",)
    return tuple(n for n, norm in NORMALIZATIONS.items() if norm.with_positions or not entry.reads_positions)


@pytest.mark.parametrize("method", list(METHODS))
def test_against_the_definitions(method):
    rng = np.random.default_rng(sorted(METHODS).index(method))
    entry = METHODS[method]
    for trial in range(12):
        n_runs = int(rng.integers(1, 5))
        runs = random_runs(rng, n_runs)
        qrels = random_qrels(rng) if entry.train else None
        weights = rng.uniform(0.1, 1, n_runs).round(2).tolist() if entry.weighted and trial % 2 else None
        params = {p.name: p.grid[trial % len(p.grid)] for p in entry.params}
        for norm in _norms(method):
            fused = as_dict(fuse([triples(r) for r in runs], method, norm, params=params, weights=weights,
                                 train_qrels=qrels_triple(qrels) if qrels else None))
            slow = slow_fuse(runs, method, norm, params, weights, qrels)
            assert sorted(fused) == sorted(slow), (method, norm)
            for q, rows in fused.items():
                got = {d: s for d, _, s in rows}
                assert got == pytest.approx(slow[q], rel=1e-12, abs=1e-12), (method, norm, q)
                # order: fused score descending, then docno descending; ranks 1..n
                assert [r for _, r, _ in rows] == list(range(1, len(rows) + 1))
                for (d1, _, s1), (d2, _, s2) in zip(rows, rows[1:]):
                    assert s1 > s2 or (s1 == s2 and d1 > d2), (q, d1, d2)


def test_every_method_and_normalization_is_documented():
    from rankeval_cli.aggregate.fusion.describe import BEGIN, END, markdown

    page = (Path(__file__).resolve().parents[1] / "docs" / "fusion-and-trueskill.md").read_text()
    assert markdown() in page, "docs/fusion-and-trueskill.md is stale: run scripts/gen-man"
    assert page.count(BEGIN) == 1 and page.count(END) == 1
    for name in METHODS:
        assert f"`{name}`" in page


# -- the command line ----------------------------------------------------------------------------

def read_trec(path: Path) -> dict:
    """{query: [(doc, score), ...]} in file order (a test-only reader of the small fixtures)."""
    out: dict = defaultdict(list)
    for line in path.read_text().splitlines():
        q, _, d, _, s, _ = line.split()
        out[q].append((d, float(s)))
    return dict(out)


def run_cli(args, **kw):
    from click.testing import CliRunner

    from rankeval_cli.cli import main

    return CliRunner().invoke(main, ["aggregate", *args], **kw)


RUNS = [str(FIXTURES / f"run{i}.trec") for i in (1, 2, 3)]


@pytest.mark.parametrize("method,norm", [("rrf", None), ("combmnz", "z-score"), ("borda-fuse", None)])
def test_cli_writes_the_fused_trec_run(method, norm):
    given = ["--normalization", norm] if norm else []
    result = run_cli(["--method", method, *given, "--run-tag", "fused", *RUNS])
    assert result.exit_code == 0, result.output
    runs = [{q: dict(rows) for q, rows in read_trec(Path(p)).items()} for p in RUNS]
    expected = fuse([triples(r) for r in runs], method, norm or "min-max")
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
    usage = {("--method", "rrf", "--normalization", "z-score"): "reads positions, not scores",
             ("--method", "combsum", "--weights", "1,2,3"): "takes no weights",
             ("--method", "wsum", "--weights", "1,2"): "2 weights for 3 runs",
             ("--method", "wsum", "--weights", "1,x,2"): "weights are numbers",
             ("--method", "rbc", "--param", "phi=1.5"): "phi must be in (0, 1]",
             ("--method", "rbc", "--param", "k=3"): "rbc has no parameter 'k'",
             ("--method", "rbc", "--param", "phi"): "NAME=VALUE",
             ("--method", "probfuse"): "give --train-qrels",
             ("--method", "rrf", "--train-qrels", "x"): "learns nothing",
             ("--method", "combsum", "--rrf-k", "3"): "--rrf-k goes with --method rrf",
             ("--method", "borda", "--weights", "1,2"): "--weights goes with a run fusion method"}
    for args, message in usage.items():
        result = run_cli([*args, *RUNS])
        assert result.exit_code == 2 and message in result.output, (args, result.output)


def test_cli_learning_method_and_parameters(tmp_path):
    qrels = tmp_path / "train.qrels"
    qrels.write_text("".join(f"q{q:02d} 0 D{d:03d} {int((q + d) % 3 == 0)}\n" for q in range(1, 6)
                             for d in range(0, 60, 3)))
    result = run_cli(["--method", "probfuse", "--param", "segments=4", "--train-qrels", str(qrels),
                      "--output-format", "tsv", *RUNS])
    assert result.exit_code == 0, result.output
    assert "probfuse: trained on the 5 topics of" in result.output  # stderr is mixed in here
    assert "|segments:4|" in result.output
    runs = [{q: dict(rows) for q, rows in read_trec(Path(p)).items()} for p in RUNS]
    judged = read_qrels_triple(qrels)
    expected = fuse([triples(r) for r in runs], "probfuse", params={"segments": 4}, train_qrels=judged)
    rows = [line.split("\t") for line in result.output.splitlines() if "\t" in line][1:]
    assert [float(r[3]) for r in rows] == expected.score.tolist()


def read_qrels_triple(path: Path):
    rows = [line.split() for line in path.read_text().splitlines()]
    return ([r[0] for r in rows], [r[2] for r in rows], [int(r[3]) for r in rows])


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


def test_files_in_any_order_fuse_as_in_trec_order(tmp_path):
    """Runs with scattered queries, unsorted lines and ties in any docno order (the sort paths of
    lists.stack_codes) fuse as the library fuses the same rows."""
    rng = np.random.default_rng(17)
    runs, paths = [], []
    for r, layout in enumerate(("scattered", "by score, ties unsorted", "trec order")):
        run = {f"q{q}": {f"d{int(d):02d}": float(rng.integers(0, 4)) for d in rng.choice(40, 15, replace=False)}
               for q in range(5)}
        rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
        if layout == "scattered":
            rows = [rows[i] for i in rng.permutation(len(rows))]
        else:
            rows.sort(key=lambda t: (t[0], -t[2], t[1] if layout != "trec order" else "")) if layout != "trec order" \
                else rows.sort(key=lambda t: (t[0], -t[2], [-ord(c) for c in t[1]]))
        path = tmp_path / f"{r}.run"
        path.write_text("".join(f"{q} Q0 {d} 0 {s} r\n" for q, d, s in rows))
        runs.append(run)
        paths.append(str(path))
    from rankeval_cli.aggregate.fusion import fuse_files

    for method in ("rrf", "combsum", "borda-fuse"):
        got = fuse_files(paths, method)
        expected = fuse([triples(r) for r in runs], method)
        assert list(zip(got.query.tolist(), got.doc.decode(), got.score.tolist())) == \
            list(zip(expected.query.tolist(), expected.doc.tolist(), expected.score.tolist())), method
