"""The C/W/L user models (rankeval_cli.measures.families.cwl, cwl_models) and ``rankeval cwl_eval``:
cwl_eval's report on generated collections (tests/data/cwl_eval, made by scripts/gen-cwl-eval-golden
with cwl_eval 1.0.12), hand-computed cases, the expected tie policy against every tied order, and
``report`` against ir_measures' own provider (cwl_eval)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from rankeval_cli.cli import main
from rankeval_cli.measures.families import cwl_models as m

DATA = Path(__file__).parent / "data" / "cwl_eval"
OUTPUTS = DATA / "outputs-cwl_eval-1.0.12"
CASES = json.loads((DATA / "cases.json").read_text())
FILES = ("gains", "gains3", "run", "costs", "metrics", "metrics_graded")


def invoke(args, **kw):
    return CliRunner().invoke(main, args, **kw)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_cwl_eval_report(case):
    """Every line as cwl_eval prints it, but for the sign of a residual of 0: cwl_eval's BLAS sums leave
    some a hair below 0 (-0.0000), rankeval's sums in rank order print them 0.0000."""
    args = [str(DATA / a) if a in FILES else a for a in case["args"]]
    out = invoke(["cwl_eval", *args])
    assert out.exit_code == 0, out.stderr
    want = (OUTPUTS / f"{case['name']}.txt").read_text().replace("-0.0000", "0.0000")
    assert out.stdout == want


def test_bibliography_and_errors(tmp_path):
    bib = tmp_path / "refs.bib"
    out = invoke(["cwl_eval", "-b", str(bib), "-m", str(DATA / "metrics"), str(DATA / "gains"), str(DATA / "run")])
    assert out.exit_code == 0
    text = bib.read_text()
    assert text.startswith("@inproceedings{azzopardi2019cwl,") and text.count("@") == 14
    (tmp_path / "g").write_text("t1 0 d1 0.5\nt1 0 d1 1\n")
    out = invoke(["cwl_eval", str(tmp_path / "g"), str(DATA / "run")])
    assert out.exit_code == 1 and "two gains" in out.stderr and ":2:" in out.stderr
    out = invoke(["cwl_eval", str(DATA / "gains3"), str(DATA / "run")])
    assert out.exit_code == 1 and "outside [0.0, 1.0]" in out.stderr
    out = invoke(["cwl_eval", "-m", str(DATA / "metrics"), "--max_gain", "3", str(DATA / "gains3"), str(DATA / "run")])
    assert out.exit_code == 1 and "INST needs gains in [0, 1]" in out.stderr
    (tmp_path / "m").write_text("NoSuchCWLMetric(3)\n")
    out = invoke(["cwl_eval", "-m", str(tmp_path / "m"), str(DATA / "gains"), str(DATA / "run")])
    assert out.exit_code == 1 and "could not be found" in out.stderr


def _quantities(g, continuation, n):
    g = np.array([g + [0.0] * (n - len(g))], dtype=np.float64)
    return {k: float(v[0]) for k, v in m.quantities(m.Vectors(g, np.ones_like(g)), None, continuation).items()}


def test_hand_computed():
    """Gains 1, 0, 0.5 and N = 3. RBP(p = 0.5): P = 1, 0.5, 0.25, ED = 1.75, EU = (1 + 0.125)/1.75, L = P(1 −
    p) = 0.5, 0.25, 0.125: ETU = 0.5 + 0.25 + 0.125·1.5. INST(T = 1): T_i = 1 − G_i, C_1 = ((1 + 1 + 0 −
    1)/(1 + 1 + 0))² = 1/4, C_2 = (2/3)², so P = 1, 1/4, 1/9."""
    rbp = _quantities([1.0, 0.0, 0.5], lambda v: m.rbp(v, 0.5), 3)
    assert rbp["ED"] == pytest.approx(1.75) and rbp["EU"] == pytest.approx(1.125 / 1.75)
    assert rbp["ETU"] == pytest.approx(0.5 + 0.25 + 0.1875)
    inst = _quantities([1.0, 0.0, 0.5], lambda v: m.inst(v, 1.0), 3)
    assert inst["ED"] == pytest.approx(1 + 1 / 4 + 1 / 9)
    assert inst["EU"] == pytest.approx((1 + 0.5 / 9) / (1 + 1 / 4 + 1 / 9))
    sdcg = _quantities([1.0, 0.0, 0.5], lambda v: m.sdcg(v, 3), 3)
    d = [1.0, 1 / np.log2(3), 0.5]
    assert sdcg["EU"] == pytest.approx((1.0 + 0.5 * 0.5) / sum(d))


