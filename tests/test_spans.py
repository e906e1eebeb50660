"""Error spans: reading MQM, ESA, mt-metrics-eval and WMT task files; MQM and ESA scores from spans;
span precision, recall and F1 checked three ways (hand-computed cases, the slow reference of
slow_spans.py on seeded random spans, the WMT task scripts' outputs); clusters and intervals.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import slow_spans
from rankeval_cli.cli import main
from rankeval_cli.formats.span_readers import read_spans, unmark
from rankeval_cli.stats.metaeval import spans as sp
from rankeval_cli.stats.span_scores import parse_weights, segment_scores
from conftest import TEST_DATA, peer_checkout

SPANS = TEST_DATA / "spans"


def invoke(args, input=None):
    return CliRunner().invoke(main, args, input=input)


def fast_prf(items, definition):
    """The library's P, R, F1 on slow_spans' item layout."""
    lengths = [length for length, _, _ in items]

    def arrays(which):
        rows = [(k, a, b, s in sp.MAJOR) for k, item in enumerate(items) for a, b, s in item[which]]
        owner, start, end, major = (np.array(c) for c in zip(*rows)) if rows else (np.zeros(0, np.int64),) * 4
        return {"owner": owner.astype(np.int64), "start": start.astype(np.int64), "end": end.astype(np.int64),
                "major": major.astype(bool)}

    gold, ((tp, pred),) = sp.item_counts(lengths, arrays(1), [arrays(2)], definition)
    return tuple(float(x) for x in sp.prf(tp.sum(), gold.sum(), pred.sum()))


@pytest.mark.parametrize("definition, items, expected", [
    # gold major [0, 4), predicted minor [2, 6): characters 2 and 3 earn 1/2 each
    ("wmt25", [(10, [(0, 4, "major")], [(2, 6, "minor")])], (0.25, 0.25, 0.25)),
    ("wmt24", [(10, [(0, 4, "major")], [(2, 6, "minor")])], (0.25, 0.25, 0.25)),
    # overlapping gold spans count twice under wmt25 (gold 8 = 2 + 2×2 + 2), once under wmt24
    ("wmt25", [(10, [(0, 4, "major"), (2, 6, "major")], [(0, 6, "major")])], (1.0, 0.75, 6 / 7)),
    ("wmt24", [(10, [(0, 4, "major"), (2, 6, "major")], [(0, 6, "major")])], (1.0, 1.0, 1.0)),
    # a zero-length span (an omission at 5): nothing under wmt25, character 5 under wmt24
    ("wmt25", [(10, [(5, 5, "major")], [(5, 5, "major")])], (1.0, 1.0, 1.0)),
    ("wmt24", [(10, [(5, 5, "major")], [(5, 5, "minor")])], (0.5, 0.5, 0.5)),
    # spans past the end are clipped; nothing predicted: P = 1, R = 0, F1 = 0
    ("wmt25", [(6, [(4, 9, "minor")], [])], (1.0, 0.0, 0.0)),
    ("wmt24", [(6, [(4, 9, "minor"), (6, 6, "major")], [(5, 20, "minor")])], (1.0, 1 / 3, 0.5)),
    # both severities on a character: any prediction earns 1 (wmt24); the matching one 1, the other 1/2 (wmt25)
    ("wmt24", [(4, [(0, 2, "major"), (0, 2, "minor")], [(0, 2, "minor")])], (1.0, 1.0, 1.0)),
    ("wmt25", [(4, [(0, 2, "major"), (0, 2, "minor")], [(0, 2, "minor")])], (1.0, 0.5, 2 / 3)),
])
def test_hand_computed_cases(definition, items, expected):
    assert slow_spans.prf(items, definition) == pytest.approx(expected, abs=1e-15)
    assert fast_prf(items, definition) == pytest.approx(expected, abs=1e-15)


def random_items(rng: random.Random, n: int):
    items = []
    for _ in range(n):
        length = rng.randint(0, 40)
        spans = []
        for which in range(2):
            spans.append([])
            for _ in range(rng.choice([0, 0, 1, 2, 3, 5])):
                a = rng.randint(0, length + 2)
                b = a if rng.random() < 0.15 else a + rng.randint(1, 15)
                spans[which].append((a, b, rng.choice(["major", "minor", "critical"])))
        items.append((length, *spans))
    return items


@pytest.mark.parametrize("definition", sp.DEFINITIONS)
def test_equal_to_the_slow_reference_on_seeded_random_spans(definition, monkeypatch):
    """300 translations per seed, spans of every kind (overlapping, zero-length, past the end, in
    chunks of a few characters so that translations straddle the chunk boundaries)."""
    monkeypatch.setattr(sp, "CHUNK_CHARS", 97)
    for seed in range(8):
        items = random_items(random.Random(seed), 300)
        if definition == "wmt24":  # its script indexes starts up to L: no span starting past the end
            items = [(n, [s for s in g if s[0] <= n], [s for s in p if s[0] <= n]) for n, g, p in items]
        assert fast_prf(items, definition) == slow_spans.prf(items, definition)


@pytest.mark.parametrize("peer, definition, gold, predictions", [
    ("wmt25-mteval-d1f6ab9a58d2", "wmt25", "synthetic-gold.wmt25.tsv", ["near", "loose", "none"]),
    ("qe-eval-scripts-b7cc5e5ffc38", "wmt24", "synthetic-gold.qe.tsv", ["near"]),
])
def test_equal_to_the_task_scripts(peer, definition, gold, predictions):
    """The WMT25 and WMT23-24 scoring scripts' P, R, F1 (run on the same files by run-peers), bit for bit."""
    expected = json.loads((SPANS / f"synthetic.{peer}.json").read_text())["precision_recall_f1"]
    suffix = "wmt25.tsv" if definition == "wmt25" else "qe.tsv"
    files = [str(SPANS / f"synthetic-pred-{p}.{suffix}") for p in predictions]
    result = invoke(["-q", "spans", "eval", "--gold", str(SPANS / gold), *files, "--definition", definition,
                     "--permutations", "10", "--output-format", "jsonl"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    checked = 0
    for name, per_lp in expected.items():
        for lp, (p, r, f1) in per_lp.items():
            (row,) = [x for x in rows if x["metric"] == name and x["lp"] == lp]
            assert (row["span-p"], row["span-r"], row["span-f1"]) == (p, r, f1)
            checked += 1
    assert checked == (6 if definition == "wmt25" else 1)


def test_unmark():
    assert unmark("a <v>bc</v> d <v>e</v>") == ("a bc d e", [(2, 4), (7, 8)], False)
    assert unmark("x <v>?") == ("x ?", [(2, 3)], True)  # released rows with an unclosed mark
    for bad in ("a </v>b", "<v>a <v>b</v></v>"):
        with pytest.raises(ValueError):
            unmark(bad)


MQM_HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n"


def test_mqm_scores_hand_computed(tmp_path):
    """Major 5, Minor 1, Minor/Fluency/Punctuation 0.1, Major/Non-translation! 25, Neutral 0; the
    mean over raters; source errors and errors without a mark count."""
    path = tmp_path / "mqm_test_ende.tsv"
    rows = [("A", "1", "r1", "s", "<v>ab</v> cd", "Accuracy/Mistranslation", "Major"),
            ("A", "1", "r1", "s", "ab <v>cd</v>", "Fluency/Punctuation", "Minor"),
            ("A", "1", "r2", "s", "ab cd", "No-error", "No-error"),
            ("A", "2", "r1", "<v>s</v>", "xy", "Source error", "Minor"),
            ("A", "2", "r1", "s", "xy", "Non-translation!", "Major"),
            ("B", "1", "r1", "s", "a<v>b</v>", "Style/Awkward", "Neutral"),
            ("B", "2", "r1", "s", "<v>x</v>y", "Fluency/Grammar", "Minor")]
    path.write_text(MQM_HEADER + "".join(f"{s}\tdoc\t{g}\t{g}\t{r}\t{src}\t{t}\t{c}\t{v}\n"
                                         for s, g, r, src, t, c, v in rows))
    table = read_spans(path)
    scores = {key: (score, raters) for key, score, raters in segment_scores(table, parse_weights("mqm"))}
    assert scores == {("en-de", "A", "1"): (-2.55, 2), ("en-de", "A", "2"): (-26.0, 1),
                      ("en-de", "B", "1"): (0.0, 1), ("en-de", "B", "2"): (-1.0, 1)}
    assert table.lengths.tolist() == [5, 5, 2, 2, 2]
    (source_span,) = np.flatnonzero(table.on_source)
    assert (table.start[source_span], table.end[source_span]) == (0, 1)
    custom = segment_scores(table, parse_weights("Major:10,Minor:2"))
    assert dict((k, v) for k, v, _ in custom)[("en-de", "A", "2")] == -12.0


def test_mqm_scores_equal_the_released_ones_on_the_excerpt():
    """Every segment of the TED excerpt (google/wmt-mqm-human-evaluation; the release names the
    references ref in its ratings and ref-A in its scores) scores as released."""
    table = read_spans(SPANS / "mqm_ted_ende.excerpt.tsv")
    assert table.notes == [f"{SPANS / 'mqm_ted_ende.excerpt.tsv'}: 1 row(s) with a <v> never closed: the span "
                           "runs to the end of the text"]
    released = released_scores(SPANS / "mqm_ted_ende.excerpt.avg_seg_scores.tsv")
    ours = {(("ref-A" if k[1] == "ref" else k[1]), k[2]): v for k, v, _ in segment_scores(table, parse_weights("mqm"))}
    assert len(ours) == 25 and ours.keys() == released.keys()
    for key, value in ours.items():
        assert abs(value - released[key]) <= 5e-7, key  # released with 6 decimals


def released_scores(path: Path) -> dict:
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        system, rest = line.split("\t")
        value, segment = rest.split(" ")
        if value != "None":
            out[(system, segment)] = float(value)
    return out


def test_mqm_scores_equal_the_whole_released_ted_set():
    """Every rated segment of the released TED MQM ratings (en-de 7,406, zh-en 7,935) scores as released."""
    root = peer_checkout("WMT_MQM_HUMAN_EVALUATION_SRC", "a checkout of google/wmt-mqm-human-evaluation",
                         "ted/ende/mqm_ted_ende.tsv", "ted/zhen/mqm_ted_zhen.tsv")
    renamed = {"ref": "ref-A", "refB": "ref-B"}
    for code, count in (("ende", 7406), ("zhen", 7935)):
        table = read_spans(root / f"ted/{code}/mqm_ted_{code}.tsv")
        released = released_scores(root / f"ted/{code}/mqm_ted_{code}.avg_seg_scores.tsv")
        ours = {(renamed.get(k[1], k[1]), k[2]): v for k, v, _ in segment_scores(table, parse_weights("mqm"))}
        assert len(ours) == count == len(released)
        assert max(abs(v - released[k]) for k, v in ours.items()) <= 5e-7


def test_esa_json_lines_both_shapes_and_the_span_score(tmp_path):
    """ESA's span score: Critical 25, Major 5, Minor 1, Undecided 0, capped at 25 (Kocmi et al. 2024)."""
    spans = [{"start_i": 0, "end_i": 3, "severity": "major", "error_type": None},
             {"start_i": "missing", "end_i": "missing", "severity": "minor"},
             {"start_i": 2, "end_i": 2, "severity": "undecided"}]
    per_annotation = [{"langs": "en-cs", "line_id": 7, "src": "s", "tgt": "abcdef", "doc_id": "d", "domain": "news",
                       "esa_spans": spans, "esa_score": "71", "system": "S1", "annotator": "a1"},
                      {"langs": "en-cs", "line_id": 7, "src": "s", "tgt": "abcdef", "doc_id": "d", "domain": "news",
                       "esa_spans": [{"start_i": 0, "end_i": 6, "severity": "critical"}] * 2, "esa_score": "5",
                       "system": "S1", "annotator": "a2"}]
    segment = {"doc_id": "en-cs_#_news_#_d_#_7", "src_text": "s", "tgt_text": {"S1": "abcdef"},
               "scores": {"S1": [{"score": 71.0, "annotator": "a1", "errors": spans, "protocol": "ESA"},
                                 {"score": 5.0, "annotator": "a2",
                                  "errors": [{"start_i": 0, "end_i": 6, "severity": "critical"}] * 2}]}}
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text("".join(json.dumps(x) + "\n" for x in per_annotation))
    second.write_text(json.dumps(segment) + "\n")
    for path in (first, second):
        table = read_spans(path)
        assert table.keys == [("en-cs", "S1", "7")] * 2 and table.lengths.tolist() == [6, 6]
        assert segment_scores(table, parse_weights("esa")) == [(("en-cs", "S1", "7"), (-6.0 - 25.0) / 2, 2)]
        assert table.start[table.owner == 0].tolist() == [0, -1, 2]


def test_mtme_ratings_with_lengths_from_the_directory(tmp_path):
    root = tmp_path / "wmt99"
    (root / "human-scores").mkdir(parents=True)
    (root / "system-outputs" / "en-de").mkdir(parents=True)
    (root / "system-outputs" / "en-de" / "S1.txt").write_text("hello world\nbye\n")
    rating = {"errors": [{"start": 0, "end": 5, "category": "Accuracy/Mistranslation", "severity": "major",
                          "score": None, "is_source_error": False},
                         {"start": 1, "end": 2, "category": "Fluency/Punctuation", "severity": "minor", "score": None,
                          "is_source_error": True}]}
    path = root / "human-scores" / "en-de.mqm.seg.rating"
    path.write_text(f"S1\t{json.dumps(rating)}\trater1\nS1\tNone\n")
    table = read_spans(path)
    assert table.name == "mqm" and table.keys == [("en-de", "S1", "1")] and table.lengths.tolist() == [11]
    assert table.on_source.tolist() == [False, True]
    assert segment_scores(table, parse_weights("mqm")) == [(("en-de", "S1", "1"), -5.1, 1)]


@pytest.mark.parametrize("text, message", [
    ("\tdoc\t1\t1\tr1\ts\t<v>a\tAccuracy\tMajor\n", "no system column"),
    ("A\tdoc\t1\t1\tr1\ts\ta</v>\tAccuracy\tMajor\n", "</v> without <v>"),
    ("A\tdoc\t1\t1\tr1\ts\t<v>a</v>\tAccuracy\tSevere\n", "unknown severity 'Severe'"),
])
def test_bad_span_files_are_one_line_errors(tmp_path, text, message):
    path = tmp_path / "mqm_test_ende.tsv"
    path.write_text((MQM_HEADER.replace("system", "") if message.startswith("no system") else MQM_HEADER) + text)
    result = invoke(["spans", "score", "--from", "mqm", str(path)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.stderr.startswith(f"rankeval: {path}:") and message in result.stderr


def test_the_mqm_layout_is_what_meta_eval_reads(tmp_path):
    """spans score --layout mqm writes Google's avg_seg_scores layout: meta-eval's MQM reader gets the scores."""
    from rankeval_cli.formats.mqm import load_mqm

    out = tmp_path / "mqm_ted_ende.avg_seg_scores.tsv"
    result = invoke(["-q", "spans", "score", "--layout", "mqm", str(SPANS / "mqm_ted_ende.excerpt.tsv"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    scores = load_mqm(out)
    released = released_scores(SPANS / "mqm_ted_ende.excerpt.avg_seg_scores.tsv")
    got = {(("ref-A" if s == "ref" else s), str(g)): v for s, g, v in zip(scores.system, scores.segment, scores.value)}
    assert got.keys() == released.keys() and max(abs(v - released[k]) for k, v in got.items()) <= 5e-7
    both = invoke(["spans", "score", "--layout", "mqm", str(SPANS / "mqm_ted_ende.excerpt.tsv"),
                   str(SPANS / "synthetic-gold.wmt25.tsv")])
    assert both.exit_code == 1 and "holds one language pair" in both.stderr
