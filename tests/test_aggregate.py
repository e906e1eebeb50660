"""System-level aggregation (docs/definitions.md#aggregation): pair counts, every method, --by, CLI."""

from __future__ import annotations

import math

import numpy as np
import pytest
from click.testing import CliRunner

import slow_aggregate as slow
from rankeval_cli.aggregate import methods
from rankeval_cli.aggregate.win_counts import PairCounter
from rankeval_cli.aggregate.run import aggregate
from rankeval_cli.cli import main
from rankeval_cli.errors import DataError

# A hand-made profile with a tie, a blank and partial lists (lower = better):
#   g1: A 1, B 2, C 2, D blank  -> A>B, A>C, B=C
#   g2: B 1, D 2, A 3           -> B>D, B>A, D>A
#   g3: A 1, C 1, D 3           -> A=C, A>D, C>D
# wins W[i,j]: A>B 1, A>C 1, A>D 1, B>A 1, B>D 1, C>D 1, D>A 1; ties B=C 1, A=C 1.
# per item  wins: A 3, B 2, C 1, D 1   losses: A 2, B 1, C 1, D 3   ties: A 1, B 1, C 2, D 0
PROFILE = [
    [("A", 1), ("B", 2), ("C", 2), ("D", None)],
    [("B", 1), ("D", 2), ("A", 3)],
    [("A", 1), ("C", 1), ("D", 3)],
]

HAND = {
    # (w + t) / (w + l + t): A 4/6, B 3/4, C 3/4, D 1/4
    "ge-others": {"A": 4 / 6, "B": 3 / 4, "C": 3 / 4, "D": 1 / 4},
    # w / (w + l): A 3/5, B 2/3, C 1/2, D 1/4
    "gt-others": {"A": 3 / 5, "B": 2 / 3, "C": 1 / 2, "D": 1 / 4},
    # 1/3 Σ_j W_ij/(W_ij+W_ji): A (1/2 + 1 + 1/2)/3, B (1/2 + 0 [never decided vs C] + 1)/3,
    # C (0 + 0 + 1)/3, D (1/2 + 0 + 0)/3
    "expected-wins": {"A": 2 / 3, "B": 1.5 / 3, "C": 1 / 3, "D": 0.5 / 3},
    # comparisons: A-B 2, A-C 2, A-D 2, B-C 1, B-D 1, C-D 1
    # A 1/2+1/2+1/2, B 1/2+0/1+1/1, C 0/2+0/1+1/1, D 1/2+0+0
    "fv": {"A": 1.5, "B": 1.5, "C": 1.0, "D": 0.5},
    # A: vs B 1-1 → 0, vs C 1-0 → +1, vs D 1-1 → 0; B: vs C 0-0, vs D +1; C: −1 (A), +1 (D); D: 0, −1, −1
    "copeland": {"A": 1.0, "B": 1.0, "C": 0.0, "D": -2.0},
    # lists of 3: g1 A 2, B=C share (1+0)/2; g2 B 2, D 1, A 0; g3 A=C share (2+1)/2, D 0
    # A 2+0+1.5, B 0.5+2, C 0.5+1.5, D 1+0
    "borda": {"A": 3.5, "B": 2.5, "C": 2.0, "D": 1.0},
    # cost 2 is unavoidable (A-B and A-D split 1-1); A>C, B>D, C>D are free: optimal orders
    # ABCD, ACBD, BACD; the lexicographically smallest by id is ABCD → scores 3, 2, 1, 0
    "kemeny": {"A": 3.0, "B": 2.0, "C": 1.0, "D": 0.0},
}

ORDER = {  # sorted by score, then item id
    "ge-others": ["B", "C", "A", "D"],
    "gt-others": ["B", "A", "C", "D"],
    "expected-wins": ["A", "B", "C", "D"],
    "fv": ["A", "B", "C", "D"],
    "copeland": ["A", "B", "C", "D"],
    "borda": ["A", "B", "C", "D"],
    "kemeny": ["A", "B", "C", "D"],
}


def test_pair_counts_by_hand():
    counter = PairCounter("gold")
    counter.add(slow.batch_of(PROFILE))
    s = counter.stats()
    assert s.items == ["A", "B", "C", "D"]
    np.testing.assert_array_equal(s.wins, [[0, 1, 1, 1], [1, 0, 0, 1], [0, 0, 0, 1], [1, 0, 0, 0]])
    np.testing.assert_array_equal(s.ties, [[0, 0, 1, 0], [0, 0, 1, 0], [1, 1, 0, 0], [0, 0, 0, 0]])
    np.testing.assert_array_equal(s.present, [3, 2, 2, 2])  # D is blank in g1
    np.testing.assert_array_equal(s.present_len, [9, 6, 6, 6])
    assert (s.n_groups, s.total_len, counter.blank_rows) == (3, 9, 1)


