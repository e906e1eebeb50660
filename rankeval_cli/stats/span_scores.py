"""Segment scores from error spans: MQM (Freitag et al. 2021) and ESA's span score (Kocmi et al. 2024).

A rater's score of a translation is minus the sum of its errors' weights; a translation's
score is the mean over its raters (Freitag et al. 2021, §3: "the average over raters of the
sum of the error weights", negated so that higher is better, as Google's released
``avg_seg_scores`` files and mt-metrics-eval's ``converters/score_mqm.py`` do).

Weights (:data:`SCHEMES`), each error weighed by its most specific entry of
``severity[/category[/subcategory]]`` (case-insensitive; mt-metrics-eval's ``Score``):

* ``mqm``: Major 5, Minor 1, Neutral 0, Major/Non-translation! 25, Minor/Fluency/Punctuation
  0.1 (Freitag et al. 2021, Table 2; mt-metrics-eval's defaults);
* ``esa``: Critical 25, Major 5, Minor 1, Undecided 0, each rater's sum capped at 25
  (Kocmi et al. 2024, the ESA protocol's span score; their ``MQM_WEIGHTS`` and the -25 floor).

A custom scheme is a string of ``SPEC:WEIGHT`` items (``"Major:5 Minor:1 Minor/Fluency/Punctuation:0.1"``).
An error of a severity no entry names weighs 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SCHEMES = {
    "mqm": ("Major:5 Minor:1 Neutral:0 Major/Non-translation!:25 Minor/Fluency/Punctuation:0.1", None),
    "esa": ("Critical:25 Major:5 Minor:1 Undecided:0", 25.0),
}


@dataclass(frozen=True)
class Weights:
    """``table``: lower-case ``severity[/category...]`` -> weight; ``cap``: the most a rater's sum can be."""

    table: dict
    cap: float | None = None

    def weight(self, severity: str, category: str) -> float:
        """The weight of the most specific entry matching ``severity/category`` (mt-metrics-eval ``Score``)."""
        items = [severity.lower(), *(c.lower() for c in category.split("/") if c)] if category else [severity.lower()]
        while items:
            found = self.table.get("/".join(items))
            if found is not None:
                return found
            items = items[:-1]
        return 0.0


def parse_weights(text: str) -> Weights:
    """A scheme's name (``mqm``, ``esa``) or ``SPEC:WEIGHT`` items separated by spaces or commas."""
    if text in SCHEMES:
        spec, cap = SCHEMES[text]
        return Weights(parse_weights(spec).table, cap)
    table = {}
    for item in text.replace(",", " ").split():
        spec, sep, weight = item.rpartition(":")
        try:
            if not sep or not spec:
                raise ValueError
            table[spec.lower()] = float(weight)
        except ValueError:
            raise ValueError(f"bad weight {item!r}: expected SEVERITY[/CATEGORY]:WEIGHT (or mqm, esa)") from None
    if not table:
        raise ValueError("no weights given")
    return Weights(table)


def annotation_scores(table, weights: Weights) -> np.ndarray:
    """Each annotation's score: minus the sum of its errors' weights (capped), one value per annotation."""
    per_span = np.array([weights.weight(s, c) for s, c in zip(table.severity, table.category)], np.float64)
    sums = np.bincount(table.owner, weights=per_span, minlength=len(table.keys)) if len(per_span) else \
        np.zeros(len(table.keys))
    if weights.cap is not None:
        sums = np.minimum(sums, weights.cap)
    return 0.0 - sums  # 0.0, not -0.0, for a translation without errors


def segment_scores(table, weights: Weights) -> list[tuple[tuple, float, int]]:
    """(key, score, raters) per translation in order of first appearance: the mean over its raters."""
    scores = annotation_scores(table, weights)
    order: dict = {}
    for key, value in zip(table.keys, scores.tolist()):
        order.setdefault(key, []).append(value)
    return [(key, sum(values) / len(values), len(values)) for key, values in order.items()]
