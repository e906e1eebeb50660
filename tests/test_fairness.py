"""The group-fairness measures (rankeval_cli.measures.families.fairness): ir_measures' values on a
generated collection (tests/data/fairness, made by scripts/gen-fairness-golden with the measures of
ir_measures' pull request 43, which are in no release), a hand-computed case (Yang & Stoyanovich 2017),
the recursion for the largest value against every order, and the expected tie policy against every
tied order."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from rankeval_cli.cli import main
from rankeval_cli.measures.families import fairness as fair

DATA = Path(__file__).parent / "data" / "fairness"
PEER = json.loads((DATA / "outputs-ir_measures-pr43-27088215789d.json").read_text())


def report(names, qrels, run, *extra):
    args = ["report", "--qrels", str(qrels), "--doc-groups", str(DATA / "groups.tsv"), "--per-group",
            "--output-format", "jsonl", *extra, *[x for n in names for x in ("-m", n)], str(run)]
    return CliRunner().invoke(main, args)


def test_equals_ir_measures(tmp_path):
    """Per query, every spelling; a query where ir_measures raises (the protected group by count is a tie
    and no tie_breaking is set) is an error of rankeval's too, so those queries are compared apart, on
    the files without them (every group of the qrels is still in them)."""
    complete = [n for n, v in PEER.items() if all(x is not None for x in v.values())]
    out = report(complete, DATA / "qrels", DATA / "run")
    assert out.exit_code == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    for name in complete:
        got = {r["group"]: math.nan if r[name] is None else r[name] for r in rows}
        for qid, value in PEER[name].items():
            assert got[qid] == pytest.approx(value, rel=1e-12, abs=1e-12, nan_ok=True), (name, qid)
    for name in set(PEER) - set(complete):
        assert "is a tie" in report([name], DATA / "qrels", DATA / "run").stderr
        bad = {q for q, v in PEER[name].items() if v is None}
        for path in ("qrels", "run"):
            (tmp_path / path).write_text("".join(line + "\n" for line in (DATA / path).read_text().splitlines()
                                                 if line.split()[0] not in bad))
        out = report([name], tmp_path / "qrels", tmp_path / "run")
        assert out.exit_code == 0, out.stderr
        got = {r["group"]: math.nan if r[name] is None else r[name] for r in map(json.loads, out.stdout.splitlines())}
        assert got == pytest.approx({q: v for q, v in PEER[name].items() if v is not None}, rel=1e-12, nan_ok=True)


def test_hand_computed():
    """Judged groups x, y, y, y (S⁺ = 1 of n = 4, x the minority), ranking x, y, y: rND sums, over the
    prefixes i = 1, 2, |s⁺_i/(i + 1) − 1/4| / log2(i + 1) = 1/4 + (1/12)/log2 3; the largest order, y, y, x,
    gives 1/4 + (1/4)/log2 3."""
    f = fair._terms("rnd", 3, 1, 4, True)
    ours = f[0, 1] + f[1, 1]
    assert ours == pytest.approx(0.25 + (1 / 12) / math.log2(3))
    assert fair._most(f, 3, 1) == pytest.approx(0.25 + 0.25 / math.log2(3))


@pytest.mark.parametrize("kind", ["rnd", "rkl", "rrd"])
def test_largest_value_is_the_largest_over_every_order(kind):
    rng = np.random.default_rng(1)
    for _ in range(30):
        L, n = int(rng.integers(1, 8)), int(rng.integers(1, 12))
        k, S_plus = int(rng.integers(0, L + 1)), int(rng.integers(0, n + 1))
        f = fair._terms(kind, L, S_plus, n, True)
        orders = set(itertools.permutations([1] * k + [0] * (L - k)))
        every = [sum(f[i - 1, sum(o[:i])] for i in range(1, L)) for o in orders]
        assert fair._most(f, L, k) == pytest.approx(max(every), rel=1e-15) if L > 1 else fair._most(f, L, k) == 0


@pytest.mark.parametrize("seed", range(3))
def test_expected_is_the_mean_over_every_tied_order(tmp_path, seed):
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in rng.choice(300, 7, replace=False)]
    (tmp_path / "q").write_text("".join(f"q 0 {d} 1\n" for d in docs) + "q 0 d299 0\n")
    scores = np.sort(rng.integers(0, 3, size=7))[::-1]
    (tmp_path / "r").write_text("".join(f"q Q0 {d} 0 {s} t\n" for d, s in zip(docs, scores)))
    names = ["rND(tie_breaking='group-ascending')", "rKL(group_col='language',tie_breaking='en')",
             "rRD(tie_breaking='group-descending')@5"]
    got = {r: json.loads(report(names, tmp_path / "q", tmp_path / "r", "--tie-policy", "expected").stdout)[r]
           for r in names}
    groups = [list(np.flatnonzero(scores == s)) for s in sorted(set(scores.tolist()), reverse=True)]
    every = []
    for perm in itertools.product(*(itertools.permutations(g) for g in groups)):
        order = [i for p in perm for i in p]
        (tmp_path / "o").write_text("".join(f"q Q0 {docs[i]} 0 {7 - k} t\n" for k, i in enumerate(order)))
        every.append(json.loads(report(names, tmp_path / "q", tmp_path / "o").stdout))
    for name in names:
        assert got[name] == pytest.approx(np.mean([e[name] for e in every]), rel=1e-12, abs=1e-12), name


def test_errors(tmp_path):
    out = CliRunner().invoke(main, ["report", "--qrels", str(DATA / "qrels"), "-m", "rND@5", str(DATA / "run")])
    assert out.exit_code == 1 and "--doc-groups" in out.stderr
    out = report(["rND(tie_breaking='random')"], DATA / "qrels", DATA / "run")
    assert out.exit_code == 2 and "run to run" in out.stderr
    (tmp_path / "q").write_text("q 0 nowhere 1\n")
    out = report(["rND"], tmp_path / "q", DATA / "run")
    assert out.exit_code == 1 and "nowhere" in out.stderr and "has no group" in out.stderr


def test_compare_and_table_by_the_measures_direction():
    """compare reads the parenthesised names whole; table bolds the lowest rND (0 is fair) and the
    highest P@5, as the registry's ``better`` says."""
    runner = CliRunner()
    out = runner.invoke(main, ["compare", "--qrels", "examples/trec/qrels.txt", "--doc-groups",
                               "examples/trec/doc-groups.tsv", "-m",
                               'rND(group_col="source",protected_group="FR")@10,P@5', "examples/trec/bm25.run",
                               "examples/trec/dense.run"])
    assert out.exit_code == 0, out.stderr
    table = runner.invoke(main, ["table", "--output-format", "markdown"], input=out.stdout)
    assert table.exit_code == 0, table.stderr
    rows = {line.split(" | ")[0].strip("| "): line.split(" | ")[1:] for line in table.stdout.splitlines()
            if line.startswith("| bm25") or line.startswith("| dense")}
    assert rows["bm25"][0] == "0.6721" and rows["dense"][0] == "**0.3716**"
    assert rows["bm25"][1].startswith("0.2000") and rows["dense"][1].startswith("**0.3600**")
    assert 'the lowest for rND(group_col="source",protected_group="FR")@10' in table.stdout
