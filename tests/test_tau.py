"""Kendall's tau variants, averaging, p-values and tie calibration (docs/definitions.md#tau).

Expected values are hand-computed in comments or come from independent code:
scipy.stats.kendalltau, a slow pair loop per variant, brute force over epsilon.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import kendalltau

from rankeval_cli.batch import Batch, offsets_from_sizes
from rankeval_cli.errors import DataError
from rankeval_cli.measures.tau import (
    VARIANTS, TauAccumulator, TieCalibrator, canonical_variant, tau, tau_stream)

# mt-metrics-eval's unit test data; both lists are scores (higher = better).
GOLD = [1, 2, 2, 3, 4]
PRED = [2, 1, 1.5, 5, 3]


# ---- slow obvious reference implementation ------------------------------------------

def slow_counts(gold, pred, epsilon=None):
    """dict C, D, T_h, T_m, T_hm, n, m over items with both values; |Δpred| <= ε ties."""
    items = [(g, p) for g, p in zip(gold, pred) if not (math.isnan(g) or math.isnan(p))]
    out = dict.fromkeys(("C", "D", "T_h", "T_m", "T_hm"), 0)
    for (g1, p1), (g2, p2) in itertools.combinations(items, 2):
        pred_tie = p1 == p2 if epsilon is None else abs(p1 - p2) <= epsilon
        if g1 == g2 and pred_tie:
            out["T_hm"] += 1
        elif g1 == g2:
            out["T_h"] += 1
        elif pred_tie:
            out["T_m"] += 1
        elif (g1 < g2) == (p1 < p2):
            out["C"] += 1
        else:
            out["D"] += 1
    out["n"] = len(items)
    out["m"] = min(len({g for g, _ in items}), len({p for _, p in items}))
    return out


def slow_parts(variant, k):
    """(numerator, denominator) of a variant, straight from docs/definitions.md#tau."""
    C, D, Th, Tm, Thm, n, m = (k[x] for x in ("C", "D", "T_h", "T_m", "T_hm", "n", "m"))
    N = C + D + Th + Tm + Thm
    if variant == "penalize":
        return C - D - Tm, C + D + Tm
    if variant == "ignore":
        return C - D, C + D
    if variant == "wmt14":
        return C - D, C + D + Tm
    if variant == "include":
        return C - D + Thm, N
    if variant == "a":
        return C - D, N
    if variant == "b":
        return C - D, math.sqrt((C + D + Th) * (C + D + Tm))
    if variant == "c":
        return 2 * (C - D), (n * n * (m - 1) / m if m else 0)
    if variant == "eq":
        return C + Thm - D - Th - Tm, N
    if variant == "acc-eq":
        return C + Thm, N
    raise AssertionError(variant)


def slow_tau(variant, gold, pred, epsilon=None):
    num, den = slow_parts(variant, slow_counts(gold, pred, epsilon))
    return num / den if den > 0 else math.nan


def slow_micro_macro(variant, groups, epsilon=None):
    counts = [slow_counts(g, p, epsilon) for g, p in groups]
    taus = [slow_tau(variant, g, p, epsilon) for g, p in groups]
    defined = [t for t in taus if not math.isnan(t)]
    macro = math.fsum(defined) / len(defined) if defined else math.nan
    parts = [slow_parts(variant, k) for k in counts]
    if variant == "b":
        pooled = {x: sum(k[x] for k in counts) for x in ("C", "D", "T_h", "T_m", "T_hm", "n", "m")}
        num, den = slow_parts("b", pooled)
    else:
        num, den = math.fsum(p[0] for p in parts), math.fsum(p[1] for p in parts)
    micro = num / den if den > 0 else math.nan
    return micro, macro, len(taus) - len(defined)


def make_batch(groups, start=0):
    sizes = [len(g) for g, _ in groups]
    gold = np.array([x for g, _ in groups for x in g], dtype=float)
    pred = np.array([x for _, p in groups for x in p], dtype=float)
    return Batch(group=np.array([f"g{start + i}" for i in range(len(groups))], dtype=object),
                 offsets=offsets_from_sizes(np.array(sizes, dtype=np.int64)),
                 item=np.array([f"i{j}" for j in range(len(gold))], dtype=object), gold=gold, pred=pred)


