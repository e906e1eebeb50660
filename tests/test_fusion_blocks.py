"""Run files fused a block of queries at a time (aggregate/fusion/blocks.py, files.py) give the
bytes of fusing all their rows at once (``fuse``, which tests/test_fusion.py checks against the
literal definitions and tests/test_fusion_ranx.py against ranx): every method, on ranx's
fixture runs and on seeded random runs with ids of mixed lengths (byte order is not numeric
order), docnos longer than 32 bytes, non-ASCII ids, ties, runs lacking queries; with blocks of
a few rows and files read a few hundred bytes at a time, so that queries end inside a read and
runs are read side by side over many blocks. Runs out of query order start over read whole.
"""

from __future__ import annotations

import io
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from rankeval_cli.aggregate.fusion import METHODS, fuse
from rankeval_cli.aggregate.fusion import blocks as blocks_module
from rankeval_cli.cli import main

RANX = Path(__file__).resolve().parent / "data" / "fusion" / "ranx-0.3.21"
RANX_RUNS = [RANX / f"run{i}.trec" for i in range(1, 5)]


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch):
    monkeypatch.setattr(blocks_module, "BLOCK_ROWS", 23)
    monkeypatch.setattr(blocks_module, "PART_BYTES", 300)


def read_rows(path: Path) -> list:
    return [(q, d, float(s)) for q, _, d, _, s, *_ in (line.split() for line in path.read_text("utf-8").splitlines())]


def read_qrels(path: Path) -> tuple:
    rows = [line.split() for line in path.read_text().splitlines()]
    return [r[0] for r in rows], [r[2] for r in rows], [int(r[3]) for r in rows]


def expected_lines(paths, method: str, args: dict, tag: str) -> str:
    """The fused run of ``fuse`` (all rows at once), as TREC lines."""
    runs = [tuple(map(list, zip(*read_rows(p)))) for p in paths]
    fused = fuse(runs, method, args.get("normalization", "min-max"), params=args.get("params"),
                 weights=args.get("weights"), depth=args.get("depth"),
                 train_qrels=read_qrels(args["qrels"]) if "qrels" in args else None)
    q, d, r, s = fused.query.tolist(), fused.doc.tolist(), fused.rank.tolist(), fused.score.tolist()
    order = sorted(range(len(r)), key=lambda i: q[i].encode("utf-8"))  # stable: by query bytes
    return "".join(f"{q[i]} Q0 {d[i]} {r[i]} {s[i]!r} {tag}\n" for i in order)


def cli_args(method: str, args: dict) -> list:
    out = ["--method", method, "--run-tag", "t"]
    if "normalization" in args:
        out += ["--normalization", args["normalization"]]
    if "weights" in args:
        out += ["--weights", ",".join(map(str, args["weights"]))]
    if "depth" in args:
        out += ["--k", str(args["depth"])]
    if "qrels" in args:
        out += ["--train-qrels", str(args["qrels"])]
    return out


def method_args(method: str, n_runs: int, qrels: Path) -> dict:
    entry = METHODS[method]
    args: dict = {}
    if entry.weighted:
        args["weights"] = [0.5 + r for r in range(n_runs)]
    if entry.train is not None:
        args["qrels"] = qrels
    return args


def random_runs(folder: Path, seed: int = 7) -> tuple:
    """Runs in the byte order of their query ids (q1, q10, q11, q2, ...), some lacking queries,
    of different depths, with ties, a docno of 40 bytes, non-ASCII ids; and training qrels."""
    rng = np.random.default_rng(seed)
    queries = sorted([f"q{i}" for i in range(1, 14)] + ["qé", "q\u00e9x"], key=lambda q: q.encode("utf-8"))
    pool = [f"D{i:03d}" for i in range(60)] + ["doc-" + "x" * 36, "dé1", "d\u20ac2", "a"]
    paths = []
    for r in range(4):
        lines = []
        for q in queries:
            if rng.random() < 0.15:
                continue
            docs = rng.choice(len(pool), int(rng.integers(1, 30)), replace=False)
            scores = np.sort(rng.integers(0, 8, len(docs)) / 4)[::-1]
            lines += [f"{q} Q0 {pool[d]} {i} {s} r{r}\n" for i, (d, s) in enumerate(zip(docs, scores), 1)]
        paths.append(folder / f"run{r}.trec")
        paths[-1].write_text("".join(lines), "utf-8")
    qrels = folder / "train.qrels"
    qrels.write_text("".join(f"{q} 0 {pool[d]} {int(rng.integers(0, 3))}\n" for q in queries[:8]
                             for d in rng.choice(len(pool), 20, replace=False)) + "zz 0 D001 1\n", "utf-8")
    return paths, qrels


@pytest.fixture(scope="module")
def random_files(tmp_path_factory):
    return random_runs(tmp_path_factory.mktemp("fusion-blocks"))


