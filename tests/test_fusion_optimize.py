"""aggregate --optimize: the folds, the grids, the cross-validated choice against a direct
re-implementation (P@5 computed here from the fused lists), training on training topics only,
the held-out test, and the errors."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest
from click.testing import CliRunner

from rankeval_cli.aggregate.fusion import fuse
from rankeval_cli.aggregate.fusion.optimize import configurations, folds_of, weight_grid
from rankeval_cli.cli import main


def test_folds_and_weight_grids():
    fold = folds_of(23, 5, 7)
    assert sorted(np.bincount(fold).tolist()) == [4, 4, 5, 5, 5]
    assert (folds_of(23, 5, 7) == fold).all() and not (folds_of(23, 5, 8) == fold).all()
    for n, count in ((2, 11), (3, 66), (4, 35), (5, 70), (7, 1)):
        grid = weight_grid(n)
        assert len(grid) == count and len(set(grid)) == count
        assert all(abs(sum(w) - 1) < 1e-12 and len(w) == n and min(w) >= 0 for w in grid)
    assert len(configurations(2, "rrf")) == 10 * 11  # k grid x weights
    assert {c.normalization for c in configurations(2, "combsum")} == {"min-max", "min-max-inverted", "max", "sum",
                                                                     "z-score", "rank", "borda", "none"}


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    rng = np.random.default_rng(41)
    folder = tmp_path_factory.mktemp("optimize")
    runs, paths = [], []
    for r in range(2):
        run = {}
        lines = []
        for q in range(12):
            docs = rng.choice(30, 12, replace=False)
            scores = rng.normal(0, 1, 12).round(4)
            run[f"q{q:02d}"] = {f"d{int(d):02d}": float(s) for d, s in zip(docs, scores)}
            lines += [f"q{q:02d} Q0 d{int(d):02d} 0 {float(s)!r} r{r}\n" for d, s in zip(docs, scores)]
        path = folder / f"r{r}.run"
        path.write_text("".join(lines))
        runs.append(run)
        paths.append(str(path))
    qrels = {f"q{q:02d}": {f"d{int(d):02d}": int(rng.random() < 0.4) for d in range(30)} for q in range(12)}
    qpath = folder / "qrels"
    qpath.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    return runs, paths, qrels, str(qpath)


def triples(run):
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    return ([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])


def precision_at_5(fused, qrels, topics) -> np.ndarray:
    lists = defaultdict(list)
    for q, d in zip(fused.query.tolist(), fused.doc.tolist()):
        lists[q].append(d)
    return np.array([sum(qrels[t].get(d, 0) >= 1 for d in lists[t][:5]) / 5 for t in topics])


def run_cli(*args):
    result = CliRunner().invoke(main, ["aggregate", "--optimize", *args])
    assert result.exit_code == 0, result.output
    rows = [line.split("\t") for line in result.stdout.splitlines()]
    return [dict(zip(rows[0], r)) for r in rows[1:]]


def test_the_choice_per_fold_equals_a_direct_search(data):
    runs, paths, qrels, qpath = data
    rows = run_cli("--method", "rrf", "--qrels", qpath, "--measure", "P_5", "--folds", "4", "--seed", "3", *paths)
    topics = sorted(qrels)
    fold = folds_of(len(topics), 4, 3)
    configs = configurations(2, "rrf")
    table = np.array([precision_at_5(fuse([triples(r) for r in runs], "rrf", params=dict(c.params),
                                          weights=c.weights), qrels, topics) for c in configs])
    singles = np.array([precision_at_5(fuse([triples(r)], "combsum", "none"), qrels, topics) for r in runs])
    held_fused, held_single = [], []
    for f in range(4):
        train = fold != f
        best = int(np.argmax(table[:, train].mean(axis=1)))
        run = int(np.argmax(singles[:, train].mean(axis=1)))
        row = rows[f]
        assert row["fold"] == str(f + 1)
        c = configs[best]
        assert row["params"] == f"k={dict(c.params)['k']:g}" and row["weights"] == ",".join(f"{w:g}" for w in c.weights)
        assert float(row["value"]) == pytest.approx(table[best, ~train].mean(), abs=1e-12)
        assert float(row["baseline_value"]) == pytest.approx(singles[run, ~train].mean(), abs=1e-12)
        assert row["baseline"] == f"r{run}.run"
        held_fused += table[best, ~train].tolist()
        held_single += singles[run, ~train].tolist()
    total = rows[-1]
    assert total["fold"] == "all" and int(total["groups"]) == 12
    diff = np.array(held_fused) - np.array(held_single)
    assert float(total["delta"]) == pytest.approx(diff.mean(), abs=1e-12)
    from scipy.stats import ttest_rel

    expected = ttest_rel(held_fused, held_single).pvalue
    assert (total["p_t"] == "" and np.isnan(expected)) or float(total["p_t"]) == pytest.approx(expected, rel=1e-9)
    assert float(total["delta_ci_low"]) <= float(total["delta"]) <= float(total["delta_ci_high"])


def test_learning_methods_train_on_the_training_topics_only(data):
    runs, paths, qrels, qpath = data
    rows = run_cli("--method", "mapfuse", "--qrels", qpath, "--measure", "P_5", "--folds", "3", *paths)
    topics = sorted(qrels)
    fold = folds_of(len(topics), 3, 12345)
    for f in range(3):
        train = [t for t, g in zip(topics, fold) if g != f]
        judged = [(t, d, g) for t in train for d, g in qrels[t].items()]
        fused = fuse([triples(r) for r in runs], "mapfuse", train_qrels=tuple(map(list, zip(*judged))))
        held = [t for t, g in zip(topics, fold) if g == f]
        assert float(rows[f]["value"]) == pytest.approx(precision_at_5(fused, qrels, held).mean(), abs=1e-12)


def test_errors(data, tmp_path):
    _, paths, _, qpath = data
    for args, code, message in ((paths, 2, "give --qrels"), (["--qrels", qpath, "--weights", "1,2", *paths], 2,
                                "does not go with it"), (["--qrels", qpath, "--folds", "20", *paths], 1, "folds"),
                                (["--qrels", qpath, "--measure", "nonesuch", *paths], 1, "nonesuch"),
                                (["--qrels", qpath, "--method", "borda", *paths], 2, "not one")):
        result = CliRunner().invoke(main, ["aggregate", "--optimize", *args])
        assert result.exit_code == code and message in result.output, (args, result.output)