def random_groups(seed, count, max_size=7, levels=4, missing=0.05):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        size = int(rng.integers(0, max_size + 1))
        g = rng.integers(0, levels, size).astype(float)
        p = rng.integers(0, levels, size).astype(float)
        g[rng.random(size) < missing] = np.nan
        p[rng.random(size) < missing] = np.nan
        out.append((g.tolist(), p.tolist()))
    return out


def same(a, b, rel=1e-12):
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=rel, abs=1e-15)


# ---- hand-computed and published values ---------------------------------------------

def test_mt_metrics_eval_reference_values():
    # Pairs of GOLD/PRED: C = 6, D = 3, T_h = 1 (items 1, 2), T_m = T_hm = 0, N = 10.
    # b = 3 / sqrt(10 * 9) = 0.316227766; c: n = 5, m = min(4, 5) = 4, 2*3 / (25*3/4) = 0.32;
    # eq = (6 - 3 - 1)/10 = 0.2; acc-eq = 6/10 = 0.6.
    assert tau(GOLD, PRED, "b", scores=True) == pytest.approx(0.316227766, abs=5e-10)
    assert tau(GOLD, PRED, "b", scores=True) == pytest.approx(3 / math.sqrt(90), rel=1e-15)
    assert tau(GOLD, PRED, "c", scores=True) == pytest.approx(0.32, rel=1e-15)
    assert tau(GOLD, PRED, "eq", scores=True) == pytest.approx(0.2, rel=1e-15)
    assert tau(GOLD, PRED, "acc-eq", scores=True) == pytest.approx(0.6, rel=1e-15)


def test_acc_eq_with_epsilon_two():
    # |Δpred| <= 2 ties pairs (0,1) (0,2) (0,4) (1,4) (2,4) (3,4) in pred only and (1,2) in both;
    # left: (0,3) (1,3) (2,3) concordant. acc-eq = (3 + 1)/10 = 0.4.
    assert tau(GOLD, PRED, "acc-eq", scores=True, epsilon=2) == pytest.approx(0.4, rel=1e-15)
    # eq at ε = 2: (3 + 1 - 0 - 0 - 6)/10 = -0.2
    assert tau(GOLD, PRED, "eq", epsilon=2) == pytest.approx(-0.2, rel=1e-15)


@pytest.mark.parametrize("variant, expected", [
    # gold = [1,1,2,2,3], pred = [1,1,3,2,2] (ranks): C=6, D=1, T_h=1, T_m=1, T_hm=1, N=10,
    # n=5, m=min(3,3)=3.
    ("penalize", 4 / 8),       # (6-1-1)/(6+1+1)
    ("ignore", 5 / 7),         # (6-1)/(6+1)
    ("wmt14", 5 / 8),          # (6-1)/(6+1+1)
    ("include", 6 / 10),       # (6-1+1)/10
    ("a", 5 / 10),             # (6-1)/10
    ("b", 5 / 8),              # 5/sqrt((6+1+1)(6+1+1))
    ("c", 0.6),                # 2*5/(25*2/3) = 10/(50/3)
    ("eq", 4 / 10),            # (6+1-1-1-1)/10
    ("acc-eq", 7 / 10),        # (6+1)/10
])
def test_hand_computed_every_variant(variant, expected):
    assert tau([1, 1, 2, 2, 3], [1, 1, 3, 2, 2], variant) == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize("variant, expected", [
    # gold = [1,2,3], pred = [1,1,3]: (0,1) T_m, (0,2) C, (1,2) C -> C=2, T_m=1, N=3, m=2.
    ("penalize", 1 / 3), ("ignore", 1.0), ("wmt14", 2 / 3), ("include", 2 / 3), ("a", 2 / 3),
    ("b", 2 / math.sqrt(6)),   # 2/sqrt((2+0+0)(2+1))
    ("c", 8 / 9),              # 2*2/(9*(2-1)/2)
    ("eq", 1 / 3),             # (2-1)/3
    ("acc-eq", 2 / 3),
])
def test_hand_computed_pred_ties(variant, expected):
    assert tau([1, 2, 3], [1, 1, 3], variant) == pytest.approx(expected, rel=1e-15)


def test_direction_does_not_matter_when_shared():
    # negating both lists keeps every pair's concordance
    for variant in VARIANTS:
        assert same(tau(GOLD, PRED, variant), tau([-g for g in GOLD], [-p for p in PRED], variant))


