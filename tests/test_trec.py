"""TREC runs and qrels: the reader, trec_eval's join rules, every IR measure against
pytrec_eval (trec_eval's C code) per query and in the mean, ERR against gdeval (via
ir_measures), Judged against ir_measures, the tie policies against enumeration, and
the canonical stream of ``convert --from trec`` against the direct path."""

from __future__ import annotations


import gzip
import itertools
import json
import math
import re

import numpy as np
import pytest
import pytrec_eval
from click.testing import CliRunner

import ir_data
import slow_ir
from rankeval_cli.cli import main
from rankeval_cli.formats.trec import run as trec_run
from rankeval_cli.formats.trec.join import join
from rankeval_cli.formats.trec.qrels import read_qrels
from rankeval_cli.formats.trec.run import read_run
from rankeval_cli.formats.trec.streaming import stream_join
from rankeval_cli.ir.run_records import mean_value
from rankeval_cli.measures import ir

#: trec_eval names checked against pytrec_eval, with their ir_measures twins
_K = r"([1-9][0-9]*)"
#: the legacy kernels by the names these tests use: (regex, kind, cut-off group)
_KERNELS = [(re.compile(p), kind, g) for p, kind, g in [
    (r"map", "ap", None), (rf"map_cut_{_K}", "ap", 1), (rf"P_{_K}", "p", 1), (rf"recall_{_K}", "recall", 1),
    (r"ndcg", "ndcg", None), (rf"ndcg_cut_{_K}", "ndcg", 1), (r"recip_rank", "rr", None),
    (r"Rprec", "rprec", None), (r"bpref", "bpref", None), (rf"success_{_K}", "success", 1),
    (r"num_ret", "num_ret", None), (r"num_rel", "num_rel", None), (r"num_rel_ret", "num_rel_ret", None),
    (r"AP", "ap", None), (rf"AP@{_K}", "ap", 1), (rf"P@{_K}", "p", 1), (rf"R@{_K}", "recall", 1),
    (r"nDCG", "ndcg", None), (rf"nDCG@{_K}", "ndcg", 1), (r"RR", "rr", None), (rf"RR@{_K}", "rr", 1),
    (r"Bpref", "bpref", None), (rf"Success@{_K}", "success", 1), (rf"ERR@{_K}", "err", 1), (r"ERR", "err", None),
    (rf"Judged@{_K}", "judged", 1), (r"NumRet", "num_ret", None), (r"NumRel", "num_rel", None),
    (r"NumRelRet", "num_rel_ret", None), (r"rankDCG", "rankdcg", None)]]


def kernel(name: str) -> ir.Measure:
    """The legacy kernel (:class:`rankeval_cli.measures.ir.Measure`) a name of these tests stands for."""
    for pattern, kind, group in _KERNELS:
        match = pattern.fullmatch(name)
        if match:
            return ir.Measure(name, kind, int(match.group(group)) if group else None)
    raise KeyError(name)


TREC_NAMES = ["map", "map_cut_10", "map_cut_100", "P_5", "P_10", "P_100", "recall_10", "recall_100", "ndcg",
              "ndcg_cut_5", "ndcg_cut_10", "ndcg_cut_100", "recip_rank", "Rprec", "bpref", "success_1",
              "success_10", "num_ret", "num_rel", "num_rel_ret"]
TWINS = {"AP": "map", "AP@10": "map_cut_10", "P@10": "P_10", "R@100": "recall_100", "nDCG": "ndcg",
         "nDCG@10": "ndcg_cut_10", "RR": "recip_rank", "Bpref": "bpref", "Success@10": "success_10",
         "NumRet": "num_ret", "NumRel": "num_rel", "NumRelRet": "num_rel_ret"}


def run_cli(*args, input=None):
    result = CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)
    return result


def write_case(tmp_path, seed, **kw):
    qrels, runs = ir_data.make(seed, **kw)
    qpath = tmp_path / f"q{seed}.txt"
    ir_data.write_qrels(qpath, qrels)
    paths = []
    for i, run in enumerate(runs):
        path = tmp_path / f"r{seed}_{i}.txt"
        ir_data.write_run(path, run)
        paths.append(path)
    return qrels, runs, qpath, paths


