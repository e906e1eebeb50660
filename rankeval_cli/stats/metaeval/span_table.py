"""The meta-evaluation of error-span predictors: P, R and F1 per language pair, clusters, intervals, average.

Every predictor is ranked on three tasks per language pair — character-level F1
(``span-f1``), precision (``span-p``) and recall (``span-r``), :mod:`.spans` — and, as every
statistic of ``meta-eval``:

* **clusters**: predictors sorted by value, every pair (a better, b worse) tested with a
  paired permutation test over the translations: each trial swaps the two predictions of
  every translation with probability 1/2 (one uniform per translation, bit = u > 1/2),
  p = #{trials: f(hybrid a) − f(hybrid b) ≥ f(a) − f(b)} / R, the observed difference
  computed by the same code as the trials' (the all-zero trial), so exact ties count;
  trials in blocks of 100, stopping when p < 0.02 or p > 0.5 (mt-metrics-eval's task
  defaults); each pair on its own stream, ``unit_seed(seed, ("permutation", lp, statistic,
  a, b))``; a predictor starts a new cluster when one above it in its cluster beats it at
  p ≤ 0.05 (:func:`.compare.assign_ranks`);
* **the average**: F1 averaged over the language pairs (WMT25's ``avg_f1``), clustered from
  the same trials (:func:`.tasks.average_comparison`);
* **intervals**: percentile bootstrap over the source segments of a language pair (a segment
  brings all its translations), the resamples of ``meta-eval``'s segment-level statistics
  (:func:`.intervals.resample_counts` with key ``(lp, "segments")``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...vocabulary import DEFAULT_SEED
from .spans import item_counts, positioned, prf

STATISTICS = ("span-f1", "span-p", "span-r")
_INDEX = {"span-p": 0, "span-r": 1, "span-f1": 2}


@dataclass
class LanguagePair:
    """One language pair's translations (gold keys), their segments and every predictor's counts."""

    lp: str
    keys: list
    segments: np.ndarray  # segment number (0..U-1) of each translation
    gold: np.ndarray
    counts: dict = field(default_factory=dict)  # predictor -> (tp, pred)

    def value(self, name: str, statistic: str) -> float:
        tp, pred = self.counts[name]
        return float(prf(tp.sum(), self.gold.sum(), pred.sum())[_INDEX[statistic]])


@dataclass
class SpanResult:
    """``results[(lp, statistic)]``: a :class:`.compare.Comparison`; ``average``: F1 over the language pairs;
    ``intervals[(lp, statistic)][name] = (low, high)``; ``average_intervals[name]``."""

    pairs: list
    results: dict
    average: object
    intervals: dict | None = None
    average_intervals: dict | None = None


def language_pairs(gold, predictions: dict, definition: str) -> list[LanguagePair]:
    """Join every predictor's annotations to the gold ones (by key) and count per translation.

    ``gold`` and each prediction are :class:`~rankeval_cli.formats.spans.SpanTable` with one
    annotation per key. A gold translation without a prediction is a ValueError naming it.
    """
    out = []
    for lp in gold.lps:
        rows = [i for i, k in enumerate(gold.keys) if k[0] == lp]
        keys = [gold.keys[i] for i in rows]
        keep = np.full(len(gold.keys), -1, np.int64)
        keep[rows] = np.arange(len(rows))
        lengths = gold.lengths[rows].copy()
        spans_gold = positioned(gold, keep)
        spans_pred, where = {}, {k: i for i, k in enumerate(keys)}
        for name, table in predictions.items():
            mapping = np.full(len(table.keys), -1, np.int64)
            for i, key in enumerate(table.keys):
                mapping[i] = where.get(key, -1)
            covered = np.zeros(len(keys), bool)
            covered[mapping[mapping >= 0]] = True
            if not covered.all():
                missing = keys[int(np.flatnonzero(~covered)[0])]
                raise ValueError(f"{name}: no prediction for {lp} system {missing[1]!r} segment {missing[2]!r} "
                                 f"({int((~covered).sum())} gold translations without one)")
            unknown = lengths < 0
            if unknown.any():  # the gold format gives no text: the prediction's length, when it has one
                lengths[unknown] = np.maximum(lengths[unknown], _lengths_by_row(table, mapping, len(keys))[unknown])
            spans_pred[name] = positioned(table, mapping)
        lengths = _fill_unknown(lengths, [spans_gold, *spans_pred.values()])
        gold_counts, counted = item_counts(lengths, spans_gold, list(spans_pred.values()), definition)
        segments = np.unique([k[2] for k in keys], return_inverse=True)[1]
        out.append(LanguagePair(lp, keys, segments, gold_counts, dict(zip(spans_pred, counted))))
    return out


def _lengths_by_row(table, mapping, n) -> np.ndarray:
    out = np.full(n, -1, np.int64)
    ok = mapping >= 0
    out[mapping[ok]] = table.lengths[ok]
    return out


def _fill_unknown(lengths, span_sets) -> np.ndarray:
    """Unknown lengths (no text in any file) become the furthest span end of the translation."""
    unknown = lengths < 0
    if not unknown.any():
        return lengths
    furthest = np.zeros(len(lengths), np.int64)
    for spans in span_sets:
        np.maximum.at(furthest, spans["owner"], spans["end"])
    return np.where(unknown, furthest, lengths)


def _pair_test(lp_data: LanguagePair, a: str, b: str, statistic: str, permutations: int, rng, early_stop):
    """The permutation test of "a better than b" on one statistic (module docstring)."""
    from .permutation import PermutationResult

    tp_a, pred_a = lp_data.counts[a]
    tp_b, pred_b = lp_data.counts[b]
    gold = lp_data.gold.sum()
    d_tp, d_pred = tp_b - tp_a, pred_b - pred_a
    index = _INDEX[statistic]

    def values(bits):  # (f(hybrid a), f(hybrid b)) per trial: hybrid a takes b where the bit is set
        moved_tp, moved_pred = bits @ d_tp, bits @ d_pred  # sums of multiples of 1/2: exact in any order
        fa = prf(tp_a.sum() + moved_tp, gold, pred_a.sum() + moved_pred)[index]
        fb = prf(tp_b.sum() - moved_tp, gold, pred_b.sum() - moved_pred)[index]
        return fa, fb

    observed = values(np.zeros((1, len(d_tp))))
    delta = float(observed[0][0] - observed[1][0])
    draws, large, done = [], 0, 0
    block = early_stop.block_size if early_stop else permutations
    while done < permutations:
        step = min(block - done % block, permutations - done)
        fa, fb = values((rng.random_sample((step, len(d_tp))) > 0.5).astype(np.float64))
        draws.append(np.column_stack([fa, fb]))
        large += int(np.sum(fa - fb >= delta))
        done += step
        if early_stop and done % block == 0 and not early_stop.early_min <= large / done <= early_stop.early_max:
            break
    return PermutationResult(large / done if done else 0.0, delta, done, np.concatenate(draws))


def rank_task(lp_data: LanguagePair, statistic: str, permutations: int, seed: int, threshold: float = 0.05):
    """The :class:`.compare.Comparison` of every predictor on one task (one language pair, one statistic)."""
    from ...executor import unit_seed
    from .compare import Comparison, assign_ranks
    from .permutation import MTME_EARLY_STOP

    names = sorted(lp_data.counts, key=lambda n: (-lp_data.value(n, statistic), n))
    n = len(names)
    p, trials, draws = np.zeros((n, n)), np.zeros((n, n), np.int64), {}
    for i in range(n):
        for j in range(i + 1, n):
            key = ("permutation", lp_data.lp, statistic, names[i], names[j])
            rng = np.random.RandomState(np.random.MT19937(unit_seed(seed, key)))
            res = _pair_test(lp_data, names[i], names[j], statistic, permutations, rng, MTME_EARLY_STOP)
            p[i, j], trials[i, j], draws[(i, j)] = res.p, res.k, res.draws
    values = np.array([lp_data.value(m, statistic) for m in names])
    return Comparison(names, values, assign_ranks(p, threshold), p, draws, trials, (0.0, 1.0))


def evaluate(pairs: list[LanguagePair], permutations: int = 1000, seed: int = DEFAULT_SEED, *, ci: float | None = None,
             replicates: int = 1000, threshold: float = 0.05) -> SpanResult:
    """Every task's ranking and clusters, the average of F1 over the language pairs, and the intervals."""
    from .tasks import average_comparison, uniform_weights

    results = {(d.lp, s): rank_task(d, s, permutations, seed, threshold) for d in pairs for s in STATISTICS}
    f1 = [results[(d.lp, "span-f1")] for d in pairs]
    average = average_comparison(f1, uniform_weights(len(f1)), threshold) if f1 else None
    out = SpanResult(pairs, results, average)
    if ci is not None:
        _intervals(out, ci, replicates, seed)
    return out


