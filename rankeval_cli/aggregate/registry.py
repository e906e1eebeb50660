"""Aggregation methods by name: canonical names, aliases and their options."""

from __future__ import annotations

from functools import partial

from ..vocabulary import AGGREGATION_METHODS, SCORE_METHODS
from . import methods
from .bradley_terry import DEFAULT_ALPHA, bt_scores
from .fusion.table import METHODS as FUSION_TABLE, aliases as fusion_aliases
from .kemeny import kemeny_scores

#: canonical name -> one-line description (for --help and the README).
METHODS = AGGREGATION_METHODS

#: Run fusion methods: their input is several IR runs, not a stream of groups; name -> description,
#: from the fusion table (.fusion.table.METHODS).
FUSION = {name: method.description for name, method in FUSION_TABLE.items()}

#: Methods on absolute scores (direct assessments): their input is judged scores, not rankings.
SCORES = SCORE_METHODS

ALIASES = {
    "ge": "ge-others", ">=others": "ge-others", "wmt11": "ge-others",
    "gt": "gt-others", ">others": "gt-others", "wmt12": "gt-others",
    "ew": "expected-wins", "wmt13": "expected-wins",
    "kemeny-young": "kemeny", "bt": "bradley-terry", "duh": "fv", "ts": "trueskill",
    "zscore": "z-score", "z": "z-score", "da": "z-score", **fusion_aliases(),
}


def canonical(name: str) -> str:
    """The canonical method name for ``name`` (case-insensitive, aliases allowed)."""
    key = name.strip().lower().replace("_", "-")
    key = ALIASES.get(key, key)
    if key not in METHODS and key not in FUSION and key not in SCORES:
        raise ValueError(f"unknown aggregation method {name!r}; known: {', '.join([*METHODS, *SCORES, *FUSION])}")
    return key


def canonical_pairwise(name: str) -> str:
    """:func:`canonical`, refusing the run fusion methods (for commands whose input is groups)."""
    key = canonical(name)
    if key in SCORES:
        raise ValueError(f"{key} ranks systems by their mean score (rankeval aggregate --method {key}); "
                         f"here: {', '.join(METHODS)}")
    if key in FUSION:
        raise ValueError(f"{key} fuses IR runs (rankeval aggregate --method {key} RUN...); here: "
                         f"{', '.join(METHODS)}")
    return key


def is_fusion(method: str) -> bool:
    """True for the run fusion methods (inputs are IR runs)."""
    return canonical(method) in FUSION


def _kemeny(stats, approximate: bool = False):
    return kemeny_scores(stats.wins, approximate=approximate)


def scorer(method: str, *, borda_missing: str = "ignore", borda_points: str = "n-r",
           fv_denominator: str = "pair", approximate: bool = False,
           bt_alpha: float = DEFAULT_ALPHA, bt_ties: str = "ignore"):
    """A function PairStats -> scores (..., K) for ``method`` with its options bound."""
    method = canonical(method)
    if method == "borda":
        return partial(methods.borda, missing=borda_missing, points=borda_points)
    if method == "fv":
        return partial(methods.fv, denominator=fv_denominator)
    if method == "kemeny":
        return partial(_kemeny, approximate=approximate)
    if method == "bradley-terry":
        return partial(bt_scores, alpha=bt_alpha, ties=bt_ties)
    if method == "trueskill":  # one run on the counts as given; aggregate.run plays WMT's repeated runs
        from .trueskill import scores as trueskill_scores

        return trueskill_scores
    if method in FUSION:
        raise ValueError(f"{method} fuses IR runs, not pair counts (see aggregate.fusion)")
    if method in SCORES:
        raise ValueError(f"{method} ranks by mean scores, not pair counts (see aggregate.zscore)")
    return {
        "ge-others": methods.ge_others,
        "gt-others": methods.gt_others,
        "expected-wins": methods.expected_wins,
        "copeland": methods.copeland,
    }[method]

