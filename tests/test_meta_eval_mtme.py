"""``meta-eval`` against google-research/mt-metrics-eval (MTME) run on the WMT20 MQM data.

The expected values are MTME's own output (tests/data/mtme-reference/, written by
scripts/wmt20-mqm/mtme-reference from a fetched MTME checkout, outside this
repository; the file name carries MTME's commit): pairwise-difference Pearson, SPA
and its pairwise p-values, and every task set MTME defines — WMT22 (its notebook's task
list), WMT23, WMT24 and WMT25 — each run as MTME's TaskSet runs it after
``np.random.seed(12345)``: values, permutation p-values, trials, clusters, weights and the
clustered average; and one pair of the audit of exact ties (en-de system-level Spearman,
seed 1, 1,000 trials: p = 0.101).

Two references: ``exact`` is MTME with its pce.py sign-flip sums decided exactly and the
trials that tie δ counted (the script's ``--sums exact --ties exact``), which rankeval's default
must equal bit for bit on any machine (the reference records, per pair, the ties MTME's own
float comparison missed: 1, 7 and 1 trials of three pairs of WMT23's pooled pairwise accuracy);
the other is MTME as released, whose float32 sums depend on the CPU's BLAS kernel, so rankeval's
exact p-values may differ from it only on trials that float32 rounding can decide either way
(``slow_spa.float32_fragile``). With MTME_SRC naming an MTME checkout, MTME as released is run on
this machine and ``--spa-sums float32`` must equal it bit for bit, and rankeval must count the
ties MTME misses on small tasks.
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
EXACT_REFERENCE = TEST_DATA / "mtme-reference" / "wmt20-mqm.mtme-68a481aea1a7.exact.k200.json"
#: WMT22's task set by itself, with fewer trials: MTME's item-averaged segment tests take half a
#: second a trial
WMT22_REFERENCE = TEST_DATA / "mtme-reference" / "wmt20-mqm.mtme-68a481aea1a7.exact.wmt22.k8.json"
METRICS = {"chrF": "wmt20-da", "TER": "wmt20-da", "bleurt-combi": "wmt20-mqm", "Yisi-combi": "wmt20-mqm",
           "YiSi-2": "wmt20-mqm"}


@pytest.fixture(scope="module")
def reference():
    return json.loads(EXACT_REFERENCE.read_text())


@pytest.fixture(scope="module")
def wmt22_reference():
    return json.loads(WMT22_REFERENCE.read_text())


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
                             [str(root / where / f"{m}.{level}.score.gz") for m, where in METRICS.items()
                              for level in ("seg", "sys")],
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
                    "--sums", "float32", "--sections", "pce", "-o", str(out)], check=True)
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


#: mt-metrics-eval's task (corr_fcn, level, avg_by) -> rankeval's measure
MEASURE_OF = {("accuracy", "sys", "none"): "sys-pa", ("pce", "sys", "none"): "spa",
              ("pearson", "sys", "none"): "sys-pearson", ("kendall", "sys", "none"): "sys-kendall",
              ("KendallWithTiesOpt", "seg", "item"): "seg-acc-eq@item",
              **{(corr, "seg", avg): f"seg-{corr}@{grouping}" for corr in ("pearson", "kendall")
                 for avg, grouping in (("none", "none"), ("sys", "system"), ("item", "item"))}}


@pytest.mark.parametrize("task_set", ["wmt22", "wmt23", "wmt24"])
def test_the_wmt_task_sets(reference, wmt22_reference, tables, task_set):
    """Each task set in MTME's task order, run on MTME's single stream (``--permutation-stream mtme``):
    values to 1e-12 (SPA exactly), cluster ranks, every permutation p-value and the trials of every
    metric pair (early stopping) bit for bit, the weights, and the clustered average. MTME's WMT25
    task set is WMT24's (the same tasks, weights and output: checked, not run twice)."""
    if task_set == "wmt22":
        reference = wmt22_reference
    expected = reference[task_set]
    if task_set == "wmt24":
        assert reference["wmt25"] == expected
    options = Options(permutations=reference["k"], seed=reference["seed"], weights=task_set, stream="mtme")
    table = run_table(tables, parse_measures((), None, task_set), options)
    assert [(lp, name) for lp, name in table.keys] == [
        ("all" if "," in t["lp"] else t["lp"], MEASURE_OF[t["corr_fcn"], t["level"], t["avg_by"]])
        for t in expected["tasks"]]
    for key, task in zip(table.keys, expected["tasks"]):
        got = table.results[key]
        assert got.names == list(task["corr_ranks"]), key
        values = [v for v, _ in task["corr_ranks"].values()]
        if key[1] == "spa":
            assert got.values.tolist() == values
        else:
            assert got.values == pytest.approx(values, abs=1e-12)
        assert got.ranks == [r for _, r in task["corr_ranks"].values()], key
        assert tuple(got.range) == tuple(task["range"])
        np.testing.assert_array_equal(got.p, np.array(task["matrix"]), err_msg=str(key))
        for i, a in enumerate(got.names):
            for j in range(i + 1, len(got.names)):
                assert got.trials[i, j] == task["draws"][f"{a}|{got.names[j]}"], (key, a, got.names[j])
    assert table.weights == expected["weights"]
    average = expected["average"]
    assert table.average.names == list(average["corr_ranks"])
    assert table.average.values == pytest.approx([v for v, _ in average["corr_ranks"].values()], abs=1e-12)
    assert table.average.ranks == [r for _, r in average["corr_ranks"].values()]
    np.testing.assert_array_equal(table.average.p, np.array(average["matrix"]))