@pytest.mark.parametrize("method", list(HAND))
def test_every_method_by_hand(method):
    [ranking] = aggregate([slow.batch_of(PROFILE)], method)
    assert ranking.items == ORDER[method]
    got = dict(zip(ranking.items, ranking.scores.tolist()))
    for item, expected in HAND[method].items():
        assert got[item] == pytest.approx(expected, rel=1e-12, abs=1e-15)
    np.testing.assert_array_equal(ranking.ranks, [1, 2, 3, 4])
    assert ranking.blank_rows == 1


def test_fv_all_denominator_by_hand():
    # Duh 2008's wording: W_ij / number of groups (3): A 3/3, B 2/3, C 1/3, D 1/3 (C before D by id)
    [r] = aggregate([slow.batch_of(PROFILE)], "fv", fv_denominator="all")
    assert r.items == ["A", "B", "C", "D"]
    np.testing.assert_allclose(r.scores, [1, 2 / 3, 1 / 3, 1 / 3], rtol=1e-12)


def test_direction_flag_reverses_the_ranking():
    flipped = [[(i, None if v is None else -v) for i, v in g] for g in PROFILE]
    [r] = aggregate([slow.batch_of(flipped)], "expected-wins", gold_higher_better=True)
    assert r.items == ORDER["expected-wins"]


def test_undefined_scores_rank_last_without_breaking_order():
    # E only ever appears alone: never compared → ge/gt-others undefined (NaN), listed last
    profile = PROFILE + [[("E", 1)]]
    [r] = aggregate([slow.batch_of(profile)], "gt-others")
    assert r.items[-1] == "E" and math.isnan(r.scores[-1])
    assert r.items[:4] == ORDER["gt-others"]


SLOW = {
    "ge-others": slow.ge_others, "gt-others": slow.gt_others, "expected-wins": slow.expected_wins,
    "fv": slow.fv, "copeland": slow.copeland, "borda": slow.borda,
}


@pytest.mark.parametrize("method", list(SLOW))
def test_methods_equal_slow_definitions_on_random_profiles(method):
    rng = np.random.default_rng(abs(hash(method)) % 2**32)
    for trial in range(40):
        profile = slow.random_profile(rng, int(rng.integers(1, 60)), int(rng.integers(2, 9)))
        batches = [slow.batch_of(profile[:10]), slow.batch_of(profile[10:])]  # streamed in two batches
        batches = [b for b in batches if b.n_groups]
        [r] = aggregate(batches, method)
        expected = SLOW[method](profile)
        got = dict(zip(r.items, r.scores.tolist()))
        assert sorted(got) == sorted(expected)
        for item in expected:
            if math.isnan(expected[item]):
                assert math.isnan(got[item])
            else:
                assert got[item] == pytest.approx(expected[item], rel=1e-12, abs=1e-12), (trial, item)
        # deterministic order: by score (desc, NaN last), then item id
        key = [(math.isnan(expected[i]), -round(expected[i], 9) if not math.isnan(expected[i]) else 0, i)
               for i in expected]
        assert r.items == [k[2] for k in sorted(key)]


