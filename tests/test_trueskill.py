"""TrueSkill (aggregate.trueskill): the two-player update against the ``trueskill`` package and
the published worked example, the WMT procedure against a literal one-run-at-a-time
transcription of keisks/wmt-trueskill, rank ranges and clusters against eval/cluster.py's
rule, and WMT16 ro-en against the published ranking."""

from __future__ import annotations

import math

import numpy as np
import pytest
import trueskill as ts

from rankeval_cli.aggregate import trueskill as T
from rankeval_cli.aggregate.win_counts import PairCounter
from rankeval_cli.aggregate.run import aggregate


def test_update_worked_example():
    # μ = 25, σ = 25/3, β = 25/6, τ = 25/300, 10% draws: a win gives 29.396 / 20.604 with σ 7.171,
    # a draw leaves μ = 25 with σ 6.458 (Moser 2010, "Computing your skill"; the trueskill package's
    # docs). τ² is added to σ² before the update (WMT uses τ = 0).
    beta = 25 / 6
    eps = T.draw_margin(beta, 0.10)
    prior = (25 / 3) ** 2 + (25 / 300) ** 2
    mw, sw, ml, sl = T.update(25.0, prior, 25.0, prior, False, beta, eps)
    assert (round(mw, 3), round(math.sqrt(sw), 3), round(ml, 3), round(math.sqrt(sl), 3)) == \
        (29.396, 7.171, 20.604, 7.171)
    ma, sa, mb, sb = T.update(25.0, prior, 25.0, prior, True, beta, eps)
    assert (round(ma, 3), round(math.sqrt(sa), 3), round(mb, 3), round(math.sqrt(sb), 3)) == \
        (25.0, 6.458, 25.0, 6.458)


@pytest.mark.parametrize("backend,tol", [("scipy", 1e-12), (None, 1e-6)])
def test_update_equals_trueskill_package(backend, tol):
    """Random match sequences (wins and draws, σ shrinking, β from 0.1 to 300): same μ and σ as
    the package's factor graph; its default backend approximates erfc (relative error ~1e-7)."""
    rng = np.random.default_rng(3)
    for _ in range(15 if backend else 60):
        beta = float(rng.uniform(0.1, 300))
        env = ts.TrueSkill(mu=0.0, sigma=0.5, beta=beta, tau=0.0, draw_probability=0.25, backend=backend)
        k = 4
        ref = [env.create_rating() for _ in range(k)]
        mu, s2 = np.zeros(k), np.full(k, 0.25)
        eps = T.draw_margin(beta)
        for _ in range(40):
            i, j = rng.choice(k, 2, replace=False)
            outcome = int(rng.integers(3))  # 0: i wins, 1: j wins, 2: draw
            ranks = [0, 1] if outcome == 0 else [1, 0] if outcome == 1 else [0, 0]
            (ref[i],), (ref[j],) = env.rate([[ref[i]], [ref[j]]], ranks=ranks)
            x, y = (j, i) if outcome == 1 else (i, j)
            mu[x], s2[x], mu[y], s2[y] = T.update(mu[x], s2[x], mu[y], s2[y], outcome == 2, beta, eps)
        assert np.abs(mu - [r.mu for r in ref]).max() < tol
        assert np.abs(np.sqrt(s2) - [r.sigma for r in ref]).max() < tol


# -- the WMT procedure, one run at a time, as infer_TS.py writes it -------------------------------

