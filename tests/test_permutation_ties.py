"""Exact ties in meta-eval's permutation tests (stats/metaeval/permutation.py, tasks.py).

A trial whose difference f(hybrid a) - f(hybrid b) equals the observed δ counts as "at least
δ". Checked two ways:

* a metric duplicated under another name: every hybrid of the pair is the metric itself, every
  trial ties, and p = 1 for every statistic, every grouping, both tests (score swaps and
  pair swaps), both random streams and the average over tasks;
* few systems, where the permutation distribution can be enumerated: every swap pattern's
  statistic is computed in 60-digit decimal arithmetic (a slow, separate implementation of
  each statistic), which decides ties exactly; the exact p-value over all 2^n patterns is then
  the limit of the sampled ones, and every sampled trial is counted exactly when its pattern
  reaches δ.
"""

from __future__ import annotations

import itertools
from decimal import Decimal, getcontext

import numpy as np
import pytest
import scipy.stats

from rankeval_cli.formats.sysseg import SysSegTable
from rankeval_cli.stats import metaeval as me
from rankeval_cli.stats.metaeval import permutation as pm
from rankeval_cli.stats.metrics_table import MEASURES, Options, parse_measures, run_table

getcontext().prec = 60
EXACT = Decimal(10) ** -40  # two 60-digit values this close are the same number


# A duplicated metric: every trial ties ---------------------------------------------------

def duplicated_tables():
    rng = np.random.default_rng(21)
    tables = []
    for lp in ("xx-yy", "yy-xx"):
        human = -rng.poisson(2.0, (5, 8)).astype(float)  # ties in the human scores
        a = np.round(human + rng.normal(0, 1.0, human.shape), 1)  # and in the metric's
        b = np.round(human + rng.normal(0, 2.0, human.shape), 1)
        metrics = {"a": a, "a-copy": a.copy(), "b": b}
        table = SysSegTable(lp, [f"s{k}" for k in range(5)], np.arange(1, 9), human, human.mean(axis=1))
        for name, m in metrics.items():
            table.metrics[name], table.metrics_sys[name], table.sys_origin[name] = m, m.mean(axis=1), "mean"
        tables.append(table)
    return tables


EVERY_MEASURE = [name if level != "seg" else f"{name}@{g}"
                 for name, (level, _) in MEASURES.items() for g in ("none", "item", "system")
                 if level == "seg" or g == "none"]


@pytest.mark.parametrize("stream,epsilon,variant", [("per-pair", None, "b"), ("mtme", None, "eq"),
                                                    ("per-pair", 0.2, "acc-eq")])
def test_a_duplicated_metric_ties_every_trial(stream, epsilon, variant):
    tables = duplicated_tables()
    options = Options(permutations=60, seed=3, stream=stream, epsilon=epsilon, variant=variant, early_stop=False)
    table = run_table(tables, parse_measures(EVERY_MEASURE), options)
    tested = 0
    for key, comparison in [*table.results.items(), (("all", "avg"), table.average)]:
        i, j = sorted((comparison.names.index("a"), comparison.names.index("a-copy")))
        assert comparison.p[i, j] == 1.0, key
        tested += 1
        if key[1] != "avg":
            assert comparison.trials[i, j] == 60 and comparison.values[i] == comparison.values[j]
    assert tested == 2 * len(EVERY_MEASURE) + 2  # every measure on both lps, the pooled sys-pa, the average


# Few systems: the exact permutation distribution -------------------------------------------

def d(x) -> list[Decimal]:
    return [Decimal(float(v)) for v in x]


def dec_pearson(x, y):
    x, y = d(x), d(y)
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx, syy = sum((a - mx) ** 2 for a in x), sum((b - my) ** 2 for b in y)
    if n < 2 or not sxx or not syy:
        return None
    return sxy / (sxx * syy).sqrt()


