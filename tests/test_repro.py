"""rankeval repro against repro_eval (irgroup/repro_eval, the test extra) on seeded random runs:
KTU, RBO, RMSE, nRMSE, ER, DeltaRI and the t-tests, for replicability and reproducibility."""

from __future__ import annotations

import math

import numpy as np
import pytest
from click.testing import CliRunner

from rankeval_cli.cli import main

MEASURES = ("AP", "P@10", "nDCG")


def write_run(path, rng, topics, base=None, noise=0.0, n=40):
    lines, run = [], {}
    for t in topics:
        if base is None:
            docs = rng.choice(120, n, replace=False)
            scores = rng.permutation(n) + rng.uniform(0, 0.5, n)
        else:
            docs = np.array(base[t][0])
            keep = rng.random(n) > noise  # a reproduction swaps some documents for others
            docs = np.where(keep, docs, 200 + rng.choice(100, n, replace=False))
            scores = np.array(base[t][1]) + rng.normal(0, 3 * noise + 0.01, n)
        run[t] = (list(docs), list(scores))
        order = np.argsort(-scores)  # written by score, as runs are (repro_eval reads the lines' order)
        lines += [f"{t} Q0 D{int(docs[i])} 0 {float(scores[i])!r} r\n" for i in order]
    path.write_text("".join(lines))
    return run


def write_qrels(path, rng, topics):
    path.write_text("".join(f"{t} 0 D{int(d)} {int(rng.integers(0, 3))}\n" for t in topics
                            for d in rng.choice(300, 60, replace=False)))


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    rng = np.random.default_rng(2020)
    folder = tmp_path_factory.mktemp("repro")
    topics, other = [f"t{i:02d}" for i in range(1, 16)], [f"u{i:02d}" for i in range(1, 13)]
    paths = {name: folder / f"{name}.run" for name in ("ob", "oa", "rb", "ra", "xb", "xa")}
    ob = write_run(paths["ob"], rng, topics)
    oa = write_run(paths["oa"], rng, topics)
    write_run(paths["rb"], rng, topics, ob, 0.2)
    write_run(paths["ra"], rng, topics, oa, 0.4)
    write_run(paths["xb"], rng, other)  # a reproduction on another collection
    write_run(paths["xa"], rng, other)
    paths["qrels"], paths["qrels2"] = folder / "qrels", folder / "qrels2"
    write_qrels(paths["qrels"], rng, topics)
    write_qrels(paths["qrels2"], rng, other)
    return {k: str(v) for k, v in paths.items()}


def ours(*args) -> dict:
    result = CliRunner().invoke(main, ["repro", "-m", ",".join(MEASURES), *args])
    assert result.exit_code == 0, result.output
    rows = [line.split("\t") for line in result.stdout.splitlines()[1:]]
    return {(r[0], r[1], r[2]): float(r[3]) for r in rows}


def test_replicability_equals_repro_eval(files):
    from repro_eval.Evaluator import RpdEvaluator

    rpd = RpdEvaluator(qrels_orig_path=files["qrels"], run_b_orig_path=files["ob"], run_a_orig_path=files["oa"],
                       run_b_rep_path=files["rb"], run_a_rep_path=files["ra"])
    rpd.trim()
    rpd.evaluate()
    mine = ours("--qrels", files["qrels"], files["ob"], files["oa"], files["rb"], files["ra"])
    for system in ("baseline", "advanced"):
        assert mine[(system, "order@1000", "ktu")] == pytest.approx(rpd.ktu()[system], abs=1e-12)
        assert mine[(system, "order@1000", "rbo")] == pytest.approx(rpd.rbo()[system], abs=1e-12)
        for m in MEASURES:
            assert mine[(system, m, "rmse")] == pytest.approx(rpd.rmse()[system][m], abs=1e-12)
            assert mine[(system, m, "nrmse")] == pytest.approx(rpd.nrmse()[system][m], abs=1e-12)
            assert mine[(system, m, "p_t")] == pytest.approx(rpd.ttest()[system][m], rel=1e-9)
    for m in MEASURES:
        assert mine[("both", m, "er")] == pytest.approx(rpd.er()[m], rel=1e-12)
        assert mine[("both", m, "dri")] == pytest.approx(rpd.dri()[m], abs=1e-12)
    # KTU and RBO at another cutoff: repro_eval trims the runs, and its RBO takes the depth
    cut = ours("--qrels", files["qrels"], "--k", "10", files["ob"], files["oa"], files["rb"], files["ra"])
    rbo_10 = rpd.rbo(p=0.95, depth=10)
    rpd.trim(10)
    for system in ("baseline", "advanced"):
        assert cut[(system, "order@10", "ktu")] == pytest.approx(rpd.ktu()[system], abs=1e-12)
        assert cut[(system, "order@10", "rbo")] == pytest.approx(rbo_10[system], abs=1e-12)


def test_reproducibility_equals_repro_eval(files):
    from repro_eval.Evaluator import RplEvaluator

    rpl = RplEvaluator(qrels_orig_path=files["qrels"], run_b_orig_path=files["ob"], run_a_orig_path=files["oa"],
                       run_b_rep_path=files["xb"], run_a_rep_path=files["xa"], qrels_rpl_path=files["qrels2"])
    rpl.trim()
    rpl.evaluate()
    mine = ours("--qrels", files["qrels"], "--qrels-repro", files["qrels2"], files["ob"], files["oa"], files["xb"],
                files["xa"])
    for m in MEASURES:
        assert mine[("both", m, "er")] == pytest.approx(rpl.er()[m], rel=1e-12)
        assert mine[("both", m, "dri")] == pytest.approx(rpl.dri()[m], abs=1e-12)
        for system in ("baseline", "advanced"):
            assert mine[(system, m, "p_t")] == pytest.approx(rpl.ttest()[system][m], rel=1e-9)
    assert not any(k[2] in ("ktu", "rbo", "rmse") for k in mine)


def test_definitions_by_hand_and_errors(files, tmp_path):
    from rankeval_cli.agreement import repro

    o, r = np.array([0.2, 0.9]), np.array([0.4, 0.5])
    assert repro.rmse(o, r) == pytest.approx(math.sqrt((0.04 + 0.16) / 2))
    assert repro.nrmse(o, r) == pytest.approx(repro.rmse(o, r) / math.sqrt((0.8 ** 2 + 0.9 ** 2) / 2))
    b, a = np.array([0.2, 0.4]), np.array([0.4, 0.8])
    assert repro.effect_ratio(b, a, b, b + 0.15) == pytest.approx(0.15 / 0.3)
    assert repro.delta_ri(b, a, b, a) == 0.0
    same = (np.array([3, 1, 2]), np.array([3.0, 2.0, 1.0]))
    assert repro.ktu(same, same, 1000) == 1.0 and repro.rbo_at(same, same, 0.95, 3) == pytest.approx(1.0)
    short = tmp_path / "short.run"
    short.write_text("t01 Q0 D1 1 1.0 r\n")
    result = CliRunner().invoke(main, ["repro", "--qrels", files["qrels"], files["ob"], files["oa"], str(short),
                                       files["ra"]])
    assert result.exit_code == 1 and "lacks" in result.output
    assert CliRunner().invoke(main, ["repro", "--qrels", files["qrels"], files["ob"]]).exit_code == 2
    assert CliRunner().invoke(main, ["repro", "--qrels", files["qrels"], "--k", "0", files["ob"], files["oa"],
                                     files["rb"], files["ra"]]).exit_code == 2
