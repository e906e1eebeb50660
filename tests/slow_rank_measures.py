"""Slow, obvious pure-Python references for the rank-position measures.

One group at a time, plain lists and loops, definitions written as in the papers
(Avramidis 2013 §3.2-3.5, Katerenchuk & Rosenberg 2016, docs/definitions.md). Tie policies:
pessimistic/optimistic sort each tied block worst/best gold first; ``expected``
enumerates every order of every tied block and averages. Used by the tests to
check the vectorized kernels; never imported by the package.
"""

from __future__ import annotations

import itertools
import math
from statistics import mean

NAN = float("nan")


def ranked_items(gold, pred, relevance="ranks", missing_pred="drop"):
    """Items with gold present: list of (gold, pred, rel, relevant, human_rank)."""
    rows = [(g, p) for g, p in zip(gold, pred) if not math.isnan(g)]
    if missing_pred == "drop":
        rows = [(g, p) for g, p in rows if not math.isnan(p)]
    n = len(rows)
    items = []
    for g, p in rows:
        if relevance == "ranks":
            ceiling = sum(1 for h, _ in rows if h <= g)  # positions up to the end of g's tie
            rel = n - ceiling + 1
            relevant = all(g <= h for h, _ in rows)
        else:
            ceiling = sum(1 for h, _ in rows if h >= g)
            rel = g
            relevant = g > 0
        items.append(dict(gold=g, pred=math.inf if math.isnan(p) else p, rel=rel, relevant=relevant,
                          human=ceiling))
    return items


def tie_blocks(items):
    """Items sorted by prediction, grouped into lists of equal predictions."""
    ordered = sorted(items, key=lambda it: it["pred"])
    return [list(block) for _, block in itertools.groupby(ordered, key=lambda it: it["pred"])]


def all_orders(items):
    """Every order consistent with the predictions (all permutations of tied blocks)."""
    blocks = tie_blocks(items)
    for choice in itertools.product(*(itertools.permutations(b) for b in blocks)):
        yield [it for block in choice for it in block]


def policy_order(items, policy):
    sign = -1 if policy == "optimistic" else 1
    return sorted(items, key=lambda it: (it["pred"], sign * it["rel"]))


def by_policy(measure, items, policy, **kw):
    """The measure of a fixed order for pessimistic/optimistic, the mean over orders for expected."""
    if policy == "expected":
        return mean(measure(order, **kw) for order in all_orders(items))
    return measure(policy_order(items, policy), **kw)


# ---- measures of one fixed order -------------------------------------------------------

def rr_order(order, k=None):
    for i, it in enumerate(order, 1):
        if it["relevant"]:
            return 1.0 / i if k is None or i <= k else 0.0
    return NAN


def gain(rel, kind):
    return 2.0 ** rel - 1.0 if kind == "exp" else float(rel)


def dcg_order(order, k=None, kind="exp"):
    total = 0.0
    for i, it in enumerate(order, 1):
        if k is None or i <= k:
            total += gain(it["rel"], kind) / math.log2(i + 1)
    return total


def ndcg_order(order, k=None, kind="exp"):
    ideal = dcg_order(sorted(order, key=lambda it: -it["rel"]), k, kind)
    return dcg_order(order, k, kind) / ideal if ideal > 0 else NAN


def err_order(order, k=None, rel_max="n"):
    if not order:
        return NAN
    if rel_max == "n":
        top = len(order)
    elif rel_max == "list-max":
        top = max(it["rel"] for it in order)
    else:
        top = float(rel_max.split(":")[1])
    p, total = 1.0, 0.0
    for r, it in enumerate(order, 1):
        stop = (2.0 ** it["rel"] - 1.0) / 2.0 ** top
        if k is None or r <= k:
            total += p * stop / r
        p *= 1.0 - stop
    return total


def rankdcg_order(order):
    # dense rank from the top: 1 for the best gold value (human = ceiling gold rank)
    best_first = sorted({it["human"] for it in order})
    top_rank = {h: i + 1 for i, h in enumerate(best_first)}
    k_distinct = len(best_first)
    if k_distinct <= 1:
        return NAN
    rel = [k_distinct - top_rank[it["human"]] + 1 for it in order]
    ideal = sorted(order, key=lambda it: it["human"])
    disc = [top_rank[it["human"]] for it in ideal]
    ideal_rel = [k_distinct - top_rank[it["human"]] + 1 for it in ideal]
    score = sum(r / d for r, d in zip(rel, disc))
    best = sum(r / d for r, d in zip(ideal_rel, disc))
    worst = sum(r / d for r, d in zip(reversed(ideal_rel), disc))
    return (score - worst) / (best - worst)


def bph_order(order):
    return order[0]["human"] if order else NAN


def precision_order(order, k=None):
    if not order:
        return NAN
    cut = len(order) if k is None else k
    return sum(1 for it in order[:cut] if it["relevant"]) / cut


