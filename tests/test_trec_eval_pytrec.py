"""rankeval trec_eval --trec-eval-version 9 equals pytrec_eval (trec_eval 9.0.8 inside) on random
collections, for every measure pytrec_eval has, per query and over the queries."""

from __future__ import annotations

import numpy as np
import pytest

from rankeval_cli.ir import trec_eval as te
from rankeval_cli.ir.run_records import trec_eval_summary

pytrec_eval = pytest.importorskip("pytrec_eval")

MEASURES = sorted(set(pytrec_eval.supported_measures) - {"runid", "relstring"})


def collection(seed):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(int(rng.integers(2, 9))):
        qid = f"q{q}"
        docs = [f"d{i}" for i in rng.choice(80, size=int(rng.integers(1, 30)), replace=False)]
        grades = rng.choice([-1, 0, 0, 1, 1, 2, 3], size=len(docs)).tolist()
        grades[0] = max(grades[0], 0)
        qrels[qid] = dict(zip(docs, grades))
        ranked = [f"d{i}" for i in rng.choice(80, size=int(rng.integers(1, 40)), replace=False)]
        scores = np.round(rng.normal(size=len(ranked)), 1)
        if rng.random() < 0.5:
            scores = scores + rng.choice([0.0, 1e-9], size=len(ranked))  # equal only as C floats
        run[qid] = dict(zip(ranked, scores.tolist()))
    if rng.random() < 0.5:
        run["only-in-run"] = {"d1": 1.0}
    return qrels, run


def write(path, lines):
    path.write_text("".join(line + "\n" for line in lines))
    return str(path)


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("level", [1, 2])
def test_version_9_equals_pytrec_eval(tmp_path, seed, level):
    qrels, run = collection(seed)
    qpath = write(tmp_path / "qrels", [f"{q} 0 {d} {g}" for q, docs in qrels.items() for d, g in docs.items()])
    rpath = write(tmp_path / "run", [f"{q} Q0 {d} 0 {s!r} tag" for q, docs in run.items() for d, s in docs.items()])
    options = te.Options(measures=MEASURES, version=9, rel_level=level)
    ours = te.evaluate(options, qpath, rpath)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES), relevance_level=level).evaluate(run)
    assert ours.qids == sorted(theirs, key=str.encode)
    checked = 0
    for name, column in ours.values.items():
        peer = [theirs[q][name] for q in ours.qids]
        assert np.allclose(column, peer, rtol=1e-12, atol=1e-12), (name, column, peer)
        base = name.split("_")[0] if name.startswith(("P_", "recall_")) else name
        for d, params in ours.requests:
            if name in d.value_names(params):
                want = pytrec_eval.compute_aggregated_measure(d.name if d.kind == "none" else base, peer)
                got = trec_eval_summary(d, name, ours, options)
                if d.name not in ("num_rel",):  # pytrec_eval sums num_rel over queries, as trec_eval without -c
                    assert got == pytest.approx(want, rel=1e-12, abs=1e-12), name
        checked += 1
    assert checked >= 90