def cut_run(run_dict, depth):
    """trec_eval -M: the first ``depth`` documents in trec_eval's order."""
    out = {}
    for q, docs in run_dict.items():
        keep = slow_ir.trec_key_sort(list(docs.items()))[:depth]
        out[q] = {d: docs[d] for d in keep}
    return out


def ours(qpath, rpath, names, **options):
    joined = join(read_run(rpath), read_qrels(qpath), depth=options.pop("depth", None),
                       all_queries=options.pop("all_queries", False))
    evaluator = ir.Evaluator(ir.ranking_from_joined(joined), **options)
    return joined.qids, {n: evaluator.values(kernel(n)) for n in names}


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("setting", ["default", "rel_level_2", "depth_100", "depth_7", "all_queries"])
def test_every_measure_equals_pytrec_eval(tmp_path, seed, setting):
    qrels, runs, qpath, (rpath,) = write_case(tmp_path, seed, max_docs=150 if setting.startswith("depth") else 60)
    level = 2 if setting == "rel_level_2" else 1
    depth = int(setting.split("_")[1]) if setting.startswith("depth") else None
    qd, rd = ir_data.pytrec_inputs(qrels, runs[0])
    if depth:
        rd = cut_run(rd, depth)
    measures = {"map", "map_cut", "P", "recall", "ndcg", "ndcg_cut", "recip_rank", "Rprec", "bpref", "success",
                "num_ret", "num_rel", "num_rel_ret"}  # pytrec_eval's defaults cover the cut-offs above
    expected = pytrec_eval.RelevanceEvaluator(qd, measures, relevance_level=level).evaluate(rd)
    names = TREC_NAMES + list(TWINS)
    qids, values = ours(qpath, rpath, names, rel_level=level, depth=depth, all_queries=setting == "all_queries")
    both = sorted(set(qd) & set(rd))
    assert sorted(expected) == both
    if setting == "all_queries":
        assert sorted(qids) == sorted(qd)
    else:
        assert sorted(qids) == both
    checked = 0
    for name in names:
        peer = TWINS.get(name, name)
        for i, q in enumerate(qids):
            if q in expected:
                assert values[name][i] == pytest.approx(expected[q][peer], rel=1e-12, abs=1e-12), (name, q)
            else:  # --all-queries: a query the run lacks scores as an empty ranking
                want = sum(1 for g in qd[q].values() if g >= level) if peer == "num_rel" else 0.0
                assert values[name][i] == want, (name, q)
            checked += 1
        m = kernel(name)
        mean = mean_value(m, values[name])
        peer_values = [expected[q][peer] for q in both]
        if m.summed:
            want = math.fsum(peer_values) + (sum(sum(1 for g in qd[q].values() if g >= level) for q in qids
                                                 if q not in expected) if peer == "num_rel" else 0)
        else:
            want = math.fsum(peer_values) / len(qids)
        assert mean == pytest.approx(want, rel=1e-12, abs=1e-15), name
    assert checked == len(names) * len(qids)


def test_err_equals_gdeval(tmp_path):
    ir_measures = pytest.importorskip("ir_measures")
    import shutil

    if not shutil.which("perl"):
        pytest.skip("gdeval needs perl")
    total = 0
    for seed in range(3):
        qrels, runs, qpath, (rpath,) = write_case(tmp_path, seed, numeric_qids=True)
        peer_q = [ir_measures.Qrel(q, d, int(g)) for q, _, d, g in qrels]
        peer_r = [ir_measures.ScoredDoc(q, d, float(s)) for q, d, _, s, _ in runs[0]]
        for k in (5, 20):
            got = {m.query_id: m.value for m in ir_measures.gdeval.iter_calc([ir_measures.ERR @ k], peer_q, peer_r)}
            qids, values = ours(qpath, rpath, [f"ERR@{k}"])
            mine = dict(zip(qids, values[f"ERR@{k}"]))
            assert got
            for q, v in got.items():
                if q not in mine:  # ir_measures scores a query the run lacks 0
                    assert v == 0
                    continue
                assert abs(mine[q] - v) <= 5.000001e-6, (q, k)  # gdeval prints 5 decimals
                total += 1
    assert total > 100