def slow_play(data: T.Comparisons, runs: int, seed: int, resample: bool = True):
    """infer_TS.py (-n 2 -d 0) read literally, with each run's random numbers drawn as
    :func:`trueskill.play` draws them, and the trueskill package (scipy backend) rating."""
    k, n = data.n_items, len(data.outcome)
    plays = n + 1
    env = ts.TrueSkill(mu=0.0, sigma=0.5, beta=0.5 * plays / 40.0, tau=0.0, draw_probability=0.25,
                       backend="scipy")
    out = []
    for seq in np.random.SeedSequence(seed).spawn(runs):
        rng = np.random.default_rng(seq)
        rows = rng.integers(0, n, n) if resample else np.arange(n)
        comparison_d: dict = {}
        for r in rows.tolist():
            comparison_d.setdefault((int(data.lo[r]), int(data.hi[r])), []).append(int(data.outcome[r]))
        for key in comparison_d:
            comparison_d[key].sort()  # the index of a uniform draw picks the outcome by its count
        rating = [env.create_rating() for _ in range(k)]
        uniforms = []
        for start in range(0, plays, T.BLOCK):
            uniforms.extend(rng.random((min(T.BLOCK, plays - start), 2)).tolist())
        for u_opp, u_out in uniforms:
            # next_comparison.get: the largest sigma (ties: largest name), opponent ∝ exp(-|Δμ|)
            a = sorted(((rating[s].sigma ** 2, s) for s in range(k)), reverse=True)[0][1]
            cands = [s for s in range(k) if s != a]
            weights = [math.exp(-abs(rating[a].mu - rating[s].mu)) for s in cands]
            total, acc, b = sum(weights), 0.0, cands[-1]
            for s, w in zip(cands, weights):
                acc += w
                if u_opp * total < acc:
                    b = s
                    break
            obs = comparison_d.get((min(a, b), max(a, b)))
            if not obs:
                continue
            outcome = obs[int(u_out * len(obs))]
            lo, hi = min(a, b), max(a, b)
            ranks = [0, 1] if outcome == 0 else [1, 0] if outcome == 1 else [0, 0]
            (rating[lo],), (rating[hi],) = env.rate([[rating[lo]], [rating[hi]]], ranks=ranks)
        out.append([(r.mu, r.sigma ** 2) for r in rating])
    return np.array(out)


def random_comparisons(rng, k, n, p_missing_pair=0.0):
    lo = rng.integers(0, k - 1, n)
    hi = lo + 1 + (rng.integers(0, k, n) % (k - 1 - lo))
    keep = rng.random(n) >= p_missing_pair * (hi == k - 1)
    return T.Comparisons(lo[keep], hi[keep], rng.integers(0, 3, keep.sum()), k)


@pytest.mark.parametrize("resample", [True, False])
def test_play_equals_literal_transcription(resample):
    rng = np.random.default_rng(11)
    for k, n in [(2, 5), (4, 40), (6, 120)]:
        data = random_comparisons(rng, k, n)
        fast = T.play(data, runs=3, seed=99, resample=resample)
        slow = slow_play(data, 3, 99, resample)
        np.testing.assert_allclose(fast.mu, slow[:, :, 0], rtol=0, atol=1e-12)
        np.testing.assert_allclose(fast.sigma2, slow[:, :, 1], rtol=0, atol=1e-12)


def test_plays_with_uncompared_pairs_are_counted_not_applied():
    data = T.Comparisons(np.array([0, 0, 1]), np.array([1, 1, 2]), np.array([0, 2, 1]), 4)  # item 3 never
    fast = T.play(data, runs=2, seed=5, resample=False)
    slow = slow_play(data, 2, 5, resample=False)
    np.testing.assert_allclose(fast.mu, slow[:, :, 0], atol=1e-12)
    assert fast.idle_plays > 0


def test_runs_do_not_depend_on_how_many_there_are():
    data = random_comparisons(np.random.default_rng(2), 5, 60)
    three, five = T.play(data, runs=3, seed=7), T.play(data, runs=5, seed=7)
    np.testing.assert_array_equal(three.mu, five.mu[:3])
    assert not np.array_equal(five.mu[0], five.mu[1])


def test_parameters_are_wmt_ones():
    data = random_comparisons(np.random.default_rng(2), 3, 79)
    result = T.play(data, runs=1, seed=1)
    assert result.plays == 80 and result.beta == 0.5 * 80 / 40  # β = σ0 · plays / 40
    assert T.draw_margin(1.0) == pytest.approx(math.sqrt(2) * 0.31863936396437514, rel=1e-12)  # Φ⁻¹(0.625)


# -- rank ranges and clusters: eval/cluster.py -by-rank -------------------------------------------

def slow_ranges_and_clusters(ranks: np.ndarray, mean_mu: np.ndarray, level: float):
    """cluster.py: sort each system's ranks, clip alpha = ceil((n - n*level)/2) at each end,
    walk the systems by mean mu and mark a boundary where check_boundary holds."""
    n, k = ranks.shape
    alpha = int(math.ceil((n - (n * 1.0 * level)) / 2.0))
    order = sorted(range(k), key=lambda s: (mean_mu[s], s), reverse=True)
    ranges = {}
    for s in range(k):
        clipped = sorted(ranks[:, s].tolist())[alpha:-alpha] if alpha else sorted(ranks[:, s].tolist())
        ranges[s] = (clipped[0], clipped[-1])
    best = [ranges[s][0] for s in order]
    cluster, current = {}, 1
    for i, s in enumerate(order):
        cluster[s] = current
        if i < k - 1 and all(ranges[s][1] < h for h in best[i + 1:]):
            current += 1
    return ranges, cluster


