#!/usr/bin/env python3
"""The naive baseline of the benchmark: one group at a time, in pure Python.

This is how the original RankEval (lefterav/rankeval; Avramidis 2013) computed its
segment-level measures: read a group, turn its values into Python lists,
normalize them with a loop over ``sorted(set(...))``, enumerate the pairs with
``itertools.combinations``, and accumulate. It implements the same definitions
as ``rankeval``, with the original tool's bugs fixed, so
its numbers must equal rankeval's; ``scripts/bench`` and
``tests/test_bench_naive.py`` check that they do.

Measures (gold and pred are ranks, lower = better; rows without a gold or a
pred value are skipped and counted):

* ``tau``  Kendall's tau, ``penalize`` variant, micro-averaged (Avramidis 2013 eq. 2):
  pairs tied in gold are left out, pairs tied only in pred count as discordant;
  tau = (C - D - T_m) / (C + D + T_m) over the pooled counts.
* ``mrr``  mean over groups of 1/r, r = position of the first item with the best
  gold rank in the predicted order (Avramidis 2013 §3.2).
* ``ndcg`` NDCG@k with exponential gain 2^rel - 1 and discount log2(i + 1),
  rel = n - rank + 1 over ``ceiling`` gold ranks (Avramidis 2013 §3.3, eq. 7).
* ``err``  ERR@k = sum_r (1/r) R_r prod_{i<r} (1 - R_i), R = (2^rel - 1) / 2^n
  (Avramidis 2013 §3.4, Algorithm 1; rel_max = n as in the original tool).

The predicted order breaks ties pessimistically (worst gold first), which is
rankeval's default ``--tie-policy``. Usage::

    naive_rankeval.py [--measure tau|mrr|ndcg|err|all] [--k K] FILE.tsv
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys


def read_groups(path):
    """Yield ``(group, gold, pred)`` for each run of rows with the same group id.

    Also yields the number of rows skipped for lacking gold or pred, as the
    fourth element, so the caller can report it.
    """
    with open(path, encoding="utf-8") as stream:
        header = stream.readline().rstrip("\r\n").split("\t")
        g_col, gold_col, pred_col = header.index("group"), header.index("gold"), header.index("pred")
        current, gold, pred, skipped = None, [], [], 0
        for line in stream:
            fields = line.rstrip("\r\n").split("\t")
            if fields == [""]:
                continue
            if fields[g_col] != current:
                if current is not None:
                    yield current, gold, pred, skipped
                current, gold, pred, skipped = fields[g_col], [], [], 0
            if fields[gold_col] == "" or fields[pred_col] == "":
                skipped += 1
                continue
            gold.append(float(fields[gold_col]))
            pred.append(float(fields[pred_col]))
        if current is not None:
            yield current, gold, pred, skipped


def ceiling_ranks(values):
    """Ranks 1..n where tied values all take the highest position they span."""
    ranks = [0] * len(values)
    position = 0
    for value in sorted(set(values)):
        indexes = [i for i, v in enumerate(values) if v == value]
        position += len(indexes)
        for i in indexes:
            ranks[i] = position
    return ranks


def tau_counts(gold, pred):
    """(C, D, T_m) of one group: concordant, discordant, tied in pred only."""
    concordant = discordant = pred_ties = 0
    for (g1, p1), (g2, p2) in itertools.combinations(zip(gold, pred), 2):
        if g1 == g2:
            continue
        if p1 == p2:
            pred_ties += 1
        elif (g1 < g2) == (p1 < p2):
            concordant += 1
        else:
            discordant += 1
    return concordant, discordant, pred_ties


def predicted_order(gold, pred):
    """Item indexes by predicted rank; tied predictions put the worst gold first."""
    return sorted(range(len(pred)), key=lambda i: (pred[i], -gold[i]))


def reciprocal_rank(gold, pred):
    best = min(gold)
    for position, i in enumerate(predicted_order(gold, pred), start=1):
        if gold[i] == best:
            return 1.0 / position
    return None


def relevance(gold):
    n = len(gold)
    return [n - rank + 1 for rank in ceiling_ranks(gold)]


def ndcg(gold, pred, k=None):
    rel = relevance(gold)
    k = len(rel) if k is None else k
    ranked = [rel[i] for i in predicted_order(gold, pred)]
    dcg = sum((2 ** r - 1) / math.log2(position + 1) for position, r in enumerate(ranked[:k], start=1))
    ideal = sorted(rel, reverse=True)
    idcg = sum((2 ** r - 1) / math.log2(position + 1) for position, r in enumerate(ideal[:k], start=1))
    return dcg / idcg if idcg > 0 else None


def err(gold, pred, k=None):
    rel = relevance(gold)
    n = len(rel)
    k = n if k is None else k
    value, not_stopped = 0.0, 1.0
    for position, i in enumerate(predicted_order(gold, pred)[:k], start=1):
        stop = (2 ** rel[i] - 1) / 2 ** n
        value += not_stopped * stop / position
        not_stopped *= 1 - stop
    return value


def evaluate(groups, measures, k=None):
    """Pooled results: {measure: (value, groups it is computed over)} and rows skipped."""
    concordant = discordant = pred_ties = 0
    sums = {m: 0.0 for m in measures if m != "tau"}
    counts = {m: 0 for m in measures}
    skipped = 0
    for _group, gold, pred, group_skipped in groups:
        skipped += group_skipped
        if not gold:
            continue
        if "tau" in measures:
            c, d, t = tau_counts(gold, pred)
            concordant, discordant, pred_ties = concordant + c, discordant + d, pred_ties + t
            counts["tau"] += 1 if c + d + t else 0
        for name, function in (("mrr", reciprocal_rank), ("ndcg", ndcg), ("err", err)):
            if name in sums:
                value = function(gold, pred) if name == "mrr" else function(gold, pred, k)
                if value is not None:
                    sums[name] += value
                    counts[name] += 1
    results = {}
    if "tau" in measures:
        pairs = concordant + discordant + pred_ties
        results["tau"] = ((concordant - discordant - pred_ties) / pairs if pairs else math.nan, counts["tau"])
    for name, total in sums.items():
        results[name] = (total / counts[name] if counts[name] else math.nan, counts[name])
    return results, skipped


MEASURES = ("tau", "mrr", "ndcg", "err")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file")
    parser.add_argument("--measure", choices=(*MEASURES, "all"), default="all")
    parser.add_argument("--k", type=int, default=None, help="cut-off of ndcg and err [whole list]")
    args = parser.parse_args(argv)
    measures = MEASURES if args.measure == "all" else (args.measure,)
    results, skipped = evaluate(read_groups(args.file), measures, args.k)
    print("measure\tvalue\tgroups")
    for name in measures:
        value, count = results[name]
        print(f"{name}\t{value!r}\t{count}")
    if skipped:
        print(f"naive_rankeval: skipped {skipped} rows lacking gold or pred", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