def test_judged_equals_ir_measures(tmp_path):
    ir_measures = pytest.importorskip("ir_measures")
    qrels, runs = ir_data.make(7)
    runs = [[(q, d, r, 1000.0 - i, t) for i, (q, d, r, s, t) in enumerate(runs[0])]]  # ir_measures breaks ties
    qpath, rpath = tmp_path / "q", tmp_path / "r"  # its own way: a copy without tied scores
    ir_data.write_qrels(qpath, qrels)
    ir_data.write_run(rpath, runs[0])
    peer_q = [ir_measures.Qrel(q, d, int(g)) for q, _, d, g in qrels]
    peer_r = [ir_measures.ScoredDoc(q, d, float(s)) for q, d, _, s, _ in runs[0]]
    for k in (1, 10, 100):
        got = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.Judged @ k], peer_q, peer_r)}
        qids, values = ours(qpath, rpath, [f"Judged@{k}"])
        mine = dict(zip(qids, values[f"Judged@{k}"]))
        for q, v in got.items():
            if q in mine:
                assert mine[q] == pytest.approx(v, abs=1e-15)


def test_hand_computed():
    """qrels d1=2, d2=0, d3=1 (unretrieved), d9=-1; run d2 0.9, d1 0.8, d4 0.8 (unjudged; ties d1,
    docno descending puts d4 first), d9 0.1."""
    ranking = ir.Ranking(np.array([0, 4]), np.array([0, -1, 2, -2]), np.array([0, 1, 1, 2]), np.array([0, 3]),
                         np.array([2, 1, 0]))
    e = ir.Evaluator(ranking)
    v = {n: float(e.values(kernel(n))[0]) for n in ("P_2", "P_3", "map", "recip_rank", "ndcg", "bpref",
                                                      "Rprec", "num_rel", "Judged@4", "ndcg_cut_3")}
    assert v["P_2"] == 0 and v["P_3"] == pytest.approx(1 / 3)
    assert v["map"] == pytest.approx((1 / 3) / 2)  # one relevant at rank 3, R = 2
    assert v["recip_rank"] == pytest.approx(1 / 3)
    idcg = 2 + 1 / math.log2(3)
    assert v["ndcg"] == pytest.approx((2 / 2) / idcg)  # gain 2 at rank 3: 2 / log2(4)
    assert v["bpref"] == 0.0  # d2 (judged non-relevant) above d1: 1 - min(1, 2)/min(1, 2)
    assert v["Rprec"] == 0.0 and v["num_rel"] == 2 and v["Judged@4"] == 0.75


def test_relevant_document_not_retrieved_scores_zero(tmp_path):
    """grades [3, 0, 0], the relevant one not retrieved: trec_eval gives nDCG 0, RR 0, AP 0."""
    (tmp_path / "q").write_text("1 0 a 3\n1 0 b 0\n1 0 c 0\n")
    (tmp_path / "r").write_text("1 Q0 b 1 2.0 t\n1 Q0 c 2 1.0 t\n")
    out = run_cli("report", "--qrels", str(tmp_path / "q"), "-m", "ndcg,recip_rank,map", str(tmp_path / "r"))
    values = [line.split("\t")[2] for line in out.stdout.splitlines()[1:]]
    assert values == ["0", "0", "0"]