def test_ranges_and_clusters_equal_cluster_py():
    rng = np.random.default_rng(4)
    for n, k in [(1000, 7), (100, 5), (37, 9), (20, 3)]:
        strength = rng.normal(0, 1.5, k)
        noisy = strength + rng.normal(0, 1, (n, k))
        ranks = np.argsort(np.argsort(-noisy, axis=1), axis=1) + 1
        mean = noisy.mean(axis=0)
        order = np.lexsort((-np.arange(k), -mean))
        for level in (0.95, 0.9, 0.5):
            lo, hi = T.wmt_rank_ranges(ranks, level)
            clusters = T.wmt_clusters(lo, hi, order)
            ranges, cluster = slow_ranges_and_clusters(ranks, mean, level)
            assert [(int(lo[s]), int(hi[s])) for s in range(k)] == [ranges[s] for s in range(k)]
            assert clusters.tolist() == [cluster[s] for s in range(k)]


def test_run_ranks_break_ties_as_wmt():
    mu = np.array([[0.0, 0.0, 1.0]])
    s2 = np.array([[0.2, 0.2, 0.1]])
    assert T.run_ranks(mu, s2).tolist() == [[3, 2, 1]]  # equal (μ, σ²): the larger id first


# -- WMT16 ro-en against the published ranking ---------------------------------------------------

#: Bojar et al. 2016 (Findings of WMT16), ro-en; cfedermann/wmt16 results/wmt16.ron-eng.txt:
#: system, mean μ over 1000 runs, rank range, cluster
WMT16_RO_EN = [
    ("newstest2016.online-B.0.ro-en", 0.583, (1, 2), 1),
    ("newstest2016.uedin-nmt.4302.ro-en", 0.377, (1, 2), 1),
    ("newstest2016.uedin-pbmt.4363.ro-en", 0.097, (3, 3), 2),
    ("newstest2016.uedin-syntax.4272.ro-en", -0.085, (4, 5), 3),
    ("newstest2016.online-A.0.ro-en", -0.188, (4, 6), 3),
    ("newstest2016.jhu-pbmt.4284.ro-en", -0.321, (5, 7), 3),
    ("newstest2016.LIMSI.4422.ro-en", -0.464, (6, 7), 3),
]


def test_wmt16_ro_en_matches_published(shared):
    from rankeval_cli.formats import read

    path = shared / "wmt16-rr" / "wmt16.ron-eng.csv"
    if not path.exists():
        pytest.skip("wmt16-rr data absent")
    (ranking,) = aggregate(read(str(path), fmt="wmt-rr"), "trueskill", bootstrap=1000, seed=12345)
    assert ranking.items == [s for s, *_ in WMT16_RO_EN]
    assert ranking.cluster.tolist() == [c for *_, c in WMT16_RO_EN]
    # the runs are random (WMT's unseeded): means within 0.01 of the published ones
    assert np.abs(ranking.scores - [m for _, m, _, _ in WMT16_RO_EN]).max() < 0.01
    assert list(zip(ranking.lo.tolist(), ranking.hi.tolist())) == [r for _, _, r, _ in WMT16_RO_EN]


def test_trueskill_without_runs_is_one_run_on_the_data():
    from rankeval_cli.batch import Batch, offsets_from_sizes

    b = Batch(group=np.array(["1", "2", "3"], object), offsets=offsets_from_sizes(np.array([3, 3, 3])),
              item=np.array(["A", "B", "C"] * 3, object), gold=np.array([1., 2., 3., 1., 3., 2., 2., 1., 3.]),
              pred=np.full(9, np.nan))
    (r,) = aggregate([b], "trueskill", seed=3)
    counter = PairCounter("gold")
    counter.add(b)
    result = T.play(T.comparisons(counter), runs=1, seed=3, resample=False)
    assert r.items == ["A", "B", "C"]
    np.testing.assert_array_equal(r.scores, np.sort(result.mu[0])[::-1])
    assert r.lo is None