@pytest.mark.parametrize("gold, pred, undefined", [
    ([1], [1], set(VARIANTS)),                                  # no pair at all
    ([1, 1, 1], [1, 2, 3], {"penalize", "ignore", "wmt14", "b", "c"}),  # all gold tied
    ([1, 2, 3], [2, 2, 2], {"ignore", "b", "c"}),               # all pred tied
    ([1, 1], [3, 3], {"penalize", "ignore", "wmt14", "b", "c"}),
])
def test_undefined_groups(gold, pred, undefined):
    for variant in VARIANTS:
        assert math.isnan(tau(gold, pred, variant)) == (variant in undefined), variant


def test_all_pred_tied_penalize_is_minus_one():
    # pred says nothing: every gold-ordered pair is a pred tie, counted as discordant.
    assert tau([1, 2, 3], [2, 2, 2], "penalize") == -1.0
    assert tau([1, 2, 3], [2, 2, 2], "wmt14") == 0.0


def test_aliases_and_case():
    assert canonical_variant("WMT12") == "penalize" and canonical_variant("darr") == "penalize"
    assert canonical_variant("wmt13") == "ignore"
    assert [canonical_variant(f"wmt{y}") for y in (14, 15, 16)] == ["wmt14"] * 3
    assert canonical_variant("ACC_EQ") == "acc-eq" and canonical_variant("B") == "b"
    with pytest.raises(ValueError, match="unknown tau variant"):
        canonical_variant("d")


# ---- averaging ----------------------------------------------------------------------

def test_macro_keeps_a_tau_of_exactly_zero():
    # group A: [1,2] vs [1,2] -> C=1, tau = 1. group B: gold [1,2,3,4], pred [2,3,4,1]:
    # (0,1) C (0,2) C (0,3) D (1,2) C (1,3) D (2,3) D -> C=3, D=3, tau = 0.
    # macro = (1 + 0)/2 = 0.5 (original RankEval dropped the 0: 1.0); micro = (4-3)/(4+3) = 1/7.
    groups = [([1, 2], [1, 2]), ([1, 2, 3, 4], [2, 3, 4, 1])]
    s = tau_stream([make_batch(groups)], "ignore")
    assert s.macro == 0.5 and s.micro == pytest.approx(1 / 7, rel=1e-15)
    assert (s.C, s.D, s.groups, s.undefined) == (4, 3, 2, 0)


def test_undefined_groups_are_counted_not_averaged():
    # group 0 tau 1; group 1 a single item; group 2 all gold tied (penalize undefined).
    groups = [([1, 2], [1, 2]), ([1], [5]), ([3, 3], [1, 2])]
    s = tau_stream([make_batch(groups)], "penalize")
    assert (s.macro, s.micro, s.groups, s.undefined, s.T_h) == (1.0, 1.0, 3, 2, 1)


def test_empty_stream():
    s = tau_stream([], "b")
    assert math.isnan(s.micro) and math.isnan(s.macro) and math.isnan(s.p)
    assert (s.groups, s.undefined, s.C) == (0, 0, 0)


@pytest.mark.parametrize("variant", VARIANTS)
def test_micro_macro_equal_slow_implementation(variant):
    groups = random_groups(seed=VARIANTS.index(variant), count=1200)
    seen = []
    # three batches, to exercise the accumulator across batches
    summary = tau_stream([make_batch(groups[:500]), make_batch(groups[500:501], 500),
                          make_batch(groups[501:], 501)], variant, on_groups=seen.append)
    micro, macro, undefined = slow_micro_macro(variant, groups)
    assert same(summary.micro, micro) and same(summary.macro, macro)
    assert summary.undefined == undefined and summary.groups == len(groups)
    rows = [r for part in seen for r in part.records()]
    assert len(seen) == 3 and [r["group"] for r in rows] == [f"g{i}" for i in range(len(groups))]
    for row, (g, p) in zip(rows, groups):
        assert same(row["tau"], slow_tau(variant, g, p))
        k = slow_counts(g, p)
        assert [row[x] for x in ("items", "C", "D", "T_h", "T_m", "T_hm")] == [k[x] for x in
                                                                          ("n", "C", "D", "T_h", "T_m", "T_hm")]
        assert row["skipped"] == len(g) - k["n"]


