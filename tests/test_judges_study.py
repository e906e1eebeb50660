"""``rankeval judges`` on the bundled simulated study (examples/judges, scripts/judges-example):
the judges ordered and clustered as their noise implies, intervals that cover the simulated
truth, bad input as one line, every output format, ``table`` and ``plot`` reading it."""

from __future__ import annotations

import csv
import importlib.machinery
import importlib.util
import io
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from rankeval_cli.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "judges"
JUDGES = ("careful", "lenient", "strict", "random")
RUNS = sorted(str(p) for p in (EXAMPLE / "runs").glob("*.run"))
STUDY = ["judges", "--qrels", str(EXAMPLE / "reference.qrels"),
         *[f"--candidate={EXAMPLE / name}.qrels" for name in JUDGES]]


def _generator():
    loader = importlib.machinery.SourceFileLoader("judges_example", str(ROOT / "scripts" / "judges-example"))
    spec = importlib.util.spec_from_loader("judges_example", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _rows(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text), delimiter="\t"))


@pytest.fixture(scope="module")
def study():
    result = CliRunner().invoke(main, [*STUDY, "-m", "ndcg_cut_10,map", *RUNS])
    assert result.exit_code == 0, result.output
    return _rows(result.stdout)


def _pooled(rows, section, statistic, measure=""):
    return {r["candidate"]: (float(r["value"]), int(r["cluster"]), float(r["ci_low"]), float(r["ci_high"]))
            for r in rows if r["section"] == section and r["statistic"] == statistic and r["group"] == "all"
            and r["measure"] == measure}


@pytest.mark.parametrize("statistic", ["kappa", "kappa_linear", "kappa_quadratic", "alpha_nominal",
                                       "alpha_ordinal", "alpha_interval", "agreement"])
def test_label_statistics_order_and_cluster_the_judges_as_their_noise(study, statistic):
    """The value each noise model implies (the expected confusion diag(n)·P, n the reference's
    grades on the pairs compared: the pool is richer in relevant documents than the collection)
    orders the judges; the table's values and its clusters give the same order, one judge per
    cluster."""
    from rankeval_cli.judging.agreement import label_statistics, LABEL_STATISTICS

    gen = _generator()
    n = np.zeros(4)
    for r in study:
        if r["section"] == "confusion" and r["candidate"] == "careful":
            n[int(r["gold_grade"])] += int(r["value"])
    truth = {name: label_statistics(np.diag(n) @ gen.noise_matrix(*gen.JUDGES[name]), gen.GRADES, 1)
             [LABEL_STATISTICS.index(statistic)] for name in JUDGES}
    implied = sorted(JUDGES, key=lambda n: -truth[n])
    table = _pooled(study, "labels", statistic)
    assert sorted(JUDGES, key=lambda n: -table[n][0]) == implied
    assert [table[n][1] for n in implied] == [1, 2, 3, 4]
    for name in JUDGES:  # the 95% interval holds the population value
        assert table[name][2] <= truth[name] <= table[name][3], (name, truth[name], table[name])


@pytest.mark.parametrize("measure", ["ndcg_cut_10", "map"])
@pytest.mark.parametrize("statistic", ["tau_b", "tau_ap", "accuracy", "spa"])
def test_system_rankings_put_the_random_judge_last_on_its_own(study, measure, statistic):
    table = _pooled(study, "ranking", statistic, measure)
    assert min(table, key=lambda n: table[n][0]) == "random"
    assert table["random"][1] > max(table[n][1] for n in JUDGES if n != "random")
    assert table["careful"][1] == 1


def test_the_table_holds_every_section(study):
    sections = {r["section"] for r in study}
    assert sections == {"labels", "grades", "fleiss", "confusion", "ranking", "systems", "judges", "holes"}
    assert list(study[0]) [-1] == "signature"
    confusion = [r for r in study if r["section"] == "confusion" and r["candidate"] == "careful"]
    labels = [r for r in study if r["section"] == "labels" and r["candidate"] == "careful" and r["statistic"] == "kappa"]
    assert sum(int(r["value"]) for r in confusion) == int(labels[0]["items"])
    versus = [r for r in study if r["section"] == "judges" and r["statistic"] == "kappa"]
    assert len(versus) == 6 and all(0 < float(r["p_bootstrap"]) <= 1 for r in versus)


def test_intervals_cover_the_simulated_truth():
    """200 seeded repetitions of a 40-topic study of the lenient judge (each repetition a
    candidate of one TopicData, vectorized): the 95% percentile intervals of Cohen's kappa
    (unweighted and quadratic) and Krippendorff's ordinal alpha cover the population value in
    93-97% of them."""
    from rankeval_cli.judging.agreement import LABEL_STATISTICS, label_statistics
    from rankeval_cli.judging.study import Settings, TopicData, intervals, observed, replicates

    gen = _generator()
    noise = gen.noise_matrix(*gen.JUDGES["lenient"])
    # the population: the limit of many pairs (alpha's (n − 1) is a finite-sample correction)
    truth = label_statistics(1e12 * np.diag(gen.PRIOR) @ noise, gen.GRADES, 1)
    rng = np.random.default_rng(20240)
    reps, topics, docs = 200, 40, 30
    ref = rng.choice(4, size=(reps, topics, docs), p=gen.PRIOR)
    cand = (rng.random((reps, topics, docs))[..., None] > np.cumsum(noise[ref], axis=-1)).sum(axis=-1)
    conf = np.zeros((reps, topics, 4, 4))
    np.add.at(conf, (np.arange(reps)[:, None, None], np.arange(topics)[None, :, None], ref, cand), 1)
    data = TopicData(conf, gen.GRADES, None, reps, np.zeros((1, 0, 0, topics)), [], Settings(bootstrap=1000))
    columns = data.columns()
    values = replicates(data)
    low, high = intervals(values, 0.95)
    for statistic in ("kappa", "kappa_quadratic", "alpha_ordinal"):
        idx = [i for i, c in enumerate(columns) if c.section == "labels" and c.statistic == statistic]
        t = truth[LABEL_STATISTICS.index(statistic)]
        covered = np.mean((low[idx] <= t) & (t <= high[idx]))
        assert 0.93 <= covered <= 0.97, (statistic, covered)
    assert len(observed(data)) == len(columns)


