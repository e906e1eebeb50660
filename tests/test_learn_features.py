"""Sentence-BLEU statistics (against sacreBLEU and a hand n-gram count) and intra-set features
(against a slow per-group implementation)."""

from __future__ import annotations

import logging
import math
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import rankdata

from rankeval_cli.batch import offsets_from_sizes
from rankeval_cli.learn.features import (BLEU_COLUMNS, BLEU_ORDER, INTRA_KINDS, SMOOTH_METHODS, bleu_features,
                                         bleu_scores, bleu_statistics, intra_set)

sacrebleu = pytest.importorskip("sacrebleu")  # a hard dependency; the import names the failure clearly
from sacrebleu.metrics import BLEU  # noqa: E402
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "wmt10-de-en.xf.jcml"


def real_pairs():
    """(hypothesis, reference) pairs of real WMT10 translations: each system output against
    the next system's output of the same sentence (the bundled file has no reference), plus
    degenerate cases (empty, shorter than 4 tokens, no match)."""
    text = EXAMPLE.read_text(encoding="utf-8")
    groups = [re.findall(r"<tgt[^>]*>(.*?)</tgt>", g, re.S) for g in re.findall(r"<judgedsentence.*?</judgedsentence>", text, re.S)]
    pairs = []
    for outputs in groups:
        outputs = [" ".join(o.split()) for o in outputs]
        pairs += [(h, outputs[(i + 1) % len(outputs)]) for i, h in enumerate(outputs)]
    pairs += [("", "a b"), ("a", "a"), ("a b", "a b c"), ("x y z", "a b c"), ("a b c d", "a b x d"),
              ("The cat sat.", "The cat sat on the mat."), ("on the mat", "The cat sat on the mat.")]
    return pairs


PAIRS = real_pairs()


def slow_statistics(hyp: str, ref: str, lowercase: bool = False):
    """[c, ρ, m_1..m_4, t_1..t_4] by counting n-grams by hand (Papineni et al. 2002 §2.1.1)."""
    tok = Tokenizer13a()
    h = tok((hyp.lower() if lowercase else hyp).rstrip()).split()
    r = tok((ref.lower() if lowercase else ref).rstrip()).split()
    matches, totals = [], []
    for n in range(1, BLEU_ORDER + 1):
        hc = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
        rc = Counter(tuple(r[i:i + n]) for i in range(len(r) - n + 1))
        matches.append(sum(min(c, rc[g]) for g, c in hc.items()))
        totals.append(sum(hc.values()))
    return [len(h), len(r), *matches, *totals]


def test_statistics_equal_a_hand_ngram_count_on_real_sentences():
    assert len(PAIRS) > 200
    stats = bleu_statistics([h for h, _ in PAIRS], [r for _, r in PAIRS])
    expected = np.array([slow_statistics(h, r) for h, r in PAIRS])
    np.testing.assert_array_equal(stats, expected)
    assert (stats[:, 2] > 0).mean() > 0.9 and (stats[:, 5] > 0).any()  # real overlap, 4-gram matches too


def test_papineni_modified_unigram_precision():
    # Papineni et al. (2002) §2.1: candidate "the the the the the the the" against
    # "The cat is on the mat." has modified unigram precision 2/7.
    stats = bleu_statistics(["the the the the the the the"], ["The cat is on the mat."], lowercase=True)
    assert stats[0, 2] == 2 and stats[0, 2 + BLEU_ORDER] == 7
    features = bleu_features(["the the the the the the the"], ["The cat is on the mat."], lowercase=True)
    assert features["bleu_p1"][0] == pytest.approx(2 / 7, rel=1e-15)
    assert features["bleu_unsmoothed"][0] == 0.0  # no bigram matches


def test_add_one_smoothing_by_hand():
    # m = (3, 1, 0, 0), t = (4, 3, 2, 1); Lin & Och (2004) add one for n > 1:
    # p = 3/4, 2/4, 1/3, 1/2, BP = 1, BLEU = 100 (1/16)^(1/4) = 50.
    f = bleu_features(["a b c d"], ["a b x d"])
    assert [f[f"bleu_m{n}"][0] for n in range(1, 5)] == [3, 1, 0, 0]
    assert [f[f"bleu_t{n}"][0] for n in range(1, 5)] == [4, 3, 2, 1]
    assert f["bleu"][0] == pytest.approx(50.0, rel=1e-13)
    assert f["bleu_unsmoothed"][0] == 0.0
    # A short hypothesis: c = 2, ρ = 4, BP = exp(1 - 4/2); every smoothed precision is 1.
    f = bleu_features(["a b"], ["a b c d"])
    assert f["bleu_bp"][0] == pytest.approx(math.exp(-1), rel=1e-15)
    assert f["bleu"][0] == pytest.approx(100 * math.exp(-1), rel=1e-13)
    assert f["bleu_ratio"][0] == 0.5 and f["bleu_hyp_len"][0] == 2 and f["bleu_ref_len"][0] == 4


@pytest.mark.parametrize("smooth", SMOOTH_METHODS)
@pytest.mark.parametrize("effective_order", [True, False])
def test_scores_equal_sacrebleu_sentence_score(smooth, effective_order):
    logging.getLogger("sacrebleu").setLevel(logging.ERROR)  # its advice to use effective_order
    hyps, refs = [h for h, _ in PAIRS], [r for _, r in PAIRS]
    ours = bleu_scores(bleu_statistics(hyps, refs), smooth, effective_order=effective_order)
    peer = BLEU(smooth_method=smooth, effective_order=effective_order)
    theirs = np.array([peer.sentence_score(h, [r]).score for h, r in PAIRS])
    # numpy's log/exp against math's: a few ulps on the 0-100 scale
    np.testing.assert_allclose(ours, theirs, rtol=1e-13, atol=1e-13)
    assert (theirs > 0).mean() > 0.5


