"""Slow, obvious span F1 straight from the WMT task definitions: one Python list per translation and severity.

``wmt25``: WMT25 error-span subtask (character counts, overlapping spans counted, half credit
for the other severity). ``wmt24``: WMT23-24 QE error-span task (characters 0..L marked or
not, zero-length spans marking their start, ends clipped to L). Each translation is
(length, gold spans, predicted spans), a span (start, end, severity) with severity
``major`` (or ``critical``) or ``minor``.
"""

from __future__ import annotations


def _counts(length: int, spans, definition: str):
    size = length + 1 if definition == "wmt24" else length
    major, minor = [0] * size, [0] * size
    for start, end, severity in spans:
        counts = major if severity in ("major", "critical") else minor
        if definition == "wmt25":
            for i in range(start, min(end, length)):
                counts[i] += 1
        else:
            end = min(end, length)
            if start == end:
                counts[start] += 1
            for i in range(start, end):
                counts[i] += 1
    return major, minor


def sums(items, definition: str = "wmt25"):
    """(tp, gold, pred) summed over the translations."""
    tp = gold = pred = 0.0
    for length, gold_spans, pred_spans in items:
        gM, gm = _counts(length, gold_spans, definition)
        pM, pm = _counts(length, pred_spans, definition)
        for a, b, c, d in zip(gM, gm, pM, pm):
            if definition == "wmt25":
                tp += min(a, c) + min(b, d)
                tp += 0.5 * min(max(0, a - c) + max(0, b - d), max(0, c - a) + max(0, d - b))
                gold += a + b
                pred += c + d
                continue
            gold += a > 0 or b > 0
            pred += c > 0 or d > 0
            if a > 0 and b == 0:
                tp += 1 if c > 0 else 0.5 if d > 0 else 0
            elif b > 0 and a == 0:
                tp += 1 if d > 0 else 0.5 if c > 0 else 0
            elif a > 0 and b > 0:
                tp += 1 if c > 0 or d > 0 else 0
    return tp, gold, pred


def prf(items, definition: str = "wmt25"):
    """(P, R, F1): P = 1 without predictions, R = 1 without gold errors, F1 = 0 when P + R = 0."""
    tp, gold, pred = sums(items, definition)
    p = tp / pred if pred else 1.0
    r = tp / gold if gold else 1.0
    return p, r, (2 * p * r) / (p + r) if p + r else 0.0
