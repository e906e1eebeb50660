"""System-level Spearman/Pearson/Kendall and segment-level average Spearman (Duh 2008 Table 3)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats

import slow_aggregate as slow
from rankeval_cli.aggregate.correlate import SegmentSpearman, system_correlations
from rankeval_cli.cli import main


def test_system_level_by_hand():
    # x = 1..5, y = 2,1,4,3,5: d = −1,1,−1,1,0, Σd² = 4 → ρ = 1 − 6·4/(5·24) = 0.8;
    # the values are ranks, so Pearson r = 0.8 too; pairs: 10, discordant (1,2) and (3,4) → τ = (8 − 2)/10
    rho, r, tau = system_correlations([1, 2, 3, 4, 5], [2, 1, 4, 3, 5])
    assert (rho.measure, r.measure, tau.measure) == ("spearman", "pearson", "kendall")
    assert rho.value == pytest.approx(0.8, rel=1e-12)
    assert r.value == pytest.approx(0.8, rel=1e-12)
    assert tau.value == pytest.approx(0.6, rel=1e-12)
    # t = 0.8 √(3 / 0.36) = 2.3094…, two-sided with 3 df
    assert rho.p_value == pytest.approx(2 * stats.t.sf(0.8 * math.sqrt(3 / 0.36), 3), rel=1e-12)
    # exact Kendall: τ = 0.6 ⇔ 2 inversions; permutations of 5 with ≤ 2 inversions: 1 + 4 + 9 = 14
    # of 120 → two-sided p = 28/120
    assert tau.p_value == pytest.approx(28 / 120, rel=1e-12)
    assert rho.n == r.n == tau.n == 5


def test_system_level_equals_scipy_on_random_scores():
    rng = np.random.default_rng(2)
    checked = 0
    for _ in range(500):
        n = int(rng.integers(3, 20))
        x = rng.integers(0, 6, n).astype(float) + (rng.random(n) if rng.random() < 0.5 else 0)
        y = rng.integers(0, 6, n).astype(float)
        if np.ptp(x) == 0 or np.ptp(y) == 0:
            assert all(math.isnan(c.value) for c in system_correlations(x, y))
            continue
        rho, r, tau = system_correlations(x, y)
        s, p, k = stats.spearmanr(x, y), stats.pearsonr(x, y), stats.kendalltau(x, y)
        assert rho.value == pytest.approx(s.statistic, rel=1e-12, abs=1e-14)
        assert r.value == pytest.approx(p.statistic, rel=1e-12, abs=1e-14)
        assert tau.value == pytest.approx(k.statistic, rel=1e-12, abs=1e-14)
        assert tau.p_value == k.pvalue
        if abs(rho.value) < 1 - 1e-9:  # scipy returns ±0.9999999999999998 for perfect correlations
            assert rho.p_value == pytest.approx(s.pvalue, rel=1e-9)
            assert r.p_value == pytest.approx(p.pvalue, rel=1e-9)
        checked += 1
    assert checked > 400


def test_nan_scores_are_left_out():
    rho, r, tau = system_correlations([1, 2, np.nan, 4], [1, 2, 3, np.nan])
    assert rho.n == 2 and rho.value == 1.0 and rho.p_value == 1.0


SEGMENTS = [
    # gold 1,2,3 vs pred 1,3,2: d = 0,−1,1 → ρ = 1 − 6·2/(3·8) = 0.5
    ([("a", 1), ("b", 2), ("c", 3)], [("a", 1), ("b", 3), ("c", 2)]),
    # gold 1,2,2,4 → average ranks 1,2.5,2.5,4; pred 4,3,2,1: centred (−1.5,0,0,1.5)·(1.5,.5,−.5,−1.5)
    # = −4.5; Σx² = 4.5, Σy² = 5 → ρ = −4.5/√22.5
    ([("a", 1), ("b", 2), ("c", 2), ("d", 4)], [("a", 4), ("b", 3), ("c", 2), ("d", 1)]),
    # one item: undefined
    ([("a", 1)], [("a", 1)]),
    # gold constant: undefined
    ([("a", 1), ("b", 1)], [("a", 1), ("b", 2)]),
    # a blank pred leaves a, c: gold 1 < 3, pred 2 < 5 → ρ = 1
    ([("a", 1), ("b", 2), ("c", 3)], [("a", 2), ("b", None), ("c", 5)]),
]


def test_segment_average_by_hand():
    seg = SegmentSpearman()
    seg.add(slow.batch_of([g for g, _ in SEGMENTS], pred=[p for _, p in SEGMENTS]))
    assert (seg.defined, seg.undefined, seg.skipped_rows) == (3, 2, 1)
    assert seg.mean == pytest.approx((0.5 - 4.5 / math.sqrt(22.5) + 1) / 3, rel=1e-12)


def test_segment_spearman_equals_scipy_per_group():
    rng = np.random.default_rng(6)
    gold = slow.random_profile(rng, 500, 8, max_size=8, blank=0.0, levels=5)
    pred = [[(i, float(rng.integers(0, 4)) if rng.random() > 0.1 else None) for i, _ in g] for g in gold]
    seg = SegmentSpearman()
    rho = seg.per_group(slow.batch_of(gold, pred=pred))
    for g, p, value in zip(gold, pred, rho):
        pairs = [(gv, pv) for (_, gv), (_, pv) in zip(g, p) if pv is not None]
        xs, ys = [a for a, _ in pairs], [b for _, b in pairs]
        if len(pairs) < 2 or len(set(xs)) < 2 or len(set(ys)) < 2:
            assert math.isnan(value)
        else:
            assert value == pytest.approx(stats.spearmanr(xs, ys).statistic, rel=1e-12, abs=1e-14)


TSV = ("group\titem\tgold\tpred\tlp\n"
       "g1\tA\t1\t1\tde\ng1\tB\t2\t2\tde\ng1\tC\t3\t3\tde\n"
       "g2\tA\t1\t2\tde\ng2\tB\t2\t1\tde\ng2\tC\t3\t3\tde\n"
       "g3\tA\t1\t1\tcs\ng3\tB\t2\t2\tcs\n")


def test_cli_from_groups_by_lp():
    result = CliRunner().invoke(main, ["correlate", "--by", "lp", "-m", "borda"], input=TSV)
    assert result.exit_code == 0, result.output
    rows = [l.split("\t") for l in result.stdout.splitlines()]
    assert rows[0] == ["lp", "level", "measure", "value", "p_independence", "systems", "groups", "undefined",
                       "signature"]
    de = {r[2]: r for r in rows[1:] if r[0] == "de"}
    # de gold Borda: A 2+2, B 1+1, C 0 → 4, 2, 0; pred: g1 A 2, B 1, C 0; g2 B 2, A 1, C 0 → A 3, B 3, C 0
    # Pearson of (4,2,0) and (3,3,0): centred (2,0,−2)·(1,1,−2) = 6; √(8·6) → 6/√48
    assert float(de["pearson"][3]) == pytest.approx(6 / math.sqrt(48), rel=1e-12)
    # Spearman: ranks (3,2,1) and (2.5,2.5,1): centred (1,0,−1)·(.5,.5,−1) = 1.5; √(2·1.5) → 1.5/√3
    assert float(de["spearman"][3]) == pytest.approx(1.5 / math.sqrt(3), rel=1e-12)
    # segment level: g1 ρ = 1, g2 ρ = 1 − 6·2/(3·8) = 0.5 → mean 0.75
    assert float(de["spearman-avg"][3]) == 0.75 and de["spearman-avg"][6] == "2"
    cs = {r[2]: r for r in rows[1:] if r[0] == "cs"}
    assert cs["spearman"][3] == "1" and cs["spearman"][5] == "2"  # two systems: ρ = 1, p = 1
    assert cs["spearman"][4] == "1"


def test_cli_from_aggregate_tables(tmp_path):
    runner = CliRunner()
    both = runner.invoke(main, ["aggregate", "--column", "both", "-m", "borda"], input=TSV.replace("\tcs\n", "\tde\n"))
    assert both.exit_code == 0, both.output
    (tmp_path / "both.tsv").write_text(both.stdout)
    one = runner.invoke(main, ["correlate", "--aggregates", str(tmp_path / "both.tsv")])
    assert one.exit_code == 0, one.output
    gold = runner.invoke(main, ["aggregate", "--column", "gold", "-m", "borda", "--output-format", "json"],
                         input=TSV.replace("\tcs\n", "\tde\n"))
    pred = runner.invoke(main, ["aggregate", "--column", "pred", "-m", "borda"], input=TSV.replace("\tcs\n", "\tde\n"))
    (tmp_path / "gold.jsonl").write_text(gold.stdout)
    (tmp_path / "pred.tsv").write_text(pred.stdout)
    two = runner.invoke(main, ["correlate", "--aggregates", str(tmp_path / "gold.jsonl"), str(tmp_path / "pred.tsv")])
    assert two.exit_code == 0, two.output

    def values(out):
        return [l.split("\t")[:6] for l in out.splitlines()[1:]]

    assert values(one.stdout) == values(two.stdout)
    # the same as correlating straight from the groups
    direct = runner.invoke(main, ["correlate", "-m", "borda"], input=TSV.replace("\tcs\n", "\tde\n"))
    assert values(direct.stdout)[:3] == values(one.stdout)


def test_cli_aggregates_needs_score_columns(tmp_path):
    (tmp_path / "x.tsv").write_text("item\tfoo\nA\t1\n")
    result = CliRunner().invoke(main, ["correlate", "--aggregates", str(tmp_path / "x.tsv")])
    assert result.exit_code == 1 and "not an aggregate table" in result.output


def test_segment_mean_does_not_depend_on_batches():
    rng = np.random.default_rng(16)
    gold = slow.random_profile(rng, 300, 8, max_size=8, blank=0.1, levels=5)
    pred = [[(i, float(rng.integers(0, 4))) for i, _ in g] for g in gold]
    rho = SegmentSpearman().per_group(slow.batch_of(gold, pred=pred))
    whole, cut = SegmentSpearman(), SegmentSpearman()
    whole.add(slow.batch_of(gold, pred=pred))
    for start in range(0, 300, 23):
        cut.add(slow.batch_of(gold[start:start + 23], pred=pred[start:start + 23]))
    assert (cut.defined, cut.undefined, cut.skipped_rows) == (whole.defined, whole.undefined, whole.skipped_rows)
    # the correctly rounded Σρ, whatever the batches
    assert cut.mean == whole.mean == math.fsum(rho[~np.isnan(rho)]) / whole.defined


def test_segment_sum_is_exact():
    # 2^-54 + 2^-54 + 0.5 = 0.5 + 2^-53 exactly; [2^-54] then [2^-54, 0.5] rounded per batch gives 0.5
    whole, cut = SegmentSpearman(), SegmentSpearman()
    for seg in (whole, cut):
        seg.per_group = lambda rho: rho  # feed per-group ρ directly
    whole.add(np.array([2.0**-54, 2.0**-54, 0.5, np.nan]))
    cut.add(np.array([2.0**-54]))
    cut.add(np.array([np.nan, 2.0**-54, 0.5]))
    assert cut.total == whole.total == 0.5 + 2.0**-53
    assert (cut.defined, cut.undefined) == (whole.defined, whole.undefined) == (3, 1)


def test_ci_equals_a_slow_bootstrap_of_repeated_groups():
    """correlate --ci against the obvious procedure: for each replicate, repeat every group as
    often as the draw says, aggregate gold and pred anew, correlate; then the percentiles."""
    import json

    import numpy as np
    from click.testing import CliRunner

    from rankeval_cli.aggregate import aggregate
    from rankeval_cli.aggregate.bootstrap import resample_counts
    from rankeval_cli.aggregate.correlate import join_scores, system_correlations
    from rankeval_cli.batch import Batch, offsets_from_sizes
    from rankeval_cli.cli import main
    from rankeval_cli.stats.resample import percentile_interval

    rng = np.random.default_rng(7)
    groups, systems = 25, ["s1", "s2", "s3", "s4", "s5"]
    gold = rng.integers(1, 4, size=(groups, 5)).astype(float)
    pred = gold + rng.integers(-1, 2, size=(groups, 5))
    lines = ["group\titem\tgold\tpred"] + [f"g{g}\t{s}\t{gold[g, i]:g}\t{pred[g, i]:g}"
                                           for g in range(groups) for i, s in enumerate(systems)]
    result = CliRunner().invoke(main, ["correlate", "--ci", "0.9", "--bootstrap", "40", "--seed", "3",
                                       "--output-format", "jsonl"], input="\n".join(lines) + "\n")
    assert result.exit_code == 0, result.output
    rows = {r["measure"]: r for r in map(json.loads, result.stdout.splitlines()) if r["level"] == "system"}

    counts = resample_counts(groups, range(40), 3).astype(int)
    values = []
    for c in counts:
        index = np.repeat(np.arange(groups), c)
        batch = Batch(group=np.array([f"r{j}" for j in range(len(index))], object),
                      offsets=offsets_from_sizes(np.full(len(index), 5)),
                      item=np.array(systems * len(index), object),
                      gold=gold[index].ravel(), pred=pred[index].ravel())
        scores = {r.column: r.score_of() for r in aggregate([batch], "expected-wins", column="both")}
        _, x, y, _ = join_scores(scores["gold"], scores["pred"])
        values.append([c.value for c in system_correlations(x, y)])
    values = np.array(values)
    for j, measure in enumerate(("spearman", "pearson", "kendall")):
        low, high = percentile_interval(values[:, j], 0.9)
        assert rows[measure]["ci_low"] == pytest.approx(low, abs=1e-12)
        assert rows[measure]["ci_high"] == pytest.approx(high, abs=1e-12)


def test_aggregates_join_systems_as_scores_does_and_a_join_matching_nothing_is_an_error(tmp_path):
    from click.testing import CliRunner

    from rankeval_cli.cli import main

    human, metric, other = tmp_path / "human.tsv", tmp_path / "metric.tsv", tmp_path / "other.tsv"
    human.write_text("item\tscore\nnewstest2015.online-B.0.de-en\t0.5\nnewstest2015.uedin.1.de-en\t0.25\n"
                     "newstest2015.KIT.2.de-en\t0.125\n")
    metric.write_text("item\tscore\nonline-B.0\t0.9\nuedin.1\t0.8\nKIT.2\t0.1\n")
    other.write_text("item\tscore\nA\t1\nB\t2\n")
    result = CliRunner().invoke(main, ["correlate", "--aggregates", str(human), str(metric)])
    assert result.exit_code == 0, result.output
    spearman = result.stdout.splitlines()[1].split("\t")
    assert spearman[1] == "spearman" and float(spearman[2]) == 1.0 and spearman[4] == "3"
    result = CliRunner().invoke(main, ["correlate", "--aggregates", str(human), str(other)])
    assert result.exit_code == 1 and "no system is scored on both sides" in result.stderr