def test_columns_equal_sacrebleus_score_object():
    hyps, refs = [h for h, _ in PAIRS], [r for _, r in PAIRS]
    f = bleu_features(hyps, refs)
    assert list(f) == list(BLEU_COLUMNS)
    add_one = BLEU(smooth_method="add-k", smooth_value=1, effective_order=True)
    plain = BLEU(smooth_method="none", effective_order=True)
    for i, (h, r) in enumerate(PAIRS):
        s = plain.sentence_score(h, [r])
        assert f["bleu_hyp_len"][i] == s.sys_len and f["bleu_ref_len"][i] == s.ref_len
        assert f["bleu_bp"][i] == pytest.approx(s.bp, rel=1e-15)
        assert [f[f"bleu_p{n}"][i] * 100 for n in range(1, 5)] == pytest.approx(s.precisions, rel=1e-14)
        assert f["bleu_unsmoothed"][i] == pytest.approx(s.score, rel=1e-13, abs=1e-13)
        assert f["bleu"][i] == pytest.approx(add_one.sentence_score(h, [r]).score, rel=1e-13, abs=1e-13)


def test_sentence_bleu_function_is_exp_smoothing():
    hyps, refs = [h for h, _ in PAIRS], [r for _, r in PAIRS]
    ours = bleu_scores(bleu_statistics(hyps, refs), "exp")
    theirs = [sacrebleu.sentence_bleu(h, [r]).score for h, r in PAIRS]
    np.testing.assert_allclose(ours, theirs, rtol=1e-13, atol=1e-13)


def test_tokenizer_and_lowercase_reach_sacrebleu():
    hyp, ref = "The Cat, sat.", "the cat , sat ."
    mixed = bleu_statistics([hyp], [ref], tokenize="none")
    lower = bleu_statistics([hyp], [ref], tokenize="13a", lowercase=True)
    assert mixed[0, 2] < lower[0, 2] == 5  # the cat , sat .
    with pytest.raises(ValueError):
        bleu_statistics([hyp], [ref], tokenize="moses")


# --- intra-set features ----------------------------------------------------------------

def slow_intra_set(x: np.ndarray, sizes) -> dict[str, np.ndarray]:
    """One group at a time with scipy's rankdata and plain max/min/mean over present values."""
    out = {k: np.full(len(x), np.nan) for k in INTRA_KINDS}
    start = 0
    for size in sizes:
        g = x[start:start + size]
        present = ~np.isnan(g)
        if present.any():
            v = g[present]
            idx = np.arange(start, start + size)[present]
            out["rank"][idx] = rankdata(-v, method="average")
            out["best"][idx] = (v == v.max()).astype(float)
            out["worst"][idx] = (v == v.min()).astype(float)
            out["dmean"][idx] = v - v.mean()
        start += size
    return out


@pytest.mark.parametrize("seed", range(4))
def test_intra_set_equals_slow_per_group(seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 90, size=200)  # short groups and long ones (over 64 rows)
    n = int(sizes.sum())
    features = {
        "ties": rng.integers(0, 4, n).astype(float),
        "real": rng.normal(size=n) * 1e3,
        "holes": np.where(rng.random(n) < 0.2, np.nan, rng.integers(0, 3, n).astype(float)),
    }
    got = intra_set(features, offsets_from_sizes(sizes), INTRA_KINDS)
    assert list(got) == [f"{f}.{k}" for f in features for k in INTRA_KINDS]
    for name, x in features.items():
        slow = slow_intra_set(x, sizes)
        for kind in INTRA_KINDS:
            np.testing.assert_allclose(got[f"{name}.{kind}"], slow[kind], rtol=1e-12, atol=1e-9,
                                       err_msg=f"{name}.{kind}")


def test_intra_set_by_hand():
    # Duh (2008) §3.1: 1 for the output with the best value, 0 for the others; ties share.
    x = np.array([0.2, 0.5, 0.5, 0.1, 3.0, np.nan, 1.0])
    got = intra_set({"p1": x}, np.array([0, 4, 5, 7]), INTRA_KINDS)
    np.testing.assert_array_equal(got["p1.best"], [0, 1, 1, 0, 1, np.nan, 1])
    np.testing.assert_array_equal(got["p1.worst"], [0, 0, 0, 1, 1, np.nan, 1])
    np.testing.assert_array_equal(got["p1.rank"], [3, 1.5, 1.5, 4, 1, np.nan, 1])
    np.testing.assert_allclose(got["p1.dmean"], [0.2 - 1.3 / 4, 0.5 - 1.3 / 4, 0.5 - 1.3 / 4, 0.1 - 1.3 / 4, 0,
                                                 np.nan, 0], rtol=1e-15)


def test_intra_set_defaults_and_refusals():
    offsets = np.array([0, 2])
    assert list(intra_set({"f": np.array([1.0, 2.0])}, offsets)) == ["f.rank", "f.best", "f.dmean"]
    with pytest.raises(ValueError, match="infinite"):
        intra_set({"f": np.array([1.0, np.inf])}, offsets)
    with pytest.raises(ValueError, match="kind"):
        intra_set({"f": np.array([1.0, 2.0])}, offsets, ["median"])
    with pytest.raises(ValueError, match="rows"):
        intra_set({"f": np.array([1.0])}, offsets)