def test_query_without_relevant_document_is_zero_and_averaged(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n2 0 b 0\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2.0 t\n2 Q0 b 1 1.0 t\n")
    out = run_cli("report", "--qrels", str(tmp_path / "q"), "-m", "map", "--per-group", str(tmp_path / "r"))
    assert out.stdout.splitlines()[1:] == ["t\t1\t1", "t\t2\t0"]
    assert "t\tmap\t0.5\t2" in out.stderr


def _enumerate(rels, blocks, name, k, qrels):
    """All values of a measure over every order of the tied blocks."""
    groups = [list(g) for _, g in itertools.groupby(range(len(rels)), key=lambda i: blocks[i])]
    values = []
    for perms in itertools.product(*(itertools.permutations(g) for g in groups)):
        order = [i for p in perms for i in p]
        values.append(slow_ir.measure(name, k, [rels[i] for i in order], qrels))
    return values


@pytest.mark.parametrize("seed", range(30))
def test_tie_policies_against_enumeration(seed):
    rnd = np.random.default_rng(seed)
    n = int(rnd.integers(1, 8))
    rels = rnd.choice([-2, -1, 0, 0, 1, 2, 3], size=n).tolist()
    blocks = np.sort(rnd.integers(0, 3, size=n)).tolist()
    qrels = {f"d{i}": r for i, r in enumerate(rels) if r != -1}
    qrels.update({f"u{i}": int(g) for i, g in enumerate(rnd.choice([0, 1, 2], size=int(rnd.integers(0, 3))))})
    judged = sorted((g for g in qrels.values() if g >= 0), reverse=True)
    ranking = ir.Ranking(np.array([0, n]), np.array(rels), np.array(blocks), np.array([0, len(judged)]),
                         np.array(judged, dtype=np.int64))
    for name, kind, k in [("P_3", "p", 3), ("recall_2", "recall", 2), ("map", "ap", None), ("AP@3", "ap", 3),
                          ("recip_rank", "rr", None), ("RR@2", "rr", 2), ("ndcg", "ndcg", None),
                          ("ndcg_cut_3", "ndcg", 3), ("Rprec", "rprec", None), ("success_2", "success", 2),
                          ("ERR@4", "err", 4), ("Judged@3", "judged", 3), ("bpref", "bpref", None)]:
        every = _enumerate(rels, blocks, kind, k, qrels)
        for policy, want in (("pessimistic", min(every)), ("optimistic", max(every)),
                             ("expected", sum(every) / len(every))):
            if policy == "expected" and kind == "bpref":
                continue
            got = ir.Evaluator(ranking, tie_policy=policy).values(kernel(name))[0]
            assert got == pytest.approx(want, abs=1e-12), (name, policy, rels, blocks)


@pytest.mark.parametrize("seed", range(4))
def test_slow_implementation_agrees(tmp_path, seed):
    """The vectorized kernels against the obvious per-query loops (ERR, Judged, rankings cut at 3)."""
    qrels, runs, qpath, (rpath,) = write_case(tmp_path, seed + 20)
    qd, rd = ir_data.pytrec_inputs(qrels, runs[0])
    names = ["ERR@3", "ERR@20", "Judged@3", "nDCG@3", "AP@3", "P@3"]
    qids, values = ours(qpath, rpath, names)
    slow_names = {"ERR@3": ("err", 3), "ERR@20": ("err", 20), "Judged@3": ("judged", 3), "nDCG@3": ("ndcg", 3),
                  "AP@3": ("ap", 3), "P@3": ("p", 3)}
    for i, q in enumerate(qids):
        ranked = slow_ir.trec_key_sort(list(rd[q].items()))
        rels = slow_ir.rel_list(ranked, qd[q])
        for name, (kind, k) in slow_names.items():
            assert values[name][i] == pytest.approx(slow_ir.measure(kind, k, rels, qd[q]), abs=1e-12), (name, q)


def test_reader_whitespace_gzip_crlf_blank_lines(tmp_path):
    qrels, runs, qpath, (rpath,) = write_case(tmp_path, 3)
    base = run_cli("report", "--qrels", str(qpath), "-m", "map,ndcg_cut_10,bpref", str(rpath)).stdout
    text = rpath.read_text()
    variants = {
        "tabs": text.replace(" ", "\t"),
        "spaces": text.replace(" ", "   "),
        "crlf": text.replace("\n", "\r\n"),
        "blank": "\n" + text.replace("\n", "\n\n", 5),
    }
    for name, content in variants.items():
        path = tmp_path / f"v_{name}"
        path.write_text(content)
        got = run_cli("report", "--qrels", str(qpath), "-m", "map,ndcg_cut_10,bpref", str(path)).stdout
        assert got.replace(str(path), "X") == base.replace(str(rpath), "X"), name
    gz = tmp_path / "run.gz"
    gz.write_bytes(gzip.compress(text.encode()))
    assert run_cli("report", "--qrels", str(qpath), "-m", "map,ndcg_cut_10,bpref", str(gz)).stdout == base
    # small blocks: queries and lines cut anywhere give the same join
    run = read_run(str(rpath), block_bytes=97)
    assert (run.score == read_run(str(rpath)).score).all()


@pytest.mark.parametrize("content, needle", [
    ("1 Q0 a 1 2.0 t\n1 Q0 a 2 1.0 t\n", "r:2: docno a retrieved twice for query 1 (first at line 1)"),
    ("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0\n", "r:2: expected 6 fields"),
    ("1 Q0 a 1 x t\n", "r:1: score 'x' is not a finite number"),
])
def test_run_errors(tmp_path, content, needle):
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text(content)
    result = CliRunner().invoke(main, ["report", "--qrels", str(tmp_path / "q"), str(tmp_path / "r")])
    assert result.exit_code == 1
    assert needle in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("content, needle", [
    ("1 0 a 1\n1 0 a 2\n", "q:2: docno a judged twice for query 1 (first at line 1)"),
    ("1 0 a 1.5\n", "q:1: relevance grade '1.5' is not an integer"),
    ("1 0 a\n", "q:1: expected 4 fields"),
])
def test_qrels_errors(tmp_path, content, needle):
    (tmp_path / "q").write_text(content)
    (tmp_path / "r").write_text("1 Q0 a 1 2.0 t\n")
    result = CliRunner().invoke(main, ["report", "--qrels", str(tmp_path / "q"), str(tmp_path / "r")])
    assert result.exit_code == 1 and needle in result.stderr


@pytest.mark.parametrize("options", [[], ["--all-queries"], ["--depth", "5"], ["--rel-level", "2"],
                                     ["--tie-policy", "expected"], ["--tie-policy", "pessimistic"]])
def test_convert_stream_equals_direct_path(tmp_path, options):
    qrels, runs, qpath, paths = write_case(tmp_path, 11, runs=2)
    measures = "map,P@5,nDCG@10,ndcg,RR,Rprec,R@20,Success@5,ERR@10,Judged@5,num_ret,num_rel,num_rel_ret"
    measures += ",bpref" if "expected" not in options else ""
    direct = run_cli("report", "--qrels", str(qpath), "-m", measures, *options, *map(str, paths))
    convert_options = [o for o in options if o in ("--all-queries", "--depth", "5")]
    stream = run_cli("convert", "--from", "trec", "--qrels", str(qpath), *convert_options, *map(str, paths)).stdout
    piped = run_cli("report", "-m", measures, *options, input=stream)
    assert direct.exit_code == 0 and piped.exit_code == 0, piped.stderr
    assert piped.stdout == direct.stdout
    assert len(direct.stdout.splitlines()) == 1 + 2 * len(measures.split(","))


def test_convert_marks_unjudged_and_unretrieved(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n1 0 c 2\n1 0 d -1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2.5 tag\n1 Q0 x 2 1.0 tag\n1 Q0 d 3 0.5 tag\n")
    out = run_cli("convert", "--from", "trec", "--qrels", str(tmp_path / "q"), str(tmp_path / "r")).stdout
    assert out.splitlines() == ["group\titem\tgold\tpred\trun", "1\ta\t1\t-2.5\ttag", "1\tx\t\t-1\ttag",
                                "1\td\t-1\t-0.5\ttag", "1\tc\t2\t\ttag", "1\tb\t0\t\ttag"]


def test_trec_output_layout(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n2 0 b 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2.0 t\n2 Q0 c 1 1.0 t\n")
    out = run_cli("report", "--qrels", str(tmp_path / "q"), "-m", "P_5,num_ret", "--per-group", "--output-format",
                  "trec", str(tmp_path / "r")).stdout
    assert out.splitlines() == [
        "P_5                   \t1\t0.2000", "num_ret               \t1\t1",
        "P_5                   \t2\t0.0000", "num_ret               \t2\t1",
        "P_5                   \tall\t0.1000", "num_ret               \tall\t2"]


def test_measure_names_and_commands(tmp_path):
    qrels, runs, qpath, (rpath,) = write_case(tmp_path, 5)
    report = run_cli("report", "--qrels", str(qpath), "-m", "RR@10", "-m", "nDCG@10,ERR@10", "--output-format", "jsonl",
                     str(rpath)).stdout
    rows = {r["measure"]: r["value"] for r in map(json.loads, report.splitlines())}
    for command, name in (("mrr", "RR@10"), ("ndcg", "nDCG@10"), ("err", "ERR@10")):
        out = run_cli(command, "--qrels", str(qpath), "--k", "10", "--output-format", "jsonl", str(rpath)).stdout
        assert json.loads(out)["value"] == rows[name]
    bad = CliRunner().invoke(main, ["report", "--qrels", str(qpath), "-m", "nope@3", str(rpath)])
    assert bad.exit_code == 2 and "not an IR measure" in bad.stderr


def test_streamed_parts_equal_whole_join(tmp_path):
    """Blocks of a few lines (queries cut anywhere) give the same rankings as the whole run."""
    qrels, runs, qpath, (rpath,) = write_case(tmp_path, 9)
    q = read_qrels(qpath)
    whole = join(read_run(rpath), q)
    e = ir.Evaluator(ir.ranking_from_joined(whole))
    want = dict(zip(whole.qids, e.values(kernel("AP"))))
    got = {}
    for joined, _ in stream_join(str(rpath), q, block_bytes=200):
        assert joined is not None
        got.update(zip(joined.qids, ir.Evaluator(ir.ranking_from_joined(joined)).values(kernel("AP"))))
    assert got == want


def test_scattered_queries(tmp_path):
    """A query whose lines come after another query's: the run is read whole (from stdin, from
    the copy kept while it was read)."""
    (tmp_path / "q").write_text("1 0 a 1\n2 0 c 1\n")
    lines = ["1 Q0 a 1 2.0 t", "2 Q0 c 1 1.0 t", "1 Q0 b 2 3.0 t"] + [f"2 Q0 x{i} {i} 0.5 t" for i in range(200)]
    (tmp_path / "r").write_text("\n".join(lines) + "\n")
    (tmp_path / "sorted").write_text("\n".join(sorted(lines, key=lambda l: l.split()[0])) + "\n")
    args = ["report", "--qrels", str(tmp_path / "q"), "-m", "map,P_5,num_ret"]
    scattered = run_cli(*args, str(tmp_path / "r")).stdout
    assert scattered.replace(str(tmp_path / "r"), "X") == run_cli(*args, str(tmp_path / "sorted")).stdout.replace(
        str(tmp_path / "sorted"), "X")
    assert "t\tmap\t0.75\t2" in scattered  # query 1: a at rank 2 (b scores 3.0) -> 1/2; query 2: 1
    old = trec_run.RUN_BLOCK_BYTES
    trec_run.RUN_BLOCK_BYTES = 64  # the reappearance is seen after parts were yielded
    try:
        again = run_cli(*args, str(tmp_path / "r")).stdout
        piped = CliRunner().invoke(main, [*args, "-"], input=(tmp_path / "r").read_text())
    finally:
        trec_run.RUN_BLOCK_BYTES = old
    assert again == scattered
    assert piped.exit_code == 0 and piped.stdout == scattered