@pytest.mark.parametrize("variant", ["b", "c"])
def test_per_group_equals_scipy(variant):
    groups = random_groups(seed=21, count=2000, max_size=9, levels=5, missing=0.0)
    rows = []
    tau_stream([make_batch(groups)], variant, on_groups=rows.append)
    got = rows[0].tau
    for t, (g, p) in zip(got, groups):
        expected = kendalltau(g, p, variant=variant).statistic if len(g) >= 2 else math.nan
        assert same(float(t), float(expected))


def test_micro_counts_equal_slow_pair_loop():
    groups = random_groups(seed=5, count=2000, max_size=12, levels=6)
    s = tau_stream([make_batch(groups)], "b")
    total = {k: sum(slow_counts(g, p)[k] for g, p in groups) for k in ("C", "D", "T_h", "T_m", "T_hm")}
    assert (s.C, s.D, s.T_h, s.T_m, s.T_hm) == tuple(total.values())
    assert s.skipped == sum(len(g) for g, _ in groups) - sum(slow_counts(g, p)["n"] for g, p in groups)


# ---- p-values -----------------------------------------------------------------------

def test_group_p_seed_000_equations_3_4():
    # tau-b = 3/sqrt(90), n = 5 ranked items (not 10 pairs):
    # z = tau / sqrt((4*5+10)/(9*5*4)) = tau / sqrt(1/6); p = erfc(|z|/sqrt(2)).
    rows = []
    tau_stream([make_batch([(GOLD, PRED)])], "b", on_groups=rows.append)
    z = (3 / math.sqrt(90)) / math.sqrt(30 / 180)
    assert rows[0].p[0] == pytest.approx(math.erfc(z / math.sqrt(2)), rel=1e-14)
    assert rows[0].p[0] == pytest.approx(0.438578026, abs=5e-10)


def test_group_p_undefined_for_accuracy_and_short_groups():
    rows = []
    tau_stream([make_batch([(GOLD, PRED), ([1], [1])])], "acc-eq", on_groups=rows.append)
    assert np.isnan(rows[0].p).all()
    rows = []
    tau_stream([make_batch([([1], [1])])], "penalize", on_groups=rows.append)
    assert np.isnan(rows[0].p).all()


def test_set_p_for_one_group_is_scipy_asymptotic():
    # scipy's asymptotic test of tau-b: z = (C - D)/sqrt(Var(S)), Var(S) tie-corrected.
    s = tau_stream([make_batch([(GOLD, PRED)])], "penalize")
    assert s.p == pytest.approx(kendalltau(GOLD, PRED, method="asymptotic").pvalue, rel=1e-12)
    # Var(S) = (5*4*15 - 2*9)/18 = 282/18 (only the gold block {2,2}); S = 3
    assert s.var_S == pytest.approx(282 / 18, rel=1e-15) and s.S == 3


def test_set_p_sums_S_and_variance_over_groups():
    # group 1 as above: S = 3, Var = 282/18; group 2: gold [1,1,2,2,3], pred [1,1,3,2,2]:
    # S = 5, Var = 196/15 (test_pairs). z = 8/sqrt(282/18 + 196/15).
    s = tau_stream([make_batch([(GOLD, PRED), ([1, 1, 2, 2, 3], [1, 1, 3, 2, 2])])], "b")
    z = 8 / math.sqrt(282 / 18 + 196 / 15)
    assert s.S == 8 and s.p == pytest.approx(math.erfc(z / math.sqrt(2)), rel=1e-13)


# ---- tie calibration ----------------------------------------------------------------

def test_calibration_reference_example():
    # acc-eq by ε over the reference pairs (|Δpred| in parentheses):
    # ε=0: 0.6; ε=0.5 ((0,2) D->T_m, (1,2) T_h->T_hm): 0.7; ε=1 ((0,1) D->T_m, (0,4) C->T_m): 0.6;
    # ε=1.5 ((2,4) C): 0.5; ε=2 ((1,4) C, (3,4) D): 0.4; larger ε only lose C. Best: 0.7 at 0.5.
    for average in ("micro", "macro"):
        cal = TieCalibrator("acc-eq", average)
        cal.add(make_batch([(GOLD, PRED)]))
        epsilon, rows, summary = cal.finish()
        assert epsilon == 0.5 and summary.epsilon == 0.5
        assert getattr(summary, average) == pytest.approx(0.7, rel=1e-15)
        assert (summary.C, summary.D, summary.T_h, summary.T_m, summary.T_hm) == (6, 2, 0, 1, 1)
        assert math.isnan(summary.p)


