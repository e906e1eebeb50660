"""Parquet and Arrow IPC in and out: runs, qrels and streams found by their magic bytes (also
gzipped), byte-identical trec_eval output after a round trip, ranx's Parquet both ways, summaries
and streams written as Parquet, clear errors (bad columns, bad values, no pyarrow)."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ir_data import make, write_qrels, write_run
from rankeval_cli.cli import main

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def trec(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("trec")
    qrels, (run,) = make(3, n_queries=20, tie_share=0.3)
    write_qrels(tmp / "qrels", qrels)
    write_run(tmp / "run", run)
    return tmp


@pytest.mark.parametrize("fmt", ["parquet", "arrow"])
def test_run_round_trip_gives_trec_eval_bytes(trec, tmp_path, fmt):
    out = tmp_path / f"run.{fmt}"
    assert _run("convert", "--from", "trec", trec / "run", "--output-format", fmt, "-o", out).exit_code == 0
    assert out.read_bytes()[:4] == (b"PAR1" if fmt == "parquet" else b"ARRO")
    args = ["trec_eval", "-q", "-c", "-m", "all_trec", trec / "qrels"]
    want = _run(*args, trec / "run")
    got = _run(*args, out)
    assert want.exit_code == 0 and got.exit_code == 0, got.output
    assert got.stdout == want.stdout
    # the canonical stream of convert --from trec --qrels, read back as a run, too
    stream = tmp_path / "stream.parquet"
    assert _run("convert", "--from", "trec", "--qrels", trec / "qrels", trec / "run", "--output-format", "parquet",
                "-o", stream).exit_code == 0
    plain = _run("trec_eval", "-q", "-m", "all_trec", trec / "qrels", trec / "run").stdout
    assert _run("trec_eval", "-q", "-m", "all_trec", trec / "qrels", stream).stdout == plain


def test_gzipped_parquet_and_qrels_as_parquet(trec, tmp_path):
    run_pq = tmp_path / "run.parquet"
    _run("convert", "--from", "trec", trec / "run", "--output-format", "parquet", "-o", run_pq)
    zipped = tmp_path / "run.pq.gz"
    zipped.write_bytes(gzip.compress(run_pq.read_bytes()))
    rows = [line.split() for line in (trec / "qrels").read_text().splitlines()]
    pq.write_table(pa.table({"query_id": [r[0] for r in rows], "iteration": [r[1] for r in rows],
                             "doc_id": [r[2] for r in rows], "relevance": [int(r[3]) for r in rows]}),
                   tmp_path / "qrels.parquet")
    want = _run("trec_eval", "-m", "official", trec / "qrels", trec / "run").stdout
    assert _run("trec_eval", "-m", "official", tmp_path / "qrels.parquet", zipped).stdout == want


RANX = Path(__file__).resolve().parent / "data" / "arrow" / "ranx-0.3.21"
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "trec"


def test_we_read_ranx_parquet():
    """ranx 0.3.21's saved run and qrels (scripts/ranx-parquet-fixture): the same evaluation as the
    text they came from; ranx keeps no run tag, so the run is named after its file."""
    args = ["trec_eval", "-q", "-c", "-m", "all_trec"]
    want = _run(*args, EXAMPLE / "qrels.txt", EXAMPLE / "bm25.run").stdout
    got = _run(*args, RANX / "ranx-qrels.parquet", RANX / "ranx-run.parquet").stdout
    assert got == want.replace("\tall\tbm25\n", "\tall\tranx-run\n")


def test_ranx_reads_our_parquet(tmp_path):
    """ranx 0.3.21 read rankeval's run Parquet (ranx-read.json: what Run.from_parquet gave); today's
    writer gives the columns and types of that file and the values ranx read."""
    ours = tmp_path / "run.parquet"
    assert _run("convert", "--from", "trec", EXAMPLE / "bm25.run", "--output-format", "parquet",
                "-o", ours).exit_code == 0
    assert pq.read_schema(ours).remove_metadata() == pq.read_schema(RANX / "rankeval-run.parquet").remove_metadata()
    table = pq.read_table(ours).to_pylist()
    read = json.loads((RANX / "ranx-read.json").read_text())
    assert {q: {r["doc_id"]: r["score"] for r in table if r["query_id"] == q} for q in read} == read
    assert sum(map(len, read.values())) == len(table)


def test_summaries_and_streams_as_parquet(trec, tmp_path):
    out = tmp_path / "summary.parquet"
    args = ["report", "--qrels", trec / "qrels", "-m", "AP", "-m", "nDCG@10", trec / "run"]
    assert _run(*args, "--output-format", "parquet", "-o", out).exit_code == 0
    table = pq.read_table(out).to_pylist()
    want = [json.loads(line) for line in _run(*args, "--output-format", "jsonl").stdout.splitlines()]
    assert table == want
    stream = tmp_path / "s.parquet"
    tsv = _run("convert", "--from", "trec", "--qrels", trec / "qrels", trec / "run").stdout
    (tmp_path / "s.tsv").write_text(tsv)
    assert _run("convert", tmp_path / "s.tsv", "--output-format", "parquet", "-o", stream).exit_code == 0
    assert _run("convert", stream).stdout == tsv  # the stream read back by its magic bytes
    summary = _run("ndcg", "--relevance", "grades", "--higher-better", stream)
    assert summary.exit_code == 0 and summary.stdout == _run("ndcg", "--relevance", "grades", "--higher-better",
                                                             tmp_path / "s.tsv").stdout


def test_errors_name_the_file(tmp_path, trec):
    bad = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"query_id": ["1", "1"], "docid": ["a", "b"], "score": [1.0, 2.0]}), bad)
    r = _run("trec_eval", trec / "qrels", bad)
    assert r.exit_code == 1 and "bad.parquet" in r.stderr and "no document id column" in r.stderr
    assert "Traceback" not in r.output
    nan = tmp_path / "nan.parquet"
    pq.write_table(pa.table({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": [1.0, float("nan")]}), nan)
    r = _run("trec_eval", trec / "qrels", nan)
    assert r.exit_code == 1 and "nan.parquet:2" in r.stderr and "not a finite number" in r.stderr
    frac = tmp_path / "q.parquet"
    pq.write_table(pa.table({"query_id": ["1"], "doc_id": ["a"], "relevance": [0.5]}), frac)
    r = _run("trec_eval", frac, trec / "run")
    assert r.exit_code == 1 and "q.parquet:1" in r.stderr and "not an integer" in r.stderr


def test_missing_pyarrow_is_one_line(tmp_path, trec, monkeypatch):
    out = tmp_path / "run.parquet"
    _run("convert", "--from", "trec", trec / "run", "--output-format", "parquet", "-o", out)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    r = _run("trec_eval", trec / "qrels", out)
    assert r.exit_code == 1
    assert r.stderr.strip().endswith("needs pyarrow: pip install 'rankeval-cli[arrow]'")
    assert len(r.stderr.strip().splitlines()) == 1
