"""Comparisons of several systems on the same topics: which pairs, which tests, one family.

One library serves every comparison of ``rankeval compare`` — IR runs over queries, MT
systems over segments, predictions of the same gold over groups. A comparison is given
as :class:`Systems`: for each system the per-topic statistics of the same, aligned topics
(``raws``; for a mean measure the per-topic values, NaN where a system has none) and the
measure's value as its own command computes it.

**Pairs.** Each baseline (``baselines``, in order; or every system with ``all_pairs``) is
compared with every other system; a pair already compared the other way round is not
compared again. The pairs of one measure are one *family*: the corrections of
:mod:`.multitest` adjust the p-values of each test over it, and its size is written with
every row (``family``). Tukey's HSD tests (:mod:`.tukey`) control the error over all
m(m − 1)/2 pairs of the m systems by construction and are not adjusted further.

**Per pair** (system x against baseline b):

- ``delta`` = value(x) − value(b), each value as its measure defines it;
- the paired bootstrap and approximate randomization tests and the percentile bootstrap
  interval of the difference (:mod:`.paired_resampling`), over all aligned topics — the only tests
  for a statistic that is not a mean of per-topic values (micro tau);
- for a mean measure, over the topics both systems have: the t interval of the mean
  difference, Cohen's d_z and Hedges' g_z (:mod:`.effect`), the paired t-test and the
  Wilcoxon signed-rank test (:mod:`.topic_tests`), wins/ties/losses;
- Sakai's ES_E and the Tukey HSD tests over the topics every system has (the complete
  systems × topics matrix; :mod:`.anova`).

Resampling runs as work units (:mod:`rankeval_cli.executor`): one unit per system (its
value's interval) and one per pair (its tests), each drawing from the per-replicate
streams of :mod:`.resample`, so the output does not depend on ``jobs``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..vocabulary import DEFAULT_MT_TESTS, DEFAULT_REPLICATES, DEFAULT_SEED, TESTS
from .resample import MeanStat

#: tests that need per-topic values (a mean measure)
PER_TOPIC = ("t", "wilcoxon", "tukey", "randomized-tukey")
#: tests whose p-values already control the error over all pairs
ALL_PAIRS_TESTS = ("tukey", "randomized-tukey")


def p_column(test: str) -> str:
    """The output column of a test's p-value: ``p_t``, ``p_randomized_tukey``, ..."""
    return "p_" + test.replace("-", "_")


@dataclass
class Systems:
    """Several systems' statistics over the same aligned topics."""

    names: list
    stat: object  # MeanStat or TauMicroStat (:mod:`.resample`)
    raws: list  # per system, the (topics × width) raw statistics
    values: list  # per system, the measure's value
    groups: list = None  # per system, the groups its value averages (default: its defined topics)
    runs: list = field(default_factory=list)  # per system, an effect.RunsSummary or None
    higher_better: bool = True  # the direction of wins and losses

    @property
    def per_topic(self) -> bool:
        return isinstance(self.stat, MeanStat)

    def __post_init__(self):
        if self.groups is None:
            self.groups = [int(np.isfinite(self.topic_values(i)).sum()) if self.per_topic else len(self.raws[i])
                           for i in range(len(self.names))]

    def topic_values(self, i: int) -> np.ndarray:
        raw = np.asarray(self.raws[i], dtype=np.float64)
        return raw[:, 0] if raw.ndim == 2 else raw


@dataclass(frozen=True)
class Settings:
    tests: tuple = DEFAULT_MT_TESTS
    level: float = 0.95
    bootstrap: int = DEFAULT_REPLICATES
    permutations: int = DEFAULT_REPLICATES
    seed: int = DEFAULT_SEED
    correction: str = "none"
    jobs: int | None = None  # None: as --jobs configured the executor
    scheduler: str | None = None


@dataclass
class Row:
    """One system, alone (``baseline`` None) or against a baseline."""

    system: int
    baseline: int | None
    value: float
    ci_low: float
    ci_high: float
    groups: int = 0
    delta: float | None = None
    delta_ci_low: float | None = None
    delta_ci_high: float | None = None
    effect: object = None  # effect.PairedEffect
    es_e: float | None = None
    wins_ties_losses: tuple | None = None
    p: dict = field(default_factory=dict)  # test -> p
    p_adj: dict = field(default_factory=dict)
    family: int | None = None


