"""Percentile bootstrap over groups (rankeval_cli.stats.resample) and the --ci option of the summary commands."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from rankeval_cli._version import __version__
from rankeval_cli.batch import Batch, offsets_from_sizes
from rankeval_cli.cli import main
from rankeval_cli.measures.pairs import pair_counts
from rankeval_cli.measures.rr import rr_values
from rankeval_cli.measures.tau import VARIANTS, TauAccumulator
from rankeval_cli.measures.ties import prepare
from rankeval_cli.stats import resample
from rankeval_cli.stats.resample import (BOOTSTRAP_STREAM, MeanStat, TauMicroStat, bootstrap_intervals,
                                         bootstrap_values, distinct_rows, percentile_interval, replicate_rng,
                                         replicate_sums, tau_raw)

# --- building blocks -------------------------------------------------------------------------


def test_distinct_rows_match_numpy_unique():
    rng = np.random.default_rng(1)
    matrix = rng.integers(0, 3, (5000, 3)).astype(float)
    matrix[::7, 0] = -0.0  # -0.0 and 0.0 are the same row
    packed = distinct_rows(matrix)
    rows, counts = np.unique(matrix + 0.0, axis=0, return_counts=True)
    order = np.lexsort(packed.rows.T[::-1])
    assert np.array_equal(packed.rows[order], rows)
    assert np.array_equal(packed.counts[order], counts)
    assert packed.counts.sum() == 5000


def test_distinct_rows_of_continuous_values_are_all_rows():
    matrix = np.random.default_rng(2).random((1000, 2))
    assert len(distinct_rows(matrix).counts) == 1000


def test_percentile_interval_is_numpy_type7_and_skips_undefined():
    values = np.array([3.0, np.nan, 1.0, 2.0, 4.0, np.inf])
    # finite 1, 2, 3, 4: the 0.05 quantile at index 0.15 -> 1.15; 0.95 at 2.85 -> 3.85
    assert percentile_interval(values, 0.9) == pytest.approx((1.15, 3.85), rel=1e-15)
    assert all(math.isnan(x) for x in percentile_interval([np.nan], 0.9))


def _naive_bootstrap_means(values: np.ndarray, n: int, seed: int) -> np.ndarray:
    """The definition: draw G group numbers with replicate b's generator, average the defined values."""
    g = len(values)
    out = []
    for b in range(n):
        idx = replicate_rng(seed, BOOTSTRAP_STREAM, b).integers(0, g, g)
        drawn = values[idx]
        out.append(np.nanmean(drawn) if (~np.isnan(drawn)).any() else np.nan)
    return np.array(out)


def test_indices_path_is_the_naive_group_resampling():
    rng = np.random.default_rng(3)
    values = rng.random(57)
    values[rng.random(57) < 0.2] = np.nan  # undefined groups stay out of each replicate's mean
    fast = bootstrap_values([MeanStat()], [values], 300, seed=9, method="indices")[:, 0]
    np.testing.assert_allclose(fast, _naive_bootstrap_means(values, 300, 9), rtol=1e-12)


def test_chunking_does_not_change_the_replicates(monkeypatch):
    # Every replicate has its own generator, so chunks draw the same counts, and sums on the exact
    # grid do not depend on the shape of the product (BLAS may add in another order).
    rng = np.random.default_rng(4)
    floats, integers = rng.random(100), rng.integers(0, 50, 100).astype(float)
    for method in ("indices", "multinomial"):
        whole = bootstrap_values([MeanStat(), MeanStat()], [floats, integers], 50, 5, method=method)
        monkeypatch.setattr(resample, "CHUNK_CELLS", 150)  # one or two replicates per chunk
        chunked = bootstrap_values([MeanStat(), MeanStat()], [floats, integers], 50, 5, method=method)
        monkeypatch.undo()
        assert np.array_equal(whole, chunked)


def test_grid_keeps_integers_and_makes_sums_exact():
    g = 1 << 20
    rng = np.random.default_rng(8)
    matrix = np.column_stack([rng.random(g), rng.integers(0, 11, g), np.zeros(g), -rng.random(g) * 3])
    e = resample.grid_exponents(matrix, g)
    # values in [0, 1): room for 2^51 / 2^20 = 2^31 per value, so the grid is 2^-31 (max < 1: e = 31
    # or, rarely, 32); integers stay as they are; an all-zero column gets 0; |v| < 3 -> 2^-29 or -30.
    assert e[1] == 0 and e[2] == 0 and 31 <= e[0] <= 32 and 29 <= e[3] <= 30
    q = resample.on_grid(matrix, e)
    assert np.array_equal(q[:, 1], matrix[:, 1])
    assert np.abs(resample.off_grid(q, e) - matrix).max() <= 2.0 ** -(e.min() + 1)
    weights = rng.integers(0, 3, g).astype(float)
    exact = [sum(int(w) * int(v) for w, v in zip(weights.tolist(), q[:, k].tolist())) for k in (0, 3)]
    assert [int(x) for x in (weights @ q[:, [0, 3]])] == exact  # BLAS, yet exact