def _intervals(out: SpanResult, level: float, replicates: int, seed: int) -> None:
    from .intervals import percentiles, resample_counts

    out.intervals, f1_draws = {}, []
    names = list(out.pairs[0].counts) if out.pairs else []
    for d in out.pairs:
        units = int(d.segments.max()) + 1 if len(d.segments) else 0
        counts = resample_counts(seed, (d.lp, "segments"), units, 0, replicates).astype(np.float64)
        unit_sum = (lambda x: np.bincount(d.segments, x, minlength=units))
        gold = counts @ unit_sum(d.gold)
        per_stat = {s: np.empty((replicates, len(names))) for s in STATISTICS}
        for k, name in enumerate(names):
            tp, pred = d.counts[name]
            values = prf(counts @ unit_sum(tp), gold, counts @ unit_sum(pred))
            for s in STATISTICS:
                per_stat[s][:, k] = values[_INDEX[s]]
        for s in STATISTICS:
            low, high = percentiles(per_stat[s], level)
            out.intervals[(d.lp, s)] = {n: (float(a), float(b)) for n, a, b in zip(names, low, high)}
        f1_draws.append(per_stat["span-f1"])
    if f1_draws:
        low, high = percentiles(np.mean(f1_draws, axis=0), level)
        out.average_intervals = {n: (float(a), float(b)) for n, a, b in zip(names, low, high)}
