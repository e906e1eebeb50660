"""Character-level precision, recall and F1 of predicted error spans, as the WMT error-span tasks define them.

A translation of L characters gets, for the gold annotation and for a prediction, the number
of major and of minor error spans covering each character (``critical`` counts as major;
``neutral``, ``undecided``, spans without a position and spans on the source are left out).
Two definitions:

``wmt25`` (WMT25 unified MT evaluation, subtask 2; wmt-conference/wmt25-mteval
``scripts/scoring/task2/scoring_esa.py``, ``get_char_f1``): with g_M, g_m, p_M, p_m the
counts at a character (spans clipped to the text),

    tp = min(g_M, p_M) + min(g_m, p_m)
         + 1/2 · min(max(0, g_M − p_M) + max(0, g_m − p_m), max(0, p_M − g_M) + max(0, p_m − g_m)),
    gold = g_M + g_m,   pred = p_M + p_m,

so overlapping spans count as often as they overlap, a character of the right severity
earns 1 and one of the other severity 1/2 (partial credit for a severity mismatch).

``wmt24`` (WMT23-24 QE shared task, error-span detection; WMT-QE-Task/qe-eval-scripts
``wmt23/task2_evaluate.py``, ``score_new``): characters 0..L (one past the end, where an
omission at the end is marked), a zero-length span marking its start character, ends
clipped to L; a character is an error in gold (pred) when any span covers it:

    gold = [g_M + g_m > 0],   pred = [p_M + p_m > 0],
    tp = 1 if the gold severities (major only, minor only, or both) are matched by a predicted
         span of that severity (or, for both, of either), 1/2 if only the other severity is
         predicted there, 0 otherwise.

Micro-averaged over the translations of a language pair (sums first):

    P = Σ tp / Σ pred,   R = Σ tp / Σ gold,   F1 = 2 P R / (P + R),

with P = 1 when nothing is predicted, R = 1 when there is no gold error and F1 = 0 when
P + R = 0 (``scoring_esa.py``'s ``prec_rec_f1``). Every tp is a multiple of 1/2, so the sums
are exact in float64 in any order.
"""

from __future__ import annotations

import numpy as np

from ...vocabulary import SPAN_DEFINITIONS as DEFINITIONS

MAJOR = ("major", "critical")
#: characters counted per chunk of translations (bounds memory)
CHUNK_CHARS = 1 << 20


def positioned(table, keep=None) -> dict:
    """The spans of ``table`` that count (target side, with a position, major or minor), as arrays
    ``owner start end major``; ``keep`` (annotation index -> row) renumbers and filters annotations."""
    severity = np.asarray(table.severity, object)
    major = np.isin(severity, MAJOR)
    use = (major | (severity == "minor")) & ~np.asarray(table.on_source, bool) & (np.asarray(table.start) >= 0)
    owner = np.asarray(table.owner, np.int64)[use]
    out = {"owner": owner, "start": np.asarray(table.start)[use], "end": np.asarray(table.end)[use],
           "major": major[use]}
    if keep is not None:
        mapped = keep[owner]
        ok = mapped >= 0
        out = {k: v[ok] for k, v in out.items()}
        out["owner"] = mapped[ok]
    return out


def _clipped(spans: dict, lengths: np.ndarray, definition: str) -> tuple[np.ndarray, np.ndarray]:
    """Character ranges [a, b) of each span within its translation, after the definition's clipping."""
    length = lengths[spans["owner"]]
    start, end = spans["start"], spans["end"]
    if definition == "wmt25":  # counts[start:end] of an array of L characters
        return np.minimum(start, length), np.minimum(end, length)
    end = np.minimum(end, length)  # wmt24: L + 1 characters, a zero-length span marks its start
    a = start.copy()
    b = np.where(start == end, start + 1, end)
    b = np.where(start > end, start, b)  # nothing
    return a, b


def _coverage(spans: dict, a, b, offsets: np.ndarray, total: int, major: bool) -> np.ndarray:
    """Per character of the chunk, the number of spans of one severity covering it."""
    pick = spans["major"] == major
    diff = np.zeros(total + 1, np.int64)
    np.add.at(diff, offsets[spans["owner"][pick]] + a[pick], 1)
    np.add.at(diff, offsets[spans["owner"][pick]] + b[pick], -1)
    return np.cumsum(diff[:-1])


