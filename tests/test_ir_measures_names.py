"""report -m with ir_measures' names equals ir_measures itself (its pytrec_eval provider and
its own judged@k), aliases and parameters included, on a random tie-free collection."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from rankeval_cli.cli import main

ir_measures = pytest.importorskip("ir_measures")

NAMES = ["AP", "MAP", "P@5", "nDCG@10", "nDCG", "RR", "MRR", "Rprec", "Bpref", "infAP", "SetP", "SetR", "SetF", "SetAP",
         "SetRelP", "NumRet", "NumRelRet", "NumRel", "NumQ", "Success@5", "Judged@5", "nDCG(gains={0:0,1:1,2:3,3:7})@10",
         "AP(rel=2)", "P(rel=2)@5", "R@10", "AP@10", "RR(rel=2)", "Rprec(rel=2)", "SetF(beta=0.5)",
         "nDCG(judged_only=True)@10", "P(judged_only=True)@10", "Precision@3", "Recall@20", "BPref", "RPrec"]


@pytest.mark.parametrize("seed", range(3))
def test_report_equals_ir_measures(tmp_path, seed):
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(15):
        docs = [f"d{i}" for i in rng.choice(200, 40, replace=False)]
        qrels += [f"q{q} 0 {d} {rng.choice([0, 0, 1, 2, 3])}" for d in docs[:25]]
        scores = rng.permutation(40) + rng.random()
        run += [f"q{q} Q0 {d} 0 {s:.6f} t" for d, s in zip(docs[5:], scores)]
    (tmp_path / "q").write_text("\n".join(qrels) + "\n")
    (tmp_path / "r").write_text("\n".join(run) + "\n")
    qrels_in = list(ir_measures.read_trec_qrels(str(tmp_path / "q")))
    run_in = list(ir_measures.read_trec_run(str(tmp_path / "r")))
    # each measure in a call of its own: in one call of all of them, ir_measures' pytrec_eval
    # provider has given nDCG@10 another measure's value in some processes (a full test run,
    # not this file alone), so the reference is each measure computed alone
    want = {m: v for n in NAMES
            for m, v in ir_measures.calc_aggregate([ir_measures.parse_measure(n)], qrels_in, run_in).items()}
    args = ["report", "--qrels", str(tmp_path / "q"), "--output-format", "jsonl"]
    out = CliRunner().invoke(main, args + [x for n in NAMES for x in ("-m", n)] + [str(tmp_path / "r")])
    assert out.exit_code == 0, out.stderr
    ours = {r["measure"]: r["value"] for r in map(json.loads, out.stdout.splitlines())}
    for name in NAMES:
        assert ours[name] == pytest.approx(want[ir_measures.parse_measure(name)], rel=1e-12, abs=1e-12), name