@dataclass
class Outcome:
    rows: list
    pairs: list
    family: int
    complete_topics: int  # topics every system has (ES_E, Tukey)
    anova: object = None  # anova.TwoWay over the complete matrix


def pairs_of(count: int, baselines, all_pairs: bool = False) -> list[tuple[int, int]]:
    """(system, baseline) index pairs (module docstring).

    >>> pairs_of(3, [0]), pairs_of(3, [], all_pairs=True), pairs_of(3, [0, 1])
    ([(1, 0), (2, 0)], [(1, 0), (2, 0), (2, 1)], [(1, 0), (2, 0), (2, 1)])
    """
    order = list(range(count)) if all_pairs else list(baselines)
    seen, out = set(), []
    for b in order:
        for s in range(count):
            if s != b and frozenset((s, b)) not in seen:
                seen.add(frozenset((s, b)))
                out.append((s, b))
    return out


def check_tests(tests, per_topic: bool) -> None:
    unknown = [t for t in tests if t not in TESTS]
    if unknown:
        raise ValueError(f"unknown test {unknown[0]!r}; expected one of {', '.join(TESTS)}")
    if not per_topic:
        bad = [t for t in tests if t in PER_TOPIC]
        if bad:
            raise ValueError(f"the {bad[0]} test needs per-topic values of a mean measure; this measure pools "
                             "its statistics over groups (use randomization or bootstrap)")


def compare(systems: Systems, pairs: list, settings: Settings) -> Outcome:
    """Every row of one measure's comparison: the systems alone, then the pairs (module docstring)."""
    from .multitest import adjust

    check_tests(settings.tests, systems.per_topic)
    resampled = _resample(systems, pairs, settings)
    m = len(systems.names)
    matrix, complete = _complete(systems) if systems.per_topic else (None, 0)
    anova = tukey = rtukey = None
    if matrix is not None and m >= 2 and complete >= 2:
        from .anova import two_way
        from .tukey import randomized_tukey_hsd, tukey_hsd

        anova = two_way(matrix)
        if "tukey" in settings.tests:
            tukey = tukey_hsd(matrix)
        if "randomized-tukey" in settings.tests:
            rtukey = randomized_tukey_hsd(matrix, settings.permutations, settings.seed, jobs=settings.jobs,
                                          scheduler=settings.scheduler)
    rows = []
    for b in _alone(m, pairs):
        low, high = resampled["value", b]
        rows.append(Row(b, None, systems.values[b], low, high, groups=systems.groups[b]))
        for k, (s, base) in enumerate(pairs):
            if base != b:
                continue
            row = _pair_row(systems, s, b, resampled["value", s], resampled["pair", k], anova, settings)
            for test, result in (("tukey", tukey), ("randomized-tukey", rtukey)):
                if test in settings.tests:
                    row.p[test] = float(result.p[s, b]) if result is not None else math.nan
            rows.append(row)
    tests = [t for t in settings.tests if t not in ALL_PAIRS_TESTS]
    paired_rows = [r for r in rows if r.baseline is not None]
    for r in paired_rows:
        r.family = len(pairs)
    if settings.correction != "none":
        for test in tests:
            for r, p in zip(paired_rows, adjust([r.p[test] for r in paired_rows], settings.correction)):
                r.p_adj[test] = p
    return Outcome(rows, pairs, len(pairs), complete, anova)


def _alone(m: int, pairs: list) -> list[int]:
    """Systems printed on their own row: every baseline (before its pairs), else system 0."""
    baselines = list(dict.fromkeys(b for _, b in pairs))
    return baselines or list(range(min(m, 1)))


def _complete(systems: Systems):
    """The m × n matrix of the topics every system has, and n."""
    matrix = np.vstack([systems.topic_values(i) for i in range(len(systems.names))]) if systems.names else None
    if matrix is None:
        return None, 0
    keep = np.isfinite(matrix).all(axis=0)
    return matrix[:, keep], int(keep.sum())