@pytest.mark.parametrize("method", ["indices", "multinomial"])
def test_replicate_sums_have_the_multinomial_moments(method):
    # Σ_g c_g s_g with c ~ Multinomial(G, 1/G): mean Σ s, variance G·(mean(s²) - mean(s)²).
    # The sample variance of B = 4000 replicates has relative sd sqrt(2/(B-1)) = 0.022: allow 5 sd.
    s = np.repeat([0.0, 1.0, 2.5, 7.0], [40, 30, 20, 10]).reshape(-1, 1)
    sums = np.concatenate([chunk for _, chunk in replicate_sums(s, 4000, 11, method=method)])[:, 0]
    g = len(s)
    var = g * (np.mean(s**2) - np.mean(s) ** 2)
    assert abs(sums.mean() - s.sum()) < 5 * math.sqrt(var / 4000)
    assert abs(sums.var(ddof=1) / var - 1) < 5 * math.sqrt(2 / 3999)


def test_auto_picks_multinomial_for_repeated_rows_only():
    assert resample.choose_method("auto", 1000, 250) == "multinomial"
    assert resample.choose_method("auto", 1000, 251) == "indices"
    with pytest.raises(ValueError):
        resample.choose_method("poisson", 10, 1)


def _random_batch(rng, groups: int, max_size: int = 6) -> Batch:
    sizes = rng.integers(1, max_size + 1, groups)
    n = int(sizes.sum())
    gold = rng.integers(1, 4, n).astype(float)
    pred = rng.integers(1, 4, n).astype(float)
    gold[rng.random(n) < 0.05] = np.nan
    pred[rng.random(n) < 0.05] = np.nan
    return Batch(group=np.array([f"g{i}" for i in range(groups)], dtype=object), offsets=offsets_from_sizes(sizes),
                 item=np.array([f"i{i}" for i in range(n)], dtype=object), gold=gold, pred=pred)


@pytest.mark.parametrize("variant", VARIANTS)
def test_tau_micro_statistic_on_all_groups_is_the_micro_tau(variant):
    batch = _random_batch(np.random.default_rng(5), 300)
    acc = TauAccumulator(variant)
    rows = acc.add(batch)
    raw = tau_raw(rows.counts)
    stat = TauMicroStat(variant)
    assert stat.value(stat.expand(raw).sum(axis=0)) == pytest.approx(acc.summary().micro, rel=1e-14, nan_ok=True)


def test_mean_statistic_on_all_groups_is_the_macro_mean():
    batch = _random_batch(np.random.default_rng(6), 300)
    acc = TauAccumulator("b")
    rows = acc.add(batch)
    stat = MeanStat()
    assert stat.value(stat.expand(rows.tau).sum(axis=0)) == pytest.approx(acc.summary().macro, rel=1e-14)


def test_one_group_gives_a_degenerate_interval_and_none_gives_nan():
    assert bootstrap_intervals([MeanStat()], [np.array([0.25])], 0.95, 20, 1) == [(0.25, 0.25)]
    (low, high), = bootstrap_intervals([MeanStat()], [np.zeros(0)], 0.95, 20, 1)
    assert math.isnan(low) and math.isnan(high)


# --- coverage on data with a known answer --------------------------------------------------------
#
# D data sets, each of G groups, drawn from a process whose population value θ is known; each gets
# a percentile interval at level L from B resamples. The number of intervals covering θ is
# Binomial(D, p) with p the procedure's true coverage. p is not exactly L: the percentile interval of
# a smooth statistic of G i.i.d. groups has coverage error O(1/G) (Hall 1988, Ann. Statist. 16), and
# B = 200 resamples add Monte Carlo noise to the endpoints, which lowers coverage slightly; for these
# bounded statistics at G = 100 both stay below 0.02 (coverage of the exact-B bootstrap: simulations
# of Efron & Tibshirani 1993, ch. 13). So we accept
#     |covered/D - L| <= 3·sqrt(L(1-L)/D) + 0.02,
# i.e. for D = 400, L = 0.9: sd = 0.015, band = ±0.065 — a wrong width by a factor √2 (coverage
# 0.75 or 0.98) fails, and a correct procedure passes with probability > 0.997 per test.

D_SETS, G_GROUPS, B_RESAMPLES, LEVEL = 400, 100, 200, 0.9