def test_the_audit_pair(reference, tables):
    """WMT20 en-de system-level Spearman, Yisi-combi against YiSi-2, seed 1, 1,000 trials: mt-metrics-eval
    prints p = 0.101; 80 of the trials tie the observed difference exactly and count."""
    audit = reference["audit"]
    en_de = [t for t in tables if t.lp == "en-de"]
    pair = {m: en_de[0].metrics_sys[m] for m in ("Yisi-combi", "YiSi-2")}
    r = me.compare_metrics(en_de[0].human_sys, pair, "spearman", level="sys", permutations=audit["k"],
                           seed=audit["seed"], early_stop=me.MTME_EARLY_STOP)
    assert r.names == list(audit["corr_ranks"]) and r.p[0, 1] == audit["p"] == 0.101


def test_ties_mtme_misses_are_counted(monkeypatch):
    """MTME as released, on 7-system tasks of rounded scores (the kind with many exact ties), run
    where MTME_SRC names a checkout: its float comparison misses some trials that tie δ; rankeval
    draws the same trials (the same stream) and counts every trial of MTME's draws within 10⁻⁹ of
    its δ, so its p-value is MTME's plus the missed ties, and at least once it is higher."""
    import sys
    import types

    import scipy.stats

    mtme = peer_checkout("MTME_SRC", "a google-research/mt-metrics-eval checkout", "mt_metrics_eval/stats.py")
    for unused in ("apache_beam", "dacite"):
        monkeypatch.setitem(sys.modules, unused, sys.modules.get(unused, types.ModuleType(unused)))
    monkeypatch.syspath_prepend(str(mtme))
    from mt_metrics_eval import stats

    higher = 0
    for seed in (1, 3, 7, 8, 21):
        rng = np.random.default_rng(seed)
        human = np.round(rng.normal(size=7), 2)
        a, b = np.round(human + rng.normal(0, 0.7, 7), 3), np.round(human + rng.normal(0, 1.5, 7), 3)
        for name, fn in (("spearman", scipy.stats.spearmanr), ("kendall", scipy.stats.kendalltau)):
            ours = me.compare_metrics(human, {"a": a, "b": b}, name, level="sys", permutations=1000, seed=1)
            better, worse = ({"a": a, "b": b}[n] for n in ours.names)
            np.random.seed(1)
            p, delta, _, draws = stats.PermutationSigDiff(stats.Correlation(7, list(human), list(worse)),
                                                          stats.Correlation(7, list(human), list(better)), fn)
            diffs = np.array([x - y for x, y in draws])
            assert ours.p[0, 1] == np.mean(diffs >= delta - 1e-9), (seed, name)
            higher += ours.p[0, 1] > p
    assert higher > 0