def _pair_row(systems: Systems, s: int, b: int, interval, resampled, anova, settings: Settings) -> Row:
    from .effect import paired_effect, sakai_es

    delta = systems.values[s] - systems.values[b]
    row = Row(s, b, systems.values[s], interval[0], interval[1], groups=systems.groups[s], delta=delta,
              delta_ci_low=resampled["delta_ci_low"], delta_ci_high=resampled["delta_ci_high"])
    if "bootstrap" in settings.tests:
        row.p["bootstrap"] = resampled["p_bootstrap"]
    if "randomization" in settings.tests:
        row.p["randomization"] = resampled["p_randomization"]
    if not systems.per_topic:
        return row
    from . import topic_tests as pq

    x, base = systems.topic_values(s), systems.topic_values(b)
    both = np.isfinite(x) & np.isfinite(base)
    x, base = x[both], base[both]
    row.effect = paired_effect(x, base, settings.level)
    wins, ties, losses = pq.wins_ties_losses(x, base)
    row.wins_ties_losses = (wins, ties, losses) if systems.higher_better else (losses, ties, wins)
    row.es_e = sakai_es(delta, anova.residual_variance) if anova is not None else math.nan
    if "t" in settings.tests:
        row.p["t"] = pq.paired_t(x, base)[1]
    if "wilcoxon" in settings.tests:
        row.p["wilcoxon"] = pq.wilcoxon(x, base)[1]
    return row


# --- resampling as work units ----------------------------------------------------------------

def randomization_unit(shared, unit):
    """Work unit: trials ``start ≤ r < stop`` of baseline b's randomization test → (observed δ, the
    swapped differences of the systems paired with b) (:func:`.paired_resampling.randomization_deltas`)."""
    from .paired_resampling import randomization_deltas

    stat, raws, partners, seed = shared
    b, start, stop = unit
    return randomization_deltas(stat, [raws[b]] + [raws[s] for s in partners[b]], stop - start, seed,
                                method="indices", first=start)


def _resample(systems: Systems, pairs: list, settings: Settings) -> dict:
    """Each system's interval and each pair's bootstrap interval and p-values (:mod:`.paired_resampling`'s
    definitions), from one set of replicates shared by all systems (:func:`.resample.bootstrap_values`,
    itself run as units) and one set of swaps per baseline (units of trials)."""
    from ..executor import map_units, ranges
    from .paired_resampling import bootstrap_p, randomization_p
    from .resample import bootstrap_values, grid_values, percentile_interval

    m = len(systems.names)
    groups = len(systems.raws[0]) if m else 0
    replicates = settings.bootstrap if groups >= 2 else 0  # one group: a resample is the group itself
    trials = settings.permutations if "randomization" in settings.tests else 0
    partners: dict = {}
    for s, b in pairs:
        partners.setdefault(b, []).append(s)
    boot = bootstrap_values([systems.stat] * m, systems.raws, replicates, settings.seed, method="indices") \
        if m and replicates else np.zeros((0, m))
    units = [(b, start, stop) for b in partners for start, stop in ranges(trials)] if trials else []
    results = map_units(randomization_unit, units, shared=(systems.stat, systems.raws, partners, settings.seed),
                        jobs=settings.jobs, scheduler=settings.scheduler, label="randomization trials")
    swaps: dict = {}
    for (b, _, _), (observed, deltas) in zip(units, results):
        swaps.setdefault(b, (observed, []))[1].append(deltas)
    grid = grid_values([systems.stat] * m, systems.raws) if m else np.zeros(0)
    out = {("value", i): percentile_interval(boot[:, i], settings.level) for i in range(m)}
    for k, (s, b) in enumerate(pairs):
        deltas = boot[:, s] - boot[:, b]
        low, high = percentile_interval(deltas, settings.level)
        observed, parts = swaps.get(b, (None, []))
        j = partners[b].index(s)
        out["pair", k] = {"delta_ci_low": low, "delta_ci_high": high,
                          "p_bootstrap": bootstrap_p(grid[s] - grid[b], deltas) if replicates else math.nan,
                          "p_randomization": randomization_p(observed[j], np.vstack(parts)[:, j]) if parts
                          else math.nan}
    return out
