"""Every ir_measures spelling of the registry against ir_measures' own provider for it, per query: the
examples each spelling declares (rankeval_cli.measures.trec.registry), so a measure added to the
registry is compared here without a line of this file changing.

The collection (seeded) has graded qrels (grades −1 to 3), unjudged retrieved documents, qrels queries
the run lacks (ir_measures gives them its default, 0: rankeval's --all-queries), a run query without
qrels, and tied scores. Each provider breaks ties its own way, and each is compared in that order
(:data:`PEER_ORDER`): rankeval reads a copy of the run whose scores are distinct and in that order.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from rankeval_cli.cli import main
from rankeval_cli.measures.trec import registry
from rankeval_cli.measures.trec.names import load_families

ir_measures = pytest.importorskip("ir_measures")

#: how each ir_measures provider orders a query's documents of equal score
PEER_ORDER = {
    "pytrec_eval": "score descending, then docno descending (trec_eval's comp_sim_docno)",
    "gdeval": "score descending, then docno descending (gdeval's runOrder)",
    "judged": "score descending, then docno ascending",
    "compat": "score descending, then docno ascending",
    "pyndeval": "score descending, then docno ascending (pyndeval's sort)",
    "cwl_eval": "score descending, tied documents in the run's order",
    "accuracy": "score descending, tied documents in the run's order",
}
#: examples ir_measures does not compute (rankeval goes further), with why
EXTENSIONS = {
    "RBP": "graded RBP (no rel): ir_measures' cwl_eval provider needs rel",
    "RBP(p=0.9)@20": "graded RBP", "RBP(rel=1,quantity='ResEU')": "cwl_eval's residual, which ir_measures drops",
    "NumRel(rel=2)": "pytrec_eval computes NumRel at rel=1 only", "ERR": "gdeval needs a cut-off",
    "alpha_nDCG(judged_only=True)@10": "ir_measures 0.4.3's pyndeval provider fails on judged_only "
                                       "(tests/test_ndeval.py compares it on the judged run)",
}
#: examples another provider computes than their spelling's (the spelling's cannot)
EXAMPLE_PEER = {"nDCG(dcg='exp-log2')@10": "gdeval"}
#: gdeval prints 5 decimals
TOLERANCE = {"gdeval": 5.000001e-6}


def _order(run, peer):
    """The run's (qid, docno) in the provider's order, query by query."""
    def key(row):
        qid, doc, score, index = row
        if peer in ("pytrec_eval", "gdeval"):
            return (qid, -score, [-b for b in doc.encode()])
        if peer in ("judged", "compat", "pyndeval"):
            return (qid, -score, doc)
        return (qid, -score, index)
    return [(q, d) for q, d, _, _ in sorted(((q, d, s, i) for i, (q, d, s) in enumerate(run)), key=key)]


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    rng = np.random.default_rng(3)
    path = tmp_path_factory.mktemp("peers")
    qrels, diversity, run = [], [], []
    for q in range(1, 15):
        docs = [f"d{i}" for i in rng.choice(500, 60, replace=False)]
        for d in docs[:35]:
            qrels.append((str(q), d, int(rng.choice([-1, 0, 0, 1, 2, 3]))))
            for s in rng.choice(4, int(rng.integers(1, 4)), replace=False):
                diversity.append((str(q), str(s + 1), d, int(rng.choice([0, 1, 1, 2]))))
        if q in (4, 9):
            continue  # only in the qrels
        n = int(rng.integers(1, 55))
        scores = np.round(rng.uniform(0, 4, n), 1)
        run += [(str(q), d, float(s)) for d, s in zip(rng.choice(docs, n, replace=False), scores)]
    run += [("99", "d1", 1.0)]  # a run query without qrels
    run.sort(key=lambda r: (r[0], -r[2]))
    qrels.sort(key=lambda r: (r[0], r[1]))  # Compat's ideal orders equal grades and scores by the qrels' order
    (path / "qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels))
    (path / "diversity").write_text("".join(f"{q} {s} {d} {g}\n" for q, s, d, g in diversity))
    (path / "run").write_text("".join(f"{q} Q0 {d} 0 {s} t\n" for q, d, s in run))
    return path, qrels, diversity, run


def _examples():
    load_families()
    out = []
    for name, sp in sorted(registry.SPELLINGS.items()):
        if name != sp.name or sp.peer not in PEER_ORDER:
            continue
        out += [(EXAMPLE_PEER.get(e, sp.peer), e) for e in sp.examples if e not in EXTENSIONS]
    return out


def test_every_ir_measures_name_is_a_spelling():
    """Every name ir_measures registers (aliases included) names a registry spelling."""
    load_families()
    missing = sorted(set(ir_measures.measures.registry) - set(registry.SPELLINGS))
    assert missing == []


@pytest.mark.parametrize("peer", sorted(PEER_ORDER))
def test_equals_the_peer(collection, peer):
    path, qrels, diversity, run = collection
    examples = [e for p, e in _examples() if p == peer]
    assert examples, peer
    ordered = _order(run, peer)
    (path / f"run.{peer}").write_text("".join(f"{q} Q0 {d} 0 {-i} t\n" for i, (q, d) in enumerate(ordered)))
    judgments = "diversity" if peer == "pyndeval" else "qrels"
    out = CliRunner().invoke(main, ["report", "--qrels", str(path / judgments), "--all-queries", "--per-group",
                                    "--output-format", "jsonl", *[x for e in examples for x in ("-m", e)],
                                    str(path / f"run.{peer}")])
    assert out.exit_code == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    if peer == "pyndeval":
        qrels_in = [ir_measures.Qrel(q, d, g, s) for q, s, d, g in diversity]
    else:
        qrels_in = [ir_measures.Qrel(q, d, g) for q, d, g in qrels]
    run_in = [ir_measures.ScoredDoc(q, d, s) for q, d, s in run]
    provider = getattr(ir_measures, peer)
    for example in examples:
        measure = ir_measures.parse_measure(example)
        want = {m.query_id: m.value for m in provider.iter_calc([measure], qrels_in, run_in)}
        got = {r["group"]: math.nan if r[example] is None else r[example] for r in rows}
        got = {q: v for q, v in got.items() if not (peer == "accuracy" and math.isnan(v))}  # it leaves them out
        assert set(got) == set(want), example
        for qid, value in want.items():
            if math.isnan(value):  # ndeval's nNRBP of a topic without relevant subtopics: 0/0; rankeval's 0
                assert example.startswith("nNRBP") and got[qid] == 0.0, (example, qid)
                continue
            if example in ("NumQ", "NumRel") and qid in ("4", "9"):  # a query the run lacks: ir_measures'
                assert got[qid] > 0  # default 0, where --all-queries counts it and its judgments (trec_eval -c)
                continue
            tol = TOLERANCE.get(peer, 1e-9)
            assert got[qid] == pytest.approx(value, rel=0, abs=tol), (example, qid)
