"""Compat and Accuracy (rankeval_cli.measures.families.ordering): hand-computed cases and the expected
tie policy against every tied order (ir_measures' providers: tests/test_ir_measures_names.py)."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from click.testing import CliRunner

from rankeval_cli.cli import main

NAMES = ["Compat", "Compat(p=0.7,normalize=False)", "Accuracy", "Accuracy@3"]


def values(tmp_path, qrels: str, run: str, *options):
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    out = CliRunner().invoke(main, ["report", "--qrels", str(tmp_path / "q"), "--output-format", "jsonl", *options,
                                    *[x for n in NAMES for x in ("-m", n)], str(tmp_path / "r")])
    assert out.exit_code == 0, out.stderr
    return {r["measure"]: r["value"] for r in map(json.loads, out.stdout.splitlines())}


def test_hand_computed(tmp_path):
    """Grades a:2, b:1, c:0; run c, a, x (x unjudged). Ideal a, b. D = max(3, 2) = 3; overlaps at d = 1, 2, 3:
    0, 1 ({a}), 1: RBO = Σ p^{d−1} o_d/d / Σ p^{d−1}; normalized by the ideal's own, 1, 1, 2/3. Accuracy: pairs
    (relevant a; non-relevant c, x): a above x, below c: 1/2."""
    got = values(tmp_path, "1 0 a 2\n1 0 b 1\n1 0 c 0\n", "1 Q0 c 0 3 t\n1 Q0 a 0 2 t\n1 Q0 x 0 1 t\n")
    p = 0.95
    score = (p * 1 / 2 + p * p * 1 / 3)
    best = (1 + p * 1 + p * p * 2 / 3)
    assert got["Compat"] == pytest.approx(score / best)
    assert got["Compat(p=0.7,normalize=False)"] == pytest.approx((0.7 / 2 + 0.49 / 3) / (1 + 0.7 + 0.49))
    assert got["Accuracy"] == pytest.approx(0.5)


@pytest.mark.parametrize("seed", range(4))
def test_expected_is_the_mean_over_every_tied_order(tmp_path, seed):
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(6)]
    qrels = "".join(f"1 0 {d} {g}\n" for d, g in zip(docs[:5], rng.choice([0, 1, 1, 2], size=5)))
    scores = np.sort(rng.integers(0, 3, size=6))[::-1]
    got = values(tmp_path, qrels, "".join(f"1 Q0 {d} 0 {s} t\n" for d, s in zip(docs, scores)), "--tie-policy",
                 "expected")
    groups = [list(np.flatnonzero(scores == s)) for s in sorted(set(scores.tolist()), reverse=True)]
    every = []
    for perm in itertools.product(*(itertools.permutations(g) for g in groups)):
        order = [i for p in perm for i in p]
        every.append(values(tmp_path, qrels, "".join(f"1 Q0 {docs[i]} 0 {6 - k} t\n" for k, i in enumerate(order))))
    for name in NAMES:
        defined = [e[name] for e in every if e[name] is not None]
        if not defined:  # no order puts a relevant and a non-relevant document within the cut
            assert got[name] is None
            continue
        assert got[name] == pytest.approx(np.mean(defined), rel=1e-12, abs=1e-12), name