# --- output formats, table, plot -----------------------------------------------------------------

FEW = ["--bootstrap", "50"]
SMALL = ["judges", "--qrels", str(EXAMPLE / "reference.qrels"), f"--candidate={EXAMPLE / 'careful.qrels'}",
         f"--candidate={EXAMPLE / 'random.qrels'}", *FEW, *RUNS[:6]]


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    folder = tmp_path_factory.mktemp("judges")
    out = folder / "study.tsv"
    result = CliRunner().invoke(main, [*SMALL, "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_jsonl_holds_the_tsv_records(small):
    result = CliRunner().invoke(main, [*SMALL, "--output-format", "jsonl"])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.stdout.splitlines()]
    rows = _rows(small.read_text())
    assert len(records) == len(rows) and list(records[0]) == list(rows[0])


@pytest.mark.parametrize("fmt", ["markdown", "latex"])
def test_paper_table_with_legend_and_signature_and_table_reads_it(small, fmt):
    direct = CliRunner().invoke(main, [*SMALL, "--output-format", fmt])
    assert direct.exit_code == 0, direct.output
    assert "careful" in direct.stdout and ("Signature: `judges|" in direct.stdout or "% signature: judges|"
                                           in direct.stdout)
    assert "significance cluster" in direct.stdout
    gathered = CliRunner().invoke(main, ["table", "--output-format", fmt, str(small)])
    assert gathered.exit_code == 0, gathered.output
    assert gathered.stdout == direct.stdout


@pytest.mark.parametrize("kind", ["scatter", "confusion"])
def test_plot_draws_the_judges_table(small, tmp_path, kind):
    figure = tmp_path / f"{kind}.png"
    result = CliRunner().invoke(main, ["plot", kind, "-o", str(figure), str(small)])
    assert result.exit_code == 0, result.output
    assert figure.stat().st_size > 1000


# --- bad input -------------------------------------------------------------------------------------

def _run(tmp_path, reference, candidates, runs=None):
    paths = []
    for name, text in [("ref.qrels", reference)] + [(f"c{i}.qrels", t) for i, t in enumerate(candidates)]:
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    run = tmp_path / "a.run"
    run.write_text(runs or "1 Q0 d1 1 3.0 a\n1 Q0 d2 2 2.0 a\n1 Q0 d3 3 1.0 a\n")
    return CliRunner().invoke(main, ["judges", "--qrels", paths[0], *[f"--candidate={p}" for p in paths[1:]],
                                     "--bootstrap", "20", str(run)])


REFERENCE = "1 0 d1 2\n1 0 d2 0\n1 0 d3 1\n"


def test_a_candidate_grade_outside_the_scale_is_an_error_at_its_line(tmp_path):
    result = _run(tmp_path, REFERENCE, ["1 0 d1 2\n1 0 d2 7\n"])
    assert result.exit_code == 1
    assert result.stderr.strip().endswith("c0.qrels:2: grade 7 is outside the reference's scale (0, 1, 2; "
                                          f"{tmp_path / 'ref.qrels'})")
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_duplicate_pair_is_an_error_at_its_line(tmp_path):
    result = _run(tmp_path, REFERENCE, ["1 0 d1 2\n1 0 d1 1\n"])
    assert result.exit_code == 1
    assert "c0.qrels:2: docno d1 judged twice for query 1" in result.stderr
    assert "Traceback" not in result.output


def test_a_qid_in_no_run_is_a_note_at_the_reference_line(tmp_path):
    result = _run(tmp_path, REFERENCE + "2 0 d9 1\n", ["1 0 d1 2\n1 0 d2 0\n2 0 d9 1\n"])
    assert result.exit_code == 0, result.output
    assert f"{tmp_path / 'ref.qrels'}:4: topic 2 is in no run: left out" in result.stderr


def test_one_candidate_is_a_note_where_a_comparison_needs_two(tmp_path):
    result = _run(tmp_path, REFERENCE, ["1 0 d1 2\n1 0 d2 0\n1 0 d3 0\n"])
    assert result.exit_code == 0, result.output
    assert "one candidate: no Fleiss' kappa and no comparison between candidates" in result.stderr
    assert "\tjudges\t" not in result.stdout and not result.stdout.startswith("judges")


def test_labels_alone_without_runs():
    result = CliRunner().invoke(main, ["judges", "--qrels", str(EXAMPLE / "reference.qrels"),
                                       f"--candidate={EXAMPLE / 'careful.qrels'}", "--bootstrap", "20"])
    assert result.exit_code == 0, result.output
    assert {r["section"] for r in _rows(result.stdout)} == {"labels", "grades", "confusion"}


def test_unknown_and_summed_measures_are_usage_errors():
    for name, message in (("nosuch", "'nosuch' is not an IR measure"), ("num_rel", "summed over topics")):
        result = CliRunner().invoke(main, [*SMALL, "-m", name])
        assert result.exit_code == 2 and message in result.output
