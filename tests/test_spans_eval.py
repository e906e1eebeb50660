"""``rankeval spans eval``: clusters by permutation tests and bootstrap intervals, recomputed slowly on the
same random streams; the output read by ``table`` and ``plot``; bad input in one line."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from click.testing import CliRunner

import slow_spans
from rankeval_cli.cli import main
from rankeval_cli.formats.span_readers import read_spans
from rankeval_cli.stats.metaeval import span_table
from conftest import TEST_DATA

SPANS = TEST_DATA / "spans"
GOLD = SPANS / "synthetic-gold.wmt25.tsv"
PREDICTIONS = [SPANS / f"synthetic-pred-{name}.wmt25.tsv" for name in ("near", "loose", "none")]


def invoke(args, input=None):
    return CliRunner().invoke(main, args, input=input)


def items_of(lp, name):
    """slow_spans' (length, gold spans, predicted spans) of one language pair, parsed by hand."""
    def rows(path):
        with open(path, newline="", encoding="utf-8") as f:
            return [r for r in csv.DictReader(f, delimiter="\t") if f"{r['source_lang']}-{r['target_lang']}" == lp]

    def spans(r):
        if r["error_types"] == "no-error":
            return []
        return [(int(a), int(b), t) for a, b, t in zip(r["start_indices"].split(), r["end_indices"].split(),
                                                    r["error_types"].split()) if a != "missing"]

    return [(len(g["hypothesis_segment"]), spans(g), spans(p)) for g, p in
            zip(rows(GOLD), rows(SPANS / f"synthetic-pred-{name}.wmt25.tsv"))], [g["segment_id"] for g in rows(GOLD)]


@pytest.fixture(scope="module")
def pairs():
    gold = read_spans(GOLD)
    return span_table.language_pairs(gold, {t.name: t for t in map(read_spans, PREDICTIONS)}, "wmt25")


def test_permutation_p_values_equal_a_slow_recomputation(pairs):
    """Each pair's stream: a uniform per translation per trial, bit = u > 1/2, the bit's translation taken
    from the other predictor; p = share of trials with f(hybrid a) − f(hybrid b) ≥ the observed
    difference; blocks of 100, stopping when p < 0.02 or p > 0.5."""
    from rankeval_cli.executor import unit_seed

    result = span_table.evaluate(pairs, permutations=300, seed=7)
    for statistic, index in (("span-f1", 2), ("span-p", 0)):
        comparison = result.results[("en-de", statistic)]
        names = comparison.names
        for i in range(len(names)):
            for j in range(i + 1, len(names)):
                a, _ = items_of("en-de", names[i].split("-")[-1])
                b, _ = items_of("en-de", names[j].split("-")[-1])
                rng = np.random.RandomState(np.random.MT19937(
                    unit_seed(7, ("permutation", "en-de", statistic, names[i], names[j]))))
                f = (lambda items: slow_spans.prf(items, "wmt25")[index])
                delta = f(a) - f(b)
                large = done = 0
                while done < 300:
                    for bit in rng.random_sample((100, len(a))) > 0.5:
                        ha = [(x[0], x[1], (y if s else x)[2]) for x, y, s in zip(a, b, bit)]
                        hb = [(x[0], x[1], (x if s else y)[2]) for x, y, s in zip(a, b, bit)]
                        large += f(ha) - f(hb) >= delta
                    done += 100
                    if not 0.02 <= large / done <= 0.5:
                        break
                assert comparison.p[i, j] == large / done and comparison.trials[i, j] == done


