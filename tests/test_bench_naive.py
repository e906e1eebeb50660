"""The benchmark's naive baseline (scripts/naive_rankeval.py) computes rankeval's numbers.

scripts/bench compares the two on the W1 workload at every run; this test keeps that
comparison honest independently of the benchmark: a hand-computed group, and a few
hundred random groups (ties, blanks, missing predictions) against the rankeval CLI.
"""

from __future__ import annotations

import importlib.util
import math
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from rankeval_cli.cli import main

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "naive_rankeval.py"


@pytest.fixture(scope="module")
def naive():
    spec = importlib.util.spec_from_file_location("naive_rankeval", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_hand_computed_group(naive):
    # gold [1,1,3,4], pred [1,1,1,4] (items a, b, c, d).
    # tau penalize: (a,b) gold tie, left out; (a,c), (b,c) tied in pred only -> T_m = 2;
    # (a,d), (b,d), (c,d) concordant -> C = 3; tau = (3 - 0 - 2) / (3 + 0 + 2) = 0.2.
    # Pessimistic order (worst gold first among tied preds): c, a, b, d -> first best-gold item
    # at position 2, RR = 0.5.
    # Ceiling gold ranks [2,2,3,4] -> rel = n - rank + 1 = [3,3,2,1]; in order c, a, b, d:
    # DCG = 3/1 + 7/log2(3) + 7/2 + 1/log2(5); IDCG = 7/1 + 7/log2(3) + 3/2 + 1/log2(5).
    # ERR with R = (2^rel - 1) / 2^4: 3/16, 7/16, 7/16, 1/16 ->
    # 3/16 + (13/16)(7/16)/2 + (13/16)(9/16)(7/16)/3 + (13/16)(9/16)(9/16)(1/16)/4.
    gold, pred = [1.0, 1.0, 3.0, 4.0], [1.0, 1.0, 1.0, 4.0]
    assert naive.tau_counts(gold, pred) == (3, 0, 2)
    assert naive.reciprocal_rank(gold, pred) == 0.5
    dcg = 3 + 7 / math.log2(3) + 7 / 2 + 1 / math.log2(5)
    idcg = 7 + 7 / math.log2(3) + 3 / 2 + 1 / math.log2(5)
    assert naive.ndcg(gold, pred) == pytest.approx(dcg / idcg, rel=1e-15)
    err = 3 / 16 + (13 / 16) * (7 / 16) / 2 + (13 / 16) * (9 / 16) * (7 / 16) / 3 \
        + (13 / 16) * (9 / 16) * (9 / 16) * (1 / 16) / 4
    assert naive.err(gold, pred) == pytest.approx(err, rel=1e-15)


def _random_tsv(path: Path, seed: int) -> None:
    rng = random.Random(seed)
    lines = ["group\titem\tgold\tpred"]
    for g in range(300):
        for i in range(rng.randint(1, 7)):
            gold = "" if rng.random() < 0.05 else str(rng.randint(1, 4))
            pred = "" if rng.random() < 0.05 else str(rng.choice([rng.randint(1, 4), rng.random()]))
            lines.append(f"g{g}\ts{i}\t{gold}\t{pred}")
    path.write_text("\n".join(lines) + "\n")


def _rankeval(*args) -> dict:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    header, *rows = [line.split("\t") for line in result.stdout.splitlines()]
    return {row[0]: dict(zip(header, row)) for row in rows}


@pytest.mark.parametrize("seed", [1, 2])
def test_random_groups_equal_rankeval(naive, tmp_path, seed):
    path = tmp_path / "groups.tsv"
    _random_tsv(path, seed)
    results, skipped = naive.evaluate(naive.read_groups(path), naive.MEASURES)
    assert skipped > 0
    ours = float(_rankeval("tau", "--ties", "penalize", str(path))["tau"]["micro"])
    assert results["tau"][0] == pytest.approx(ours, rel=1e-12)
    for measure in ("mrr", "ndcg", "err"):
        row = _rankeval(measure, str(path))[measure]
        assert results[measure][0] == pytest.approx(float(row["value"]), rel=1e-12), measure
        assert results[measure][1] == int(row["groups"]), measure
