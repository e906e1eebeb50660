"""``meta-eval`` against google-research/mt-metrics-eval (MTME) run on the WMT20 MQM data.

The expected values are MTME's own output (tests/data/mtme-reference/, written by
scripts/wmt20-mqm/mtme-reference from a fetched MTME checkout, outside this
repository; the file name carries MTME's commit): pairwise-difference Pearson, SPA
and its pairwise p-values, and the WMT25 task set — per language pair SPA and
tie-calibrated acc-eq by item with their permutation tests and clusters, and the
clustered average — run as MTME's TaskSet runs it after ``np.random.seed(12345)``.

Two references: ``exact-sums`` is MTME with its pce.py sign-flip sums decided exactly (the
script's ``--sums exact``), which rankeval's default must equal bit for bit on any machine; the
other is MTME as released, whose float32 sums depend on the CPU's BLAS kernel, so rankeval's
exact p-values may differ from it only on trials that float32 rounding can decide either way
(``slow_spa.float32_fragile``). With MTME_SRC naming an MTME checkout, MTME as released is run on
this machine and ``--spa-sums float32`` must equal it bit for bit.
Needs ../shared/data (skipped without it).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import TEST_DATA, peer_checkout, shared_data
from slow_spa import float32_fragile
from rankeval_cli.stats import metaeval as me
from rankeval_cli.stats.metrics_table import Options, parse_measures, run_table

REFERENCE = TEST_DATA / "mtme-reference" / "wmt20-mqm.mtme-68a481aea1a7.k200.json"
EXACT_REFERENCE = TEST_DATA / "mtme-reference" / "wmt20-mqm.mtme-68a481aea1a7.exact-sums.k200.json"
METRICS = {"chrF": "wmt20-da", "TER": "wmt20-da", "bleurt-combi": "wmt20-mqm", "Yisi-combi": "wmt20-mqm",
           "YiSi-2": "wmt20-mqm"}


@pytest.fixture(scope="module")
def reference():
    return json.loads(EXACT_REFERENCE.read_text())


@pytest.fixture(scope="module")
def float32_reference():
    return json.loads(REFERENCE.read_text())


@pytest.fixture(scope="module")
def tables():
    from rankeval_cli.formats.metaeval_input import tables_from_files

    root = shared_data()
    if root is None:
        pytest.skip("../shared/data is not present beside the checkout")
    mqm = root / "wmt20-mqm"
    return tables_from_files([str(mqm / "mqm_newstest2020_ende.avg_seg_scores.tsv"),
                              str(mqm / "mqm_newstest2020_zhen.avg_seg_scores.tsv")],
                             [str(root / where / f"{m}.seg.score.gz") for m, where in METRICS.items()],
                             [str(mqm / "details.en-de.txt"), str(mqm / "details.zh-en.txt")])


def test_pairwise_difference_pearson(reference, tables):
    for table in tables:
        for metric, values in reference["pdp"][table.lp].items():
            for average_by, expected in values.items():
                got = me.seg_statistic(table.human, table.metrics[metric], "pdp", average_by).value
                assert got == pytest.approx(expected, abs=1e-12), (table.lp, metric, average_by)


def test_spa_and_its_p_values_bit_for_bit(reference, tables):
    for table in tables:
        expected = reference["pce"][table.lp]
        assert table.systems == expected["systems"]
        signs = me.permutation_signs(table.human.shape[1])
        np.testing.assert_array_equal(me.pairwise_p_values(table.human, signs=signs), np.array(expected["human"]))
        for metric, p in expected["metrics"].items():
            np.testing.assert_array_equal(me.pairwise_p_values(table.metrics[metric], signs=signs), np.array(p))
            assert me.soft_pairwise_accuracy(table.human, table.metrics[metric]) == expected["spa"][metric]


def test_mtme_float32_output_differs_only_where_float32_rounding_can_decide(float32_reference, tables):
    """MTME's released float32 p-values and SPA against rankeval's exact ones: a count of trials may
    differ by at most the trials float32 rounding could decide either way; most differ by none."""
    differing = 0
    for table in tables:
        expected = float32_reference["pce"][table.lp]
        signs = me.permutation_signs(table.human.shape[1])
        R = len(signs)
        iu = np.triu_indices(len(table.systems), 1)
        fragile_h = float32_fragile(table.human, signs)
        exact_h = me.pairwise_p_values(table.human, signs=signs)
        assert np.all(np.abs(np.round((exact_h - np.array(expected["human"])) * R))[iu] <= fragile_h[iu])
        for metric, p in expected["metrics"].items():
            fragile = float32_fragile(table.metrics[metric], signs)
            exact = me.pairwise_p_values(table.metrics[metric], signs=signs)
            gap = np.abs(np.round((exact - np.array(p)) * R))[iu]
            assert np.all(gap <= fragile[iu]), (table.lp, metric)
            differing += int(np.count_nonzero(gap))
            spa = me.soft_pairwise_accuracy(table.human, table.metrics[metric])
            assert abs(spa - expected["spa"][metric]) <= np.mean(fragile_h[iu] + fragile[iu]) / R + 1e-15
    assert differing <= 3  # WMT20: one trial of one pair of YiSi-2 in en-de


def test_float32_sums_equal_mtme_run_on_this_machine(tables, tmp_path):
    """``--spa-sums float32`` is MTME's arithmetic: equal bit for bit to MTME run here (MTME_SRC)."""
    import subprocess
    import sys

    mtme = peer_checkout("MTME_SRC", "a google-research/mt-metrics-eval checkout", "mt_metrics_eval/pce.py")
    out = tmp_path / "float32.json"
    script = TEST_DATA.parents[1] / "scripts" / "wmt20-mqm" / "mtme-reference"
    subprocess.run([sys.executable, str(script), "--mtme", str(mtme), "--data", str(shared_data()), "--k", "20",
                    "--sums", "float32", "-o", str(out)], check=True)
    here = json.loads(out.read_text())
    for table in tables:
        expected = here["pce"][table.lp]
        signs = me.permutation_signs(table.human.shape[1])
        np.testing.assert_array_equal(me.pairwise_p_values(table.human, signs=signs, sums="float32"),
                                      np.array(expected["human"]))
        for metric, p in expected["metrics"].items():
            spec = me.SpaSpec(sums="float32")
            np.testing.assert_array_equal(me.pairwise_p_values(table.metrics[metric], signs=signs, sums="float32"),
                                          np.array(p))
            assert me.soft_pairwise_accuracy(table.human, table.metrics[metric], spec) == expected["spa"][metric]