# ---- the expected tie policy ------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(4))
def test_expected_is_the_mean_over_every_tied_order(tmp_path, seed):
    rng = np.random.default_rng(seed)
    n = 6
    docs = [f"d{i}" for i in range(n)]
    grades = rng.choice([-1, 0, 1, 2, 3], size=n)
    (tmp_path / "q").write_text("".join(f"q 0 {d} {g}\n" for d, g in zip(docs[:4], grades)))
    scores = np.sort(rng.integers(0, 3, size=n))[::-1]
    (tmp_path / "r").write_text("".join(f"q Q0 {d} 0 {s} t\n" for d, s in zip(docs, scores)))
    names = ["INSQ(T=2.0,max_rel=3)", "SDCG(max_rel=3)@3", "RBP(p=0.6,rel=2)", "RBP(rel=1,quantity='ResEU')",
             "INSQ(max_rel=3,quantity='ETU')"]

    def values(run, policy):
        out = invoke(["report", "--qrels", str(tmp_path / "q"), "--tie-policy", policy, "--output-format", "jsonl",
                      *[x for name in names for x in ("-m", name)], str(run)])
        assert out.exit_code == 0, out.stderr
        return {r["measure"]: r["value"] for r in map(json.loads, out.stdout.splitlines())}

    got = values(tmp_path / "r", "expected")
    groups = [list(np.flatnonzero(scores == s)) for s in sorted(set(scores.tolist()), reverse=True)]
    every = []
    for perm in itertools.product(*(itertools.permutations(g) for g in groups)):
        order = [i for p in perm for i in p]
        (tmp_path / "o").write_text("".join(f"q Q0 {docs[i]} 0 {n - k} t\n" for k, i in enumerate(order)))
        every.append(values(tmp_path / "o", "trec"))
    for name in names:
        assert got[name] == pytest.approx(np.mean([e[name] for e in every]), rel=1e-12, abs=1e-12), name
    refused = invoke(["report", "--qrels", str(tmp_path / "q"), "--tie-policy", "expected", "-m", "INST(max_rel=3)",
                      str(tmp_path / "r")])
    assert refused.exit_code == 2 and "continuation probabilities depend on the gains" in refused.stderr


# ---- report against ir_measures' provider (cwl_eval) --------------------------------------------

NAMES = ["INST(max_rel=3)", "INST(T=3.0,max_rel=3)", "INSQ(T=2.0,max_rel=3)", "INSQ(min_rel=1,max_rel=3)",
         "BPM(T=1.0,max_rel=3)@10", "BPM(T=2.0,min_rel=1,max_rel=3)@20", "SDCG(max_rel=3)@10",
         "SDCG(min_rel=1,max_rel=3)@5", "NERR8(max_rel=3)@10", "NERR9(max_rel=3)@5", "NERR10(p=0.7,max_rel=3)",
         "NERR10(max_rel=3)", "NERR11(T=2.0,max_rel=3)", "RBP(rel=1)", "RBP(p=0.5,rel=2)"]


def test_report_equals_ir_measures(tmp_path):
    """Graded qrels with negative grades, unjudged documents, a query without relevant documents, qrels
    queries the run lacks (ir_measures gives them 0: --all-queries), rankings of up to 1,200 documents
    (cut at 1,000); compared in the order ir_measures' cwl_eval provider ranks them (score descending,
    tied documents in the order given), as distinct scores."""
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("cwl")
    rng = np.random.default_rng(11)
    qrels, run = [], []
    for q in range(14):
        docs = [f"d{i}" for i in rng.choice(3000, 1500, replace=False)]
        for d in docs[:60]:
            qrels.append((f"q{q}", d, 0 if q == 2 else int(rng.choice([-1, 0, 0, 1, 2, 3]))))
        if q in (4, 9):
            continue
        n = 1200 if q == 1 else int(rng.integers(1, 80))
        run += [(f"q{q}", d, float(n - i)) for i, d in enumerate(rng.choice(docs[:60] + docs[200:], n, replace=False))]
    (tmp_path / "q").write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels))
    (tmp_path / "r").write_text("".join(f"{q} Q0 {d} 0 {s} t\n" for q, d, s in run))
    out = invoke(["report", "--qrels", str(tmp_path / "q"), "--all-queries", "--per-group", "--output-format",
                  "jsonl", *[x for n in NAMES for x in ("-m", n)], str(tmp_path / "r")])
    assert out.exit_code == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    qrels_in = [ir_measures.Qrel(q, d, g) for q, d, g in qrels]
    run_in = [ir_measures.ScoredDoc(q, d, s) for q, d, s in run]
    for name in NAMES:
        measure = ir_measures.parse_measure(name)
        want = {x.query_id: x.value for x in ir_measures.iter_calc([measure], qrels_in, run_in)}
        got = {r["group"]: r[name] for r in rows}
        assert set(got) == set(want), name
        for qid, value in want.items():
            assert got[qid] == pytest.approx(value, rel=1e-12, abs=1e-12), (name, qid)