def ap_order(order, k=None):
    total_relevant = sum(1 for it in order if it["relevant"])
    if total_relevant == 0:
        return NAN
    hits, acc = 0, 0.0
    for i, it in enumerate(order, 1):
        if it["relevant"]:
            hits += 1
            if k is None or i <= k:
                acc += hits / i
    return acc / total_relevant


MEASURES = {
    "rr": rr_order, "ndcg": ndcg_order, "dcg": dcg_order, "err": err_order, "rankdcg": rankdcg_order,
    "bph": bph_order, "p": precision_order, "ap": ap_order,
}


def slow(name, gold, pred, policy="pessimistic", relevance="ranks", missing_pred="drop", **kw):
    items = ranked_items(gold, pred, relevance, missing_pred)
    if not items and name in ("rr", "ndcg", "err", "rankdcg", "bph", "p", "ap"):
        return NAN
    return by_policy(MEASURES[name], items, policy, **kw)


def enumerate_values(name, gold, pred, relevance="ranks", **kw):
    """The measure under every tie order (for min/max/mean checks)."""
    items = ranked_items(gold, pred, relevance)
    return [MEASURES[name](order, **kw) for order in all_orders(items)]


# ---- random data ------------------------------------------------------------------------

def make_batch(groups):
    """A Batch from a list of (gold, pred) sequences (NaN = missing)."""
    import numpy as np

    from rankeval_cli.batch import Batch, offsets_from_sizes

    sizes = np.array([len(g) for g, _ in groups], dtype=np.int64)
    n = int(sizes.sum())
    gold = np.array([v for g, _ in groups for v in g], dtype=np.float64).reshape(n)
    pred = np.array([v for _, p in groups for v in p], dtype=np.float64).reshape(n)
    return Batch(group=np.array([f"g{i}" for i in range(len(groups))], dtype=object),
                 offsets=offsets_from_sizes(sizes), item=np.array([f"i{j}" for j in range(n)], dtype=object),
                 gold=gold, pred=pred, line=np.arange(1, n + 1, dtype=np.int64), source="test")


def orders_count(pred):
    counts = {}
    for p in pred:
        key = "nan" if math.isnan(p) else p
        counts[key] = counts.get(key, 0) + 1
    return math.prod(math.factorial(c) for c in counts.values())


def random_groups(rng, n_groups, max_size=7, gold_levels=4, pred_levels=4, blank=0.1, missing=0.05,
                  grades=False, max_orders=720):
    """Random groups with ties in gold and pred, blanks and missing predictions.

    Groups whose tie blocks allow more than ``max_orders`` orders get fresh predictions
    (so enumeration stays cheap); sizes include 0 and 1.
    """
    groups = []
    for _ in range(n_groups):
        n = int(rng.integers(0, max_size + 1))
        low = 0 if grades else 1
        gold = [float(v) for v in rng.integers(low, low + gold_levels, n)]
        gold = [math.nan if rng.random() < blank else v for v in gold]
        while True:
            pred = [float(v) for v in rng.integers(1, 1 + pred_levels, n)]
            pred = [math.nan if rng.random() < missing else v for v in pred]
            ranked = [p for g, p in zip(gold, pred) if not math.isnan(g)]
            if orders_count(ranked) <= max_orders:
                break
        groups.append((gold, pred))
    return groups


def fast_values(name, batch, policy="pessimistic", relevance="ranks", missing_pred="drop", **kw):
    """The package's vectorized per-group values for one batch."""
    from rankeval_cli.measures import dcg, err, rankdcg, rr, simple
    from rankeval_cli.measures.ties import prepare_batch

    prep = prepare_batch(batch, relevance=relevance, tie_policy=policy, missing_pred=missing_pred)
    if name == "rr":
        return rr.rr_values(prep, **kw)
    if name == "ndcg":
        return dcg.ndcg_values(prep, kw.get("k"), kw.get("kind", "exp"))
    if name == "dcg":
        return dcg.dcg_values(prep, kw.get("k"), kw.get("kind", "exp"))
    if name == "err":
        return err.err_values(prep, kw.get("k"), err.parse_rel_max(kw.get("rel_max"), relevance))
    if name == "rankdcg":
        return rankdcg.rankdcg_values(prep)
    if name == "bph":
        return simple.best_predicted_rank(prep)
    if name == "p":
        return simple.precision_values(prep, **kw)
    if name == "ap":
        return simple.ap_values(prep, **kw)
    raise KeyError(name)


def compare(name, groups, policy, relevance="ranks", missing_pred="drop", rtol=1e-12, **kw):
    """Assert fast == slow on every group (NaN where both are undefined)."""
    import numpy as np

    fast = fast_values(name, make_batch(groups), policy, relevance, missing_pred, **kw)
    slow_kw = dict(kw)
    if name == "err" and slow_kw.get("rel_max") is None:
        slow_kw["rel_max"] = "n" if relevance == "ranks" else "scale:4"
    expected = np.array([slow(name, g, p, policy, relevance, missing_pred, **slow_kw) for g, p in groups])
    np.testing.assert_allclose(fast, expected, rtol=rtol, atol=1e-15, equal_nan=True)