def test_the_wmt25_task_set(reference, tables):
    """Values to 1e-12 (SPA exactly), cluster ranks, every permutation p-value and the number of trials
    of every metric pair (early stopping), and the clustered average."""
    options = Options(permutations=reference["k"], seed=reference["seed"], weights="wmt25", stream="mtme")
    table = run_table(tables, parse_measures((), None, "wmt25"), options)
    expected_tasks = reference["wmt25"]["tasks"]
    assert [(lp, name) for lp, name in table.keys] == [
        (t["lp"], {"pce": "spa", "KendallWithTiesOpt": "seg-acc-eq@item"}[t["corr_fcn"]]) for t in expected_tasks]
    for key, expected in zip(table.keys, expected_tasks):
        got = table.results[key]
        assert got.names == list(expected["corr_ranks"]), key
        values = [v for v, _ in expected["corr_ranks"].values()]
        if key[1] == "spa":
            assert got.values.tolist() == values
        else:
            assert got.values == pytest.approx(values, abs=1e-12)
        assert got.ranks == [r for _, r in expected["corr_ranks"].values()], key
        assert tuple(got.range) == tuple(expected["range"])
        np.testing.assert_array_equal(got.p, np.array(expected["matrix"]))
        for i, a in enumerate(got.names):
            for j in range(i + 1, len(got.names)):
                assert got.trials[i, j] == expected["draws"][f"{a}|{got.names[j]}"], (key, a, got.names[j])
    assert table.weights == reference["wmt25"]["weights"]
    average = reference["wmt25"]["average"]
    assert table.average.names == list(average["corr_ranks"])
    assert table.average.values == pytest.approx([v for v, _ in average["corr_ranks"].values()], abs=1e-12)
    assert table.average.ranks == [r for _, r in average["corr_ranks"].values()]
    np.testing.assert_array_equal(table.average.p, np.array(average["matrix"]))