def _char_counts(gM, gm, pM, pm, definition: str):
    if definition == "wmt25":
        tp = np.minimum(gM, pM) + np.minimum(gm, pm) + 0.5 * np.minimum(
            np.maximum(0, gM - pM) + np.maximum(0, gm - pm), np.maximum(0, pM - gM) + np.maximum(0, pm - gm))
        return tp, (gM + gm).astype(np.float64), (pM + pm).astype(np.float64)
    g_major, g_minor, p_major, p_minor = gM > 0, gm > 0, pM > 0, pm > 0
    tp = np.where(g_major & ~g_minor, np.where(p_major, 1.0, np.where(p_minor, 0.5, 0.0)), 0.0)
    tp += np.where(g_minor & ~g_major, np.where(p_minor, 1.0, np.where(p_major, 0.5, 0.0)), 0.0)
    tp += np.where(g_major & g_minor & (p_major | p_minor), 1.0, 0.0)
    return tp, (g_major | g_minor).astype(np.float64), (p_major | p_minor).astype(np.float64)


def item_counts(lengths, gold: dict, predictions: list[dict], definition: str = "wmt25"):
    """(gold, [(tp, pred) per prediction]): per translation, the sums of the definition's character
    counts. ``lengths`` are the translations' lengths in characters; ``gold`` and each prediction
    are :func:`positioned` spans whose ``owner`` is the translation's row."""
    if definition not in DEFINITIONS:
        raise ValueError(f"unknown span F1 definition {definition!r}; known: {', '.join(DEFINITIONS)}")
    lengths = np.asarray(lengths, np.int64)
    n = len(lengths)
    chars = lengths + (1 if definition == "wmt24" else 0)
    gold_out = np.zeros(n)
    pred_out = [(np.zeros(n), np.zeros(n)) for _ in predictions]
    ends = np.cumsum(chars)
    start_item = 0
    while start_item < n:
        stop = int(np.searchsorted(ends, (ends[start_item - 1] if start_item else 0) + CHUNK_CHARS, "right"))
        stop = max(stop, start_item + 1)
        rows = np.arange(start_item, stop)
        offsets = np.zeros(n, np.int64)
        offsets[rows] = np.concatenate([[0], np.cumsum(chars[rows])[:-1]])
        total = int(chars[rows].sum())
        owner_of_char = np.repeat(rows - start_item, chars[rows])
        g = _subset(gold, start_item, stop)
        a, b = _clipped(g, lengths, definition)
        gM, gm = (_coverage(g, a, b, offsets, total, flag) for flag in (True, False))
        for k, prediction in enumerate(predictions):
            p = _subset(prediction, start_item, stop)
            a, b = _clipped(p, lengths, definition)
            pM, pm = (_coverage(p, a, b, offsets, total, flag) for flag in (True, False))
            tp, gold_chars, pred_chars = _char_counts(gM, gm, pM, pm, definition)
            pred_out[k][0][rows] = np.bincount(owner_of_char, tp, minlength=len(rows))
            pred_out[k][1][rows] = np.bincount(owner_of_char, pred_chars, minlength=len(rows))
            if k == 0:
                gold_out[rows] = np.bincount(owner_of_char, gold_chars, minlength=len(rows))
        if not predictions:
            gold_out[rows] = np.bincount(owner_of_char, _char_counts(gM, gm, gM * 0, gm * 0, definition)[1],
                                         minlength=len(rows))
        start_item = stop
    return gold_out, pred_out


def _subset(spans: dict, lo: int, hi: int) -> dict:
    pick = (spans["owner"] >= lo) & (spans["owner"] < hi)
    return {k: v[pick] for k, v in spans.items()}


def prf(tp, gold, pred):
    """(P, R, F1) from summed counts (arrays broadcast): P = 1 without predictions, R = 1 without gold
    errors, F1 = 0 when P + R = 0 (module docstring)."""
    tp, gold, pred = (np.asarray(x, np.float64) for x in (tp, gold, pred))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(pred > 0, tp / np.where(pred > 0, pred, 1), 1.0)
        r = np.where(gold > 0, tp / np.where(gold > 0, gold, 1), 1.0)
        f1 = np.where(p + r > 0, 2 * p * r / np.where(p + r > 0, p + r, 1), 0.0)
    return p, r, f1