def test_large_groups_and_batch_boundaries_do_not_matter():
    rng = np.random.default_rng(5)
    profile = slow.random_profile(rng, 300, 12, max_size=12, blank=0.05, levels=6)
    one = PairCounter("gold")
    one.add(slow.batch_of(profile))
    many = PairCounter("gold")
    for k in range(0, 300, 7):
        many.add(slow.batch_of(profile[k:k + 7]))
    a, b = one.stats(), many.stats()
    assert a.items == b.items
    for name in ("wins", "ties", "present", "present_len"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    wins, ties, _ = slow.outcomes(profile)
    for x, i in enumerate(a.items):
        for y, j in enumerate(a.items):
            assert a.wins[x, y] == wins[i, j] and a.ties[x, y] == ties[i, j]


def test_pred_column_and_by_partition():
    pred = [[(i, None if v is None else 5 - v) for i, v in g] for g in PROFILE]
    lp = np.array(["de-en"] * 4 + ["cs-en"] * 3 + ["de-en"] * 3, dtype=object)
    batch = slow.batch_of(PROFILE, extra={"lp": lp}, pred=pred)
    rankings = aggregate([batch], "expected-wins", column="both", by=["lp"])
    keys = [(r.key, r.column) for r in rankings]
    assert keys == [(("de-en",), "gold"), (("de-en",), "pred"), (("cs-en",), "gold"), (("cs-en",), "pred")]
    # de-en = g1 + g3: A>B, A>C, B=C, A=C, A>D, C>D; expected wins /(K−1 = 3):
    # A (1 + 1 + 1)/3, B 0 (lost to A, never decided vs C, D), C (0 + 0 + 1)/3, D (0 + 0)/3
    de_gold = rankings[0]
    assert de_gold.items == ["A", "C", "B", "D"]
    np.testing.assert_allclose(de_gold.scores, [1, 1 / 3, 0, 0], rtol=1e-12)
    # pred = 5 − gold reverses every comparison
    de_pred = rankings[1]
    assert de_pred.items == ["D", "B", "C", "A"]


def test_by_value_must_be_constant_within_a_group():
    lp = np.array(["x", "y", "x", "x", "x", "x", "x", "x", "x", "x"], dtype=object)
    batch = slow.batch_of(PROFILE, extra={"lp": lp})
    with pytest.raises(DataError, match="changes within group"):
        aggregate([batch], by=["lp"])
    with pytest.raises(DataError, match="no column 'nope'"):
        aggregate([batch], by=["nope"])


def test_sort_order_ties_and_nan():
    scores = np.array([[0.5, np.nan, 1 / 3 + 2 / 3 - 0.5, 0.9], [1, 1, 1, 1]])
    # 1/3 + 2/3 − 0.5 may differ from 0.5 in the last bit: still a tie, broken by index
    np.testing.assert_array_equal(methods.rank_positions(scores), [[2, 4, 3, 1], [1, 2, 3, 4]])


CLI_TSV = ("group\titem\tgold\tpred\tlp\n"
           "g1\tA\t1\t\tde\ng1\tB\t2\t\tde\ng1\tC\t2\t\tde\ng1\tD\t\t\tde\n"
           "g2\tB\t1\t\tde\ng2\tD\t2\t\tde\ng2\tA\t3\t\tde\n"
           "g3\tA\t1\t\tde\ng3\tC\t1\t\tde\ng3\tD\t3\t\tde\n")


def test_cli_table_and_blank_report():
    result = CliRunner().invoke(main, ["aggregate", "-m", "ew"], input=CLI_TSV)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "system\tvalue\trank\tsignature"
    assert [l.split("\t")[:3] for l in lines[1:]] == [
        ["A", repr(2 / 3), "1"], ["B", "0.5", "2"], ["C", repr(1 / 3), "3"], ["D", repr(0.5 / 3), "4"]]
    assert lines[1].split("\t")[3].startswith("aggregate|method:expected-wins|column:gold|")
    assert "gold: 1 blank values not ranked" in result.stderr


def test_cli_by_and_json():
    result = CliRunner().invoke(main, ["aggregate", "--by", "lp", "-m", "copeland", "--output-format", "json"],
                                input=CLI_TSV)
    assert result.exit_code == 0, result.output
    import json

    rows = [json.loads(l) for l in result.stdout.splitlines() if l.startswith("{")]
    assert [(r["lp"], r["system"], r["value"], r["rank"]) for r in rows] == [
        ("de", "A", 1.0, 1), ("de", "B", 1.0, 2), ("de", "C", 0.0, 3), ("de", "D", -2.0, 4)]


def test_cli_column_both_layout():
    text = CLI_TSV.replace("\t\tde\n", "\t1\tde\n")  # every pred 1: all tied
    result = CliRunner().invoke(main, ["aggregate", "--column", "both", "-m", "borda"], input=text)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "system\tgold_value\tgold_rank\tpred_value\tpred_rank\tsignature"
    # pred: every list all tied; A is in 3 lists of 3 (1 point each), B C D in 2 → 3, 2, 2, 2 … but D's
    # gold is blank in g1 while its pred is 1: D is in 3 pred lists (g1 has 4 ranked: 1.5 each)
    # A 1.5 + 1 + 1 = 3.5, B 1.5 + 1 = 2.5, C 1.5 + 1 = 2.5, D 1.5 + 1 + 1 = 3.5
    cells = [l.split("\t")[:5] for l in lines[1:]]
    assert cells == [["A", "3.5", "1", "3.5", "1"], ["B", "2.5", "2", "2.5", "3"],
                     ["C", "2", "3", "2.5", "4"], ["D", "1", "4", "3.5", "2"]]


def test_cli_unknown_method_is_usage_error():
    result = CliRunner().invoke(main, ["aggregate", "-m", "nonesuch"], input=CLI_TSV)
    assert result.exit_code == 2


def test_kemeny_beyond_limit_is_a_clear_error():
    items = [f"s{k:02d}" for k in range(21)]
    text = "group\titem\tgold\tpred\n" + "".join(f"g\t{s}\t{k}\t\n" for k, s in enumerate(items))
    result = CliRunner().invoke(main, ["aggregate", "-m", "kemeny"], input=text)
    assert result.exit_code == 1 and "at most 20 items" in result.output and "--approximate" in result.output
    result = CliRunner().invoke(main, ["aggregate", "-m", "kemeny", "--approximate"], input=text)
    assert result.exit_code == 0
    assert [l.split("\t")[0] for l in result.stdout.splitlines()[1:]] == items


# -- bootstrap -------------------------------------------------------------------

def _counter(profile, keep=True):
    counter = PairCounter("gold", keep_groups=keep)
    for k in range(0, len(profile), 9):
        counter.add(slow.batch_of(profile[k:k + 9]))
    return counter


def test_bootstrap_statistics_equal_recounting_the_resampled_groups():
    from rankeval_cli.aggregate import bootstrap

    rng = np.random.default_rng(21)
    profile = slow.random_profile(rng, 40, 7, blank=0.1)
    profile = [g for g in profile if any(v is not None for _, v in g)]  # groups with a ranked item
    counter = _counter(profile)
    seen = []

    def capture(stats):
        seen.append(stats)
        return methods.borda(stats, missing="bottom")

    bootstrap.bootstrap_ranks(counter, capture, 5, seed=3)
    counts = bootstrap.resample_counts(len(profile), range(5), 3)
    stats = seen[0]
    for b in range(5):
        resampled = [g for g, c in zip(profile, counts[b]) for _ in range(int(c))]
        direct = _counter(resampled, keep=False).stats()
        index = [direct.items.index(i) if i in direct.items else None for i in stats.items]
        for x, i in enumerate(index):
            if i is None:  # item absent from this replicate: nothing counted for it
                assert stats.present[b, x] == 0 and stats.wins[b, x].sum() == 0
                continue
            assert stats.present[b, x] == direct.present[i]
            assert stats.present_len[b, x] == direct.present_len[i]
            for y, j in enumerate(index):
                if j is not None:
                    assert stats.wins[b, x, y] == direct.wins[i, j]
                    assert stats.ties[b, x, y] == direct.ties[i, j]
        assert stats.n_groups[b] == len(resampled) and stats.total_len[b] == direct.total_len


def test_bootstrap_is_deterministic_and_independent_of_chunking(monkeypatch):
    from rankeval_cli.aggregate import bootstrap

    rng = np.random.default_rng(22)
    counter = _counter(slow.random_profile(rng, 60, 6))
    score = methods.expected_wins
    first = bootstrap.bootstrap_ranks(counter, score, 50, seed=7)
    np.testing.assert_array_equal(first, bootstrap.bootstrap_ranks(counter, score, 50, seed=7))
    monkeypatch.setattr(bootstrap, "CHUNK_CELLS", 100)  # one replicate per chunk
    np.testing.assert_array_equal(first, bootstrap.bootstrap_ranks(counter, score, 50, seed=7))
    assert not np.array_equal(first, bootstrap.bootstrap_ranks(counter, score, 50, seed=8))


def test_rank_ranges_drop_two_and_a_half_percent_each_side():
    from rankeval_cli.aggregate.bootstrap import rank_ranges

    # 40 replicates: ⌊0.025 · 40⌋ = 1 dropped at each end
    ranks = np.array([[1]] * 1 + [[2]] * 30 + [[3]] * 8 + [[5]] * 1)
    lo, hi = rank_ranges(ranks)
    assert (lo[0], hi[0]) == (2, 3)
    # 1000 replicates: 25 dropped at each end; the 26th smallest is the first kept
    ranks = np.repeat(np.arange(1, 11), 100)[:, None]
    lo, hi = rank_ranges(ranks)
    assert (lo[0], hi[0]) == (1, 10)
    ranks = np.array([[1]] * 25 + [[2]] * 950 + [[3]] * 25)
    assert tuple(x[0] for x in rank_ranges(ranks)) == (2, 2)


def test_clusters_split_where_no_range_crosses():
    from rankeval_cli.aggregate.bootstrap import clusters

    # best first: ranges 1-2, 1-2, 3-4, 3-5, 4-5, 6-6 → clusters {1,2}, {3,4,5}, {6}
    lo = np.array([1, 1, 3, 3, 4, 6])
    hi = np.array([2, 2, 4, 5, 5, 6])
    np.testing.assert_array_equal(clusters(lo, hi, np.arange(6)), [1, 1, 2, 2, 2, 3])
    # an overlapping range far down merges everything above it: 1-1, 2-2, 1-3
    np.testing.assert_array_equal(clusters(np.array([1, 2, 1]), np.array([1, 2, 3]), np.arange(3)), [1, 1, 1])


def test_cli_bootstrap_columns_and_clear_winner():
    # A always beats B, B always beats C, in 30 lists: every replicate ranks A, B, C
    text = "group\titem\tgold\tpred\n" + "".join(f"g{k}\tA\t1\t\ng{k}\tB\t2\t\ng{k}\tC\t3\t\n" for k in range(30))
    result = CliRunner().invoke(main, ["aggregate", "-m", "gt", "--bootstrap", "200", "--seed", "5"], input=text)
    assert result.exit_code == 0, result.output
    lines = [l.split("\t") for l in result.stdout.splitlines()]
    assert lines[0] == ["system", "value", "rank", "rank_ci_low", "rank_ci_high", "cluster", "signature"]
    assert [l[:6] for l in lines[1:]] == [["A", "1", "1", "1", "1", "1"], ["B", "0.5", "2", "2", "2", "2"],
                                          ["C", "0", "3", "3", "3", "3"]]
    assert "bootstrap:200|seed:5" in lines[1][6]


@pytest.mark.parametrize("method", ["borda", "fv", "ge-others", "copeland", "kemeny", "bradley-terry"])
def test_bootstrap_runs_for_every_method(method):
    rng = np.random.default_rng(23)
    batch = slow.batch_of(slow.random_profile(rng, 80, 5, levels=3))
    [r] = aggregate([batch], method, bootstrap=30, seed=1)
    assert r.lo is not None and r.replicates == 30
    assert np.all((1 <= r.lo) & (r.lo <= r.hi) & (r.hi <= len(r.items)))
    assert r.cluster[0] == 1 and np.all(np.diff(r.cluster) >= 0)


# -- references, real data -----------------------------------------------------------

def test_cli_excluded_reference_is_never_counted():
    # WMT10-11 put the reference among the ranked outputs as '_ref'; excluded, the result is the
    # same as for the rankings without it
    with_ref = CLI_TSV.replace("g1\tD\t\t\tde\n", "g1\tD\t\t\tde\ng1\t_ref\t1\t\tde\n") \
                      .replace("g3\tD\t3\t\tde\n", "g3\tD\t3\t\tde\ng3\t_ref\t1\t\tde\n")
    runner = CliRunner()
    plain = runner.invoke(main, ["aggregate", "-m", "ge"], input=CLI_TSV)
    excluded = runner.invoke(main, ["aggregate", "-m", "ge", "--exclude-systems", "_ref"], input=with_ref)
    included = runner.invoke(main, ["aggregate", "-m", "ge"], input=with_ref)
    assert excluded.exit_code == 0, excluded.output
    assert excluded.stdout == plain.stdout
    assert "_ref" in included.stdout and "excluded 2 item rows" in excluded.stderr


def test_wmt12_one_ranking_per_language_pair(shared):
    pytest.importorskip("rankeval_cli.formats.wmt_rr")
    from rankeval_cli import read

    rankings = aggregate(read(shared / "wmt12-rr" / "wmt12.RNK_results.csv", fmt="wmt-rr"), "gt-others", by=["lp"])
    # Li, Jiang & Wang 2012 Tables 4-5 list the WMT12 systems per pair: CZ-EN 6, DE-EN 16, ES-EN 12, FR-EN 15,
    # EN-CZ 13, EN-DE 15, EN-ES 11, EN-FR 15
    assert {r.key[0]: len(r.items) for r in rankings} == {
        "cs-en": 6, "de-en": 16, "es-en": 12, "fr-en": 15, "en-cs": 13, "en-de": 15, "en-es": 11, "en-fr": 15}
    assert sum(r.n_groups + r.empty_groups for r in rankings) == 12339  # every judgment, none lost
    for r in rankings:
        assert np.all(np.diff(r.scores) <= 0) and not np.isnan(r.scores).any()


def test_too_many_distinct_items_is_a_data_error(monkeypatch):
    from rankeval_cli.aggregate import win_counts

    monkeypatch.setattr(win_counts, "MAX_ITEMS", 3)
    with pytest.raises(DataError, match="more than 3 distinct items"):
        aggregate([slow.batch_of(PROFILE)])
