"""DataFrames both ways in the Python API (pandas, polars when installed, pyarrow): the same
numbers as the files they hold, documented columns, round trips; qrels by ir_datasets id from a
dataset registered from local files (no network), and one-line errors when it cannot be read."""

from __future__ import annotations

import json
import sys

import pytest
from click.testing import CliRunner

from ir_data import make, write_qrels, write_run
from rankeval_cli import api
from rankeval_cli.cli import main

pd = pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def trec(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("frames")
    qrels, (run, other) = make(5, n_queries=15, runs=2, tie_share=0.3)
    write_qrels(tmp / "qrels", qrels)
    write_run(tmp / "run", run)
    write_run(tmp / "other", other)
    frames = {
        "qrels": pd.DataFrame([(q, d, g) for q, _, d, g in qrels], columns=["query_id", "doc_id", "relevance"]),
        "run": pd.DataFrame([(q, d, s) for q, d, _, s, _ in run], columns=["qid", "docno", "score"]),
        "other": pd.DataFrame([(q, d, s) for q, d, _, s, _ in other], columns=["query_id", "doc_id", "score"]),
    }
    return tmp, frames


def test_ir_evaluate_equals_report(trec):
    tmp, f = trec
    got = api.ir_evaluate(f["qrels"], {"run0": f["run"], "run1": f["other"]}, ["AP", "nDCG@10", "P@5"])
    assert list(got.columns) == ["system", "measure", "value", "groups", "signature"]
    out = CliRunner().invoke(main, ["report", "--qrels", str(tmp / "qrels"), "-m", "AP", "-m", "nDCG@10", "-m", "P@5",
                                    "--output-format", "jsonl", str(tmp / "run"), str(tmp / "other")])
    want = [json.loads(line) for line in out.stdout.splitlines()]
    assert got.to_dict("records") == want
    per_query = api.ir_evaluate(f["qrels"], f["run"], ["AP"], per_query=True, frame=None)
    assert [r["AP"] for r in per_query] == pytest.approx(
        [float(line.split()[2]) for line in api.trec_eval(str(tmp / "qrels"), str(tmp / "run"), ["map"],
                                                          per_query=True).splitlines()[:-1]], abs=5e-5)


def test_trec_eval_takes_frames_dicts_and_arrow(trec):
    tmp, f = trec
    want = api.trec_eval(str(tmp / "qrels"), str(tmp / "run"), ["all_trec"], per_query=True)
    strip = lambda text: [x for x in text.splitlines() if not x.startswith("runid")]  # noqa: E731
    assert strip(api.trec_eval(f["qrels"], f["run"], ["all_trec"], per_query=True)) == strip(want)
    as_dict = {}
    for q, d, s in f["run"].itertuples(index=False):
        as_dict.setdefault(q, {})[d] = s
    assert strip(api.trec_eval(f["qrels"], as_dict, ["all_trec"], per_query=True)) == strip(want)
    pa = pytest.importorskip("pyarrow")
    table = pa.Table.from_pandas(f["qrels"].rename(columns={"relevance": "label"}), preserve_index=False)
    assert strip(api.trec_eval(table, f["run"], ["all_trec"], per_query=True)) == strip(want)


def test_frames_without_pyarrow(trec, monkeypatch):
    tmp, f = trec
    want = api.ir_evaluate(f["qrels"], f["run"], ["AP", "RR"], frame=None)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    assert api.ir_evaluate(f["qrels"], f["run"], ["AP", "RR"], frame=None) == want


def test_evaluate_stream_frames_round_trip(tmp_path):
    df = pd.DataFrame({"group": ["g1", "g1", "g1", "g2", "g2"], "item": list("abcde"),
                       "gold": [1, 2, 3, 1, 2], "pred": [0.9, 0.5, 0.7, 0.2, 0.1], "lp": ["x"] * 5})
    records = api.evaluate(df, "ndcg", higher_better=True, by=["lp"])
    frame = api.evaluate(df, "ndcg", higher_better=True, by=["lp"], frame="pandas")
    assert frame.to_dict("records") == records
    pl = pytest.importorskip("polars")
    assert api.evaluate(pl.from_pandas(df), "ndcg", higher_better=True, by=["lp"]) == records
    assert api.evaluate(df, "ndcg", higher_better=True, by=["lp"], frame="polars").to_dicts() == records


def test_compare_systems_frames():
    values = pd.DataFrame([[0.2, 0.4, 0.3, 0.5], [0.3, 0.6, 0.4, 0.7]], index=["bm25", "dense"])
    rows = api.compare_systems(values, tests=["t"], frame="pandas")
    assert rows["system"].tolist() == [r["system"] for r in api.compare_systems(values.to_numpy(), ["bm25", "dense"],
                                                                                  tests=["t"])]
    assert rows.loc[1, "p_t"] == pytest.approx(0.0138, abs=1e-4)  # t = 3√3, 3 degrees of freedom


# ---- ir_datasets ---------------------------------------------------------------------------

ir_datasets = pytest.importorskip("ir_datasets")


@pytest.fixture(scope="module")
def registered(trec):
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrels
    from ir_datasets.util import LocalDownload
    from ir_datasets.util.download import Download, RequestsDownload

    tmp, _ = trec
    local = "rankeval-test/local/judged"
    if local not in ir_datasets.registry:
        ir_datasets.registry.register(local, Dataset(TrecQrels(LocalDownload(tmp / "qrels"), {})))
        never = Download([RequestsDownload("https://rankeval.invalid/qrels")], cache_path=str(tmp / "absent"))
        ir_datasets.registry.register("rankeval-test/remote", Dataset(TrecQrels(never, {})))
    return tmp


def test_qrels_by_dataset_id(registered):
    tmp = registered
    want = CliRunner().invoke(main, ["trec_eval", "-m", "official", str(tmp / "qrels"), str(tmp / "run")])
    got = CliRunner().invoke(main, ["trec_eval", "-m", "official", "rankeval-test/local/judged", str(tmp / "run")])
    assert got.exit_code == 0 and got.stdout == want.stdout
    report = CliRunner().invoke(main, ["report", "--qrels", "rankeval-test/local/judged", "-m", "AP", str(tmp / "run")])
    assert report.exit_code == 0 and report.stdout == CliRunner().invoke(
        main, ["report", "--qrels", str(tmp / "qrels"), "-m", "AP", str(tmp / "run")]).stdout


@pytest.mark.parametrize("name, message", [
    ("rankeval-test/remote", "ir_datasets has not downloaded these qrels yet; download them once with: "
                             "ir_datasets export rankeval-test/remote qrels > /dev/null"),
    ("rankeval-test/nothing", "no such file, and no ir_datasets dataset of that name"),
])
def test_dataset_errors_are_one_line(registered, name, message):
    r = CliRunner().invoke(main, ["trec_eval", name, str(registered / "run")])
    assert r.exit_code == 1 and r.stderr.strip() == f"rankeval: {name}: {message}" + \
        (" (ir_datasets list shows them)" if "nothing" in name else "")


def test_missing_ir_datasets_names_the_package(registered, monkeypatch):
    monkeypatch.setitem(sys.modules, "ir_datasets", None)
    r = CliRunner().invoke(main, ["trec_eval", "msmarco-passage/trec-dl-2019/judged", str(registered / "run")])
    assert r.exit_code == 1
    assert r.stderr.strip().endswith("needs ir_datasets: pip install ir_datasets")
    missing = CliRunner().invoke(main, ["trec_eval", "missing-qrels.txt", str(registered / "run")])
    assert "cannot open" in missing.stderr  # one word, no slash: a missing file stays a missing file