@pytest.mark.parametrize("method", list(METHODS))
def test_blocks_equal_fusing_at_once(method, random_files):
    for paths, qrels in ((RANX_RUNS, RANX / "train.qrels"), random_files):
        args = method_args(method, len(paths), qrels)
        result = CliRunner().invoke(main, ["aggregate", *cli_args(method, args), *map(str, paths)])
        assert result.exit_code == 0, result.output
        assert result.stdout == expected_lines(paths, method, args, "t"), (method, paths[0])


@pytest.mark.parametrize("normalization", ["min-max", "min-max-inverted", "max", "sum", "z-score", "rank", "borda",
                                           "none"])
def test_every_normalization_and_depth(normalization, random_files):
    paths, qrels = random_files
    args = {"normalization": normalization, "depth": 5}
    result = CliRunner().invoke(main, ["aggregate", *cli_args("combmnz", args), *map(str, paths)])
    assert result.exit_code == 0, result.output
    assert result.stdout == expected_lines(paths, "combmnz", args, "t")


def test_exact_grouping_where_hashing_does_not_decide(monkeypatch, random_files):
    from rankeval_cli.aggregate.fusion import grouping

    paths, _ = random_files
    monkeypatch.setattr(grouping, "candidates", lambda *a: None)
    result = CliRunner().invoke(main, ["aggregate", "--method", "rrf", "--run-tag", "t", *map(str, paths)])
    assert result.stdout == expected_lines(paths, "rrf", {}, "t")


def numeric_order(paths, folder: Path) -> list:
    """The runs with their queries in numeric order (q2 before q10): not the byte order."""
    out = []
    for p in paths:
        by_query = defaultdict(list)
        for line in p.read_text("utf-8").splitlines(keepends=True):
            by_query[line.split()[0]].append(line)
        key = lambda q: (len(q), q)  # noqa: E731
        out.append(folder / ("numeric-" + p.name))
        out[-1].write_text("".join(line for q in sorted(by_query, key=key) for line in by_query[q]), "utf-8")
    return out


def test_runs_out_of_query_order_start_over(tmp_path, random_files):
    """The side-by-side reading meets q2 after q13 once blocks are written: the output (a file,
    appended to; a pipe, spooled) starts over from the runs read whole."""
    paths = numeric_order(random_files[0], tmp_path)
    expected = expected_lines(random_files[0], "combsum", {}, "t")
    result = CliRunner().invoke(main, ["aggregate", "--method", "combsum", "--run-tag", "t", *map(str, paths)])
    assert result.exit_code == 0 and result.stdout == expected
    out = tmp_path / "fused.trec"
    result = CliRunner().invoke(main, ["aggregate", "--method", "combsum", "--run-tag", "t", "-o", str(out),
                                       *map(str, paths)])
    assert result.exit_code == 0 and out.read_text("utf-8") == expected


def test_restartable_output_truncates_an_appended_file(tmp_path):
    from rankeval_cli.restartable_output import restartable

    path = tmp_path / "out.txt"
    path.write_text("kept\n")
    with open(path, "a", encoding="utf-8") as out:
        with restartable(out) as sink:
            sink.write(b"first try\n")
            sink.restart()
            sink.write(b"second\n")
    assert path.read_text() == "kept\nsecond\n"
    text = io.StringIO()
    with restartable(text) as sink:
        sink.write("é1\n".encode())
        sink.restart()
        sink.write("é2\n".encode())
    assert text.getvalue() == "é2\n"


def test_a_document_twice_in_a_later_block_is_an_error_at_its_line(tmp_path):
    lines = [f"q{q:02d} Q0 d{d} {d} {10 - d} r\n" for q in range(1, 9) for d in range(1, 6)]
    lines.insert(33, "q07 Q0 d2 9 0.5 r\n")  # after q07's d1..d4: line 34
    path = tmp_path / "dup.trec"
    path.write_text("".join(lines))
    for command in (["aggregate", "--method", "rrf"], ["agree"]):
        result = CliRunner().invoke(main, [*command, str(RANX_RUNS[0]), str(path)])
        assert result.exit_code == 1
        assert "dup.trec:34: document 'd2' listed twice for query 'q07'" in result.output, command


def test_agreement_by_blocks_equals_reading_the_runs_whole(tmp_path, random_files):
    """rankeval agree's per-query values, its runs read by blocks (side by side, or whole after
    meeting a run out of query order), equal those of the runs read whole at once."""
    from dataclasses import replace

    from rankeval_cli.agreement.runs import AgreementSettings, compare, pair_queries, per_query, read_runs

    settings = AgreementSettings(p=0.8, depth=12)
    runs, qids = read_runs(random_files[0])
    for paths in (random_files[0], numeric_order(random_files[0], tmp_path)):
        names, pairs = compare(paths, settings)
        assert names == ["r0", "r1", "r2", "r3"] and len(pairs) == 12
        for (i, j), pair in pairs.items():
            queries = pair_queries(runs[i], runs[j])
            expected = per_query(runs[i], runs[j], queries, settings if i < j else replace(settings, measures=("tau-ap",)))
            assert pair.queries == [qids[q] for q in queries]
            assert pair.values.keys() == expected.keys()
            for name, values in expected.items():
                np.testing.assert_array_equal(pair.values[name], values, err_msg=name)