def test_a_duplicated_predictor_ties_every_trial(tmp_path):
    copy = tmp_path / "twin.tsv"
    copy.write_text(PREDICTIONS[0].read_text())
    result = invoke(["-q", "spans", "eval", "--gold", str(GOLD), str(PREDICTIONS[0]), str(copy), "--permutations",
                     "200", "--output-format", "jsonl"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    for lp in ("en-de", "cs-uk", "all"):
        column = "avg" if lp == "all" else "span-f1"
        assert {r[f"{column}:rank"] for r in rows if r["lp"] == lp} == {1}
    pairs = span_table.language_pairs(read_spans(GOLD), {"a": read_spans(PREDICTIONS[0]), "b": read_spans(copy)},
                                      "wmt25")
    comparison = span_table.evaluate(pairs, permutations=200).results[("en-de", "span-f1")]
    assert comparison.p[0, 1] == 1.0  # every trial equals the observed difference, 0


def test_intervals_equal_a_slow_bootstrap(pairs):
    """Source segments resampled (all their translations with them), meta-eval's segment streams."""
    from rankeval_cli.stats.metaeval.intervals import resample_counts
    from rankeval_cli.stats.resample import percentile_interval

    result = span_table.evaluate(pairs, permutations=20, seed=3, ci=0.9, replicates=150)

    def replicates(lp, name, index):
        items, segments = items_of(lp, name)
        units = sorted(set(segments), key=int)
        out = []
        for row in resample_counts(3, (lp, "segments"), len(units), 0, 150):
            drawn = [item for unit, times in zip(units, row) for _ in range(times)
                     for item, seg in zip(items, segments) if seg == unit]
            out.append(slow_spans.prf(drawn, "wmt25")[index])
        return np.array(out)

    assert result.intervals[("cs-uk", "span-r")]["synthetic-pred-loose"] == pytest.approx(
        percentile_interval(replicates("cs-uk", "loose", 1), 0.9), abs=1e-12)
    average = (replicates("en-de", "near", 2) + replicates("cs-uk", "near", 2)) / 2
    assert result.average_intervals["synthetic-pred-near"] == pytest.approx(percentile_interval(average, 0.9),
                                                                            abs=1e-12)


def test_output_layout_and_the_table_and_figure_read_it(tmp_path):
    out = tmp_path / "spans.tsv"
    result = invoke(["spans", "eval", "--gold", str(GOLD), *map(str, PREDICTIONS), "--ci", "0.95", "--bootstrap",
                     "50", "--permutations", "100", "-o", str(out)])
    assert result.exit_code == 0 and result.stderr == "", result.output
    rows = list(csv.DictReader(io.StringIO(out.read_text()), delimiter="\t"))
    assert list(rows[0])[:6] == ["lp", "metric", "span-f1", "span-f1:rank", "span-f1:ci_low", "span-f1:ci_high"]
    assert list(rows[0])[-7:] == ["avg", "avg:rank", "avg:ci_low", "avg:ci_high", "items", "segments", "signature"]
    assert [(r["lp"], r["metric"]) for r in rows][-3:] == [("all", "synthetic-pred-near"), ("all", "synthetic-pred-loose"),
                                                           ("all", "synthetic-pred-none")]
    f1 = {r["metric"]: [float(x["span-f1"]) for x in rows if x["metric"] == r["metric"] and x["lp"] != "all"]
          for r in rows}
    for r in rows[-3:]:
        assert float(r["avg"]) == pytest.approx(np.mean(f1[r["metric"]]), abs=1e-15)
    assert rows[0]["signature"].startswith("spans-eval|definition:wmt25|gold:synthetic-gold|weights:lp|")
    table = invoke(["table", "--ci", "0.95", str(out)])
    assert table.exit_code == 0 and "| synthetic-pred-near | **" in table.stdout
    assert "avg: span-f1 averaged over the language pairs (WMT25's avg_f1)" in table.stdout
    pytest.importorskip("matplotlib")
    assert invoke(["plot", "bars", str(out), "-o", str(tmp_path / "b.svg")]).exit_code == 0


def test_notes_and_refusals(tmp_path):
    lines = GOLD.read_text().splitlines()
    short = tmp_path / "short.tsv"
    short.write_text("\n".join(lines[:-1]) + "\n")  # the last translation unpredicted
    result = invoke(["spans", "eval", "--gold", str(GOLD), str(short)])
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert "short: no prediction for cs-uk system 'sysC' segment 'doc2#7'" in result.stderr
    result = invoke(["spans", "eval", "--gold", str(short), str(PREDICTIONS[0]), "--permutations", "20"])
    assert result.exit_code == 0
    assert f"rankeval: {PREDICTIONS[0]}: 1 prediction(s) for translations the gold spans do not annotate left out" \
        in result.stderr
    assert invoke(["-q", "spans", "eval", "--gold", str(short), str(PREDICTIONS[0]), "--permutations", "20"]).stderr == ""
    twice = invoke(["spans", "eval", "--gold", str(GOLD), str(PREDICTIONS[0]), str(PREDICTIONS[0])])
    assert twice.exit_code == 1 and "a second predictor named 'synthetic-pred-near'" in twice.stderr