def _coverage(values_per_set, truth, stat, method):
    covered = 0
    for d, raw in enumerate(values_per_set):
        ((low, high),) = bootstrap_intervals([stat], [raw], LEVEL, B_RESAMPLES, seed=d, method=method)
        covered += low <= truth <= high
    return covered / len(values_per_set)


def _assert_coverage(share):
    band = 3 * math.sqrt(LEVEL * (1 - LEVEL) / D_SETS) + 0.02
    assert abs(share - LEVEL) <= band, (share, band)


@pytest.mark.parametrize("method", ["indices", "multinomial"])
def test_interval_of_mrr_covers_the_known_mean(method):
    # 4 items, gold ranks 1..4, pred a uniformly random permutation: the best item's predicted
    # position is uniform on 1..4, so E[RR] = (1 + 1/2 + 1/3 + 1/4)/4 = 25/48.
    rng = np.random.default_rng(2024)
    n_groups = D_SETS * G_GROUPS
    gold = np.tile([1.0, 2.0, 3.0, 4.0], n_groups)
    pred = rng.permuted(np.tile([1.0, 2.0, 3.0, 4.0], (n_groups, 1)), axis=1).ravel()
    rr = rr_values(prepare(gold, pred, offsets_from_sizes(np.full(n_groups, 4))))
    sets = [rr[d * G_GROUPS:(d + 1) * G_GROUPS] for d in range(D_SETS)]
    _assert_coverage(_coverage(sets, 25 / 48, MeanStat(), method))


def test_interval_of_micro_tau_covers_the_known_population_value():
    # Group sizes uniform on 2..6; gold 1..n; with probability 1/2 pred = gold (every pair concordant),
    # else a random permutation (E[C] = E[D] = pairs/2, no ties). Population micro tau (penalize, no
    # ties: (C - D)/(C + D)) = E[Σ(C - D)] / E[Σ pairs] = (1/2 · E[pairs]) / E[pairs] = 1/2 exactly.
    rng = np.random.default_rng(77)
    n_groups = D_SETS * G_GROUPS
    sizes = rng.integers(2, 7, n_groups)
    offsets = offsets_from_sizes(sizes)
    group = np.repeat(np.arange(n_groups), sizes)
    gold = (np.arange(offsets[-1]) - offsets[group] + 1).astype(float)
    shuffled = np.lexsort((rng.random(len(gold)), group))  # rows in a random order within each group
    copy = np.repeat(rng.random(n_groups) < 0.5, sizes)
    pred = np.where(copy, gold, gold[shuffled])
    counts = pair_counts(gold, pred, offsets)
    raw = tau_raw(counts)
    sets = [raw[d * G_GROUPS:(d + 1) * G_GROUPS] for d in range(D_SETS)]
    _assert_coverage(_coverage(sets, 0.5, TauMicroStat("penalize"), "auto"))


# --- the --ci option of the commands ---------------------------------------------------------------

TSV = ("group\titem\tgold\tpred\n"
       "s1\ta\t1\t2\ns1\tb\t2\t1\ns1\tc\t3\t3\n"
       "s2\ta\t1\t1\ns2\tb\t2\t2\n"
       "s3\ta\t2\t1\ns3\tb\t1\t2\ns3\tc\t3\t3\n"
       "s4\ta\t1\t3\ns4\tb\t2\t2\ns4\tc\t3\t1\n")


def run(*args, input=TSV):
    result = CliRunner().invoke(main, list(args), input=input)
    assert result.exit_code == 0, result.output
    return result


def table(text):
    lines = text.splitlines()
    header = lines[0].split("\t")
    return [dict(zip(header, line.split("\t"))) for line in lines[1:]]


@pytest.mark.parametrize("name", ["mrr", "ndcg", "err", "rankdcg"])
def test_mean_commands_add_an_interval_only_with_ci(name):
    plain = run(name).stdout
    assert "ci_low" not in plain
    (row,) = table(run(name, "--ci", "0.9", "--bootstrap", "200").stdout)
    assert list(row)[:4] == ["measure", "value", "ci_low", "ci_high"]
    assert float(row["ci_low"]) <= float(row["value"]) <= float(row["ci_high"])
    assert row["signature"].endswith("|ci:0.9|bootstrap:200|seed:12345|v:" + __version__)
    (plain_row,) = table(plain)
    assert plain_row["value"] == row["value"]