def dec_kendall(h, m, variant):
    c = dict.fromkeys(("C", "D", "T_h", "T_m", "T_hm"), 0)
    for (h1, m1), (h2, m2) in itertools.combinations(zip(h, m), 2):
        ht, mt = h1 == h2, m1 == m2
        c["T_hm" if ht and mt else "T_h" if ht else "T_m" if mt else
          "C" if (h1 - h2) * (m1 - m2) > 0 else "D"] += 1
    C, D, Th, Tm, Thm = (Decimal(c[k]) for k in ("C", "D", "T_h", "T_m", "T_hm"))
    if variant == "acc-eq":
        return (C + Thm) / (C + D + Th + Tm + Thm)
    den = (C + D + Th) * (C + D + Tm)
    return (C - D) / den.sqrt() if den else None


def dec_value(statistic, h, m):
    """A group's statistic in 60-digit arithmetic (None where undefined)."""
    if statistic == "pearson":
        return dec_pearson(h, m)
    if statistic == "spearman":
        return dec_pearson(scipy.stats.rankdata(h), scipy.stats.rankdata(m))
    return dec_kendall(h, m, "b" if statistic == "kendall" else "acc-eq")


def dec_average(values):
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else Decimal(0)


def exact_reaches(statistic, human, a, b, groups):
    """For every swap pattern of the cells (bit 1: the first hybrid takes b's z-score), whether the
    trial's difference reaches δ — both decided in decimal arithmetic."""
    za, zb = pm.zscore(a), pm.zscore(b)

    def f(x):
        return dec_average([dec_value(statistic, human[g], x[g]) for g in groups])

    delta = f(za) - f(zb)
    n = len(za)
    bits = (np.arange(2 ** n)[:, None] >> np.arange(n)[None, :]) & 1 == 1
    return {tuple(row): f(np.where(row, za, zb)) - f(np.where(row, zb, za)) >= delta - EXACT for row in bits}


#: (statistic, level, grouping, systems, segments, seed); with these seeds a plain float comparison
#: "trial ≥ δ" misses exact ties of every statistic but Pearson (2 to 46 of the 128 or 512 patterns)
CASES = [
    ("pearson", "sys", "none", 7, 1, 0), ("spearman", "sys", "none", 7, 1, 7), ("kendall", "sys", "none", 7, 1, 17),
    ("accuracy", "sys", "none", 7, 1, 4), ("spearman", "seg", "item", 3, 3, 19), ("kendall", "seg", "none", 3, 3, 2),
    ("pearson", "seg", "system", 3, 3, 0), ("accuracy", "seg", "item", 3, 3, 19)]


def few_systems(systems, segments, seed):
    """Scores to two or three decimals, two metrics of which the second is the noisier."""
    rng = np.random.default_rng(seed)
    human = np.round(rng.normal(size=(systems, segments)), 2)
    return (human, np.round(human + rng.normal(0, 0.7, human.shape), 3),
            np.round(human + rng.normal(0, 1.5, human.shape), 3))


@pytest.mark.parametrize("statistic,level,grouping,systems,segments,seed", CASES)
def test_the_sampled_p_value_is_the_exact_one_in_the_limit(statistic, level, grouping, systems, segments, seed):
    human, a, b = few_systems(systems, segments, seed)
    cells = me.grouped_cells(human, [a, b], grouping)
    groups = np.split(np.arange(len(cells.human)), cells.offsets[1:-1])
    kind = "acc-eq" if statistic == "accuracy" else statistic
    reaches = exact_reaches(kind, cells.human, *cells.metrics, groups)
    exact = sum(reaches.values()) / len(reaches)
    assert 0 < exact < 1
    opts = dict(variant="acc-eq") if statistic == "accuracy" else {}
    stat = me.make_cell_statistic("kendall" if statistic == "accuracy" else statistic, cells.human,
                                  cells.offsets, **opts)
    trials = 40_000
    result = pm.paired_permutation(stat, *cells.metrics, trials, 5)
    # every trial is counted exactly when its swap pattern reaches δ ...
    drawn = np.random.RandomState(5).random_sample((trials, len(cells.human))) > 0.5
    assert result.p == np.mean([reaches[tuple(row)] for row in drawn])
    # ... so the sampled p-value tends to the exact one (4.5 standard errors)
    assert abs(result.p - exact) <= 4.5 * np.sqrt(exact * (1 - exact) / trials)