def test_cli_trueskill_runs_are_seeded_and_per_partition():
    from click.testing import CliRunner

    from rankeval_cli.cli import main

    rng = np.random.default_rng(8)
    lines = ["group\titem\tgold\tpred\tlp"]
    for g in range(60):
        lp = "xx-en" if g % 2 else "yy-en"
        for item in rng.choice(["A", "B", "C", "D"], 3, replace=False):
            lines.append(f"{g}\t{item}\t{rng.integers(1, 4)}\t\t{lp}")
    text = "\n".join(lines) + "\n"
    args = ["aggregate", "--method", "trueskill", "--by", "lp", "--bootstrap", "30", "--seed", "4"]
    first = CliRunner().invoke(main, args, input=text)
    assert first.exit_code == 0, first.output
    assert CliRunner().invoke(main, args, input=text).output == first.output
    rows = first.output.splitlines()
    assert rows[0] == "lp\tsystem\tvalue\trank\trank_ci_low\trank_ci_high\tcluster\tsignature"
    assert len(rows) == 1 + 8 and {r.split("\t")[0] for r in rows[1:]} == {"xx-en", "yy-en"}
    assert "method:trueskill" in rows[1] and "runs:30|resample:yes|seed:4" in rows[1]
    other = CliRunner().invoke(main, args[:-1] + ["5"], input=text)
    assert other.output != first.output


def test_cli_ci_level_and_seed_of_a_single_run():
    from click.testing import CliRunner

    from rankeval_cli.cli import main

    text = "group\titem\tgold\n" + "".join(f"{g}\t{s}\t{r}\n" for g in range(30)
                                            for r, s in enumerate("ABC" if g % 3 else "BAC", 1))
    one = CliRunner().invoke(main, ["aggregate", "--method", "trueskill", "--seed", "8"], input=text)
    assert one.exit_code == 0, one.output
    assert "runs:1|resample:no|seed:8|" in one.output and "\trank_ci_low\t" not in one.output
    default = CliRunner().invoke(main, ["aggregate", "--method", "trueskill"], input=text)
    assert "seed:12345|" in default.output and default.output != one.output
    ranged = CliRunner().invoke(main, ["aggregate", "--method", "trueskill", "--ci", "0.5", "--bootstrap", "40"],
                                input=text)
    assert ranged.exit_code == 0 and "runs:40|resample:yes|seed:12345|ci:0.5|" in ranged.output
    assert ranged.output.splitlines()[0].split("\t")[:6] == ["system", "value", "rank", "rank_ci_low", "rank_ci_high",
                                                               "cluster"]


def test_counts_give_the_comparisons_and_replicate_scores():
    rng = np.random.default_rng(12)
    data = random_comparisons(rng, 4, 50)
    wins, ties = np.zeros((4, 4)), np.zeros((4, 4))
    for lo, hi, o in zip(data.lo.tolist(), data.hi.tolist(), data.outcome.tolist()):
        if o == 2:
            ties[lo, hi] += 1
            ties[hi, lo] += 1
        else:
            wins[(lo, hi) if o == 0 else (hi, lo)] += 1
    back = T.comparisons_from_counts(wins, ties)
    assert sorted(zip(back.lo.tolist(), back.hi.tolist(), back.outcome.tolist())) == \
        sorted(zip(data.lo.tolist(), data.hi.tolist(), data.outcome.tolist()))
    from rankeval_cli.aggregate.win_counts import PairStats

    stacked = PairStats(items=list("ABCD"), wins=np.stack([wins, wins.T]), ties=np.stack([ties, ties]),
                        present=None, present_len=None, n_groups=None, total_len=None)
    got = T.scores(stacked, seed=3)
    for r, (w, t) in enumerate([(wins, ties), (wins.T, ties)]):
        want = T.play(T.comparisons_from_counts(w, t), runs=1, seed=3, resample=False).mu[0]
        np.testing.assert_array_equal(got[r], want)


def test_correlate_accepts_trueskill():
    from click.testing import CliRunner

    from rankeval_cli.cli import main

    text = "group\titem\tgold\tpred\n" + "".join(f"{g}\t{s}\t{r}\t{(r + g) % 3}\n" for g in range(20)
                                                  for r, s in enumerate("ABC", 1))
    result = CliRunner().invoke(main, ["correlate", "--method", "trueskill"], input=text)
    assert result.exit_code == 0, result.output
    assert "method:trueskill" in result.output and "seed:12345" in result.output


@pytest.mark.parametrize("runs", [[], ["--bootstrap", "20"]])
def test_fully_tied_systems_come_in_id_order(runs):
    """Every aggregation method sorts ties by item id (README, aggregate); TrueSkill once gave C, B, A."""
    from robust import invoke

    text = "group\titem\tgold\tpred\n" + "".join(f"g{g}\t{s}\t1\t\n" for g in range(3) for s in "CAB")
    result = invoke(["aggregate", "--method", "trueskill", *runs], text)
    assert result.exit_code == 0, result.stderr
    rows = [line.split("\t") for line in result.stdout.splitlines()[1:]]
    assert [(r[0], r[2]) for r in rows] == [("A", "1"), ("B", "2"), ("C", "3")]