def test_calibration_keeps_zero_when_ties_only_hurt():
    # gold and pred agree perfectly: any pred tie loses a concordant pair; ε = 0.
    cal = TieCalibrator("eq", "micro")
    cal.add(make_batch([([1, 2, 3], [10, 20, 30])]))
    epsilon, _, summary = cal.finish()
    assert epsilon == 0.0 and summary.micro == 1.0


def brute_force_epsilon(variant, average, groups):
    """Try ε = 0 and every observed |Δpred|; smallest best ε and its score."""
    candidates = {0.0}
    for g, p in groups:
        items = [(a, b) for a, b in zip(g, p) if not (math.isnan(a) or math.isnan(b))]
        candidates |= {abs(x[1] - y[1]) for x, y in itertools.combinations(items, 2)}
    best = None
    for eps in sorted(candidates):
        micro, macro, _ = slow_micro_macro(variant, groups, epsilon=eps)
        score = micro if average == "micro" else macro
        if best is None or score > best[1] + 1e-12:
            best = (eps, score)
    return best


@pytest.mark.parametrize("variant", ["eq", "acc-eq"])
@pytest.mark.parametrize("average", ["micro", "macro"])
def test_calibration_equals_brute_force(variant, average):
    rng = np.random.default_rng(17)
    for trial in range(8):
        groups = []
        for _ in range(int(rng.integers(1, 25))):
            size = int(rng.integers(0, 7))
            g = rng.integers(0, 3, size).astype(float)
            p = np.round(rng.normal(0, 1, size) + 0.5 * g, 1)  # pred with some exact ties
            p[rng.random(size) < 0.05] = np.nan
            groups.append((g.tolist(), p.tolist()))
        cal = TieCalibrator(variant, average)
        cal.add(make_batch(groups[: len(groups) // 2]))
        cal.add(make_batch(groups[len(groups) // 2:], len(groups) // 2))
        epsilon, rows, summary = cal.finish()
        eps, score = brute_force_epsilon(variant, average, groups)
        assert epsilon == eps and same(getattr(summary, average), score), (trial, epsilon, eps)
        for t, (g, p) in zip(rows.tau, groups):
            assert same(float(t), slow_tau(variant, g, p, epsilon))


def test_calibration_refuses_other_variants_and_too_many_pairs():
    with pytest.raises(ValueError):
        TieCalibrator("penalize", "macro")
    with pytest.raises(ValueError):
        tau(GOLD, PRED, "c", epsilon=1)  # a fixed epsilon applies to every variant but tau-c
    cal = TieCalibrator("acc-eq", "macro", max_pairs=5)
    with pytest.raises(DataError, match="pairs"):
        cal.add(make_batch([(GOLD, PRED)]))  # 10 pairs


def test_stream_with_calibration_reports_rows_once():
    seen = []
    s = tau_stream([make_batch([(GOLD, PRED)]), make_batch([([1, 2], [1, 1.2])], 1)], "acc-eq",
                   on_groups=seen.append, calibrate="macro")
    assert len(seen) == 1 and seen[0].group.tolist() == ["g0", "g1"]
    # ε = 0.2 ties group 1's only pair (C -> T_m): macro = (0.6 + 0)/2; ε = 0: (0.6 + 1)/2 = 0.8,
    # ε = 0.5: (0.7 + 0)/2. Best: ε = 0, macro 0.8.
    assert s.epsilon == 0.0 and s.macro == pytest.approx(0.8, rel=1e-15)


def test_accumulator_add_counts_matches_add():
    groups = random_groups(seed=3, count=50)
    batch = make_batch(groups)
    a, b = TauAccumulator("wmt14"), TauAccumulator("WMT15")
    a.add(batch)
    from rankeval_cli.measures.pairs import pair_counts

    b.add_counts(batch.group, pair_counts(batch.gold, batch.pred, batch.offsets))
    assert a.summary() == b.summary()