def test_mrr_interval_is_the_percentile_interval_of_the_naive_resampling():
    # RR per group: s1 best item a at predicted 2 -> 1/2; s2 -> 1; s3 best b predicted 2 -> 1/2;
    # s4 best a predicted 3 -> 1/3.
    values = np.array([0.5, 1.0, 0.5, 1 / 3])
    (row,) = table(run("mrr", "--ci", "0.8", "--bootstrap", "300", "--seed", "3").stdout)
    low, high = np.quantile(_naive_bootstrap_means(values, 300, 3), [0.1, 0.9])
    # four groups but three distinct values: 'auto' may draw multinomial counts instead; same
    # distribution, different draws, so compare against the indices path run directly as well.
    direct = bootstrap_intervals([MeanStat()], [values], 0.8, 300, 3)[0]
    assert (float(row["ci_low"]), float(row["ci_high"])) == pytest.approx(direct, rel=1e-12)
    indices = bootstrap_intervals([MeanStat()], [values], 0.8, 300, 3, method="indices")[0]
    assert indices == pytest.approx((low, high), rel=1e-12)


def test_tau_intervals_per_average():
    header = run("tau", "--ci", "0.95", "--bootstrap", "100").stdout.splitlines()[0].split("\t")
    assert header[:8] == ["measure", "variant", "micro", "micro_ci_low", "micro_ci_high", "macro", "macro_ci_low",
                          "macro_ci_high"]
    record = json.loads(run("tau", "--average", "micro", "--ci", "0.95", "--bootstrap", "100",
                            "--output-format", "json").stdout)
    assert "micro_ci_low" in record and "macro_ci_low" not in record
    assert record["micro_ci_low"] <= record["micro"] <= record["micro_ci_high"]


def test_tau_interval_with_calibrated_ties():
    (row,) = table(run("tau", "--ties", "acc-eq", "--calibrate-ties", "--average", "macro", "--ci", "0.9",
                       "--bootstrap", "100").stdout)
    assert float(row["macro_ci_low"]) <= float(row["macro"]) <= float(row["macro_ci_high"])
    assert "calibrated:yes" in row["signature"] and "ci:0.9" in row["signature"]


def test_report_intervals_on_mean_rows_only():
    rows = {r["measure"]: r for r in table(run("report", "--k", "2", "--ci", "0.9", "--bootstrap", "100").stdout)}
    for name in ("tau_micro", "tau_macro", "mrr", "ndcg", "err", "rankdcg", "p@2", "map@2", "avg_predicted"):
        assert float(rows[name]["ci_low"]) <= float(rows[name]["value"]) <= float(rows[name]["ci_high"]), name
        assert "|ci:0.9|bootstrap:100|seed:12345|" in rows[name]["signature"]
    for name in ("tau_p", "tau_concordant", "bph_1", "blanks"):
        assert rows[name]["ci_low"] == rows[name]["ci_high"] == "", name
        assert "ci:" not in rows[name]["signature"]


def test_report_and_mrr_share_the_interval():
    # Same seed and the same way of drawing (the 4 groups have 3 distinct RR values and 4 distinct
    # report rows: more than G/4 either way, so both draw group indices): the same replicates.
    (mrr,) = table(run("mrr", "--ci", "0.9", "--bootstrap", "100").stdout)
    rows = {r["measure"]: r for r in table(run("report", "--ci", "0.9", "--bootstrap", "100").stdout)}
    assert (rows["mrr"]["ci_low"], rows["mrr"]["ci_high"]) == (mrr["ci_low"], mrr["ci_high"])


def test_seed_changes_the_interval_and_is_recorded():
    a = table(run("ndcg", "--ci", "0.9", "--bootstrap", "50", "--seed", "1").stdout)[0]
    b = table(run("ndcg", "--ci", "0.9", "--bootstrap", "50", "--seed", "2").stdout)[0]
    assert "seed:1|" in a["signature"] and "seed:2|" in b["signature"]
    assert (a["ci_low"], a["ci_high"]) != (b["ci_low"], b["ci_high"])


def test_bootstrap_alone_implies_ci_095_and_seed_alone_is_a_usage_error():
    (row,) = table(run("mrr", "--bootstrap", "50").stdout)
    assert "|ci:0.95|bootstrap:50|" in row["signature"]
    result = CliRunner().invoke(main, ["mrr", "--seed", "4"], input=TSV)
    assert result.exit_code == 2 and "--seed applies to the bootstrap" in result.stderr


@pytest.mark.parametrize("level", ["0", "1", "95"])
def test_ci_level_must_lie_between_0_and_1(level):
    result = CliRunner().invoke(main, ["mrr", "--ci", level], input=TSV)
    assert result.exit_code == 2


def test_per_group_rows_are_unchanged_and_summary_goes_to_stderr():
    plain = run("mrr", "--per-group")
    with_ci = run("mrr", "--per-group", "--ci", "0.9", "--bootstrap", "50")
    assert plain.stdout == with_ci.stdout
    assert "ci_low" in with_ci.stderr
